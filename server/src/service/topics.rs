//! A topic's configs, and topic changes: each decided (writable → internal → privilege), then
//! its arguments judged, then made through the admin room, whose read-back goes into the
//! projection.

use std::collections::BTreeMap;

use app::api::{
    AddPartitionsArgs, AlterTopicConfigsArgs, Arg, ConfigsChanged, CreateTopicArgs,
    DeleteRecordsArgs, PartitionsAdded, RecordsDeleted, TopicChanged, TopicConfigList,
};
use app::{ApiError, Privilege};

use serde_json::json;

use super::{Granted, Service};
use crate::audit::Attempt;
use crate::auth::Caller;
use crate::kafka::admin::{self, CutAt, ReadBack, TopicSpec};

pub async fn create_topic(
    service: &Service, caller: &Caller, args: CreateTopicArgs,
) -> Result<TopicChanged, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::CreateTopics, &args, &[]);
    service
        .audited(caller, attempt, |_| None, async move {
            let named = args.topic.given().map(String::as_str);
            let mut granted =
                service.decide_topic(caller, &args.cluster, Privilege::CreateTopics, named)?;
            let request = args.parse()?;
            let spec = TopicSpec::new(
                &request.topic,
                request.partitions,
                request.replication_factor,
                &request.configs,
            )?;
            service.open(&mut granted.grant).await?;
            if request.dry_run {
                admin::validate_topic(&granted.grant, &granted.link(), &spec).await?;
            } else {
                let known = granted.entry.known_brokers_now();
                let read_back =
                    admin::create_topic(&granted.grant, &granted.link(), &known, &spec).await?;
                apply(&granted, &spec.name, read_back);
            }
            Ok(TopicChanged {
                cluster: request.cluster,
                topic: spec.name,
                dry_run: request.dry_run,
            })
        })
        .await
}

pub async fn delete_topic(
    service: &Service, caller: &Caller, cluster: &str, topic: Arg<String>,
) -> Result<TopicChanged, ApiError> {
    let attempt = Attempt::of(cluster, Privilege::DeleteTopics, &json!({ "topic": topic }), &[]);
    service
        .topic_write(caller, attempt, &topic, |mut granted, topic| async move {
            service.open(&mut granted.grant).await?;
            let known = granted.entry.known_brokers_now();
            let read_back =
                admin::delete_topic(&granted.grant, &granted.link(), &known, &topic).await?;
            apply(&granted, &topic, read_back);
            Ok(TopicChanged { cluster: cluster.to_string(), topic, dry_run: false })
        })
        .await
}

fn apply(granted: &Granted, name: &str, read_back: ReadBack) {
    granted.entry.apply_topic(name, read_back.topic, read_back.watermarks);
}

pub async fn topic_configs(
    service: &Service, caller: &Caller, cluster: &str, topic: Arg<String>,
) -> Result<TopicConfigList, ApiError> {
    let args = json!({ "topic": &topic });
    service
        .topic_read(
            caller,
            cluster,
            Privilege::TopicConfigs,
            &args,
            &topic,
            |granted, name| async move {
                granted.listed_topic(&name)?;
                let known = granted.entry.known_brokers_now();
                let configs =
                    admin::topic_configs(&granted.grant, &granted.link(), &known, &name).await?;
                Ok(TopicConfigList { cluster: cluster.to_string(), topic: name, configs })
            },
        )
        .await
}

/// The most configs one call may change, and the longest name and value it may send.
const MAX_CHANGES: usize = 200;
const MAX_CONFIG_NAME: usize = 255;
const MAX_CONFIG_VALUE: usize = 100_000;

/// The changes `set` and `remove` ask for, judged: at least one, each name once, no empty or
/// over-long name or value.
pub(super) fn config_changes(
    set: BTreeMap<String, String>, remove: Vec<String>,
) -> Result<Vec<(String, Option<String>)>, ApiError> {
    if set.is_empty() && remove.is_empty() {
        return Err(ApiError::bad_request("set", "Name at least one config to set or remove."));
    }
    if set.len() + remove.len() > MAX_CHANGES {
        return Err(ApiError::bad_request(
            "set",
            format!("At most {MAX_CHANGES} configs change in one call."),
        ));
    }
    let mut changes: Vec<(String, Option<String>)> = Vec::new();
    for (name, value) in set {
        if value.len() > MAX_CONFIG_VALUE {
            return Err(ApiError::bad_request(
                "set",
                format!("The value of {name} is longer than {MAX_CONFIG_VALUE} bytes."),
            ));
        }
        changes.push((name, Some(value)));
    }
    for name in remove {
        if let Some((_, was)) = changes.iter().find(|(n, _)| *n == name) {
            let why = if was.is_some() {
                format!("{name} is both set and removed.")
            } else {
                format!("{name} is named twice in remove.")
            };
            return Err(ApiError::bad_request("remove", why));
        }
        changes.push((name, None));
    }
    for (name, _) in &changes {
        if name.trim().is_empty() || name.len() > MAX_CONFIG_NAME {
            let field = if changes.iter().any(|(n, v)| n == name && v.is_none()) {
                "remove"
            } else {
                "set"
            };
            return Err(ApiError::bad_request(
                field,
                format!("A config name is 1 to {MAX_CONFIG_NAME} characters."),
            ));
        }
    }
    Ok(changes)
}

pub async fn alter_topic_configs(
    service: &Service, caller: &Caller, args: AlterTopicConfigsArgs,
) -> Result<ConfigsChanged, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::AlterTopicConfigs, &args, &[]);
    service
        .topic_write(caller, attempt, &args.topic, |mut granted, name| async move {
            let cluster = args.cluster;
            let set = args.set.or("set", BTreeMap::new())?;
            let remove = args.remove.or("remove", Vec::new())?;
            let dry_run = args.dry_run.or("dry_run", false)?;
            let changes = config_changes(set, remove)?;
            granted.listed_topic(&name)?;
            service.open(&mut granted.grant).await?;
            let known = granted.entry.known_brokers_now();
            let changes = admin::alter_topic_configs(
                &granted.grant,
                &granted.link(),
                &known,
                &name,
                &changes,
                dry_run,
            )
            .await?;
            Ok(ConfigsChanged { cluster, topic: name, dry_run, changes })
        })
        .await
}

pub async fn add_partitions(
    service: &Service, caller: &Caller, args: AddPartitionsArgs,
) -> Result<PartitionsAdded, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::AddPartitions, &args, &[]);
    service
        .topic_write(caller, attempt, &args.topic, |mut granted, name| async move {
            let cluster = args.cluster;
            let count = args.count.required("count")?;
            let dry_run = args.dry_run.or("dry_run", false)?;
            if !(1..=admin::MAX_PARTITIONS).contains(&count) {
                return Err(ApiError::bad_request(
                    "count",
                    format!("count must be between 1 and {}.", admin::MAX_PARTITIONS),
                ));
            }
            let before = granted.listed_topic(&name)?.partitions.len() as u64;
            service.open(&mut granted.grant).await?;
            let known = granted.entry.known_brokers_now();
            let read_back = admin::add_partitions(
                &granted.grant,
                &granted.link(),
                &known,
                &name,
                count,
                dry_run,
            )
            .await?;
            let after = match read_back {
                Some(read_back) => {
                    let after = read_back
                        .topic
                        .as_ref()
                        .map_or(count as u64, |t| t.partitions.len() as u64);
                    apply(&granted, &name, read_back);
                    after
                }
                None => count as u64,
            };
            Ok(PartitionsAdded { cluster, topic: name, dry_run, before, after })
        })
        .await
}

pub async fn delete_records(
    service: &Service, caller: &Caller, args: DeleteRecordsArgs,
) -> Result<RecordsDeleted, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::DeleteRecords, &args, &[]);
    service
        .topic_write(caller, attempt, &args.topic, |mut granted, name| async move {
            let cluster = args.cluster;
            let partition = args.partition.optional("partition")?;
            let offset = args.offset.optional("offset")?;
            let timestamp = args.timestamp.optional("timestamp")?;
            let all = args.all.or("all", false)?;
            let dry_run = args.dry_run.or("dry_run", false)?;
            let at = match (offset, timestamp, all) {
                (Some(offset), None, false) => {
                    if partition.is_none() {
                        return Err(ApiError::bad_request(
                        "partition",
                        "An offset belongs to one partition: name it, or cut by timestamp or all.",
                    ));
                    }
                    CutAt::Offset(offset)
                }
                (None, Some(ts), false) if ts < 0 => {
                    return Err(ApiError::bad_request(
                        "timestamp",
                        "A time is 0 ms since 1970 or later.",
                    ))
                }
                (None, Some(ts), false) => CutAt::Timestamp(ts),
                (None, None, true) => CutAt::All,
                _ => {
                    return Err(ApiError::bad_request(
                        "offset",
                        "Say where to cut with exactly one of offset, timestamp or all.",
                    ))
                }
            };
            let topic = granted.listed_topic(&name)?;
            let link = granted.link();
            let cuts = admin::plan_cuts(&link, &topic, partition, &at).await?;
            let partitions = if dry_run {
                cuts.preview()
            } else {
                service.open(&mut granted.grant).await?;
                let known = granted.entry.known_brokers_now();
                let (done, read_back) =
                    admin::delete_records(&granted.grant, &link, &known, &topic, &cuts).await?;
                apply(&granted, &name, read_back);
                done
            };
            Ok(RecordsDeleted {
                cluster,
                topic: name,
                dry_run,
                deleted: partitions.iter().map(|p| p.deleted).sum(),
                partitions,
            })
        })
        .await
}

// The server functions this capability answers.
serves!(app::api::TopicConfigs, |s, c, a| topic_configs(&s, &c, &a.cluster, a.topic));
serves!(app::api::AlterTopicConfigs, |s, c, a| alter_topic_configs(&s, &c, a.args));
serves!(app::api::AddPartitions, |s, c, a| add_partitions(&s, &c, a.args));
serves!(app::api::DeleteRecords, |s, c, a| delete_records(&s, &c, a.args));
serves!(app::api::CreateTopic, |s, c, a| create_topic(&s, &c, a.args));
serves!(app::api::DeleteTopic, |s, c, a| delete_topic(&s, &c, &a.cluster, a.topic));
