//! Broker configs (BROKER_CONFIGS) of one broker or of the cluster-wide default, and changing
//! them (ALTER_BROKER_CONFIGS on a writable cluster), incrementally: a config not named keeps
//! its value.

use std::collections::BTreeMap;

use super::Answer;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::{Arg, ConfigChangeView, TopicConfig};

/// `GET /api/broker_configs`: every config of one broker, or the cluster-wide default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerConfigList {
    pub cluster: String,
    /// The broker; `null` for the cluster-wide default.
    pub broker: Option<i32>,
    /// For the cluster-wide default: the broker whose configs list the names, and whose
    /// static values show where no default is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_from: Option<i32>,
    /// Values set here first, then by name. Each carries its `update_mode`.
    pub configs: Vec<TopicConfig>,
}

/// The arguments of `alter_broker_config` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AlterBrokerConfigArgs {
    pub cluster: String,
    /// The broker; missing or `null` for the cluster-wide default.
    pub broker: Arg<i32>,
    /// Dynamic values to set: config name → value.
    pub set: Arg<BTreeMap<String, String>>,
    /// Dynamic values to remove (the config falls back to the next level).
    pub remove: Arg<Vec<String>>,
    /// `true`: Kafka validates the change and applies nothing.
    pub dry_run: Arg<bool>,
}

/// The answer of `alter_broker_config`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerConfigsChanged {
    pub cluster: String,
    pub broker: Option<i32>,
    pub dry_run: bool,
    pub changes: Vec<ConfigChangeView>,
}

serve! {
    /// Every config of a broker, or (without `broker`) the cluster-wide default (BROKER_CONFIGS).
    GetUrl "broker_configs" fn broker_configs(
        cluster: String, broker: Arg<i32>
    ) -> BrokerConfigList as BrokerConfigs;

    /// Sets and removes dynamic configs of one broker or of the cluster-wide default
    /// (ALTER_BROKER_CONFIGS on a writable cluster).
    Json "alter_broker_config" fn alter_broker_config(
        #[server(flatten)] args: AlterBrokerConfigArgs
    ) -> BrokerConfigsChanged as AlterBrokerConfig;
}
