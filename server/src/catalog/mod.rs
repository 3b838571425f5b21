//! The catalog projection: per cluster, the last good view of its metadata, refreshed by a
//! background task. Pages and `/api` read it and never wait on Kafka; a failed refresh keeps
//! the last good data and records the error.

mod rates;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use app::api::{
    is_internal_topic, BrokerSummary, ClusterDetail, ClusterSummary, Health, HealthStatus,
    PartitionDetail, TopicDetail, TopicList, TopicSummary,
};
use app::{ApiError, ErrorCode};

use crate::auth::Grant;
use crate::config::Config;
use crate::kafka::admin::{self, TopicSpec};
use crate::kafka::{KafkaClients, MetadataSnapshot, Watermarks};

/// How often metadata is read; a write reads it back at once besides.
const METADATA_INTERVAL: Duration = Duration::from_secs(15);

/// What klens knows about one cluster right now.
#[derive(Clone, Debug, Default)]
pub struct ClusterState {
    /// The last metadata read successfully, if any.
    pub metadata: Option<MetadataSnapshot>,
    /// The watermarks read with that metadata; partitions Kafka gave none for are absent.
    pub watermarks: Watermarks,
    /// Records per second per topic over about the last minute, where known.
    pub produce_rates: HashMap<String, f64>,
    /// When `metadata` was read, ms since the epoch.
    pub refreshed_at: Option<i64>,
    /// The error of the last refresh, if it failed.
    pub last_error: Option<String>,
    /// Whether a refresh has been tried at all (`/ready` waits for this).
    pub attempted: bool,
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
    state: RwLock<ClusterState>,
    rate_history: Mutex<rates::RateHistory>,
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
        let state = self.state();
        let metadata = state.metadata.as_ref();
        ClusterSummary {
            name: self.name.clone(),
            writable: self.writable,
            health: state.health(),
            brokers: metadata.map(|m| m.brokers.len() as u64),
            topics: metadata.map(|m| m.topics.len() as u64),
            partitions: metadata.map(MetadataSnapshot::partition_count),
            under_replicated: metadata.map(MetadataSnapshot::under_replicated),
            // Sizes come from log dirs, which this projection does not read yet.
            size_bytes: None,
            refreshed_at: state.refreshed_at,
        }
    }

    pub fn detail(&self) -> ClusterDetail {
        let mut broker_list: Vec<BrokerSummary> = self
            .state()
            .metadata
            .map(|m| {
                m.brokers
                    .into_iter()
                    .map(|b| BrokerSummary {
                        id: b.id,
                        host: b.host,
                        port: b.port,
                    })
                    .collect()
            })
            .unwrap_or_default();
        broker_list.sort_by_key(|b| b.id);
        ClusterDetail {
            summary: self.summary(),
            broker_list,
        }
    }

    /// Topics as of the last refresh, by name.
    pub fn topics(&self) -> TopicList {
        let state = self.state();
        let mut topics: Vec<TopicSummary> = state
            .metadata
            .as_ref()
            .map(|m| {
                m.topics
                    .iter()
                    .map(|t| TopicSummary {
                        name: t.name.clone(),
                        internal: is_internal_topic(&t.name),
                        partitions: t.partitions.len() as u64,
                        replication_factor: t
                            .partitions
                            .iter()
                            .map(|p| p.replicas.len() as u64)
                            .max()
                            .unwrap_or(0),
                        records: record_count(&state.watermarks, t),
                        size_bytes: None,
                        produce_rate: state.produce_rates.get(&t.name).copied(),
                        under_replicated: t
                            .partitions
                            .iter()
                            .filter(|p| p.is_under_replicated())
                            .count() as u64,
                    })
                    .collect()
            })
            .unwrap_or_default();
        topics.sort_by(|a, b| a.name.cmp(&b.name));
        TopicList {
            refreshed_at: state.refreshed_at,
            topics,
        }
    }

    /// One topic as of the last refresh.
    pub fn topic(&self, name: &str) -> Option<TopicDetail> {
        let state = self.state();
        let watermarks = state.watermarks;
        let metadata = state.metadata?;
        let topic = metadata.topics.into_iter().find(|t| t.name == name)?;
        let mut partitions: Vec<PartitionDetail> = topic
            .partitions
            .into_iter()
            .map(|p| {
                let marks = watermarks.get(&(topic.name.clone(), p.id));
                PartitionDetail {
                    partition: p.id,
                    leader: p.leader,
                    replicas: p.replicas,
                    isr: p.isr,
                    low: marks.map(|m| m.0),
                    high: marks.map(|m| m.1),
                    size_bytes: None,
                }
            })
            .collect();
        partitions.sort_by_key(|p| p.partition);
        Some(TopicDetail {
            internal: is_internal_topic(&topic.name),
            name: topic.name,
            partitions,
        })
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
        // Read the change back now, so the next page shows it.
        self.refresh().await;
        Ok(())
    }

    pub async fn delete_topic(&self, grant: &Grant, name: &str) -> Result<(), ApiError> {
        let clients = self.clients()?;
        // The decision refuses writes on read-only clusters first; this is a second lock.
        let admin = clients
            .admin()
            .ok_or_else(|| ApiError::read_only_cluster(&self.name))?;
        admin::delete_topic(admin, grant, name).await?;
        self.refresh().await;
        Ok(())
    }

    /// Reads metadata once and records the outcome.
    pub async fn refresh(&self) {
        let started = std::time::Instant::now();
        let outcome = match &self.clients {
            Ok(clients) => {
                let clients = Arc::clone(clients);
                let name = self.name.clone();
                let task = tokio::task::spawn_blocking(move || {
                    let metadata = clients.fetch_metadata()?;
                    // Watermarks are worth having but not worth failing the refresh for.
                    let watermarks =
                        clients
                            .fetch_watermarks(&metadata.topics)
                            .unwrap_or_else(|error| {
                                tracing::warn!(cluster = %name, %error, "watermarks not refreshed");
                                Watermarks::new()
                            });
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
                let totals = high_totals(&metadata, &watermarks);
                let produce_rates = match self.rate_history.lock() {
                    Ok(mut history) => history.record(now, totals),
                    Err(_) => HashMap::new(),
                };
                self.update(|s| {
                    s.metadata = Some(metadata);
                    s.watermarks = watermarks;
                    s.produce_rates = produce_rates;
                    s.refreshed_at = Some(now);
                    s.last_error = None;
                    s.attempted = true;
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
                Arc::new(ClusterEntry {
                    name: c.name.clone(),
                    writable: c.writable,
                    clients,
                    state: RwLock::new(ClusterState::default()),
                    rate_history: Mutex::new(rates::RateHistory::default()),
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

    /// Starts one refresh loop per cluster.
    pub fn spawn_refreshers(self: &Arc<Self>) {
        for entry in &self.clusters {
            let entry = Arc::clone(entry);
            tokio::spawn(async move {
                loop {
                    entry.refresh().await;
                    tokio::time::sleep(METADATA_INTERVAL).await;
                }
            });
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

/// Records in a topic: high − low summed over partitions. An upper bound where compaction or
/// transaction markers leave gaps; `None` unless every partition's watermarks are known.
fn record_count(watermarks: &Watermarks, topic: &crate::kafka::Topic) -> Option<u64> {
    topic.partitions.iter().try_fold(0u64, |sum, p| {
        let (low, high) = watermarks.get(&(topic.name.clone(), p.id))?;
        Some(sum + u64::try_from(high - low).unwrap_or(0))
    })
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kafka::{Partition, Topic};

    fn metadata(partitions: Vec<Partition>) -> MetadataSnapshot {
        MetadataSnapshot {
            brokers: Vec::new(),
            topics: vec![Topic {
                name: "t".into(),
                partitions,
            }],
        }
    }

    fn partition(leader: i32, replicas: &[i32], isr: &[i32]) -> Partition {
        Partition {
            id: 0,
            leader,
            replicas: replicas.to_vec(),
            isr: isr.to_vec(),
        }
    }

    #[test]
    fn health_follows_the_last_refresh() {
        let healthy = metadata(vec![partition(1, &[1, 2], &[1, 2])]);
        let under = metadata(vec![partition(1, &[1, 2], &[1])]);
        let offline = metadata(vec![partition(-1, &[1], &[])]);
        let cases = [
            (None, None, HealthStatus::Unreachable),
            (Some(healthy.clone()), None, HealthStatus::Ok),
            (Some(under), None, HealthStatus::Degraded),
            (Some(offline), None, HealthStatus::Degraded),
            (Some(healthy), Some("down"), HealthStatus::Unreachable),
        ];
        for (metadata, error, want) in cases {
            let state = ClusterState {
                metadata,
                last_error: error.map(str::to_string),
                ..ClusterState::default()
            };
            assert_eq!(state.health().status, want, "{state:?}");
        }
    }

    #[test]
    fn records_are_summed_only_when_every_partition_is_known() {
        let topic = Topic {
            name: "t".into(),
            partitions: vec![
                partition(1, &[1], &[1]),
                Partition {
                    id: 1,
                    ..partition(1, &[1], &[1])
                },
            ],
        };
        let mut marks = Watermarks::new();
        marks.insert(("t".into(), 0), (5, 12));
        assert_eq!(record_count(&marks, &topic), None);
        marks.insert(("t".into(), 1), (0, 3));
        assert_eq!(record_count(&marks, &topic), Some(10));
        marks.insert(("t".into(), 1), (4, 3));
        assert_eq!(
            record_count(&marks, &topic),
            Some(7),
            "a negative span counts as empty"
        );
    }

    #[test]
    fn a_failed_refresh_keeps_the_error_text() {
        let state = ClusterState {
            last_error: Some("Broker transport failure".into()),
            ..ClusterState::default()
        };
        assert_eq!(
            state.health().error.as_deref(),
            Some("Broker transport failure")
        );
    }
}
