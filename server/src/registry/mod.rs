//! A cluster's Schema Registry through its Confluent-compatible REST API: the catalog's view of
//! subjects (versions, ids, types, compatibility), and schemas with their references, for
//! decoding records and for encoding the records klens produces.

use std::time::Duration;

use app::access::Resource;
use app::Privilege;
use futures::stream::{self, StreamExt};
use reqwest::Method;
use serde::{Deserialize, Serialize};

use crate::auth::Grant;
use crate::config::RegistryConfig;
use crate::rest::{error_message, rewritten_by_url, RestClient};

const TIMEOUT: Duration = Duration::from_secs(10);
/// The largest answer klens reads from the registry; schemas and subject lists are far smaller.
const MAX_BODY: usize = 16 * 1024 * 1024;
/// The most schemas one schema may reference, all levels together.
const MAX_REFERENCES: usize = 256;

/// Whether a caller may read a subject's schema text (SCHEMA_TEXT), asked of every subject a
/// schema references, at every depth, before the registry is.
pub type Readable<'a> = &'a (dyn Fn(&str) -> bool + Sync);
/// Subjects read at the same time during a refresh.
const PARALLEL: usize = 8;

pub struct Registry {
    rest: RestClient,
}

/// One subject as the catalog shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subject {
    pub name: String,
    pub versions: Vec<i32>,
    /// (version, id, type) of the newest version.
    pub latest: Option<(i32, i64, String)>,
    /// The subject's own compatibility level, if it sets one.
    pub compatibility: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subjects {
    pub global_compatibility: Option<String>,
    pub subjects: Vec<Subject>,
}

/// A schema's text as registered, with the texts of the schemas it references (by the name it
/// imports them under), for decoding records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaText {
    pub schema: String,
    /// AVRO, PROTOBUF or JSON.
    pub schema_type: String,
    /// (import name, schema text), references of references included.
    pub references: Vec<(String, String)>,
}

pub use crate::rest::RestError as RegistryError;

/// One version of a subject: its number, its global id, and its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubjectVersion {
    pub version: i32,
    pub id: u32,
    pub schema: SchemaText,
}

#[derive(Deserialize)]
struct Registered {
    #[serde(default)]
    version: Option<i32>,
    #[serde(default)]
    id: Option<u32>,
    schema: String,
    #[serde(rename = "schemaType")]
    schema_type: Option<String>,
    #[serde(default)]
    references: Vec<Reference>,
}

impl Registered {
    /// The version without its text, `number` standing in for a version the answer lacks.
    fn info(self, number: Option<i32>) -> (VersionInfo, String) {
        let info = VersionInfo {
            version: self.version.or(number).unwrap_or_default(),
            id: self.id.unwrap_or_default(),
            schema_type: kind(self.schema_type),
            references: self.references,
        };
        (info, self.schema)
    }
}

/// A schema's type as the registry gives it; the registry leaves it out for Avro.
fn kind(schema_type: Option<String>) -> String {
    schema_type.unwrap_or_else(|| "AVRO".to_string())
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    pub name: String,
    pub subject: String,
    pub version: i64,
}

/// One version of a subject without its text: its number, id, type and references.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionInfo {
    pub version: i32,
    pub id: u32,
    pub schema_type: String,
    pub references: Vec<Reference>,
}

/// A subject: its versions (oldest first; at most [`MAX_VERSIONS`], the newest), its own
/// compatibility level and the registry's global one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubjectInfo {
    pub versions: Vec<VersionInfo>,
    /// Versions the registry has beyond those read.
    pub versions_left_out: usize,
    pub compatibility: Option<String>,
    pub global_compatibility: Option<String>,
}

/// The most referencing schemas klens names for one version.
pub const MAX_USERS_NAMED: usize = 20;

/// The most versions of one subject klens reads for its page, the newest.
pub const MAX_VERSIONS: usize = 200;

/// How deep references may nest before klens stops following them.
const MAX_REFERENCE_DEPTH: usize = 8;

#[derive(Deserialize)]
struct Version {
    version: i32,
    id: i64,
    #[serde(rename = "schemaType")]
    schema_type: Option<String>,
}

#[derive(Deserialize)]
struct Compatibility {
    #[serde(rename = "compatibilityLevel", alias = "compatibility")]
    level: Option<String>,
}

impl Registry {
    pub fn new(config: &RegistryConfig) -> Result<Registry, String> {
        Ok(Registry { rest: RestClient::new("registry", config, TIMEOUT, MAX_BODY)? })
    }

    /// GETs a JSON document; `Ok(None)` for 404.
    async fn get<T: for<'de> Deserialize<'de>>(
        &self, segments: &[&str],
    ) -> Result<Option<T>, RegistryError> {
        self.rest.get_with(segments, &[]).await
    }

    /// GETs a JSON document with query arguments; `Ok(None)` for 404.
    async fn get_with<T: for<'de> Deserialize<'de>>(
        &self, segments: &[&str], query: &[(&str, &str)],
    ) -> Result<Option<T>, RegistryError> {
        self.rest.get_with(segments, query).await
    }

    /// Sends one request with the registry's content type and reads its JSON answer.
    async fn send<T: for<'de> Deserialize<'de>>(
        &self, method: Method, segments: &[&str], query: &[(&str, &str)], body: Option<Vec<u8>>,
    ) -> Result<T, RegistryError> {
        let body = body.map(|b| ("application/vnd.schemaregistry.v1+json", b));
        self.rest.send(method, segments, query, body).await
    }
}

/// Why `name` cannot be one segment of a registry URL's path, or `None` when it can. The URL
/// library drops a segment `.` or `..`, removes tabs and line breaks (so `.\t.` becomes `..` and
/// climbs), and reads `%2e` as a dot; a registry decodes percent-encoded sequences (`%2F`,
/// `%5C`) and may read `/` or `\` as separators. Any of these would send a request for one
/// subject to another path: `config/..` is the global level's.
pub fn segment_problem(name: &str) -> Option<&'static str> {
    if name == "." || name == ".." {
        return Some("it cannot be \".\" or \"..\"");
    }
    if name.contains(['/', '\\']) {
        return Some("it cannot hold \"/\" or \"\\\"");
    }
    if name.chars().any(char::is_control) {
        return Some("it cannot hold a control character (a tab, a line break)");
    }
    let bytes = name.as_bytes();
    let escaped = bytes
        .windows(3)
        .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit());
    if escaped {
        return Some("it cannot hold a percent-encoded sequence such as %2e or %2F");
    }
    None
}

/// A schema as proposed for registration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    pub schema: String,
    /// AVRO, PROTOBUF or JSON.
    pub schema_type: String,
    pub references: Vec<Reference>,
}

impl Proposal {
    fn body(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct Body<'a> {
            schema: &'a str,
            #[serde(rename = "schemaType")]
            schema_type: &'a str,
            references: &'a [Reference],
        }
        // A struct of strings and numbers always serializes.
        serde_json::to_vec(&Body {
            schema: &self.schema,
            schema_type: &self.schema_type,
            references: &self.references,
        })
        .unwrap_or_default()
    }
}

/// The registry's word on a proposed schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub compatible: bool,
    pub messages: Vec<String>,
}

/// `Ok` when `grant` was given for `privilege` on `subject`.
fn require(grant: &Grant, privilege: Privilege, subject: &str) -> Result<(), RegistryError> {
    grant
        .require(privilege, &Resource::Subject(subject.to_string()))
        .map_err(|e| RegistryError::new(e.message))
}

mod reads;
mod writes;

#[cfg(test)]
mod tests;
