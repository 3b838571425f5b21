//! Schema subjects from the cluster's registry, as catalog: versions, ids, types and
//! compatibility. The schema text itself is not catalog.

use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;
use serde::{Deserialize, Serialize};

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
