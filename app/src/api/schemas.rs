//! Schema subjects from the cluster's registry, as catalog: versions, ids, types,
//! compatibility and the topics a subject belongs to. The schema text itself is not catalog:
//! `schema` needs SCHEMA_TEXT.

use super::Answer;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::Arg;

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

serve! {
    /// The schema subjects of a cluster's registry, from the catalog.
    GetUrl "subjects" fn subjects(cluster: String) -> SubjectList as Subjects;
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
    /// Soft-deleted versions, which only a permanent deletion removes for good (oldest first).
    pub deleted_versions: Vec<i32>,
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

serve! {
    /// A subject of the cluster's registry: catalog, no privilege (no schema text).
    GetUrl "subject" fn subject(
        cluster: String, subject: Arg<String>
    ) -> SubjectDetail as Subject;

    /// The text of one version of a subject (SCHEMA_TEXT on the subject); `version` missing: the
    /// newest.
    GetUrl "schema" fn schema(
        cluster: String,
        subject: Arg<String>,
        version: Arg<i32>,
    ) -> SchemaDetail as Schema;
}

/// The arguments of `register_schema` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RegisterSchemaArgs {
    pub cluster: String,
    pub subject: Arg<String>,
    /// The schema's text.
    pub schema: Arg<String>,
    /// AVRO (the default), PROTOBUF or JSON.
    #[serde(default, rename = "type")]
    pub schema_type: Arg<String>,
    /// Registered schemas this one uses.
    pub references: Arg<Vec<SchemaReference>>,
    /// `true`: judge the schema and register nothing.
    pub dry_run: Arg<bool>,
}

/// One record of the subject's topic, by where it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordAt {
    pub partition: i32,
    pub offset: i64,
    pub reason: String,
}

/// How the newest records of the subject's topic read with a proposed schema.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordsCheck {
    pub topic: String,
    /// `key` or `value`.
    pub part: String,
    /// Records read: the newest, up to 500, from every partition.
    pub read: u64,
    /// Records whose part reads with the proposed schema.
    pub fit: u64,
    /// Records whose part does not.
    pub failed: u64,
    /// Records that could not be tried: a null part, bytes not framed with a schema id, or a
    /// writer schema klens could not fetch.
    pub unchecked: u64,
    pub first_failure: Option<RecordAt>,
    pub first_unchecked: Option<RecordAt>,
    /// Why the records could not be read, when they could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why the check did not run for this caller (no RECORDS on the topic, or the part is
    /// masked for them): nothing was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// The answer of `register_schema`: with `dry_run`, the registry's verdict and the records
/// check; else the version and id registered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaRegistered {
    pub cluster: String,
    pub subject: String,
    pub dry_run: bool,
    #[serde(rename = "type")]
    pub schema_type: String,
    /// The level the registry judges against (the subject's own, or else the global one).
    pub compatibility: Option<String>,
    /// The registry's verdict against the subject's versions under that level; `null` when
    /// the subject has no version yet.
    pub compatible: Option<bool>,
    /// The registry's reasons, when it gives them.
    pub messages: Vec<String>,
    /// The version and id under which the subject already holds this very schema (registering
    /// it again adds no version).
    pub existing: Option<SchemaVersionRef>,
    /// For a subject named `<topic>-key` or `<topic>-value` of a topic of the cluster.
    pub records: Option<RecordsCheck>,
    /// Once registered: its version and id.
    pub version: Option<i32>,
    pub id: Option<i64>,
}

serve! {
    /// Register a schema, or a new version of a subject (REGISTER_SCHEMAS).
    Json "register_schema" fn register_schema(
        #[server(flatten)] args: RegisterSchemaArgs
    ) -> SchemaRegistered as RegisterSchema;
}

/// The levels a subject may set; `GLOBAL` in `set_compatibility` removes the subject's own
/// level.
pub const COMPATIBILITY_LEVELS: [&str; 7] = [
    "BACKWARD",
    "BACKWARD_TRANSITIVE",
    "FORWARD",
    "FORWARD_TRANSITIVE",
    "FULL",
    "FULL_TRANSITIVE",
    "NONE",
];

/// The arguments of `set_compatibility` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SetCompatibilityArgs {
    pub cluster: String,
    pub subject: Arg<String>,
    /// One of [`COMPATIBILITY_LEVELS`], or `GLOBAL` for the registry's global level.
    pub compatibility: Arg<String>,
    pub dry_run: Arg<bool>,
}

/// A subject's level before and after a change (as it would be, with `dry_run`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompatibilitySet {
    pub cluster: String,
    pub subject: String,
    pub dry_run: bool,
    /// The level that applied, and whether it was the subject's own.
    pub before: Option<String>,
    pub before_own: bool,
    pub after: Option<String>,
    pub after_own: bool,
}

serve! {
    /// Change a subject's compatibility level, or go back to the global one (SET_COMPATIBILITY).
    Json "set_compatibility" fn set_compatibility(
        #[server(flatten)] args: SetCompatibilityArgs
    ) -> CompatibilitySet as SetCompatibility;
}

/// The arguments of `delete_schema` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeleteSchemaArgs {
    pub cluster: String,
    pub subject: Arg<String>,
    /// One version; the whole subject when missing.
    pub version: Arg<i32>,
    /// `true`: delete for good what was soft-deleted before.
    pub permanent: Arg<bool>,
    pub dry_run: Arg<bool>,
}

/// The versions a deletion took (or would take, with `dry_run`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaDeleted {
    pub cluster: String,
    pub subject: String,
    pub dry_run: bool,
    pub permanent: bool,
    pub versions: Vec<i32>,
}

serve! {
    /// Delete a version or a whole subject, soft first, then for good (DELETE_SCHEMAS).
    Json "delete_schema" fn delete_schema(
        #[server(flatten)] args: DeleteSchemaArgs
    ) -> SchemaDeleted as DeleteSchema;
}
