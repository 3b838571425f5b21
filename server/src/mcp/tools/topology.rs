//! The flow tool: the data flow around one node, as JSON (the page draws the same as SVG).

use app::Privilege;
use serde_json::{json, Value};

use super::{object, parse, to_json, Answer, ToolSpec};
use crate::auth::Caller;
use crate::service::{topology, Service};

pub(super) const TOOLS: &[ToolSpec] = &[ToolSpec {
    name: "klens_topology",
    privilege: Some(Privilege::Topology),
    write: false,
    idempotent: true,
    description: "How data flows around one topic, consumer group, connector, replication, SQL processor or producer of a cluster: the topics it reads and writes, the groups that read them, the connectors, replications and processors that move them, the producers Kafka keeps state for, up to `hops` steps away (1 to 5), each step along the flow either way, so a reader's other inputs too. With kind `cluster`, `name` is a filter: the whole cluster's flow through every node whose name holds it (at most 200 matches). Each edge says where klens knows it from and whether it is exact or inferred; nodes the ceiling may not see are only counted (hidden_upstream, hidden_downstream), never named; `coverage` says what is not drawn or known. Needs TOPOLOGY.",
    schema: || {
        object(
            json!({
                "cluster": {"type": "string", "description": "A cluster from klens_clusters_list."},
                "kind": {"type": "string", "enum": ["topic", "group", "connector", "replication", "processor", "producer", "cluster"]},
                "name": {"type": "string", "description": "The node's name (a connector's is connect/name, a producer's its transactional id or producer id), or for kind cluster the filter."},
                "hops": {"type": "integer", "minimum": 1, "maximum": app::api::FLOW_MOST_HOPS, "default": 1}
            }),
            &["cluster", "kind", "name"],
        )
    },
    run: flow,
}];

fn flow<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let mut answer = to_json(topology::flow(s, c, parse(arguments)?).await?)?;
        // The drawing is for the page.
        if let Value::Object(map) = &mut answer {
            map.remove("svg");
        }
        Ok(answer)
    })
}
