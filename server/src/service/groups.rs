//! Consumer-group changes, each decided (writable → privilege on the group), then its
//! arguments judged, then made through the admin room after reading the group afresh.

use app::access::{Action, Resource};
use app::api::{Arg, GroupChanged, OffsetPlan, ResetOffsetsArgs, ResetTo};
use app::{ApiError, Privilege};

use serde_json::json;

use super::{Granted, Service};
use crate::audit::Attempt;
use crate::auth::oidc::now_ms;
use crate::auth::{Caller, Grant};
use crate::kafka::admin;
use crate::kafka::wire::Group;
use crate::kafka::{Broker, Topic};
use app::names::TopicName;

/// The decision for `privilege` on the group `group` names, then the id, checked.
fn decide_group(
    service: &Service, caller: &Caller, cluster: &str, privilege: Privilege, group: &Arg<String>,
) -> Result<(Granted, String), ApiError> {
    // A cluster the caller cannot see is refused before klens looks the group up in it.
    service.access(caller, cluster)?;
    let named = group.given().cloned().unwrap_or_default();
    let resource = match service.catalog.get(cluster) {
        Some(entry) => entry.group_resource(&named),
        None => Resource::group(named),
    };
    let granted = service.decide(caller, cluster, Action::new(privilege, resource))?;
    let id = group.clone().required("group")?;
    if id.is_empty() || id.len() > 255 {
        return Err(ApiError::bad_request("group", "A group id is 1 to 255 characters."));
    }
    Ok((granted, id))
}

/// A write on the group `group` names, under the audit ([`Service::write_on`]): decided for the
/// attempt's privilege on the group, then `write` runs with the grant and the checked id.
async fn group_write<T, Fut>(
    service: &Service, caller: &Caller, attempt: Attempt, group: &Arg<String>,
    write: impl FnOnce(Granted, String) -> Fut,
) -> Result<T, ApiError>
where
    Fut: std::future::Future<Output = Result<T, ApiError>>,
{
    let decide =
        |cluster: &str, privilege| decide_group(service, caller, cluster, privilege, group);
    service.write_on(caller, attempt, |_| None, decide, write).await
}

/// The group as the catalog lists it (for its type), then as its coordinator describes it now.
/// The group `id` as its coordinator describes it now, its coordinator, and the decision for
/// `privilege` on it again over that fresh description: its topics may have changed since the
/// projection read them, and a scope that covered the group then may not now. A refusal puts
/// the fresh group into the projection, so the catalog shows the caller what the decision saw.
/// The change is made under the grant of this decision.
async fn group_now(
    service: &Service, caller: &Caller, granted: &Granted, privilege: Privilege, id: &str,
) -> Result<(Group, Broker, Grant), ApiError> {
    let state = granted.entry.state();
    let groups = state
        .groups
        .data
        .as_ref()
        .ok_or_else(|| crate::catalog::not_read_yet(&granted.entry.name, "consumer groups"))?;
    let listed = groups.iter().find(|g| g.id == id).ok_or_else(|| {
        ApiError::not_found(format!(
            "There is no consumer group \"{id}\" in cluster \"{}\".",
            granted.entry.name
        ))
    })?;
    let known = granted.entry.known_brokers_now();
    let (group, coordinator) =
        admin::groups::group_now(&granted.link(), &known, id, &listed.kind).await?;
    let decided = service.policy.decide(
        &caller.subject(),
        &granted.entry.name,
        Action::new(privilege, group.resource()),
    );
    if decided.is_err() {
        granted.entry.apply_group(&group.id, Some(group.clone()));
    }
    Ok((group, coordinator, decided?))
}

/// The topics a reset covers, each with the partitions in scope: one topic (all its
/// partitions, or those named), or every topic the group has committed offsets on that the
/// caller `sees` (one a scoped catalog hides is left out like a deleted one, never named).
fn scope(
    granted: &Granted, group: &Group, topic: Option<String>, partitions: Option<Vec<i32>>,
    sees: impl Fn(&Topic) -> bool,
) -> Result<Vec<Topic>, ApiError> {
    let listed = |name: &str| granted.listed_topic(name);
    match (topic, partitions) {
        (None, Some(_)) => {
            Err(ApiError::bad_request("topic", "Partitions belong to one topic: name it."))
        }
        (Some(name), partitions) => {
            TopicName::check(&name, "topic")?;
            let mut topic = listed(&name)?;
            if let Some(chosen) = partitions {
                if chosen.is_empty() {
                    return Err(ApiError::bad_request(
                        "partitions",
                        "Name at least one partition.",
                    ));
                }
                if let Some(p) =
                    chosen.iter().find(|p| !topic.partitions.iter().any(|q| q.id == **p))
                {
                    return Err(ApiError::not_found(format!(
                        "Topic \"{name}\" has no partition {p}."
                    )));
                }
                topic.partitions.retain(|p| chosen.contains(&p.id));
            }
            Ok(vec![topic])
        }
        (None, None) => {
            let mut names: Vec<&str> = group.offsets.iter().map(|(t, _, _)| t.as_str()).collect();
            names.dedup();
            if names.is_empty() {
                return Err(ApiError::bad_request(
                    "topic",
                    format!("Group \"{}\" has no committed offsets yet: name a topic.", group.id),
                ));
            }
            // A topic deleted since the group committed on it is left out, and so is one the
            // caller may not see.
            Ok(names.into_iter().filter_map(|n| listed(n).ok()).filter(|t| sees(t)).collect())
        }
    }
}

pub async fn reset_offsets(
    service: &Service, caller: &Caller, args: ResetOffsetsArgs,
) -> Result<OffsetPlan, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::ResetOffsets, &args, &["plan"]);
    // What the audit keeps of the outcome: the plan's size and whether it applied.
    let outcome = |p: &OffsetPlan| {
        Some(json!({ "applied": p.applied, "stale": p.stale, "partitions": p.partitions.len() }))
    };
    let group = args.group.clone();
    let decide =
        |cluster: &str, privilege| decide_group(service, caller, cluster, privilege, &group);
    service
        .write_on(caller, attempt, outcome, decide, |granted, id| async move {
            let cluster = args.cluster;
            // A topic named is decided on before klens looks it up: one the caller's scope hides
            // answers exactly as one that does not exist, whatever its partitions.
            if let Some(named) = args.topic.given() {
                service.check_topic(caller, &cluster, Privilege::ResetOffsets, named)?;
            }
            let topic = args.topic.optional("topic")?;
            let partitions = args.partitions.optional("partitions")?;
            let to = args.to.required("to")?;
            let value = match to {
                ResetTo::Earliest | ResetTo::Latest => args.value.optional("value")?.unwrap_or(0),
                _ => args.value.required("value")?,
            };
            if matches!(to, ResetTo::Timestamp | ResetTo::Duration) && value < 0 {
                return Err(ApiError::bad_request(
                    "value",
                    "A time or a duration is 0 ms or more.",
                ));
            }
            if to == ResetTo::Duration && value > now_ms() {
                return Err(ApiError::bad_request(
                    "value",
                    "That duration reaches back before 1970.",
                ));
            }
            let dry_run = args.dry_run.or("dry_run", false)?;
            let sent = args.plan.optional("plan")?;
            if !dry_run && sent.is_none() {
                return Err(ApiError::bad_request(
                    "plan",
                    "To apply a reset, send the plan its dry run answered; klens applies exactly \
                     that plan.",
                ));
            }
            let (group, coordinator, mut grant) =
                group_now(service, caller, &granted, Privilege::ResetOffsets, &id).await?;
            refuse_if_busy(&group, "reset its offsets")?;
            let access = service.access(caller, &cluster)?;
            let sees = |t: &Topic| {
                access.sees(&Resource::Topic { name: t.name.clone(), internal: t.internal })
            };
            let topics = scope(&granted, &group, topic, partitions, sees)?;
            for topic in &topics {
                service.check_topic(caller, &cluster, Privilege::ResetOffsets, &topic.name)?;
            }
            let link = granted.link();
            let now =
                admin::groups::reset_plan(&link, &group, &topics, to, value, now_ms()).await?;
            let answer = |applied, stale, partitions| {
                OffsetPlan::of(&cluster, &id, applied, stale, partitions)
            };
            let Some(sent) = sent.filter(|_| !dry_run) else {
                return Ok(answer(false, false, now));
            };
            // Records deleted since the plan can leave its offset below the partition's start: the
            // plan no longer says what it would do, so it is stale too.
            let below_start = sent.iter().any(|p| {
                now.iter().any(|m| m.topic == p.topic && m.partition == p.partition && p.to < m.low)
            });
            if below_start || !admin::groups::still_current(&sent, &now) {
                return Ok(answer(false, true, now));
            }
            // A plan sent back may not move an offset past the end of its partition.
            let outside = |p: &app::api::PlannedOffset| {
                now.iter()
                    .find(|m| m.topic == p.topic && m.partition == p.partition)
                    .is_none_or(|m| p.to > m.end)
            };
            if let Some(bad) = sent.iter().find(|p| p.to < 0 || outside(p)) {
                return Err(ApiError::bad_request(
                    "plan",
                    format!(
                        "Partition {} of \"{}\" cannot go to offset {}.",
                        bad.partition, bad.topic, bad.to
                    ),
                ));
            }
            service.open(&mut grant).await?;
            admin::groups::commit_plan(&grant, &link, &coordinator, &id, &sent).await?;
            // What the plan moved, as the plan said (each from where it started).
            let done: Vec<app::api::OffsetMove> = now
                .iter()
                .map(|m| {
                    let to = sent
                        .iter()
                        .find(|p| p.topic == m.topic && p.partition == m.partition)
                        .map_or(m.to, |p| p.to);
                    admin::groups::movement(&m.topic, m.partition, m.from, to, m.low, m.end)
                })
                .collect();
            refresh(&granted, &group, &coordinator).await;
            Ok(answer(true, false, done))
        })
        .await
}

/// Kafka refuses changes to a group with members; klens says so first and names them.
fn refuse_if_busy(group: &Group, what: &str) -> Result<(), ApiError> {
    admin::groups::refuse_members(group, what)
}

/// Reads the group again from the coordinator that made the change, into the projection.
async fn refresh(granted: &Granted, group: &Group, coordinator: &Broker) {
    let fresh =
        admin::groups::group_at(&granted.link(), coordinator, &group.id, &group.kind).await.ok();
    granted.entry.apply_group(&group.id, fresh);
}

pub async fn delete_offsets(
    service: &Service, caller: &Caller, cluster: &str, group: Arg<String>, topic: Arg<String>,
) -> Result<GroupChanged, ApiError> {
    let attempt = Attempt::of(
        cluster,
        Privilege::DeleteOffsets,
        &json!({ "group": group, "topic": topic }),
        &[],
    );
    group_write(service, caller, attempt, &group, |granted, id| async move {
        let topic = topic.required("topic")?;
        TopicName::check(&topic, "topic")?;
        service.check_topic(caller, cluster, Privilege::DeleteOffsets, &topic)?;
        let (group, coordinator, mut grant) =
            group_now(service, caller, &granted, Privilege::DeleteOffsets, &id).await?;
        let partitions: Vec<i32> =
            group.offsets.iter().filter(|(t, _, _)| *t == topic).map(|(_, p, _)| *p).collect();
        if partitions.is_empty() {
            return Err(ApiError::not_found(format!(
                "Group \"{id}\" has no committed offsets on \"{topic}\"."
            )));
        }
        refuse_if_busy(&group, "delete its offsets")?;
        service.open(&mut grant).await?;
        admin::groups::delete_offsets(
            &grant,
            &granted.link(),
            &coordinator,
            &id,
            &topic,
            &partitions,
        )
        .await?;
        refresh(&granted, &group, &coordinator).await;
        Ok(GroupChanged { cluster: cluster.to_string(), group: id, topic: Some(topic), partitions })
    })
    .await
}

pub async fn delete_group(
    service: &Service, caller: &Caller, cluster: &str, group: Arg<String>,
) -> Result<GroupChanged, ApiError> {
    let attempt = Attempt::of(cluster, Privilege::DeleteGroups, &json!({ "group": group }), &[]);
    group_write(service, caller, attempt, &group, |granted, id| async move {
        let (group, coordinator, mut grant) =
            group_now(service, caller, &granted, Privilege::DeleteGroups, &id).await?;
        refuse_if_busy(&group, "delete it")?;
        service.open(&mut grant).await?;
        admin::groups::delete_group(&grant, &granted.link(), &coordinator, &id).await?;
        granted.entry.apply_group(&id, None);
        Ok(GroupChanged {
            cluster: cluster.to_string(),
            group: id,
            topic: None,
            partitions: Vec::new(),
        })
    })
    .await
}

// The server functions this capability answers.
serves!(app::api::ResetOffsets, |s, c, a| reset_offsets(&s, &c, a.args));
serves!(app::api::DeleteOffsets, |s, c, a| delete_offsets(&s, &c, &a.cluster, a.group, a.topic));
serves!(app::api::DeleteGroup, |s, c, a| delete_group(&s, &c, &a.cluster, a.group));
