//! Records: pages of a topic's records, one record, and (outside server functions, as streams)
//! the NDJSON export and the live tail. All of it needs RECORDS.

use super::Answer;
use leptos::server_fn::codec::GetUrl;
use serde::{Deserialize, Serialize};

use super::Arg;
use crate::error::ApiError;

/// Records per page unless asked otherwise, and the most one page may hold.
pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 500;

/// How a key, value or header value is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// JSON text; `data` is the parsed value.
    Json,
    /// UTF-8 text that is not JSON; `data` is the string.
    Text,
    /// Confluent-framed Avro, decoded through the registry.
    Avro,
    /// Confluent-framed Protobuf, decoded through the registry.
    Protobuf,
    /// Confluent-framed JSON Schema; `data` is the JSON document.
    JsonSchema,
    /// Bytes that are not UTF-8; `data` is their standard base64.
    Base64,
    /// No bytes at all (a null key, a tombstone); `data` is null.
    #[default]
    Null,
}

/// One key, value or header value. Bytes are never lost: `raw` (standard base64) is present
/// whenever `data` alone cannot give back the exact bytes (decoded schemas, JSON whose text
/// differs from its compact form), unless the part is `masked` for the caller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Encoded {
    pub encoding: Encoding,
    pub data: serde_json::Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_id: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// Why a framed value could not be decoded; it is then shown as text or base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Some of `data` (or all of it) was masked for this caller: what is shown is not what
    /// the record holds, and `raw` is never given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub masked: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordHeader {
    pub key: String,
    pub value: Encoded,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimestampType {
    CreateTime,
    LogAppendTime,
    NotAvailable,
}

/// One record, in the shape every records call answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    /// ms since the epoch; `None` when the record carries none.
    pub timestamp: Option<i64>,
    pub timestamp_type: TimestampType,
    pub key: Encoded,
    pub value: Encoded,
    /// In the order they were written; a key may repeat.
    pub headers: Vec<RecordHeader>,
    /// Bytes of key, value and headers as written.
    pub size: u64,
}

/// `GET /api/records`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordPage {
    /// Oldest first (by timestamp across partitions).
    pub records: Vec<Record>,
    /// The page after this one, or `None` when every partition was read to its end.
    pub next: Option<String>,
    /// The page before this one, or `None` at the start of every partition.
    pub prev: Option<String>,
    /// Records read to make this page (more than shown when a filter is set).
    pub scanned: u64,
    /// True when the scan stopped at its deadline or budget before the page was full; `next`
    /// or `prev` then continues from where it stopped.
    pub partial: bool,
    /// With `key`: the partitions read, those the key hashes to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_partitions: Option<Vec<i32>>,
    /// With `expr`: the records scanned that the expression could not be evaluated on (a
    /// field some records lack, a comparison of other types); they are left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unevaluated: Option<Unevaluated>,
}

/// Records an expression could not be evaluated on: how many, and why the first one failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unevaluated {
    pub records: u64,
    pub first: String,
}

serve! {
    /// Pages of a topic's records: from `from=earliest|latest` (default latest: the newest
    /// `limit`), an `offset` (with `partition`), a `timestamp`, or a `cursor` from an earlier page.
    /// `q` keeps records whose key, value or a header contains it (ignoring case), or equals it
    /// with `exact=true`; `expr` keeps those a CEL expression over the record answers true for.
    GetUrl "records" fn records(#[server(flatten)] args: RecordArgs) -> RecordPage as Records;
}

/// The arguments of `GET /api/records` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordArgs {
    pub cluster: String,
    pub topic: Arg<String>,
    pub partition: Arg<i32>,
    pub offset: Arg<i64>,
    pub timestamp: Arg<i64>,
    pub from: Arg<String>,
    pub limit: Arg<u32>,
    pub cursor: Arg<String>,
    pub q: Arg<String>,
    pub exact: Arg<bool>,
    /// A CEL expression over each record (`key`, `value`, `headers`, `offset`, …).
    pub expr: Arg<String>,
    /// Find by key: only records with exactly this key, read only from the partitions the key
    /// hashes to.
    pub key: Arg<String>,
    /// `text` (the default) or `base64`: how `key` is written.
    pub key_encoding: Arg<String>,
    /// `murmur2_random` (Java clients), `consistent_random` (librdkafka's default), or missing:
    /// the partitions of both.
    pub partitioner: Arg<String>,
}

impl RecordArgs {
    /// The query these arguments describe, or `BAD_REQUEST` naming the first bad one.
    pub fn parse(self) -> Result<RecordQuery, ApiError> {
        Ok(RecordQuery {
            cluster: self.cluster,
            topic: self.topic.required("topic")?,
            partition: self.partition.optional("partition")?,
            offset: self.offset.optional("offset")?,
            timestamp: self.timestamp.optional("timestamp")?,
            from: self.from.optional("from")?,
            limit: self.limit.optional("limit")?,
            cursor: self.cursor.optional("cursor")?,
            q: self.q.optional("q")?,
            exact: self.exact.or("exact", false)?,
            expr: self.expr.optional("expr")?,
            key: self.key.optional("key")?,
            key_encoding: self.key_encoding.optional("key_encoding")?,
            partitioner: self.partitioner.optional("partitioner")?,
        })
    }
}

/// What a records call asks for, as the server receives it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordQuery {
    pub cluster: String,
    pub topic: String,
    pub partition: Option<i32>,
    pub offset: Option<i64>,
    pub timestamp: Option<i64>,
    pub from: Option<String>,
    pub limit: Option<u32>,
    pub cursor: Option<String>,
    pub q: Option<String>,
    pub exact: bool,
    pub expr: Option<String>,
    pub key: Option<String>,
    pub key_encoding: Option<String>,
    pub partitioner: Option<String>,
}

serve! {
    /// One record by partition and offset.
    GetUrl "record" fn get_record(#[server(flatten)] args: RecordAtArgs) -> Record as GetRecord;
}

/// The arguments of `GET /api/record` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordAtArgs {
    pub cluster: String,
    pub topic: Arg<String>,
    pub partition: Arg<i32>,
    pub offset: Arg<i64>,
}
