//! The two other writes an MCP ceiling may hold: creating a topic and producing one record,
//! each with its dry run.

use app::Privilege;
use serde_json::{json, Value};

use super::{object, parse, to_json, Answer, ToolSpec};
use crate::auth::Caller;
use crate::service::{produce, topics, Service};

pub(super) const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "klens_topic_create",
        privilege: Some(Privilege::CreateTopics),
        write: true,
        idempotent: false,
        description: "Creates a topic with a partition count, an optional replication factor and config overrides. With `dry_run: true`, Kafka validates it and nothing is created. Needs CREATE_TOPICS on a writable cluster.",
        schema: || object(
            json!({
                "cluster": {"type": "string"},
                "topic": {"type": "string"},
                "partitions": {"type": "integer", "minimum": 1},
                "replication_factor": {"type": "integer", "minimum": 1},
                "configs": {"type": "object", "additionalProperties": {"type": "string"}},
                "dry_run": {"type": "boolean"}
            }),
            &["cluster", "topic", "partitions"],
        ),
        run: topic_create,
    },
    ToolSpec {
        name: "klens_produce",
        privilege: Some(Privilege::Produce),
        write: true,
        idempotent: false,
        description: "Writes one record. `key` and `value` are {\"encoding\": \"text\" | \"json\" | \"base64\" | \"avro\" | …, \"data\": …} as /api/produce takes them; without `partition` a keyed record goes where Kafka's partitioners put its key. With `dry_run: true`, answers the partition it would land in and writes nothing. Needs PRODUCE on a writable cluster.",
        schema: || object(
            json!({
                "cluster": {"type": "string"},
                "topic": {"type": "string"},
                "partition": {"type": "integer"},
                "key": {"type": "object"},
                "value": {"type": "object"},
                "headers": {"type": "array", "items": {"type": "object"}},
                "dry_run": {"type": "boolean"}
            }),
            &["cluster", "topic"],
        ),
        run: produce_one,
    },
];

fn topic_create<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move { to_json(topics::create_topic(s, c, parse(arguments)?).await?) })
}

fn produce_one<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move { to_json(produce::produce(s, c, parse(arguments)?).await?) })
}
