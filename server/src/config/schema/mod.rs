//! The shape of config.yaml, key by key, and the rules that tie keys together: unique cluster
//! names, bindings to defined roles and known clusters, the MCP ceiling, and where a registry
//! password may travel. `build` and the top-level keys live here; a cluster's keys in
//! `clusters.rs`, sign-in, roles, bindings and the MCP ceiling in `access.rs`, masking and the
//! audit sinks in `governance.rs`.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use app::{Privilege, MCP_WRITE_PRIVILEGES};

use crate::config::checks::{is_cluster_name, nearest, parse_duration, parse_http_url, HttpUrl};
use crate::config::reader::{Document, Map, Value};
use crate::config::{
    AuditConfig, AuditTopic, AuthConfig, Binding, ClusterConfig, Config, ConfigError, ConnectAllow,
    ConnectConfig, FlinkConfig, LogFormat, MaskStrategy, MaskingRule, McpConfig, MirrorConfig,
    OidcConfig, RegistryConfig, ResourcePatterns, SaslConfig, SaslMechanism, Secret, TlsConfig,
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
    "connect",
    "mirror",
    "flink",
    "properties",
];

const SASL_KEYS: &[&str] = &["mechanism", "username", "password"];

const TLS_KEYS: &[&str] = &["ca", "cert", "key"];

const REGISTRY_KEYS: &[&str] = &["url", "username", "password"];

const CONNECT_KEYS: &[&str] = &["name", "url", "username", "password", "allow", "storage_topics"];

const CONNECT_ALLOW_KEYS: &[&str] = &["classes", "overrides", "references"];

const MIRROR_KEYS: &[&str] = &["properties"];

const FLINK_KEYS: &[&str] = &["sql_gateway", "rest", "properties", "savepoints"];

const AUTH_KEYS: &[&str] = &["oidc", "claim", "roles", "bindings"];

const OIDC_KEYS: &[&str] =
    &["issuer", "client_id", "client_secret", "redirect_uri", "scopes", "max_age"];

const BINDING_KEYS: &[&str] = &["groups", "role", "clusters", "resources"];

const MCP_KEYS: &[&str] = &["listen", "privileges", "clusters", "secret", "resources"];

const RESOURCE_KEYS: &[&str] = &["topics", "groups", "subjects", "connect", "replications"];

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
        None => Config::DEFAULT_ALLOWED_HOSTS.iter().map(|host| host.to_string()).collect(),
    };
    let clusters = clusters(&root.required("clusters", NO_CLUSTERS)?, base_dir)?;
    let names: Vec<&str> = clusters.iter().map(|cluster| cluster.name.as_str()).collect();
    let auth = root.get("auth").map(|value| auth(&value, &names)).transpose()?;
    let mcp = root.get("mcp").map(|value| mcp(&value, listen, &names)).transpose()?;
    let log_format =
        root.get("log").map(|value| log_format(&value)).transpose()?.unwrap_or_default();
    let audit = root.get("audit").map(|value| audit(&value, base_dir, &names)).transpose()?;
    let masking_key = root.get("masking_key").map(|value| masking_key(&value)).transpose()?;
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
    value: &Value<'_>, ui: SocketAddr, mcp: Option<SocketAddr>,
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
        _ => {
            Err(format.error(format!("unknown log format {}; expected text or json", text.shown())))
        }
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

mod access;
mod clusters;
mod governance;

use self::access::*;
use self::clusters::*;
use self::governance::*;
