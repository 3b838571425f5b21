//! A cluster's keys: its servers, SASL, TLS files, registry and client properties.

use super::*;

pub(super) fn clusters(
    value: &Value<'_>, base_dir: &Path,
) -> Result<Vec<ClusterConfig>, ConfigError> {
    let mut clusters: Vec<ClusterConfig> = Vec::new();
    for item in value.non_empty_list(NO_CLUSTERS)? {
        let cluster = cluster(&item, base_dir, &clusters)?;
        clusters.push(cluster);
    }
    Ok(clusters)
}

pub(super) fn cluster(
    value: &Value<'_>, base_dir: &Path, earlier: &[ClusterConfig],
) -> Result<ClusterConfig, ConfigError> {
    let map = value.map()?;
    map.only(CLUSTER_KEYS)?;

    let name_value = map.required("name", "give the cluster a name such as prod")?;
    let name = name_value.text()?;
    if !is_cluster_name(&name.value) {
        return Err(name_value.error(format!(
            "{} is not a valid cluster name; use lowercase letters, digits, \"-\", \"_\" and \".\" \
             (the name appears in URLs)",
            name.shown()
        )));
    }
    if let Some(index) = earlier.iter().position(|cluster| cluster.name == name.value) {
        return Err(name_value.error(format!(
            "cluster name {} is already used by clusters[{index}]; give each cluster its own name",
            name.shown()
        )));
    }

    let servers_value =
        map.required("bootstrap_servers", "list the brokers as host:port, separated by commas")?;
    let servers = servers_value.text()?.value.trim().to_string();
    if servers.is_empty() {
        return Err(
            servers_value.error("is empty; list the brokers as host:port, separated by commas")
        );
    }
    if servers.split(',').any(|server| server.trim().is_empty()) {
        return Err(servers_value.error(
            "has an empty entry; list the brokers as host:port, separated by single commas",
        ));
    }

    let writable = match map.get("writable") {
        Some(value) => value.bool()?,
        None => false,
    };
    let scoped_catalog = match map.get("catalog") {
        None => false,
        Some(value) => {
            let text = value.text()?;
            match text.value.as_str() {
                "scoped" => true,
                "all" => false,
                _ => {
                    return Err(value.error(format!(
                        "expected scoped or all, found {}; scoped shows callers whose \
                         bindings are all scoped only the resources those cover",
                        text.shown()
                    )))
                }
            }
        }
    };
    let sasl = map.get("sasl").map(|value| sasl(&value)).transpose()?;
    let tls = map.get("tls").map(|value| tls(&value, base_dir)).transpose()?;
    let schema_registry = map.get("schema_registry").map(|value| registry(&value)).transpose()?;
    let connect = match map.get("connect") {
        Some(value) => connect_clusters(&value)?,
        None => Vec::new(),
    };
    let mirror = map.get("mirror").map(|value| mirror(&value)).transpose()?;
    if let (Some(_), Some(value)) = (&mirror, map.get("mirror")) {
        // MirrorMaker names a copy `<source>.<topic>` and reads the source back off the first
        // dot: a dotted cluster name would be read as another cluster.
        if name.value.contains('.') {
            return Err(value.error(format!(
                "needs a cluster name without \".\" ({} has one): MirrorMaker names copies \
                 <cluster>.<topic> and reads the cluster back up to the first dot",
                name.shown()
            )));
        }
    }
    let flink = map.get("flink").map(|value| flink(&value)).transpose()?;
    let (properties, key_password) = match map.get("properties") {
        Some(value) => properties(&value)?,
        None => (BTreeMap::new(), None),
    };
    let tls = match (tls, key_password) {
        (tls, None) => tls,
        (Some(tls), Some(password)) if tls.key.is_some() => {
            Some(TlsConfig { key_password: Some(password), ..tls })
        }
        (_, Some(_)) => {
            let message = format!(
                "ssl.key.password is set but {}.tls.key is not; give the encrypted key as \
                 tls.key (with tls.cert), or remove the password",
                map.path()
            );
            return Err(match map.get("properties") {
                Some(at) => at.error(message),
                None => value.error(message),
            });
        }
    };

    Ok(ClusterConfig {
        name: name.value,
        bootstrap_servers: servers,
        writable,
        scoped_catalog,
        sasl,
        tls,
        schema_registry,
        connect,
        mirror,
        flink,
        properties,
    })
}

/// `mirror:` of a cluster: the client properties MirrorMaker's connectors use to reach it, with
/// `bootstrap.servers`; a secret among them only as a Connect config-provider reference.
fn mirror(value: &Value<'_>) -> Result<MirrorConfig, ConfigError> {
    let map = value.map()?;
    map.only(MIRROR_KEYS)?;
    let given = map.required(
        "properties",
        "give the client properties MirrorMaker uses to reach this cluster, bootstrap.servers \
         among them",
    )?;
    let entries = given.map()?.entries();
    let mut properties = BTreeMap::new();
    for (key, value) in entries {
        // The message never echoes a value: it may be a secret.
        let text = value.text_described("a string, number or true/false")?;
        if crate::config::secret_values::secret_in_clear(key.name, &text.value) {
            return Err(value.ctx().error(
                key.pos,
                value.path(),
                "would be stored in clear in Connect's config topic; give it as a Connect \
                 config-provider reference, written $${file:/opt/connect/secrets.properties:KEY} \
                 here (the workers need config.providers=file)",
            ));
        }
        properties.insert(key.name.to_string(), text.value);
    }
    if properties.get("bootstrap.servers").is_none_or(|s| s.trim().is_empty()) {
        return Err(given.error(
            "has no bootstrap.servers; give the brokers MirrorMaker connects to, as host:port",
        ));
    }
    Ok(MirrorConfig { properties })
}

/// `flink:` of a cluster: where its SQL processors run (the SQL Gateway and the JobManager's
/// REST API) and the client properties Flink's Kafka connector reaches the cluster with. Flink
/// keeps every table option in its job graph, so no secret may be among them in clear; a
/// client authenticates with files on the Flink nodes (certificates, keystores by path).
fn flink(value: &Value<'_>) -> Result<FlinkConfig, ConfigError> {
    let map = value.map()?;
    map.only(FLINK_KEYS)?;
    let url = |key: &str, what: &str, example: &str| -> Result<String, ConfigError> {
        let value = map.required(key, &format!("give the {what} URL, such as {example}"))?;
        let url = value.text()?.value;
        http_url(&value, &url, &format!("{what} URL"))?;
        Ok(url.trim_end_matches('/').to_string())
    };
    let sql_gateway = url("sql_gateway", "Flink SQL Gateway", "http://flink-gateway:8083")?;
    let rest = url("rest", "Flink REST API", "http://flink-jobmanager:8081")?;
    let given = map.required(
        "properties",
        "give the client properties Flink's Kafka connector reaches this cluster with, \
         bootstrap.servers among them",
    )?;
    let mut properties = BTreeMap::new();
    for (key, value) in given.map()?.entries() {
        // The message never echoes a value: it may be a secret.
        let text = value.text_described("a string, number or true/false")?;
        if crate::config::secret_values::looks_secret(key.name)
            || crate::config::secret_values::has_user_info(&text.value)
        {
            return Err(value.ctx().error(
                key.pos,
                value.path(),
                "would be kept in clear in every processor's job graph on Flink; authenticate \
                 with files on the Flink nodes instead (ssl.keystore.location and \
                 ssl.keystore.type=PKCS12 with a keystore without a password, for example)",
            ));
        }
        properties.insert(key.name.to_string(), text.value);
    }
    if properties.get("bootstrap.servers").is_none_or(|s| s.trim().is_empty()) {
        return Err(given
            .error("has no bootstrap.servers; give the brokers Flink connects to, as host:port"));
    }
    let savepoints = match map.get("savepoints") {
        None => None,
        Some(value) => {
            let text = value.text()?.value;
            if text.trim().is_empty() {
                return Err(value.error(
                    "is empty; give the folder Flink keeps savepoints in, such as \
                     s3://flink/savepoints/prod, or leave the key out for Flink's own default",
                ));
            }
            Some(text.trim().to_string())
        }
    };
    Ok(FlinkConfig { sql_gateway, rest, properties, savepoints })
}

pub(super) fn sasl(value: &Value<'_>) -> Result<SaslConfig, ConfigError> {
    let map = value.map()?;
    map.only(SASL_KEYS)?;
    let names =
        SaslMechanism::ALL.iter().map(|mechanism| mechanism.librdkafka_name()).collect::<Vec<_>>();
    let expected = format!("expected {}", either(&names));

    let mechanism_value = map.required("mechanism", &expected)?;
    let text = mechanism_value.text()?;
    let mechanism = SaslMechanism::from_config_name(&text.value).ok_or_else(|| {
        mechanism_value.error(format!("unknown SASL mechanism {}; {expected}", text.shown()))
    })?;
    let username =
        map.required("username", "give the Kafka user klens connects as")?.non_empty_string()?;
    let password = map
        .required("password", "give the password, for example as ${KLENS_KAFKA_PASSWORD}")?
        .secret()?;
    Ok(SaslConfig { mechanism, username, password })
}

pub(super) fn tls(value: &Value<'_>, base_dir: &Path) -> Result<TlsConfig, ConfigError> {
    let map = value.map()?;
    map.only(TLS_KEYS)?;
    let cert = map.get("cert");
    let key = map.get("key");
    match (&cert, &key) {
        (Some(cert), None) => {
            return Err(cert.error(format!(
                "cert is set without key; a client certificate needs both, so add {}.key or \
                 remove cert",
                map.path()
            )))
        }
        (None, Some(key)) => {
            return Err(key.error(format!(
                "key is set without cert; a client certificate needs both, so add {}.cert or \
                 remove key",
                map.path()
            )))
        }
        _ => {}
    }
    let file = |value: Option<Value<'_>>| value.map(|value| tls_file(&value, base_dir)).transpose();
    Ok(TlsConfig {
        ca: file(map.get("ca"))?,
        cert: file(cert)?,
        key: file(key)?,
        key_password: None,
    })
}

/// A path as written, taken from `base_dir` (the config's folder) when relative; empty is
/// refused, naming `what` should be there.
pub(super) fn path_of(
    value: &Value<'_>, base_dir: &Path, what: &str,
) -> Result<PathBuf, ConfigError> {
    let text = value.text()?;
    if text.value.trim().is_empty() {
        return Err(value.error(format!("is empty; give the path of {what}")));
    }
    let written = PathBuf::from(&text.value);
    Ok(if written.is_relative() { base_dir.join(written) } else { written })
}

/// Resolves a TLS path and checks that klens can read it now, not at the first connection.
/// Only the first byte is read; the contents never leave this function.
pub(super) fn tls_file(value: &Value<'_>, base_dir: &Path) -> Result<PathBuf, ConfigError> {
    let path = path_of(value, base_dir, "a PEM file")?;
    let shown = path.display().to_string();
    // A FIFO or a device would block or never end; only a regular file (or a directory, which
    // the read below refuses with the OS's own words) goes further.
    if let Ok(metadata) = std::fs::metadata(&path) {
        if !metadata.is_file() && !metadata.is_dir() {
            return Err(value
                .error(format!("{shown:?} is not a regular file; give the path of a PEM file")));
        }
    }
    let mut first = [0u8; 1];
    let read = File::open(&path).and_then(|mut file| file.read(&mut first));
    match read {
        Ok(0) => Err(value.error(format!("{shown:?} is empty; give a PEM file"))),
        Ok(_) => Ok(path),
        Err(error) => Err(value.error(format!(
            "cannot read {shown:?}: {error}; check the path and that klens may read the file"
        ))),
    }
}

pub(super) fn registry(value: &Value<'_>) -> Result<RegistryConfig, ConfigError> {
    let map = value.map()?;
    map.only(REGISTRY_KEYS)?;
    rest_service(&map, ("registry", "Schema Registry"), "https://registry:8081")
}

/// `connect:` of a cluster: a list of Connect clusters, each named once.
fn connect_clusters(value: &Value<'_>) -> Result<Vec<ConnectConfig>, ConfigError> {
    let mut clusters: Vec<ConnectConfig> = Vec::new();
    for item in value.non_empty_list("list the Connect clusters, each with a name and url")? {
        let map = item.map()?;
        map.only(CONNECT_KEYS)?;
        let name_value =
            map.required("name", "give the Connect cluster a name such as prod-connect")?;
        let name = name_value.text()?;
        if !is_cluster_name(&name.value) {
            return Err(name_value.error(format!(
                "{} is not a valid Connect cluster name; use lowercase letters, digits, \"-\", \
                 \"_\" and \".\" (the name appears in URLs)",
                name.shown()
            )));
        }
        if clusters.iter().any(|c| c.name == name.value) {
            return Err(name_value.error(format!(
                "Connect cluster name {} is used twice in this cluster; give each its own name",
                name.shown()
            )));
        }
        let rest = rest_service(&map, ("Connect", "Connect"), "http://connect:8083")?;
        let allow = match map.get("allow") {
            Some(value) => connect_allow(&value)?,
            None => ConnectAllow::default(),
        };
        let storage_topics = match map.get("storage_topics") {
            Some(value) => {
                let mut topics = Vec::new();
                for item in value.non_empty_list(
                    "list the workers' config, offsets and status topics \
                     (config.storage.topic, offset.storage.topic, status.storage.topic)",
                )? {
                    let topic = item.text()?;
                    if app::names::TopicName::parse(topic.value.clone(), "storage_topics").is_err()
                    {
                        return Err(
                            item.error(format!("{} is not a Kafka topic name", topic.shown()))
                        );
                    }
                    topics.push(topic.value);
                }
                topics
            }
            None => crate::config::CONNECT_STORAGE_TOPICS.iter().map(|t| t.to_string()).collect(),
        };
        clusters.push(ConnectConfig { name: name.value, rest, allow, storage_topics });
    }
    Ok(clusters)
}

/// `allow:` of a Connect cluster: the classes, client override keys and keys with
/// config-provider references a connector config may hold, each a name or a glob.
fn connect_allow(value: &Value<'_>) -> Result<ConnectAllow, ConfigError> {
    let map = value.map()?;
    map.only(CONNECT_ALLOW_KEYS)?;
    let list = |key: &str| -> Result<Vec<String>, ConfigError> {
        let Some(value) = map.get(key) else {
            return Ok(Vec::new());
        };
        let mut names = Vec::new();
        for item in value.list()? {
            let text = item.text()?;
            if text.value.trim().is_empty() || text.value.chars().any(char::is_whitespace) {
                return Err(item.error(format!(
                    "{} is not a key or class name; give one without spaces, or a glob",
                    text.shown()
                )));
            }
            names.push(text.value);
        }
        Ok(names)
    };
    let classes = list("classes")?;
    if let Some(value) = map.get("classes") {
        for (item, class) in value.list()?.iter().zip(&classes) {
            if let Some(engine) = crate::config::engine_classes::never_loose(class) {
                return Err(item.error(format!(
                    "{class} names {engine}; klens never creates one as a loose connector, so it \
                     cannot be allowed: remove it"
                )));
            }
        }
    }
    Ok(ConnectAllow { classes, overrides: list("overrides")?, references: list("references")? })
}

/// The `url`, `username` and `password` of a REST service klens calls (`what`: its short and
/// full name): basic auth with both or neither, and a password only over https:// or to a
/// loopback host.
fn rest_service(
    map: &Map<'_>, (what, full): (&str, &str), example: &str,
) -> Result<RegistryConfig, ConfigError> {
    let url_value = map.required("url", &format!("give the {what} URL, such as {example}"))?;
    let url = url_value.text()?.value;
    let parsed = http_url(&url_value, &url, &format!("{full} URL"))?;

    let username_value = map.get("username");
    let password_value = map.get("password");
    let username = username_value.as_ref().map(Value::non_empty_string).transpose()?;
    let password = password_value.as_ref().map(Value::secret).transpose()?;
    match (&username_value, &password_value) {
        (Some(username), None) => {
            return Err(username
                .error("username is set without password; set both for basic auth, or neither"))
        }
        (None, Some(password)) => {
            return Err(password
                .error("password is set without username; set both for basic auth, or neither"))
        }
        _ => {}
    }
    if password.is_some() && !parsed.https && !parsed.is_loopback() {
        return Err(url_value.error(format!(
            "plain http:// would send the {what} password unencrypted to a host that is not \
                 loopback; use https://, or http:// only to localhost, 127.0.0.0/8 or ::1"
        )));
    }
    Ok(RegistryConfig { url, username, password })
}

/// Sign-in URLs carry codes and set the session cookie: plain `http://` only to loopback.
pub(super) fn https_unless_loopback(
    value: &Value<'_>, url: &str, what: &str,
) -> Result<HttpUrl, ConfigError> {
    let parsed = http_url(value, url, what)?;
    if !parsed.https && !parsed.is_loopback() {
        return Err(value.error(format!(
            "the {what} uses http:// to a host that is not loopback, which would send sign-in \
             codes and the session cookie unencrypted; use https://, or http:// only to \
             localhost, 127.0.0.0/8 or ::1"
        )));
    }
    Ok(parsed)
}

pub(super) fn http_url(value: &Value<'_>, url: &str, what: &str) -> Result<HttpUrl, ConfigError> {
    parse_http_url(url).map_err(|reason| value.error(format!("invalid {what}: {reason}")))
}

/// The one connection property klens takes from `properties`: both clients honour it.
pub(super) const KEY_PASSWORD: &str = "ssl.key.password";

/// Whether a librdkafka property is a connection setting, which klens sets itself from `sasl`
/// and `tls` so that librdkafka and its own protocol client reach the brokers alike.
pub(super) fn is_connection_property(name: &str) -> bool {
    name == "security.protocol" || name.starts_with("sasl.") || name.starts_with("ssl.")
}

/// The extra properties, and the key password when `ssl.key.password` is among them.
pub(super) fn properties(
    value: &Value<'_>,
) -> Result<(BTreeMap<String, String>, Option<Secret>), ConfigError> {
    let map = value.map()?;
    let mut properties = BTreeMap::new();
    let mut key_password = None;
    for (key, value) in map.entries() {
        if key.name.trim().is_empty() {
            return Err(value.ctx().error(
                key.pos,
                value.path(),
                "a property name cannot be empty",
            ));
        }
        // Values may be secrets (ssl.key.password): the type error never echoes them.
        let text = value.text_described("a string, number or true/false")?;
        if key.name == KEY_PASSWORD {
            key_password = Some(Secret::new(text.value));
        } else if is_connection_property(key.name) {
            return Err(value.ctx().error(
                key.pos,
                value.path(),
                "is a connection setting, which klens takes from sasl and tls only (both its \
                 Kafka clients must connect alike); use those keys, or remove this one",
            ));
        } else {
            properties.insert(key.name.to_string(), text.value);
        }
    }
    Ok((properties, key_password))
}
