//! The definitions of a cluster's processors, kept in its compacted topic
//! [`DEFINITIONS_TOPIC`](crate::processor::DEFINITIONS_TOPIC): one record per processor keyed
//! by its name, a tombstone once deleted, so every replica of klens reads the same processors
//! and nothing else holds them. Only klens writes the topic, with a producer of its own (as the
//! audit's); users never read or change it through klens (it is a protected topic).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::ClientConfig;

use app::{ApiError, ErrorCode};

use crate::config::ClusterConfig;
use crate::processor::{Definition, DEFINITIONS_TOPIC, MAX_PROCESSORS};
use crate::records::scan::{read_spans, Span};

/// How long [`Store::recent`] answers the definitions last read.
const RECENT: Duration = Duration::from_secs(5);

/// How long a read or a write of the topic may take.
const WAIT: Duration = Duration::from_secs(10);

pub struct Store {
    cluster: String,
    /// The definitions as last read, and when: what [`Store::recent`] answers for a while.
    last: std::sync::Mutex<Option<(std::time::Instant, BTreeMap<String, Definition>)>>,
    producer: FutureProducer,
    admin_config: ClientConfig,
    reader: ClientConfig,
}

fn unavailable(cluster: &str, what: &str, e: impl std::fmt::Display) -> ApiError {
    tracing::error!(%cluster, error = %e, "{what}");
    ApiError::new(
        ErrorCode::Client,
        format!("klens cannot {what} in cluster \"{cluster}\"; its log says why."),
    )
}

impl Store {
    pub fn new(cluster: &ClusterConfig) -> Result<Store, String> {
        let mut config = crate::kafka::client_config(cluster);
        config
            .set("acks", "all")
            .set("allow.auto.create.topics", "false")
            .set("enable.idempotence", "true")
            .set("linger.ms", "0")
            .set("message.timeout.ms", WAIT.as_millis().to_string());
        let producer =
            config.create().map_err(|e| format!("the processors' definitions producer: {e}"))?;
        Ok(Store {
            cluster: cluster.name.clone(),
            last: std::sync::Mutex::new(None),
            producer,
            admin_config: crate::kafka::client_config(cluster),
            reader: crate::kafka::reader_config(cluster),
        })
    }

    /// Every processor defined now, by name. A topic that does not exist yet holds none.
    pub async fn all(&self) -> Result<BTreeMap<String, Definition>, ApiError> {
        let producer = self.producer.clone();
        let reader = self.reader.clone();
        let cluster = self.cluster.clone();
        let read = tokio::task::spawn_blocking(move || read_all(&producer, &reader))
            .await
            .map_err(|e| unavailable(&cluster, "read its processors", e))?;
        let all = read.map_err(|e| unavailable(&self.cluster, "read its processors", e))?;
        if let Ok(mut last) = self.last.lock() {
            *last = Some((std::time::Instant::now(), all.clone()));
        }
        Ok(all)
    }

    /// The processors as read at most [`RECENT`] ago (read again when older): for the flow of
    /// data, drawn on every call, which may be that much behind a change.
    pub async fn recent(&self) -> Result<BTreeMap<String, Definition>, ApiError> {
        if let Ok(last) = self.last.lock() {
            if let Some((_, all)) = last.as_ref().filter(|(at, _)| at.elapsed() < RECENT) {
                return Ok(all.clone());
            }
        }
        self.all().await
    }

    /// Writes `definition` (replacing the one of its name), making the topic first if needed.
    pub async fn put(&self, definition: &Definition) -> Result<(), ApiError> {
        let value = serde_json::to_vec(definition).unwrap_or_default();
        self.send(&definition.name, Some(&value)).await
    }

    /// Forgets the processor `name`.
    pub async fn remove(&self, name: &str) -> Result<(), ApiError> {
        self.send(name, None).await
    }

    async fn send(&self, name: &str, value: Option<&[u8]>) -> Result<(), ApiError> {
        // What was read before a change is not what is defined after it.
        if let Ok(mut last) = self.last.lock() {
            *last = None;
        }
        self.make_topic().await?;
        let mut record = FutureRecord::<str, [u8]>::to(DEFINITIONS_TOPIC).key(name);
        if let Some(value) = value {
            record = record.payload(value);
        }
        self.producer
            .send(record, WAIT)
            .await
            .map(drop)
            .map_err(|(e, _)| unavailable(&self.cluster, "keep a processor's definition", e))
    }

    /// Creates the compacted topic when it does not exist (one partition: processors are few).
    async fn make_topic(&self) -> Result<(), ApiError> {
        let compact = [("cleanup.policy", "compact")];
        crate::own_topics::make(&self.admin_config, DEFINITIONS_TOPIC, &compact, WAIT)
            .await
            .map_err(|e| unavailable(&self.cluster, "make its processors' topic", e))
    }
}

/// Reads the whole topic (it is compacted and small) and keeps each name's last definition.
fn read_all(
    producer: &FutureProducer, reader: &ClientConfig,
) -> Result<BTreeMap<String, Definition>, String> {
    let deadline = Instant::now() + WAIT;
    let client = producer.client();
    let metadata =
        client.fetch_metadata(Some(DEFINITIONS_TOPIC), WAIT).map_err(|e| e.to_string())?;
    let Some(topic) = metadata.topics().first() else {
        return Ok(BTreeMap::new());
    };
    if topic.error().is_some() {
        // Not made yet: no processor was ever created on this cluster.
        return Ok(BTreeMap::new());
    }
    let mut spans = Vec::new();
    for partition in topic.partitions() {
        let (low, high) = client
            .fetch_watermarks(DEFINITIONS_TOPIC, partition.id(), WAIT)
            .map_err(|e| e.to_string())?;
        spans.push(Span { partition: partition.id(), start: low, end: high });
    }
    let mut definitions = BTreeMap::new();
    let whole = read_spans(reader, DEFINITIONS_TOPIC, &spans, deadline, |record| {
        let Some(key) = record.key.and_then(|k| String::from_utf8(k).ok()) else {
            return;
        };
        match record.value.and_then(|v| serde_json::from_slice::<Definition>(&v).ok()) {
            Some(definition)
                if definitions.len() < MAX_PROCESSORS || definitions.contains_key(&key) =>
            {
                definitions.insert(key, definition);
            }
            Some(_) => {}
            None => {
                definitions.remove(&key);
            }
        }
    })
    .map_err(|e| e.to_string())?;
    if !whole {
        return Err(format!("{DEFINITIONS_TOPIC} was not read to its end in time"));
    }
    Ok(definitions)
}
