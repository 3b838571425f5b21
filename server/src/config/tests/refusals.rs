//! Bad configs, key by key: each refusal names its key and position in one line.

use super::*;

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
             writable, catalog, sasl, tls, schema_registry, connect, mirror, flink, properties",
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
            concat!(base!(), "    tls:\n      cert: /nonexistent/klens/client.pem\n"),
            "config.yaml:5:13: clusters[0].tls.cert: cert is set without key; a client \
             certificate needs both, so add clusters[0].tls.key or remove cert",
        ),
        (
            concat!(base!(), "    tls:\n      key: /nonexistent/klens/client.key\n"),
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
            concat!(base!(), "    schema_registry:\n      url: registry.prod:8081\n"),
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
            concat!(base!(), "    properties:\n      socket.timeout.ms: {a: 1}\n"),
            "config.yaml:5:26: clusters[0].properties[\"socket.timeout.ms\"]: expected a string, \
             number or true/false, found a mapping",
        ),
        (
            concat!(base!(), "    properties:\n      ssl.key.password: [hunter2]\n"),
            "config.yaml:5:25: clusters[0].properties[\"ssl.key.password\"]: expected a string, \
             number or true/false, found a list",
        ),
        (
            concat!(base!(), "    properties:\n      ssl.ca.location: /etc/ca.pem\n"),
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
            concat!(base!(), "    properties:\n      sasl.oauthbearer.config: x\n"),
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
fn mirror_properties_name_bootstrap_servers_and_keep_secrets_out_of_connect() {
    let cases: &[(&str, &str)] = &[
        (
            concat!(base!(), "    mirror:\n      properties:\n        client.id: mm2\n"),
            "config.yaml:6:9: clusters[0].mirror.properties: has no bootstrap.servers; give the \
             brokers MirrorMaker connects to, as host:port",
        ),
        (
            concat!(
                base!(),
                "    mirror:\n      properties:\n        bootstrap.servers: kafka:9093\n",
                "        sasl.jaas.config: org.apache.kafka.common.security.scram.ScramLoginModule \
                 required username=\"mm\" password=\"hunter2\";\n",
            ),
            "config.yaml:7:9: clusters[0].mirror.properties[\"sasl.jaas.config\"]: would be \
             stored in clear in Connect's config topic; give it as a Connect config-provider \
             reference, written $${file:/opt/connect/secrets.properties:KEY} here (the workers \
             need config.providers=file)",
        ),
        (
            concat!(
                base!(),
                "    mirror:\n      properties:\n        bootstrap.servers: kafka:9093\n",
                "        ssl.truststore.password: hunter2\n",
            ),
            "config.yaml:7:9: clusters[0].mirror.properties[\"ssl.truststore.password\"]: would \
             be stored in clear in Connect's config topic; give it as a Connect config-provider \
             reference, written $${file:/opt/connect/secrets.properties:KEY} here (the workers \
             need config.providers=file)",
        ),
        (
            "clusters:\n  - name: eu.prod\n    bootstrap_servers: kafka:9092\n    mirror:\n      \
             properties:\n        bootstrap.servers: kafka:9093\n",
            "config.yaml:5:7: clusters[0].mirror: needs a cluster name without \".\" (\"eu.prod\" \
             has one): MirrorMaker names copies <cluster>.<topic> and reads the cluster back up to \
             the first dot",
        ),
        (
            concat!(base!(), "    mirror:\n      bootstrap.servers: kafka:9093\n"),
            "config.yaml:5:7: clusters[0].mirror[\"bootstrap.servers\"]: unknown key \
             \"bootstrap.servers\"; allowed keys in clusters[0].mirror: properties",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn mirror_properties_take_references_for_their_secrets() {
    let config = parse_ok(concat!(
        base!(),
        "    mirror:\n      properties:\n        bootstrap.servers: kafka:9093\n",
        "        security.protocol: SASL_SSL\n",
        "        sasl.jaas.config: $${file:/opt/connect/secrets.properties:prod.jaas}\n",
    ));
    let mirror = config.clusters[0].mirror.as_ref().expect("mirror");
    assert_eq!(mirror.properties["security.protocol"], "SASL_SSL");
    assert!(mirror.properties["sasl.jaas.config"].starts_with("${file:"));
    assert!(!format!("{:?}", config.clusters[0]).contains("secrets.properties"));
}

#[test]
fn flink_names_its_endpoints_and_keeps_secrets_out_of_job_graphs() {
    let cases: &[(&str, &str)] = &[
        (
            concat!(base!(), "    flink:\n      rest: http://jm:8081\n"),
            "config.yaml:5:7: clusters[0].flink.sql_gateway: missing required key \"sql_gateway\" \
             in clusters[0].flink; give the Flink SQL Gateway URL, such as \
             http://flink-gateway:8083",
        ),
        (
            concat!(
                base!(),
                "    flink:\n      sql_gateway: ftp://gw\n      rest: http://jm:8081\n",
                "      properties:\n        bootstrap.servers: kafka:9093\n",
            ),
            "config.yaml:5:20: clusters[0].flink.sql_gateway: invalid Flink SQL Gateway URL: \
             expected a URL starting with http:// or https://",
        ),
        (
            concat!(
                base!(),
                "    flink:\n      sql_gateway: http://gw:8083\n      rest: http://jm:8081\n",
                "      properties:\n        client.id: processors\n",
            ),
            "config.yaml:8:9: clusters[0].flink.properties: has no bootstrap.servers; give the \
             brokers Flink connects to, as host:port",
        ),
        (
            concat!(
                base!(),
                "    flink:\n      sql_gateway: http://gw:8083\n      rest: http://jm:8081\n",
                "      properties:\n        bootstrap.servers: kafka:9093\n",
                "        ssl.keystore.password: hunter2\n",
            ),
            "config.yaml:9:9: clusters[0].flink.properties[\"ssl.keystore.password\"]: would be \
             kept in clear in every processor's job graph on Flink; authenticate with files on \
             the Flink nodes instead (ssl.keystore.location and ssl.keystore.type=PKCS12 with a \
             keystore without a password, for example)",
        ),
        (
            concat!(
                base!(),
                "    flink:\n      sql_gateway: http://gw:8083\n      rest: http://jm:8081\n",
                "      properties:\n        bootstrap.servers: kafka:9093\n",
                "        sasl.jaas.config: x required password=\"p\";\n",
            ),
            "config.yaml:9:9: clusters[0].flink.properties[\"sasl.jaas.config\"]: would be \
             kept in clear in every processor's job graph on Flink; authenticate with files on \
             the Flink nodes instead (ssl.keystore.location and ssl.keystore.type=PKCS12 with a \
             keystore without a password, for example)",
        ),
    ];
    check_table(cases, Path::new("/"));
}

#[test]
fn flink_takes_its_endpoints_properties_and_savepoints() {
    let config = parse_ok(concat!(
        base!(),
        "    flink:\n      sql_gateway: http://gw:8083/\n      rest: http://jm:8081\n",
        "      properties:\n        bootstrap.servers: kafka:9093\n",
        "        security.protocol: SSL\n",
        "        ssl.keystore.location: /opt/flink/certs/processors.p12\n",
        "      savepoints: s3://flink/savepoints/prod\n",
    ));
    let flink = config.clusters[0].flink.as_ref().expect("flink");
    assert_eq!(flink.sql_gateway, "http://gw:8083");
    assert_eq!(flink.rest, "http://jm:8081");
    assert_eq!(flink.properties["security.protocol"], "SSL");
    assert_eq!(flink.savepoints.as_deref(), Some("s3://flink/savepoints/prod"));
}
