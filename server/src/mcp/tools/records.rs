//! The records tools: a page of a topic and one record, decoded and masked as the UI shows
//! them, cut to the result's size with a place to go on from.

use app::api::{Arg, RecordArgs, RecordAtArgs};
use app::Privilege;
use serde_json::{json, Value};

use super::fit::{fit_record, fit_records};
use super::{object, parse, to_json, Answer, ToolSpec};
use crate::auth::Caller;
use crate::service::{records, Service};

/// A page of records: the default and the hard maximum.
pub const RECORDS_DEFAULT: u32 = 20;
pub const RECORDS_MAX: u32 = 100;

pub(super) const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "klens_records_read",
        privilege: Some(Privilege::Records),
        write: false,
        idempotent: true,
        description: "A page of records of a topic, decoded (JSON, Avro, Protobuf, JSON Schema, text, or base64 bytes): the newest by default, or from `offset` of a `partition`, or from a `timestamp`, or `from: earliest`. At most 100 records and about 24 KB of text per call; a cut page says where to go on, and `cursor` continues a page. Needs RECORDS.",
        schema: || object(
            json!({
                "cluster": {"type": "string"},
                "topic": {"type": "string"},
                "partition": {"type": "integer", "description": "One partition; all without it."},
                "offset": {"type": "integer", "description": "Start at this offset (with `partition`)."},
                "timestamp": {"type": "integer", "description": "Start at the first record at or after this time, ms since the epoch."},
                "from": {"type": "string", "enum": ["earliest", "latest"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": RECORDS_MAX},
                "cursor": {"type": "string", "description": "The `next` of an earlier page."},
                "q": {"type": "string", "description": "Only records whose key, value or headers contain this text."},
                "expr": {"type": "string", "maxLength": 4096, "description": "Only records this CEL expression answers true for. It sees the record as you do (masked where you see it masked): `key`, `value` (decoded: a map for JSON, Avro, Protobuf and JSON Schema, else a string), `keyText`, `valueText`, `headers` (map of string), `partition`, `offset`, `timestamp`, `size`, `schemaId`. Example: `value.qty > 5 && headers.source == 'web'`."}
            }),
            &["cluster", "topic"],
        ),
        run: records_read,
    },
    ToolSpec {
        name: "klens_record_get",
        privilege: Some(Privilege::Records),
        write: false,
        idempotent: true,
        description: "One record by partition and offset, decoded, with headers and schema id. Needs RECORDS.",
        schema: || object(json!({"cluster": {"type": "string"}, "topic": {"type": "string"}, "partition": {"type": "integer"}, "offset": {"type": "integer"}}), &["cluster", "topic", "partition", "offset"]),
        run: record_get,
    },
];

fn records_read<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let mut args: RecordArgs = parse(arguments)?;
        // The hard maximum holds whatever is asked.
        let asked = args.limit.or("limit", RECORDS_DEFAULT)?;
        args.limit = Arg::Given(asked.clamp(1, RECORDS_MAX));
        // Find by key and its partitioner are /api's; a tool keeps to the plain page.
        args.key = Arg::Missing;
        let cluster = args.cluster.clone();
        let page = records::records(s, c, args).await?;
        Ok(fit_records(to_json(page)?, &cluster))
    })
}

fn record_get<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let args: RecordAtArgs = parse(arguments)?;
        let cluster = args.cluster.clone();
        let record = to_json(records::record(s, c, args).await?)?;
        Ok(fit_record(record, &cluster))
    })
}
