//! The catalog: what everyone who sees a cluster may see, with no privilege.

use super::Answer;
use leptos::server_fn::codec::GetUrl;
use serde::{Deserialize, Serialize};

/// How a cluster is doing, as of the last refresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HealthStatus {
    /// Metadata answered and every partition has its full ISR.
    Ok,
    /// Metadata answered, but some partitions are under-replicated or without a leader.
    Degraded,
    /// The last refresh could not reach the cluster (or none has been tried yet).
    Unreachable,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    pub status: HealthStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One row of `GET /api/clusters`. A figure klens could not read is `None` (`null`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterSummary {
    pub name: String,
    pub writable: bool,
    pub health: Health,
    pub brokers: Option<u64>,
    pub topics: Option<u64>,
    pub partitions: Option<u64>,
    pub under_replicated: Option<u64>,
    pub size_bytes: Option<u64>,
    /// When the metadata was last read successfully, ms since the epoch.
    pub refreshed_at: Option<i64>,
}

/// A broker as the cluster metadata names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerSummary {
    pub id: i32,
    pub host: String,
    pub port: i32,
}

/// `GET /api/cluster`: one cluster's summary and its brokers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterDetail {
    #[serde(flatten)]
    pub summary: ClusterSummary,
    pub broker_list: Vec<BrokerSummary>,
}

serve! {
    /// Every cluster the caller can see, with its health and size.
    GetUrl "clusters" fn clusters() -> Vec<ClusterSummary> as Clusters;

    /// One cluster's summary and brokers.
    GetUrl "cluster" fn cluster(cluster: String) -> ClusterDetail as Cluster;
}
