//! Schema subjects from the cluster's registry, as catalog: versions, ids, types,
//! compatibility and the topics a subject belongs to. The schema text itself is not catalog:
//! `schema` needs SCHEMA_TEXT.

use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;
use serde::{Deserialize, Serialize};

use super::Arg;
use crate::error::ApiError;

/// One registered version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaVersionRef {
    pub version: i32,
    pub id: i64,
    /// AVRO, PROTOBUF or JSON.
    #[serde(rename = "type")]
    pub schema_type: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubjectSummary {
    pub subject: String,
    /// Every version number, oldest first.
    pub versions: Vec<i32>,
    pub latest: Option<SchemaVersionRef>,
    /// The level that applies: the subject's own, or else the registry's global one.
    pub compatibility: Option<String>,
    /// Whether the subject sets its own level.
    pub compatibility_overridden: bool,
}

/// `GET /api/subjects`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubjectList {
    /// Whether the cluster has a registry configured at all.
    pub registry: bool,
    /// When the subjects were last read successfully, ms since the epoch.
    pub refreshed_at: Option<i64>,
    /// When klens answered, ms since the epoch.
    pub served_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The registry's global compatibility level.
    pub global_compatibility: Option<String>,
    pub subjects: Vec<SubjectSummary>,
}

/// The schema subjects of a cluster's registry, from the catalog.
#[server(endpoint = "subjects", input = GetUrl)]
pub async fn subjects(cluster: String) -> Result<SubjectList, ApiError> {
    super::backend::current()?.subjects(cluster).await
}

/// A schema another one uses, by the name it is imported under.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaReference {
    pub name: String,
    pub subject: String,
    pub version: i32,
}

/// One version of a subject, without its text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubjectVersion {
    pub version: i32,
    pub id: i64,
    /// AVRO, PROTOBUF or JSON.
    #[serde(rename = "type")]
    pub schema_type: String,
    pub references: Vec<SchemaReference>,
}

/// `GET /api/subject`: a subject's versions, its compatibility and the topics it belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubjectDetail {
    pub subject: String,
    /// Oldest first; the newest 200 when there are more.
    pub versions: Vec<SubjectVersion>,
    /// How many older versions are not listed.
    pub versions_left_out: u64,
    /// The level that applies: the subject's own, or else the registry's global one.
    pub compatibility: Option<String>,
    /// Whether the subject sets its own level (else the global one applies).
    pub compatibility_overridden: bool,
    pub global_compatibility: Option<String>,
    /// Topics of the cluster this subject names by `<topic>-key` or `<topic>-value`, with which
    /// part it describes (`key` or `value`).
    pub topics: Vec<(String, String)>,
}

/// `GET /api/schema`: the text of one version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaDetail {
    pub subject: String,
    pub version: i32,
    pub id: i64,
    #[serde(rename = "type")]
    pub schema_type: String,
    /// The text as registered.
    pub schema: String,
    pub references: Vec<SchemaReference>,
}

/// A subject of the cluster's registry: catalog, no privilege (no schema text).
#[server(endpoint = "subject", input = GetUrl)]
pub async fn subject(
    cluster: String,
    #[server(default)] subject: Arg<String>,
) -> Result<SubjectDetail, ApiError> {
    super::backend::current()?.subject(cluster, subject).await
}

/// The text of one version of a subject (SCHEMA_TEXT on the subject); `version` missing: the
/// newest.
#[server(endpoint = "schema", input = GetUrl)]
pub async fn schema(
    cluster: String,
    #[server(default)] subject: Arg<String>,
    #[server(default)] version: Arg<i32>,
) -> Result<SchemaDetail, ApiError> {
    super::backend::current()?
        .schema(cluster, subject, version)
        .await
}
