//! The shapes `/api` answers, built from one cluster's [`ClusterState`]. Pure functions of the
//! state, so every figure can be checked without Kafka.

use std::collections::{BTreeSet, HashMap};

use app::api::{
    partition_lag, BrokerDetail, BrokerList, BrokerSummary, ClusterDetail, ClusterSummary,
    GroupDetail, GroupList, GroupMember, GroupOffset, GroupSummary, HitKind, LogDirDetail, Matcher,
    PartitionDetail, SchemaVersionRef, SearchHit, SubjectList, SubjectSummary, TopicConsumer,
    TopicDetail, TopicList, TopicPartitionRef, TopicSummary, Window,
};
use app::format::{page_url, query_value};

use super::ClusterState;
use crate::auth::oidc::now_ms;
use crate::kafka::wire::Group;
use crate::kafka::{MetadataSnapshot, Partition, Topic, Watermarks};

pub fn summary(name: &str, writable: bool, state: &ClusterState) -> ClusterSummary {
    let metadata = state.metadata.as_deref();
    ClusterSummary {
        name: name.to_string(),
        writable,
        health: state.health(),
        brokers: metadata.map(|m| m.brokers.len() as u64),
        topics: metadata.map(|m| m.topics.len() as u64),
        partitions: metadata.map(MetadataSnapshot::partition_count),
        under_replicated: metadata.map(MetadataSnapshot::under_replicated),
        size_bytes: cluster_size(state),
        refreshed_at: state.refreshed_at,
    }
}

/// Bytes on disk across every replica of every broker; `None` unless every broker's log dirs
/// were read.
fn cluster_size(state: &ClusterState) -> Option<u64> {
    let dirs = state.log_dirs.data.as_ref()?;
    let metadata = state.metadata.as_ref()?;
    metadata.brokers.iter().try_fold(0u64, |sum, b| {
        let dirs = dirs.brokers.get(&b.id)?.as_ref().ok()?;
        Some(sum + dirs.iter().map(|d| d.size_bytes()).sum::<u64>())
    })
}

pub fn detail(name: &str, writable: bool, state: &ClusterState) -> ClusterDetail {
    let mut broker_list: Vec<BrokerSummary> = state
        .metadata
        .as_ref()
        .map(|m| {
            m.brokers
                .iter()
                .map(|b| BrokerSummary { id: b.id, host: b.host.clone(), port: b.port })
                .collect()
        })
        .unwrap_or_default();
    broker_list.sort_by_key(|b| b.id);
    ClusterDetail { summary: summary(name, writable, state), broker_list }
}

/// The size of a partition: its leader's replica, as the bytes a reader of it would meet.
fn partition_size(state: &ClusterState, topic: &str, p: &Partition) -> Option<u64> {
    let dirs = state.log_dirs.data.as_ref()?;
    dirs.replicas.get(&(topic.to_string(), p.id))?.get(&p.leader).copied()
}

fn topic_size(state: &ClusterState, topic: &Topic) -> Option<u64> {
    topic
        .partitions
        .iter()
        .try_fold(0u64, |sum, p| Some(sum + partition_size(state, &topic.name, p)?))
}

/// Topics as of the last refresh, in the window asked for.
pub fn topics(state: &ClusterState, window: &Window) -> TopicList {
    let topics: Vec<TopicSummary> = state
        .metadata
        .as_ref()
        .map(|m| {
            m.topics
                .iter()
                .map(|t| TopicSummary {
                    name: t.name.clone(),
                    internal: t.internal,
                    partitions: t.partitions.len() as u64,
                    replication_factor: t
                        .partitions
                        .iter()
                        .map(|p| p.replicas.len() as u64)
                        .max()
                        .unwrap_or(0),
                    records: record_count(&state.watermarks, t),
                    size_bytes: topic_size(state, t),
                    produce_rate: state.produce_rates.get(&t.name).copied(),
                    produce_trend: Vec::new(),
                    under_replicated: t
                        .partitions
                        .iter()
                        .filter(|p| p.is_under_replicated())
                        .count() as u64,
                })
                .collect()
        })
        .unwrap_or_default();
    let total = topics.len() as u64;
    let mut shown = window.apply(topics, |t| t.name.as_str(), TopicSummary::sort_key);
    // Sparklines only for a page of rows: the whole list stays small for scripts.
    if window.limit.is_some() {
        for t in &mut shown.rows {
            t.produce_trend = state.rate_trend.get(&t.name).cloned().unwrap_or_default();
        }
    }
    TopicList {
        refreshed_at: state.refreshed_at,
        served_at: now_ms(),
        error: state.last_error.clone(),
        total,
        matched: shown.matched,
        topics: shown.rows,
    }
}

/// One topic as of the last refresh, with the groups that consume it.
pub fn topic(state: &ClusterState, name: &str) -> Option<TopicDetail> {
    let metadata = state.metadata.as_ref()?;
    let topic = metadata.topics.iter().find(|t| t.name == name)?;
    let mut partitions: Vec<PartitionDetail> = topic
        .partitions
        .iter()
        .map(|p| {
            let marks = state.watermarks.get(&(topic.name.clone(), p.id));
            PartitionDetail {
                partition: p.id,
                leader: p.leader,
                replicas: p.replicas.clone(),
                isr: p.isr.clone(),
                low: marks.map(|m| m.0),
                high: marks.map(|m| m.1),
                size_bytes: partition_size(state, &topic.name, p),
            }
        })
        .collect();
    partitions.sort_by_key(|p| p.partition);
    let mut consumers: Vec<TopicConsumer> = state
        .groups
        .data
        .iter()
        .flat_map(|groups| groups.iter())
        .filter(|g| g.offsets.iter().any(|(t, _, _)| *t == topic.name))
        .map(|g| {
            let mut offsets: Vec<GroupOffset> = g
                .offsets
                .iter()
                .filter(|(t, _, _)| *t == topic.name)
                .map(|(t, p, committed)| group_offset(&state.watermarks, t, *p, *committed))
                .collect();
            offsets.sort_by_key(|o| o.partition);
            TopicConsumer {
                group: g.id.clone(),
                state: g.state.clone(),
                lag: total_lag(offsets.iter().map(|o| o.lag)),
                offsets,
            }
        })
        .collect();
    consumers.sort_by(|a, b| a.group.cmp(&b.group));
    Some(TopicDetail {
        internal: topic.internal,
        name: topic.name.clone(),
        size_bytes: topic_size(state, topic),
        produce_rate: state.produce_rates.get(&topic.name).copied(),
        produce_trend: state.rate_trend.get(&topic.name).cloned().unwrap_or_default(),
        partitions,
        consumers,
        connectors: Vec::new(),
        replications: Vec::new(),
        refreshed_at: state.refreshed_at,
        sizes_refreshed_at: state.log_dirs.refreshed_at,
        groups_refreshed_at: state.groups.refreshed_at,
        served_at: now_ms(),
    })
}

fn lag_of(marks: &Watermarks, topic: &str, partition: i32, committed: i64) -> Option<u64> {
    let end = marks.get(&(topic.to_string(), partition)).map(|m| m.1);
    partition_lag(committed, end)
}

/// A group's committed offset on one partition, with the partition's end and the lag.
fn group_offset(marks: &Watermarks, topic: &str, partition: i32, committed: i64) -> GroupOffset {
    let end = marks.get(&(topic.to_string(), partition)).map(|m| m.1);
    GroupOffset {
        topic: topic.to_string(),
        partition,
        committed: Some(committed),
        end,
        lag: partition_lag(committed, end),
    }
}

/// The partitions of the topics in `offsets` that the group has committed nothing on, as Kafka
/// lists them: shown as such, with every record they hold as lag (what the group reads from the
/// earliest), so that the group's total is not understated.
fn uncommitted(state: &ClusterState, offsets: &[GroupOffset]) -> Vec<GroupOffset> {
    let Some(metadata) = &state.metadata else {
        return Vec::new();
    };
    let topics: std::collections::BTreeSet<&str> =
        offsets.iter().map(|o| o.topic.as_str()).collect();
    let mut missing = Vec::new();
    for name in topics {
        let Some(topic) = metadata.topics.iter().find(|t| t.name == name) else {
            continue;
        };
        for p in &topic.partitions {
            if offsets.iter().any(|o| o.topic == name && o.partition == p.id) {
                continue;
            }
            let marks = state.watermarks.get(&(name.to_string(), p.id));
            missing.push(GroupOffset {
                topic: name.to_string(),
                partition: p.id,
                committed: None,
                end: marks.map(|m| m.1),
                // As if committed at the start: every record the partition holds.
                lag: marks.and_then(|(low, high)| partition_lag(*low, Some(*high))),
            });
        }
    }
    missing
}

/// The sum of the known lags; `None` when none is known.
fn total_lag(lags: impl Iterator<Item = Option<u64>>) -> Option<u64> {
    lags.flatten().fold(None, |sum, lag| Some(sum.unwrap_or(0) + lag))
}

/// Each group's lag, where any of it is known.
pub fn group_lags(state: &ClusterState) -> HashMap<String, u64> {
    let marks = by_topic(&state.watermarks);
    state
        .groups
        .data
        .iter()
        .flat_map(|groups| groups.iter())
        .filter_map(|g| Some((g.id.clone(), group_lag(&marks, &state.watermarks, g)?)))
        .collect()
}

/// One group's lag, counted as its page counts it (the same offsets).
pub fn group_lag_now(state: &ClusterState, group: &Group) -> Option<u64> {
    total_lag(offsets_of(state, group).iter().map(|o| o.lag))
}

/// Each topic's partitions with their low and high watermarks: built once for a list.
fn by_topic(marks: &Watermarks) -> HashMap<&str, Vec<(i32, i64, i64)>> {
    let mut topics: HashMap<&str, Vec<(i32, i64, i64)>> = HashMap::new();
    for ((topic, partition), (low, high)) in marks.iter() {
        topics.entry(topic.as_str()).or_default().push((*partition, *low, *high));
    }
    topics
}

/// A group's lag as its page counts it: on each committed partition, and on each partition of
/// those topics without a commit, every record it holds.
fn group_lag(
    topics: &HashMap<&str, Vec<(i32, i64, i64)>>, marks: &Watermarks, group: &Group,
) -> Option<u64> {
    let committed = group.offsets.iter().map(|(t, p, committed)| lag_of(marks, t, *p, *committed));
    let names: BTreeSet<&str> = group.offsets.iter().map(|(t, _, _)| t.as_str()).collect();
    let bare = names.into_iter().flat_map(|name| {
        topics
            .get(name)
            .into_iter()
            .flatten()
            .filter(move |(p, _, _)| {
                !group.offsets.iter().any(|(t, q, _)| t.as_str() == name && q == p)
            })
            .map(|(_, low, high)| partition_lag(*low, Some(*high)))
    });
    total_lag(committed.chain(bare))
}

pub fn groups(state: &ClusterState, window: &Window) -> GroupList {
    let marks = by_topic(&state.watermarks);
    let groups: Vec<GroupSummary> = state
        .groups
        .data
        .iter()
        .flat_map(|groups| groups.iter())
        .map(|g| GroupSummary {
            group: g.id.clone(),
            state: g.state.clone(),
            members: g.members.len() as u64,
            topics: g.offsets.iter().map(|(t, _, _)| t.as_str()).collect::<BTreeSet<_>>().len()
                as u64,
            lag: group_lag(&marks, &state.watermarks, g),
        })
        .collect();
    let total = groups.len() as u64;
    let shown = window.apply(groups, |g| g.group.as_str(), GroupSummary::sort_key);
    GroupList {
        refreshed_at: state.groups.refreshed_at,
        error: state.groups.error.clone(),
        served_at: now_ms(),
        total,
        matched: shown.matched,
        groups: shown.rows,
    }
}

/// A group's offsets as its page lists them: each committed partition, then each partition of
/// those topics without a commit.
fn offsets_of(state: &ClusterState, g: &Group) -> Vec<GroupOffset> {
    let mut offsets: Vec<GroupOffset> = g
        .offsets
        .iter()
        .map(|(topic, partition, committed)| {
            group_offset(&state.watermarks, topic, *partition, *committed)
        })
        .collect();
    offsets.extend(uncommitted(state, &offsets));
    offsets
}

pub fn group(state: &ClusterState, id: &str) -> Option<GroupDetail> {
    let groups = state.groups.data.as_ref()?;
    let g = groups.iter().find(|g| g.id == id)?;
    let mut offsets = offsets_of(state, g);
    offsets.sort_by(|a, b| (&a.topic, a.partition).cmp(&(&b.topic, b.partition)));
    Some(GroupDetail {
        group: g.id.clone(),
        state: g.state.clone(),
        protocol_type: g.protocol_type.clone(),
        coordinator: g.coordinator,
        members: g
            .members
            .iter()
            .map(|m| GroupMember {
                member_id: m.member_id.clone(),
                client_id: m.client_id.clone(),
                host: m.host.clone(),
                assignments: m
                    .assignments
                    .iter()
                    .map(|(topic, partition)| TopicPartitionRef {
                        topic: topic.clone(),
                        partition: *partition,
                    })
                    .collect(),
            })
            .collect(),
        lag: total_lag(offsets.iter().map(|o| o.lag)),
        offsets,
        refreshed_at: state.groups.refreshed_at,
        served_at: now_ms(),
        error: g.error.clone(),
        connector: None,
    })
}

pub fn brokers(state: &ClusterState) -> BrokerList {
    let info = state.cluster_info.data.as_deref();
    let controller = info.and_then(|i| i.controller);
    let mut replicas: HashMap<i32, u64> = HashMap::new();
    let mut leaders: HashMap<i32, u64> = HashMap::new();
    if let Some(metadata) = &state.metadata {
        for p in metadata.partitions() {
            for r in &p.replicas {
                *replicas.entry(*r).or_default() += 1;
            }
            *leaders.entry(p.leader).or_default() += 1;
        }
    }
    let mut brokers: Vec<BrokerDetail> = state
        .metadata
        .iter()
        .flat_map(|m| m.brokers.iter())
        .map(|b| {
            let dirs = state.log_dirs.data.as_ref().and_then(|d| d.brokers.get(&b.id));
            let (log_dirs, log_dirs_error) = match dirs {
                Some(Ok(dirs)) => (
                    dirs.iter()
                        .map(|d| LogDirDetail {
                            path: d.path.clone(),
                            size_bytes: Some(d.size_bytes()),
                            total_bytes: d.total_bytes,
                            usable_bytes: d.usable_bytes,
                            error: d.error.clone(),
                        })
                        .collect(),
                    None,
                ),
                Some(Err(error)) => (Vec::new(), Some(error.clone())),
                None => (Vec::new(), state.log_dirs.error.clone()),
            };
            BrokerDetail {
                id: b.id,
                host: b.host.clone(),
                port: b.port,
                rack: info.and_then(|i| i.racks.get(&b.id).cloned()),
                controller: controller == Some(b.id),
                log_dirs,
                replicas: replicas.get(&b.id).copied().unwrap_or(0),
                leaders: leaders.get(&b.id).copied().unwrap_or(0),
                log_dirs_error,
            }
        })
        .collect();
    brokers.sort_by_key(|b| b.id);
    BrokerList {
        controller,
        refreshed_at: state.log_dirs.refreshed_at,
        served_at: now_ms(),
        brokers,
    }
}

pub fn subjects(state: &ClusterState, registry: bool) -> SubjectList {
    let data = state.subjects.data.as_deref();
    let global = data.and_then(|d| d.global_compatibility.clone());
    SubjectList {
        registry,
        refreshed_at: state.subjects.refreshed_at,
        served_at: now_ms(),
        error: state.subjects.error.clone(),
        global_compatibility: global.clone(),
        subjects: data
            .map(|d| {
                d.subjects
                    .iter()
                    .map(|s| SubjectSummary {
                        subject: s.name.clone(),
                        versions: s.versions.clone(),
                        latest: s.latest.as_ref().map(|(version, id, kind)| SchemaVersionRef {
                            version: *version,
                            id: *id,
                            schema_type: kind.clone(),
                        }),
                        compatibility: s.compatibility.clone().or_else(|| global.clone()),
                        compatibility_overridden: s.compatibility.is_some(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Every match of `query` in one cluster's catalog, with its score (lower is better).
pub fn search(cluster: &str, state: &ClusterState, query: &str) -> Vec<(u32, SearchHit)> {
    let base = format!("/c/{}", query_value(cluster));
    let hit = |kind: HitKind, score: u32, name: String, url: String| {
        let found = SearchHit { kind, cluster: cluster.to_string(), name, url };
        (score, found)
    };
    let matcher = Matcher::new(query);
    let named = |kind: HitKind, name: &str, page: &str| {
        let score = matcher.score(name)?;
        Some(hit(kind, score, name.to_string(), page_url(cluster, page, name)))
    };
    let mut hits = Vec::new();
    if let Some(metadata) = &state.metadata {
        hits.extend(
            metadata.topics.iter().filter_map(|t| named(HitKind::Topic, &t.name, "topics")),
        );
        // A broker is found by its id or its host.
        hits.extend(metadata.brokers.iter().filter_map(|b| {
            let label = format!("{} {}:{}", b.id, b.host, b.port);
            let score = [b.id.to_string(), b.host.clone(), label.clone()]
                .iter()
                .filter_map(|n| matcher.score(n))
                .min()?;
            Some(hit(HitKind::Broker, score, label, format!("{base}/brokers/{}", b.id)))
        }));
    }
    let groups = state.groups.data.iter().flat_map(|g| g.iter());
    hits.extend(groups.filter_map(|g| named(HitKind::Group, &g.id, "groups")));
    let subjects = state.subjects.data.iter().flat_map(|s| s.subjects.iter());
    hits.extend(subjects.filter_map(|s| named(HitKind::Subject, &s.name, "schemas")));
    hits
}

/// Records in a topic: high − low summed over partitions. An upper bound where compaction or
/// transaction markers leave gaps; `None` unless every partition's watermarks are known.
fn record_count(watermarks: &Watermarks, topic: &Topic) -> Option<u64> {
    topic.partitions.iter().try_fold(0u64, |sum, p| {
        let (low, high) = watermarks.get(&(topic.name.clone(), p.id))?;
        Some(sum + u64::try_from(high - low).unwrap_or(0))
    })
}

#[cfg(test)]
mod tests;
