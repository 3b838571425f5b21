//! The flow of data around one node (TOPOLOGY), built from the catalog and the processors'
//! definitions as klens read them last (at most a few seconds ago; no other Kafka call on this
//! path). Nodes are exactly what the caller sees elsewhere: topics and groups as the (possibly
//! scoped) catalog shows them, connectors to holders of CONNECTORS on them, replications to
//! holders of REPLICATIONS on them, SQL processors to holders of SQL_PROCESSORS on them. A
//! neighbour outside that is counted and never named ([`crate::topology`]).

use std::collections::HashMap;

use app::access::{ClusterAccess, Resource};
use app::api::{Arg, Flow, FlowEdge, FlowGraph, FlowNode, FLOW_MOST_HOPS};
use app::{ApiError, Privilege};

use super::identity::refusal;
use super::Service;
use crate::auth::Caller;
use crate::topology::{draw, Evidence, Graph, Key};

/// The flow around the node `call` names, as far as `caller` sees.
pub async fn flow(service: &Service, caller: &Caller, call: Flow) -> Result<FlowGraph, ApiError> {
    let Flow { cluster, kind, name, hops } = call;
    let args = serde_json::json!({ "kind": kind, "name": name, "hops": hops });
    let read = async {
        let access = service.access(caller, &cluster)?;
        let name = given(name)?;
        // A topic the catalog lists (and the caller sees) is a node even when nothing reads
        // or writes it.
        let mut listed = None;
        if kind == "topic" {
            // Decided on the topic itself, as a scope grants it.
            let granted =
                service.decide_topic(caller, &cluster, Privilege::Topology, Some(&name))?;
            listed = granted.topic.map(|_| topic_key(&cluster, &name));
        } else if let Some(refused) = refusal(&access, &cluster, Privilege::Topology) {
            return Err(refused);
        }
        let focus = Focus::of(&kind, &name)?;
        let hops = hops.unwrap_or(1);
        if !(1..=FLOW_MOST_HOPS).contains(&hops) {
            return Err(ApiError::bad_request(
                "hops",
                format!("hops is from 1 to {FLOW_MOST_HOPS}, not {hops}."),
            ));
        }
        let processors = processors_of(service, &cluster).await;
        let mut built = build(service, &cluster, processors);
        if let Some(key) = listed {
            built.graph.node(key);
        }
        let missing = || {
            ApiError::not_found(format!("There is no {kind} \"{name}\" in cluster \"{cluster}\"."))
        };
        let start = focus.find(&built.graph, &cluster).ok_or_else(missing)?;
        // Every cluster the caller sees, for the topics at either end of a replication.
        let seen = service.policy.visible(&caller.subject());
        let visible = |key: &Key| built.visible(&seen, &access, key);
        let view = built.graph.around(start, hops, visible).ok_or_else(missing)?;
        // The node the view is about is the one no step away.
        let focus_at = view.nodes.iter().position(|n| n.hops == 0).unwrap_or_default();
        let title = format!("The flow of data around {kind} {name}");
        let svg = draw::svg(&view, &cluster, focus_at, &title);
        let nodes = view.nodes.iter().map(flow_node).collect();
        let edges = view
            .edges
            .iter()
            .map(|e| FlowEdge {
                from: e.from,
                to: e.to,
                exact: e.evidence.exact(),
                source: e.evidence.words().to_string(),
            })
            .collect();
        Ok(FlowGraph {
            cluster: cluster.clone(),
            focus: focus_at,
            hops,
            nodes,
            edges,
            coverage: built.coverage,
            svg,
        })
    };
    service.audited_read(caller, &cluster, Privilege::Topology, &args, read).await
}

fn given(name: Arg<String>) -> Result<String, ApiError> {
    let name = name.required("name")?;
    if name.is_empty() {
        return Err(ApiError::bad_request("name", "name is empty."));
    }
    Ok(name)
}

fn topic_key(cluster: &str, name: &str) -> Key {
    Key::Topic { cluster: cluster.to_string(), name: name.to_string() }
}

/// The node a caller asked about.
enum Focus {
    /// A topic of the cluster drawn.
    Topic(String),
    Node(Key),
    /// A replication, by name alone: its ends are those of the one the cluster's flow holds.
    Replication(String),
}

impl Focus {
    /// From the kind and name a caller gave.
    fn of(kind: &str, name: &str) -> Result<Focus, ApiError> {
        Ok(Focus::Node(match kind {
            "topic" => return Ok(Focus::Topic(name.to_string())),
            "group" => Key::Group(name.to_string()),
            "connector" => {
                match name.split_once('/') {
                    Some((connect, name)) if !connect.is_empty() && !name.is_empty() => {
                        Key::Connector { connect: connect.to_string(), name: name.to_string() }
                    }
                    _ => return Err(ApiError::bad_request(
                        "name",
                        "A connector is named by its Connect cluster and its name: connect/name.",
                    )),
                }
            }
            "replication" => return Ok(Focus::Replication(name.to_string())),
            "processor" => Key::Processor(name.to_string()),
            other => {
                return Err(ApiError::bad_request(
                    "kind",
                    format!(
                    "kind is topic, group, connector, replication or processor, not \"{other}\"."
                ),
                ))
            }
        }))
    }

    /// Its node in `graph`, the flow of `cluster`.
    fn find(&self, graph: &Graph, cluster: &str) -> Option<usize> {
        match self {
            Focus::Topic(name) => graph.find(&topic_key(cluster, name)),
            Focus::Node(key) => graph.find(key),
            Focus::Replication(name) => {
                graph.position(|k| matches!(k, Key::Replication { name: n, .. } if n == name))
            }
        }
    }
}

fn flow_node(node: &crate::topology::ViewNode) -> FlowNode {
    let (cluster, connect) = match &node.key {
        Key::Topic { cluster, .. } => (Some(cluster.clone()), None),
        Key::Connector { connect, .. } => (None, Some(connect.clone())),
        Key::Group(_) | Key::Replication { .. } | Key::Processor(_) => (None, None),
    };
    FlowNode {
        kind: node.key.kind().to_string(),
        name: node.key.name().to_string(),
        cluster,
        connect,
        detail: node.detail.clone(),
        hops: node.hops,
        hidden_upstream: node.hidden_up,
        hidden_downstream: node.hidden_down,
    }
}

/// The whole flow of one cluster, with what the visibility of its nodes depends on.
struct Built {
    graph: Graph,
    /// What a scope covers a group or a connector through (their topics).
    resources: HashMap<Key, Resource>,
    coverage: Vec<String>,
}

impl Built {
    /// Whether a caller may see `key`, holding `access` on the cluster drawn and `seen` on
    /// every cluster they see.
    fn visible(&self, seen: &[ClusterAccess], access: &ClusterAccess, key: &Key) -> bool {
        match key {
            Key::Topic { cluster, name } => seen
                .iter()
                .find(|a| a.name == *cluster)
                .is_some_and(|a| a.sees(&Resource::topic(name.clone()))),
            // A sink's group Kafka has not listed yet is known by its name alone.
            Key::Group(name) => match self.resources.get(key) {
                Some(resource) => access.sees(resource),
                None => access.sees(&Resource::group(name.clone())),
            },
            Key::Connector { .. } => {
                self.resources.get(key).is_some_and(|r| access.holds(Privilege::Connectors, r))
            }
            Key::Replication { name, .. } => access.holds(
                Privilege::Replications,
                &Resource::Replication { name: name.clone(), connect: None },
            ),
            Key::Processor(_) => {
                self.resources.get(key).is_some_and(|r| access.holds(Privilege::SqlProcessors, r))
            }
        }
    }
}

/// The processors of `cluster` as klens read them last (a few seconds ago at most), none where
/// it has no Flink; why not, when they could not be read.
async fn processors_of(
    service: &Service, cluster: &str,
) -> Result<Vec<crate::processor::Definition>, String> {
    let Some(entry) = service.catalog.get(cluster).filter(|e| e.has_flink()) else {
        return Ok(Vec::new());
    };
    let flink = entry.flink().map_err(|e| e.message)?;
    let all = flink.store.recent().await.map_err(|e| e.message)?;
    Ok(all.into_values().collect())
}

/// The flow of `cluster` from the catalog: groups from their offsets and assignments,
/// connectors from their topics, replications from their selection over the source
/// cluster's topics.
fn build(
    service: &Service, cluster: &str, processors: Result<Vec<crate::processor::Definition>, String>,
) -> Built {
    let mut graph = Graph::default();
    let mut resources = HashMap::new();
    let mut coverage = Vec::new();
    let Some(entry) = service.catalog.get(cluster) else {
        return Built { graph, resources, coverage };
    };
    let state = entry.state();
    let topic = |name: &str| topic_key(cluster, name);
    match &state.groups.data {
        Some(groups) => {
            for g in groups.iter() {
                let key = Key::Group(g.id.clone());
                let members = g.members.len();
                let plural = if members == 1 { "" } else { "s" };
                graph.describe(key.clone(), format!("{}, {members} member{plural}", g.state));
                let read = g.offsets.iter().map(|(t, _, _)| t);
                let assigned = g.members.iter().flat_map(|m| m.assignments.iter().map(|(t, _)| t));
                for t in read.chain(assigned) {
                    graph.flow(topic(t), key.clone(), Evidence::GroupReads);
                }
                resources.insert(key, g.resource());
            }
        }
        None => coverage.push(format!(
            "Consumer groups are not drawn: {}",
            state.groups.error.as_deref().unwrap_or("klens has not read them yet.")
        )),
    }
    for (connect, part) in &state.connect {
        if let Some(error) = &part.error {
            coverage.push(format!("Connect cluster \"{connect}\" could not be read: {error}"));
        }
        for c in part.data.as_deref().map(Vec::as_slice).unwrap_or_default() {
            if c.is_mirror() {
                continue;
            }
            let key = Key::Connector { connect: connect.clone(), name: c.name.clone() };
            graph.describe(key.clone(), format!("{}, {}", c.kind, c.state));
            for t in &c.used_topics() {
                if c.kind == "sink" {
                    graph.flow(topic(t), key.clone(), Evidence::ConnectorTopics);
                } else {
                    graph.flow(key.clone(), topic(t), Evidence::ConnectorTopics);
                }
            }
            if let Some(group) = c.group() {
                graph.flow(key.clone(), Key::Group(group), Evidence::SinkGroup);
            }
            resources.insert(key, c.resource(connect));
        }
    }
    for (spec, replication_state) in super::replications::specs_and_states(service) {
        if spec.source != cluster && spec.target != cluster {
            continue;
        }
        let key = Key::Replication {
            name: spec.name.clone(),
            source: spec.source.clone(),
            target: spec.target.clone(),
        };
        graph.describe(
            key.clone(),
            format!("{} → {}, {replication_state}", spec.source, spec.target),
        );
        let Some(source) = service.catalog.get(&spec.source) else { continue };
        let Some(metadata) = source.state().metadata.clone() else { continue };
        for t in metadata.topics.iter().filter(|t| spec.copies(&t.name)) {
            let from = Key::Topic { cluster: spec.source.clone(), name: t.name.clone() };
            let to = Key::Topic { cluster: spec.target.clone(), name: spec.target_topic(&t.name) };
            graph.flow(from, key.clone(), Evidence::ReplicationCopies);
            graph.flow(key.clone(), to, Evidence::ReplicationCopies);
        }
    }
    match processors {
        Ok(processors) => {
            for d in processors {
                let key = Key::Processor(d.name.clone());
                graph.describe(key.clone(), format!("SQL processor, {}", d.desired));
                for t in &d.inputs {
                    graph.flow(topic(t), key.clone(), Evidence::ProcessorPlan);
                }
                graph.flow(key.clone(), topic(&d.output), Evidence::ProcessorPlan);
                let group = Key::Group(crate::processor::group_of(&d.name));
                graph.flow(key.clone(), group, Evidence::ProcessorGroup);
                resources.insert(key, d.resource());
            }
        }
        Err(error) => coverage.push(format!("SQL processors are not drawn: {error}")),
    }
    coverage.push(
        "Producers are not drawn yet: a topic with no writer here may still have one.".to_string(),
    );
    Built { graph, resources, coverage }
}

serves!(app::api::Flow, |s, c, a| flow(&s, &c, a));
