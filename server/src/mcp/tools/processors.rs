//! The SQL processor tools: a cluster's processors and one processor, read only. No processor
//! write is an MCP tool: the ceiling's writes are fixed.

use app::Privilege;
use serde::Deserialize;
use serde_json::{json, Value};

use super::fit::fit;
use super::{cluster_only, object, parse, to_json, Answer, ClusterArgs, ToolSpec};
use crate::auth::Caller;
use crate::service::{processors, Service};

pub(super) const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "klens_processors_list",
        privilege: Some(Privilege::SqlProcessors),
        write: false,
        idempotent: true,
        description: "The SQL processors of a cluster that the ceiling may see (each one INSERT INTO <topic> SELECT ... statement run by the cluster's Apache Flink): the topics each reads and writes, Flink's state of its job (RUNNING, FAILED, STOPPED with a savepoint, ...), its parallelism and the lag of its consumer group on its inputs. Needs SQL_PROCESSORS.",
        schema: cluster_only,
        run: processors_list,
    },
    ToolSpec {
        name: "klens_processor_describe",
        privilege: Some(Privilege::SqlProcessors),
        write: false,
        idempotent: true,
        description: "One SQL processor: its statement, state, parallelism, the consumer group it reads under and its lag, Flink's newest exception of its job, where its last savepoint is, who created it and when. Needs SQL_PROCESSORS on it.",
        schema: || object(json!({"cluster": {"type": "string"}, "name": {"type": "string", "description": "A processor, from klens_processors_list."}}), &["cluster", "name"]),
        run: processor_describe,
    },
];

#[derive(Deserialize)]
struct NameArgs {
    cluster: String,
    #[serde(default)]
    name: app::api::Arg<String>,
}

fn processors_list<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: ClusterArgs = parse(arguments)?;
        let list = processors::processors(s, c, &a.cluster).await?;
        Ok(fit(to_json(list)?, "processors", "the Processors page lists every processor"))
    })
}

fn processor_describe<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: NameArgs = parse(arguments)?;
        let detail = processors::processor(s, c, &a.cluster, a.name).await?;
        Ok(fit(to_json(detail)?, "sql", "the processor's page shows its whole statement"))
    })
}
