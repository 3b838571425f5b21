//! Bad and good access settings: sign-in, roles and bindings, the MCP ceiling, resource
//! scopes.

use super::*;

#[test]
fn refuses_bad_oidc() {
    let cases: &[(&str, &str)] = &[
        // Regression (hardening issue): plain http:// to a host that is not loopback.
        (
            concat!(
                base!(),
                "auth:\n  oidc:\n    issuer: http://idp.example.com\n    client_id: klens\n",
                "    client_secret: hunter2\n    redirect_uri: https://klens.example.com/cb\n",
            ),
            "config.yaml:6:13: auth.oidc.issuer: the issuer URL uses http:// to a host that is \
             not loopback, which would send sign-in codes and the session cookie unencrypted; \
             use https://, or http:// only to localhost, 127.0.0.0/8 or ::1",
        ),
        (
            concat!(
                base!(),
                "auth:\n  oidc:\n    issuer: https://idp.example.com\n    client_id: klens\n",
                "    client_secret: hunter2\n    redirect_uri: HTTP://klens.example.com/cb\n",
            ),
            "config.yaml:9:19: auth.oidc.redirect_uri: the redirect URI uses http:// to a host \
             that is not loopback, which would send sign-in codes and the session cookie \
             unencrypted; use https://, or http:// only to localhost, 127.0.0.0/8 or ::1",
        ),
        (
            concat!(
                base!(),
                "auth:\n  oidc:\n    issuer: ftp://idp.example.com\n    client_id: klens\n",
                "    client_secret: hunter2\n    redirect_uri: https://klens.example.com/cb\n",
            ),
            "config.yaml:6:13: auth.oidc.issuer: invalid issuer URL: expected a URL starting with \
             http:// or https://",
        ),
        (
            concat!(
                base!(),
                "auth:\n  oidc:\n    issuer: https://idp.example.com\n    client_id: klens\n",
                "    client_secret: hunter2\n    redirect_uri: /auth/callback\n",
            ),
            "config.yaml:9:19: auth.oidc.redirect_uri: invalid redirect URI: expected a URL \
             starting with http:// or https://",
        ),
        (
            concat!(
                base!(),
                "auth:\n  oidc:\n    issuer: https://idp.example.com\n    client_id: klens\n",
                "    client_secret: ${EMPTY}\n    redirect_uri: https://klens.example.com/cb\n",
            ),
            "config.yaml:8:20: auth.oidc.client_secret: is empty; give the secret",
        ),
        (
            concat!(base!(), oidc!(), "    max_age: 8 hours\n"),
            "config.yaml:10:14: auth.oidc.max_age: \"8 hours\" is not a valid duration; write it \
             like 30s, 15m, 8h, 1d or 1h30m (more than zero)",
        ),
        (
            concat!(base!(), oidc!(), "    max_age: 0s\n"),
            "config.yaml:10:14: auth.oidc.max_age: \"0s\" is not a valid duration; write it like \
             30s, 15m, 8h, 1d or 1h30m (more than zero)",
        ),
        (
            concat!(base!(), oidc!(), "    scopes: [profile, email]\n"),
            "config.yaml:10:13: auth.oidc.scopes: must include openid, which OpenID Connect \
             requires; such as [openid, profile, email]",
        ),
        (
            concat!(base!(), oidc!(), "    client-id: klens\n"),
            "config.yaml:10:5: auth.oidc.client-id: unknown key \"client-id\"; did you mean \
             \"client_id\"? allowed keys in auth.oidc: issuer, client_id, client_secret, \
             redirect_uri, scopes, max_age",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_bad_roles_and_bindings() {
    let unknown_privilege = format!(
        "config.yaml:11:13: auth.roles.admin[0]: unknown privilege \"everything\"; privileges are \
         {ALL_PRIVILEGES}"
    );
    let cases: &[(&str, &str)] = &[
        (
            concat!(base!(), oidc!(), "  roles:\n    admin: [record]\n"),
            "config.yaml:11:13: auth.roles.admin[0]: unknown privilege \"record\"; did you mean \
             \"records\"?",
        ),
        (concat!(base!(), oidc!(), "  roles:\n    admin: [everything]\n"), &unknown_privilege),
        (
            concat!(base!(), oidc!(), "  roles:\n    admin: [records, produce, records]\n"),
            "config.yaml:11:31: auth.roles.admin[2]: privilege \"records\" is listed twice; list \
             it once",
        ),
        (
            concat!(base!(), oidc!(), "  roles:\n    admin: records\n"),
            "config.yaml:11:12: auth.roles.admin: expected a list such as [a, b], found a single \
             value",
        ),
        (
            concat!(
                base!(),
                oidc!(),
                "  roles:\n    admin: [records]\n",
                "  bindings:\n    - groups: [ops]\n      role: admn\n",
            ),
            "config.yaml:14:13: auth.bindings[0].role: unknown role \"admn\"; did you mean \
             \"admin\"? roles defined under auth.roles: admin",
        ),
        (
            concat!(base!(), oidc!(), "  bindings:\n    - groups: [ops]\n      role: admin\n"),
            "config.yaml:12:13: auth.bindings[0].role: unknown role \"admin\"; auth.roles defines \
             no roles; define it there",
        ),
        (
            concat!(
                base!(),
                oidc!(),
                "  roles:\n    admin: [records]\n",
                "  bindings:\n    - groups: [ops]\n      role: admin\n      clusters: [prd]\n",
            ),
            "config.yaml:15:18: auth.bindings[0].clusters[0]: unknown cluster \"prd\"; did you \
             mean \"prod\"? configured clusters: prod",
        ),
        (
            concat!(
                base!(),
                oidc!(),
                "  roles:\n    admin: [records]\n",
                "  bindings:\n    - groups: [ops]\n      role: admin\n      clusters: []\n",
            ),
            "config.yaml:15:17: auth.bindings[0].clusters: is an empty list; list at least one \
             cluster, or remove the key to cover every cluster",
        ),
        (
            concat!(
                base!(),
                oidc!(),
                "  roles:\n    admin: [records]\n",
                "  bindings:\n    - groups: []\n      role: admin\n",
            ),
            "config.yaml:13:15: auth.bindings[0].groups: is an empty list; list at least one group",
        ),
        (
            concat!(
                base!(),
                oidc!(),
                "  roles:\n    admin: [records]\n",
                "  bindings:\n    - groups: [ops]\n",
            ),
            "config.yaml:13:7: auth.bindings[0].role: missing required key \"role\" in \
             auth.bindings[0]; name one of the roles under auth.roles",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_a_bad_mcp_listener_or_ceiling() {
    let cases: &[(&str, &str)] = &[
        (
            concat!(
                base!(),
                "mcp:\n  listen: 127.0.0.1:8090\n  privileges: [records, delete_topics]\n"
            ),
            "config.yaml:6:25: mcp.privileges[1]: \"delete_topics\" is a write privilege MCP does \
             not accept; the only write privileges MCP accepts are create_topics, produce and \
             register_schemas",
        ),
        (
            concat!(
                base!(),
                "mcp:\n  listen: 127.0.0.1:8090\n  privileges: [records]\n",
                "  clusters: [staging]\n",
            ),
            "config.yaml:7:14: mcp.clusters[0]: unknown cluster \"staging\"; configured clusters: \
             prod",
        ),
        (
            concat!(base!(), "mcp:\n  listen: 127.0.0.1:8080\n  privileges: []\n"),
            "config.yaml:5:11: mcp.listen: collides with listen (the web UI), which uses the same \
             port on the same or a wildcard address; give the MCP listener its own port",
        ),
        (
            concat!(
                "listen: 0.0.0.0:9000\n",
                base!(),
                "mcp:\n  listen: 127.0.0.1:9000\n  privileges: []\n",
            ),
            "config.yaml:6:11: mcp.listen: collides with listen (the web UI), which uses the same \
             port on the same or a wildcard address; give the MCP listener its own port",
        ),
        (
            concat!(
                base!(),
                "mcp:\n  listen: 127.0.0.1:8090\n  privileges: []\n  secret: ${EMPTY}\n"
            ),
            "config.yaml:7:11: mcp.secret: is empty; give the secret",
        ),
        (
            concat!(base!(), "mcp:\n  listen: 127.0.0.1:8090\n  privileges: [Records]\n"),
            "config.yaml:6:16: mcp.privileges[0]: unknown privilege \"Records\"; did you mean \
             \"records\"?",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn mcp_accepts_reads_and_its_three_writes() {
    let config = parse_ok(concat!(
        "listen: \"[::1]:8080\"\n",
        base!(),
        "mcp:\n",
        "  listen: \"[::1]:8090\"\n",
        "  privileges: [records, acls, create_topics, produce, register_schemas]\n",
        "  clusters: [prod]\n",
    ));
    let mcp = config.mcp.expect("mcp is set");
    assert_eq!(
        mcp.privileges,
        [
            Privilege::Records,
            Privilege::Acls,
            Privilege::CreateTopics,
            Privilege::Produce,
            Privilege::RegisterSchemas,
        ]
    );
    assert_eq!(mcp.listen, "[::1]:8090".parse::<SocketAddr>().expect("address"));
    assert_eq!(mcp.clusters.as_deref(), Some(&["prod".to_string()][..]));
}

/// `resources` on a binding and on the MCP ceiling, and `catalog`: each mistake named at its
/// key, with the role and the cluster privileges a scope cannot carry.
#[test]
fn refuses_bad_resource_scopes() {
    let roles = concat!(
        "  roles:\n",
        "    payments: [records, produce, reset_offsets, schema_text]\n",
        "    admin: [records, acls, alter_quotas]\n",
        "  bindings:\n",
        "    - groups: [payments-team]\n",
    );
    check_table(
        &[
            (
                &format!(
                    "{}{}{roles}      role: admin\n      resources: {{ topics: [\"pay-*\"] }}\n",
                    base!(),
                    oidc!()
                ),
                "config.yaml:16:18: auth.bindings[0].resources: role \"admin\" holds acls and \
                 alter_quotas, which apply to the whole cluster and cannot be scoped to \
                 resources; grant them in a binding without resources",
            ),
            (
                &format!(
                    "{}{}{roles}      role: payments\n      resources: {{ topics: [\"\"] }}\n",
                    base!(),
                    oidc!()
                ),
                "config.yaml:16:29: auth.bindings[0].resources.topics[0]: is an empty pattern, \
                 which matches nothing; write a glob such as \"payments-*\" (* any run of \
                 characters, ? one character)",
            ),
            (
                &format!(
                    "{}{}{roles}      role: payments\n      resources: {{ topics: [] }}\n",
                    base!(),
                    oidc!()
                ),
                "config.yaml:16:28: auth.bindings[0].resources.topics: is an empty list; list \
                 at least one glob pattern such as \"payments-*\", or remove the key",
            ),
            (
                &format!(
                    "{}{}{roles}      role: payments\n      resources: {{}}\n",
                    base!(),
                    oidc!()
                ),
                "config.yaml:16:18: auth.bindings[0].resources: names no resources; list \
                 topics, groups, subjects or replications patterns, or remove the key to \
                 cover the whole cluster",
            ),
            (
                &format!(
                    "{}{}{roles}      role: payments\n      resources: {{ topic: [a] }}\n",
                    base!(),
                    oidc!()
                ),
                "config.yaml:16:20: auth.bindings[0].resources.topic: unknown key \"topic\"; \
                 did you mean \"topics\"? allowed keys in auth.bindings[0].resources: topics, \
                 groups, subjects, connect, replications",
            ),
            (
                concat!(
                    base!(),
                    "mcp:\n  listen: 127.0.0.1:8090\n  privileges: [records, acls]\n",
                    "  resources:\n    topics: [\"pay-*\"]\n"
                ),
                "config.yaml:8:5: mcp.resources: mcp.privileges holds acls, which apply to the \
                 whole cluster and cannot be scoped to resources; grant them in a binding \
                 without resources",
            ),
            (
                concat!(base!(), "    catalog: hidden\n"),
                "config.yaml:4:14: clusters[0].catalog: expected scoped or all, found \
                 \"hidden\"; scoped shows callers whose bindings are all scoped only the \
                 resources those cover",
            ),
        ],
        Path::new("/"),
    );
}

#[test]
fn reads_resource_scopes_and_a_scoped_catalog() {
    let config = parse_ok(concat!(
        base!(),
        "    catalog: scoped\n",
        oidc!(),
        "  roles:\n    payments: [records, produce]\n",
        "  bindings:\n",
        "    - groups: [payments-team]\n      role: payments\n",
        "      resources:\n        topics: [\"payments-*\", ledger]\n        subjects: [\"pay.*\"]\n",
        "mcp:\n  listen: 127.0.0.1:8090\n  privileges: [records]\n",
        "  resources: { groups: [\"app-?\"] }\n",
    ));
    assert!(config.clusters[0].scoped_catalog);
    let auth = config.auth.expect("auth");
    let scope = auth.bindings[0].resources.clone().expect("resources");
    assert_eq!(scope.topics, ["payments-*", "ledger"]);
    assert!(scope.groups.is_empty());
    assert_eq!(scope.subjects, ["pay.*"]);
    let mcp = config.mcp.expect("mcp").resources.expect("mcp resources");
    assert_eq!(mcp.groups, ["app-?"]);
    assert!(mcp.topics.is_empty());
    assert!(!parse_ok(base!()).clusters[0].scoped_catalog);
}
