//! Moving records: a selection of a topic's records copied to another topic (on the same
//! cluster or another), or redriven to the topic each dead-letter record's headers name. A dry
//! run says what would go where; the copy itself runs as a job whose progress outlives the
//! page that started it.

use super::Answer;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::Arg;

/// The arguments of `copy_records` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CopyArgs {
    /// The source's cluster.
    pub cluster: String,
    /// The source topic.
    pub topic: Arg<String>,
    /// One partition of the source; all without it.
    pub partition: Arg<i32>,
    /// With `partition`: the first offset to copy.
    pub offset: Arg<i64>,
    /// With `partition`: the offset to stop before.
    pub until_offset: Arg<i64>,
    /// `earliest` (the default), or a time in ms: each partition starts at its first record
    /// at or after it.
    pub from: Arg<String>,
    /// A time in ms: each partition stops at its first record newer than it.
    pub to: Arg<i64>,
    /// The filters of a page: text, exact, and a CEL expression.
    pub q: Arg<String>,
    pub exact: Arg<bool>,
    pub expr: Arg<String>,
    /// The most records to copy.
    pub limit: Arg<u64>,
    /// Where a copy goes: a cluster (default the source's) and a topic. Without a topic, the
    /// copy is a redrive: each record goes back to the topic its dead-letter headers name, on
    /// the source's cluster.
    pub target_cluster: Arg<String>,
    pub target_topic: Arg<String>,
    /// Keep each record's timestamp (default: the time of the copy).
    pub keep_timestamps: Arg<bool>,
    /// The most records written per second.
    pub rate: Arg<u32>,
    /// `true`: say what would be copied where, and copy nothing.
    pub dry_run: Arg<bool>,
}

/// One topic a copy writes to, with what the dry run found for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyTarget {
    pub cluster: String,
    pub topic: String,
    /// Records the selection holds for it.
    pub records: u64,
    /// Why the caller may not write there; `None` when they may.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// `kept` (the partition counts match, or a redrive's header names the partition) or
    /// `by_key` (the producer places each record by its key).
    pub placement: String,
}

/// Records a copy leaves out, by reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopySkipped {
    pub reason: String,
    pub records: u64,
}

/// One record of the dry run's sample: where it is and where it would go.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopySample {
    pub partition: i32,
    pub offset: i64,
    pub target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_partition: Option<i32>,
    /// Header names taken off the record.
    pub stripped: Vec<String>,
}

/// What a dry run found: the records of the selection (read up to the ends it fixed) and
/// where each would go.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyPlan {
    pub cluster: String,
    pub topic: String,
    pub redrive: bool,
    /// Each partition's range: (partition, first offset, offset it stops before).
    pub spans: Vec<(i32, i64, i64)>,
    /// Records read for the plan.
    pub scanned: u64,
    /// Records that passed the filters.
    pub matched: u64,
    /// The read stopped at its time limit or budget: the counts are of what it read.
    pub partial: bool,
    pub targets: Vec<CopyTarget>,
    pub skipped: Vec<CopySkipped>,
    /// Header names a redrive takes off (error headers), over the whole selection.
    pub stripped: Vec<String>,
    pub sample: Vec<CopySample>,
}

/// Where a copy job is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CopyState {
    #[default]
    Running,
    Done,
    Cancelled,
    Failed,
}

/// A copy under way or ended, as its owner sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyJob {
    pub id: String,
    pub cluster: String,
    pub topic: String,
    /// `cluster/topic`, or `redrive`.
    pub target: String,
    pub state: CopyState,
    /// ms since the epoch.
    pub started: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<i64>,
    /// Records in the selection's ranges: what the job reads at most.
    pub total: u64,
    pub scanned: u64,
    pub copied: u64,
    /// Left out: no target in their headers, a target refused, over the limit.
    pub skipped: u64,
    /// Not written: Kafka refused them.
    pub failed: u64,
    /// Records written, per target (`cluster/topic`).
    pub targets: Vec<(String, u64)>,
    /// Why it failed, or the first record Kafka refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The answer of `copy_records`: the plan of a dry run, or the job that started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyAnswer {
    pub dry_run: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<CopyPlan>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<CopyJob>,
}

/// The caller's copy jobs, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyJobList {
    pub jobs: Vec<CopyJob>,
}

serve! {
    /// Copies or redrives a selection of records (RECORDS on the source, PRODUCE on each
    /// target, writable target clusters), or with `dry_run` says what would go where.
    Json "copy_records" fn copy_records(#[server(flatten)] args: CopyArgs) -> CopyAnswer as CopyRecords;

    /// The caller's copy jobs on a cluster, newest first.
    GetUrl "copy_jobs" fn copy_jobs(cluster: String) -> CopyJobList as CopyJobs;

    /// Stops one of the caller's copy jobs; what it copied stays copied.
    Json "cancel_copy" fn cancel_copy(cluster: String, id: Arg<String>) -> CopyJob as CancelCopy;
}
