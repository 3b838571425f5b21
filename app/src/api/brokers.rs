//! Brokers from the catalog: address, rack, the active controller, and log dirs with sizes.

use super::Answer;
use leptos::server_fn::codec::GetUrl;
use serde::{Deserialize, Serialize};

/// One log dir of a broker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogDirDetail {
    pub path: String,
    /// The bytes of every replica in the dir.
    pub size_bytes: Option<u64>,
    /// The dir's volume: total and free bytes, where the broker says.
    pub total_bytes: Option<u64>,
    pub usable_bytes: Option<u64>,
    /// Kafka's error name when the dir is offline or unreadable.
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerDetail {
    pub id: i32,
    pub host: String,
    pub port: i32,
    pub rack: Option<String>,
    /// Whether this broker is the active controller (KRaft's quorum leader).
    pub controller: bool,
    pub log_dirs: Vec<LogDirDetail>,
    /// Replicas (partitions hosted), from metadata.
    pub replicas: u64,
    /// Partitions this broker leads, from metadata.
    pub leaders: u64,
    /// Why this broker's log dirs could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_dirs_error: Option<String>,
}

/// `GET /api/brokers`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerList {
    /// The active controller's node id, when klens may read the quorum. Under KRaft it may be a
    /// controller that is not a broker.
    pub controller: Option<i32>,
    /// When log dirs were last read successfully, ms since the epoch.
    pub refreshed_at: Option<i64>,
    /// When klens answered, ms since the epoch.
    pub served_at: i64,
    pub brokers: Vec<BrokerDetail>,
}

serve! {
    /// The brokers of a cluster, from the catalog.
    GetUrl "brokers" fn brokers(cluster: String) -> BrokerList as Brokers;

    /// One broker, from the catalog.
    GetUrl "broker" fn broker(
        cluster: String, id: super::Arg<i32>
    ) -> BrokerDetail as Broker;
}
