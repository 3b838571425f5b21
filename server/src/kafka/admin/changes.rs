//! A topic's configs, and the topic changes sent through the protocol client: config
//! overrides, more partitions and deleting records. Each change checks its grant before
//! anything reaches Kafka (and the protocol client checks it again per request); Kafka's
//! refusals come back as the contract's errors with Kafka's own message.

use std::collections::BTreeMap;
use std::sync::Arc;

use app::api::{ConfigChangeView, ConfigSource, ConfigSynonym, PartitionCut, TopicConfig};
use app::error::Flavor;
use app::{ApiError, ErrorCode, Privilege};
use kafka_protocol::error::{ParseResponseErrorCode, ResponseError};

use super::{clients_of, read_back, read_until, wire_of, ReadBack};
use crate::auth::Grant;
use crate::kafka::wire::topics::{ConfigChange, ConfigEntry, Refusal};
use crate::kafka::wire::WireError;
use crate::kafka::{Broker, Link, Topic};

/// Kafka's type codes in DescribeConfigs answers, as the API names them.
fn kind(code: i8) -> Option<String> {
    let name = match code {
        1 => "boolean",
        2 => "string",
        3 => "int",
        4 => "short",
        5 => "long",
        6 => "double",
        7 => "list",
        8 => "class",
        9 => "password",
        _ => return None,
    };
    Some(name.to_string())
}

pub(super) fn view(entry: ConfigEntry) -> TopicConfig {
    TopicConfig {
        name: entry.name,
        value: entry.value,
        source: ConfigSource::from_kafka(entry.source),
        read_only: entry.read_only,
        sensitive: entry.sensitive,
        synonyms: entry
            .synonyms
            .into_iter()
            .map(|(name, value, source)| ConfigSynonym {
                name,
                value,
                source: ConfigSource::from_kafka(source),
            })
            .collect(),
        kind: kind(entry.config_type),
        documentation: entry.documentation.filter(|d| !d.is_empty()),
        update_mode: None,
    }
}

/// Overrides first, then by name.
fn in_page_order(mut configs: Vec<TopicConfig>) -> Vec<TopicConfig> {
    configs.sort_by(|a, b| (!a.is_override(), &a.name).cmp(&(!b.is_override(), &b.name)));
    configs
}

/// Every config of `topic` (TOPIC_CONFIGS on it).
pub async fn topic_configs(
    grant: &Grant, link: &Link, known: &[Broker], topic: &str,
) -> Result<Vec<TopicConfig>, ApiError> {
    grant.require_topic(Privilege::TopicConfigs, topic)?;
    let wire = wire_of(link)?;
    Ok(in_page_order(describe(&wire, known, topic).await?))
}

/// Every config of `topic` as Kafka describes it now.
async fn describe(
    wire: &crate::kafka::wire::WireClient, known: &[Broker], topic: &str,
) -> Result<Vec<TopicConfig>, ApiError> {
    let entries = wire
        .topic_configs(known, topic)
        .await
        .map_err(|e| unreachable_kafka("read the configs of", topic, &e))?
        .map_err(|r| wire_refusal("read the configs of", topic, r))?;
    Ok(entries.into_iter().map(view).collect())
}

/// Sets and removes overrides of `topic` (ALTER_TOPIC_CONFIGS on it). With `dry_run`, Kafka
/// validates the change and applies nothing, and the answer says what each config would
/// become; otherwise it says what Kafka shows after the change.
pub async fn alter_topic_configs(
    grant: &Grant, link: &Link, known: &[Broker], topic: &str, changes: &[ConfigChange],
    dry_run: bool,
) -> Result<Vec<ConfigChangeView>, ApiError> {
    grant.require_topic(Privilege::AlterTopicConfigs, topic)?;
    let wire = wire_of(link)?;
    let before = describe_map(&wire, known, topic).await?;
    wire.alter_topic_configs(grant, known, topic, changes, dry_run)
        .await
        .map_err(|e| unreachable_kafka("change the configs of", topic, &e))?
        .map_err(|r| wire_refusal("change the configs of", topic, r))?;
    let after = if dry_run {
        None
    } else {
        // What Kafka shows once the change reached it (through the metadata log, a moment
        // after it answered); a failed read leaves "after" unknown, not the write failed.
        read_until(
            || describe_map(&wire, known, topic),
            |now| {
                changes.iter().all(|(name, value)| {
                    shows_change(now.get(name), ConfigSource::Topic, value.as_deref())
                })
            },
        )
        .await
    };
    Ok(change_views(ConfigSource::Topic, changes, &before, after.as_ref()))
}

/// Whether `config` as read shows a change at `level`: the value set there in force, or
/// (for a removal) nothing set there and the value in force that of the level below. A broker
/// answers its new chain of synonyms a moment before the value it works with follows it.
pub(super) fn shows_change(
    config: Option<&TopicConfig>, level: ConfigSource, value: Option<&str>,
) -> bool {
    let Some(c) = config else {
        return value.is_none();
    };
    let settled = c.sensitive
        || c.synonyms.first().is_none_or(|head| head.source == c.source && head.value == c.value);
    let shown = match value {
        Some(v) => c.is_set_at(level) && (c.sensitive || c.value.as_deref() == Some(v)),
        None => !c.is_set_at(level),
    };
    shown && settled
}

/// Configs by name.
pub(super) fn by_name(configs: Vec<TopicConfig>) -> BTreeMap<String, TopicConfig> {
    configs.into_iter().map(|c| (c.name.clone(), c)).collect()
}

/// Each change at `level` before and after: as Kafka shows it once applied (`after`), or, for a
/// dry run, as it would be.
pub(super) fn change_views(
    level: ConfigSource, changes: &[ConfigChange], before: &BTreeMap<String, TopicConfig>,
    after: Option<&BTreeMap<String, TopicConfig>>,
) -> Vec<ConfigChangeView> {
    changes
        .iter()
        .map(|(name, value)| {
            let was = before.get(name);
            let (after_value, after_source) = match after {
                Some(now) => {
                    let now = now.get(name);
                    (now.and_then(|c| c.value.clone()), now.map(|c| c.source))
                }
                // A value typed for a sensitive config, or one Kafka did not describe, is never
                // answered back.
                None if value.is_some() && was.is_none_or(|c| c.sensitive) => (None, Some(level)),
                None => predicted(level, was, value.as_deref()),
            };
            ConfigChangeView {
                name: name.clone(),
                before: was.and_then(|c| c.value.clone()),
                before_source: was.map(|c| c.source),
                after: after_value,
                after_source,
            }
        })
        .collect()
}

async fn describe_map(
    wire: &crate::kafka::wire::WireClient, known: &[Broker], topic: &str,
) -> Result<BTreeMap<String, TopicConfig>, ApiError> {
    Ok(by_name(describe(wire, known, topic).await?))
}

/// What a config becomes after setting it to `value` at `level`, or (with `None`) removing
/// what is set there: the next value in its chain of synonyms.
pub(super) fn predicted(
    level: ConfigSource, was: Option<&TopicConfig>, value: Option<&str>,
) -> (Option<String>, Option<ConfigSource>) {
    match value {
        Some(v) => (Some(v.to_string()), Some(level)),
        None => match was {
            Some(c) if c.is_set_at(level) => match c.without(level) {
                Some(next) => (next.value.clone(), Some(next.source)),
                None => (None, Some(ConfigSource::Default)),
            },
            Some(c) => (c.value.clone(), Some(c.source)),
            None => (None, None),
        },
    }
}

/// Raises the partition count of `topic` to `count` (ADD_PARTITIONS on it), then reads it
/// back until Kafka shows the new partitions. With `dry_run`, Kafka validates only.
pub async fn add_partitions(
    grant: &Grant, link: &Link, known: &[Broker], topic: &str, count: i32, dry_run: bool,
) -> Result<Option<ReadBack>, ApiError> {
    grant.require_topic(Privilege::AddPartitions, topic)?;
    let wire = wire_of(link)?;
    wire.create_partitions(grant, known, topic, count, dry_run)
        .await
        .map_err(|e| unreachable_kafka("add partitions to", topic, &e))?
        .map_err(|r| wire_refusal("add partitions to", topic, r))?;
    if dry_run {
        return Ok(None);
    }
    let clients = clients_of(link)?;
    let wanted = usize::try_from(count).unwrap_or(0);
    Ok(Some(
        read_back(link, &clients, known, topic, |t| {
            t.is_some_and(|t| t.partitions.len() >= wanted)
        })
        .await,
    ))
}

/// Where deleting records cuts each partition, before any change: per partition, its low
/// and high watermark now and the offset to delete before.
pub struct Cuts {
    pub partitions: BTreeMap<i32, (i64, i64, i64)>,
}

/// How the caller said where to cut.
pub enum CutAt {
    Offset(i64),
    Timestamp(i64),
    All,
}

/// Reads the watermarks of `topic` (and, for a time, the first offset at or after it), and
/// says where deleting records would cut each partition of `only` (or all).
pub async fn plan_cuts(
    link: &Link, topic: &Topic, only: Option<i32>, at: &CutAt,
) -> Result<Cuts, ApiError> {
    let clients = clients_of(link)?;
    let (c, t) = (Arc::clone(&clients), topic.clone());
    let marks = crate::kafka::blocking("reading offsets", move || {
        c.fetch_watermarks(std::slice::from_ref(&t), crate::kafka::WATERMARK_TIMEOUT)
    })
    .await
    .map_err(ApiError::from)?;
    let mut bounds: BTreeMap<i32, (i64, i64)> =
        marks.into_iter().map(|((_, p), marks)| (p, marks)).collect();
    // A partition Kafka gave no offsets for (no leader now) is not silently left out.
    if let Some(p) = topic
        .partitions
        .iter()
        .map(|p| p.id)
        .find(|p| only.is_none_or(|o| o == *p) && !bounds.contains_key(p))
    {
        return Err(ApiError::new(
            ErrorCode::Client,
            format!(
                "Kafka gave no offsets for partition {p} of \"{}\" (is its leader down?); nothing was deleted.",
                topic.name
            ),
        ));
    }
    if let Some(p) = only {
        bounds.retain(|k, _| *k == p);
        if bounds.is_empty() {
            // As for reading records of a partition the topic lacks.
            return Err(ApiError::not_found(format!(
                "Topic \"{}\" has no partition {p}.",
                topic.name
            )));
        }
    }
    let at_time = match at {
        CutAt::Timestamp(ts) => {
            let (c, name, ts) = (Arc::clone(&clients), topic.name.clone(), *ts);
            let partitions: Vec<i32> = bounds.keys().copied().collect();
            Some(
                crate::kafka::blocking("reading offsets", move || {
                    c.offsets_at(&name, &partitions, ts, crate::kafka::WATERMARK_TIMEOUT)
                })
                .await
                .map_err(ApiError::from)?,
            )
        }
        _ => None,
    };
    let mut partitions = BTreeMap::new();
    for (p, (low, high)) in bounds {
        let target = match at {
            CutAt::Offset(offset) => {
                if *offset > high {
                    return Err(ApiError::bad_request(
                        "offset",
                        format!(
                            "Partition {p} ends at offset {high}; records can be deleted up to there, not to {offset}."
                        ),
                    ));
                }
                if *offset < 0 {
                    return Err(ApiError::bad_request("offset", "An offset is 0 or more."));
                }
                *offset
            }
            // A partition with no record at or after the time loses every record.
            CutAt::Timestamp(_) => {
                at_time.as_ref().and_then(|m| m.get(&p).copied()).unwrap_or(high)
            }
            CutAt::All => high,
        };
        partitions.insert(p, (low, high, target.clamp(low.min(high), high)));
    }
    Ok(Cuts { partitions })
}

impl Cuts {
    /// What the cuts would do, as the API shows it.
    pub fn preview(&self) -> Vec<PartitionCut> {
        self.partitions
            .iter()
            .map(|(&partition, &(low, _, target))| PartitionCut {
                partition,
                low_before: low,
                low_after: target.max(low),
                deleted: u64::try_from(target - low).unwrap_or(0),
                error: None,
            })
            .collect()
    }
}

/// Deletes the records before each cut (DELETE_RECORDS on `topic`), asking each partition's
/// leader. A partition with nothing to delete is not sent. Answers per partition what Kafka
/// did, or its refusal, and the topic as Kafka shows it afterwards.
pub async fn delete_records(
    grant: &Grant, link: &Link, known: &[Broker], topic: &Topic, cuts: &Cuts,
) -> Result<(Vec<PartitionCut>, ReadBack), ApiError> {
    grant.require_topic(Privilege::DeleteRecords, &topic.name)?;
    let wire = wire_of(link)?;
    let mut by_leader: BTreeMap<i32, Vec<(i32, i64)>> = BTreeMap::new();
    let mut out = Vec::new();
    for (&partition, &(low, _, target)) in &cuts.partitions {
        if target <= low {
            continue;
        }
        let leader =
            topic.partitions.iter().find(|p| p.id == partition).map(|p| p.leader).unwrap_or(-1);
        if known.iter().any(|b| b.id == leader) {
            by_leader.entry(leader).or_default().push((partition, target));
        } else {
            out.push(PartitionCut {
                partition,
                low_before: low,
                low_after: low,
                deleted: 0,
                error: Some(format!(
                    "Partition {partition} has no leader klens knows of; nothing was deleted there."
                )),
            });
        }
    }
    let requests: Vec<(Broker, Vec<(i32, i64)>)> = by_leader
        .into_iter()
        .filter_map(|(id, offsets)| {
            let broker = known.iter().find(|b| b.id == id)?.clone();
            Some((broker, offsets))
        })
        .collect();
    let answers = wire.delete_records(grant, &topic.name, &requests).await;
    // When Kafka refused every partition it was asked about (klens's own user lacks the ACL,
    // the topic is gone), the call fails with Kafka's reason rather than a list of failures.
    if !answers.is_empty() && answers.iter().all(|(_, a)| a.is_err()) {
        if let Some((_, Err(refusal))) = answers.into_iter().next() {
            return Err(wire_refusal("delete records of", &topic.name, refusal));
        }
        return Err(ApiError::new(ErrorCode::Client, "no answer from Kafka"));
    }
    for (partition, answer) in answers {
        let low = cuts.partitions.get(&partition).map_or(0, |c| c.0);
        out.push(match answer {
            Ok(new_low) => PartitionCut {
                partition,
                low_before: low,
                low_after: new_low,
                deleted: u64::try_from(new_low - low).unwrap_or(0),
                error: None,
            },
            Err(refusal) => PartitionCut {
                partition,
                low_before: low,
                low_after: low,
                deleted: 0,
                error: Some(wire_refusal("delete records of", &topic.name, refusal).message),
            },
        });
    }
    // Partitions with nothing to delete are reported as they are.
    for (&partition, &(low, _, target)) in &cuts.partitions {
        if target <= low {
            out.push(PartitionCut {
                partition,
                low_before: low,
                low_after: low,
                deleted: 0,
                error: None,
            });
        }
    }
    out.sort_by_key(|c| c.partition);
    let clients = clients_of(link)?;
    let back = read_back(link, &clients, known, &topic.name, |t| t.is_some()).await;
    Ok((out, back))
}

/// A change or read that never got an answer from Kafka.
pub(super) fn unreachable_kafka(what: &str, topic: &str, error: &WireError) -> ApiError {
    ApiError::new(
        ErrorCode::Client,
        format!("klens could not {what} \"{topic}\": Kafka did not answer ({error})."),
    )
}

/// Kafka's refusal of a request about `name`, as the contract's error, with Kafka's message.
/// Kafka refused klens's own Kafka user `what` for lack of `needs` on the cluster.
pub fn own_user_lacks(what: &str, needs: &str) -> ApiError {
    ApiError {
        kafka_error: Some("ClusterAuthorizationFailed".into()),
        ..ApiError::new(
            ErrorCode::Refused,
            format!(
                "Kafka refused to let klens's own Kafka user {what}: that user needs {needs} on the cluster."
            ),
        )
    }
}

/// Kafka's refusal of a request on the cluster (ACLs, SCRAM users, quotas, broker configs):
/// klens's own Kafka user lacking `needs` on the cluster is said in those words, anything else
/// as [`wire_refusal`] says it of `name`.
pub fn cluster_refusal(what: &str, needs: &str, name: &str, refusal: Refusal) -> ApiError {
    match refusal.code.err() {
        Some(ResponseError::ClusterAuthorizationFailed) => own_user_lacks(what, needs),
        _ => wire_refusal(what, name, refusal),
    }
}

pub fn wire_refusal(what: &str, name: &str, refusal: Refusal) -> ApiError {
    use ResponseError::*;
    let error = refusal.code.err();
    let label = error.map_or_else(|| format!("error {}", refusal.code), |e| format!("{e:?}"));
    let (code, flavor) = match error {
        Some(TopicAuthorizationFailed | ClusterAuthorizationFailed | GroupAuthorizationFailed) => {
            (ErrorCode::Refused, Flavor::Plain)
        }
        Some(UnknownTopicOrPartition | UnknownTopicId | GroupIdNotFound) => {
            (ErrorCode::NotFound, Flavor::Plain)
        }
        // The group changed under the request: it has members, or is rebalancing.
        Some(
            NonEmptyGroup | RebalanceInProgress | UnknownMemberId | IllegalGeneration
            | FencedMemberEpoch | StaleMemberEpoch,
        ) => (ErrorCode::Admin, Flavor::ConflictOrTimeout),
        Some(RequestTimedOut) => (ErrorCode::Client, Flavor::ConflictOrTimeout),
        Some(
            NetworkException
            | NotController
            | NotLeaderOrFollower
            | LeaderNotAvailable
            | BrokerNotAvailable
            | ThrottlingQuotaExceeded
            | CoordinatorNotAvailable
            | NotCoordinator
            | CoordinatorLoadInProgress,
        ) => (ErrorCode::Client, Flavor::Plain),
        None if refusal.code == 0 => (ErrorCode::Client, Flavor::Plain),
        _ => (ErrorCode::Admin, Flavor::Plain),
    };
    let said = refusal.message.map(|m| format!("{label}: {m}")).unwrap_or_else(|| match error {
        Some(e) => format!("{label}: {e}"),
        None => label.clone(),
    });
    let message = match code {
        ErrorCode::Refused => format!(
            "Kafka refused to let klens's own Kafka user {what} \"{name}\" ({said}); grant that user the ACL it needs."
        ),
        ErrorCode::NotFound => format!("Kafka knows no \"{name}\" ({said})."),
        _ => format!("Kafka could not {what} \"{name}\": {said}."),
    };
    ApiError { kafka_error: Some(label), flavor, ..ApiError::new(code, message) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(
        name: &str, value: &str, source: ConfigSource, chain: &[(&str, ConfigSource)],
    ) -> TopicConfig {
        super::super::test_config(name, Some(value), source, chain)
    }

    #[test]
    fn removing_an_override_falls_back_to_the_next_synonym() {
        use ConfigSource::*;
        let overridden = config(
            "retention.ms",
            "1000",
            Topic,
            &[("1000", Topic), ("7200000", StaticBroker), ("604800000", Default)],
        );
        assert_eq!(
            predicted(Topic, Some(&overridden), None),
            (Some("7200000".into()), Some(StaticBroker))
        );
        assert_eq!(predicted(Topic, Some(&overridden), Some("5")), (Some("5".into()), Some(Topic)));
        // Removing an override that is not there changes nothing.
        let inherited = config("retention.ms", "604800000", Default, &[("604800000", Default)]);
        assert_eq!(
            predicted(Topic, Some(&inherited), None),
            (Some("604800000".into()), Some(Default))
        );
    }

    #[test]
    fn overrides_come_first_then_names() {
        use ConfigSource::*;
        let page = in_page_order(vec![
            config("b", "1", Default, &[]),
            config("z", "1", Topic, &[]),
            config("a", "1", StaticBroker, &[]),
            config("c", "1", Topic, &[]),
        ]);
        let names: Vec<&str> = page.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["c", "z", "a", "b"]);
    }

    #[test]
    fn kafkas_refusals_keep_kafkas_words() {
        let cases = [
            (29, ErrorCode::Refused, 403),
            (3, ErrorCode::NotFound, 404),
            (37, ErrorCode::Admin, 422),
            (40, ErrorCode::Admin, 422),
            (44, ErrorCode::Admin, 422),
            (1, ErrorCode::Admin, 422),
            (7, ErrorCode::Client, 504),
            (13, ErrorCode::Client, 502),
        ];
        for (kafka, code, status) in cases {
            let e = wire_refusal(
                "add partitions to",
                "t",
                Refusal { code: kafka, message: Some("Kafka's own words".into()) },
            );
            assert_eq!((e.code, e.status()), (code, status), "{kafka}");
            assert!(e.message.contains("Kafka's own words"), "{}", e.message);
        }
        let e = wire_refusal("add partitions to", "t", Refusal { code: 37, message: None });
        assert!(e.message.contains("InvalidPartitions"), "{}", e.message);
    }
}
