//! Consumer-group changes: resetting offsets by a plan that is applied exactly as shown,
//! deleting a group's offsets on a topic, deleting a group. Each is behind its own privilege on
//! the group, on a writable cluster.

use super::Answer;
use leptos::server_fn::codec::Json;
use serde::{Deserialize, Serialize};

use super::Arg;

/// Where a reset moves each partition's committed offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResetTo {
    /// The partition's low watermark.
    Earliest,
    /// The partition's high watermark: every record so far counts as read.
    Latest,
    /// `value` itself.
    Offset,
    /// The first record at or after `value` (ms since the epoch).
    Timestamp,
    /// The committed offset plus `value` (negative: back).
    Shift,
    /// The first record at or after `value` ms ago.
    Duration,
}

/// The arguments of `reset_offsets` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResetOffsetsArgs {
    pub cluster: String,
    pub group: Arg<String>,
    /// One topic; every topic the group has committed offsets on when missing.
    pub topic: Arg<String>,
    /// Some partitions of `topic`; all of them when missing.
    pub partitions: Arg<Vec<i32>>,
    pub to: Arg<ResetTo>,
    /// The offset, time, shift or duration `to` needs.
    pub value: Arg<i64>,
    /// `true`: answer the plan and change nothing.
    pub dry_run: Arg<bool>,
    /// To apply: the plan a dry run answered. klens applies it only while the group's offsets
    /// are still those the plan started from.
    pub plan: Arg<Vec<PlannedOffset>>,
}

/// One partition of a plan as a client sends it back to apply it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedOffset {
    pub topic: String,
    pub partition: i32,
    /// The committed offset the plan started from (`null`: none).
    pub from: Option<i64>,
    pub to: i64,
}

/// One partition of a plan: where its committed offset is and where it goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetMove {
    pub topic: String,
    pub partition: i32,
    /// The committed offset now (`null`: none).
    pub from: Option<i64>,
    pub to: i64,
    pub low: i64,
    pub end: i64,
    pub lag_before: Option<u64>,
    pub lag_after: u64,
    /// Records the group will not read (the offset moves forward over them).
    pub skipped: u64,
    /// Records the group will read again (the offset moves back over them).
    pub reread: u64,
}

/// The answer of `reset_offsets`: the plan, and whether it was applied. `stale` says the
/// group's offsets had moved since the plan sent: nothing changed, and `partitions` is the plan
/// as it stands now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetPlan {
    pub cluster: String,
    pub group: String,
    pub applied: bool,
    pub stale: bool,
    pub partitions: Vec<OffsetMove>,
    pub skipped: u64,
    pub reread: u64,
}

impl OffsetPlan {
    /// The answer for `partitions` of `group`, with what they skip and read again in all.
    pub fn of(
        cluster: &str, group: &str, applied: bool, stale: bool, partitions: Vec<OffsetMove>,
    ) -> OffsetPlan {
        OffsetPlan {
            cluster: cluster.to_string(),
            group: group.to_string(),
            applied,
            stale,
            skipped: partitions.iter().map(|m| m.skipped).sum(),
            reread: partitions.iter().map(|m| m.reread).sum(),
            partitions,
        }
    }

    /// The plan as a client sends it back to apply it.
    pub fn to_apply(&self) -> Vec<PlannedOffset> {
        self.partitions
            .iter()
            .map(|m| PlannedOffset {
                topic: m.topic.clone(),
                partition: m.partition,
                from: m.from,
                to: m.to,
            })
            .collect()
    }
}

/// The answer of `delete_offsets` and `delete_group`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupChanged {
    pub cluster: String,
    pub group: String,
    /// The topic whose offsets were deleted (`delete_offsets`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// The partitions whose offsets were deleted (`delete_offsets`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partitions: Vec<i32>,
}

serve! {
    /// Resets a group's committed offsets (RESET_OFFSETS on the group, on a writable cluster).
    Json "reset_offsets" fn reset_offsets(
        #[server(flatten)] args: ResetOffsetsArgs
    ) -> OffsetPlan as ResetOffsets;

    /// Deletes a group's committed offsets on one topic (DELETE_OFFSETS on the group).
    Json "delete_offsets" fn delete_offsets(
        cluster: String,
        group: Arg<String>,
        topic: Arg<String>,
    ) -> GroupChanged as DeleteOffsets;

    /// Deletes an empty consumer group (DELETE_GROUPS on the group).
    Json "delete_group" fn delete_group(
        cluster: String, group: Arg<String>
    ) -> GroupChanged as DeleteGroup;
}
