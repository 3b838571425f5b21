//! The Kafka side: per configured cluster a [`Link`] (librdkafka clients for offsets, records
//! and the admin calls it wraps; klens's own protocol client in `wire` for everything else),
//! klens's own types for what Kafka reports, and `admin.rs`, the room where changes are made
//! and read back. Nothing here decides who may do what: what changes a cluster or reads its
//! data takes the [`Grant`](crate::auth::Grant) the decision gave.

pub mod admin;
pub mod error;
pub mod partition;
pub mod wire;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rdkafka::admin::AdminClient;
use rdkafka::client::ClientContext;
use rdkafka::config::{ClientConfig, RDKafkaLogLevel};
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::KafkaError;
use rdkafka::producer::FutureProducer;
use rdkafka::{Offset, TopicPartitionList};

use crate::config::ClusterConfig;
pub use error::ClientError;

/// How long the batched offset lookups of one refresh may take.
/// How long the catalog's offset lookups may take (a page's lookups take what is left of its
/// deadline instead).
pub const WATERMARK_TIMEOUT: Duration = Duration::from_secs(15);

/// The librdkafka client settings for one cluster: security from `sasl` and `tls` (the same
/// settings the protocol client uses; the config refuses connection settings among the
/// properties), then the user's extra properties.
pub fn client_config(cluster: &ClusterConfig) -> ClientConfig {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", &cluster.bootstrap_servers)
        .set("client.id", format!("klens-{}", cluster.name))
        .set("log.connection.close", "false")
        .set("socket.timeout.ms", "10000");
    let protocol = match (&cluster.sasl, &cluster.tls) {
        (None, None) => "plaintext",
        (None, Some(_)) => "ssl",
        (Some(_), None) => "sasl_plaintext",
        (Some(_), Some(_)) => "sasl_ssl",
    };
    config.set("security.protocol", protocol);
    if let Some(sasl) = &cluster.sasl {
        config
            .set("sasl.mechanisms", sasl.mechanism.librdkafka_name())
            .set("sasl.username", &sasl.username)
            .set("sasl.password", sasl.password.expose());
    }
    if let Some(tls) = &cluster.tls {
        if let Some(ca) = &tls.ca {
            config.set("ssl.ca.location", ca.to_string_lossy());
        }
        if let Some(cert) = &tls.cert {
            config.set("ssl.certificate.location", cert.to_string_lossy());
        }
        if let Some(key) = &tls.key {
            config.set("ssl.key.location", key.to_string_lossy());
        }
        if let Some(password) = &tls.key_password {
            config.set("ssl.key.password", password.expose());
        }
    }
    for (key, value) in &cluster.properties {
        config.set(key, value);
    }
    config.set_log_level(RDKafkaLogLevel::Warning);
    config
}

/// Routes librdkafka's log into `tracing` under the cluster's name.
pub struct KlensContext {
    pub cluster: String,
}

impl ClientContext for KlensContext {
    fn log(&self, level: RDKafkaLogLevel, facility: &str, message: &str) {
        let cluster = self.cluster.as_str();
        match level {
            RDKafkaLogLevel::Emerg
            | RDKafkaLogLevel::Alert
            | RDKafkaLogLevel::Critical
            | RDKafkaLogLevel::Error => tracing::error!(cluster, facility, "{message}"),
            RDKafkaLogLevel::Warning => tracing::warn!(cluster, facility, "{message}"),
            RDKafkaLogLevel::Notice | RDKafkaLogLevel::Info => {
                tracing::info!(cluster, facility, "{message}")
            }
            RDKafkaLogLevel::Debug => tracing::debug!(cluster, facility, "{message}"),
        }
    }

    fn error(&self, error: KafkaError, reason: &str) {
        tracing::debug!(cluster = self.cluster.as_str(), %error, "{reason}");
    }
}

impl ConsumerContext for KlensContext {}

/// The librdkafka clients klens holds for one cluster. Metadata comes from klens's protocol
/// client (it carries Kafka's internal flag, which librdkafka's metadata lacks).
pub struct KafkaClients {
    /// Only for writable clusters: a read-only cluster has no client that can change it.
    admin: Option<AdminClient<KlensContext>>,
    /// Offset lookups; it joins no group and never consumes.
    offsets: BaseConsumer<KlensContext>,
    /// Only for writable clusters: writes single records (`produce`).
    producer: Option<FutureProducer<KlensContext>>,
    /// The partitioner the producer places keyed records with, as librdkafka names it.
    partitioner: String,
    /// Only for writable clusters: the settings of the producer that moves many records at
    /// once (a copy), and that producer, made on its first use.
    bulk_config: Option<ClientConfig>,
    bulk: std::sync::OnceLock<Option<FutureProducer<KlensContext>>>,
    name: String,
}

/// The partitioner klens writes keyed records with unless the cluster's properties name one:
/// the Java clients', so that a key klens writes lands where theirs do.
pub const DEFAULT_PARTITIONER: &str = "murmur2_random";

impl KafkaClients {
    /// Creates the clients. librdkafka connects lazily, so this fails only on bad settings.
    pub fn new(cluster: &ClusterConfig) -> Result<Self, KafkaError> {
        // Nothing polls the log queues of these clients; keep them to what must never be
        // missed, so events cannot pile up.
        let quiet = || {
            let mut config = client_config(cluster);
            config.set_log_level(RDKafkaLogLevel::Critical);
            config
        };
        let context = || KlensContext { cluster: cluster.name.clone() };
        let admin =
            if cluster.writable { Some(quiet().create_with_context(context())?) } else { None };
        let offsets = quiet()
            .set("enable.auto.commit", "false")
            .set("enable.partition.eof", "false")
            .create_with_context(context())?;
        let partitioner = cluster
            .properties
            .get("partitioner")
            .cloned()
            .unwrap_or_else(|| DEFAULT_PARTITIONER.to_string());
        let producer = if cluster.writable {
            let mut config = quiet();
            config
                .set("partitioner", &partitioner)
                .set("acks", "all")
                .set("linger.ms", "0")
                .set("message.timeout.ms", "15000");
            Some(config.create_with_context(context())?)
        } else {
            None
        };
        // Many records at once: batched (a few ms of linger), compressed, and idempotent, so
        // that a retried batch neither repeats nor reorders a partition's records.
        let bulk_config = cluster.writable.then(|| {
            let mut config = quiet();
            config
                .set("partitioner", &partitioner)
                .set("acks", "all")
                .set("enable.idempotence", "true")
                .set("linger.ms", "5")
                .set("compression.type", "lz4")
                .set("message.timeout.ms", "60000");
            config
        });
        Ok(KafkaClients {
            admin,
            offsets,
            producer,
            partitioner,
            bulk_config,
            bulk: std::sync::OnceLock::new(),
            name: cluster.name.clone(),
        })
    }

    /// The producer that moves many records (a copy), present exactly for writable clusters;
    /// made on first use.
    pub fn bulk_producer(&self) -> Option<&FutureProducer<KlensContext>> {
        self.bulk
            .get_or_init(|| {
                let config = self.bulk_config.as_ref()?;
                match config.create_with_context(KlensContext { cluster: self.name.clone() }) {
                    Ok(producer) => Some(producer),
                    Err(error) => {
                        tracing::error!(cluster = %self.name, %error, "no producer for copies");
                        None
                    }
                }
            })
            .as_ref()
    }

    /// The producer, present exactly for writable clusters.
    pub fn producer(&self) -> Option<&FutureProducer<KlensContext>> {
        self.producer.as_ref()
    }

    /// The partitioner the producer uses for keyed records.
    pub fn partitioner(&self) -> &str {
        &self.partitioner
    }

    /// The admin client, present exactly for writable clusters.
    pub fn admin(&self) -> Option<&AdminClient<KlensContext>> {
        self.admin.as_ref()
    }
}

impl KafkaClients {
    /// The low and high watermark of every partition of `topics`, in two batched ListOffsets
    /// round trips (earliest, latest) rather than one request per partition. Partitions whose
    /// offsets Kafka would not give (no DESCRIBE, no leader) are left out. Blocks for at most
    /// `timeout` in all.
    pub fn fetch_watermarks(
        &self, topics: &[Topic], timeout: Duration,
    ) -> Result<Watermarks, ClientError> {
        let until = std::time::Instant::now() + timeout;
        let lookup = |at: Offset| -> Result<HashMap<(String, i32), i64>, ClientError> {
            let mut list = TopicPartitionList::new();
            for topic in topics {
                for partition in &topic.partitions {
                    list.add_partition_offset(&topic.name, partition.id, at)
                        .map_err(ClientError::while_("listing partitions"))?;
                }
            }
            if list.count() == 0 {
                return Ok(HashMap::new());
            }
            let answered = self
                .offsets
                .offsets_for_times(list, until.saturating_duration_since(Instant::now()))
                .map_err(ClientError::while_("reading offsets"))?;
            Ok(answered
                .elements()
                .iter()
                .filter(|e| e.error().is_ok())
                .filter_map(|e| match e.offset() {
                    Offset::Offset(n) => Some(((e.topic().to_string(), e.partition()), n)),
                    _ => None,
                })
                .collect())
        };
        // ListOffsets reads the special timestamps -2 and -1 as earliest and latest.
        let low = lookup(Offset::Beginning)?;
        let high = lookup(Offset::End)?;
        // A topic deleted and created again between the two round trips can answer a low
        // watermark above the high one: such a partition is left out, as if unanswered.
        Ok(low
            .into_iter()
            .filter_map(|(key, low)| high.get(&key).map(|&high| (key, (low, high))))
            .filter(|(_, (low, high))| low <= high)
            .collect())
    }
}

impl KafkaClients {
    /// Per partition of `topic`, the first offset whose timestamp is at or after `timestamp`;
    /// partitions with no such record are left out. Blocks for at most `timeout`.
    pub fn offsets_at(
        &self, topic: &str, partitions: &[i32], timestamp: i64, timeout: Duration,
    ) -> Result<std::collections::BTreeMap<i32, i64>, ClientError> {
        let mut list = TopicPartitionList::new();
        for p in partitions {
            list.add_partition_offset(topic, *p, Offset::Offset(timestamp))
                .map_err(ClientError::while_("listing partitions"))?;
        }
        let answered = self
            .offsets
            .offsets_for_times(list, timeout)
            .map_err(ClientError::while_("reading offsets for a time"))?;
        let mut out = std::collections::BTreeMap::new();
        for e in answered.elements() {
            // A partition Kafka could not answer for carries an error, and librdkafka leaves
            // the timestamp asked in its offset: never read that as an offset.
            if let Err(error) = e.error() {
                return Err(ClientError::Partition {
                    doing: "reading the offset at a time",
                    partition: e.partition(),
                    error,
                });
            }
            if let Offset::Offset(n) = e.offset() {
                out.insert(e.partition(), n);
            }
        }
        Ok(out)
    }
}

/// The settings of a consumer that reads records: the cluster's client settings, and no group.
pub fn reader_config(cluster: &ClusterConfig) -> ClientConfig {
    let mut config = client_config(cluster);
    // librdkafka wants a group id before it assigns partitions; the reader never joins,
    // commits or fetches offsets for it, so no group ACL is involved.
    config
        .set("group.id", "klens-reader")
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        // When its local queue is full, librdkafka waits this long before fetching again; the
        // default (1 s) left an export idle most of the time, at a third of its speed.
        .set("fetch.queue.backoff.ms", "10")
        // At most this much fetched ahead per reader (the default is 64 MiB). 8 MiB keeps an
        // export as fast as 32 MiB did and holds memory flat across exports in a row
        // (dev/bench-records: 50 MiB above idle at the peak of three, against 118 MiB).
        .set("queued.max.messages.kbytes", "8192")
        .set_log_level(RDKafkaLogLevel::Error);
    config
}

/// (topic, partition) → (low, high) watermark.
pub type Watermarks = HashMap<(String, i32), (i64, i64)>;

/// One broker as metadata names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broker {
    pub id: i32,
    pub host: String,
    pub port: i32,
}

/// One partition of a topic; `leader` is -1 while the partition has none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    pub id: i32,
    pub leader: i32,
    pub replicas: Vec<i32>,
    pub isr: Vec<i32>,
}

impl Partition {
    pub fn is_under_replicated(&self) -> bool {
        self.isr.len() < self.replicas.len()
    }

    pub fn is_offline(&self) -> bool {
        self.leader < 0
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topic {
    pub name: String,
    /// Kafka's own flag (`__consumer_offsets`, `__transaction_state`, …), never the name.
    pub internal: bool,
    pub partitions: Vec<Partition>,
}

/// What one metadata request told us.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MetadataSnapshot {
    pub brokers: Vec<Broker>,
    pub topics: Vec<Topic>,
}

impl MetadataSnapshot {
    pub fn partition_count(&self) -> u64 {
        self.topics.iter().map(|t| t.partitions.len() as u64).sum()
    }

    pub fn partitions(&self) -> impl Iterator<Item = &Partition> {
        self.topics.iter().flat_map(|t| t.partitions.iter())
    }

    pub fn under_replicated(&self) -> u64 {
        self.partitions().filter(|p| p.is_under_replicated()).count() as u64
    }

    pub fn offline(&self) -> u64 {
        self.partitions().filter(|p| p.is_offline()).count() as u64
    }
}

/// Everything klens uses to reach one cluster. Each part that could not be set up keeps the
/// reason, so the cluster shows as unreachable rather than klens refusing to start.
pub struct Link {
    pub cluster: String,
    clients: Result<Arc<KafkaClients>, ClientError>,
    wire: Result<Arc<wire::WireClient>, wire::WireError>,
    /// Settings of the consumers that read records.
    reader: ClientConfig,
}

impl Link {
    pub fn new(cluster: &ClusterConfig) -> Link {
        Link {
            cluster: cluster.name.clone(),
            clients: KafkaClients::new(cluster)
                .map(Arc::new)
                .map_err(ClientError::while_("creating the Kafka client")),
            wire: wire::WireClient::new(cluster).map(Arc::new),
            reader: reader_config(cluster),
        }
    }

    pub fn clients(&self) -> Result<Arc<KafkaClients>, ClientError> {
        self.clients.as_ref().map(Arc::clone).map_err(Clone::clone)
    }

    pub fn wire(&self) -> Result<Arc<wire::WireClient>, wire::WireError> {
        self.wire.as_ref().map(Arc::clone).map_err(Clone::clone)
    }

    pub fn reader(&self) -> &ClientConfig {
        &self.reader
    }
}

/// Runs a blocking librdkafka call off the async threads; `what` names it in the error.
pub async fn blocking<T: Send + 'static>(
    what: &str, call: impl FnOnce() -> Result<T, ClientError> + Send + 'static,
) -> Result<T, ClientError> {
    match tokio::task::spawn_blocking(call).await {
        Ok(result) => result,
        Err(e) => Err(ClientError::Lost { doing: what.to_string(), why: e.to_string() }),
    }
}
