//! Good configs checked value by value: the reference example, defaults, interpolation,
//! files and durations.

use super::*;

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
    let source = dir.example().replace("\n\nauth:", &format!("\n{STAGING}\nauth:"));
    let config = match parse_in(&source, &dir.0) {
        Ok(config) => config,
        Err(error) => panic!("the example must parse: {error}"),
    };

    assert_eq!(config.listen, "127.0.0.1:8080".parse::<SocketAddr>().expect("address"));
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
    assert_eq!(registry.password.as_ref().map(Secret::expose), Some("Registry-S3cret!"));
    assert!(prod.properties.is_empty());

    assert_eq!(staging.name, "staging");
    assert_eq!(staging.bootstrap_servers, "kafka-staging:9092");
    assert!(staging.writable);
    assert!(staging.sasl.is_none() && staging.tls.is_none() && staging.schema_registry.is_none());

    let auth = config.auth.as_ref().expect("auth is set");
    assert_eq!(auth.oidc.issuer, "https://idp.example.com/realms/kafka");
    assert_eq!(auth.oidc.client_id, "klens");
    assert_eq!(auth.oidc.client_secret.expose(), "Oidc-S3cret!");
    assert_eq!(auth.oidc.redirect_uri, "https://klens.example.com/auth/callback");
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
    assert_eq!(admins.clusters.as_deref(), Some(&["staging".to_string()][..]));
    let everyone = auth.bindings.get(1).expect("second binding");
    assert_eq!(everyone.groups, ["everyone"]);
    assert_eq!(everyone.role, "viewer");
    assert_eq!(everyone.clusters, None);

    let mcp = config.mcp.as_ref().expect("mcp is set");
    assert_eq!(mcp.listen, "127.0.0.1:8090".parse::<SocketAddr>().expect("address"));
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
    assert_eq!(config.listen, "127.0.0.1:8080".parse::<SocketAddr>().expect("address"));
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

    let config =
        parse_ok(concat!(base!(), oidc!(), "mcp:\n  listen: 127.0.0.1:8090\n  privileges: []\n"));
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
    assert_eq!(cluster.bootstrap_servers, "kafka.internal:9092,\"kafka.internal\":9093");
    let sasl = cluster.sasl.as_ref().expect("sasl");
    assert_eq!(sasl.password.expose(), "pre-Prod-Pass-S3cret!-post");
    let property = |key: &str| cluster.properties.get(key).map(String::as_str);
    assert_eq!(property("client.id"), Some("klens-${KAFKA_HOST}"));
    assert_eq!(property("client.rack"), Some("Prod-Pass-S3cret!"));
    assert_eq!(property("note"), Some("costs $5"));

    let debug = format!("{cluster:?}");
    assert!(!debug.contains("Prod-Pass-S3cret!"), "Debug output leaks: {debug}");
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
    let properties: Vec<(&str, &str)> =
        cluster.properties.iter().map(|(key, value)| (key.as_str(), value.as_str())).collect();
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
        assert_eq!(registry.password.as_ref().map(Secret::expose), Some("hunter2"));
    }
    // Without a password, plain http:// to any host is fine.
    let config =
        parse_ok(concat!(base!(), "    schema_registry:\n      url: http://registry.prod:8081\n"));
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
    let tls = config.clusters.first().and_then(|cluster| cluster.tls.clone()).expect("tls");
    assert_eq!(tls.ca, Some(dir.0.join("ca.pem")));
    assert_eq!(tls.cert, Some(dir.0.join("./client.pem")));
    assert_eq!(tls.key, Some(dir.0.join("client.key")));

    // `tls: {}` is TLS with the system trust store.
    let config = parse_ok(concat!(base!(), "    tls: {}\n"));
    let tls = config.clusters.first().and_then(|cluster| cluster.tls.clone());
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
    for (text, seconds) in
        [("30s", 30), ("15m", 900), ("8h", 28_800), ("1d", 86_400), ("1h30m", 5_400)]
    {
        let source = format!("{}{}    max_age: {text}\n", base!(), oidc!());
        let config = parse_ok(&source);
        let max_age = config.auth.map(|auth| auth.oidc.max_age);
        assert_eq!(max_age, Some(Duration::from_secs(seconds)), "{text}");
    }
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
    let message = load(&missing).map(|_| ()).map_err(|error| error.to_string());
    assert_eq!(
        message,
        Err(format!(
            "{}: cannot read the config file: No such file or directory (os error 2)",
            missing.display()
        ))
    );
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
