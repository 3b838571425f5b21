//! The Kafka side: one set of librdkafka clients per configured cluster, and the conversions
//! from Kafka's types into klens's own. Nothing here decides who may do what; callers have
//! already asked the authorization decision.

pub mod admin;

use std::sync::Mutex;
use std::time::Duration;

use rdkafka::admin::AdminClient;
use rdkafka::client::ClientContext;
use rdkafka::config::{ClientConfig, RDKafkaLogLevel};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{DeliveryResult, Producer, ProducerContext, ThreadedProducer};

use crate::config::ClusterConfig;

/// How long one metadata request may take before the refresh counts as failed.
const METADATA_TIMEOUT: Duration = Duration::from_secs(10);

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
}

impl KafkaClients {
    /// Creates the clients. librdkafka connects lazily, so this fails only on bad settings.
    pub fn new(cluster: &ClusterConfig) -> Result<Self, KafkaError> {
        let context = KlensContext {
            cluster: cluster.name.clone(),
            last_error: Mutex::new(None),
        };
        let main = client_config(cluster).create_with_context(context)?;
        let admin = if cluster.writable {
            let context = KlensContext {
                cluster: cluster.name.clone(),
                last_error: Mutex::new(None),
            };
            let mut config = client_config(cluster);
            // Nothing polls an admin client's log queue; keep it to what must never be missed.
            config.set_log_level(RDKafkaLogLevel::Critical);
            Some(config.create_with_context(context)?)
        } else {
            None
        };
        Ok(KafkaClients { main, admin })
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
        let topics = metadata
            .topics()
            .iter()
            .map(|t| Topic {
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
            })
            .collect();
        Ok(MetadataSnapshot { brokers, topics })
    }
}

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
