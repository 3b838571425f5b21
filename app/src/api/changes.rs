//! A topic's configs (TOPIC_CONFIGS), and the topic changes after create and delete: config
//! overrides, more partitions, deleting records. Each change is behind its own privilege on a
//! writable cluster, never on an internal topic, and each can be previewed with `dry_run`.

use std::collections::BTreeMap;

use super::Answer;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::Arg;

/// Where the value of a config in force comes from, as Kafka reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfigSource {
    /// An override set on the topic.
    Topic,
    /// Set for one broker at run time.
    DynamicBroker,
    /// Set at run time as the default of every broker.
    DynamicDefaultBroker,
    /// In the broker's server.properties.
    StaticBroker,
    /// Kafka's own default.
    Default,
    /// Any other source Kafka names.
    Other,
}

impl ConfigSource {
    /// Kafka's source code in DescribeConfigs answers.
    pub fn from_kafka(code: i8) -> ConfigSource {
        match code {
            1 => ConfigSource::Topic,
            2 => ConfigSource::DynamicBroker,
            3 => ConfigSource::DynamicDefaultBroker,
            4 => ConfigSource::StaticBroker,
            5 => ConfigSource::Default,
            _ => ConfigSource::Other,
        }
    }

    /// How the page names it.
    pub fn label(self) -> &'static str {
        match self {
            ConfigSource::Topic => "Topic override",
            ConfigSource::DynamicBroker => "Broker (dynamic)",
            ConfigSource::DynamicDefaultBroker => "All brokers (dynamic)",
            ConfigSource::StaticBroker => "Broker (static)",
            ConfigSource::Default => "Kafka default",
            ConfigSource::Other => "Other",
        }
    }
}

/// Another place a config's value is set, below the one in force.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigSynonym {
    pub name: String,
    pub value: Option<String>,
    pub source: ConfigSource,
}

/// One config of a topic. `value` is `null` for a sensitive config, and for one Kafka leaves
/// unset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicConfig {
    pub name: String,
    pub value: Option<String>,
    pub source: ConfigSource,
    pub read_only: bool,
    pub sensitive: bool,
    /// Where the value is also set, highest precedence first, the one in force included.
    pub synonyms: Vec<ConfigSynonym>,
    /// Kafka's type of the value: `boolean`, `string`, `int`, `short`, `long`, `double`,
    /// `list`, `class` or `password`; `null` when Kafka does not say.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Kafka's own description of the config.
    pub documentation: Option<String>,
    /// For a broker config: how it may be changed while the broker runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_mode: Option<UpdateMode>,
}

impl TopicConfig {
    /// Whether the topic overrides this config.
    pub fn is_override(&self) -> bool {
        self.is_set_at(ConfigSource::Topic)
    }

    /// Whether the value in force is set at `level` (a topic override, a broker's dynamic
    /// value, the cluster-wide dynamic default).
    pub fn is_set_at(&self, level: ConfigSource) -> bool {
        self.source == level
    }

    /// The value this config would have without the topic's override: the next synonym.
    pub fn without_override(&self) -> Option<&ConfigSynonym> {
        self.without(ConfigSource::Topic)
    }

    /// The value this config would have without what is set at `level`: the next synonym
    /// below it.
    pub fn without(&self, level: ConfigSource) -> Option<&ConfigSynonym> {
        self.synonyms.iter().find(|s| s.source != level)
    }
}

/// Listener settings Kafka lets be set as the cluster-wide default.
const CLUSTER_LEVEL_LISTENER: [&str; 3] =
    ["max.connections", "max.connection.creation.rate", "num.network.threads"];

/// Dynamic broker configs Kafka takes per broker only: listeners, and the SSL and SASL
/// settings of a listener.
const PER_BROKER: [&str; 37] = [
    "advertised.listeners",
    "listeners",
    "listener.security.protocol.map",
    "principal.builder.class",
    "ssl.protocol",
    "ssl.provider",
    "ssl.cipher.suites",
    "ssl.enabled.protocols",
    "ssl.keystore.type",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
    "ssl.key.password",
    "ssl.truststore.type",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.certificates",
    "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm",
    "ssl.endpoint.identification.algorithm",
    "ssl.secure.random.implementation",
    "ssl.client.auth",
    "ssl.engine.factory.class",
    "sasl.mechanism.inter.broker.protocol",
    "sasl.jaas.config",
    "sasl.enabled.mechanisms",
    "sasl.kerberos.service.name",
    "sasl.kerberos.kinit.cmd",
    "sasl.kerberos.ticket.renew.window.factor",
    "sasl.kerberos.ticket.renew.jitter",
    "sasl.kerberos.min.time.before.relogin",
    "sasl.kerberos.principal.to.local.rules",
    "sasl.login.refresh.window.factor",
    "sasl.login.refresh.window.jitter",
    "sasl.login.refresh.min.period.seconds",
    "sasl.login.refresh.buffer.seconds",
];

/// How a broker config may change while brokers run, in the terms of Kafka's documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UpdateMode {
    /// Read from server.properties at start-up: a change takes a restart.
    ReadOnly,
    /// Set on one broker at a time, never as the cluster-wide default (listeners, keystores).
    PerBroker,
    /// Set as the cluster-wide default, or on one broker.
    ClusterWide,
}

impl UpdateMode {
    /// The mode of a broker config Kafka describes, from its name and read-only flag. Kafka
    /// refuses a cluster-wide default for its listener and security settings: the names
    /// below, and any listener-prefixed name except the three connection limits.
    pub fn of(name: &str, read_only: bool) -> UpdateMode {
        if read_only {
            return UpdateMode::ReadOnly;
        }
        let base = match name.strip_prefix("listener.name.") {
            // listener.name.<listener>.<config>
            Some(rest) => match rest.split_once('.') {
                Some((_, base)) if CLUSTER_LEVEL_LISTENER.contains(&base) => {
                    return UpdateMode::ClusterWide
                }
                _ => return UpdateMode::PerBroker,
            },
            None => name,
        };
        if PER_BROKER.contains(&base) {
            UpdateMode::PerBroker
        } else {
            UpdateMode::ClusterWide
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            UpdateMode::ReadOnly => "read-only",
            UpdateMode::PerBroker => "per broker",
            UpdateMode::ClusterWide => "cluster-wide",
        }
    }
}

/// `GET /api/topic_configs`: every config of a topic, overrides first, then by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicConfigList {
    pub cluster: String,
    pub topic: String,
    pub configs: Vec<TopicConfig>,
}

/// The arguments of `alter_topic_configs` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AlterTopicConfigsArgs {
    pub cluster: String,
    pub topic: Arg<String>,
    /// Overrides to set: config name → value.
    pub set: Arg<BTreeMap<String, String>>,
    /// Overrides to remove (the config falls back to the broker's or Kafka's value).
    pub remove: Arg<Vec<String>>,
    /// `true`: Kafka validates the change and applies nothing.
    pub dry_run: Arg<bool>,
}

/// One config before and after a change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigChangeView {
    pub name: String,
    pub before: Option<String>,
    pub before_source: Option<ConfigSource>,
    pub after: Option<String>,
    pub after_source: Option<ConfigSource>,
}

/// The answer of `alter_topic_configs`: each named config before and after (as it would be,
/// with `dry_run`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigsChanged {
    pub cluster: String,
    pub topic: String,
    pub dry_run: bool,
    pub changes: Vec<ConfigChangeView>,
}

/// The arguments of `add_partitions` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AddPartitionsArgs {
    pub cluster: String,
    pub topic: Arg<String>,
    /// The new partition count, higher than today's.
    pub count: Arg<i32>,
    pub dry_run: Arg<bool>,
}

/// The answer of `add_partitions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionsAdded {
    pub cluster: String,
    pub topic: String,
    pub dry_run: bool,
    pub before: u64,
    pub after: u64,
}

/// The arguments of `delete_records` as sent: where to cut, by exactly one of `offset` (with
/// `partition`), `timestamp` or `all`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeleteRecordsArgs {
    pub cluster: String,
    pub topic: Arg<String>,
    /// One partition; every partition when missing.
    pub partition: Arg<i32>,
    /// Delete the records before this offset of `partition`.
    pub offset: Arg<i64>,
    /// Delete, in each partition, the records before the first one at or after this time (ms
    /// since the epoch); a partition with no such record loses every record.
    pub timestamp: Arg<i64>,
    /// `true`: delete every record (up to each high watermark).
    pub all: Arg<bool>,
    /// `true`: answer what would be deleted, delete nothing.
    pub dry_run: Arg<bool>,
}

/// What deleting records does (or would do) to one partition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionCut {
    pub partition: i32,
    /// The low watermark before.
    pub low_before: i64,
    /// The low watermark after: the offset cut at (Kafka's answer, once applied).
    pub low_after: i64,
    pub deleted: u64,
    /// Kafka's refusal for this partition, when it refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The answer of `delete_records`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordsDeleted {
    pub cluster: String,
    pub topic: String,
    pub dry_run: bool,
    pub partitions: Vec<PartitionCut>,
    pub deleted: u64,
}

serve! {
    /// Every config of a topic (TOPIC_CONFIGS).
    GetUrl "topic_configs" fn topic_configs(
        cluster: String, topic: Arg<String>
    ) -> TopicConfigList as TopicConfigs;

    /// Sets and removes config overrides of a topic (ALTER_TOPIC_CONFIGS on a writable cluster).
    Json "alter_topic_configs" fn alter_topic_configs(
        #[server(flatten)] args: AlterTopicConfigsArgs
    ) -> ConfigsChanged as AlterTopicConfigs;

    /// Raises the partition count of a topic (ADD_PARTITIONS on a writable cluster).
    Json "add_partitions" fn add_partitions(
        #[server(flatten)] args: AddPartitionsArgs
    ) -> PartitionsAdded as AddPartitions;

    /// Deletes the records of a topic before an offset (DELETE_RECORDS on a writable cluster).
    Json "delete_records" fn delete_records(
        #[server(flatten)] args: DeleteRecordsArgs
    ) -> RecordsDeleted as DeleteRecords;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_configs_take_the_update_mode_kafka_gives_them() {
        use UpdateMode::*;
        for (name, read_only, mode) in [
            ("log.dirs", true, ReadOnly),
            ("log.cleaner.threads", false, ClusterWide),
            ("min.insync.replicas", false, ClusterWide),
            ("listeners", false, PerBroker),
            ("ssl.keystore.location", false, PerBroker),
            ("sasl.enabled.mechanisms", false, PerBroker),
            ("listener.name.ssl.ssl.keystore.password", false, PerBroker),
            ("listener.name.internal.max.connections", false, ClusterWide),
            ("max.connections", false, ClusterWide),
        ] {
            assert_eq!(UpdateMode::of(name, read_only), mode, "{name}");
        }
    }
}
