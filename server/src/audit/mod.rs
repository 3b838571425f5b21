//! The audit log: every write attempt, allowed or refused, from every door, and the guards'
//! refusals. A write that reaches Kafka is recorded twice under one id: its attempt, in every
//! configured sink before anything is sent (when a sink cannot take it, the write is refused
//! with `AUDIT_UNAVAILABLE` and never happens), and its outcome after. Everything else is one
//! event. Events are bounded ([`MAX_NAME`], [`MAX_MESSAGE`], [`MAX_SUMMARY`]), refusals of one
//! caller are recorded one by one only up to [`REFUSALS_PER_MINUTE`] a minute and counted past
//! that, and with `audit.key` each event carries an HMAC that the Audit log page checks.
//!
//! What must never happen here: a password, a secret or a record's content in an event. Each
//! write describes itself through [`Attempt::summary`], built by the service from its arguments,
//! and the service never puts those there.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::access::Resource;
use app::api::{AuditEvent, AuditOutcome, AuditPhase, AuditResource, AuditWho, Door};
use app::{ApiError, ErrorCode, Privilege, ResourceKind};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::auth::oidc::now_ms;
use crate::auth::Caller;
use crate::config::{AuditConfig, ClusterConfig, Secret};
use crate::kafka::{client_config, KlensContext};
use crate::records::scan::{read_spans, Span};

/// One write as the service is about to attempt it.
pub struct Attempt {
    pub cluster: String,
    pub privilege: Privilege,
    pub resource: Resource,
    /// What the arguments asked for, without any secret or record content.
    pub summary: Value,
    pub dry_run: bool,
}

impl Attempt {
    /// The attempt described by a write's arguments as sent: the resource is the topic, group
    /// or subject they name (by the privilege's kind), `dry_run` their flag, and the summary
    /// every other argument but those in `hidden` (which a write names when they hold a
    /// password or record content). Arguments not given are left out.
    pub fn of(
        cluster: &str, privilege: Privilege, args: &impl serde::Serialize, hidden: &[&str],
    ) -> Attempt {
        let mut summary = serde_json::to_value(args).unwrap_or(Value::Null);
        let mut dry_run = false;
        let mut resource = Resource::Cluster;
        if let Value::Object(map) = &mut summary {
            map.remove("cluster");
            dry_run = map.remove("dry_run").and_then(|v| v.as_bool()).unwrap_or(false);
            let named = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_string);
            resource = match privilege.kind() {
                ResourceKind::Topic => named("topic").map_or(Resource::Cluster, Resource::topic),
                ResourceKind::Group => named("group").map_or(Resource::Cluster, Resource::group),
                ResourceKind::Subject => {
                    named("subject").map_or(Resource::Cluster, Resource::Subject)
                }
                ResourceKind::Connector => match (named("connect"), named("name")) {
                    (Some(connect), Some(name)) => {
                        Resource::Connector { connect, name, topics: None }
                    }
                    _ => Resource::Cluster,
                },
                ResourceKind::Replication => named("name").map_or(Resource::Cluster, |name| {
                    Resource::Replication { name, connect: None }
                }),
                ResourceKind::Processor => named("name").map_or(Resource::Cluster, |name| {
                    Resource::Processor { name, topics: Vec::new() }
                }),
                ResourceKind::Cluster => Resource::Cluster,
            };
            for key in hidden {
                map.remove(*key);
            }
            map.retain(|_, v| !v.is_null());
        }
        Attempt { cluster: cluster.to_string(), privilege, resource, summary, dry_run }
    }

    /// Adds `key: value` to the summary.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Attempt {
        if let Value::Object(map) = &mut self.summary {
            map.insert(key.to_string(), value.into());
        }
        self
    }
}

/// The configured sinks; `None` sinks when `audit` is not configured.
pub struct Audit {
    file: Option<Arc<FileSink>>,
    topic: Option<Arc<TopicSink>>,
    /// Privileged reads are recorded too.
    reads: bool,
    /// Signs each event (`audit.key`).
    key: Option<Secret>,
    /// Refused attempts per caller in the current minute.
    refusals: Mutex<Refusals>,
}

fn unavailable() -> ApiError {
    ApiError::new(
        ErrorCode::AuditUnavailable,
        "The audit log cannot record this change right now, so klens did not make it. Try again \
         once the audit sink is back.",
    )
}

impl Audit {
    /// No sink: nothing is recorded.
    pub fn none() -> Audit {
        Audit {
            file: None,
            topic: None,
            reads: false,
            key: None,
            refusals: Mutex::new(Refusals::default()),
        }
    }

    /// The sinks of `config`; the topic sink connects to its cluster as `clusters` says. Fails
    /// only on client settings librdkafka refuses.
    pub fn new(config: Option<&AuditConfig>, clusters: &[ClusterConfig]) -> Result<Audit, String> {
        let Some(config) = config else {
            return Ok(Audit::none());
        };
        let topic = match &config.topic {
            None => None,
            Some(t) => {
                let cluster = clusters.iter().find(|c| c.name == t.cluster).ok_or_else(|| {
                    format!("the audit topic's cluster {} is not configured", t.cluster)
                })?;
                Some(Arc::new(TopicSink::new(cluster, &t.name)?))
            }
        };
        Ok(Audit {
            file: config.file.clone().map(|path| Arc::new(FileSink { path, lock: Mutex::new(()) })),
            topic,
            reads: config.reads,
            key: config.key.clone(),
            refusals: Mutex::new(Refusals::default()),
        })
    }

    /// The audit topic, as (cluster, topic), when there is one.
    pub fn topic(&self) -> Option<(&str, &str)> {
        self.topic.as_ref().map(|t| (t.cluster.as_str(), t.topic.as_str()))
    }

    /// Whether any sink is configured.
    pub fn enabled(&self) -> bool {
        self.file.is_some() || self.topic.is_some()
    }

    /// Whether privileged reads are recorded too.
    pub fn records_reads(&self) -> bool {
        self.enabled() && self.reads
    }

    /// Runs `op` on the file sink off the async threads (nothing without one); a failure is
    /// logged with `failed` and answered `AUDIT_UNAVAILABLE`.
    async fn on_file(
        &self, failed: &str, op: impl FnOnce(&FileSink) -> std::io::Result<()> + Send + 'static,
    ) -> Result<(), ApiError> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let sink = Arc::clone(file);
        match tokio::task::spawn_blocking(move || op(&sink)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                tracing::error!(path = %file.path.display(), error = %e, "{failed}");
                Err(unavailable())
            }
            Err(_) => Err(unavailable()),
        }
    }

    /// Writes `event` to every sink, bounded and signed: synced to the file, acknowledged by
    /// the topic's replicas. Every sink is tried even when another fails; `AUDIT_UNAVAILABLE`
    /// when any failed.
    pub async fn record(&self, event: &AuditEvent) -> Result<(), ApiError> {
        if !self.enabled() {
            return Ok(());
        }
        let mut event = event.clone();
        bound(&mut event);
        event.genuine = None;
        event.mac = self.key.as_ref().and_then(|key| mac_of(key, &event));
        let mut line = serde_json::to_vec(&event).map_err(|_| unavailable())?;
        line.push(b'\n');
        let mut failed = false;
        if let Some(topic) = &self.topic {
            if let Err(error) = topic.send(&event.cluster, &line[..line.len() - 1]).await {
                tracing::error!(%error, topic = %topic.topic, cluster = %topic.cluster, "an audit event could not be sent");
                failed = true;
            }
        }
        let filed = self
            .on_file("an audit event could not be written", move |sink| sink.append(&line))
            .await;
        if failed || filed.is_err() {
            return Err(unavailable());
        }
        Ok(())
    }

    /// Records a refused attempt, or only counts it when its caller already had
    /// [`REFUSALS_PER_MINUTE`] recorded this minute (the count is recorded as one event when the
    /// minute is over). A sink that fails is logged: the refusal stands either way.
    pub async fn record_refusal(&self, event: AuditEvent) {
        if !self.enabled() {
            return;
        }
        let (admitted, summaries) = {
            let mut refusals = self.refusals.lock().unwrap_or_else(|p| p.into_inner());
            refusals.admit(&event)
        };
        for summary in summaries.iter().chain(admitted.then_some(&event)) {
            if self.record(summary).await.is_err() {
                let line = serde_json::to_string(summary).unwrap_or_default();
                tracing::error!(event = %line, "a refused attempt could not be recorded");
            }
        }
    }

    /// Records the counts of refusals from minutes that are over. Called every few seconds.
    pub async fn flush_refusals(&self) {
        let summaries = {
            let mut refusals = self.refusals.lock().unwrap_or_else(|p| p.into_inner());
            refusals.over(now_ms())
        };
        for summary in &summaries {
            if self.record(summary).await.is_err() {
                tracing::error!("a count of refused attempts could not be recorded");
            }
        }
    }

    /// Sets `genuine` on each event when events are signed: whether its `mac` is klens's.
    fn check_signatures(&self, events: &mut [AuditEvent]) {
        let Some(key) = &self.key else {
            return;
        };
        for event in events {
            event.genuine = Some(signed_by(key, event));
        }
    }
}

impl Audit {
    /// The newest attempts, oldest first, and whether older ones were not read: from the topic
    /// when there is one (it holds every replica's events), else from the file. An attempt's
    /// outcome takes the place of its attempt event; an attempt without one stays as it is.
    /// With `audit.key`, each says whether klens signed it. `None` without a sink.
    pub async fn recent(&self) -> Result<Option<(Vec<AuditEvent>, bool)>, ApiError> {
        let Some((mut events, older)) = self.read_back().await? else {
            return Ok(None);
        };
        self.check_signatures(&mut events);
        Ok(Some((merge_phases(events), older)))
    }

    async fn read_back(&self) -> Result<Option<(Vec<AuditEvent>, bool)>, ApiError> {
        if let Some(topic) = &self.topic {
            let sink = Arc::clone(topic);
            return match tokio::task::spawn_blocking(move || sink.recent()).await {
                Ok(Ok((mut events, older))) => {
                    events.sort_by_key(|e| e.time);
                    Ok(Some((events, older)))
                }
                Ok(Err(error)) => {
                    tracing::error!(%error, topic = %topic.topic, "the audit topic cannot be read");
                    Err(ApiError::new(
                        ErrorCode::Client,
                        "The audit topic cannot be read; klens's log says why.",
                    ))
                }
                Err(_) => Err(ApiError::new(ErrorCode::Client, "reading the audit topic failed")),
            };
        }
        self.recent_in_file().await
    }

    /// The events of the file's newest [`READ_AT_MOST`] bytes, oldest first, and whether the
    /// file holds older ones; lines that are not events are passed over. `None` without a file.
    async fn recent_in_file(&self) -> Result<Option<(Vec<AuditEvent>, bool)>, ApiError> {
        let Some(file) = &self.file else {
            return Ok(None);
        };
        let sink = Arc::clone(file);
        let read = tokio::task::spawn_blocking(move || -> std::io::Result<(Vec<u8>, bool)> {
            use std::io::{Read, Seek, SeekFrom};
            let mut f = match std::fs::File::open(&sink.path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Ok((Vec::new(), false))
                }
                Err(e) => return Err(e),
            };
            let len = f.metadata()?.len();
            let start = len.saturating_sub(READ_AT_MOST);
            f.seek(SeekFrom::Start(start))?;
            let mut bytes = Vec::new();
            f.take(READ_AT_MOST).read_to_end(&mut bytes)?;
            if start > 0 {
                // The first line read is a piece of one.
                let cut = bytes.iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| i + 1);
                bytes.drain(..cut);
            }
            Ok((bytes, start > 0))
        })
        .await;
        let (bytes, older) = match read {
            Ok(Ok(read)) => read,
            Ok(Err(e)) => {
                tracing::error!(path = %file.path.display(), error = %e, "the audit file cannot be read");
                return Err(ApiError::new(
                    ErrorCode::Client,
                    "The audit file cannot be read; klens's log says why.",
                ));
            }
            Err(_) => {
                return Err(ApiError::new(ErrorCode::Client, "reading the audit file failed"))
            }
        };
        let events = bytes
            .split(|&b| b == b'\n')
            .filter_map(|line| serde_json::from_slice::<AuditEvent>(line).ok())
            .collect();
        Ok(Some((events, older)))
    }
}

/// Events oldest first with each outcome in its attempt's place (an outcome is trusted to
/// replace an attempt only when it is as genuine as the attempt).
fn merge_phases(events: Vec<AuditEvent>) -> Vec<AuditEvent> {
    let mut merged: Vec<AuditEvent> = Vec::with_capacity(events.len());
    let mut attempts: HashMap<String, usize> = HashMap::new();
    for event in events {
        if event.phase == AuditPhase::Outcome {
            if let Some(&at) = attempts.get(&event.id) {
                if merged[at].genuine == event.genuine {
                    merged[at] = event;
                    continue;
                }
            }
        }
        if event.phase == AuditPhase::Attempt {
            attempts.insert(event.id.clone(), merged.len());
        }
        merged.push(event);
    }
    merged
}

mod events;
mod sinks;

pub use self::events::*;
use self::sinks::*;

#[cfg(test)]
mod tests;
