//! Replications between clusters (REPLICATIONS to read): MirrorMaker 2 connectors on a Connect
//! cluster of the target, managed as one named replication. A replication shows on the
//! Replications page of its source and of its target.

use super::Answer;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::{Arg, ConfigVerdict, ConnectorSummary, OffsetPlan, PlannedOffset};

/// How a replicated topic is named on the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Naming {
    /// The same name as on the source.
    Identity,
    /// `<source>.<topic>`, MirrorMaker's default.
    Prefix,
}

/// A replication as lists show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicationSummary {
    pub name: String,
    /// The cluster it copies from.
    pub source: String,
    /// The cluster it copies into, whose Connect cluster runs it.
    pub target: String,
    pub connect: String,
    /// Topic names or globs it copies, and those it leaves out.
    pub topics: Vec<String>,
    pub exclude: Vec<String>,
    pub naming: Naming,
    /// Whether topic configs follow from the source.
    pub sync_configs: bool,
    /// Consumer groups (names or globs) whose offsets are checkpointed; none: no checkpoints.
    pub groups: Vec<String>,
    /// RUNNING, PAUSED, FAILED, ... as its connectors are (the worst of them).
    pub state: String,
    /// `healthy`, `lagging` (over the threshold), `failed` (a connector or task failed),
    /// `paused`, or `starting` (not every connector runs yet).
    pub health: String,
    /// For a failed replication, the first `Caused by:` line of what failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// Records on the source not yet on the target, over every partition replicated; `null`
    /// when klens could not tell.
    pub lag: Option<u64>,
    /// Source partitions it copies now.
    pub partitions: usize,
}

/// `GET /api/replications`: the replications from and into a cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicationList {
    pub cluster: String,
    pub replications: Vec<ReplicationSummary>,
    /// Records of lag past which a replication is `lagging`.
    pub lag_threshold: u64,
    /// Why some replications could not be read (a Connect cluster or a cluster not answering).
    pub errors: Vec<String>,
    pub served_at: i64,
}

/// One partition of a replicated topic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicatedPartition {
    pub topic: String,
    /// The copy's name on the target.
    pub target_topic: String,
    pub partition: i32,
    /// The source partition's end offset.
    pub source_end: Option<i64>,
    /// The next source offset not yet on the target, from MirrorMaker's newest offset sync and
    /// what the target holds past it.
    pub replicated_to: Option<i64>,
    pub lag: Option<u64>,
    /// The target partition's end offset.
    pub target_end: Option<i64>,
    /// Age of the newest record of the copy, ms, when asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newest_age_ms: Option<i64>,
}

/// A consumer group's offset as MirrorMaker translated it into the target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub group: String,
    /// The copy's name on the target.
    pub topic: String,
    pub partition: i32,
    /// The group's committed offset on the source.
    pub upstream: i64,
    /// The same place on the target.
    pub downstream: i64,
    /// When MirrorMaker wrote it, ms since the epoch.
    pub at: Option<i64>,
}

/// A replication named from a topic's page: the copy of this topic it makes elsewhere
/// (`copied_to`), or the topic this one is a copy of (`copied_from`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicationRef {
    pub name: String,
    /// `copied_to` or `copied_from`.
    pub direction: String,
    /// The other end: its cluster and the topic there.
    pub cluster: String,
    pub topic: String,
}

/// `GET /api/replication`: one replication with its partitions, tasks and checkpoints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicationDetail {
    pub cluster: String,
    pub replication: ReplicationSummary,
    pub partitions: Vec<ReplicatedPartition>,
    pub checkpoints: Vec<Checkpoint>,
    /// Its MirrorMaker connectors with their tasks.
    pub connectors: Vec<ConnectorSummary>,
    /// What klens could not read for the status (MirrorMaker's topics, a cluster's offsets).
    pub errors: Vec<String>,
    pub lag_threshold: u64,
    pub served_at: i64,
}

/// Names one replication: `cluster` is where the call is made from (its source or target).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplicationName {
    pub cluster: String,
    pub name: Arg<String>,
}

/// The arguments of creating or updating a replication; `cluster` is its target.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplicationArgs {
    pub cluster: String,
    pub name: Arg<String>,
    /// The source cluster.
    pub source: Arg<String>,
    /// The target's Connect cluster it runs on.
    pub connect: Arg<String>,
    /// Topic names or globs (`*`, `?`).
    pub topics: Arg<Vec<String>>,
    pub exclude: Arg<Vec<String>>,
    /// `identity` or `prefix` (default).
    pub naming: Arg<Naming>,
    /// Default true.
    pub sync_configs: Arg<bool>,
    /// Groups to checkpoint (names or globs); none: no checkpoint connector.
    pub groups: Arg<Vec<String>>,
    /// `true`: checked by klens and validated by Connect, nothing created or changed.
    pub dry_run: Arg<bool>,
}

/// The answer of creating or updating a replication.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicationConfigured {
    pub cluster: String,
    pub name: String,
    pub dry_run: bool,
    /// The MirrorMaker connectors it is made of, by name.
    pub connectors: Vec<String>,
    /// Connect's errors, over every connector.
    pub error_count: usize,
    pub verdicts: Vec<ConfigVerdict>,
    pub applied: bool,
}

/// The answer of pausing, resuming or deleting a replication.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicationChanged {
    pub cluster: String,
    pub name: String,
    /// `pause`, `resume` or `delete`.
    pub action: String,
    /// Its state right after (`null` once deleted).
    pub state: Option<String>,
}

/// The arguments of failing a group over to the target through the checkpoints.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FailoverArgs {
    /// The replication's target.
    pub cluster: String,
    pub name: Arg<String>,
    pub group: Arg<String>,
    /// `true`: the plan only.
    pub dry_run: Arg<bool>,
    /// To apply: the plan the dry run answered, applied only if it is still current.
    pub plan: Arg<Vec<PlannedOffset>>,
}

serve! {
    /// The replications from and into a cluster, with their state and lag (REPLICATIONS).
    GetUrl "replications" fn replications(cluster: String) -> ReplicationList as Replications;

    /// One replication: per partition lag, its connectors and tasks, the checkpoints
    /// (REPLICATIONS).
    GetUrl "replication" fn replication(
        cluster: String, name: Arg<String>
    ) -> ReplicationDetail as Replication;

    /// Creates a replication (MANAGE_REPLICATIONS on the target, its Connect cluster covered,
    /// REPLICATE_FROM on the source).
    Json "create_replication" fn create_replication(
        #[server(flatten)] args: ReplicationArgs
    ) -> ReplicationConfigured as CreateReplication;

    /// Changes a replication's topics, naming, config sync or groups (as `create_replication`).
    Json "update_replication" fn update_replication(
        #[server(flatten)] args: ReplicationArgs
    ) -> ReplicationConfigured as UpdateReplication;

    /// Pauses every connector of a replication (MANAGE_REPLICATIONS on it).
    Json "pause_replication" fn pause_replication(
        #[server(flatten)] args: ReplicationName
    ) -> ReplicationChanged as PauseReplication;

    /// Resumes a paused replication (MANAGE_REPLICATIONS on it).
    Json "resume_replication" fn resume_replication(
        #[server(flatten)] args: ReplicationName
    ) -> ReplicationChanged as ResumeReplication;

    /// Deletes a replication's connectors; the copies stay on the target (MANAGE_REPLICATIONS).
    Json "delete_replication" fn delete_replication(
        #[server(flatten)] args: ReplicationName
    ) -> ReplicationChanged as DeleteReplication;

    /// Moves a group's offsets on the target to where the checkpoints translate them
    /// (REPLICATION_OFFSETS on the replication): a plan first, applied exactly while the group is
    /// empty and unchanged since.
    Json "failover_group" fn failover_group(
        #[server(flatten)] args: FailoverArgs
    ) -> OffsetPlan as FailoverGroup;
}

impl ReplicationSummary {
    /// The replication as the decision sees it, by name.
    pub fn resource(&self) -> crate::access::Resource {
        crate::access::Resource::Replication { name: self.name.clone(), connect: None }
    }
}
