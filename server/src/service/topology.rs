//! The flow of data around one node (TOPOLOGY), built from the catalog and the processors'
//! definitions as klens read them last (at most a few seconds ago; no other Kafka call on this
//! path). Nodes are exactly what the caller sees elsewhere: topics and groups as the (possibly
//! scoped) catalog shows them, connectors to holders of CONNECTORS on them, replications to
//! holders of REPLICATIONS on them, SQL processors to holders of SQL_PROCESSORS on them. A
//! neighbour outside that is counted and never named ([`crate::topology`]).

use std::collections::{HashMap, HashSet};

use app::access::{ClusterAccess, Resource};
use app::api::{Arg, Flow, FlowEdge, FlowGraph, FlowNode, FLOW_MOST_HOPS};
use app::{ApiError, ErrorCode, Privilege};

use super::identity::refusal;
use super::Service;
use crate::auth::Caller;
use crate::topology::{draw, is_streams_internal, streams_app, Evidence, Graph, Key, View};

/// The flow around the node `call` names, as far as `caller` sees.
pub async fn flow(service: &Service, caller: &Caller, call: Flow) -> Result<FlowGraph, ApiError> {
    let Flow { cluster, kind, name, hops } = call;
    let args = serde_json::json!({ "kind": kind, "name": name, "hops": hops });
    let read = async {
        let access = service.access(caller, &cluster)?;
        let name = given(name)?;
        // A topic the catalog lists (and the caller sees) is a node even when nothing reads
        // or writes it.
        let missing = || {
            ApiError::not_found(format!("There is no {kind} \"{name}\" in cluster \"{cluster}\"."))
        };
        // Refused by name only to a caller without TOPOLOGY anywhere on the cluster; past that,
        // a focus outside the scope answers as one that does not exist.
        if let Some(refused) = refusal(&access, &cluster, Privilege::Topology) {
            return Err(refused);
        }
        let mut listed = None;
        if kind == "topic" {
            // Decided on the topic itself, as a scope grants it.
            let granted =
                match service.decide_topic(caller, &cluster, Privilege::Topology, Some(&name)) {
                    Err(e) if e.code == ErrorCode::MissingPrivilege => return Err(missing()),
                    decided => decided?,
                };
            listed = granted.topic.map(|_| topic_key(&cluster, &name));
        }
        let focus = Focus::of(&kind, &name)?;
        if matches!(focus, Focus::Matching(_)) && name.trim().is_empty() {
            return Err(ApiError::bad_request(
                "name",
                "A whole-cluster flow needs a filter: part of the names to draw.",
            ));
        }
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
        // Every cluster the caller sees, for the topics at either end of a replication.
        let seen = service.policy.visible(&caller.subject());
        let visible = |key: &Key| built.visible(&seen, &access, key);
        let starts = focus.find(&built.graph, &cluster, visible)?;
        let whole = matches!(focus, Focus::Matching(_));
        let view = built.graph.around(&starts, hops, visible, MOST_DRAWN);
        let view = match view {
            Some(view) => view,
            None if whole => {
                return Err(ApiError::not_found(format!(
                    "Nothing you may see in cluster \"{cluster}\" has \"{name}\" in its name."
                )))
            }
            None => return Err(missing()),
        };
        // The node the view is about is the one no step away (none for a filter's view).
        let focus_at = if whole { None } else { view.nodes.iter().position(|n| n.hops == 0) };
        let title = if whole {
            format!("The flow of data of cluster {cluster} through the names holding {name}")
        } else {
            format!("The flow of data around {kind} {name}")
        };
        let mut coverage = built.coverage.clone();
        coverage.extend(built.producers_known(&view, &cluster));
        if view.cut > 0 {
            coverage.push(format!(
                "{} more nodes are within {hops} step{} but not drawn (at most {MOST_DRAWN}): narrow the filter or take fewer steps.",
                view.cut,
                if hops == 1 { "" } else { "s" }
            ));
        }
        let removable = built.removable(service, &cluster, &access, &view);
        let svg = draw::svg(&view, &cluster, focus_at, &removable, &title);
        let nodes = view
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| flow_node(n, removable.contains(&i)))
            .collect();
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
            coverage,
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
    /// A producer, by its transactional id or producer id.
    Producer(String),
    /// The whole cluster's flow, filtered: every node whose name holds this (lower case).
    Matching(String),
}

/// The kinds a flow may be about, in words.
const KINDS: &str = "topic, group, connector, replication, processor, producer or cluster";

/// The most nodes a filter may match in a whole-cluster flow, and the most it draws.
pub const MOST_MATCHED: usize = 200;
pub const MOST_DRAWN: usize = 500;

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
            "producer" => return Ok(Focus::Producer(name.to_string())),
            "cluster" => return Ok(Focus::Matching(name.to_lowercase())),
            other => {
                return Err(ApiError::bad_request(
                    "kind",
                    format!("kind is {KINDS}, not \"{other}\"."),
                ))
            }
        }))
    }

    /// Its nodes in `graph`, the flow of `cluster`, among those `visible` lets the caller see.
    fn find(
        &self, graph: &Graph, cluster: &str, visible: impl Fn(&Key) -> bool,
    ) -> Result<Vec<usize>, ApiError> {
        let one = match self {
            Focus::Topic(name) => graph.find(&topic_key(cluster, name)),
            Focus::Node(key) => graph.find(key),
            Focus::Replication(name) => {
                graph.position(|k| matches!(k, Key::Replication { name: n, .. } if n == name))
            }
            Focus::Producer(name) => {
                graph.position(|k| matches!(k, Key::Producer { name: n, .. } if n == name))
            }
            Focus::Matching(text) => {
                let matched = graph
                    .matching(|k| k.name().to_lowercase().contains(text.as_str()) && visible(k));
                if matched.len() > MOST_MATCHED {
                    return Err(ApiError::bad_request(
                        "name",
                        format!(
                            "{} nodes match \"{text}\"; a filter may match at most {MOST_MATCHED}: narrow it.",
                            matched.len()
                        ),
                    ));
                }
                return Ok(matched);
            }
        };
        Ok(one.into_iter().filter(|&at| visible(graph.key(at))).collect())
    }
}

fn flow_node(node: &crate::topology::ViewNode, removable: bool) -> FlowNode {
    let (cluster, connect) = match &node.key {
        Key::Topic { cluster, .. } => (Some(cluster.clone()), None),
        Key::Connector { connect, .. } => (None, Some(connect.clone())),
        Key::Group(_) | Key::Replication { .. } | Key::Processor(_) | Key::Producer { .. } => {
            (None, None)
        }
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
        removable,
    }
}

/// The whole flow of one cluster, with what the visibility of its nodes depends on.
struct Built {
    graph: Graph,
    /// What a scope covers a group or a connector through (their topics).
    resources: HashMap<Key, Resource>,
    coverage: Vec<String>,
    /// Whether producers were read at all, and the topics some known producer writes.
    producers_read: bool,
    produced: HashSet<String>,
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
            // Drawn as the writer of a topic the caller sees; it names no resource of its own.
            Key::Producer { .. } => self.graph.downstream(key).any(|k| match k {
                Key::Topic { name, .. } => access.sees(&Resource::topic(name.clone())),
                _ => false,
            }),
        }
    }

    /// Whether a processor or a sink connector commits under the group `key`.
    fn engine_owns(&self, key: &Key) -> bool {
        self.graph
            .upstream_evidence(key)
            .any(|e| matches!(e, Evidence::ProcessorGroup | Evidence::SinkGroup))
    }

    /// How many of the view's topics of `cluster` have a known producer, in words: counted
    /// over what the caller sees, so it says nothing of other topics.
    fn producers_known(&self, view: &View, cluster: &str) -> Option<String> {
        if !self.producers_read {
            return None;
        }
        let topics: Vec<&str> = view
            .nodes
            .iter()
            .filter_map(|n| match &n.key {
                Key::Topic { cluster: c, name } if c == cluster => Some(name.as_str()),
                _ => None,
            })
            .collect();
        if topics.is_empty() {
            return None;
        }
        let known = topics.iter().filter(|t| self.produced.contains(**t)).count();
        let plural = if topics.len() == 1 { "" } else { "s" };
        Some(format!(
            "Producers known for {known} of {} topic{plural} drawn: Kafka keeps state only for idempotent and transactional producers, for a while after their last write.",
            topics.len()
        ))
    }

    /// The view's groups a caller may remove from their node: no members, nothing left to
    /// read, and DELETE_GROUPS on them where the cluster is writable (the API decides again).
    fn removable(
        &self, service: &Service, cluster: &str, access: &ClusterAccess, view: &View,
    ) -> HashSet<usize> {
        let Some(entry) = service.catalog.get(cluster) else { return HashSet::new() };
        if !access.writable {
            return HashSet::new();
        }
        let state = entry.state();
        let Some(groups) = &state.groups.data else { return HashSet::new() };
        view.nodes
            .iter()
            .enumerate()
            .filter_map(|(i, node)| {
                let Key::Group(id) = &node.key else { return None };
                // A group a processor or a sink commits under is its engine's: removed with it.
                if self.engine_owns(&node.key) {
                    return None;
                }
                let group = groups.iter().find(|g| &g.id == id)?;
                let dead = group.members.is_empty()
                    && crate::catalog::views::group_lag_now(&state, group) == Some(0);
                (dead && access.can_on(Privilege::DeleteGroups, &group.resource())).then_some(i)
            })
            .collect()
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
        return Built {
            graph,
            resources,
            coverage,
            producers_read: false,
            produced: HashSet::new(),
        };
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
                // A sink reads its topics and writes its dead letters.
                if c.kind == "sink" && c.dead_letter() != Some(t.as_str()) {
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
    let (producers_read, produced) = writers(&mut graph, &state, cluster, &mut coverage);
    Built { graph, resources, coverage, producers_read, produced }
}

/// The writers of `cluster`'s topics: Kafka Streams applications (their groups) by their
/// internal topics' and transactional ids' names, and the producers Kafka keeps state for.
/// Whether producers were read, and the topics with a known writer.
fn writers(
    graph: &mut Graph, state: &crate::catalog::ClusterState, cluster: &str,
    coverage: &mut Vec<String>,
) -> (bool, HashSet<String>) {
    let topic = |name: &str| topic_key(cluster, name);
    let apps: HashSet<&str> =
        state.groups.data.iter().flat_map(|g| g.iter().map(|g| g.id.as_str())).collect();
    let mut produced = HashSet::new();
    if let Some(metadata) = &state.metadata {
        for t in metadata.topics.iter().filter(|t| is_streams_internal(&t.name)) {
            if let Some(app) = streams_app(&t.name, &apps) {
                graph.flow(Key::Group(app.to_string()), topic(&t.name), Evidence::StreamsInternal);
                produced.insert(t.name.clone());
            }
        }
    }
    let Some(scan) = &state.producers.data else {
        coverage.push(format!(
            "Producers are not drawn: {}",
            state.producers.error.as_deref().unwrap_or("klens has not read them yet.")
        ));
        return (false, produced);
    };
    let transactional: HashMap<i64, &crate::kafka::wire::producers::Transaction> =
        scan.transactions.iter().map(|t| (t.producer_id, t)).collect();
    // A transactional id named after a Streams application is that application writing.
    let writer = |producer_id: i64| match transactional.get(&producer_id) {
        Some(t) => match streams_app(&t.id, &apps) {
            Some(app) => (Key::Group(app.to_string()), Evidence::StreamsTransactions),
            None => {
                (Key::Producer { name: t.id.clone(), transactional: true }, Evidence::ProducerState)
            }
        },
        None => (
            Key::Producer { name: producer_id.to_string(), transactional: false },
            Evidence::ProducerState,
        ),
    };
    // A transaction commits its consumer's offsets into Kafka's own topics: not data it writes.
    let internal: HashSet<&str> = state
        .metadata
        .iter()
        .flat_map(|m| m.topics.iter().filter(|t| t.internal).map(|t| t.name.as_str()))
        .collect();
    let now = crate::auth::oidc::now_ms();
    for w in scan.writes.iter().filter(|w| !internal.contains(w.topic.as_str())) {
        let (key, evidence) = writer(w.producer_id);
        if let Key::Producer { transactional, .. } = &key {
            let kind = if *transactional { "transactional" } else { "idempotent" };
            let detail = match w.last_write_ms {
                ms if ms > 0 => format!("{kind}, wrote {}", app::components::table::ago(now - ms)),
                _ => kind.to_string(),
            };
            graph.describe(key.clone(), detail);
        }
        graph.flow(key, topic(&w.topic), evidence);
        produced.insert(w.topic.clone());
    }
    for t in &scan.transactions {
        let (key, evidence) = writer(t.producer_id);
        let evidence =
            if evidence == Evidence::ProducerState { Evidence::Transaction } else { evidence };
        if matches!(key, Key::Producer { .. }) {
            graph.describe(key.clone(), format!("transactional, {}", t.state));
        }
        for name in t.topics.iter().filter(|t| !internal.contains(t.as_str())) {
            graph.flow(key.clone(), topic(name), evidence);
            produced.insert(name.clone());
        }
    }
    if scan.crowded > 0 {
        coverage.push(format!(
            "{} topics have more than {} producers with state: the latest are drawn.",
            scan.crowded,
            crate::kafka::wire::producers::WRITERS_PER_TOPIC
        ));
    }
    if !scan.errors.is_empty() {
        coverage.push(format!("Some producers could not be read: {}", scan.errors.join("; ")));
    }
    (true, produced)
}

serves!(app::api::Flow, |s, c, a| flow(&s, &c, a));
