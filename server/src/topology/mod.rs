//! The data flow of a cluster as a graph: topics, the groups that read them, the connectors
//! that write or read them, the replications that copy them between clusters, the SQL
//! processors, and the producers Kafka keeps state for. Pure: the
//! service builds a [`Graph`] from the catalog, then [`Graph::around`] keeps one node's
//! neighbourhood as far as the caller may see it, and [`draw`] lays it out as SVG.
//!
//! What must never happen here: a node the caller may not see named anywhere in a view. A
//! hidden neighbour is only counted, and the walk never goes through one.

pub mod draw;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// A node: what it is and the names that tell it apart.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// A topic of `cluster` (the one drawn, or the other end of a replication).
    Topic { cluster: String, name: String },
    /// A consumer group of the cluster drawn.
    Group(String),
    /// A connector of the Connect cluster `connect`.
    Connector { connect: String, name: String },
    /// A replication, by name, with the clusters it copies from and into.
    Replication { name: String, source: String, target: String },
    /// A SQL processor of the cluster drawn.
    Processor(String),
    /// A producer of the cluster drawn: its transactional id, or the producer id Kafka gave an
    /// idempotent one (all that names it).
    Producer { name: String, transactional: bool },
}

impl Key {
    pub fn kind(&self) -> &'static str {
        match self {
            Key::Topic { .. } => "topic",
            Key::Group(_) => "group",
            Key::Connector { .. } => "connector",
            Key::Replication { .. } => "replication",
            Key::Processor(_) => "processor",
            Key::Producer { .. } => "producer",
        }
    }

    /// The name a person reads on the node.
    pub fn name(&self) -> &str {
        match self {
            Key::Topic { name, .. }
            | Key::Group(name)
            | Key::Connector { name, .. }
            | Key::Replication { name, .. }
            | Key::Processor(name)
            | Key::Producer { name, .. } => name,
        }
    }

    /// Its order left to right when nothing else decides: writers before topics before
    /// readers.
    fn rank(&self) -> u8 {
        match self {
            Key::Producer { .. } => 0,
            Key::Topic { .. } => 1,
            Key::Replication { .. } | Key::Connector { .. } | Key::Processor(_) => 2,
            Key::Group(_) => 3,
        }
    }
}

/// Where an edge comes from, and whether Kafka or an engine said it (exact) or klens inferred
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// A group's committed offsets or its members' assignments.
    GroupReads,
    /// The topics Connect says a connector used, or those its config names.
    ConnectorTopics,
    /// The group a sink connector commits under.
    SinkGroup,
    /// A replication's selection and naming policy.
    ReplicationCopies,
    /// The tables Flink's plan of a processor reads and writes.
    ProcessorPlan,
    /// The group a processor's job reads under.
    ProcessorGroup,
    /// A producer Kafka keeps state for on the topic's partitions (DescribeProducers).
    ProducerState,
    /// The topics of a transaction in progress (DescribeTransactions).
    Transaction,
    /// A Kafka Streams application's transactional ids, which start with its id.
    StreamsTransactions,
    /// A Kafka Streams application's internal topics, named `<application id>-…-changelog`
    /// or `-repartition`.
    StreamsInternal,
}

impl Evidence {
    pub fn exact(self) -> bool {
        match self {
            Evidence::GroupReads
            | Evidence::ConnectorTopics
            | Evidence::SinkGroup
            | Evidence::ReplicationCopies
            | Evidence::ProcessorPlan
            | Evidence::ProcessorGroup => true,
            // Kafka says a producer wrote there, not which application it is, nor that it
            // still writes; a Streams application is known by names alone.
            Evidence::ProducerState
            | Evidence::Transaction
            | Evidence::StreamsTransactions
            | Evidence::StreamsInternal => false,
        }
    }

    /// In words, for the edge's title and the JSON.
    pub fn words(self) -> &'static str {
        match self {
            Evidence::GroupReads => "committed offsets and assignments",
            Evidence::ConnectorTopics => "the connector's topics",
            Evidence::SinkGroup => "the sink's consumer group",
            Evidence::ReplicationCopies => "the replication's selection and naming",
            Evidence::ProcessorPlan => "the processor's plan in Flink",
            Evidence::ProcessorGroup => "the processor's consumer group",
            Evidence::ProducerState => "producer state on the topic's partitions (inferred)",
            Evidence::Transaction => "the transaction in progress (inferred)",
            Evidence::StreamsTransactions => {
                "transactional ids named after the Streams application (inferred)"
            }
            Evidence::StreamsInternal => {
                "internal topic named after the Streams application (inferred)"
            }
        }
    }
}

/// The whole flow of what the catalog knows, each node once.
#[derive(Default)]
pub struct Graph {
    keys: Vec<Key>,
    /// Per node, its state in a few words.
    details: Vec<String>,
    index: HashMap<Key, usize>,
    /// Per node, the nodes its data flows to, and why.
    out: Vec<Vec<(usize, Evidence)>>,
    /// Per node, the nodes its data comes from.
    into: Vec<Vec<(usize, Evidence)>>,
}

impl Graph {
    /// The node of `key`, added when new.
    pub fn node(&mut self, key: Key) -> usize {
        if let Some(&at) = self.index.get(&key) {
            return at;
        }
        let at = self.keys.len();
        self.index.insert(key.clone(), at);
        self.keys.push(key);
        self.details.push(String::new());
        self.out.push(Vec::new());
        self.into.push(Vec::new());
        at
    }

    /// Sets what a node says of itself.
    pub fn describe(&mut self, key: Key, detail: impl Into<String>) {
        let at = self.node(key);
        self.details[at] = detail.into();
    }

    /// Data flows from `from` to `to`, as `evidence` says (once per pair).
    pub fn flow(&mut self, from: Key, to: Key, evidence: Evidence) {
        let (a, b) = (self.node(from), self.node(to));
        if a == b || self.out[a].iter().any(|(n, _)| *n == b) {
            return;
        }
        self.out[a].push((b, evidence));
        self.into[b].push((a, evidence));
    }

    /// The nodes `key`'s data flows to.
    pub fn downstream(&self, key: &Key) -> impl Iterator<Item = &Key> {
        let out = self.find(key).map(|at| self.out[at].as_slice()).unwrap_or_default();
        out.iter().map(|(to, _)| &self.keys[*to])
    }

    /// Why data flows into `key`, one evidence per node it comes from.
    pub fn upstream_evidence(&self, key: &Key) -> impl Iterator<Item = Evidence> + '_ {
        let into = self.find(key).map(|at| self.into[at].as_slice()).unwrap_or_default();
        into.iter().map(|(_, evidence)| *evidence)
    }

    pub fn find(&self, key: &Key) -> Option<usize> {
        self.index.get(key).copied()
    }

    /// The first node whose key `pick` takes.
    pub fn position(&self, pick: impl Fn(&Key) -> bool) -> Option<usize> {
        self.keys.iter().position(pick)
    }

    /// The node at `at`.
    pub fn key(&self, at: usize) -> &Key {
        &self.keys[at]
    }

    /// Every node `pick` takes, in the order they were added.
    pub fn matching(&self, pick: impl Fn(&Key) -> bool) -> Vec<usize> {
        (0..self.keys.len()).filter(|&at| pick(&self.keys[at])).collect()
    }

    /// The neighbourhood of `starts`: the nodes up to `hops` steps from any of them, each step
    /// along an edge either way (so a reader's other inputs too), that `visible` lets the caller see, reached only through such nodes (the
    /// `most` nearest of them), with the edges between them and, per node kept, how many of
    /// its neighbours are hidden. `None` when every start is hidden.
    pub fn around(
        &self, starts: &[usize], hops: u8, visible: impl Fn(&Key) -> bool, most: usize,
    ) -> Option<View> {
        // Asked only of the nodes the walk meets, each once.
        let mut known: Vec<Option<bool>> = vec![None; self.keys.len()];
        let mut seen = |at: usize| *known[at].get_or_insert_with(|| visible(&self.keys[at]));
        let starts: Vec<usize> =
            starts.iter().copied().filter(|&at| at < self.keys.len() && seen(at)).collect();
        if starts.is_empty() {
            return None;
        }
        // One walk along the edges either way: from a topic to its readers and on to what
        // else they read, as well as to what they write.
        let mut depth: BTreeMap<usize, u8> = starts.iter().map(|&at| (at, 0)).collect();
        let mut queue: VecDeque<(usize, u8)> = starts.iter().map(|&at| (at, 0)).collect();
        while let Some((at, d)) = queue.pop_front() {
            if d >= hops {
                continue;
            }
            for &(next, _) in self.out[at].iter().chain(&self.into[at]) {
                if !depth.contains_key(&next) && seen(next) {
                    depth.insert(next, d + 1);
                    queue.push_back((next, d + 1));
                }
            }
        }
        let mut cut = 0;
        if depth.len() > most.max(1) {
            let mut nearest: Vec<(u8, usize)> = depth.iter().map(|(&at, &d)| (d, at)).collect();
            nearest.sort_unstable();
            cut = nearest.len() - most.max(1);
            depth = nearest.into_iter().take(most.max(1)).map(|(d, at)| (at, d)).collect();
        }
        let mut hidden =
            |links: &[(usize, Evidence)]| links.iter().filter(|(n, _)| !seen(*n)).count();
        let nodes: Vec<ViewNode> = depth
            .iter()
            .map(|(&at, &hops)| ViewNode {
                key: self.keys[at].clone(),
                detail: self.details[at].clone(),
                hops,
                hidden_up: hidden(&self.into[at]),
                hidden_down: hidden(&self.out[at]),
            })
            .collect();
        let place: HashMap<usize, usize> = depth.keys().enumerate().map(|(i, &n)| (n, i)).collect();
        let mut edges = Vec::new();
        for (&at, &i) in &place {
            for &(next, evidence) in &self.out[at] {
                if let Some(&j) = place.get(&next) {
                    edges.push(ViewEdge { from: i, to: j, evidence });
                }
            }
        }
        edges.sort_by_key(|e| (e.from, e.to));
        Some(View { nodes, edges, cut })
    }
}

/// The Kafka Streams application `name` (a topic or a transactional id) is named after: the
/// longest of `apps` it starts with, followed by `-`. Streams names its internal topics
/// `<application id>-<store or operator>-changelog` / `-repartition` and, exactly once, its
/// transactional ids `<application id>-<process>-<thread>`; the application's id is its
/// consumer group's.
pub fn streams_app<'n>(name: &'n str, apps: &HashSet<&str>) -> Option<&'n str> {
    name.char_indices()
        .rev()
        .filter(|(_, c)| *c == '-')
        .map(|(at, _)| &name[..at])
        .find(|prefix| apps.contains(prefix))
}

/// Whether `topic` is named as a Kafka Streams internal topic.
pub fn is_streams_internal(topic: &str) -> bool {
    topic.ends_with("-changelog") || topic.ends_with("-repartition")
}

/// One node of a view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewNode {
    pub key: Key,
    pub detail: String,
    /// Steps from the node the view is about.
    pub hops: u8,
    /// Neighbours the caller may not see, upstream and downstream: counted, never named.
    pub hidden_up: usize,
    pub hidden_down: usize,
}

/// One edge of a view, between two of its nodes (by their place in [`View::nodes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewEdge {
    pub from: usize,
    pub to: usize,
    pub evidence: Evidence,
}

/// What one caller sees around one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub nodes: Vec<ViewNode>,
    pub edges: Vec<ViewEdge>,
    /// Nodes within reach that were not kept, past the most a view draws.
    pub cut: usize,
}

#[cfg(test)]
mod tests;
