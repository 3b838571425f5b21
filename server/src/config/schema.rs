//! The shape of config.yaml, key by key, and the rules that tie keys together: unique cluster
//! names, bindings to defined roles and known clusters, the MCP ceiling, and where a registry
//! password may travel.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use app::{Privilege, MCP_WRITE_PRIVILEGES};

use super::checks::{is_cluster_name, nearest, parse_duration, parse_http_url, HttpUrl};
use super::reader::{Document, Value};
use super::{
    AuditConfig, AuditTopic, AuthConfig, Binding, ClusterConfig, Config, ConfigError, LogFormat,
    MaskStrategy, MaskingRule, McpConfig, OidcConfig, RegistryConfig, ResourcePatterns, SaslConfig,
    SaslMechanism, Secret, TlsConfig,
};

const TOP_KEYS: &[&str] = &[
    "listen",
    "allowed_hosts",
    "clusters",
    "auth",
    "mcp",
    "log",
    "audit",
    "masking",
    "masking_key",
    "metrics",
];
const METRICS_KEYS: &[&str] = &["listen"];
const MASKING_KEYS: &[&str] = &["topics", "fields", "keys", "strategy"];
const AUDIT_KEYS: &[&str] = &["file", "topic", "reads", "key"];
const AUDIT_TOPIC_KEYS: &[&str] = &["cluster", "name"];
const LOG_KEYS: &[&str] = &["format"];
const CLUSTER_KEYS: &[&str] = &[
    "name",
    "bootstrap_servers",
    "writable",
    "catalog",
    "sasl",
    "tls",
    "schema_registry",
    "properties",
];
const SASL_KEYS: &[&str] = &["mechanism", "username", "password"];
const TLS_KEYS: &[&str] = &["ca", "cert", "key"];
const REGISTRY_KEYS: &[&str] = &["url", "username", "password"];
const AUTH_KEYS: &[&str] = &["oidc", "claim", "roles", "bindings"];
const OIDC_KEYS: &[&str] = &[
    "issuer",
    "client_id",
    "client_secret",
    "redirect_uri",
    "scopes",
    "max_age",
];
const BINDING_KEYS: &[&str] = &["groups", "role", "clusters", "resources"];
const MCP_KEYS: &[&str] = &["listen", "privileges", "clusters", "secret", "resources"];
const RESOURCE_KEYS: &[&str] = &["topics", "groups", "subjects"];

const NO_CLUSTERS: &str = "list at least one cluster, each with a name and bootstrap_servers";
const CLUSTER_SUBSET: &str = "list at least one cluster, or remove the key to cover every cluster";

pub(super) fn build(document: &Document<'_>, base_dir: &Path) -> Result<Config, ConfigError> {
    let root = document.root()?;
    root.only(TOP_KEYS)?;
    let listen = match root.get("listen") {
        Some(value) => socket_addr(&value)?,
        None => Config::DEFAULT_LISTEN,
    };
    let allowed_hosts = match root.get("allowed_hosts") {
        Some(value) => allowed_hosts(&value)?,
        None => Config::DEFAULT_ALLOWED_HOSTS
            .iter()
            .map(|host| host.to_string())
            .collect(),
    };
    let clusters = clusters(&root.required("clusters", NO_CLUSTERS)?, base_dir)?;
    let names: Vec<&str> = clusters
        .iter()
        .map(|cluster| cluster.name.as_str())
        .collect();
    let auth = root
        .get("auth")
        .map(|value| auth(&value, &names))
        .transpose()?;
    let mcp = root
        .get("mcp")
        .map(|value| mcp(&value, listen, &names))
        .transpose()?;
    let log_format = root
        .get("log")
        .map(|value| log_format(&value))
        .transpose()?
        .unwrap_or_default();
    let audit = root
        .get("audit")
        .map(|value| audit(&value, base_dir, &names))
        .transpose()?;
    let masking_key = root
        .get("masking_key")
        .map(|value| masking_key(&value))
        .transpose()?;
    let masking = match root.get("masking") {
        Some(value) => masking(&value, masking_key.is_some())?,
        None => Vec::new(),
    };
    let metrics_listen = root
        .get("metrics")
        .map(|value| metrics_listen(&value, listen, mcp.as_ref().map(|m| m.listen)))
        .transpose()?;
    Ok(Config {
        listen,
        allowed_hosts,
        clusters,
        auth,
        mcp,
        log_format,
        audit,
        masking,
        masking_key,
        metrics_listen,
    })
}

/// `metrics: { listen }`: an address of its own, apart from the UI's and the MCP listener's.
fn metrics_listen(
    value: &Value<'_>,
    ui: SocketAddr,
    mcp: Option<SocketAddr>,
) -> Result<SocketAddr, ConfigError> {
    let map = value.map()?;
    map.only(METRICS_KEYS)?;
    let listen_value = map.required(
        "listen",
        "give /metrics its own address, such as 127.0.0.1:9464, or remove the block to serve \
         it on the UI's port",
    )?;
    let listen = socket_addr(&listen_value)?;
    let collides = |other: SocketAddr| {
        listen.port() == other.port()
            && (listen.ip() == other.ip()
                || listen.ip().is_unspecified()
                || other.ip().is_unspecified())
    };
    if collides(ui) || mcp.is_some_and(collides) {
        return Err(listen_value.error(
            "collides with listen or mcp.listen on the same port; give /metrics its own port",
        ));
    }
    Ok(listen)
}

/// The shortest `masking_key`: shorter keys make hashes that can be tried by brute force.
const MIN_MASKING_KEY: usize = 16;

/// `masking_key:` the HMAC key of the `hash` strategy, never echoed; `audit.key` is read the
/// same way.
fn masking_key(value: &Value<'_>) -> Result<Secret, ConfigError> {
    let key = value.secret()?;
    if key.expose().len() < MIN_MASKING_KEY {
        return Err(value.error(format!(
            "is shorter than {MIN_MASKING_KEY} bytes; give a long random key (such as 32 bytes \
             from a password generator), the same on every replica"
        )));
    }
    Ok(key)
}

/// `masking:` the rules that hide fields of records from callers without UNMASK.
fn masking(value: &Value<'_>, has_key: bool) -> Result<Vec<MaskingRule>, ConfigError> {
    let mut rules = Vec::new();
    for item in value.list()? {
        let map = item.map()?;
        map.only(MASKING_KEYS)?;
        let topics = glob_list(
            &map.required(
                "topics",
                "list the topics whose records this rule masks, such as [\"payments-*\"]",
            )?,
            "list at least one topic pattern such as \"payments-*\"",
        )?;
        let fields_value = map.required(
            "fields",
            "list the field paths to mask, such as [card.number, customer.email]",
        )?;
        let mut fields = Vec::new();
        for field in
            fields_value.non_empty_list("list at least one field path, such as card.number")?
        {
            let text = field.text()?;
            let path: Vec<String> = text.value.split('.').map(str::to_string).collect();
            if path.iter().any(|segment| segment.trim().is_empty()) {
                return Err(field.error(format!(
                    "{} is not a field path; name fields from the top of the value, joined \
                     by dots, such as card.number",
                    text.shown()
                )));
            }
            fields.push(path);
        }
        let keys = match map.get("keys") {
            Some(value) => value.bool()?,
            None => false,
        };
        let strategy_value = map.required(
            "strategy",
            "choose how the fields are masked: redact, last4, hash or drop",
        )?;
        let text = strategy_value.text()?;
        let strategy = match text.value.as_str() {
            "redact" => MaskStrategy::Redact,
            "last4" => MaskStrategy::Last4,
            "hash" => MaskStrategy::Hash,
            "drop" => MaskStrategy::Drop,
            _ => {
                return Err(strategy_value.error(format!(
                    "unknown strategy {}; expected redact, last4, hash or drop",
                    text.shown()
                )))
            }
        };
        if strategy == MaskStrategy::Hash && !has_key {
            return Err(strategy_value.error(
                "hash needs masking_key, the HMAC key (at least 16 bytes, the same on every \
                 replica); set it, such as masking_key: ${KLENS_MASKING_KEY}",
            ));
        }
        rules.push(MaskingRule {
            topics,
            fields,
            keys,
            strategy,
        });
    }
    Ok(rules)
}

/// A non-empty list of glob patterns, none empty and none with a control character.
fn glob_list(value: &Value<'_>, hint: &str) -> Result<Vec<String>, ConfigError> {
    let mut patterns = Vec::new();
    for item in value.non_empty_list(hint)? {
        let text = item.text()?;
        if text.value.trim().is_empty() {
            return Err(item.error(
                "is an empty pattern, which matches nothing; write a glob such as \
                 \"payments-*\" (* any run of characters, ? one character)",
            ));
        }
        if text.value.chars().any(char::is_control) {
            return Err(item.error(format!(
                "{} holds a control character, which no resource name has",
                text.shown()
            )));
        }
        patterns.push(text.value);
    }
    Ok(patterns)
}

/// `audit:`: the file events are appended to (whose folder must exist now), the topic they
/// are sent to, or both; and whether reads are recorded.
fn audit(
    value: &Value<'_>,
    base_dir: &Path,
    clusters: &[&str],
) -> Result<AuditConfig, ConfigError> {
    let map = value.map()?;
    map.only(AUDIT_KEYS)?;
    let file = map
        .get("file")
        .map(|value| audit_file(&value, base_dir))
        .transpose()?;
    let topic = map
        .get("topic")
        .map(|value| audit_topic(&value, clusters))
        .transpose()?;
    if file.is_none() && topic.is_none() {
        return Err(value.error(
            "names no sink; give file (such as /var/log/klens/audit.ndjson), topic (such as \
             { cluster: ops, name: _klens_audit }), or both",
        ));
    }
    let reads = match map.get("reads") {
        Some(value) => value.bool()?,
        None => false,
    };
    let key = map
        .get("key")
        .map(|value| masking_key(&value))
        .transpose()?;
    Ok(AuditConfig {
        file,
        topic,
        reads,
        key,
    })
}

/// `audit.topic`: a configured cluster and a topic name Kafka accepts.
fn audit_topic(value: &Value<'_>, clusters: &[&str]) -> Result<AuditTopic, ConfigError> {
    let map = value.map()?;
    map.only(AUDIT_TOPIC_KEYS)?;
    let cluster_value = map.required(
        "cluster",
        "name the configured cluster that holds the topic",
    )?;
    let cluster = known_cluster(&cluster_value, clusters)?;
    let name_value = map.required("name", "give the topic's name, such as _klens_audit")?;
    let text = name_value.text()?;
    if let Err(e) = app::names::TopicName::check(&text.value, "name") {
        return Err(name_value.error(format!(
            "{} is not a topic name: {}",
            text.shown(),
            e.message
        )));
    }
    Ok(AuditTopic {
        cluster,
        name: text.value,
    })
}

fn audit_file(file_value: &Value<'_>, base_dir: &Path) -> Result<PathBuf, ConfigError> {
    let path = path_of(file_value, base_dir, "the audit file")?;
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(folder) = folder {
        if !folder.is_dir() {
            return Err(file_value.error(format!(
                "the folder {} does not exist; create it, or name a file in a folder that does",
                folder.display()
            )));
        }
    }
    if path.is_dir() {
        return Err(file_value.error(format!(
            "{} is a folder; name the file inside it",
            path.display()
        )));
    }
    Ok(path)
}

/// The `log` block: `format: text` (the default) or `json`.
fn log_format(value: &Value<'_>) -> Result<LogFormat, ConfigError> {
    let map = value.map()?;
    map.only(LOG_KEYS)?;
    let Some(format) = map.get("format") else {
        return Ok(LogFormat::Text);
    };
    let text = format.text()?;
    match text.value.as_str() {
        "text" => Ok(LogFormat::Text),
        "json" => Ok(LogFormat::Json),
        _ => Err(format.error(format!(
            "unknown log format {}; expected text or json",
            text.shown()
        ))),
    }
}

fn socket_addr(value: &Value<'_>) -> Result<SocketAddr, ConfigError> {
    let text = value.text_described("an IP address and port such as 127.0.0.1:8080")?;
    let address: SocketAddr = text.value.trim().parse().map_err(|_| {
        value.error(format!(
            "{} is not an IP address and port; write it like 127.0.0.1:8080 or [::]:8080 \
             (host names are not resolved)",
            text.shown()
        ))
    })?;
    if address.port() == 0 {
        return Err(value.error("port 0 is not allowed; give a fixed port such as 8080"));
    }
    Ok(address)
}

fn allowed_hosts(value: &Value<'_>) -> Result<Vec<String>, ConfigError> {
    let items = value.non_empty_list("list at least one host name, such as localhost")?;
    let mut hosts = Vec::with_capacity(items.len());
    for item in &items {
        let text = item.text()?;
        let host = text.value.trim();
        if host.is_empty() {
            return Err(item.error("is empty; give a host name such as localhost"));
        }
        if host.contains(['/', ' ', '@']) {
            return Err(item.error(format!(
                "{} is not a host name; give the host alone, such as klens.example.com, \
                 without scheme or path",
                text.shown()
            )));
        }
        hosts.push(host.to_string());
    }
    Ok(hosts)
}

fn clusters(value: &Value<'_>, base_dir: &Path) -> Result<Vec<ClusterConfig>, ConfigError> {
    let mut clusters: Vec<ClusterConfig> = Vec::new();
    for item in value.non_empty_list(NO_CLUSTERS)? {
        let cluster = cluster(&item, base_dir, &clusters)?;
        clusters.push(cluster);
    }
    Ok(clusters)
}

fn cluster(
    value: &Value<'_>,
    base_dir: &Path,
    earlier: &[ClusterConfig],
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
    if let Some(index) = earlier
        .iter()
        .position(|cluster| cluster.name == name.value)
    {
        return Err(name_value.error(format!(
            "cluster name {} is already used by clusters[{index}]; give each cluster its own name",
            name.shown()
        )));
    }

    let servers_value = map.required(
        "bootstrap_servers",
        "list the brokers as host:port, separated by commas",
    )?;
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
    let tls = map
        .get("tls")
        .map(|value| tls(&value, base_dir))
        .transpose()?;
    let schema_registry = map
        .get("schema_registry")
        .map(|value| registry(&value))
        .transpose()?;
    let (properties, key_password) = match map.get("properties") {
        Some(value) => properties(&value)?,
        None => (BTreeMap::new(), None),
    };
    let tls = match (tls, key_password) {
        (tls, None) => tls,
        (Some(tls), Some(password)) if tls.key.is_some() => Some(TlsConfig {
            key_password: Some(password),
            ..tls
        }),
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
        properties,
    })
}

fn sasl(value: &Value<'_>) -> Result<SaslConfig, ConfigError> {
    let map = value.map()?;
    map.only(SASL_KEYS)?;
    let names = SaslMechanism::ALL
        .iter()
        .map(|mechanism| mechanism.librdkafka_name())
        .collect::<Vec<_>>();
    let expected = format!("expected {}", either(&names));

    let mechanism_value = map.required("mechanism", &expected)?;
    let text = mechanism_value.text()?;
    let mechanism = SaslMechanism::from_config_name(&text.value).ok_or_else(|| {
        mechanism_value.error(format!(
            "unknown SASL mechanism {}; {expected}",
            text.shown()
        ))
    })?;
    let username = map
        .required("username", "give the Kafka user klens connects as")?
        .non_empty_string()?;
    let password = map
        .required(
            "password",
            "give the password, for example as ${KLENS_KAFKA_PASSWORD}",
        )?
        .secret()?;
    Ok(SaslConfig {
        mechanism,
        username,
        password,
    })
}

fn tls(value: &Value<'_>, base_dir: &Path) -> Result<TlsConfig, ConfigError> {
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
fn path_of(value: &Value<'_>, base_dir: &Path, what: &str) -> Result<PathBuf, ConfigError> {
    let text = value.text()?;
    if text.value.trim().is_empty() {
        return Err(value.error(format!("is empty; give the path of {what}")));
    }
    let written = PathBuf::from(&text.value);
    Ok(if written.is_relative() {
        base_dir.join(written)
    } else {
        written
    })
}

/// Resolves a TLS path and checks that klens can read it now, not at the first connection.
/// Only the first byte is read; the contents never leave this function.
fn tls_file(value: &Value<'_>, base_dir: &Path) -> Result<PathBuf, ConfigError> {
    let path = path_of(value, base_dir, "a PEM file")?;
    let shown = path.display().to_string();
    // A FIFO or a device would block or never end; only a regular file (or a directory, which
    // the read below refuses with the OS's own words) goes further.
    if let Ok(metadata) = std::fs::metadata(&path) {
        if !metadata.is_file() && !metadata.is_dir() {
            return Err(value.error(format!(
                "{shown:?} is not a regular file; give the path of a PEM file"
            )));
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

fn registry(value: &Value<'_>) -> Result<RegistryConfig, ConfigError> {
    let map = value.map()?;
    map.only(REGISTRY_KEYS)?;
    let url_value = map.required(
        "url",
        "give the registry URL, such as https://registry:8081",
    )?;
    let url = url_value.text()?.value;
    let parsed = http_url(&url_value, &url, "Schema Registry URL")?;

    let username_value = map.get("username");
    let password_value = map.get("password");
    let username = username_value
        .as_ref()
        .map(Value::non_empty_string)
        .transpose()?;
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
        return Err(url_value.error(
            "plain http:// would send the registry password unencrypted to a host that is not \
             loopback; use https://, or http:// only to localhost, 127.0.0.0/8 or ::1",
        ));
    }
    Ok(RegistryConfig {
        url,
        username,
        password,
    })
}

/// Sign-in URLs carry codes and set the session cookie: plain `http://` only to loopback.
fn https_unless_loopback(value: &Value<'_>, url: &str, what: &str) -> Result<HttpUrl, ConfigError> {
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

fn http_url(value: &Value<'_>, url: &str, what: &str) -> Result<HttpUrl, ConfigError> {
    parse_http_url(url).map_err(|reason| value.error(format!("invalid {what}: {reason}")))
}

/// The one connection property klens takes from `properties`: both clients honour it.
const KEY_PASSWORD: &str = "ssl.key.password";

/// Whether a librdkafka property is a connection setting, which klens sets itself from `sasl`
/// and `tls` so that librdkafka and its own protocol client reach the brokers alike.
fn is_connection_property(name: &str) -> bool {
    name == "security.protocol" || name.starts_with("sasl.") || name.starts_with("ssl.")
}

/// The extra properties, and the key password when `ssl.key.password` is among them.
fn properties(
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

fn auth(value: &Value<'_>, clusters: &[&str]) -> Result<AuthConfig, ConfigError> {
    let map = value.map()?;
    map.only(AUTH_KEYS)?;
    let oidc = oidc(&map.required(
        "oidc",
        "give issuer, client_id, client_secret and redirect_uri, or remove auth for no sign-in",
    )?)?;
    let claim = match map.get("claim") {
        Some(value) => value.non_empty_string()?,
        None => "groups".to_string(),
    };
    let roles = match map.get("roles") {
        Some(value) => roles(&value)?,
        None => BTreeMap::new(),
    };
    let bindings = match map.get("bindings") {
        Some(value) => bindings(&value, &roles, clusters)?,
        None => Vec::new(),
    };
    Ok(AuthConfig {
        oidc,
        claim,
        roles,
        bindings,
    })
}

fn oidc(value: &Value<'_>) -> Result<OidcConfig, ConfigError> {
    let map = value.map()?;
    map.only(OIDC_KEYS)?;
    let issuer_value = map.required("issuer", "give the provider's issuer URL")?;
    let issuer = issuer_value.text()?.value;
    https_unless_loopback(&issuer_value, &issuer, "issuer URL")?;
    let client_id = map
        .required(
            "client_id",
            "give the client ID registered with the provider",
        )?
        .non_empty_string()?;
    let client_secret = map
        .required(
            "client_secret",
            "give it, for example as ${KLENS_OIDC_SECRET}",
        )?
        .secret()?;
    let redirect_value = map.required(
        "redirect_uri",
        "give klens's callback URL, such as https://klens.example.com/auth/callback",
    )?;
    let redirect_uri = redirect_value.text()?.value;
    let redirect = https_unless_loopback(&redirect_value, &redirect_uri, "redirect URI")?;

    let scopes = match map.get("scopes") {
        Some(value) => {
            let scopes = value.string_list()?;
            if !scopes.iter().any(|scope| scope == "openid") {
                return Err(value.error(
                    "must include openid, which OpenID Connect requires; such as \
                     [openid, profile, email]",
                ));
            }
            scopes
        }
        None => OidcConfig::DEFAULT_SCOPES
            .iter()
            .map(|scope| scope.to_string())
            .collect(),
    };
    let max_age = match map.get("max_age") {
        Some(value) => {
            let text = value.text_described("a duration such as 8h")?;
            parse_duration(text.value.trim()).ok_or_else(|| {
                value.error(format!(
                    "{} is not a valid duration; write it like 30s, 15m, 8h, 1d or 1h30m \
                     (more than zero)",
                    text.shown()
                ))
            })?
        }
        None => OidcConfig::DEFAULT_MAX_AGE,
    };
    Ok(OidcConfig {
        issuer,
        client_id,
        client_secret,
        redirect_uri,
        redirect_is_https: redirect.https,
        scopes,
        max_age,
    })
}

fn roles(value: &Value<'_>) -> Result<BTreeMap<String, Vec<Privilege>>, ConfigError> {
    let map = value.map()?;
    let mut roles = BTreeMap::new();
    for (key, value) in map.entries() {
        if key.name.trim().is_empty() {
            return Err(value
                .ctx()
                .error(key.pos, value.path(), "a role name cannot be empty"));
        }
        roles.insert(key.name.to_string(), privileges(&value, false)?);
    }
    Ok(roles)
}

/// A list of privileges; for MCP, only reads and the MCP write privileges.
fn privileges(value: &Value<'_>, for_mcp: bool) -> Result<Vec<Privilege>, ConfigError> {
    let mut privileges = Vec::new();
    for item in value.list()? {
        let text = item.text_described("a privilege name such as records")?;
        let Some(privilege) = Privilege::from_config_name(&text.value) else {
            let names = Privilege::ALL
                .iter()
                .map(|privilege| privilege.config_name());
            let hint = match nearest(&text.value, names.clone()) {
                Some(near) => format!("did you mean {near:?}?"),
                None => format!("privileges are {}", names.collect::<Vec<_>>().join(", ")),
            };
            return Err(item.error(format!("unknown privilege {}; {hint}", text.shown())));
        };
        if privileges.contains(&privilege) {
            return Err(item.error(format!(
                "privilege {:?} is listed twice; list it once",
                privilege.config_name()
            )));
        }
        if for_mcp && !privilege.allowed_in_mcp() {
            let allowed = MCP_WRITE_PRIVILEGES
                .iter()
                .map(|privilege| privilege.config_name())
                .collect::<Vec<_>>();
            return Err(item.error(format!(
                "{:?} is a write privilege MCP does not accept; the only write privileges MCP \
                 accepts are {}",
                privilege.config_name(),
                both(&allowed)
            )));
        }
        privileges.push(privilege);
    }
    Ok(privileges)
}

fn bindings(
    value: &Value<'_>,
    roles: &BTreeMap<String, Vec<Privilege>>,
    clusters: &[&str],
) -> Result<Vec<Binding>, ConfigError> {
    let mut bindings = Vec::new();
    for item in value.list()? {
        let map = item.map()?;
        map.only(BINDING_KEYS)?;
        let groups_value = map.required("groups", "list the groups this binding applies to")?;
        groups_value.non_empty_list("list at least one group")?;
        let groups = groups_value.string_list()?;

        let role_value = map.required("role", "name one of the roles under auth.roles")?;
        let role = role_value.text()?;
        if !roles.contains_key(&role.value) {
            let hint = if roles.is_empty() {
                "auth.roles defines no roles; define it there".to_string()
            } else {
                let suggestion = nearest(&role.value, roles.keys().map(String::as_str))
                    .map(|near| format!("did you mean {near:?}? "))
                    .unwrap_or_default();
                let names = roles.keys().map(String::as_str).collect::<Vec<_>>();
                format!(
                    "{suggestion}roles defined under auth.roles: {}",
                    names.join(", ")
                )
            };
            return Err(role_value.error(format!("unknown role {}; {hint}", role.shown())));
        }

        let clusters = map
            .get("clusters")
            .map(|value| cluster_names(&value, clusters))
            .transpose()?;
        let resources = map
            .get("resources")
            .map(|value| {
                let patterns = resource_patterns(&value)?;
                let held = roles
                    .get(&role.value)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                no_cluster_privilege(&value, held, &format!("role {:?}", role.value))?;
                Ok(patterns)
            })
            .transpose()?;
        bindings.push(Binding {
            groups,
            role: role.value,
            clusters,
            resources,
        });
    }
    Ok(bindings)
}

/// A non-empty list of names of configured clusters.
fn cluster_names(value: &Value<'_>, known: &[&str]) -> Result<Vec<String>, ConfigError> {
    let mut names: Vec<String> = Vec::new();
    for item in value.non_empty_list(CLUSTER_SUBSET)? {
        let name = known_cluster(&item, known)?;
        if names.contains(&name) {
            return Err(item.error(format!("cluster {name:?} is listed twice; list it once")));
        }
        names.push(name);
    }
    Ok(names)
}

/// The name of one configured cluster.
fn known_cluster(value: &Value<'_>, known: &[&str]) -> Result<String, ConfigError> {
    let text = value.text()?;
    if !known.contains(&text.value.as_str()) {
        let suggestion = nearest(&text.value, known.iter().copied())
            .map(|near| format!("did you mean {near:?}? "))
            .unwrap_or_default();
        return Err(value.error(format!(
            "unknown cluster {}; {suggestion}configured clusters: {}",
            text.shown(),
            known.join(", ")
        )));
    }
    Ok(text.value)
}

fn mcp(
    value: &Value<'_>,
    ui_listen: SocketAddr,
    clusters: &[&str],
) -> Result<McpConfig, ConfigError> {
    let map = value.map()?;
    map.only(MCP_KEYS)?;
    let listen_value = map.required(
        "listen",
        "give the MCP listener its own address, such as 127.0.0.1:8090",
    )?;
    let listen = socket_addr(&listen_value)?;
    let overlaps = listen.port() == ui_listen.port()
        && (listen.ip() == ui_listen.ip()
            || listen.ip().is_unspecified()
            || ui_listen.ip().is_unspecified());
    if overlaps {
        return Err(listen_value.error(
            "collides with listen (the web UI), which uses the same port on the same or a \
             wildcard address; give the MCP listener its own port",
        ));
    }
    let privileges = privileges(
        &map.required(
            "privileges",
            "list what MCP calls may do, such as [records], or [] for the catalog only",
        )?,
        true,
    )?;
    let clusters = map
        .get("clusters")
        .map(|value| cluster_names(&value, clusters))
        .transpose()?;
    let secret = map.get("secret").map(|value| value.secret()).transpose()?;
    let resources = map
        .get("resources")
        .map(|value| {
            let patterns = resource_patterns(&value)?;
            no_cluster_privilege(&value, &privileges, "mcp.privileges")?;
            Ok(patterns)
        })
        .transpose()?;
    Ok(McpConfig {
        listen,
        privileges,
        clusters,
        secret,
        resources,
    })
}

/// `resources:` of a binding or of the MCP ceiling: glob lists for topics, groups and subjects,
/// at least one of them given.
fn resource_patterns(value: &Value<'_>) -> Result<ResourcePatterns, ConfigError> {
    let map = value.map()?;
    map.only(RESOURCE_KEYS)?;
    let list = |key: &str| -> Result<Vec<String>, ConfigError> {
        let Some(value) = map.get(key) else {
            return Ok(Vec::new());
        };
        glob_list(
            &value,
            "list at least one glob pattern such as \"payments-*\", or remove the key",
        )
    };
    let patterns = ResourcePatterns {
        topics: list("topics")?,
        groups: list("groups")?,
        subjects: list("subjects")?,
    };
    if patterns.topics.is_empty() && patterns.groups.is_empty() && patterns.subjects.is_empty() {
        return Err(value.error(
            "names no resources; list topics, groups or subjects patterns, or remove the key \
             to cover the whole cluster",
        ));
    }
    Ok(patterns)
}

/// A scope grants topic, group and subject privileges only: a cluster privilege among `held`
/// stops start-up, naming `whose` privileges they are.
fn no_cluster_privilege(
    value: &Value<'_>,
    held: &[Privilege],
    whose: &str,
) -> Result<(), ConfigError> {
    let cluster: Vec<&str> = held
        .iter()
        .filter(|p| p.kind() == app::ResourceKind::Cluster)
        .map(|p| p.config_name())
        .collect();
    if cluster.is_empty() {
        return Ok(());
    }
    Err(value.error(format!(
        "{whose} holds {}, which apply to the whole cluster and cannot be scoped to \
         resources; grant them in a binding without resources",
        both(&cluster)
    )))
}

/// `a, b or c`.
fn either(names: &[&str]) -> String {
    join_last(names, " or ")
}

/// `a, b and c`.
fn both(names: &[&str]) -> String {
    join_last(names, " and ")
}

fn join_last(names: &[&str], last: &str) -> String {
    match names.split_last() {
        None => String::new(),
        Some((only, [])) => only.to_string(),
        Some((final_name, rest)) => format!("{}{last}{final_name}", rest.join(", ")),
    }
}
