//! The config loader: reads `config.yaml`, substitutes `${NAME}` from the environment, checks
//! every key and cross-reference, and returns a [`Config`] the rest of the server can trust.
//!
//! Code map:
//! - `mod.rs`: the public types, [`load`], [`parse`], [`Secret`] and [`ConfigError`].
//! - `reader.rs`: a typed walk over the YAML tree that knows each value's key path and position.
//! - `schema.rs`: the shape of the file, key by key, and the rules that span several keys.
//! - `interpolate.rs`: `${NAME}` substitution, applied to each scalar value after parsing, so
//!   positions stay those of the file and a variable's value can never add YAML structure.
//!   `$${` writes a literal `${`; any other `$` is kept as it is.
//! - `checks.rs`: small pure parsers (URLs, durations, cluster names) and "did you mean".
//!
//! What must never happen here:
//! - This module never connects anywhere: no DNS, no Kafka, no HTTP. `--check-config` relies on
//!   it. The only I/O is reading the config file and checking that TLS files can be read.
//! - A secret value (passwords, the OIDC client secret, the MCP secret, librdkafka property
//!   values) never appears in an error, in `Debug` or in `Display` output. Nor does any value
//!   that came from an environment variable, except a TLS file path, which its error must name.
//!   The module prints nothing and logs nothing.
//! - A config with any problem never yields a `Config`: every error stops the load, so a bad
//!   config never starts a half-working server.
//! - Every error is one line: `<file>:<line>:<column>: <key path>: <what is wrong and what to do>`.
//!
//! Choices the config reference leaves open, made strict so a typo fails loudly:
//! - An empty value (`key:`, `~`, `null`) is refused for every key; omit an optional key instead.
//! - `writable` takes true or false (also `True`, `TRUE`, `False`, `FALSE`).
//! - Secrets, user names and TLS paths cannot be empty; a registry takes username and password
//!   together or neither; `scopes` must contain `openid`; a privilege or a cluster may not be
//!   listed twice in one list; `mcp.privileges` is required (`[]` gives the catalog only).
//! - `tls: {}` means TLS with the system trust store.
//! - One YAML document only; anchors, aliases and tags are refused.

mod checks;
pub mod engine_classes;
mod interpolate;
mod reader;
mod schema;
pub mod secret_values;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use app::Privilege;

/// The whole validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where the web UI listens.
    pub listen: SocketAddr,
    /// The `Host` header values accepted when auth is off.
    pub allowed_hosts: Vec<String>,
    /// At least one cluster; names are unique.
    pub clusters: Vec<ClusterConfig>,
    /// Sign-in and roles; `None` means no sign-in.
    pub auth: Option<AuthConfig>,
    /// The MCP listener; `None` means no MCP listener.
    pub mcp: Option<McpConfig>,
    /// How klens writes its log lines.
    pub log_format: LogFormat,
    /// Where write attempts are recorded; `None`: nowhere.
    pub audit: Option<AuditConfig>,
    /// What records show of their fields to callers without UNMASK, in config order.
    pub masking: Vec<MaskingRule>,
    /// The HMAC key of the `hash` strategy; present whenever a rule hashes.
    pub masking_key: Option<Secret>,
    /// `metrics.listen`: a port of its own for `/metrics`, without a session.
    pub metrics_listen: Option<SocketAddr>,
}

/// One `masking` rule: on the topics its globs match, these fields of each value (and of
/// each key, with `keys`) are shown masked to a caller without UNMASK on the topic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaskingRule {
    pub topics: Vec<String>,
    /// Paths from the top of the decoded value, split at the dots; no segment is empty.
    pub fields: Vec<Vec<String>>,
    pub keys: bool,
    pub strategy: MaskStrategy,
}

/// How a masked field is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskStrategy {
    /// A fixed mark in place of the value.
    Redact,
    /// Stars for every character but the last four (every one, in a value of four or fewer).
    Last4,
    /// HMAC-SHA256 under `masking_key`, in hex: equal values stay equal, and nothing else
    /// can be learnt without the key.
    Hash,
    /// The field is left out.
    Drop,
}

/// The audit log's sinks: at least one of them.
#[derive(Clone, Debug)]
pub struct AuditConfig {
    /// An NDJSON file klens appends to (relative paths are taken from the config's folder);
    /// its folder exists when the config is read.
    pub file: Option<PathBuf>,
    /// A Kafka topic of a configured cluster, which several replicas of klens can share.
    pub topic: Option<AuditTopic>,
    /// Privileged reads are recorded too, not only write attempts.
    pub reads: bool,
    /// The HMAC key each event is signed with, shared by every replica: the Audit log page
    /// flags an event whose signature does not match (another client wrote it).
    pub key: Option<Secret>,
}

/// `audit.topic`: where on Kafka the events go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditTopic {
    /// The name of a configured cluster; klens connects to it as that cluster says.
    pub cluster: String,
    /// The topic, which must exist: klens does not create it.
    pub name: String,
}

/// The shape of klens's log lines: `text` for people, `json` (one object a line) for log
/// collectors. Both carry the same fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

impl Config {
    /// The UI listen address when `listen` is omitted.
    pub const DEFAULT_LISTEN: SocketAddr =
        SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)), 8080);
    /// The accepted hosts when `allowed_hosts` is omitted.
    pub const DEFAULT_ALLOWED_HOSTS: &'static [&'static str] = &["localhost", "127.0.0.1"];
}

/// One Kafka cluster. `Debug` hides property values, which may be secrets.
#[derive(Clone)]
pub struct ClusterConfig {
    /// Matches `[a-z0-9-_.]+` and is not made of dots only; it appears in URLs.
    pub name: String,
    /// The librdkafka `bootstrap.servers` list, as written.
    pub bootstrap_servers: String,
    /// Whether any change is possible on this cluster.
    pub writable: bool,
    /// `catalog: scoped`: a caller whose bindings on this cluster are all scoped sees only
    /// the resources they cover.
    pub scoped_catalog: bool,
    pub sasl: Option<SaslConfig>,
    /// TLS to the brokers; an empty `tls: {}` means TLS with the system trust store.
    pub tls: Option<TlsConfig>,
    pub schema_registry: Option<RegistryConfig>,
    /// The Kafka Connect clusters that work on this cluster, names unique within it.
    pub connect: Vec<ConnectConfig>,
    /// How MirrorMaker 2 reaches this cluster, when it may take part in replications.
    pub mirror: Option<MirrorConfig>,
    /// Where this cluster's SQL processors run, when it has any.
    pub flink: Option<FlinkConfig>,
    /// Extra librdkafka client properties, passed through. Values may be secrets. None of them
    /// is a connection setting (`security.protocol`, `sasl.*`, `ssl.*`): those come from
    /// `sasl` and `tls` alone, so librdkafka and the protocol client connect alike.
    pub properties: BTreeMap<String, String>,
}

impl fmt::Debug for ClusterConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct HiddenValues<'a>(&'a BTreeMap<String, String>);
        impl fmt::Debug for HiddenValues<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map().entries(self.0.keys().map(|key| (key, "***"))).finish()
            }
        }
        f.debug_struct("ClusterConfig")
            .field("name", &self.name)
            .field("bootstrap_servers", &self.bootstrap_servers)
            .field("writable", &self.writable)
            .field("scoped_catalog", &self.scoped_catalog)
            .field("sasl", &self.sasl)
            .field("tls", &self.tls)
            .field("schema_registry", &self.schema_registry)
            .field("connect", &self.connect)
            .field("mirror", &self.mirror.as_ref().map(|m| HiddenValues(&m.properties)))
            .field("flink", &self.flink.as_ref().map(|f| (&f.sql_gateway, &f.rest)))
            .field("properties", &HiddenValues(&self.properties))
            .finish()
    }
}

/// SASL credentials for the brokers.
#[derive(Clone, Debug)]
pub struct SaslConfig {
    pub mechanism: SaslMechanism,
    /// Never empty.
    pub username: String,
    /// Never empty.
    pub password: Secret,
}

/// The SASL mechanisms klens supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaslMechanism {
    Plain,
    ScramSha256,
    ScramSha512,
}

impl SaslMechanism {
    /// Every mechanism, in the order the error message lists them.
    pub const ALL: &'static [SaslMechanism] =
        &[SaslMechanism::Plain, SaslMechanism::ScramSha256, SaslMechanism::ScramSha512];

    /// The value of librdkafka's `sasl.mechanism`, which is also the config spelling.
    pub fn librdkafka_name(self) -> &'static str {
        match self {
            SaslMechanism::Plain => "PLAIN",
            SaslMechanism::ScramSha256 => "SCRAM-SHA-256",
            SaslMechanism::ScramSha512 => "SCRAM-SHA-512",
        }
    }

    /// Parses the config spelling, which is exact (upper case).
    pub fn from_config_name(name: &str) -> Option<SaslMechanism> {
        SaslMechanism::ALL.iter().copied().find(|mechanism| mechanism.librdkafka_name() == name)
    }
}

/// TLS files, resolved against the config file's directory and checked to be readable.
#[derive(Clone, Debug, Default)]
pub struct TlsConfig {
    pub ca: Option<PathBuf>,
    /// Set exactly when `key` is set.
    pub cert: Option<PathBuf>,
    /// Set exactly when `cert` is set.
    pub key: Option<PathBuf>,
    /// The password of an encrypted `key`, from `properties["ssl.key.password"]`; librdkafka
    /// and klens's protocol client both use it.
    pub key_password: Option<Secret>,
}

/// A Schema Registry.
#[derive(Clone, Debug)]
pub struct RegistryConfig {
    /// An `http://` or `https://` URL without credentials. It is `https://` or a loopback host
    /// whenever `password` is set.
    pub url: String,
    /// Set exactly when `password` is set.
    pub username: Option<String>,
    pub password: Option<Secret>,
}

/// How MirrorMaker 2's own clients reach a cluster that is the source or target of a
/// replication: client properties its connectors are given, `bootstrap.servers` among them. A
/// secret among them is a Connect config-provider reference (`${file:...}`), never the secret
/// itself, which would be stored in clear in Connect's config topic.
#[derive(Clone)]
pub struct MirrorConfig {
    pub properties: BTreeMap<String, String>,
}

/// Apache Flink, where a cluster's SQL processors run: its SQL Gateway and its JobManager's
/// REST API (neither authenticates: only klens may reach them), the client properties of
/// Flink's Kafka connector (no secret among them, see the config check) and where savepoints
/// go (Flink's own `execution.checkpointing.savepoint-dir` when `None`).
#[derive(Clone, Debug)]
pub struct FlinkConfig {
    /// `http://` or `https://`, without a trailing slash.
    pub sql_gateway: String,
    /// `http://` or `https://`, without a trailing slash.
    pub rest: String,
    pub properties: BTreeMap<String, String>,
    pub savepoints: Option<String>,
}

/// A Kafka Connect cluster's REST API, reached like the registry.
#[derive(Clone, Debug)]
pub struct ConnectConfig {
    /// Matches `[a-z0-9-_.]+`; it appears in URLs.
    pub name: String,
    pub rest: RegistryConfig,
    /// What a connector config created or updated through klens may hold beyond what klens
    /// decides itself (`allow:`); empty by default, so nothing but the decided keys passes.
    pub allow: ConnectAllow,
    /// The Connect workers' own topics (config, offsets, status), which hold every connector
    /// config in clear: protected like the audit topic. Connect's usual names by default.
    pub storage_topics: Vec<String>,
}

/// An operator's allow-list for one Connect cluster: each entry a key or class name, or a glob
/// over them (`*` any run, `?` one character).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConnectAllow {
    /// Classes a config may name (connectors, transforms, predicates, converters) beyond
    /// Kafka's own transforms, predicates and converters. FileStream and MirrorMaker classes
    /// are never allowed.
    pub classes: Vec<String>,
    /// Client override keys (`producer.override.*`, `consumer.override.*`, `admin.override.*`).
    pub overrides: Vec<String>,
    /// Keys whose value may hold a config-provider reference (`${provider:path:key}`).
    pub references: Vec<String>,
}

/// The names Connect's own topics have when the workers do not name them.
pub const CONNECT_STORAGE_TOPICS: [&str; 3] =
    ["connect-configs", "connect-offsets", "connect-status"];

/// Sign-in and the role model.
#[derive(Clone, Debug)]
pub struct AuthConfig {
    pub oidc: OidcConfig,
    /// The ID-token claim that lists the user's groups.
    pub claim: String,
    /// Role name to privileges. Empty means everyone holds every privilege on every cluster.
    pub roles: BTreeMap<String, Vec<Privilege>>,
    /// Every binding names a defined role and only known clusters.
    pub bindings: Vec<Binding>,
}

/// The OpenID Connect provider.
#[derive(Clone, Debug)]
pub struct OidcConfig {
    /// An `https://` URL, or `http://` to a loopback host.
    pub issuer: String,
    pub client_id: String,
    pub client_secret: Secret,
    /// An `https://` URL, or `http://` to a loopback host.
    pub redirect_uri: String,
    /// Whether `redirect_uri`'s scheme, as parsed, is `https`: the session cookie is then
    /// Secure and `__Host-` prefixed.
    pub redirect_is_https: bool,
    /// Always contains `openid`.
    pub scopes: Vec<String>,
    /// The longest a session lives; more than zero.
    pub max_age: Duration,
}

impl OidcConfig {
    /// The scopes when `scopes` is omitted.
    pub const DEFAULT_SCOPES: &'static [&'static str] = &["openid", "profile", "email"];
    /// The session age when `max_age` is omitted.
    pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(8 * 60 * 60);
}

/// Grants a role to the members of some groups, on some clusters or all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// Never empty.
    pub groups: Vec<String>,
    pub role: String,
    /// `None` covers every cluster; `Some` is never empty.
    pub clusters: Option<Vec<String>>,
    /// `None` covers every resource of those clusters; `Some` only the resources it matches,
    /// and then the role holds no cluster privilege.
    pub resources: Option<ResourcePatterns>,
}

/// The glob patterns of a scoped binding or of the MCP ceiling (`resources:`). Each list may
/// be empty (it then covers nothing of its kind); no pattern is empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourcePatterns {
    pub topics: Vec<String>,
    pub groups: Vec<String>,
    pub subjects: Vec<String>,
    /// Globs over Connect cluster names; empty covers every Connect cluster.
    pub connect: Vec<String>,
    /// Globs over replication names; empty covers none.
    pub replications: Vec<String>,
}

/// The MCP listener.
#[derive(Clone, Debug)]
pub struct McpConfig {
    /// Never the UI's listen address.
    pub listen: SocketAddr,
    /// The ceiling of every MCP call; its only write privileges are in `app::MCP_WRITE_PRIVILEGES`.
    pub privileges: Vec<Privilege>,
    /// `None` covers every cluster; `Some` is never empty.
    pub clusters: Option<Vec<String>>,
    /// When set, every call must carry it. Compare it in constant time.
    pub secret: Option<Secret>,
    /// Scopes the ceiling to these resources, as a binding's `resources` does.
    pub resources: Option<ResourcePatterns>,
}

/// A value that must never be shown. `Debug` and `Display` print `***`; only [`Secret::expose`]
/// gives the value, and only to the code that sends it where it belongs.
///
/// There is deliberately no `PartialEq`: comparing a secret with `==` is not constant time.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: String) -> Secret {
        Secret(value)
    }

    /// The value itself. Never log, format or return it to a client.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Why a config was refused. `Display` is one line that names the file, the position, the key
/// path and the fix; it never contains a secret.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file itself could not be read.
    #[error("{file}: cannot read the config file: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// The text is not YAML klens accepts, or its top level is not a mapping.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax { file: String, line: usize, column: usize, message: String },
    /// A key or value is wrong.
    #[error("{file}:{line}:{column}: {key}: {message}")]
    Invalid {
        file: String,
        line: usize,
        column: usize,
        /// Such as `clusters[1].name` or `mcp.privileges[2]`.
        key: String,
        message: String,
    },
}

/// The topic of a writable cluster that holds the leases of changes made on it (`lease`).
pub const LEASES_TOPIC: &str = "_klens_leases";

/// The topic of a writable cluster that keeps the copy jobs writing to it (`jobs`).
pub const JOBS_TOPIC: &str = "_klens_copy_jobs";

/// Reads and validates the config file at `path`, taking `${NAME}` values from the process
/// environment. Relative TLS paths are resolved against the file's directory.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let file = path.display().to_string();
    let source = std::fs::read_to_string(path)
        .map_err(|source| ConfigError::Read { file: file.clone(), source })?;
    let base_dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let env = |name: &str| std::env::var(name).ok();
    parse(&source, &file, &env, base_dir)
}

/// Validates config text. `file_name` prefixes every error, `env` answers `${NAME}`, and
/// `base_dir` resolves relative TLS paths.
pub fn parse(
    source: &str, file_name: &str, env: &dyn Fn(&str) -> Option<String>, base_dir: &Path,
) -> Result<Config, ConfigError> {
    let ctx = reader::Ctx { file: file_name, env };
    let root = reader::parse_document(&ctx, source)?;
    schema::build(&root, base_dir)
}
