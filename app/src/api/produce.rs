//! Producing one record (PRODUCE on the topic, on a writable cluster): key, value and headers,
//! each as text, JSON, base64 bytes or null, the key and value also as JSON encoded through a
//! registered Avro, Protobuf or JSON schema; to a partition or where its key hashes to.

use super::Answer;
use leptos::server_fn::codec::Json;
use serde::{Deserialize, Serialize};

use super::{Arg, Encoding};

/// Bytes to write, as the record shape shows them: `text` (a string), `json` (any JSON value,
/// written compact), `base64` (a string of standard base64) or `null` (no bytes; as a value,
/// a tombstone). For a key or value, `avro`, `protobuf` or `json_schema`: `data` as JSON,
/// encoded with a registered schema and framed as Confluent's serializers frame it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Payload {
    pub encoding: Encoding,
    #[serde(default)]
    pub data: serde_json::Value,
    /// The schema by its id; else by `subject` and `version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_id: Option<u32>,
    /// The subject whose schema encodes `data`; default `<topic>-value` (or `-key`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The subject's version; default its newest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i32>,
    /// For Protobuf: the message's full name (`package.Message`); default the schema's first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The registered schema a key or value was (or would be) encoded with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaUsed {
    /// The subject and version, when it was chosen by them.
    pub subject: Option<String>,
    pub version: Option<i32>,
    pub id: u32,
    /// AVRO, PROTOBUF or JSON.
    #[serde(rename = "type")]
    pub schema_type: String,
}

/// A header to write; a header key may repeat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeaderIn {
    pub key: String,
    /// `null` (or missing) writes a header without a value.
    #[serde(default)]
    pub value: Option<Payload>,
}

/// The arguments of `produce` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProduceArgs {
    pub cluster: String,
    pub topic: Arg<String>,
    /// The partition; missing: where the key hashes to (a keyless record: any).
    pub partition: Arg<i32>,
    pub key: Arg<Payload>,
    pub value: Arg<Payload>,
    pub headers: Arg<Vec<HeaderIn>>,
    /// `true`: answer what would be written, write nothing.
    pub dry_run: Arg<bool>,
}

/// Where each partitioner puts a key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyPlacement {
    /// The Java clients' (librdkafka's `murmur2_random`).
    pub murmur2: i32,
    /// librdkafka's default (`consistent_random`, CRC-32).
    pub consistent: i32,
}

/// The answer of `produce`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Produced {
    pub cluster: String,
    pub topic: String,
    pub dry_run: bool,
    /// Where the record went (or goes); `null` for a keyless record without a partition in a
    /// dry run (the producer picks one).
    pub partition: Option<i32>,
    /// The record's offset; `null` in a dry run.
    pub offset: Option<i64>,
    /// The record's timestamp, ms since the epoch; `null` in a dry run.
    pub timestamp: Option<i64>,
    /// The partitioner that placed (or would place) a keyed record, as librdkafka names it.
    pub partitioner: String,
    /// For a keyed record: where each partitioner puts the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_partitions: Option<KeyPlacement>,
    pub key_bytes: Option<u64>,
    pub value_bytes: Option<u64>,
    pub headers: u64,
    /// The schema the key was encoded with, for a schema encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_schema: Option<SchemaUsed>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_schema: Option<SchemaUsed>,
}

serve! {
    /// Writes one record (PRODUCE on the topic, on a writable cluster; never an internal topic).
    Json "produce" fn produce(#[server(flatten)] args: ProduceArgs) -> Produced as Produce;
}
