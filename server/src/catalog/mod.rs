//! The catalog projection: per cluster, the last good view of its metadata, watermarks,
//! consumer groups, log dirs and schema subjects, each part refreshed by its own background
//! loop. Pages and `/api` read it and never wait on Kafka; a failed refresh keeps the last good
//! data of that part and records the error and when the data was read.

mod rates;
mod views;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use app::api::{
    BrokerList, ClusterDetail, ClusterSummary, GroupDetail, GroupList, Health, HealthStatus,
    Record, RecordPage, RecordQuery, SearchHit, SubjectList, TopicDetail, TopicList, Window,
};
use app::{ApiError, ErrorCode};

use crate::auth::oidc::now_ms;
use crate::auth::Grant;
use crate::config::Config;
use crate::kafka::admin::{self, TopicSpec};
use crate::kafka::wire::{ClusterInfo, Group, LogDir, WireClient};
use crate::kafka::{KafkaClients, MetadataSnapshot, Watermarks};
use crate::records::decode::Schemas;
use crate::records::{self, Bounds, Filter, Start};
use crate::registry::{Registry, Subjects};

/// How often metadata and watermarks are read; a write reads them back at once besides.
const METADATA_INTERVAL: Duration = Duration::from_secs(15);
/// How often every group's members and committed offsets are read.
const GROUPS_INTERVAL: Duration = Duration::from_secs(10);
/// How often a group someone has open is read, and for how long after they last asked.
const WATCHED_INTERVAL: Duration = Duration::from_secs(2);
const WATCH_FOR: Duration = Duration::from_secs(30);
/// Log dirs, the controller and racks change slowly.
const LOG_DIRS_INTERVAL: Duration = Duration::from_secs(30);
const SUBJECTS_INTERVAL: Duration = Duration::from_secs(30);
/// How long the secondary loops wait for the first metadata before looking again.
const WAIT_FOR_METADATA: Duration = Duration::from_millis(500);

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
        Part {
            data: None,
            refreshed_at: None,
            error: None,
        }
    }
}

impl<T> Clone for Part<T> {
    fn clone(&self) -> Self {
        Part {
            data: self.data.clone(),
            refreshed_at: self.refreshed_at,
            error: self.error.clone(),
        }
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
        Ok(LogDirs {
            brokers: answers.into_iter().collect(),
            replicas,
        })
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
    pub cluster_info: Part<ClusterInfo>,
    pub subjects: Part<Subjects>,
}

impl ClusterState {
    /// Health as of the last refresh: a failed refresh makes the cluster unreachable even
    /// though the last good figures are still shown.
    pub fn health(&self) -> Health {
        if let Some(error) = &self.last_error {
            return Health {
                status: HealthStatus::Unreachable,
                error: Some(error.clone()),
            };
        }
        let Some(metadata) = &self.metadata else {
            return Health {
                status: HealthStatus::Unreachable,
                error: Some("not refreshed yet".to_string()),
            };
        };
        let (under, offline) = (metadata.under_replicated(), metadata.offline());
        if under == 0 && offline == 0 {
            return Health {
                status: HealthStatus::Ok,
                error: None,
            };
        }
        Health {
            status: HealthStatus::Degraded,
            error: Some(format!(
                "{under} under-replicated and {offline} offline partitions"
            )),
        }
    }
}

/// One configured cluster and its live state.
pub struct ClusterEntry {
    pub name: String,
    pub writable: bool,
    clients: Result<Arc<KafkaClients>, String>,
    wire: Result<Arc<WireClient>, String>,
    registry: Option<Result<Arc<Registry>, String>>,
    state: RwLock<ClusterState>,
    rate_history: Mutex<rates::RateHistory>,
    /// Groups someone has open, and when they last asked.
    watched: Mutex<HashMap<String, Instant>>,
    /// Settings of the consumers that read records.
    reader: rdkafka::ClientConfig,
    /// Registry schemas by id, for decoding records.
    schemas: Arc<Schemas>,
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

    pub fn summary(&self) -> ClusterSummary {
        views::summary(&self.name, self.writable, &self.state())
    }

    pub fn detail(&self) -> ClusterDetail {
        views::detail(&self.name, self.writable, &self.state())
    }

    pub fn topics(&self, window: &Window) -> TopicList {
        views::topics(&self.state(), window)
    }

    pub fn topic(&self, name: &str) -> Option<TopicDetail> {
        views::topic(&self.state(), name)
    }

    pub fn groups(&self, window: &Window) -> GroupList {
        views::groups(&self.state(), window)
    }

    /// One group; looking at it makes its offsets refresh more often for a while.
    pub fn group(&self, id: &str) -> Option<GroupDetail> {
        let found = views::group(&self.state(), id);
        if found.is_some() {
            self.watch_group(id);
        }
        found
    }

    pub fn brokers(&self) -> BrokerList {
        views::brokers(&self.state())
    }

    pub fn subjects(&self) -> SubjectList {
        views::subjects(&self.state(), self.has_registry())
    }

    /// Matches of `query` in this cluster's catalog, with their scores (lower is better).
    pub fn search(&self, query: &str) -> Vec<(u32, SearchHit)> {
        views::search(&self.name, &self.state(), query)
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

    fn clients(&self) -> Result<Arc<KafkaClients>, ApiError> {
        self.clients
            .as_ref()
            .map(Arc::clone)
            .map_err(|e| ApiError::new(ErrorCode::Client, e.clone()))
    }

    pub async fn create_topic(&self, grant: &Grant, spec: &TopicSpec) -> Result<(), ApiError> {
        let clients = self.clients()?;
        // The decision refuses writes on read-only clusters first; this is a second lock.
        let admin = clients
            .admin()
            .ok_or_else(|| ApiError::read_only_cluster(&self.name))?;
        admin::create_topic(admin, grant, spec).await?;
        // Read the new topic back now, so the next page shows it.
        self.read_back(&spec.name, true).await;
        Ok(())
    }

    pub async fn delete_topic(&self, grant: &Grant, name: &str) -> Result<(), ApiError> {
        let clients = self.clients()?;
        // The decision refuses writes on read-only clusters first; this is a second lock.
        let admin = clients
            .admin()
            .ok_or_else(|| ApiError::read_only_cluster(&self.name))?;
        admin::delete_topic(admin, grant, name).await?;
        self.read_back(name, false).await;
        Ok(())
    }

    /// The partitions of `topic` with their live watermarks, read now (not from the
    /// projection), so that a page of records is bounded by what exists at this moment.
    async fn bounds(&self, topic: &str) -> Result<(Bounds, Arc<KafkaClients>), ApiError> {
        let metadata = self
            .state()
            .metadata
            .ok_or_else(|| not_read_yet(&self.name, "topics"))?;
        let found = metadata
            .topics
            .iter()
            .find(|t| t.name == topic)
            .cloned()
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "There is no topic named \"{topic}\" in cluster \"{}\".",
                        self.name
                    ),
                )
            })?;
        let clients = self.clients()?;
        let reading = Arc::clone(&clients);
        let marks = tokio::task::spawn_blocking(move || reading.fetch_watermarks(&[found]))
            .await
            .map_err(|e| ApiError::new(ErrorCode::Client, format!("reading offsets failed: {e}")))?
            .map_err(|e| ApiError::new(ErrorCode::Client, e))?;
        let bounds = marks
            .into_iter()
            .map(|((_, partition), marks)| (partition, marks))
            .collect();
        Ok((bounds, clients))
    }

    /// Settings of the consumers that read records.
    pub fn reader(&self) -> &rdkafka::ClientConfig {
        &self.reader
    }

    /// The cluster's registry schemas, for decoding.
    pub fn schemas(&self) -> Arc<Schemas> {
        Arc::clone(&self.schemas)
    }

    /// Where a stream of `topic` reads, fixed now: from `from` (`earliest`, `latest`, or a
    /// timestamp in ms) to each partition's high watermark at this moment.
    pub async fn stream_spans(
        &self,
        _grant: &Grant,
        topic: &str,
        partition: Option<i32>,
        from: &str,
    ) -> Result<Vec<records::Span>, ApiError> {
        let (mut bounds, clients) = self.bounds(topic).await?;
        if let Some(p) = partition {
            bounds.retain(|k, _| *k == p);
            if bounds.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!("Topic \"{topic}\" has no partition {p}."),
                ));
            }
        }
        let starts: BTreeMap<i32, i64> = match from {
            "earliest" => bounds.iter().map(|(p, (low, _))| (*p, *low)).collect(),
            "latest" => bounds.iter().map(|(p, (_, high))| (*p, *high)).collect(),
            other => {
                let ts: i64 = other.parse().map_err(|_| {
                    ApiError::bad_request(
                        "from",
                        "Start at earliest, latest, or a timestamp in ms since the epoch.",
                    )
                })?;
                let (name, partitions) = (
                    topic.to_string(),
                    bounds.keys().copied().collect::<Vec<_>>(),
                );
                tokio::task::spawn_blocking(move || clients.offsets_at(&name, &partitions, ts))
                    .await
                    .map_err(|e| {
                        ApiError::new(ErrorCode::Client, format!("reading offsets failed: {e}"))
                    })?
                    .map_err(|e| ApiError::new(ErrorCode::Client, e))?
            }
        };
        Ok(bounds
            .iter()
            .map(|(p, (_, high))| records::Span {
                partition: *p,
                start: starts.get(p).copied().unwrap_or(*high),
                end: *high,
            })
            .collect())
    }

    /// One page of records (RECORDS was decided by the caller, who holds the grant).
    pub async fn records(
        &self,
        _grant: &Grant,
        query: &RecordQuery,
    ) -> Result<RecordPage, ApiError> {
        let filter = Filter::parse(query.q.as_deref(), query.exact)?;
        let (bounds, clients) = self.bounds(&query.topic).await?;
        let at_time = match query.timestamp {
            Some(ts) => {
                let (topic, partitions) = (
                    query.topic.clone(),
                    bounds.keys().copied().collect::<Vec<_>>(),
                );
                let found = tokio::task::spawn_blocking(move || {
                    clients.offsets_at(&topic, &partitions, ts)
                })
                .await
                .map_err(|e| {
                    ApiError::new(ErrorCode::Client, format!("reading offsets failed: {e}"))
                })?
                .map_err(|e| ApiError::new(ErrorCode::Client, e))?;
                Some(found)
            }
            None => None,
        };
        let (start, limit) = records::plan(query, &bounds, at_time.as_ref())?;
        let read = self
            .read(query.topic.clone(), start, bounds, limit, filter)
            .await?;
        Ok(records::page_answer(&query.topic, &self.schemas, read).await)
    }

    /// The record at `offset` of `partition`.
    pub async fn record(
        &self,
        _grant: &Grant,
        topic: &str,
        partition: i32,
        offset: i64,
    ) -> Result<Record, ApiError> {
        let (bounds, _) = self.bounds(topic).await?;
        let missing = || {
            ApiError::new(
                ErrorCode::NotFound,
                format!("There is no record at offset {offset} of partition {partition} of \"{topic}\"."),
            )
        };
        let (low, high) = bounds.get(&partition).copied().ok_or_else(missing)?;
        if offset < low || offset >= high {
            return Err(missing());
        }
        let start = Start::Forward([(partition, offset)].into_iter().collect());
        let (found, ..) = self.read(topic.to_string(), start, bounds, 1, None).await?;
        let raw = found
            .into_iter()
            .find(|r| r.offset == offset)
            .ok_or_else(missing)?;
        let mut decoded = records::decode_all(&[raw], topic, &self.schemas).await;
        decoded.pop().ok_or_else(missing)
    }

    async fn read(
        &self,
        topic: String,
        start: Start,
        bounds: Bounds,
        limit: usize,
        filter: Option<Filter>,
    ) -> Result<records::PageRead, ApiError> {
        let config = self.reader.clone();
        tokio::task::spawn_blocking(move || {
            records::read_page(&config, &topic, &start, &bounds, limit, filter.as_ref())
        })
        .await
        .map_err(|e| ApiError::new(ErrorCode::Client, format!("reading records failed: {e}")))?
        .map_err(|e| ApiError::new(ErrorCode::Client, e))
    }

    /// Reads one topic back into the projection after a write, waiting (briefly) until Kafka
    /// shows it created or gone: far cheaper than a full refresh on a large cluster.
    async fn read_back(&self, name: &str, exists: bool) {
        let Ok(clients) = self.clients() else {
            return;
        };
        let wanted = name.to_string();
        let found = tokio::task::spawn_blocking(move || {
            let mut last = None;
            for _ in 0..40 {
                last = clients.fetch_topic(&wanted).ok().flatten();
                if last.is_some() == exists {
                    break;
                }
                std::thread::sleep(Duration::from_millis(250));
            }
            let marks = match &last {
                Some(topic) => clients.fetch_watermarks(std::slice::from_ref(topic)).ok(),
                None => None,
            };
            (last, marks)
        })
        .await;
        let Ok((topic, marks)) = found else {
            return;
        };
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
                watermarks.extend(marks.unwrap_or_default());
            }
            s.metadata = Some(Arc::new(metadata));
            s.watermarks = Arc::new(watermarks);
        });
    }

    /// Reads metadata and watermarks once and records the outcome. A refresh that a write
    /// overtook keeps the written state; a failed watermark read keeps the last good ones.
    pub async fn refresh(&self) {
        let started = Instant::now();
        let writes = self.writes.load(Ordering::SeqCst);
        let outcome = match &self.clients {
            Ok(clients) => {
                let clients = Arc::clone(clients);
                let name = self.name.clone();
                let task = tokio::task::spawn_blocking(move || {
                    let metadata = clients.fetch_metadata()?;
                    // Watermarks are worth having but not worth failing the refresh for.
                    let watermarks = clients
                        .fetch_watermarks(&metadata.topics)
                        .map_err(|error| {
                            tracing::warn!(cluster = %name, %error, "watermarks not refreshed");
                        })
                        .ok();
                    Ok::<_, String>((metadata, watermarks))
                });
                match task.await {
                    Ok(result) => result,
                    Err(e) => Err(format!("metadata task failed: {e}")),
                }
            }
            Err(e) => Err(e.clone()),
        };
        match outcome {
            Ok((metadata, watermarks)) => {
                tracing::debug!(
                    cluster = %self.name,
                    ms = started.elapsed().as_millis() as u64,
                    topics = metadata.topics.len(),
                    partitions = metadata.partition_count(),
                    "refreshed"
                );
                let now = now_ms();
                let rates = watermarks.as_ref().and_then(|marks| {
                    let totals = high_totals(&metadata, marks);
                    let mut history = self.rate_history.lock().ok()?;
                    Some((history.record(now, totals), history.trend()))
                });
                self.update(|s| {
                    s.attempted = true;
                    s.last_error = None;
                    if self.writes.load(Ordering::SeqCst) != writes {
                        // A write was read back while this refresh ran; its view is newer.
                        return;
                    }
                    s.metadata = Some(Arc::new(metadata));
                    if let Some(marks) = watermarks {
                        s.watermarks = Arc::new(marks);
                    }
                    if let Some((produce_rates, rate_trend)) = rates {
                        s.produce_rates = Arc::new(produce_rates);
                        s.rate_trend = Arc::new(rate_trend);
                    }
                    s.refreshed_at = Some(now);
                });
            }
            Err(error) => {
                tracing::warn!(cluster = %self.name, %error, "metadata refresh failed");
                self.update(|s| {
                    s.last_error = Some(error);
                    s.attempted = true;
                });
            }
        }
    }

    /// The brokers of the last good metadata, waiting for the first if need be.
    async fn known_brokers(&self) -> Vec<crate::kafka::Broker> {
        loop {
            if let Some(metadata) = self.state().metadata {
                return metadata.brokers.clone();
            }
            tokio::time::sleep(WAIT_FOR_METADATA).await;
        }
    }

    fn wire(&self) -> Result<Arc<WireClient>, String> {
        self.wire.as_ref().map(Arc::clone).map_err(Clone::clone)
    }

    /// Reads every group's members and committed offsets once.
    pub async fn refresh_groups(&self) {
        let brokers = self.known_brokers().await;
        let started = Instant::now();
        let outcome = match self.wire() {
            Ok(wire) => wire.groups(&brokers).await,
            Err(e) => Err(e),
        };
        match &outcome {
            Ok(groups) => tracing::debug!(
                cluster = %self.name,
                ms = started.elapsed().as_millis() as u64,
                groups = groups.len(),
                "groups refreshed"
            ),
            Err(error) => tracing::warn!(cluster = %self.name, %error, "groups not refreshed"),
        }
        self.update(|s| s.groups.record(outcome));
    }

    /// Reads the offsets of the groups someone has open, and the watermarks of their
    /// partitions, so that their lag is seconds old rather than a refresh interval.
    async fn refresh_watched(&self) {
        let watched: Vec<String> = match self.watched.lock() {
            Ok(mut watched) => {
                watched.retain(|_, at| at.elapsed() < WATCH_FOR);
                watched.keys().cloned().collect()
            }
            Err(_) => return,
        };
        if watched.is_empty() {
            return;
        }
        let state = self.state();
        let (Some(groups), Some(metadata), Ok(wire), Ok(clients)) = (
            state.groups.data.clone(),
            state.metadata.clone(),
            self.wire(),
            self.clients(),
        ) else {
            return;
        };
        for id in watched {
            let Some(group) = groups.iter().find(|g| g.id == id) else {
                continue;
            };
            let Some(coordinator) = metadata.brokers.iter().find(|b| b.id == group.coordinator)
            else {
                continue;
            };
            let fresh = match wire.group(coordinator, &id, &group.kind).await {
                Ok(fresh) => fresh,
                Err(error) => {
                    tracing::debug!(cluster = %self.name, group = %id, %error, "watched group");
                    continue;
                }
            };
            let topics: Vec<crate::kafka::Topic> = metadata
                .topics
                .iter()
                .filter(|t| fresh.offsets.iter().any(|(name, _, _)| *name == t.name))
                .cloned()
                .collect();
            let clients = Arc::clone(&clients);
            let marks = tokio::task::spawn_blocking(move || clients.fetch_watermarks(&topics))
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            self.update(|s| {
                let mut all = (*s.watermarks).clone();
                all.extend(marks);
                s.watermarks = Arc::new(all);
                if let Some(groups) = &s.groups.data {
                    let mut groups = (**groups).clone();
                    if let Some(slot) = groups.iter_mut().find(|g| g.id == fresh.id) {
                        // The listing's state and type stand unless the describe says more.
                        if !fresh.state.is_empty() {
                            slot.state = fresh.state;
                        }
                        slot.protocol_type = fresh.protocol_type;
                        slot.members = fresh.members;
                        slot.offsets = fresh.offsets;
                        slot.error = fresh.error;
                    }
                    s.groups.data = Some(Arc::new(groups));
                }
            });
        }
    }

    /// Reads log dirs, the controller and racks once.
    pub async fn refresh_log_dirs(&self) {
        let brokers = self.known_brokers().await;
        let started = Instant::now();
        let wire = match self.wire() {
            Ok(wire) => wire,
            Err(error) => {
                self.update(|s| {
                    s.log_dirs.record(Err(error.clone()));
                    s.cluster_info.record(Err(error));
                });
                return;
            }
        };
        let dirs = LogDirs::new(wire.log_dirs(&brokers).await);
        let info = wire.cluster_info(&brokers).await;
        match &dirs {
            Ok(_) => tracing::debug!(
                cluster = %self.name,
                ms = started.elapsed().as_millis() as u64,
                "log dirs refreshed"
            ),
            Err(error) => tracing::info!(cluster = %self.name, %error, "log dirs not read"),
        }
        self.update(|s| {
            s.log_dirs.record(dirs);
            s.cluster_info.record(info);
        });
    }

    /// Reads the registry's subjects once.
    pub async fn refresh_subjects(&self) {
        let outcome = match &self.registry {
            None => return,
            Some(Ok(registry)) => registry.subjects().await,
            Some(Err(error)) => Err(error.clone()),
        };
        if let Err(error) = &outcome {
            tracing::warn!(cluster = %self.name, %error, "subjects not refreshed");
        }
        self.update(|s| s.subjects.record(outcome));
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
                let clients = KafkaClients::new(c)
                    .map(Arc::new)
                    .map_err(|e| format!("could not create the Kafka client: {e}"));
                let wire = WireClient::new(c).map(Arc::new);
                let registry = c
                    .schema_registry
                    .as_ref()
                    .map(|r| Registry::new(r).map(Arc::new));
                let schemas = Schemas::new(registry.clone().and_then(Result::ok));
                Arc::new(ClusterEntry {
                    name: c.name.clone(),
                    writable: c.writable,
                    clients,
                    wire,
                    registry,
                    state: RwLock::new(ClusterState::default()),
                    rate_history: Mutex::new(rates::RateHistory::default()),
                    watched: Mutex::new(HashMap::new()),
                    reader: crate::kafka::reader_config(c),
                    schemas: Arc::new(schemas),
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

    /// Starts the refresh loops of every cluster: metadata with watermarks, groups, groups
    /// someone has open, log dirs with the controller, and subjects, each at its own pace.
    pub fn spawn_refreshers(self: &Arc<Self>) {
        for entry in &self.clusters {
            let e = Arc::clone(entry);
            tokio::spawn(async move {
                loop {
                    e.refresh().await;
                    tokio::time::sleep(METADATA_INTERVAL).await;
                }
            });
            let e = Arc::clone(entry);
            tokio::spawn(async move {
                loop {
                    e.refresh_groups().await;
                    tokio::time::sleep(GROUPS_INTERVAL).await;
                }
            });
            let e = Arc::clone(entry);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(WATCHED_INTERVAL).await;
                    e.refresh_watched().await;
                }
            });
            let e = Arc::clone(entry);
            tokio::spawn(async move {
                loop {
                    e.refresh_log_dirs().await;
                    tokio::time::sleep(LOG_DIRS_INTERVAL).await;
                }
            });
            if entry.has_registry() {
                let e = Arc::clone(entry);
                tokio::spawn(async move {
                    loop {
                        e.refresh_subjects().await;
                        tokio::time::sleep(SUBJECTS_INTERVAL).await;
                    }
                });
            }
        }
    }
}

/// Per topic, the sum of its partitions' high watermarks, for topics whose every partition is
/// known: the basis of the produce rate.
fn high_totals(metadata: &MetadataSnapshot, watermarks: &Watermarks) -> HashMap<String, i64> {
    metadata
        .topics
        .iter()
        .filter_map(|t| {
            let total = t.partitions.iter().try_fold(0i64, |sum, p| {
                watermarks
                    .get(&(t.name.clone(), p.id))
                    .map(|(_, high)| sum.saturating_add(*high))
            })?;
            Some((t.name.clone(), total))
        })
        .collect()
}
