//! Copy and redrive jobs as every replica of klens sees them. A job runs in the replica that
//! started it; its record, written at its start, every [`BEAT`] while it runs and at its end,
//! lives in the compacted topic [`JOBS_TOPIC`] of the cluster it writes to (the cluster of its
//! attempt, which is writable), keyed by its id, so that:
//! - any replica lists it to its owner, and its owner (or a caller who may write where it
//!   writes) stops it from any replica: a stop asked on another replica is a record of its own
//!   (`stop:<id>`), which the running replica reads at its next beat;
//! - a job whose replica stopped mid-way (its record not written for [`LOST_AFTER`]) is ended
//!   by whichever replica finds it first (`service::copy_jobs::sweep`, under the job's lease):
//!   its state `failed`,
//!   its counts as last recorded, and the outcome of its attempt written to the audit, which
//!   would otherwise hold an attempt with no end.
//!
//! Only klens writes the topic; it is protected like the audit's.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use app::api::{AuditEvent, CopyJob};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::ClientConfig;
use serde::{Deserialize, Serialize};

use crate::auth::oidc::now_ms;
use crate::config::ClusterConfig;
use crate::own_topics;

pub use crate::config::JOBS_TOPIC;

/// How often a running job's record is written, and its stop requests read.
pub const BEAT: Duration = Duration::from_secs(2);

/// A running job whose record is older than this (ms) lost its replica: well past the longest a
/// beat can take on a slow cluster (its write and its read, each bounded by [`STEP`]), and past
/// a few seconds' difference between the replicas' clocks.
pub const LOST_AFTER: i64 = 45_000;

/// How long a read or write of the topic may take.
const STEP: Duration = Duration::from_secs(10);

/// How long the records read answer again (the copy panel asks every second or so).
const FRESH: Duration = Duration::from_secs(1);

/// A job's record.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Kept {
    pub job: CopyJob,
    /// Whose job it is (`limits::caller_key`).
    pub owner: String,
    /// Where it writes, as its attempt names it: who else may stop it (PRODUCE there).
    pub on_cluster: String,
    pub on_topic: String,
    /// The replica running it, and when it last wrote this record (ms).
    pub holder: String,
    pub beat: i64,
    /// Its attempt as the audit recorded it: the outcome another replica writes for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<AuditEvent>,
}

/// What the topic holds now: the jobs, and the stops asked for.
#[derive(Clone, Debug, Default)]
pub struct Held {
    pub jobs: BTreeMap<String, Kept>,
    pub stops: std::collections::BTreeSet<String>,
}

/// One cluster's job records.
pub struct JobStore {
    cluster: String,
    writer: ClientConfig,
    producer: OnceLock<Result<FutureProducer, String>>,
    reader: ClientConfig,
    admin: ClientConfig,
    last: Mutex<Option<(Instant, Held)>>,
    /// The topic was made (or found made) once: not asked for again.
    made: std::sync::atomic::AtomicBool,
}

impl JobStore {
    pub fn new(cluster: &ClusterConfig) -> JobStore {
        let mut writer = crate::kafka::client_config(cluster);
        writer
            .set("acks", "all")
            .set("enable.idempotence", "true")
            .set("allow.auto.create.topics", "false")
            .set("linger.ms", "0")
            .set("message.timeout.ms", STEP.as_millis().to_string());
        let mut reader = crate::kafka::reader_config(cluster);
        reader.set("fetch.wait.max.ms", "10");
        // Asking about the topic must not make it with the broker's defaults.
        let mut admin = crate::kafka::client_config(cluster);
        admin.set("allow.auto.create.topics", "false");
        JobStore {
            cluster: cluster.name.clone(),
            writer,
            producer: OnceLock::new(),
            reader,
            admin,
            last: Mutex::new(None),
            made: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn producer(&self) -> Result<&FutureProducer, String> {
        self.producer
            .get_or_init(|| self.writer.create().map_err(|e| format!("the jobs' producer: {e}")))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Writes a job's record (making the topic first if needed).
    pub async fn put(&self, kept: &Kept) -> Result<(), String> {
        let value = serde_json::to_vec(kept).map_err(|e| e.to_string())?;
        self.send(&kept.job.id, &value).await
    }

    /// Asks the replica running job `id` to stop it.
    pub async fn ask_stop(&self, id: &str) -> Result<(), String> {
        self.send(&format!("stop:{id}"), b"{}").await
    }

    async fn send(&self, key: &str, value: &[u8]) -> Result<(), String> {
        self.make_topic().await?;
        if let Ok(mut last) = self.last.lock() {
            *last = None;
        }
        let record = FutureRecord::<str, [u8]>::to(JOBS_TOPIC).key(key).payload(value);
        self.producer()?.send(record, STEP).await.map(drop).map_err(|(e, _)| e.to_string())
    }

    /// The jobs and stops the topic holds, as read at most [`FRESH`] ago. A topic not made yet
    /// holds none.
    pub async fn held(&self) -> Result<Held, String> {
        if let Ok(last) = self.last.lock() {
            if let Some((_, held)) = last.as_ref().filter(|(at, _)| at.elapsed() < FRESH) {
                return Ok(held.clone());
            }
        }
        let (reader, admin) = (self.reader.clone(), self.admin.clone());
        let held = tokio::task::spawn_blocking(move || read_all(&admin, &reader))
            .await
            .map_err(|e| e.to_string())??;
        if let Ok(mut last) = self.last.lock() {
            *last = Some((Instant::now(), held.clone()));
        }
        Ok(held)
    }

    /// Job `id`'s record as the topic holds it now (read for this, never from what was read a
    /// moment ago).
    pub async fn fresh(&self, id: &str) -> Result<Option<Kept>, String> {
        let (reader, admin) = (self.reader.clone(), self.admin.clone());
        let held = tokio::task::spawn_blocking(move || read_all(&admin, &reader))
            .await
            .map_err(|e| e.to_string())??;
        Ok(held.jobs.get(id).cloned())
    }

    /// Creates the compacted topic when it does not exist, whose records go a week after they
    /// were last written (a running job's is written every beat).
    async fn make_topic(&self) -> Result<(), String> {
        use std::sync::atomic::Ordering;
        if self.made.load(Ordering::Relaxed) {
            return Ok(());
        }
        let configs = [("cleanup.policy", "compact,delete"), ("retention.ms", "604800000")];
        own_topics::make(&self.admin, JOBS_TOPIC, &configs, STEP)
            .await
            .map_err(|e| format!("cluster \"{}\": {e}", self.cluster))?;
        self.made.store(true, Ordering::Relaxed);
        Ok(())
    }
}

/// Reads the whole topic (compacted and small): each job's last record, and the stops asked.
fn read_all(admin: &ClientConfig, reader: &ClientConfig) -> Result<Held, String> {
    let client: rdkafka::producer::BaseProducer = admin.create().map_err(|e| e.to_string())?;
    let mut held = Held::default();
    for (key, value) in own_topics::latest(client.client(), reader, JOBS_TOPIC, true, STEP)? {
        if let Some(id) = key.strip_prefix("stop:") {
            held.stops.insert(id.to_string());
        } else if let Ok(kept) = serde_json::from_slice::<Kept>(&value) {
            held.jobs.insert(key, kept);
        }
    }
    Ok(held)
}

/// This process, as a job's record names its replica.
pub fn replica() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_default();
        format!("{host} pid {} {:08x}", std::process::id(), rand::random::<u32>())
    })
}

/// A job's record as of now, written by the replica running it.
pub fn kept_now(job: CopyJob, owner: &str, on: (&str, &str), attempt: Option<&AuditEvent>) -> Kept {
    Kept {
        job,
        owner: owner.to_string(),
        on_cluster: on.0.to_string(),
        on_topic: on.1.to_string(),
        holder: replica().to_string(),
        beat: now_ms(),
        attempt: attempt.cloned(),
    }
}
