//! The audit log: one event for every write attempt, allowed or refused, from every door. The
//! event reaches each configured sink before the write's answer leaves klens. Before a write is
//! attempted the sinks are asked whether they can take an event; when one cannot, the write is
//! refused with `AUDIT_UNAVAILABLE` and Kafka is never asked, so nothing changes unrecorded.
//!
//! What must never happen here: a password, a secret or a record's content in an event. Each
//! write describes itself through [`Attempt::summary`], built by the service from its arguments,
//! and the service never puts those there.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::access::Resource;
use app::api::{AuditEvent, AuditOutcome, AuditResource, AuditWho, Door};
use app::{ApiError, ErrorCode, Privilege, ResourceKind};
use serde_json::Value;

use crate::auth::oidc::now_ms;
use crate::auth::Caller;
use crate::config::{AuditConfig, ClusterConfig};
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

    /// Whether the topic's cluster answers now and lists the topic with partitions. Blocks.
    fn check(&self) -> Result<(), String> {
        use rdkafka::producer::Producer;
        let metadata = self
            .producer
            .client()
            .fetch_metadata(Some(self.topic.as_str()), TOPIC_WAIT)
            .map_err(|e| e.to_string())?;
        match metadata.topics().first() {
            Some(t) if t.error().is_none() && !t.partitions().is_empty() => Ok(()),
            Some(t) => Err(format!(
                "topic {} of cluster {}: {:?}",
                self.topic,
                self.cluster,
                t.error()
            )),
            None => Err(format!(
                "cluster {} does not list topic {}",
                self.cluster, self.topic
            )),
        }
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
        })
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

    /// Whether every sink can take an event now: asked before a write reaches Kafka.
    pub async fn ready(&self) -> Result<(), ApiError> {
        self.on_file(
            "the audit file cannot be opened; writes are refused",
            |sink| sink.open().map(drop),
        )
        .await?;
        let Some(topic) = &self.topic else {
            return Ok(());
        };
        let sink = Arc::clone(topic);
        let checked = tokio::task::spawn_blocking(move || sink.check()).await;
        match checked {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => {
                tracing::error!(%error, topic = %topic.topic, cluster = %topic.cluster, "the audit topic cannot take events; writes are refused");
                Err(unavailable())
            }
            Err(_) => Err(unavailable()),
        }
    }

    /// Writes `event` to every sink: synced to the file, acknowledged by the topic's replicas.
    pub async fn record(&self, event: &AuditEvent) -> Result<(), ApiError> {
        let mut line = serde_json::to_vec(event).map_err(|_| unavailable())?;
        line.push(b'\n');
        if let Some(topic) = &self.topic {
            if let Err(error) = topic.send(&event.cluster, &line[..line.len() - 1]).await {
                tracing::error!(%error, topic = %topic.topic, cluster = %topic.cluster, "an audit event could not be sent");
                return Err(unavailable());
            }
        }
        self.on_file("an audit event could not be written", move |sink| {
            sink.append(&line)
        })
        .await
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
    /// The newest events, oldest first, and whether older ones were not read: from the topic
    /// when there is one (it holds every replica's events), else from the file. `None`
    /// without a sink.
    pub async fn recent(&self) -> Result<Option<(Vec<AuditEvent>, bool)>, ApiError> {
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

/// Who made an attempt, as the event names them.
fn who(caller: &Caller) -> AuditWho {
    match caller.user() {
        Some(user) => AuditWho {
            kind: "user".into(),
            subject: Some(user.subject.clone()),
            name: user.name.clone(),
            groups: user.groups.clone(),
        },
        None if caller.door() == Door::Mcp => AuditWho {
            kind: "mcp".into(),
            subject: None,
            name: None,
            groups: Vec::new(),
        },
        None => AuditWho {
            kind: "anonymous".into(),
            subject: None,
            name: None,
            groups: Vec::new(),
        },
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
    }
}

/// Whether an error is the decision's refusal rather than a failure after it.
fn refused_by_decision(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Unauthenticated
            | ErrorCode::UnknownCluster
            | ErrorCode::ReadOnlyCluster
            | ErrorCode::InternalTopic
            | ErrorCode::MissingPrivilege
    )
}

/// The event of one attempt and how it ended; `result` adds to the summary what the answer
/// says (such as the offset a record got).
pub fn event(
    caller: &Caller,
    attempt: Attempt,
    outcome: Result<Option<Value>, &ApiError>,
) -> AuditEvent {
    let mut summary = attempt.summary;
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
        cluster: attempt.cluster,
        privilege: attempt.privilege,
        resource: resource(&attempt.resource),
        summary,
        dry_run: attempt.dry_run,
        decision: decision.to_string(),
        outcome,
    }
}

/// 128 random bits in hex: an event's id.
fn uuid_like() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
