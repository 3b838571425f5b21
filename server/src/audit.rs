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
        cluster: &str,
        privilege: Privilege,
        args: &impl serde::Serialize,
        hidden: &[&str],
    ) -> Attempt {
        let mut summary = serde_json::to_value(args).unwrap_or(Value::Null);
        let mut dry_run = false;
        let mut resource = Resource::Cluster;
        if let Value::Object(map) = &mut summary {
            map.remove("cluster");
            dry_run = map
                .remove("dry_run")
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            let named = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_string);
            resource = match privilege.kind() {
                ResourceKind::Topic => named("topic").map_or(Resource::Cluster, Resource::topic),
                ResourceKind::Group => named("group").map_or(Resource::Cluster, Resource::group),
                ResourceKind::Subject => {
                    named("subject").map_or(Resource::Cluster, Resource::Subject)
                }
                ResourceKind::Cluster => Resource::Cluster,
            };
            for key in hidden {
                map.remove(*key);
            }
            map.retain(|_, v| !v.is_null());
        }
        Attempt {
            cluster: cluster.to_string(),
            privilege,
            resource,
            summary,
            dry_run,
        }
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

/// How long the topic sink may take to say it can take events, or to take one.
const TOPIC_WAIT: Duration = Duration::from_secs(5);

/// Sends each event to a Kafka topic, keyed by the cluster it concerns (so one cluster's
/// events stay in order), acknowledged by every in-sync replica before the answer. Its own
/// producer, apart from the clusters' clients: the audit cluster may be one users cannot write
/// to, and no user's write ever waits behind the audit's.
struct TopicSink {
    cluster: String,
    topic: String,
    producer: rdkafka::producer::FutureProducer<KlensContext>,
    /// The settings of the consumer that reads the events back for the Audit page.
    reader: rdkafka::ClientConfig,
}

impl TopicSink {
    fn new(cluster: &ClusterConfig, topic: &str) -> Result<TopicSink, String> {
        let context = || KlensContext {
            cluster: cluster.name.clone(),
        };
        let mut config = client_config(cluster);
        config
            .set("acks", "all")
            // The topic must exist: asking for its metadata never creates it.
            .set("allow.auto.create.topics", "false")
            .set("enable.idempotence", "true")
            .set("linger.ms", "0")
            .set("message.timeout.ms", TOPIC_WAIT.as_millis().to_string());
        let producer = config
            .create_with_context(context())
            .map_err(|e| format!("the audit topic's producer: {e}"))?;
        Ok(TopicSink {
            cluster: cluster.name.clone(),
            topic: topic.to_string(),
            producer,
            reader: crate::kafka::reader_config(cluster),
        })
    }

    async fn send(&self, key: &str, line: &[u8]) -> Result<(), String> {
        let record = rdkafka::producer::FutureRecord::to(&self.topic)
            .key(key)
            .payload(line);
        self.producer
            .send(record, TOPIC_WAIT)
            .await
            .map(drop)
            .map_err(|(e, _)| e.to_string())
    }
}

/// Appends one JSON line per event, synced to disk before the answer. The file is opened for
/// each event, so a rotated or removed file is noticed instead of written into the void.
struct FileSink {
    path: PathBuf,
    /// Serializes appends, so lines never interleave.
    lock: Mutex<()>,
}

impl FileSink {
    fn open(&self) -> std::io::Result<std::fs::File> {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
    }

    fn append(&self, line: &[u8]) -> std::io::Result<()> {
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut file = self.open()?;
        file.write_all(line)?;
        file.sync_data()
    }
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
                let cluster = clusters
                    .iter()
                    .find(|c| c.name == t.cluster)
                    .ok_or_else(|| {
                        format!("the audit topic's cluster {} is not configured", t.cluster)
                    })?;
                Some(Arc::new(TopicSink::new(cluster, &t.name)?))
            }
        };
        Ok(Audit {
            file: config.file.clone().map(|path| {
                Arc::new(FileSink {
                    path,
                    lock: Mutex::new(()),
                })
            }),
            topic,
            reads: config.reads,
            key: config.key.clone(),
            refusals: Mutex::new(Refusals::default()),
        })
    }

    /// The audit topic, as (cluster, topic), when there is one.
    pub fn topic(&self) -> Option<(&str, &str)> {
        self.topic
            .as_ref()
            .map(|t| (t.cluster.as_str(), t.topic.as_str()))
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
        &self,
        failed: &str,
        op: impl FnOnce(&FileSink) -> std::io::Result<()> + Send + 'static,
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
            .on_file("an audit event could not be written", move |sink| {
                sink.append(&line)
            })
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

/// The longest resource, cluster or person name an event keeps, in bytes.
pub const MAX_NAME: usize = 256;
/// The longest outcome message an event keeps, in bytes.
pub const MAX_MESSAGE: usize = 512;
/// The longest summary an event keeps, as JSON text in bytes.
pub const MAX_SUMMARY: usize = 1024;
/// The most groups of a person an event names.
pub const MAX_GROUPS: usize = 32;
/// How many refused attempts of one caller a minute are recorded one by one.
pub const REFUSALS_PER_MINUTE: u32 = 10;
/// The most callers whose refusals are counted apart in one minute; past it they share a count.
const REFUSAL_CALLERS: usize = 10_000;

/// Keeps `text` to at most `max` bytes (on a character boundary, with an ellipsis), answering
/// its original length when it was cut.
fn cut(text: &mut String, max: usize) -> Option<u64> {
    if text.len() <= max {
        return None;
    }
    let length = text.len() as u64;
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push('…');
    Some(length)
}

/// Cuts every part of `event` a caller can make long: so one event stays a few KiB however
/// large the request that caused it.
pub fn bound(event: &mut AuditEvent) {
    cut(&mut event.cluster, MAX_NAME);
    if let Some(name) = &mut event.resource.name {
        if let Some(length) = cut(name, MAX_NAME) {
            event.resource.length = Some(length);
        }
    }
    for text in [&mut event.who.name, &mut event.who.subject]
        .into_iter()
        .flatten()
    {
        cut(text, MAX_NAME);
    }
    event.who.groups.truncate(MAX_GROUPS);
    for group in &mut event.who.groups {
        cut(group, MAX_NAME);
    }
    for text in [&mut event.outcome.message, &mut event.outcome.code]
        .into_iter()
        .flatten()
    {
        cut(text, MAX_MESSAGE);
    }
    let length = serde_json::to_string(&event.summary).map_or(0, |t| t.len());
    if length > MAX_SUMMARY {
        // First each text of the summary, then, if that is not enough, the summary itself.
        if let Value::Object(map) = &mut event.summary {
            for value in map.values_mut() {
                match value {
                    Value::String(text) => {
                        cut(text, MAX_SUMMARY / 8);
                    }
                    Value::Array(_) | Value::Object(_)
                        if value.to_string().len() > MAX_SUMMARY / 8 =>
                    {
                        *value = Value::String("(cut)".into());
                    }
                    _ => {}
                }
            }
        }
        if serde_json::to_string(&event.summary).map_or(0, |t| t.len()) > MAX_SUMMARY {
            event.summary = serde_json::json!({ "cut": true });
        }
        if let Value::Object(map) = &mut event.summary {
            map.insert("summary_length".into(), length.into());
        }
    }
}

/// The HMAC of an event under `key`: over its JSON without `mac` and `genuine`, hex.
fn mac_of(key: &Secret, event: &AuditEvent) -> Option<String> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key.expose().as_bytes()).ok()?;
    mac.update(&signed_bytes(event)?);
    Some(
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}

fn signed_bytes(event: &AuditEvent) -> Option<Vec<u8>> {
    let unsigned = AuditEvent {
        mac: None,
        genuine: None,
        ..event.clone()
    };
    serde_json::to_vec(&unsigned).ok()
}

/// Whether `event` carries klens's HMAC under `key` (compared in constant time).
fn signed_by(key: &Secret, event: &AuditEvent) -> bool {
    let Some(given) = event.mac.as_deref().and_then(from_hex) else {
        return false;
    };
    let Some(bytes) = signed_bytes(event) else {
        return false;
    };
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key.expose().as_bytes()) else {
        return false;
    };
    mac.update(&bytes);
    mac.verify_slice(&given).is_ok()
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() != 64 {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Refused attempts of the current minute, per caller and cluster.
#[derive(Default)]
struct Refusals {
    /// The minute counted, in minutes since the epoch.
    minute: i64,
    by_caller: HashMap<(String, String), Counted>,
}

struct Counted {
    recorded: u32,
    /// Those not recorded one by one, and the last of them, which stands for them.
    suppressed: u64,
    last: Option<AuditEvent>,
}

impl Refusals {
    /// Whether `event` is to be recorded, and the counts of a minute now over.
    fn admit(&mut self, event: &AuditEvent) -> (bool, Vec<AuditEvent>) {
        let over = self.over(event.time);
        let mut key = (caller_key(event), event.cluster.clone());
        if self.by_caller.len() >= REFUSAL_CALLERS && !self.by_caller.contains_key(&key) {
            key = ("(many callers)".to_string(), String::new());
        }
        let counted = self.by_caller.entry(key).or_insert(Counted {
            recorded: 0,
            suppressed: 0,
            last: None,
        });
        if counted.recorded < REFUSALS_PER_MINUTE {
            counted.recorded += 1;
            return (true, over);
        }
        counted.suppressed += 1;
        let mut last = event.clone();
        bound(&mut last);
        counted.last = Some(last);
        (false, over)
    }

    /// When `now` is past the counted minute: one event per caller whose refusals were only
    /// counted, and a fresh minute.
    fn over(&mut self, now: i64) -> Vec<AuditEvent> {
        let minute = now.div_euclid(60_000);
        if minute == self.minute {
            return Vec::new();
        }
        self.minute = minute;
        self.by_caller
            .drain()
            .filter_map(|(_, counted)| {
                let mut event = counted.last?;
                event.id = uuid_like();
                event.time = now;
                event.suppressed = Some(counted.suppressed);
                Some(event)
            })
            .collect()
    }
}

/// Who made a refused attempt, for counting: a person by subject, else the door and the
/// forwarded name.
fn caller_key(event: &AuditEvent) -> String {
    let door = format!("{:?}", event.door);
    match (&event.who.subject, &event.who.name) {
        (Some(subject), _) => format!("user {subject}"),
        (None, Some(name)) => format!("{} {door} {name}", event.who.kind),
        (None, None) => format!("{} {door}", event.who.kind),
    }
}

/// The most of the audit file's end that a listing reads: older events stay in the file, for
/// the tools that read it whole.
pub const READ_AT_MOST: u64 = 64 << 20;

/// The most events a listing reads back from the audit topic, over all its partitions.
pub const READ_FROM_TOPIC: i64 = 50_000;
/// How long reading them back may take.
const READ_TOPIC_FOR: Duration = Duration::from_secs(10);

impl TopicSink {
    /// The newest events of the topic (up to [`READ_FROM_TOPIC`]), in no particular order, and
    /// whether it holds older ones (or some were not reached in time). Blocks.
    fn recent(&self) -> Result<(Vec<AuditEvent>, bool), String> {
        use rdkafka::producer::Producer;
        let deadline = std::time::Instant::now() + READ_TOPIC_FOR;
        let client = self.producer.client();
        let metadata = client
            .fetch_metadata(Some(self.topic.as_str()), TOPIC_WAIT)
            .map_err(|e| e.to_string())?;
        let partitions: Vec<i32> = metadata
            .topics()
            .first()
            .map(|t| t.partitions().iter().map(|p| p.id()).collect())
            .unwrap_or_default();
        let per_partition = READ_FROM_TOPIC / (partitions.len().max(1) as i64);
        let mut spans = Vec::with_capacity(partitions.len());
        let mut older = false;
        for partition in partitions {
            let (low, high) = client
                .fetch_watermarks(&self.topic, partition, TOPIC_WAIT)
                .map_err(|e| e.to_string())?;
            let start = low.max(high - per_partition);
            older |= start > low;
            spans.push(Span {
                partition,
                start,
                end: high,
            });
        }
        let mut events = Vec::new();
        let whole = read_spans(&self.reader, &self.topic, &spans, deadline, |record| {
            if let Some(event) = record
                .value
                .and_then(|b| serde_json::from_slice::<AuditEvent>(&b).ok())
            {
                events.push(event);
            }
        })?;
        Ok((events, older || !whole))
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
                Err(_) => Err(ApiError::new(
                    ErrorCode::Client,
                    "reading the audit topic failed",
                )),
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
                let cut = bytes
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |i| i + 1);
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
                return Err(ApiError::new(
                    ErrorCode::Client,
                    "reading the audit file failed",
                ))
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

/// Who made an attempt, as the event names them.
fn who(caller: &Caller) -> AuditWho {
    match caller {
        Caller::User(user, _) => AuditWho {
            kind: "user".into(),
            subject: Some(user.subject.clone()),
            name: user.name.clone(),
            groups: user.groups.clone(),
            forwarded: false,
        },
        Caller::Mcp(forwarded) => AuditWho {
            kind: "mcp".into(),
            subject: None,
            name: forwarded.clone(),
            groups: Vec::new(),
            forwarded: forwarded.is_some(),
        },
        Caller::Anonymous(_) => nobody("anonymous"),
    }
}

fn nobody(kind: &str) -> AuditWho {
    AuditWho {
        kind: kind.into(),
        subject: None,
        name: None,
        groups: Vec::new(),
        forwarded: false,
    }
}

fn resource(resource: &Resource) -> AuditResource {
    let (kind, name) = match resource {
        Resource::Cluster => ("cluster", None),
        Resource::Topic { name, .. } => ("topic", Some(name.clone())),
        Resource::Group { name, .. } => ("group", Some(name.clone())),
        Resource::Subject(name) => ("subject", Some(name.clone())),
    };
    AuditResource {
        kind: kind.into(),
        name,
        length: None,
    }
}

/// Whether an error is the decision's refusal rather than a failure after it.
pub fn refused_by_decision(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Unauthenticated
            | ErrorCode::UnknownCluster
            | ErrorCode::ReadOnlyCluster
            | ErrorCode::InternalTopic
            | ErrorCode::ProtectedTopic
            | ErrorCode::MissingPrivilege
    )
}

/// The event of one attempt and how it ended, as one `whole` event; `result` adds to the
/// summary what the answer says (such as the offset a record got).
pub fn event(
    caller: &Caller,
    attempt: &Attempt,
    outcome: Result<Option<Value>, &ApiError>,
) -> AuditEvent {
    let mut summary = attempt.summary.clone();
    let (decision, outcome) = match outcome {
        Ok(result) => {
            if let (Some(Value::Object(extra)), Value::Object(map)) = (result, &mut summary) {
                map.extend(extra);
            }
            (
                "allowed",
                AuditOutcome {
                    ok: true,
                    code: None,
                    message: None,
                },
            )
        }
        Err(e) => (
            if refused_by_decision(e.code) {
                "refused"
            } else {
                "allowed"
            },
            AuditOutcome {
                ok: false,
                code: Some(e.code.as_str().to_string()),
                message: Some(e.message.clone()),
            },
        ),
    };
    AuditEvent {
        id: uuid_like(),
        time: now_ms(),
        who: who(caller),
        door: caller.door(),
        cluster: attempt.cluster.clone(),
        privilege: Some(attempt.privilege),
        resource: resource(&attempt.resource),
        summary,
        dry_run: attempt.dry_run,
        decision: decision.to_string(),
        outcome,
        phase: AuditPhase::Whole,
        suppressed: None,
        mac: None,
        genuine: None,
    }
}

/// The event recorded before a write that the decision allowed reaches Kafka: how it ends is
/// not known yet.
pub fn attempt_event(caller: &Caller, attempt: &Attempt) -> AuditEvent {
    let mut event = event(caller, attempt, Ok(None));
    event.phase = AuditPhase::Attempt;
    event.outcome.ok = false;
    event
}

/// A request the HTTP or MCP guards refused before any cluster or privilege was asked: the
/// path it asked for stands as the resource.
pub fn guard_refusal(door: Door, who_kind: &str, path: &str, error: &ApiError) -> AuditEvent {
    AuditEvent {
        id: uuid_like(),
        time: now_ms(),
        who: nobody(who_kind),
        door,
        cluster: String::new(),
        privilege: None,
        resource: AuditResource {
            kind: "request".into(),
            name: Some(path.to_string()),
            length: None,
        },
        summary: Value::Object(serde_json::Map::new()),
        dry_run: false,
        decision: "refused".into(),
        outcome: AuditOutcome {
            ok: false,
            code: Some(error.code.as_str().to_string()),
            message: Some(error.message.clone()),
        },
        phase: AuditPhase::Whole,
        suppressed: None,
        mac: None,
        genuine: None,
    }
}

/// 128 random bits in hex: an event's id.
fn uuid_like() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(who: &str, time: i64) -> AuditEvent {
        let mut event = guard_refusal(
            Door::Api,
            "user",
            "/api/produce",
            &ApiError::new(ErrorCode::ReadOnlyCluster, "read-only"),
        );
        event.who.subject = Some(who.to_string());
        event.cluster = "c".into();
        event.time = time;
        event
    }

    #[test]
    fn an_event_stays_small_however_large_what_it_names() {
        let huge = "é".repeat(1_000_000);
        let mut event = refusal(&huge, 0);
        event.cluster = huge.clone();
        event.resource.name = Some(huge.clone());
        event.who.groups = vec![huge.clone(); 1000];
        event.outcome.message = Some(huge.clone());
        event.summary = serde_json::json!({ "topic": huge, "configs": { "a": huge }, "n": 5 });
        bound(&mut event);
        let size = serde_json::to_string(&event).expect("JSON").len();
        assert!(
            size < 4 * 1024 + MAX_GROUPS * (MAX_NAME + 8),
            "{size} bytes"
        );
        assert_eq!(event.resource.length, Some(huge.len() as u64));
        assert_eq!(event.summary["n"], 5);
        assert!(event.summary["summary_length"].as_u64().is_some());
        // A cut never splits a character.
        assert!(event.cluster.ends_with('…'));
    }

    #[test]
    fn a_signature_holds_only_for_the_event_klens_wrote() {
        let key = Secret::new("k".repeat(32));
        let mut event = refusal("alice", 1);
        event.mac = mac_of(&key, &event);
        assert!(signed_by(&key, &event));
        let mut renamed = event.clone();
        renamed.who.subject = Some("mallory".into());
        assert!(!signed_by(&key, &renamed));
        let other_key = Secret::new("o".repeat(32));
        assert!(!signed_by(&other_key, &event));
        let mut unsigned = event.clone();
        unsigned.mac = None;
        assert!(!signed_by(&key, &unsigned));
        // Read back from JSON, the same event still verifies.
        let back: AuditEvent =
            serde_json::from_str(&serde_json::to_string(&event).expect("JSON")).expect("event");
        assert!(signed_by(&key, &back));
    }

    #[test]
    fn refusals_past_the_limit_are_counted_and_recorded_once_the_minute_is_over() {
        let mut refusals = Refusals::default();
        let minute = 60_000 * 100;
        let mut recorded = 0;
        for i in 0..25 {
            let (admit, over) = refusals.admit(&refusal("alice", minute + i));
            assert!(over.is_empty() || i == 0);
            recorded += u32::from(admit);
        }
        // Another caller has a count of their own.
        assert!(refusals.admit(&refusal("bob", minute + 30)).0);
        assert_eq!(recorded, REFUSALS_PER_MINUTE);
        let over = refusals.over(minute + 60_000);
        assert_eq!(over.len(), 1, "only alice had refusals only counted");
        assert_eq!(
            over[0].suppressed,
            Some(25 - u64::from(REFUSALS_PER_MINUTE))
        );
        assert_eq!(over[0].who.subject.as_deref(), Some("alice"));
        assert!(refusals.admit(&refusal("alice", minute + 60_001)).0);
    }

    #[test]
    fn an_outcome_takes_its_attempt_s_place() {
        let attempt = AuditEvent {
            phase: AuditPhase::Attempt,
            ..refusal("alice", 1)
        };
        let outcome = AuditEvent {
            phase: AuditPhase::Outcome,
            time: 2,
            ..attempt.clone()
        };
        let lone = AuditEvent {
            id: "lone".into(),
            ..attempt.clone()
        };
        let merged = merge_phases(vec![attempt, lone.clone(), outcome.clone()]);
        assert_eq!(merged, vec![outcome, lone]);
    }
}
