//! Where events go and come back from: klens's own audit topic (written before a write
//! reaches Kafka, read back for the Audit page) and an append-only file.

use super::*;

/// How long the topic sink may take to say it can take events, or to take one.
pub(super) const TOPIC_WAIT: Duration = Duration::from_secs(5);

/// Sends each event to a Kafka topic, keyed by the cluster it concerns (so one cluster's
/// events stay in order), acknowledged by every in-sync replica before the answer. Its own
/// producer, apart from the clusters' clients: the audit cluster may be one users cannot write
/// to, and no user's write ever waits behind the audit's.
pub(super) struct TopicSink {
    pub(super) cluster: String,
    pub(super) topic: String,
    pub(super) producer: rdkafka::producer::FutureProducer<KlensContext>,
    /// The settings of the consumer that reads the events back for the Audit page.
    pub(super) reader: rdkafka::ClientConfig,
}

impl TopicSink {
    pub(super) fn new(cluster: &ClusterConfig, topic: &str) -> Result<TopicSink, String> {
        let context = || KlensContext { cluster: cluster.name.clone() };
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

    pub(super) async fn send(&self, key: &str, line: &[u8]) -> Result<(), String> {
        let record = rdkafka::producer::FutureRecord::to(&self.topic).key(key).payload(line);
        self.producer.send(record, TOPIC_WAIT).await.map(drop).map_err(|(e, _)| e.to_string())
    }
}

/// Appends one JSON line per event, synced to disk before the answer. The file is opened for
/// each event, so a rotated or removed file is noticed instead of written into the void.
pub(super) struct FileSink {
    pub(super) path: PathBuf,
    /// Serializes appends, so lines never interleave.
    pub(super) lock: Mutex<()>,
}

impl FileSink {
    pub(super) fn open(&self) -> std::io::Result<std::fs::File> {
        std::fs::OpenOptions::new().create(true).append(true).open(&self.path)
    }

    pub(super) fn append(&self, line: &[u8]) -> std::io::Result<()> {
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut file = self.open()?;
        file.write_all(line)?;
        file.sync_data()
    }
}

/// The most of the audit file's end that a listing reads: older events stay in the file, for
/// the tools that read it whole.
pub const READ_AT_MOST: u64 = 64 << 20;

/// The most events a listing reads back from the audit topic, over all its partitions.
pub const READ_FROM_TOPIC: i64 = 50_000;

/// How long reading them back may take.
pub(super) const READ_TOPIC_FOR: Duration = Duration::from_secs(10);

impl TopicSink {
    /// The newest events of the topic (up to [`READ_FROM_TOPIC`]), in no particular order, and
    /// whether it holds older ones (or some were not reached in time). Blocks.
    pub(super) fn recent(&self) -> Result<(Vec<AuditEvent>, bool), String> {
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
            spans.push(Span { partition, start, end: high });
        }
        let mut events = Vec::new();
        let whole = read_spans(&self.reader, &self.topic, &spans, deadline, |record| {
            if let Some(event) =
                record.value.and_then(|b| serde_json::from_slice::<AuditEvent>(&b).ok())
            {
                events.push(event);
            }
        })
        .map_err(|e| e.to_string())?;
        Ok((events, older || !whole))
    }
}
