//! Consumer groups from the catalog: every group's state, members, committed offsets and lag.
//! No privilege is needed to read them.

use super::Answer;
use leptos::server_fn::codec::GetUrl;
use serde::{Deserialize, Serialize};

use super::{Arg, SortKey, WindowArgs};

/// One row of `GET /api/groups`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupSummary {
    pub group: String,
    /// Kafka's state name: Stable, Empty, PreparingRebalance, CompletingRebalance, Dead, …
    pub state: String,
    /// How many members the group has now.
    pub members: u64,
    /// How many topics it has committed offsets on.
    pub topics: u64,
    /// The sum of its partitions' lag; `None` when no end offset of its partitions is known.
    pub lag: Option<u64>,
}

/// `GET /api/groups`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupList {
    /// When the groups were last read successfully, ms since the epoch.
    pub refreshed_at: Option<i64>,
    /// Why the last read failed, while the list shown is older.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When klens answered, ms since the epoch.
    pub served_at: i64,
    /// Groups in the cluster, and how many passed the filter.
    pub total: u64,
    pub matched: u64,
    /// The rows of the window asked for: every group unless a filter or page was given.
    pub groups: Vec<GroupSummary>,
}

impl GroupSummary {
    /// The value of a sortable column of the groups table.
    pub fn sort_key(&self, column: &str) -> Option<SortKey> {
        let n = |v: Option<f64>| Some(SortKey::Number(v));
        match column {
            "state" => Some(SortKey::Text(self.state.clone())),
            "members" => n(Some(self.members as f64)),
            "topics" => n(Some(self.topics as f64)),
            "lag" => n(self.lag.map(|v| v as f64)),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicPartitionRef {
    pub topic: String,
    pub partition: i32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupMember {
    pub member_id: String,
    pub client_id: String,
    pub host: String,
    pub assignments: Vec<TopicPartitionRef>,
}

/// One partition's position in a group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupOffset {
    pub topic: String,
    pub partition: i32,
    /// `None` for a partition of one of the group's topics it has committed nothing on.
    pub committed: Option<i64>,
    /// The partition's high watermark, when known.
    pub end: Option<i64>,
    /// `end − committed`, never negative (for a partition without a commit, every record it
    /// holds: what the group reads from the earliest); `None` without the watermarks.
    pub lag: Option<u64>,
}

/// `GET /api/group`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupDetail {
    pub group: String,
    pub state: String,
    /// `consumer`, `connect`, … as the group's members declare; empty when it has none.
    pub protocol_type: String,
    /// The broker coordinating the group.
    pub coordinator: i32,
    pub members: Vec<GroupMember>,
    pub offsets: Vec<GroupOffset>,
    /// The sum of `offsets[].lag`, `None` when none is known.
    pub lag: Option<u64>,
    /// When the group's offsets were read, ms since the epoch.
    pub refreshed_at: Option<i64>,
    /// When klens answered, ms since the epoch.
    pub served_at: i64,
    /// Kafka's error when the group could not be described or its offsets read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The Kafka Connect sink that commits under this group, when the caller may see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connector: Option<super::ConnectorRef>,
}

impl GroupDetail {
    /// The group as the decision sees it: by its name and the topics it has offsets on or is
    /// assigned, through which a resource scope may cover it.
    pub fn resource(&self) -> crate::access::Resource {
        let offsets = self.offsets.iter().map(|o| o.topic.clone());
        let assigned =
            self.members.iter().flat_map(|m| m.assignments.iter().map(|a| a.topic.clone()));
        crate::access::Resource::group_on(&self.group, offsets.chain(assigned))
    }
}

/// Lag of one partition: how far the committed offset is behind the end.
pub fn partition_lag(committed: i64, end: Option<i64>) -> Option<u64> {
    end.map(|end| u64::try_from(end - committed).unwrap_or(0))
}

serve! {
    /// The consumer groups of a cluster, from the catalog: all of them, or the window the
    /// optional arguments describe (as for `topics`).
    GetUrl "groups" fn groups(
        cluster: String, #[server(flatten)] window: WindowArgs
    ) -> GroupList as Groups;

    /// One consumer group: members, assignments, committed offsets and lag.
    GetUrl "group" fn group(
        cluster: String, group: Arg<String>
    ) -> GroupDetail as Group;
}

#[cfg(test)]
mod tests {
    use super::partition_lag;

    #[test]
    fn lag_is_never_negative_and_needs_an_end() {
        assert_eq!(partition_lag(5, Some(12)), Some(7));
        assert_eq!(partition_lag(12, Some(12)), Some(0));
        assert_eq!(partition_lag(15, Some(12)), Some(0));
        assert_eq!(partition_lag(5, None), None);
    }
}
