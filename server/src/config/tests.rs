//! Config loader tests: bad configs through one table and one helper, then good configs checked
//! value by value.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use app::Privilege;

use super::{load, parse, Config, ConfigError, LogFormat, SaslMechanism, Secret};

/// Secret values the environment hands out; no error or `Debug` output may contain them.
const SECRETS: &[&str] = &[
    "Prod-Pass-S3cret!",
    "Registry-S3cret!",
    "Oidc-S3cret!",
    "Mcp-S3cret!",
    "hunter2",
];

fn env(name: &str) -> Option<String> {
    let value = match name {
        "KLENS_PROD_PASSWORD" => "Prod-Pass-S3cret!",
        "KLENS_REGISTRY_PASSWORD" => "Registry-S3cret!",
        "KLENS_OIDC_SECRET" => "Oidc-S3cret!",
        "KLENS_MCP_SECRET" => "Mcp-S3cret!",
        "KAFKA_HOST" => "kafka.internal",
        "EMPTY" => "",
        _ => return None,
    };
    Some(value.to_string())
}

fn parse_in(source: &str, base_dir: &Path) -> Result<Config, ConfigError> {
    parse(source, "config.yaml", &env, base_dir)
}

fn parse_ok(source: &str) -> Config {
    match parse_in(source, Path::new("/")) {
        Ok(config) => config,
        Err(error) => panic!("expected a valid config, got: {error}"),
    }
}

/// The one helper every bad-config case goes through: the whole message must match, be one
/// line, and hold no secret.
fn expect_error(source: &str, base_dir: &Path, expected: &str) -> Result<(), String> {
    let message = match parse_in(source, base_dir) {
        Ok(_) => {
            return Err(format!(
                "accepted, expected {expected:?}\n--- config:\n{source}"
            ))
        }
        Err(error) => error.to_string(),
    };
    if message.contains('\n') {
        return Err(format!("message spans lines: {message:?}"));
    }
    if let Some(secret) = SECRETS.iter().find(|secret| message.contains(*secret)) {
        return Err(format!("message leaks {secret:?}: {message}"));
    }
    if message != expected {
        return Err(format!(
            "wrong message\n  expected: {expected}\n  got:      {message}\n--- config:\n{source}"
        ));
    }
    Ok(())
}

fn check_table(cases: &[(&str, &str)], base_dir: &Path) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(source, expected)| expect_error(source, base_dir, expected).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// Three lines: one valid cluster named prod.
macro_rules! base {
    () => {
        "clusters:\n  - name: prod\n    bootstrap_servers: kafka:9092\n"
    };
}

/// Lines 4 to 9: a valid `auth` with only `oidc`.
macro_rules! oidc {
    () => {
        concat!(
            "auth:\n",
            "  oidc:\n",
            "    issuer: https://idp.example.com\n",
            "    client_id: klens\n",
            "    client_secret: ${KLENS_OIDC_SECRET}\n",
            "    redirect_uri: https://klens.example.com/auth/callback\n",
        )
    };
}

const ALL_PRIVILEGES: &str = "records, topic_configs, broker_configs, schema_text, acls, audit, \
    unmask, create_topics, delete_topics, alter_topic_configs, add_partitions, delete_records, produce, \
    reset_offsets, delete_offsets, delete_groups, register_schemas, set_compatibility, \
    delete_schemas, create_acls, delete_acls, alter_quotas, set_scram_credentials, \
    delete_scram_credentials, alter_broker_configs";

#[test]
fn refuses_what_is_not_one_plain_yaml_mapping() {
    let cases: &[(&str, &str)] = &[
        (
            "clusters: [prod\n",
            "config.yaml:2:1: invalid YAML: while parsing a flow sequence, expected ',' or ']'",
        ),
        (
            "- prod\n",
            "config.yaml:1:1: the config must be a mapping with keys such as listen and clusters",
        ),
        (
            concat!("listen: 127.0.0.1:8080\nlisten: 127.0.0.1:8081\n", base!()),
            "config.yaml:2:1: listen: duplicate key \"listen\"; it is already set at 1:1, keep \
             only one",
        ),
        (
            concat!(base!(), "    name: other\n"),
            "config.yaml:4:5: clusters[0].name: duplicate key \"name\"; it is already set at 2:5, \
             keep only one",
        ),
        (
            "clusters:\n  - name: prod\n    bootstrap_servers: &servers kafka:9092\n",
            "config.yaml:3:33: YAML anchors and aliases are not supported; write the value out",
        ),
        (
            concat!(base!(), "---\nlisten: 0.0.0.0:80\n"),
            "config.yaml:4:1: a second YAML document starts here; the config must be one \
             document, so remove the document markers (--- or ...) and merge what follows",
        ),
        (
            concat!("# klens\n---\n", base!(), "...\n# end\n---\nmcp: {}\n"),
            "config.yaml:8:1: a second YAML document starts here; the config must be one \
             document, so remove the document markers (--- or ...) and merge what follows",
        ),
        (
            concat!(base!(), "...\nmcp: {}\n"),
            "config.yaml:5:1: a second YAML document starts here; the config must be one \
             document, so remove the document markers (--- or ...) and merge what follows",
        ),
        (
            "clusters:\n  - name:\n    bootstrap_servers: kafka:9092\n",
            "config.yaml:2:5: clusters[0].name: has no value; give a string",
        ),
        (
            "clusters:\n  - name: !!str prod\n",
            "config.yaml:2:17: YAML tags (!tag) are not supported; remove the tag",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_unknown_and_missing_keys() {
    let cases: &[(&str, &str)] = &[
        (
            "cluster:\n  - name: prod\n",
            "config.yaml:1:1: cluster: unknown key \"cluster\"; did you mean \"clusters\"? allowed \
             keys at the top level: listen, allowed_hosts, clusters, auth, mcp, log, audit, \
             masking, masking_key, metrics",
        ),
        (
            "clusters:\n  - name: prod\n    bootstrap_server: kafka:9092\n",
            "config.yaml:3:5: clusters[0].bootstrap_server: unknown key \"bootstrap_server\"; did \
             you mean \"bootstrap_servers\"? allowed keys in clusters[0]: name, bootstrap_servers, \
             writable, catalog, sasl, tls, schema_registry, properties",
        ),
        (
            concat!(
                base!(),
                "    sasl:\n      mechanism: PLAIN\n      username: klens\n",
                "      password: hunter2\n      token: abc\n",
            ),
            "config.yaml:8:7: clusters[0].sasl.token: unknown key \"token\"; allowed keys in \
             clusters[0].sasl: mechanism, username, password",
        ),
        (
            concat!(base!(), "\"a.b\": 1\n"),
            "config.yaml:4:1: [\"a.b\"]: unknown key \"a.b\"; allowed keys at the top level: \
             listen, allowed_hosts, clusters, auth, mcp, log, audit, masking, masking_key, \
             metrics",
        ),
        (
            "listen: 127.0.0.1:8080\n",
            "config.yaml:1:1: clusters: missing required key \"clusters\" at the top level; list \
             at least one cluster, each with a name and bootstrap_servers",
        ),
        (
            "",
            "config.yaml:1:1: clusters: missing required key \"clusters\" at the top level; list \
             at least one cluster, each with a name and bootstrap_servers",
        ),
        (
            "clusters:\n  - bootstrap_servers: kafka:9092\n",
            "config.yaml:2:5: clusters[0].name: missing required key \"name\" in clusters[0]; give \
             the cluster a name such as prod",
        ),
        (
            concat!(base!(), "    sasl:\n      mechanism: PLAIN\n      username: klens\n"),
            "config.yaml:5:7: clusters[0].sasl.password: missing required key \"password\" in \
             clusters[0].sasl; give the password, for example as ${KLENS_KAFKA_PASSWORD}",
        ),
        (
            concat!(base!(), "auth:\n  claim: groups\n"),
            "config.yaml:5:3: auth.oidc: missing required key \"oidc\" in auth; give issuer, \
             client_id, client_secret and redirect_uri, or remove auth for no sign-in",
        ),
        (
            concat!(base!(), "mcp:\n  listen: 127.0.0.1:8090\n"),
            "config.yaml:5:3: mcp.privileges: missing required key \"privileges\" in mcp; list \
             what MCP calls may do, such as [records], or [] for the catalog only",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_wrong_types() {
    let cases: &[(&str, &str)] = &[
        (
            "clusters: []\n",
            "config.yaml:1:11: clusters: is an empty list; list at least one cluster, each with a \
             name and bootstrap_servers",
        ),
        (
            "clusters:\n  prod: kafka:9092\n",
            "config.yaml:2:3: clusters: expected a list such as [a, b], found a mapping",
        ),
        (
            concat!(base!(), "    writable: yes\n"),
            "config.yaml:4:15: clusters[0].writable: expected true or false, found \"yes\"",
        ),
        (
            concat!(base!(), "    sasl:\n"),
            "config.yaml:4:5: clusters[0].sasl: has no value; give a mapping of keys to values",
        ),
        (
            concat!("listen: [127.0.0.1:8080]\n", base!()),
            "config.yaml:1:9: listen: expected an IP address and port such as 127.0.0.1:8080, \
             found a list",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_bad_listen_addresses_and_hosts() {
    let cases: &[(&str, &str)] = &[
        (
            concat!("listen: localhost:8080\n", base!()),
            "config.yaml:1:9: listen: \"localhost:8080\" is not an IP address and port; write it \
             like 127.0.0.1:8080 or [::]:8080 (host names are not resolved)",
        ),
        (
            concat!("listen: 127.0.0.1:0\n", base!()),
            "config.yaml:1:9: listen: port 0 is not allowed; give a fixed port such as 8080",
        ),
        (
            concat!("allowed_hosts: [https://klens.example.com]\n", base!()),
            "config.yaml:1:17: allowed_hosts[0]: \"https://klens.example.com\" is not a host name; \
             give the host alone, such as klens.example.com, without scheme or path",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_bad_cluster_names_and_servers() {
    let cases: &[(&str, &str)] = &[
        (
            "clusters:\n  - name: Prod\n    bootstrap_servers: kafka:9092\n",
            "config.yaml:2:11: clusters[0].name: \"Prod\" is not a valid cluster name; use \
             lowercase letters, digits, \"-\", \"_\" and \".\" (the name appears in URLs)",
        ),
        (
            "clusters:\n  - name: \"\"\n    bootstrap_servers: kafka:9092\n",
            "config.yaml:2:11: clusters[0].name: \"\" is not a valid cluster name; use lowercase \
             letters, digits, \"-\", \"_\" and \".\" (the name appears in URLs)",
        ),
        (
            concat!(base!(), "  - name: prod\n    bootstrap_servers: kafka-2:9092\n"),
            "config.yaml:4:11: clusters[1].name: cluster name \"prod\" is already used by \
             clusters[0]; give each cluster its own name",
        ),
        (
            "clusters:\n  - name: prod\n    bootstrap_servers: \"\"\n",
            "config.yaml:3:24: clusters[0].bootstrap_servers: is empty; list the brokers as \
             host:port, separated by commas",
        ),
        (
            "clusters:\n  - name: prod\n    bootstrap_servers: a:9092,,b:9092\n",
            "config.yaml:3:24: clusters[0].bootstrap_servers: has an empty entry; list the brokers \
             as host:port, separated by single commas",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_bad_sasl() {
    let cases: &[(&str, &str)] = &[
        (
            concat!(
                base!(),
                "    sasl:\n      mechanism: SCRAM-SHA-1\n      username: klens\n",
                "      password: hunter2\n",
            ),
            "config.yaml:5:18: clusters[0].sasl.mechanism: unknown SASL mechanism \"SCRAM-SHA-1\"; \
             expected PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512",
        ),
        (
            concat!(
                base!(),
                "    sasl:\n      mechanism: PLAIN\n      username: \"\"\n",
                "      password: hunter2\n",
            ),
            "config.yaml:6:17: clusters[0].sasl.username: is empty; give a value",
        ),
        (
            concat!(
                base!(),
                "    sasl:\n      mechanism: PLAIN\n      username: klens\n",
                "      password: [hunter2]\n",
            ),
            "config.yaml:7:17: clusters[0].sasl.password: expected a string, found a list",
        ),
        (
            concat!(
                base!(),
                "    sasl:\n      mechanism: PLAIN\n      username: klens\n",
                "      password: {value: hunter2}\n",
            ),
            "config.yaml:7:17: clusters[0].sasl.password: expected a string, found a mapping",
        ),
        (
            concat!(
                base!(),
                "    sasl:\n      mechanism: PLAIN\n      username: klens\n",
                "      password: \"hunter2${\"\n",
            ),
            "config.yaml:7:17: clusters[0].sasl.password: \"${\" has no closing \"}\"; write \
             ${NAME}, or \"$${\" for a literal \"${\"",
        ),
        (
            concat!(
                base!(),
                "    sasl:\n      mechanism: PLAIN\n      username: klens\n",
                "      password: hunter2${not a name}\n",
            ),
            "config.yaml:7:17: clusters[0].sasl.password: \"${...}\" must name an environment \
             variable made of letters, digits and _; write \"$${\" for a literal \"${\"",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_unset_variables_without_echoing_values() {
    let cases: &[(&str, &str)] = &[
        (
            concat!(
                base!(),
                "    sasl:\n      mechanism: PLAIN\n      username: klens\n",
                "      password: ${KLENS_NOPE}\n",
            ),
            "config.yaml:7:17: clusters[0].sasl.password: environment variable KLENS_NOPE is not \
             set; set it, or change the value",
        ),
        (
            "clusters:\n  - name: ${CLUSTER_NAME}\n    bootstrap_servers: kafka:9092\n",
            "config.yaml:2:11: clusters[0].name: environment variable CLUSTER_NAME is not set; set \
             it, or change the value",
        ),
        (
            "clusters:\n  - name: ${KLENS_PROD_PASSWORD}\n    bootstrap_servers: kafka:9092\n",
            "config.yaml:2:11: clusters[0].name: the value from the environment is not a valid \
             cluster name; use lowercase letters, digits, \"-\", \"_\" and \".\" (the name appears \
             in URLs)",
        ),
        (
            concat!(base!(), "    writable: ${KLENS_PROD_PASSWORD}\n"),
            "config.yaml:4:15: clusters[0].writable: expected true or false, found the value from \
             the environment",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_unusable_tls_files() {
    let cases: &[(&str, &str)] = &[
        (
            concat!(
                base!(),
                "    tls:\n      cert: /nonexistent/klens/client.pem\n"
            ),
            "config.yaml:5:13: clusters[0].tls.cert: cert is set without key; a client \
             certificate needs both, so add clusters[0].tls.key or remove cert",
        ),
        (
            concat!(
                base!(),
                "    tls:\n      key: /nonexistent/klens/client.key\n"
            ),
            "config.yaml:5:12: clusters[0].tls.key: key is set without cert; a client certificate \
             needs both, so add clusters[0].tls.cert or remove key",
        ),
        (
            concat!(base!(), "    tls:\n      ca: /nonexistent/klens/ca.pem\n"),
            "config.yaml:5:11: clusters[0].tls.ca: cannot read \"/nonexistent/klens/ca.pem\": No \
             such file or directory (os error 2); check the path and that klens may read the file",
        ),
        (
            concat!(base!(), "    tls:\n      ca: /\n"),
            "config.yaml:5:11: clusters[0].tls.ca: cannot read \"/\": Is a directory (os error \
             21); check the path and that klens may read the file",
        ),
        (
            concat!(base!(), "    tls:\n      ca: /dev/null\n"),
            "config.yaml:5:11: clusters[0].tls.ca: \"/dev/null\" is not a regular file; give the \
             path of a PEM file",
        ),
        (
            concat!(base!(), "    tls:\n      ca: \"\"\n"),
            "config.yaml:5:11: clusters[0].tls.ca: is empty; give the path of a PEM file",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_bad_registry_urls_and_clear_text_passwords() {
    let cases: &[(&str, &str)] = &[
        (
            concat!(
                base!(),
                "    schema_registry:\n      url: http://registry.prod:8081\n",
                "      username: klens\n      password: ${KLENS_REGISTRY_PASSWORD}\n",
            ),
            "config.yaml:5:12: clusters[0].schema_registry.url: plain http:// would send the \
             registry password unencrypted to a host that is not loopback; use https://, or \
             http:// only to localhost, 127.0.0.0/8 or ::1",
        ),
        (
            concat!(
                base!(),
                "    schema_registry:\n      url: http://128.0.0.1:8081\n",
                "      username: klens\n      password: hunter2\n",
            ),
            "config.yaml:5:12: clusters[0].schema_registry.url: plain http:// would send the \
             registry password unencrypted to a host that is not loopback; use https://, or \
             http:// only to localhost, 127.0.0.0/8 or ::1",
        ),
        (
            concat!(
                base!(),
                "    schema_registry:\n      url: registry.prod:8081\n"
            ),
            "config.yaml:5:12: clusters[0].schema_registry.url: invalid Schema Registry URL: \
             expected a URL starting with http:// or https://",
        ),
        (
            concat!(
                base!(),
                "    schema_registry:\n      url: https://klens:hunter2@registry.prod\n"
            ),
            "config.yaml:5:12: clusters[0].schema_registry.url: invalid Schema Registry URL: the \
             URL must not carry credentials; use username and password instead",
        ),
        (
            concat!(
                base!(),
                "    schema_registry:\n      url: https://registry.prod\n      username: klens\n"
            ),
            "config.yaml:6:17: clusters[0].schema_registry.username: username is set without \
             password; set both for basic auth, or neither",
        ),
        (
            concat!(base!(), "    schema_registry:\n      password: hunter2\n"),
            "config.yaml:5:7: clusters[0].schema_registry.url: missing required key \"url\" in \
             clusters[0].schema_registry; give the registry URL, such as https://registry:8081",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn refuses_nested_or_empty_properties() {
    let cases: &[(&str, &str)] = &[
        (
            concat!(
                base!(),
                "    properties:\n      socket.timeout.ms: {a: 1}\n"
            ),
            "config.yaml:5:26: clusters[0].properties[\"socket.timeout.ms\"]: expected a string, \
             number or true/false, found a mapping",
        ),
        (
            concat!(
                base!(),
                "    properties:\n      ssl.key.password: [hunter2]\n"
            ),
            "config.yaml:5:25: clusters[0].properties[\"ssl.key.password\"]: expected a string, \
             number or true/false, found a list",
        ),
        (
            concat!(
                base!(),
                "    properties:\n      ssl.ca.location: /etc/ca.pem\n"
            ),
            "config.yaml:5:7: clusters[0].properties[\"ssl.ca.location\"]: is a connection \
             setting, which klens takes from sasl and tls only (both its Kafka clients must \
             connect alike); use those keys, or remove this one",
        ),
        (
            concat!(base!(), "    properties:\n      security.protocol: SSL\n"),
            "config.yaml:5:7: clusters[0].properties[\"security.protocol\"]: is a connection \
             setting, which klens takes from sasl and tls only (both its Kafka clients must \
             connect alike); use those keys, or remove this one",
        ),
        (
            concat!(
                base!(),
                "    properties:\n      sasl.oauthbearer.config: x\n"
            ),
            "config.yaml:5:7: clusters[0].properties[\"sasl.oauthbearer.config\"]: is a \
             connection setting, which klens takes from sasl and tls only (both its Kafka \
             clients must connect alike); use those keys, or remove this one",
        ),
        (
            concat!(base!(), "    properties:\n      ssl.key.password: s3cret\n"),
            "config.yaml:5:7: clusters[0].properties: ssl.key.password is set but \
             clusters[0].tls.key is not; give the encrypted key as tls.key (with tls.cert), or \
             remove the password",
        ),
        (
            concat!(base!(), "    properties:\n      client.id:\n"),
            "config.yaml:5:7: clusters[0].properties[\"client.id\"]: has no value; give a string, \
             number or true/false",
        ),
    ];
    check_table(cases, Path::new("/"));
}

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
        (
            concat!(base!(), oidc!(), "  roles:\n    admin: [everything]\n"),
            &unknown_privilege,
        ),
        (
            concat!(
                base!(),
                oidc!(),
                "  roles:\n    admin: [records, produce, records]\n"
            ),
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
            concat!(
                base!(),
                oidc!(),
                "  bindings:\n    - groups: [ops]\n      role: admin\n"
            ),
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
            concat!(
                base!(),
                "mcp:\n  listen: 127.0.0.1:8080\n  privileges: []\n"
            ),
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
            concat!(
                base!(),
                "mcp:\n  listen: 127.0.0.1:8090\n  privileges: [Records]\n"
            ),
            "config.yaml:6:16: mcp.privileges[0]: unknown privilege \"Records\"; did you mean \
             \"records\"?",
        ),
    ];
    check_table(cases, Path::new("/"));
}

/// The example of the config reference, byte for byte.
const REFERENCE_EXAMPLE: &str = r#"listen: 127.0.0.1:8080
allowed_hosts: [localhost, 127.0.0.1]   # checked only when auth is off

clusters:
  - name: prod                           # [a-z0-9-_.], unique; it appears in URLs
    bootstrap_servers: kafka-1:9093,kafka-2:9093
    writable: false                      # default false: no change is possible on this cluster
    sasl:                                # optional
      mechanism: SCRAM-SHA-512           # PLAIN | SCRAM-SHA-256 | SCRAM-SHA-512
      username: klens
      password: ${KLENS_PROD_PASSWORD}
    tls:                                 # optional; a client certificate may replace sasl
      ca: /etc/klens/ca.pem
      cert: /etc/klens/client.pem
      key: /etc/klens/client.key
    schema_registry:                     # optional
      url: https://registry.prod:8081
      username: klens
      password: ${KLENS_REGISTRY_PASSWORD}
    properties: {}                       # extra librdkafka client properties, passed through

auth:                                    # omit the block for no sign-in
  oidc:
    issuer: https://idp.example.com/realms/kafka
    client_id: klens
    client_secret: ${KLENS_OIDC_SECRET}
    redirect_uri: https://klens.example.com/auth/callback
    scopes: [openid, profile, email]
    max_age: 8h                          # a session ends at this age or when its ID token expires
  claim: groups                          # the ID-token claim that lists the user's groups
  roles:                                 # a role is a name for a set of privileges
    admin: [records, topic_configs, broker_configs, schema_text, acls, create_topics, produce]
    viewer: []                           # catalog only
  bindings:
    - groups: [kafka-admins]
      role: admin
      clusters: [staging]                # omit to cover every cluster
    - groups: [everyone]
      role: viewer

mcp:                                     # omit the block for no MCP listener
  listen: 127.0.0.1:8090
  privileges: [records, topic_configs, schema_text, create_topics]
  clusters: [staging]                    # optional; omit for every cluster
  secret: ${KLENS_MCP_SECRET}            # optional; when set, every call must carry it
"#;

const STAGING: &str = "  - name: staging\n    bootstrap_servers: kafka-staging:9092\n    \
                       writable: true\n";

/// A scratch directory with the three TLS files of the example, removed on drop.
struct TlsDir(PathBuf);

impl TlsDir {
    fn new(test: &str) -> TlsDir {
        let dir = std::env::temp_dir().join(format!("klens-config-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        for file in ["ca.pem", "client.pem", "client.key"] {
            std::fs::write(dir.join(file), "-----BEGIN TEST-----\n").expect("write a TLS file");
        }
        TlsDir(dir)
    }

    /// The example with its TLS files moved here.
    fn example(&self) -> String {
        REFERENCE_EXAMPLE.replace("/etc/klens/", &format!("{}/", self.0.display()))
    }
}

impl Drop for TlsDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn reference_example_as_written_binds_a_cluster_it_does_not_define() {
    // The reference example names `staging` in a binding and in mcp.clusters but defines only
    // `prod`; the loader must say so rather than start.
    let dir = TlsDir::new("verbatim");
    let result = expect_error(
        &dir.example(),
        &dir.0,
        "config.yaml:37:18: auth.bindings[0].clusters[0]: unknown cluster \"staging\"; \
         configured clusters: prod",
    );
    assert_eq!(result, Ok(()));
}

#[test]
fn reference_example_with_staging_parses_to_its_values() {
    let dir = TlsDir::new("example");
    let source = dir
        .example()
        .replace("\n\nauth:", &format!("\n{STAGING}\nauth:"));
    let config = match parse_in(&source, &dir.0) {
        Ok(config) => config,
        Err(error) => panic!("the example must parse: {error}"),
    };

    assert_eq!(
        config.listen,
        "127.0.0.1:8080".parse::<SocketAddr>().expect("address")
    );
    assert_eq!(config.allowed_hosts, ["localhost", "127.0.0.1"]);

    let [prod, staging] = config.clusters.as_slice() else {
        panic!("expected two clusters, got {:?}", config.clusters);
    };
    assert_eq!(prod.name, "prod");
    assert_eq!(prod.bootstrap_servers, "kafka-1:9093,kafka-2:9093");
    assert!(!prod.writable);
    let sasl = prod.sasl.as_ref().expect("prod has sasl");
    assert_eq!(sasl.mechanism, SaslMechanism::ScramSha512);
    assert_eq!(sasl.mechanism.librdkafka_name(), "SCRAM-SHA-512");
    assert_eq!(sasl.username, "klens");
    assert_eq!(sasl.password.expose(), "Prod-Pass-S3cret!");
    let tls = prod.tls.as_ref().expect("prod has tls");
    assert_eq!(
        (&tls.ca, &tls.cert, &tls.key, tls.key_password.is_some()),
        (
            &Some(dir.0.join("ca.pem")),
            &Some(dir.0.join("client.pem")),
            &Some(dir.0.join("client.key")),
            false
        )
    );
    let registry = prod.schema_registry.as_ref().expect("prod has a registry");
    assert_eq!(registry.url, "https://registry.prod:8081");
    assert_eq!(registry.username.as_deref(), Some("klens"));
    assert_eq!(
        registry.password.as_ref().map(Secret::expose),
        Some("Registry-S3cret!")
    );
    assert!(prod.properties.is_empty());

    assert_eq!(staging.name, "staging");
    assert_eq!(staging.bootstrap_servers, "kafka-staging:9092");
    assert!(staging.writable);
    assert!(staging.sasl.is_none() && staging.tls.is_none() && staging.schema_registry.is_none());

    let auth = config.auth.as_ref().expect("auth is set");
    assert_eq!(auth.oidc.issuer, "https://idp.example.com/realms/kafka");
    assert_eq!(auth.oidc.client_id, "klens");
    assert_eq!(auth.oidc.client_secret.expose(), "Oidc-S3cret!");
    assert_eq!(
        auth.oidc.redirect_uri,
        "https://klens.example.com/auth/callback"
    );
    assert_eq!(auth.oidc.scopes, ["openid", "profile", "email"]);
    assert_eq!(auth.oidc.max_age, Duration::from_secs(8 * 3600));
    assert_eq!(auth.claim, "groups");
    assert_eq!(auth.roles.len(), 2);
    assert_eq!(
        auth.roles.get("admin").map(Vec::as_slice),
        Some(
            &[
                Privilege::Records,
                Privilege::TopicConfigs,
                Privilege::BrokerConfigs,
                Privilege::SchemaText,
                Privilege::Acls,
                Privilege::CreateTopics,
                Privilege::Produce,
            ][..]
        )
    );
    assert_eq!(auth.roles.get("viewer").map(Vec::as_slice), Some(&[][..]));
    assert_eq!(auth.bindings.len(), 2);
    let admins = auth.bindings.first().expect("first binding");
    assert_eq!(admins.groups, ["kafka-admins"]);
    assert_eq!(admins.role, "admin");
    assert_eq!(
        admins.clusters.as_deref(),
        Some(&["staging".to_string()][..])
    );
    let everyone = auth.bindings.get(1).expect("second binding");
    assert_eq!(everyone.groups, ["everyone"]);
    assert_eq!(everyone.role, "viewer");
    assert_eq!(everyone.clusters, None);

    let mcp = config.mcp.as_ref().expect("mcp is set");
    assert_eq!(
        mcp.listen,
        "127.0.0.1:8090".parse::<SocketAddr>().expect("address")
    );
    assert_eq!(
        mcp.privileges,
        [
            Privilege::Records,
            Privilege::TopicConfigs,
            Privilege::SchemaText,
            Privilege::CreateTopics,
        ]
    );
    assert_eq!(mcp.clusters.as_deref(), Some(&["staging".to_string()][..]));
    assert_eq!(mcp.secret.as_ref().map(Secret::expose), Some("Mcp-S3cret!"));

    let debug = format!("{config:?}");
    for secret in SECRETS {
        assert!(!debug.contains(secret), "Debug output leaks {secret:?}");
    }
    assert!(debug.contains("password: ***"), "{debug}");
}

#[test]
fn defaults_fill_what_is_omitted() {
    let config = parse_ok(base!());
    assert_eq!(
        config.listen,
        "127.0.0.1:8080".parse::<SocketAddr>().expect("address")
    );
    assert_eq!(config.allowed_hosts, ["localhost", "127.0.0.1"]);
    assert!(config.auth.is_none());
    assert!(config.mcp.is_none());
    let [cluster] = config.clusters.as_slice() else {
        panic!("expected one cluster");
    };
    assert_eq!(cluster.name, "prod");
    assert_eq!(cluster.bootstrap_servers, "kafka:9092");
    assert!(!cluster.writable);
    assert!(cluster.sasl.is_none() && cluster.tls.is_none() && cluster.schema_registry.is_none());
    assert!(cluster.properties.is_empty());

    let config = parse_ok(concat!(
        base!(),
        oidc!(),
        "mcp:\n  listen: 127.0.0.1:8090\n  privileges: []\n"
    ));
    let auth = config.auth.expect("auth is set");
    assert_eq!(auth.oidc.scopes, ["openid", "profile", "email"]);
    assert_eq!(auth.oidc.max_age, Duration::from_secs(8 * 60 * 60));
    assert_eq!(auth.claim, "groups");
    assert!(auth.roles.is_empty());
    assert!(auth.bindings.is_empty());
    let mcp = config.mcp.expect("mcp is set");
    assert!(mcp.privileges.is_empty());
    assert_eq!(mcp.clusters, None);
    assert!(mcp.secret.is_none());
}

#[test]
fn interpolation_substitutes_each_value() {
    let config = parse_ok(concat!(
        "clusters:\n",
        "  - name: prod\n",
        "    bootstrap_servers: ${KAFKA_HOST}:9092,\"${KAFKA_HOST}\":9093\n",
        "    sasl:\n",
        "      mechanism: PLAIN\n",
        "      username: klens\n",
        "      password: \"pre-${KLENS_PROD_PASSWORD}-post\"\n",
        "    properties:\n",
        "      client.id: klens-$${KAFKA_HOST}\n",
        "      client.rack: ${KLENS_PROD_PASSWORD}\n",
        "      note: costs $5\n",
    ));
    let cluster = config.clusters.first().expect("one cluster");
    assert_eq!(
        cluster.bootstrap_servers,
        "kafka.internal:9092,\"kafka.internal\":9093"
    );
    let sasl = cluster.sasl.as_ref().expect("sasl");
    assert_eq!(sasl.password.expose(), "pre-Prod-Pass-S3cret!-post");
    let property = |key: &str| cluster.properties.get(key).map(String::as_str);
    assert_eq!(property("client.id"), Some("klens-${KAFKA_HOST}"));
    assert_eq!(property("client.rack"), Some("Prod-Pass-S3cret!"));
    assert_eq!(property("note"), Some("costs $5"));

    let debug = format!("{cluster:?}");
    assert!(
        !debug.contains("Prod-Pass-S3cret!"),
        "Debug output leaks: {debug}"
    );
    assert!(debug.contains("\"client.rack\": \"***\""), "{debug}");
}

#[test]
fn property_values_are_stringified() {
    let config = parse_ok(concat!(
        base!(),
        "    properties:\n",
        "      socket.timeout.ms: 30000\n",
        "      enable.idempotence: true\n",
        "      retry.backoff.ms: 1.5e2\n",
        "      client.id: \"007\"\n",
        "      debug: \"\"\n",
    ));
    let cluster = config.clusters.first().expect("one cluster");
    let properties: Vec<(&str, &str)> = cluster
        .properties
        .iter()
        .map(|(key, value)| (key.as_str(), value.as_str()))
        .collect();
    assert_eq!(
        properties,
        [
            ("client.id", "007"),
            ("debug", ""),
            ("enable.idempotence", "true"),
            ("retry.backoff.ms", "1.5e2"),
            ("socket.timeout.ms", "30000"),
        ]
    );
}

#[test]
fn registry_password_may_use_http_only_to_loopback() {
    for url in [
        "http://localhost:8081",
        "http://127.0.0.1:8081",
        "http://127.200.3.4",
        "http://[::1]:8081",
        "https://registry.prod",
    ] {
        let source = format!(
            "{}    schema_registry:\n      url: {url}\n      username: klens\n      password: \
             hunter2\n",
            base!()
        );
        let config = parse_ok(&source);
        let registry = config
            .clusters
            .first()
            .and_then(|cluster| cluster.schema_registry.as_ref())
            .expect("a registry");
        assert_eq!(registry.url, url);
        assert_eq!(
            registry.password.as_ref().map(Secret::expose),
            Some("hunter2")
        );
    }
    // Without a password, plain http:// to any host is fine.
    let config = parse_ok(concat!(
        base!(),
        "    schema_registry:\n      url: http://registry.prod:8081\n"
    ));
    let registry = config
        .clusters
        .first()
        .and_then(|cluster| cluster.schema_registry.as_ref())
        .expect("a registry");
    assert_eq!(registry.username, None);
    assert!(registry.password.is_none());
}

#[test]
fn relative_tls_paths_resolve_against_the_config_directory() {
    let dir = TlsDir::new("relative");
    let source = concat!(
        base!(),
        "    tls:\n      ca: ca.pem\n      cert: ./client.pem\n      key: client.key\n"
    );
    let config = parse_in(source, &dir.0).expect("valid config");
    let tls = config
        .clusters
        .first()
        .and_then(|cluster| cluster.tls.clone())
        .expect("tls");
    assert_eq!(tls.ca, Some(dir.0.join("ca.pem")));
    assert_eq!(tls.cert, Some(dir.0.join("./client.pem")));
    assert_eq!(tls.key, Some(dir.0.join("client.key")));

    // `tls: {}` is TLS with the system trust store.
    let config = parse_ok(concat!(base!(), "    tls: {}\n"));
    let tls = config
        .clusters
        .first()
        .and_then(|cluster| cluster.tls.clone());
    let tls = tls.expect("tls");
    assert!(tls.ca.is_none() && tls.cert.is_none() && tls.key.is_none());

    // An empty TLS file is refused with its resolved path.
    std::fs::write(dir.0.join("empty.pem"), "").expect("write an empty file");
    let expected = format!(
        "config.yaml:5:11: clusters[0].tls.ca: {:?} is empty; give a PEM file",
        dir.0.join("empty.pem").display().to_string()
    );
    let source = concat!(base!(), "    tls:\n      ca: empty.pem\n");
    assert_eq!(expect_error(source, &dir.0, &expected), Ok(()));
}

#[test]
fn max_age_accepts_unit_combinations() {
    for (text, seconds) in [
        ("30s", 30),
        ("15m", 900),
        ("8h", 28_800),
        ("1d", 86_400),
        ("1h30m", 5_400),
    ] {
        let source = format!("{}{}    max_age: {text}\n", base!(), oidc!());
        let config = parse_ok(&source);
        let max_age = config.auth.map(|auth| auth.oidc.max_age);
        assert_eq!(max_age, Some(Duration::from_secs(seconds)), "{text}");
    }
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
    assert_eq!(
        mcp.listen,
        "[::1]:8090".parse::<SocketAddr>().expect("address")
    );
    assert_eq!(mcp.clusters.as_deref(), Some(&["prod".to_string()][..]));
}

#[test]
fn a_byte_order_mark_and_document_markers_are_accepted() {
    for source in [
        concat!("\u{feff}", base!()),
        concat!("%YAML 1.2\n---\n", base!(), "...\n"),
        concat!("# klens\n--- # start\n", base!(), "---\n# nothing more\n"),
    ] {
        let config = parse_ok(source);
        let names: Vec<&str> = config.clusters.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["prod"], "{source:?}");
    }
}

#[test]
fn secrets_never_print() {
    let secret = Secret::new("hunter2".to_string());
    assert_eq!(format!("{secret}"), "***");
    assert_eq!(format!("{secret:?}"), "***");
    assert_eq!(secret.expose(), "hunter2");
}

#[test]
fn load_reads_the_file_and_names_it_in_errors() {
    let dir = TlsDir::new("load");
    let path = dir.0.join("config.yaml");
    std::fs::write(&path, concat!(base!(), "    tls:\n      ca: ca.pem\n")).expect("write");
    let config = load(&path).expect("valid config");
    let ca = config
        .clusters
        .first()
        .and_then(|cluster| cluster.tls.as_ref())
        .and_then(|tls| tls.ca.clone());
    assert_eq!(ca, Some(dir.0.join("ca.pem")));

    std::fs::write(&path, "clusters: []\n").expect("write");
    let message = load(&path).map(|_| ()).map_err(|error| error.to_string());
    assert_eq!(
        message,
        Err(format!(
            "{}:1:11: clusters: is an empty list; list at least one cluster, each with a name and \
             bootstrap_servers",
            path.display()
        ))
    );

    let missing = dir.0.join("missing.yaml");
    let message = load(&missing)
        .map(|_| ())
        .map_err(|error| error.to_string());
    assert_eq!(
        message,
        Err(format!(
            "{}: cannot read the config file: No such file or directory (os error 2)",
            missing.display()
        ))
    );
}

/// Arbitrary text made of YAML's and the config's own pieces: the reader never panics, and
/// every refusal is one line that names the file.
#[test]
fn fuzz_config_text() {
    let pieces = [
        "clusters:",
        "\n",
        "  - ",
        "    ",
        "name: ",
        "a",
        "bootstrap_servers: ",
        "k:1",
        "${X}",
        "$${",
        "{",
        "}",
        "[",
        "]",
        ":",
        "\"",
        "'",
        "&a ",
        "*a",
        "!!str ",
        "# c",
        "auth:",
        "oidc:",
        " ",
        "\t",
        "writable: ",
        "true",
        "properties:",
        "mcp:",
        "- ",
        ",",
        "---",
        "é",
        "\u{0}",
        "roles:",
        "bindings:",
        "tls:",
        "sasl:",
        "mechanism: PLAIN",
        "listen: ",
        "0",
    ];
    let mut inputs = crate::fuzz::Inputs::new(0x5eed_0004, 40);
    for _ in 0..crate::fuzz::cases(20_000) {
        let text = inputs.text(&pieces);
        if let Err(e) = parse(&text, "fuzz.yaml", &|_| Some("v".into()), Path::new("/")) {
            let message = e.to_string();
            assert!(message.starts_with("fuzz.yaml"), "{text:?}: {message}");
            assert!(!message.contains('\n'), "{text:?}: {message}");
        }
    }
}

#[test]
fn log_format_is_text_unless_json_is_asked_for() {
    assert_eq!(parse_ok(base!()).log_format, LogFormat::Text);
    let json = parse_ok(concat!(base!(), "log:\n  format: json\n"));
    assert_eq!(json.log_format, LogFormat::Json);
    let text = parse_ok(concat!(base!(), "log:\n  format: text\n"));
    assert_eq!(text.log_format, LogFormat::Text);
    check_table(
        &[
            (
                concat!(base!(), "log:\n  format: xml\n"),
                "config.yaml:5:11: log.format: unknown log format \"xml\"; expected text or json",
            ),
            (
                concat!(base!(), "log:\n  level: debug\n"),
                "config.yaml:5:3: log.level: unknown key \"level\"; allowed keys in log: format",
            ),
        ],
        Path::new("/"),
    );
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
                 topics, groups or subjects patterns, or remove the key to cover the whole \
                 cluster",
            ),
            (
                &format!(
                    "{}{}{roles}      role: payments\n      resources: {{ topic: [a] }}\n",
                    base!(),
                    oidc!()
                ),
                "config.yaml:16:20: auth.bindings[0].resources.topic: unknown key \"topic\"; \
                 did you mean \"topics\"? allowed keys in auth.bindings[0].resources: topics, \
                 groups, subjects",
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

#[test]
fn reads_the_audit_file_and_refuses_one_klens_cannot_write_to() {
    let dir = std::env::temp_dir();
    let config = parse_in(concat!(base!(), "audit:\n  file: audit.ndjson\n"), &dir)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        config.audit.and_then(|a| a.file),
        Some(dir.join("audit.ndjson")),
        "a relative path is taken from the config's folder"
    );
    assert!(parse_ok(base!()).audit.is_none());
    let both = parse_ok(concat!(
        base!(),
        "audit:\n  file: /tmp/audit.ndjson\n  topic: { cluster: prod, name: _klens_audit }\n  reads: true\n"
    ))
    .audit
    .expect("an audit block");
    assert_eq!(
        both.topic,
        Some(super::AuditTopic {
            cluster: "prod".into(),
            name: "_klens_audit".into()
        })
    );
    assert!(both.reads && both.file.is_some());
    let topic_only = parse_ok(concat!(
        base!(),
        "audit:\n  topic: { cluster: prod, name: _klens_audit }\n"
    ))
    .audit
    .expect("an audit block");
    assert!(
        topic_only.file.is_none() && !topic_only.reads,
        "reads are off unless asked"
    );
    check_table(
        &[
            (
                concat!(base!(), "audit:\n  file: /no/such/folder/audit.ndjson\n"),
                "config.yaml:5:9: audit.file: the folder /no/such/folder does not exist; create \
                 it, or name a file in a folder that does",
            ),
            (
                concat!(base!(), "audit:\n  file: /tmp\n"),
                "config.yaml:5:9: audit.file: /tmp is a folder; name the file inside it",
            ),
            (
                concat!(base!(), "audit: {}\n"),
                "config.yaml:4:8: audit: names no sink; give file (such as \
                 /var/log/klens/audit.ndjson), topic (such as { cluster: ops, name: _klens_audit \
                 }), or both",
            ),
            (
                concat!(base!(), "audit:\n  file: a.ndjson\n  topics: x\n"),
                "config.yaml:6:3: audit.topics: unknown key \"topics\"; did you mean \
                 \"topic\"? allowed keys in audit: file, topic, reads, key",
            ),
            (
                concat!(base!(), "audit:\n  file: a.ndjson\n  key: short\n"),
                "config.yaml:6:8: audit.key: is shorter than 16 bytes; give a long random key \
                 (such as 32 bytes from a password generator), the same on every replica",
            ),
            (
                concat!(
                    base!(),
                    "audit:\n  topic: { cluster: prd, name: _klens_audit }\n"
                ),
                "config.yaml:5:21: audit.topic.cluster: unknown cluster \"prd\"; did you mean \
                 \"prod\"? configured clusters: prod",
            ),
            (
                concat!(
                    base!(),
                    "audit:\n  topic: { cluster: prod, name: \"a b\" }\n"
                ),
                "config.yaml:5:33: audit.topic.name: \"a b\" is not a topic name: A topic name \
                 may hold letters, digits, '.', '_' and '-', not ' '.",
            ),
            (
                concat!(base!(), "audit:\n  topic: { cluster: prod }\n"),
                "config.yaml:5:10: audit.topic.name: missing required key \"name\" in \
                 audit.topic; give the topic's name, such as _klens_audit",
            ),
            (
                concat!(base!(), "audit:\n  file: a.ndjson\n  reads: sometimes\n"),
                "config.yaml:6:10: audit.reads: expected true or false, found \"sometimes\"",
            ),
        ],
        Path::new("/"),
    );
}

#[test]
fn reads_masking_rules_and_refuses_each_mistake_at_its_key() {
    let config = parse_ok(concat!(
        base!(),
        "masking:\n",
        "  - topics: [\"payments-*\", ledger]\n",
        "    fields: [card.number, customer.email]\n",
        "    keys: true\n",
        "    strategy: hash\n",
        "  - topics: [audit-?]\n",
        "    fields: [ssn]\n",
        "    strategy: drop\n",
        "masking_key: a-key-of-32-bytes-for-the-tests!\n",
    ));
    assert_eq!(config.masking.len(), 2);
    let first = &config.masking[0];
    assert_eq!(first.topics, ["payments-*", "ledger"]);
    assert_eq!(
        first.fields,
        [vec!["card", "number"], vec!["customer", "email"]]
    );
    assert!(first.keys);
    assert_eq!(first.strategy, super::MaskStrategy::Hash);
    assert!(!config.masking[1].keys, "keys are not masked unless asked");
    assert_eq!(config.masking[1].strategy, super::MaskStrategy::Drop);
    assert_eq!(
        config.masking_key.as_ref().map(Secret::expose),
        Some("a-key-of-32-bytes-for-the-tests!")
    );
    assert!(!format!("{config:?}").contains("a-key-of-32-bytes"));
    assert!(parse_ok(base!()).masking.is_empty());

    let rule = |body: &str| format!("{}masking:\n  - topics: [\"pay-*\"]\n{body}", base!());
    check_table(
        &[
            (
                &rule("    fields: [card.number]\n    strategy: hash\n"),
                "config.yaml:7:15: masking[0].strategy: hash needs masking_key, the HMAC key (at \
                 least 16 bytes, the same on every replica); set it, such as masking_key: \
                 ${KLENS_MASKING_KEY}",
            ),
            (
                &rule("    fields: [card.number]\n    strategy: mask\n"),
                "config.yaml:7:15: masking[0].strategy: unknown strategy \"mask\"; expected \
                 redact, last4, hash or drop",
            ),
            (
                &rule("    fields: [card..number]\n    strategy: redact\n"),
                "config.yaml:6:14: masking[0].fields[0]: \"card..number\" is not a field path; \
                 name fields from the top of the value, joined by dots, such as card.number",
            ),
            (
                &rule("    fields: [card.number]\n    keys: yes\n    strategy: redact\n"),
                "config.yaml:7:11: masking[0].keys: expected true or false, found \"yes\"",
            ),
            (
                &format!(
                    "{}masking:\n  - topics: []\n    fields: [a]\n    strategy: redact\n",
                    base!()
                ),
                "config.yaml:5:13: masking[0].topics: is an empty list; list at least one topic \
                 pattern such as \"payments-*\"",
            ),
            (
                &format!("{}masking_key: ${{KLENS_MCP_SECRET}}\n", base!()),
                "config.yaml:4:14: masking_key: is shorter than 16 bytes; give a long random key \
                 (such as 32 bytes from a password generator), the same on every replica",
            ),
            (
                &rule("    fields: [a]\n    strategy: redact\n    field: [b]\n"),
                "config.yaml:8:5: masking[0].field: unknown key \"field\"; did you mean \
                 \"fields\"? allowed keys in masking[0]: topics, fields, keys, strategy",
            ),
        ],
        Path::new("/"),
    );
}

#[test]
fn reads_metrics_listen_and_refuses_a_port_in_use_by_another_listener() {
    let config = parse_ok(concat!(base!(), "metrics:\n  listen: 127.0.0.1:9464\n"));
    assert_eq!(
        config.metrics_listen,
        Some("127.0.0.1:9464".parse().expect("address"))
    );
    assert!(parse_ok(base!()).metrics_listen.is_none());
    check_table(
        &[
            (
                concat!(base!(), "metrics:\n  listen: 0.0.0.0:8080\n"),
                "config.yaml:5:11: metrics.listen: collides with listen or mcp.listen on the \
                 same port; give /metrics its own port",
            ),
            (
                concat!(
                    base!(),
                    "mcp:\n  listen: 127.0.0.1:8090\n  privileges: []\n",
                    "metrics:\n  listen: 127.0.0.1:8090\n"
                ),
                "config.yaml:8:11: metrics.listen: collides with listen or mcp.listen on the \
                 same port; give /metrics its own port",
            ),
            (
                concat!(base!(), "metrics: {}\n"),
                "config.yaml:4:10: metrics.listen: missing required key \"listen\" in metrics; \
                 give /metrics its own address, such as 127.0.0.1:9464, or remove the block to \
                 serve it on the UI's port",
            ),
        ],
        Path::new("/"),
    );
}

/// The config is read before any client exists and imports none of the rooms that talk to
/// Kafka or the registry: what it checks of a name comes from `app` (a topic name through
/// `app::names::TopicName`).
#[test]
fn the_config_imports_no_client() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/config");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).expect("src/config") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") || path.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("source");
        for room in [
            "crate::kafka",
            "crate::registry",
            "crate::service",
            "crate::http",
        ] {
            assert!(!text.contains(room), "{} uses {room}", path.display());
        }
        read += 1;
    }
    assert!(read >= 4, "read {read} files of src/config");
}
