//! The data flow around one node of a cluster, or through the names a filter holds
//! (TOPOLOGY): the topics, the groups that read them, the connectors, replications and SQL
//! processors that move them and the producers that write them, as far as the caller may see,
//! laid out and drawn on the server.

use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use super::{Answer, Arg};
#[cfg(feature = "ssr")]
use leptos::server_fn::codec::GetUrl;

/// The most steps a flow reaches up or down from its node.
pub const FLOW_MOST_HOPS: u8 = 5;

/// One node of the flow.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowNode {
    /// `topic`, `group`, `connector`, `replication`, `processor` or `producer`.
    pub kind: String,
    pub name: String,
    /// The cluster of a topic (a replication's other end is on another one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// The Connect cluster of a connector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect: Option<String>,
    /// Its state in a few words, where klens knows it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// Steps from the node the flow is about.
    pub hops: u8,
    /// How many of the nodes it reads from, and writes to, the caller may not see.
    pub hidden_upstream: usize,
    pub hidden_downstream: usize,
    /// A group with no members and nothing left to read, which the caller may delete.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub removable: bool,
}

/// Data flowing from one node to another (by their places in [`FlowGraph::nodes`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowEdge {
    pub from: usize,
    pub to: usize,
    /// Whether Kafka or an engine says so (`true`) or klens inferred it.
    pub exact: bool,
    /// Where klens knows it from, in words.
    pub source: String,
}

/// `GET /api/flow`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowGraph {
    pub cluster: String,
    /// The node it is about: its place in `nodes` (none for a whole cluster's filtered flow).
    pub focus: Option<usize>,
    pub hops: u8,
    pub nodes: Vec<FlowNode>,
    pub edges: Vec<FlowEdge>,
    /// What klens knows and does not, in sentences.
    pub coverage: Vec<String>,
    /// The flow drawn as SVG, each node a link to its page.
    pub svg: String,
}

serve! {
    /// The flow around a topic, group, connector (`connect/name`), replication, processor or
    /// producer (transactional id or producer id), `hops` steps up and down (1 to 5, 1 by
    /// default), as far as the caller sees (TOPOLOGY); with kind `cluster`, the whole
    /// cluster's flow through every node whose name holds `name` (a filter). The
    /// Flow page calls it only while the server renders it, so the browser's bundle leaves it
    /// out.
    #[cfg(feature = "ssr")]
    GetUrl "flow" fn flow(
        cluster: String, kind: String, name: Arg<String>,
        hops: Option<u8>
    ) -> FlowGraph as Flow;
}
