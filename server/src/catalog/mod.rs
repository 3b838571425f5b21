//! The catalog projection: per cluster, the last good view of its metadata, watermarks,
//! consumer groups, log dirs and schema subjects. Pages and `/api` read it and never wait on
//! Kafka; a failed refresh keeps the last good data of that part and records the error and
//! when the data was read. Each part's refresh lives in a file of its own under `refresh/`, all
//! started by one runner; a write made elsewhere hands its read-back to [`ClusterEntry::apply_topic`].
//!
//! What must never happen here: record reads or changes to a cluster. The projection only
//! projects.

mod rates;
mod refresh;
pub(crate) mod views;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use app::access::{ClusterAccess, Resource};
use app::api::{
    BrokerList, ClusterDetail, ClusterSummary, GroupDetail, GroupList, Health, HealthStatus,
    SearchHit, SubjectList, TopicDetail, TopicList, Window,
};
use app::{ApiError, ErrorCode};

use crate::auth::oidc::now_ms;
use crate::auth::Grant;
use crate::config::Config;
use crate::kafka::wire::{ClusterInfo, Group, LogDir};
use crate::kafka::{Link, MetadataSnapshot, Topic, Watermarks};
use crate::registry::{Registry, Subjects};

/// One cluster's catalog as one caller may see it, from one copy of the state.
pub struct View<'a> {
    entry: &'a ClusterEntry,
    state: ClusterState,
}

impl View<'_> {
    pub fn summary(&self) -> ClusterSummary {
        views::summary(&self.entry.name, self.entry.writable, &self.state)
    }

    pub fn detail(&self) -> ClusterDetail {
        views::detail(&self.entry.name, self.entry.writable, &self.state)
    }

    pub fn topics(&self, window: &Window) -> TopicList {
        views::topics(&self.state, window)
    }

    pub fn topic(&self, name: &str) -> Option<TopicDetail> {
        views::topic(&self.state, name)
    }

    pub fn groups(&self, window: &Window) -> GroupList {
        views::groups(&self.state, window)
    }

    /// One group; looking at it makes its offsets refresh more often for a while.
    pub fn group(&self, id: &str) -> Option<GroupDetail> {
        let found = views::group(&self.state, id);
        if found.is_some() {
            self.entry.watch_group(id);
        }
        found
    }

    pub fn brokers(&self) -> BrokerList {
        views::brokers(&self.state)
    }

    pub fn subjects(&self) -> SubjectList {
        views::subjects(&self.state, self.entry.has_registry())
    }

    /// Matches of `query` in this cluster's catalog, with their scores (lower is better).
    pub fn search(&self, query: &str) -> Vec<(u32, SearchHit)> {
        views::search(&self.entry.name, &self.state, query)
    }
}

/// One part of the projection: the last good data, when it was read, and the error of the last
/// attempt if that failed.
#[derive(Debug)]
pub struct Part<T> {
    pub data: Option<Arc<T>>,
    pub refreshed_at: Option<i64>,
    pub error: Option<String>,
}

impl<T> Default for Part<T> {
    fn default() -> Self {
        Part { data: None, refreshed_at: None, error: None }
    }
}

impl<T> Clone for Part<T> {
    fn clone(&self) -> Self {
        Part { data: self.data.clone(), refreshed_at: self.refreshed_at, error: self.error.clone() }
    }
}

impl<T> Part<T> {
    fn record(&mut self, outcome: Result<T, String>) {
        match outcome {
            Ok(data) => {
                self.data = Some(Arc::new(data));
                self.refreshed_at = Some(now_ms());
                self.error = None;
            }
            Err(error) => self.error = Some(error),
        }
    }
}

/// Every broker's log dirs, with each replica's size indexed for the topic views.
#[derive(Debug, Default)]
pub struct LogDirs {
    /// Broker id → its dirs, or why they could not be read.
    pub brokers: HashMap<i32, Result<Vec<LogDir>, String>>,
    /// (topic, partition) → broker id → bytes of that replica.
    pub replicas: HashMap<(String, i32), HashMap<i32, u64>>,
}

impl LogDirs {
    fn new(answers: Vec<(i32, Result<Vec<LogDir>, String>)>) -> Result<LogDirs, String> {
        if let Some((_, Err(error))) = answers.iter().find(|(_, a)| a.is_err()) {
            if answers.iter().all(|(_, a)| a.is_err()) {
                return Err(error.clone());
            }
        }
        let mut replicas: HashMap<(String, i32), HashMap<i32, u64>> = HashMap::new();
        for (broker, dirs) in &answers {
            for dir in dirs.iter().flatten() {
                for r in &dir.replicas {
                    replicas
                        .entry((r.topic.clone(), r.partition))
                        .or_default()
                        .insert(*broker, r.size_bytes);
                }
            }
        }
        Ok(LogDirs { brokers: answers.into_iter().collect(), replicas })
    }
}

/// What klens knows about one cluster right now. Cloning is cheap: the data is shared.
#[derive(Clone, Debug, Default)]
pub struct ClusterState {
    /// The last metadata read successfully, if any.
    pub metadata: Option<Arc<MetadataSnapshot>>,
    /// The watermarks read with that metadata; partitions Kafka gave none for are absent.
    pub watermarks: Arc<Watermarks>,
    /// Records per second per topic over about the last minute, where known.
    pub produce_rates: Arc<HashMap<String, f64>>,
    /// Each topic's recent produce rates, oldest first, for its sparkline.
    pub rate_trend: Arc<HashMap<String, Vec<f32>>>,
    /// When `metadata` was read, ms since the epoch.
    pub refreshed_at: Option<i64>,
    /// The error of the last metadata refresh, if it failed.
    pub last_error: Option<String>,
    /// Whether a refresh has been tried at all (`/ready` waits for this).
    pub attempted: bool,
    pub groups: Part<Vec<Group>>,
    pub log_dirs: Part<LogDirs>,
    /// The producers Kafka keeps state for, per topic, and the transactional ids.
    pub producers: Part<crate::kafka::wire::producers::ProducerScan>,
    pub cluster_info: Part<ClusterInfo>,
    pub subjects: Part<Subjects>,
    /// Per Connect cluster of this cluster (by name), its connectors.
    pub connect: BTreeMap<String, Part<Vec<crate::connect::Connector>>>,
}

impl ClusterState {
    /// The state as `seen` may see it: all of it, unless the cluster's catalog is scoped for
    /// them; then only the topics, groups and subjects their scopes cover, so every view built
    /// from it (lists, lookups, counts, search) shows nothing else.
    pub fn seen_by(&self, seen: &ClusterAccess) -> ClusterState {
        let mut state = self.clone();
        if !seen.scoped_catalog {
            return state;
        }
        if let Some(metadata) = &self.metadata {
            state.metadata = Some(Arc::new(MetadataSnapshot {
                brokers: metadata.brokers.clone(),
                topics: metadata
                    .topics
                    .iter()
                    .filter(|t| {
                        seen.sees(&Resource::Topic { name: t.name.clone(), internal: t.internal })
                    })
                    .cloned()
                    .collect(),
            }));
        }
        if let Some(groups) = &self.groups.data {
            // A group shown (one a `groups` pattern names may also read hidden topics) keeps
            // its offsets and assignments on the topics seen only: a hidden topic is named
            // nowhere.
            let internals: std::collections::HashSet<&str> = self
                .metadata
                .iter()
                .flat_map(|m| m.topics.iter().filter(|t| t.internal).map(|t| t.name.as_str()))
                .collect();
            let internal = |name: &str| internals.contains(name);
            let sees_topic = |name: &str| {
                seen.sees(&Resource::Topic { name: name.to_string(), internal: internal(name) })
            };
            let shown = groups
                .iter()
                .filter(|g| seen.sees(&g.resource()))
                .map(|g| {
                    let mut g = g.clone();
                    g.offsets.retain(|(topic, _, _)| sees_topic(topic));
                    for member in &mut g.members {
                        member.assignments.retain(|(topic, _)| sees_topic(topic));
                    }
                    g
                })
                .collect();
            state.groups.data = Some(Arc::new(shown));
        }
        if let Some(subjects) = &self.subjects.data {
            let shown = Subjects {
                global_compatibility: subjects.global_compatibility.clone(),
                subjects: subjects
                    .subjects
                    .iter()
                    .filter(|s| seen.sees(&Resource::Subject(s.name.clone())))
                    .cloned()
                    .collect(),
            };
            state.subjects.data = Some(Arc::new(shown));
        }
        state
    }

    /// Health as of the last refresh: a failed refresh makes the cluster unreachable even
    /// though the last good figures are still shown.
    pub fn health(&self) -> Health {
        if let Some(error) = &self.last_error {
            return Health { status: HealthStatus::Unreachable, error: Some(error.clone()) };
        }
        let Some(metadata) = &self.metadata else {
            return Health {
                status: HealthStatus::Unreachable,
                error: Some("not refreshed yet".to_string()),
            };
        };
        let (under, offline) = (metadata.under_replicated(), metadata.offline());
        if under == 0 && offline == 0 {
            return Health { status: HealthStatus::Ok, error: None };
        }
        Health {
            status: HealthStatus::Degraded,
            error: Some(format!("{under} under-replicated and {offline} offline partitions")),
        }
    }
}

/// The projection of one configured cluster.
pub struct ClusterEntry {
    pub name: String,
    pub writable: bool,
    /// How the refresh loops reach Kafka.
    link: Arc<Link>,
    registry: Option<Result<Arc<Registry>, String>>,
    /// The Connect clusters of this cluster, in config order, or why one could not be set up.
    connects: Vec<(String, Result<Arc<crate::connect::Connect>, String>)>,
    /// How MirrorMaker's clients reach this cluster (`mirror.properties`), when it may take
    /// part in replications.
    pub mirror: Option<std::collections::BTreeMap<String, String>>,
    /// Where this cluster's SQL processors run (`clusters[].flink`), or why klens could not
    /// set up its clients.
    flink: Option<Result<Arc<crate::flink::Flink>, String>>,
    /// The leases that let one change at a time through across replicas (processors,
    /// replications into this cluster, connectors).
    pub leases: crate::lease::Leases,
    /// The records of the copy jobs writing to this cluster, which every replica reads.
    pub copy_jobs: crate::jobs::JobStore,
    state: RwLock<ClusterState>,
    rate_history: Mutex<rates::RateHistory>,
    /// Groups someone has open, and when they last asked.
    watched: Mutex<HashMap<String, Instant>>,
    /// Counts the writes read back into the projection: a full refresh that began before one
    /// must not put older metadata back over it.
    writes: AtomicU64,
}

impl ClusterEntry {
    pub fn state(&self) -> ClusterState {
        match self.state.read() {
            Ok(state) => state.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    fn update(&self, f: impl FnOnce(&mut ClusterState)) {
        let mut guard = match self.state.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut guard);
    }

    /// The catalog as `seen` may see it (all of it, unless the cluster's catalog is scoped
    /// for them). Every answer to a caller goes through this.
    pub fn seen_by(&self, seen: &ClusterAccess) -> View<'_> {
        View { entry: self, state: self.state().seen_by(seen) }
    }

    /// The whole catalog, whoever asks: for klens's own checks.
    pub fn whole(&self) -> View<'_> {
        View { entry: self, state: self.state() }
    }

    pub fn summary(&self) -> ClusterSummary {
        self.whole().summary()
    }

    pub fn detail(&self) -> ClusterDetail {
        self.whole().detail()
    }

    pub fn topics(&self, window: &Window) -> TopicList {
        self.whole().topics(window)
    }

    pub fn topic(&self, name: &str) -> Option<TopicDetail> {
        self.whole().topic(name)
    }

    pub fn groups(&self, window: &Window) -> GroupList {
        self.whole().groups(window)
    }

    pub fn group(&self, id: &str) -> Option<GroupDetail> {
        self.whole().group(id)
    }

    pub fn brokers(&self) -> BrokerList {
        self.whole().brokers()
    }

    pub fn subjects(&self) -> SubjectList {
        self.whole().subjects()
    }

    pub fn search(&self, query: &str) -> Vec<(u32, SearchHit)> {
        self.whole().search(query)
    }

    /// Whether a registry is configured for this cluster.
    pub fn has_registry(&self) -> bool {
        self.registry.is_some()
    }

    /// Marks a group as open on someone's screen, so its offsets are read more often.
    fn watch_group(&self, group: &str) {
        if let Ok(mut watched) = self.watched.lock() {
            watched.insert(group.to_string(), Instant::now());
        }
    }

    /// The link to the cluster, which the service hands to record reads and writes.
    pub fn link(&self) -> Arc<Link> {
        Arc::clone(&self.link)
    }

    /// The brokers of the last good metadata (none before the first), which the protocol
    /// client asks before the bootstrap servers.
    pub fn known_brokers_now(&self) -> Vec<crate::kafka::Broker> {
        self.state().metadata.map(|m| m.brokers.clone()).unwrap_or_default()
    }

    /// This cluster's Flink: `None` when it has none configured, else it or why klens could not
    /// set up its clients (a `NOT_CONFIGURED` or `CLIENT` answer).
    pub fn flink(&self) -> Result<Arc<crate::flink::Flink>, ApiError> {
        match &self.flink {
            None => Err(ApiError::new(
                ErrorCode::NotConfigured,
                format!(
                    "Cluster \"{}\" has no Flink for SQL processors (clusters[].flink in the \
                     config).",
                    self.name
                ),
            )),
            Some(Err(reason)) => Err(ApiError::new(
                ErrorCode::Client,
                format!("klens could not set up Flink for cluster \"{}\": {reason}", self.name),
            )),
            Some(Ok(flink)) => Ok(Arc::clone(flink)),
        }
    }

    /// Whether SQL processors may run on this cluster.
    pub fn has_flink(&self) -> bool {
        self.flink.is_some()
    }

    /// The names of this cluster's Connect clusters, in config order.
    pub fn connect_names(&self) -> Vec<String> {
        self.connects.iter().map(|(n, _)| n.clone()).collect()
    }

    /// The Connect cluster `name` of this cluster, if configured and set up.
    pub fn connect(&self, name: &str) -> Option<Arc<crate::connect::Connect>> {
        self.connects.iter().find(|(n, _)| n == name).and_then(|(_, c)| c.clone().ok())
    }

    /// Reads the connectors of the Connect cluster `name` once.
    pub async fn refresh_connect(&self, name: &str) {
        let Some((_, client)) = self.connects.iter().find(|(n, _)| n == name) else {
            return;
        };
        let outcome = match client {
            Ok(connect) => connect.connectors().await.map_err(String::from),
            Err(error) => Err(error.clone()),
        };
        if let Err(error) = &outcome {
            tracing::warn!(cluster = %self.name, connect = %name, %error, "connectors not refreshed");
        }
        self.update(|s| s.connect.entry(name.to_string()).or_default().record(outcome));
    }

    /// Puts a connector read afresh after a change into the projection (`None`: it is gone).
    pub fn apply_connector(
        &self, connect: &str, name: &str, fresh: Option<crate::connect::Connector>,
    ) {
        self.update(|s| {
            let Some(part) = s.connect.get_mut(connect) else { return };
            let Some(data) = &part.data else { return };
            let mut data: Vec<_> = data.as_ref().clone();
            data.retain(|c| c.name != name);
            if let Some(fresh) = fresh {
                let at = data.partition_point(|c| c.name < fresh.name);
                data.insert(at, fresh);
            }
            part.data = Some(Arc::new(data));
        });
    }

    /// The cluster's registry client, if one is configured and could be set up.
    pub fn registry(&self) -> Option<Arc<Registry>> {
        self.registry.clone().and_then(Result::ok)
    }

    /// A topic as the last good metadata describes it; `None` for a topic Kafka did not
    /// list, and `not_read_yet` before the first good read (klens cannot tell then).
    pub fn topic_metadata(&self, name: &str) -> Result<Option<Topic>, ApiError> {
        let metadata = self.state().metadata.ok_or_else(|| not_read_yet(&self.name, "topics"))?;
        Ok(metadata.topics.iter().find(|t| t.name == name).cloned())
    }

    /// A group as the decision sees it: its name and the topics it has offsets on or is
    /// assigned, as the projection last read them (none for a group it does not list).
    pub fn group_resource(&self, id: &str) -> app::access::Resource {
        self.state()
            .groups
            .data
            .as_ref()
            .and_then(|groups| groups.iter().find(|g| g.id == id).map(|g| g.resource()))
            .unwrap_or_else(|| Resource::group(id))
    }

    /// Puts a topic read back after a write into the projection (`None`: it is gone), so the
    /// next page shows the change without waiting for a full refresh.
    pub fn apply_topic(&self, name: &str, topic: Option<Topic>, marks: Watermarks) {
        self.writes.fetch_add(1, Ordering::SeqCst);
        self.update(|s| {
            let Some(metadata) = &s.metadata else {
                return;
            };
            let mut metadata = (**metadata).clone();
            metadata.topics.retain(|t| t.name != name);
            let mut watermarks = (*s.watermarks).clone();
            watermarks.retain(|(t, _), _| t != name);
            if let Some(topic) = topic {
                metadata.topics.push(topic);
                watermarks.extend(marks);
            }
            s.metadata = Some(Arc::new(metadata));
            s.watermarks = Arc::new(watermarks);
        });
    }
}

impl ClusterEntry {
    /// Puts a subject read afresh after a registry write into the projection (`None`: it is
    /// gone), so the Schemas page shows the change before the next refresh.
    pub fn apply_subject(&self, name: &str, fresh: Option<crate::registry::Subject>) {
        self.update(|s| {
            let Some(data) = &s.subjects.data else {
                return;
            };
            let mut data = (**data).clone();
            data.subjects.retain(|x| x.name != name);
            if let Some(fresh) = fresh {
                let at = data.subjects.partition_point(|x| x.name < fresh.name);
                data.subjects.insert(at, fresh);
            }
            s.subjects.data = Some(Arc::new(data));
        });
    }

    /// Puts a group read afresh into the projection (`None`: it is gone), so that the next page
    /// shows a change or fresh offsets without waiting for the next refresh of every group.
    pub fn apply_group(&self, id: &str, fresh: Option<crate::kafka::wire::Group>) {
        self.update(|s| {
            let Some(groups) = &s.groups.data else {
                return;
            };
            let mut groups = (**groups).clone();
            match fresh {
                None => groups.retain(|g| g.id != id),
                Some(fresh) => {
                    if let Some(slot) = groups.iter_mut().find(|g| g.id == id) {
                        // The listing's state and type stand unless the describe says more.
                        if !fresh.state.is_empty() {
                            slot.state = fresh.state;
                        }
                        slot.protocol_type = fresh.protocol_type;
                        slot.members = fresh.members;
                        slot.offsets = fresh.offsets;
                        slot.error = fresh.error;
                    }
                }
            }
            s.groups.data = Some(Arc::new(groups));
        });
    }
}

/// Before the first good read of a part, klens cannot tell a missing thing from an unread one.
pub fn not_read_yet(cluster: &str, what: &str) -> ApiError {
    ApiError::new(
        ErrorCode::Client,
        format!(
            "klens has not read the {what} of cluster \"{cluster}\" yet; try again in a moment."
        ),
    )
}

/// Every configured cluster, in config order.
pub struct Catalog {
    clusters: Vec<Arc<ClusterEntry>>,
}

impl Catalog {
    pub fn new(config: &Config) -> Self {
        let clusters = config
            .clusters
            .iter()
            .map(|c| {
                Arc::new(ClusterEntry {
                    name: c.name.clone(),
                    writable: c.writable,
                    link: Arc::new(Link::new(c)),
                    registry: c.schema_registry.as_ref().map(|r| Registry::new(r).map(Arc::new)),
                    connects: c
                        .connect
                        .iter()
                        .map(|k| (k.name.clone(), crate::connect::Connect::new(k).map(Arc::new)))
                        .collect(),
                    mirror: c.mirror.as_ref().map(|m| m.properties.clone()),
                    flink: c.flink.as_ref().map(|f| crate::flink::Flink::new(f, c).map(Arc::new)),
                    leases: crate::lease::Leases::new(c),
                    copy_jobs: crate::jobs::JobStore::new(c),
                    state: RwLock::new(ClusterState::default()),
                    rate_history: Mutex::new(rates::RateHistory::default()),
                    watched: Mutex::new(HashMap::new()),
                    writes: AtomicU64::new(0),
                })
            })
            .collect();
        Catalog { clusters }
    }

    pub fn clusters(&self) -> &[Arc<ClusterEntry>] {
        &self.clusters
    }

    /// A cluster by name, for start-up and tests. Request handlers use [`Catalog::entry`].
    pub fn get(&self, name: &str) -> Option<&Arc<ClusterEntry>> {
        self.clusters.iter().find(|c| c.name == name)
    }

    /// The cluster a grant was given for: what request handlers use, so none reads a cluster
    /// without having asked the authorization decision.
    pub fn entry(&self, grant: &Grant) -> Option<&Arc<ClusterEntry>> {
        self.get(grant.cluster())
    }

    /// True once every cluster has been refreshed at least once, successfully or not.
    pub fn all_attempted(&self) -> bool {
        self.clusters.iter().all(|c| c.state().attempted)
    }

    /// Starts the refresh loops of every cluster.
    pub fn spawn_refreshers(self: &Arc<Self>) {
        for entry in &self.clusters {
            refresh::spawn(Arc::clone(entry));
        }
    }
}

/// Per topic, the sum of its partitions' high watermarks, for topics whose every partition is
/// known: the basis of the produce rate.
pub(crate) fn high_totals(
    metadata: &MetadataSnapshot, watermarks: &Watermarks,
) -> HashMap<String, i64> {
    metadata
        .topics
        .iter()
        .filter_map(|t| {
            let total = t.partitions.iter().try_fold(0i64, |sum, p| {
                watermarks.get(&(t.name.clone(), p.id)).map(|(_, high)| sum.saturating_add(*high))
            })?;
            Some((t.name.clone(), total))
        })
        .collect()
}
