//! Consumer-group changes: the plan of a reset (pure, below), committing it, deleting a
//! group's offsets on a topic and deleting a group. Each reads the group afresh from its
//! coordinator first, refuses a group with members before Kafka would, and checks its grant.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use app::api::{OffsetMove, PlannedOffset, ResetTo};
use app::error::Flavor;
use app::{ApiError, ErrorCode, Privilege};

use super::{clients_of, wire_of, wire_refusal};
use crate::auth::Grant;
use crate::kafka::wire::{Group, WireError};
use crate::kafka::{Broker, Link, Topic};

/// The group as its coordinator describes it now, and the coordinator.
pub async fn group_now(
    link: &Link, known: &[Broker], id: &str, kind: &str,
) -> Result<(Group, Broker), ApiError> {
    let coordinator =
        wire_of(link)?.coordinator(known, id).await.map_err(|e| unreachable_group(id, &e))?;
    let group = group_at(link, &coordinator, id, kind).await?;
    Ok((group, coordinator))
}

/// The group as its coordinator describes it now, and the coordinator; a group Kafka does not
/// know yet (one that has never committed on this cluster, as before a failover) is an empty
/// one, in state `Dead` as Kafka's tools call it.
pub async fn group_now_or_new(
    link: &Link, known: &[Broker], id: &str, kind: &str,
) -> Result<(Group, Broker), ApiError> {
    let coordinator =
        wire_of(link)?.coordinator(known, id).await.map_err(|e| unreachable_group(id, &e))?;
    let group = described(link, &coordinator, id, kind, true).await?;
    Ok((group, coordinator))
}

/// The group as `coordinator` describes it now.
pub async fn group_at(
    link: &Link, coordinator: &Broker, id: &str, kind: &str,
) -> Result<Group, ApiError> {
    described(link, coordinator, id, kind, false).await
}

async fn described(
    link: &Link, coordinator: &Broker, id: &str, kind: &str, new_is_empty: bool,
) -> Result<Group, ApiError> {
    let mut group =
        wire_of(link)?.group(coordinator, id, kind).await.map_err(|e| unreachable_group(id, &e))?;
    if new_is_empty && group.error.as_deref() == Some("GroupIdNotFound") {
        group.error = None;
        group.state = "Dead".to_string();
    }
    if let Some(error) = &group.error {
        return Err(ApiError::new(
            ErrorCode::Client,
            format!("Kafka could not describe group \"{id}\": {error}."),
        ));
    }
    Ok(group)
}

fn unreachable_group(id: &str, error: &WireError) -> ApiError {
    ApiError::new(
        ErrorCode::Client,
        format!("klens could not reach the coordinator of group \"{id}\": {error}."),
    )
}

/// Kafka changes a group's offsets only while it has no members; klens says so first, naming
/// them, so the operator knows which consumers to stop.
pub fn refuse_members(group: &Group, what: &str) -> Result<(), ApiError> {
    if group.members.is_empty() {
        return Ok(());
    }
    let names: Vec<String> =
        group.members.iter().take(10).map(|m| format!("{} on {}", m.client_id, m.host)).collect();
    let more = group.members.len().saturating_sub(names.len());
    let listed =
        if more > 0 { format!("{} and {more} more", names.join(", ")) } else { names.join(", ") };
    Err(ApiError {
        flavor: Flavor::ConflictOrTimeout,
        ..ApiError::new(
            ErrorCode::Admin,
            format!(
                "Group \"{}\" has {} member{} ({listed}); stop them before you {what}.",
                group.id,
                group.members.len(),
                if group.members.len() == 1 { "" } else { "s" }
            ),
        )
    })
}

/// Where one partition's offset goes: `None` leaves the partition out (a shift of a partition
/// without a committed offset has nothing to shift). Clamped to the partition's records.
pub fn target(
    from: Option<i64>, low: i64, end: i64, to: ResetTo, value: i64, at_time: Option<i64>,
) -> Option<i64> {
    let wanted = match to {
        ResetTo::Earliest => low,
        ResetTo::Latest => end,
        ResetTo::Offset => value,
        // No record at or after the time: the end, as Kafka's own tool does.
        ResetTo::Timestamp | ResetTo::Duration => at_time.unwrap_or(end),
        ResetTo::Shift => from?.saturating_add(value),
    };
    Some(wanted.clamp(low.min(end), end))
}

/// One partition's move, with what it does to the group's lag.
pub fn movement(
    topic: &str, partition: i32, from: Option<i64>, to: i64, low: i64, end: i64,
) -> OffsetMove {
    let lag_before = from.map(|f| u64::try_from(end - f.max(low)).unwrap_or(0));
    OffsetMove {
        topic: topic.to_string(),
        partition,
        from,
        to,
        low,
        end,
        lag_before,
        lag_after: u64::try_from(end - to).unwrap_or(0),
        skipped: from.map_or(0, |f| u64::try_from(to - f.max(low)).unwrap_or(0)),
        reread: from.map_or(0, |f| u64::try_from(f - to).unwrap_or(0)),
    }
}

/// The plan of a reset of `group` on `topics` (each with the partitions in scope), as things
/// stand now.
pub async fn reset_plan(
    link: &Link, group: &Group, topics: &[Topic], to: ResetTo, value: i64, now_ms: i64,
) -> Result<Vec<OffsetMove>, ApiError> {
    let clients = clients_of(link)?;
    let (c, t) = (Arc::clone(&clients), topics.to_vec());
    let marks = crate::kafka::blocking("reading offsets", move || {
        c.fetch_watermarks(&t, crate::kafka::WATERMARK_TIMEOUT)
    })
    .await
    .map_err(ApiError::from)?;
    let at_ms = match to {
        ResetTo::Timestamp => Some(value),
        ResetTo::Duration => Some(now_ms.saturating_sub(value)),
        _ => None,
    };
    let mut at_time: HashMap<(String, i32), i64> = HashMap::new();
    if let Some(ts) = at_ms {
        for topic in topics {
            let (c, name) = (Arc::clone(&clients), topic.name.clone());
            let partitions: Vec<i32> = topic.partitions.iter().map(|p| p.id).collect();
            let found = crate::kafka::blocking("reading offsets", move || {
                c.offsets_at(&name, &partitions, ts, crate::kafka::WATERMARK_TIMEOUT)
            })
            .await
            .map_err(ApiError::from)?;
            at_time.extend(found.into_iter().map(|(p, o)| ((topic.name.clone(), p), o)));
        }
    }
    let committed: HashMap<(String, i32), i64> =
        group.offsets.iter().map(|(t, p, o)| ((t.clone(), *p), *o)).collect();
    let mut plan = Vec::new();
    for topic in topics {
        for p in &topic.partitions {
            let key = (topic.name.clone(), p.id);
            let Some(&(low, end)) = marks.get(&key) else {
                return Err(ApiError::new(
                    ErrorCode::Client,
                    format!(
                        "klens could not read the offsets of partition {} of \"{}\".",
                        p.id, topic.name
                    ),
                ));
            };
            let from = committed.get(&key).copied();
            if let Some(to) = target(from, low, end, to, value, at_time.get(&key).copied()) {
                plan.push(movement(&topic.name, p.id, from, to, low, end));
            }
        }
    }
    Ok(plan)
}

/// Whether `sent` is the plan `now` would make of the same offsets: the same partitions, each
/// starting from the committed offset it starts from now.
pub fn still_current(sent: &[PlannedOffset], now: &[OffsetMove]) -> bool {
    let now: BTreeMap<(&str, i32), Option<i64>> =
        now.iter().map(|m| ((m.topic.as_str(), m.partition), m.from)).collect();
    let sent_keys: BTreeMap<(&str, i32), Option<i64>> =
        sent.iter().map(|p| ((p.topic.as_str(), p.partition), p.from)).collect();
    sent.len() == sent_keys.len() && sent_keys == now
}

/// Commits `plan` for the group (RESET_OFFSETS on it). Any partition Kafka refuses fails the
/// call with Kafka's reason.
pub async fn commit_plan(
    grant: &Grant, link: &Link, coordinator: &Broker, group: &str, plan: &[PlannedOffset],
) -> Result<(), ApiError> {
    grant.require(Privilege::ResetOffsets, &app::access::Resource::group(group.to_string()))?;
    let wire = wire_of(link)?;
    let offsets: Vec<(String, i32, i64)> =
        plan.iter().map(|p| (p.topic.clone(), p.partition, p.to)).collect();
    let answers = wire
        .commit_offsets(grant, coordinator, group, &offsets)
        .await
        .map_err(|e| unreachable_group(group, &e))?;
    for (_, _, outcome) in answers {
        outcome.map_err(|r| wire_refusal("reset the offsets of group", group, r))?;
    }
    Ok(())
}

/// Deletes the group's committed offsets on `partitions` of `topic` (DELETE_OFFSETS on it).
pub async fn delete_offsets(
    grant: &Grant, link: &Link, coordinator: &Broker, group: &str, topic: &str, partitions: &[i32],
) -> Result<(), ApiError> {
    grant.require(Privilege::DeleteOffsets, &app::access::Resource::group(group.to_string()))?;
    let wire = wire_of(link)?;
    let answers = wire
        .delete_offsets(grant, coordinator, group, topic, partitions)
        .await
        .map_err(|e| unreachable_group(group, &e))?
        .map_err(|r| wire_refusal("delete the offsets of group", group, r))?;
    for (_, _, outcome) in answers {
        outcome.map_err(|r| wire_refusal("delete the offsets of group", group, r))?;
    }
    Ok(())
}

/// Deletes the group (DELETE_GROUPS on it).
pub async fn delete_group(
    grant: &Grant, link: &Link, coordinator: &Broker, group: &str,
) -> Result<(), ApiError> {
    grant.require(Privilege::DeleteGroups, &app::access::Resource::group(group.to_string()))?;
    let wire = wire_of(link)?;
    wire.delete_group(grant, coordinator, group)
        .await
        .map_err(|e| unreachable_group(group, &e))?
        .map_err(|r| wire_refusal("delete group", group, r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_reset_lands_inside_the_partition() {
        use ResetTo::*;
        // Records 100..200, committed at 150.
        let t = |to, value, at| target(Some(150), 100, 200, to, value, at);
        assert_eq!(t(Earliest, 0, None), Some(100));
        assert_eq!(t(Latest, 0, None), Some(200));
        assert_eq!(t(Offset, 120, None), Some(120));
        assert_eq!(t(Offset, 5, None), Some(100), "below the start: the start");
        assert_eq!(t(Offset, 900, None), Some(200), "past the end: the end");
        assert_eq!(t(Shift, -30, None), Some(120));
        assert_eq!(t(Shift, 80, None), Some(200));
        assert_eq!(t(Timestamp, 1, Some(170)), Some(170));
        assert_eq!(t(Timestamp, 1, None), Some(200), "no record after the time");
        assert_eq!(t(Duration, 1, Some(130)), Some(130));
        // A shift needs a committed offset.
        assert_eq!(target(None, 100, 200, Shift, 5, None), None);
        assert_eq!(target(None, 100, 200, Earliest, 0, None), Some(100));
        // An empty partition.
        assert_eq!(target(Some(7), 7, 7, Shift, -3, None), Some(7));
    }

    #[test]
    fn a_move_counts_what_is_skipped_and_read_again() {
        let back = movement("t", 0, Some(150), 120, 100, 200);
        assert_eq!((back.lag_before, back.lag_after), (Some(50), 80));
        assert_eq!((back.skipped, back.reread), (0, 30));
        let forward = movement("t", 0, Some(150), 200, 100, 200);
        assert_eq!((forward.skipped, forward.reread, forward.lag_after), (50, 0, 0));
        // A committed offset below the start (records deleted since) counts from the start.
        let stale = movement("t", 0, Some(40), 200, 100, 200);
        assert_eq!((stale.lag_before, stale.skipped), (Some(100), 100));
        let fresh = movement("t", 0, None, 100, 100, 200);
        assert_eq!((fresh.lag_before, fresh.skipped, fresh.reread), (None, 0, 0));
    }

    #[test]
    fn a_plan_is_current_while_every_partition_starts_where_it_did() {
        let now = vec![movement("t", 0, Some(10), 0, 0, 20), movement("t", 1, None, 0, 0, 20)];
        let sent = |from0: Option<i64>| {
            vec![
                PlannedOffset { topic: "t".into(), partition: 0, from: from0, to: 0 },
                PlannedOffset { topic: "t".into(), partition: 1, from: None, to: 0 },
            ]
        };
        assert!(still_current(&sent(Some(10)), &now));
        assert!(!still_current(&sent(Some(11)), &now), "a commit since");
        assert!(!still_current(&sent(Some(10))[..1], &now), "a partition missing");
        let mut twice = sent(Some(10));
        twice.push(twice[0].clone());
        assert!(!still_current(&twice, &now), "a partition twice");
    }
}
