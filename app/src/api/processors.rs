//! SQL processors (SQL_PROCESSORS to read, MANAGE_SQL_PROCESSORS to change): one
//! `INSERT INTO <topic> SELECT ...` statement each, run by the cluster's Apache Flink, its
//! definition kept in the cluster's own compacted topic. Created after a preview (a dry run).

use serde::{Deserialize, Serialize};

use super::{Answer, Arg};
use leptos::server_fn::codec::{GetUrl, Json};

/// One processor as listed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessorSummary {
    pub name: String,
    /// The topics it reads, as Flink's plan named them.
    pub inputs: Vec<String>,
    /// The topic it writes.
    pub output: String,
    /// What Flink says of its job (RUNNING, FAILED, RESTARTING, ...), `STOPPED` once stopped
    /// with a savepoint, `UNKNOWN` when Flink does not know its job.
    pub state: String,
    /// `running` or `stopped`: what klens was last asked to keep it at.
    pub desired: String,
    pub parallelism: u32,
    /// Flink's id of its job of the moment (the last one, once stopped).
    pub job: Option<String>,
    /// The lag of its consumer group (`klens-processor-<name>`) on its inputs, when known.
    pub lag: Option<u64>,
    /// Records per second its running job reads from its inputs and writes to its output, by
    /// Flink's meters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_per_second: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_per_second: Option<f64>,
    /// For a job Flink failed or restarts, the first line of its newest exception.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
}

/// Whether Flink's state of a job says it runs no more: it finished, was cancelled or failed
/// for good, or (`UNKNOWN`) Flink knows no such job, as after Flink restarts.
pub fn job_ended(state: &str) -> bool {
    matches!(state, "FINISHED" | "CANCELED" | "FAILED" | "UNKNOWN")
}

/// What stopping or deleting a processor does to its job, from Flink's state of it (`None`: no
/// job recorded, or Flink knows none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobEnd {
    /// The job runs or is starting: stopped with a savepoint (a delete cancels it).
    Savepoint,
    /// The job may still write, yet cannot take a savepoint (failing, cancelling, suspended,
    /// reconciling): cancelled, and the processor starts again from its group's offsets.
    Cancel,
    /// The job ended: nothing to stop.
    Nothing,
}

/// Stop ends a job exactly when Resume would refuse to start another beside it: in every state
/// but the ended ones.
pub fn job_end(state: Option<&str>) -> JobEnd {
    match state {
        Some("RUNNING" | "RESTARTING" | "CREATED" | "INITIALIZING") => JobEnd::Savepoint,
        Some(state) if !job_ended(state) => JobEnd::Cancel,
        _ => JobEnd::Nothing,
    }
}

impl ProcessorSummary {
    /// Kept running, yet Flink runs no job for it: Resume starts one again.
    pub fn lost(&self) -> bool {
        self.desired == "running" && job_ended(&self.state)
    }

    /// The processor as the decision sees it: covered by a scope through all its topics.
    pub fn resource(&self) -> crate::access::Resource {
        let mut topics = self.inputs.clone();
        if !topics.contains(&self.output) {
            topics.push(self.output.clone());
        }
        crate::access::Resource::Processor { name: self.name.clone(), topics }
    }
}

/// `GET /api/processors`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessorList {
    pub cluster: String,
    /// Whether the cluster has a Flink configured.
    pub configured: bool,
    /// Why Flink's jobs could not be read (states are then `UNKNOWN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub processors: Vec<ProcessorSummary>,
}

/// `GET /api/processor`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessorDetail {
    pub cluster: String,
    pub processor: ProcessorSummary,
    pub sql: String,
    /// Where its last stop left its state.
    pub savepoint: Option<String>,
    /// Flink's newest exception of its job, in words.
    pub last_exception: Option<String>,
    /// Flink's plan of its statement when it was created (none for one created before klens
    /// kept it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    /// The consumer group it reads under.
    pub group: String,
    pub created_by: Option<String>,
    pub created_at: i64,
    pub changed_at: i64,
}

/// The arguments of `create_processor` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessorArgs {
    pub cluster: String,
    /// `[a-z0-9-_.]`, unique in the cluster.
    pub name: Arg<String>,
    /// One `INSERT INTO <topic> SELECT ... FROM <topic> ...` statement.
    pub sql: Arg<String>,
    /// How many parallel instances; default 1.
    pub parallelism: Arg<u32>,
    /// `true`: the preview (plan, tables, first rows from the newest records); nothing runs on.
    pub dry_run: Arg<bool>,
}

/// The answer of `create_processor`: its preview, and whether it now runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessorCreated {
    pub cluster: String,
    pub name: String,
    pub dry_run: bool,
    /// Flink's plan of the statement (its abstract syntax tree and optimized plans).
    pub plan: String,
    /// The topics the plan reads, and the one it writes.
    pub reads: Vec<String>,
    pub writes: String,
    /// The columns each topic read was declared with: what the processor keeps and declares
    /// at every start, for its author to confirm before creating it.
    #[serde(default)]
    pub tables: Vec<ProcessorColumns>,
    /// A dry run's first rows of the query, from the newest records of its inputs.
    pub columns: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
    /// Flink's id of the job started (not for a dry run).
    pub job: Option<String>,
}

/// The arguments of the changes to one processor as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessorName {
    pub cluster: String,
    pub name: Arg<String>,
    /// For `scale_processor`: the new parallelism.
    pub parallelism: Arg<u32>,
}

/// The answer of a change to one processor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessorChanged {
    pub cluster: String,
    pub name: String,
    /// `stop`, `resume`, `scale` or `delete`.
    pub action: String,
    /// Where a stop (or a scale) left its state.
    pub savepoint: Option<String>,
    /// Flink's id of the job a resume or a scale started.
    pub job: Option<String>,
}

/// `GET /api/processor_table`: a topic as a processor's statement would read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessorColumns {
    pub cluster: String,
    pub topic: String,
    /// Its columns and their types in Flink's SQL: the value's fields (JSON values, from its
    /// newest records) or `kafka_value` (any other value, as bytes), then the record's own.
    pub columns: Vec<(String, String)>,
    /// What an author should know of the topic as an input (values klens sees in the
    /// registry's wire format, which Flink reads as bytes here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

serve! {
    /// The processors of a cluster the caller may see (SQL_PROCESSORS on each), with their
    /// state from Flink.
    GetUrl "processors" fn processors(cluster: String) -> ProcessorList as Processors;

    /// One processor: its statement, state, savepoint and last exception (SQL_PROCESSORS).
    GetUrl "processor" fn processor(
        cluster: String, name: Arg<String>
    ) -> ProcessorDetail as Processor;

    /// The columns a processor reading `topic` would have (MANAGE_SQL_PROCESSORS on the
    /// cluster, RECORDS on the topic): what the editor offers as it is written.
    GetUrl "processor_table" fn processor_table(
        cluster: String, topic: Arg<String>
    ) -> ProcessorColumns as ProcessorTable;

    /// Creates a processor and starts it, or previews it with `dry_run` (MANAGE_SQL_PROCESSORS
    /// on it, RECORDS on each topic it reads, PRODUCE on the one it writes).
    Json "create_processor" fn create_processor(
        #[server(flatten)] args: ProcessorArgs
    ) -> ProcessorCreated as CreateProcessor;

    /// Stops a processor with a savepoint (as `create_processor`, on its topics now).
    Json "stop_processor" fn stop_processor(
        #[server(flatten)] args: ProcessorName
    ) -> ProcessorChanged as StopProcessor;

    /// Starts a stopped processor again from its savepoint.
    Json "resume_processor" fn resume_processor(
        #[server(flatten)] args: ProcessorName
    ) -> ProcessorChanged as ResumeProcessor;

    /// Stops a processor with a savepoint and starts it from it at a new parallelism.
    Json "scale_processor" fn scale_processor(
        #[server(flatten)] args: ProcessorName
    ) -> ProcessorChanged as ScaleProcessor;

    /// Cancels a processor's job and forgets the processor.
    Json "delete_processor" fn delete_processor(
        #[server(flatten)] args: ProcessorName
    ) -> ProcessorChanged as DeleteProcessor;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(desired: &str, state: &str) -> ProcessorSummary {
        ProcessorSummary {
            name: "p".into(),
            inputs: vec!["in".into()],
            output: "out".into(),
            state: state.into(),
            desired: desired.into(),
            parallelism: 1,
            job: Some("j".into()),
            lag: None,
            read_per_second: None,
            written_per_second: None,
            cause: None,
        }
    }

    #[test]
    fn a_processor_is_lost_when_kept_running_and_its_job_ended() {
        for state in ["FINISHED", "CANCELED", "FAILED", "UNKNOWN"] {
            assert!(kept("running", state).lost(), "{state}");
            assert!(!kept("stopped", state).lost(), "stopped, {state}");
        }
        // Flink runs it, or may yet: a second job would run beside it.
        for state in ["RUNNING", "RESTARTING", "FAILING", "CREATED", "INITIALIZING", "CANCELLING"] {
            assert!(!kept("running", state).lost(), "{state}");
        }
    }

    #[test]
    fn stop_ends_every_job_that_resume_would_not_start_beside() {
        // Every state Flink's REST API names for a job, and klens's own for "no such job".
        let states = [
            "INITIALIZING",
            "CREATED",
            "RUNNING",
            "FAILING",
            "FAILED",
            "CANCELLING",
            "CANCELED",
            "FINISHED",
            "RESTARTING",
            "SUSPENDED",
            "RECONCILING",
            "UNKNOWN",
        ];
        for state in states {
            let ends = job_end(Some(state)) != JobEnd::Nothing;
            assert_eq!(ends, !job_ended(state), "{state}");
        }
        assert_eq!(job_end(None), JobEnd::Nothing);
        assert_eq!(job_end(Some("RUNNING")), JobEnd::Savepoint);
        assert_eq!(job_end(Some("FAILING")), JobEnd::Cancel);
    }
}
