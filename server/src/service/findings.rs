//! Plain findings about a consumer group that a person or an agent can act on, from the same
//! detail the Group page shows, and the lag each group showed when last described with them.

use std::collections::BTreeMap;

use app::api::GroupDetail;

/// Lag on one member this share of the group's lag or more is "concentrated".
const CONCENTRATED: f64 = 0.8;

/// The lag an earlier call saw: when (ms since the epoch) and how much.
pub type EarlierLag = Option<(i64, u64)>;

pub fn findings(group: &GroupDetail, earlier: EarlierLag) -> Vec<String> {
    let mut out = Vec::new();
    if let (Some((then, before)), Some(now)) = (earlier, group.lag) {
        let seconds = (group.served_at - then) as f64 / 1000.0;
        if now > before && seconds > 0.0 {
            out.push(format!(
                "Lag grew from {before} to {now} records in the {seconds:.0} s since the last read: the group falls behind its producers."
            ));
        }
    }
    let state = group.state.to_ascii_lowercase();
    if group.members.is_empty() {
        out.push("The group has no members: nothing consumes its partitions now.".to_string());
    }
    if state.contains("rebalanc") || state.contains("preparing") || state.contains("completing") {
        out.push(format!(
            "The group is rebalancing (state {}): consumption pauses until it settles.",
            group.state
        ));
    }
    let assigned: BTreeMap<(String, i32), String> = group
        .members
        .iter()
        .flat_map(|m| {
            m.assignments.iter().map(move |a| ((a.topic.clone(), a.partition), m.member_id.clone()))
        })
        .collect();
    let committed: Vec<&app::api::GroupOffset> =
        group.offsets.iter().filter(|o| o.committed.is_some()).collect();
    let partitions = committed.len();
    let bare: Vec<String> = group
        .offsets
        .iter()
        .filter(|o| o.committed.is_none())
        .map(|o| format!("{}/{}", o.topic, o.partition))
        .collect();
    if !bare.is_empty() {
        out.push(format!(
            "{} partitions of its topics have no committed offset ({}): their records count as lag, as a read from the earliest would take them.",
            bare.len(),
            bare.iter().take(10).cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    if !group.members.is_empty() && group.members.len() > partitions && partitions > 0 {
        out.push(format!(
            "The group has {} members for {partitions} partitions with committed offsets: {} members get nothing to read.",
            group.members.len(),
            group.members.len() - partitions
        ));
    }
    if !group.members.is_empty() {
        let unassigned: Vec<String> = committed
            .iter()
            .filter(|o| !assigned.contains_key(&(o.topic.clone(), o.partition)))
            .map(|o| format!("{}/{}", o.topic, o.partition))
            .collect();
        if !unassigned.is_empty() {
            out.push(format!(
                "{} partitions with committed offsets are assigned to no member: {}.",
                unassigned.len(),
                unassigned.iter().take(10).cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let total: u64 = group.offsets.iter().filter_map(|o| o.lag).sum();
    if total > 0 && group.members.len() > 1 {
        let mut by_member: BTreeMap<&str, u64> = BTreeMap::new();
        for o in &group.offsets {
            if let (Some(lag), Some(member)) =
                (o.lag, assigned.get(&(o.topic.clone(), o.partition)))
            {
                *by_member.entry(member.as_str()).or_default() += lag;
            }
        }
        if let Some((member, lag)) = by_member.iter().max_by_key(|(_, lag)| **lag) {
            if *lag as f64 >= CONCENTRATED * total as f64 {
                out.push(format!(
                    "{} of the group's {} records of lag ({:.0} %) sit on one member, {member}: it may be slow or stuck.",
                    lag,
                    total,
                    *lag as f64 * 100.0 / total as f64
                ));
            }
        }
    }
    out
}

/// The lag each group showed when it was last described with findings, so the next
/// description can say whether it grew. Bounded: the oldest entries go first.
#[derive(Default)]
pub struct LagMemory {
    seen: std::collections::HashMap<(String, String), (i64, u64)>,
}

/// The most groups whose lag is remembered.
const LAG_MEMORY: usize = 2_000;

impl LagMemory {
    /// The lag remembered for `key`, and `now` remembered in its place.
    pub fn swap(&mut self, key: (String, String), now: Option<(i64, u64)>) -> EarlierLag {
        let before = match now {
            Some(now) => self.seen.insert(key, now),
            None => self.seen.remove(&key),
        };
        if self.seen.len() > LAG_MEMORY {
            if let Some(oldest) =
                self.seen.iter().min_by_key(|(_, (t, _))| *t).map(|(k, _)| k.clone())
            {
                self.seen.remove(&oldest);
            }
        }
        before
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::api::{GroupMember, GroupOffset, TopicPartitionRef};

    fn offset(partition: i32, lag: u64) -> GroupOffset {
        GroupOffset {
            topic: "orders".into(),
            partition,
            committed: Some(0),
            end: Some(lag as i64),
            lag: Some(lag),
        }
    }

    fn member(id: &str, partitions: &[i32]) -> GroupMember {
        GroupMember {
            member_id: id.into(),
            client_id: "c".into(),
            host: "/10.0.0.1".into(),
            assignments: partitions
                .iter()
                .map(|p| TopicPartitionRef { topic: "orders".into(), partition: *p })
                .collect(),
        }
    }

    fn group(state: &str, members: Vec<GroupMember>, offsets: Vec<GroupOffset>) -> GroupDetail {
        GroupDetail {
            group: "g".into(),
            state: state.into(),
            protocol_type: "consumer".into(),
            coordinator: 1,
            members,
            offsets,
            lag: None,
            refreshed_at: None,
            served_at: 0,
            error: None,
            connector: None,
        }
    }

    fn findings_of(g: &GroupDetail) -> Vec<String> {
        findings(g, None)
    }

    #[test]
    fn lag_that_grew_since_the_last_read_is_a_finding() {
        let mut g = group("Stable", vec![member("a", &[0])], vec![offset(0, 50)]);
        g.lag = Some(50);
        g.served_at = 10_000;
        assert!(
            findings(&g, Some((5_000, 20)))[0].contains("grew from 20 to 50 records in the 5 s")
        );
        assert!(findings(&g, Some((5_000, 80))).is_empty());
        assert!(findings(&g, None).is_empty());
    }

    #[test]
    fn each_finding_comes_from_its_own_shape() {
        let empty = findings_of(&group("Empty", vec![], vec![offset(0, 5)]));
        assert!(empty[0].contains("no members"), "{empty:?}");
        let crowd = findings_of(&group(
            "Stable",
            vec![member("a", &[0]), member("b", &[]), member("c", &[])],
            vec![offset(0, 0)],
        ));
        assert!(crowd.iter().any(|f| f.contains("3 members for 1 partitions")), "{crowd:?}");
        let gap = findings_of(&group(
            "Stable",
            vec![member("a", &[0])],
            vec![offset(0, 0), offset(1, 0)],
        ));
        assert!(gap.iter().any(|f| f.contains("orders/1")), "{gap:?}");
        let hot = findings_of(&group(
            "Stable",
            vec![member("a", &[0]), member("b", &[1])],
            vec![offset(0, 900), offset(1, 10)],
        ));
        assert!(hot.iter().any(|f| f.contains("one member, a")), "{hot:?}");
        let moving =
            findings_of(&group("PreparingRebalance", vec![member("a", &[0])], vec![offset(0, 0)]));
        assert!(moving.iter().any(|f| f.contains("rebalancing")), "{moving:?}");
        let calm = findings_of(&group(
            "Stable",
            vec![member("a", &[0]), member("b", &[1])],
            vec![offset(0, 10), offset(1, 10)],
        ));
        assert!(calm.is_empty(), "{calm:?}");
    }
}
