//! The Kafka side: one set of librdkafka clients per configured cluster, and the conversions
//! from Kafka's types into klens's own. Nothing here decides who may do what; callers have
//! already asked the authorization decision.

pub mod admin;
pub mod wire;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use rdkafka::admin::AdminClient;
use rdkafka::client::ClientContext;
use rdkafka::config::{ClientConfig, RDKafkaLogLevel};
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{DeliveryResult, Producer, ProducerContext, ThreadedProducer};
use rdkafka::{Offset, TopicPartitionList};

use crate::config::ClusterConfig;

/// How long one metadata request may take before the refresh counts as failed.
const METADATA_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the batched offset lookups of one refresh may take.
const WATERMARK_TIMEOUT: Duration = Duration::from_secs(15);

/// The librdkafka client settings for one cluster: security first, then the user's extra
/// properties, which may override anything (they are the escape hatch for unusual set-ups).
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
    }
    for (key, value) in &cluster.properties {
        config.set(key, value);
    }
    config.set_log_level(RDKafkaLogLevel::Warning);
    config
}

/// Routes librdkafka's log into `tracing` under the cluster's name, and keeps the last
/// client-level error: a failed request often says only "broker transport failure", while the
/// reason (a refused SASL handshake, a TLS failure) arrives through this callback.
pub struct KlensContext {
    cluster: String,
    last_error: Mutex<Option<String>>,
}

impl KlensContext {
    fn remember(&self, reason: &str) {
        if let Ok(mut last) = self.last_error.lock() {
            *last = Some(reason.to_string());
        }
    }

    fn take_last_error(&self) -> Option<String> {
        self.last_error.lock().ok().and_then(|mut e| e.take())
    }
}

impl ClientContext for KlensContext {
    fn log(&self, level: RDKafkaLogLevel, facility: &str, message: &str) {
        let cluster = self.cluster.as_str();
        match level {
            RDKafkaLogLevel::Emerg
            | RDKafkaLogLevel::Alert
            | RDKafkaLogLevel::Critical
            | RDKafkaLogLevel::Error => {
                tracing::error!(cluster, facility, "{message}");
                // Connection and authentication failures arrive here, from librdkafka's own
                // threads, while the request that needed the connection only times out.
                self.remember(message);
            }
            RDKafkaLogLevel::Warning => tracing::warn!(cluster, facility, "{message}"),
            RDKafkaLogLevel::Notice | RDKafkaLogLevel::Info => {
                tracing::info!(cluster, facility, "{message}")
            }
            RDKafkaLogLevel::Debug => tracing::debug!(cluster, facility, "{message}"),
        }
    }

    fn error(&self, error: KafkaError, reason: &str) {
        tracing::debug!(cluster = self.cluster.as_str(), %error, "{reason}");
        // "All brokers are down" follows the real reason and says less: keep the reason.
        let says_less = matches!(
            error.rdkafka_error_code(),
            Some(RDKafkaErrorCode::AllBrokersDown)
        );
        if !says_less || self.last_error.lock().map(|e| e.is_none()).unwrap_or(true) {
            self.remember(reason);
        }
    }
}

impl ConsumerContext for KlensContext {}

impl ProducerContext for KlensContext {
    type DeliveryOpaque = ();

    fn delivery(&self, _: &DeliveryResult<'_>, _: Self::DeliveryOpaque) {}
}

/// The clients klens holds for one cluster. The threaded producer is the cluster's main client:
/// its thread polls librdkafka's main queue, which carries the log and error events (an admin
/// client alone never polls that queue, so its events would pile up unread).
pub struct KafkaClients {
    main: ThreadedProducer<KlensContext>,
    /// Only for writable clusters: a read-only cluster has no client that can change it.
    admin: Option<AdminClient<KlensContext>>,
    /// Offset lookups; it joins no group and never consumes.
    offsets: BaseConsumer<KlensContext>,
}

impl KafkaClients {
    /// Creates the clients. librdkafka connects lazily, so this fails only on bad settings.
    pub fn new(cluster: &ClusterConfig) -> Result<Self, KafkaError> {
        let context = KlensContext {
            cluster: cluster.name.clone(),
            last_error: Mutex::new(None),
        };
        let main = client_config(cluster).create_with_context(context)?;
        // Nothing polls the log queues of the admin client and the offsets consumer; keep them
        // to what must never be missed, so events cannot pile up.
        let quiet = || {
            let mut config = client_config(cluster);
            config.set_log_level(RDKafkaLogLevel::Critical);
            config
        };
        let context = || KlensContext {
            cluster: cluster.name.clone(),
            last_error: Mutex::new(None),
        };
        let admin = if cluster.writable {
            Some(quiet().create_with_context(context())?)
        } else {
            None
        };
        let offsets = quiet()
            .set("enable.auto.commit", "false")
            .set("enable.partition.eof", "false")
            .create_with_context(context())?;
        Ok(KafkaClients {
            main,
            admin,
            offsets,
        })
    }

    /// The admin client, present exactly for writable clusters.
    pub fn admin(&self) -> Option<&AdminClient<KlensContext>> {
        self.admin.as_ref()
    }

    /// Reads the cluster metadata (brokers, topics, partitions). Blocks; call from a blocking
    /// task. A failure carries the client's own reason where librdkafka gave one.
    pub fn fetch_metadata(&self) -> Result<MetadataSnapshot, String> {
        let client = self.main.client();
        // Forget reasons from before this request: only this request's failure matters.
        client.context().take_last_error();
        let metadata = client.fetch_metadata(None, METADATA_TIMEOUT).map_err(|e| {
            match client.context().take_last_error() {
                Some(reason) => format!("{e}: {reason}"),
                None => e.to_string(),
            }
        })?;
        let brokers = metadata
            .brokers()
            .iter()
            .map(|b| Broker {
                id: b.id(),
                host: b.host().to_string(),
                port: b.port(),
            })
            .collect();
        let topics = metadata.topics().iter().map(topic_of).collect();
        Ok(MetadataSnapshot { brokers, topics })
    }
}

/// A topic of librdkafka's metadata in klens's own terms.
fn topic_of(t: &rdkafka::metadata::MetadataTopic) -> Topic {
    Topic {
        name: t.name().to_string(),
        partitions: t
            .partitions()
            .iter()
            .map(|p| Partition {
                id: p.id(),
                leader: p.leader(),
                replicas: p.replicas().to_vec(),
                isr: p.isr().to_vec(),
            })
            .collect(),
    }
}

impl KafkaClients {
    /// The low and high watermark of every partition of `topics`, in two batched ListOffsets
    /// round trips (earliest, latest) rather than one request per partition. Partitions whose
    /// offsets Kafka would not give (no DESCRIBE, no leader) are left out. Blocks.
    pub fn fetch_watermarks(&self, topics: &[Topic]) -> Result<Watermarks, String> {
        let lookup = |at: Offset| -> Result<HashMap<(String, i32), i64>, String> {
            let mut list = TopicPartitionList::new();
            for topic in topics {
                for partition in &topic.partitions {
                    list.add_partition_offset(&topic.name, partition.id, at)
                        .map_err(|e| e.to_string())?;
                }
            }
            if list.count() == 0 {
                return Ok(HashMap::new());
            }
            let answered = self
                .offsets
                .offsets_for_times(list, WATERMARK_TIMEOUT)
                .map_err(|e| format!("offsets could not be read: {e}"))?;
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
        Ok(low
            .into_iter()
            .filter_map(|(key, low)| high.get(&key).map(|&high| (key, (low, high))))
            .collect())
    }
}

impl KafkaClients {
    /// One topic as metadata describes it now; `None` when Kafka does not know it (or not
    /// yet, or no longer). Blocks.
    pub fn fetch_topic(&self, name: &str) -> Result<Option<Topic>, String> {
        let metadata = self
            .main
            .client()
            .fetch_metadata(Some(name), METADATA_TIMEOUT)
            .map_err(|e| e.to_string())?;
        Ok(metadata
            .topics()
            .iter()
            .find(|t| t.name() == name && t.error().is_none() && !t.partitions().is_empty())
            .map(topic_of))
    }

    /// Per partition of `topic`, the first offset whose timestamp is at or after `timestamp`;
    /// partitions with no such record are left out. Blocks.
    pub fn offsets_at(
        &self,
        topic: &str,
        partitions: &[i32],
        timestamp: i64,
    ) -> Result<std::collections::BTreeMap<i32, i64>, String> {
        let mut list = TopicPartitionList::new();
        for p in partitions {
            list.add_partition_offset(topic, *p, Offset::Offset(timestamp))
                .map_err(|e| e.to_string())?;
        }
        let answered = self
            .offsets
            .offsets_for_times(list, WATERMARK_TIMEOUT)
            .map_err(|e| format!("offsets for the timestamp could not be read: {e}"))?;
        Ok(answered
            .elements()
            .iter()
            .filter_map(|e| match e.offset() {
                Offset::Offset(n) => Some((e.partition(), n)),
                _ => None,
            })
            .collect())
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
        // At most this much fetched ahead per reader (the default is 64 MiB).
        .set("queued.max.messages.kbytes", "32768")
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
        self.partitions()
            .filter(|p| p.is_under_replicated())
            .count() as u64
    }

    pub fn offline(&self) -> u64 {
        self.partitions().filter(|p| p.is_offline()).count() as u64
    }
}
