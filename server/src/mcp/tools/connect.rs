//! The Kafka Connect tools: the connectors of a cluster and one connector, configs masked, and
//! the replications MirrorMaker runs on Connect. No Connect or replication write is an MCP
//! tool: the ceiling's writes are fixed.

use app::Privilege;
use serde_json::{json, Value};

use super::fit::fit;
use super::{cluster_only, object, parse, to_json, Answer, ClusterArgs, ToolSpec};
use crate::auth::Caller;
use crate::service::{connect, replications, Service};

pub(super) const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "klens_connectors_list",
        privilege: Some(Privilege::Connectors),
        write: false,
        idempotent: true,
        description: "The Kafka Connect connectors of a cluster the ceiling may see: name, Connect cluster, source or sink, class, state, tasks (a failed one with the first Caused by: line of its trace), topics. Each Connect cluster's entry says when klens last read it and why a read failed. Needs CONNECTORS.",
        schema: cluster_only,
        run: connectors_list,
    },
    ToolSpec {
        name: "klens_connector_describe",
        privilege: Some(Privilege::Connectors),
        write: false,
        idempotent: true,
        description: "One connector: its tasks with workers and whole traces, its topics, a sink's consumer group and its lag, its offsets as Connect holds them (KIP-875), and its config with every secret masked as ********. Needs CONNECTORS on it.",
        schema: || object(json!({"cluster": {"type": "string"}, "connect": {"type": "string", "description": "The Connect cluster, from klens_connectors_list."}, "name": {"type": "string"}}), &["cluster", "connect", "name"]),
        run: connector_describe,
    },
    ToolSpec {
        name: "klens_replications_list",
        privilege: Some(Privilege::Replications),
        write: false,
        idempotent: true,
        description: "The replications (MirrorMaker 2 on Kafka Connect) into and out of a cluster that the ceiling may see: source and target clusters, Connect cluster, the topics and groups they copy, the naming, state and health (healthy, lagging, failed with the first Caused by: line, paused, starting) and the lag in records over every copied partition. Needs REPLICATIONS.",
        schema: cluster_only,
        run: replications_list,
    },
];

fn replications_list<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: ClusterArgs = parse(arguments)?;
        let list = replications::replications(s, c, &a.cluster).await?;
        Ok(fit(to_json(list)?, "replications", "the Replications page lists every replication"))
    })
}

fn connectors_list<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: ClusterArgs = parse(arguments)?;
        let list = connect::connectors(s, c, &a.cluster).await?;
        // One flat list to cut, and each Connect cluster's freshness beside it.
        let connects: Vec<Value> = list
            .connects
            .iter()
            .map(|k| {
                json!({"name": k.name, "refreshed_at": k.refreshed_at, "error": k.error, "mirror_connectors": k.mirror_connectors})
            })
            .collect();
        let connectors: Vec<_> = list.connects.into_iter().flat_map(|k| k.connectors).collect();
        let value = json!({"cluster": list.cluster, "connects": connects, "connectors": to_json(connectors)?});
        Ok(fit(value, "connectors", "the Connectors page lists every connector"))
    })
}

fn connector_describe<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: app::api::ConnectorArgs = parse(arguments)?;
        let detail = connect::connector(s, c, &a.cluster, a.connect, a.name).await?;
        Ok(fit(to_json(detail)?, "config", "the connector's page shows its whole config"))
    })
}
