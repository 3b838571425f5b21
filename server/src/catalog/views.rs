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
                .map(|b| BrokerSummary {
                    id: b.id,
                    host: b.host.clone(),
                    port: b.port,
                })
                .collect()
        })
        .unwrap_or_default();
    broker_list.sort_by_key(|b| b.id);
    ClusterDetail {
        summary: summary(name, writable, state),
        broker_list,
    }
}

/// The size of a partition: its leader's replica, as the bytes a reader of it would meet.
fn partition_size(state: &ClusterState, topic: &str, p: &Partition) -> Option<u64> {
    let dirs = state.log_dirs.data.as_ref()?;
    dirs.replicas
        .get(&(topic.to_string(), p.id))?
        .get(&p.leader)
        .copied()
}

fn topic_size(state: &ClusterState, topic: &Topic) -> Option<u64> {
    topic.partitions.iter().try_fold(0u64, |sum, p| {
        Some(sum + partition_size(state, &topic.name, p)?)
    })
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
        produce_trend: state
            .rate_trend
            .get(&topic.name)
            .cloned()
            .unwrap_or_default(),
        partitions,
        consumers,
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
        committed,
        end,
        lag: partition_lag(committed, end),
    }
}

/// The sum of the known lags; `None` when none is known.
fn total_lag(lags: impl Iterator<Item = Option<u64>>) -> Option<u64> {
    lags.flatten()
        .fold(None, |sum, lag| Some(sum.unwrap_or(0) + lag))
}

/// Each group's lag, where any of it is known.
pub fn group_lags(state: &ClusterState) -> HashMap<String, u64> {
    state
        .groups
        .data
        .iter()
        .flat_map(|groups| groups.iter())
        .filter_map(|g| Some((g.id.clone(), group_lag(&state.watermarks, g)?)))
        .collect()
}

fn group_lag(marks: &Watermarks, group: &Group) -> Option<u64> {
    total_lag(
        group
            .offsets
            .iter()
            .map(|(t, p, committed)| lag_of(marks, t, *p, *committed)),
    )
}

pub fn groups(state: &ClusterState, window: &Window) -> GroupList {
    let groups: Vec<GroupSummary> = state
        .groups
        .data
        .iter()
        .flat_map(|groups| groups.iter())
        .map(|g| GroupSummary {
            group: g.id.clone(),
            state: g.state.clone(),
            members: g.members.len() as u64,
            topics: g
                .offsets
                .iter()
                .map(|(t, _, _)| t.as_str())
                .collect::<BTreeSet<_>>()
                .len() as u64,
            lag: group_lag(&state.watermarks, g),
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

pub fn group(state: &ClusterState, id: &str) -> Option<GroupDetail> {
    let groups = state.groups.data.as_ref()?;
    let g = groups.iter().find(|g| g.id == id)?;
    let offsets: Vec<GroupOffset> = g
        .offsets
        .iter()
        .map(|(topic, partition, committed)| {
            group_offset(&state.watermarks, topic, *partition, *committed)
        })
        .collect();
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
            let dirs = state
                .log_dirs
                .data
                .as_ref()
                .and_then(|d| d.brokers.get(&b.id));
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
                        latest: s
                            .latest
                            .as_ref()
                            .map(|(version, id, kind)| SchemaVersionRef {
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
        let found = SearchHit {
            kind,
            cluster: cluster.to_string(),
            name,
            url,
        };
        (score, found)
    };
    let matcher = Matcher::new(query);
    let named = |kind: HitKind, name: &str, page: &str| {
        let score = matcher.score(name)?;
        Some(hit(
            kind,
            score,
            name.to_string(),
            page_url(cluster, page, name),
        ))
    };
    let mut hits = Vec::new();
    if let Some(metadata) = &state.metadata {
        hits.extend(
            metadata
                .topics
                .iter()
                .filter_map(|t| named(HitKind::Topic, &t.name, "topics")),
        );
        // A broker is found by its id or its host.
        hits.extend(metadata.brokers.iter().filter_map(|b| {
            let label = format!("{} {}:{}", b.id, b.host, b.port);
            let score = [b.id.to_string(), b.host.clone(), label.clone()]
                .iter()
                .filter_map(|n| matcher.score(n))
                .min()?;
            Some(hit(
                HitKind::Broker,
                score,
                label,
                format!("{base}/brokers/{}", b.id),
            ))
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
mod tests {
    use std::sync::Arc;

    use app::api::HealthStatus;

    use super::*;
    use crate::catalog::{LogDirs, Part};
    use crate::kafka::wire::{LogDir, Member, ReplicaSize};
    use crate::kafka::Broker;

    fn partition(id: i32, leader: i32, replicas: &[i32], isr: &[i32]) -> Partition {
        Partition {
            id,
            leader,
            replicas: replicas.to_vec(),
            isr: isr.to_vec(),
        }
    }

    fn metadata(partitions: Vec<Partition>) -> MetadataSnapshot {
        MetadataSnapshot {
            brokers: vec![
                Broker {
                    id: 1,
                    host: "kafka-1".into(),
                    port: 9092,
                },
                Broker {
                    id: 2,
                    host: "kafka-2".into(),
                    port: 9092,
                },
            ],
            topics: vec![Topic {
                name: "t".into(),
                internal: false,
                partitions,
            }],
        }
    }

    fn part<T>(data: T) -> Part<T> {
        Part {
            data: Some(Arc::new(data)),
            refreshed_at: Some(1),
            error: None,
        }
    }

    fn a_group(id: &str, offsets: &[(&str, i32, i64)]) -> Group {
        Group {
            id: id.into(),
            state: "Stable".into(),
            protocol_type: "consumer".into(),
            kind: "classic".into(),
            coordinator: 1,
            members: vec![Member {
                member_id: "m-1".into(),
                client_id: "c".into(),
                host: "/127.0.0.1".into(),
                assignments: vec![("t".into(), 0)],
            }],
            offsets: offsets
                .iter()
                .map(|(t, p, o)| (t.to_string(), *p, *o))
                .collect(),
            error: None,
        }
    }

    /// Topic `t` with two partitions (watermarks 5..12 and 0..3), two groups on it, and log
    /// dirs for both brokers.
    fn state() -> ClusterState {
        let mut marks = Watermarks::new();
        marks.insert(("t".into(), 0), (5, 12));
        marks.insert(("t".into(), 1), (0, 3));
        let dir = |replicas: &[(i32, u64)]| LogDir {
            path: "/data".into(),
            error: None,
            total_bytes: Some(1000),
            usable_bytes: Some(600),
            replicas: replicas
                .iter()
                .map(|(p, size)| ReplicaSize {
                    topic: "t".into(),
                    partition: *p,
                    size_bytes: *size,
                })
                .collect(),
        };
        let dirs = LogDirs::new(vec![
            (1, Ok(vec![dir(&[(0, 100), (1, 40)])])),
            (2, Ok(vec![dir(&[(0, 90), (1, 50)])])),
        ])
        .expect("two good brokers");
        ClusterState {
            metadata: Some(Arc::new(metadata(vec![
                partition(0, 1, &[1, 2], &[1, 2]),
                partition(1, 2, &[2, 1], &[2]),
            ]))),
            watermarks: Arc::new(marks),
            groups: part(vec![
                a_group("reader", &[("t", 0, 10), ("t", 1, 3)]),
                a_group("other", &[("u", 0, 1)]),
            ]),
            log_dirs: part(dirs),
            ..ClusterState::default()
        }
    }

    #[test]
    fn health_follows_the_last_refresh() {
        let healthy = metadata(vec![partition(0, 1, &[1, 2], &[1, 2])]);
        let under = metadata(vec![partition(0, 1, &[1, 2], &[1])]);
        let offline = metadata(vec![partition(0, -1, &[1], &[])]);
        let cases = [
            (None, None, HealthStatus::Unreachable),
            (Some(healthy.clone()), None, HealthStatus::Ok),
            (Some(under), None, HealthStatus::Degraded),
            (Some(offline), None, HealthStatus::Degraded),
            (Some(healthy), Some("down"), HealthStatus::Unreachable),
        ];
        for (metadata, error, want) in cases {
            let state = ClusterState {
                metadata: metadata.map(Arc::new),
                last_error: error.map(str::to_string),
                ..ClusterState::default()
            };
            assert_eq!(state.health().status, want, "{state:?}");
        }
        let failed = ClusterState {
            last_error: Some("Broker transport failure".into()),
            ..ClusterState::default()
        };
        assert_eq!(
            failed.health().error.as_deref(),
            Some("Broker transport failure")
        );
    }

    #[test]
    fn records_are_summed_only_when_every_partition_is_known() {
        let topic = Topic {
            name: "t".into(),
            internal: false,
            partitions: vec![partition(0, 1, &[1], &[1]), partition(1, 1, &[1], &[1])],
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
    fn sizes_come_from_the_leaders_and_the_cluster_counts_every_replica() {
        let state = state();
        let detail = topic(&state, "t").expect("topic t");
        let sizes: Vec<Option<u64>> = detail.partitions.iter().map(|p| p.size_bytes).collect();
        // Partition 0 is led by broker 1 (100 bytes), partition 1 by broker 2 (50 bytes).
        assert_eq!(sizes, vec![Some(100), Some(50)]);
        assert_eq!(detail.size_bytes, Some(150));
        assert_eq!(
            topics(&state, &Window::default()).topics[0].size_bytes,
            Some(150)
        );
        assert_eq!(summary("c", false, &state).size_bytes, Some(280));

        let mut partial = state.clone();
        let dirs = LogDirs::new(vec![
            (1, Ok(Vec::new())),
            (2, Err("ClusterAuthorizationFailed".into())),
        ])
        .expect("one broker answered");
        partial.log_dirs = part(dirs);
        assert_eq!(summary("c", false, &partial).size_bytes, None);
        assert_eq!(topic(&partial, "t").expect("t").size_bytes, None);
        let brokers = brokers(&partial).brokers;
        assert_eq!(
            brokers[1].log_dirs_error.as_deref(),
            Some("ClusterAuthorizationFailed")
        );
        assert!(LogDirs::new(vec![(1, Err("no".into()))]).is_err());
    }

    #[test]
    fn lag_is_end_minus_committed_per_partition_and_summed() {
        let state = state();
        let detail = group(&state, "reader").expect("reader");
        let lags: Vec<Option<u64>> = detail.offsets.iter().map(|o| o.lag).collect();
        assert_eq!(lags, vec![Some(2), Some(0)]);
        assert_eq!(detail.lag, Some(2));
        assert_eq!(detail.members[0].assignments[0].topic, "t");

        let list = groups(&state, &Window::default()).groups;
        let other = list.iter().find(|g| g.group == "other").expect("other");
        assert_eq!(other.lag, None, "no end offset is known for topic u");
        assert_eq!(other.topics, 1);

        let consumers = topic(&state, "t").expect("t").consumers;
        assert_eq!(consumers.len(), 1);
        assert_eq!(
            (consumers[0].group.as_str(), consumers[0].lag),
            ("reader", Some(2))
        );
    }

    #[test]
    fn brokers_show_replica_counts_and_the_controller() {
        let mut state = state();
        state.cluster_info = part(crate::kafka::wire::ClusterInfo {
            controller: Some(2),
            racks: [(1, "eu-1a".to_string())].into_iter().collect(),
        });
        let list = brokers(&state);
        assert_eq!(list.controller, Some(2));
        let one = &list.brokers[0];
        assert_eq!(
            (one.id, one.rack.as_deref(), one.controller),
            (1, Some("eu-1a"), false)
        );
        assert_eq!((one.replicas, one.leaders), (2, 1));
        assert_eq!(one.log_dirs[0].size_bytes, Some(140));
        assert!(list.brokers[1].controller);
    }

    /// Figures, not a pass or fail: `cargo test -p server --release --lib search_figures --
    /// --ignored --nocapture` prints how long one search takes over 50,000 topics and 50,000
    /// groups, for a 200-character query and for ones the typo step works on.
    #[test]
    #[ignore]
    fn search_figures() {
        let topics: Vec<Topic> = (0..50_000)
            .map(|i| Topic {
                name: format!("team-{}-orders-events-v{}", i % 97, i),
                internal: false,
                partitions: vec![partition(0, 1, &[1], &[1])],
            })
            .collect();
        let groups: Vec<Group> = (0..50_000)
            .map(|i| a_group(&format!("service-{}-consumer-{i}", i % 89), &[]))
            .collect();
        let state = ClusterState {
            metadata: Some(Arc::new(MetadataSnapshot {
                brokers: Vec::new(),
                topics,
            })),
            groups: part(groups),
            ..ClusterState::default()
        };
        for query in [
            "x".repeat(200),
            "orders-evnets".to_string(),
            "team-42-ordres".to_string(),
            "zzzzzzzz".to_string(),
        ] {
            let started = std::time::Instant::now();
            let hits = search("bench", &state, &query);
            println!(
                "search of {} characters over 50,000 topics and 50,000 groups: {} ms, {} hits",
                query.chars().count(),
                started.elapsed().as_millis(),
                hits.len()
            );
        }
    }

    #[test]
    fn search_finds_every_kind_and_encodes_urls() {
        let state = state();
        let hits = search("prod", &state, "t");
        assert!(hits
            .iter()
            .any(|(_, h)| h.kind == HitKind::Topic && h.url == "/c/prod/topics/t"));
        let hits = search("prod", &state, "redaer");
        assert!(hits
            .iter()
            .any(|(_, h)| h.kind == HitKind::Group && h.name == "reader"));
        let hits = search("prod", &state, "kafka-2");
        assert!(hits
            .iter()
            .any(|(_, h)| h.kind == HitKind::Broker && h.url == "/c/prod/brokers/2"));
    }
}
