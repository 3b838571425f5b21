//! Topics: the list and one topic from the catalog (no privilege), and the first two changes,
//! create and delete, each behind its write privilege on a writable cluster.

use std::collections::BTreeMap;

use super::Answer;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::{Arg, SortKey, WindowArgs};
use crate::error::ApiError;

/// One row of `GET /api/topics`. Figures klens does not read yet are `None` (`null`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TopicSummary {
    pub name: String,
    pub internal: bool,
    pub partitions: u64,
    pub replication_factor: u64,
    pub records: Option<u64>,
    pub size_bytes: Option<u64>,
    pub produce_rate: Option<f64>,
    pub under_replicated: u64,
    /// Recent produce rates, oldest first (one per refresh, up to ten minutes), for a
    /// sparkline. Only a paged request (one with `limit`) fills it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub produce_trend: Vec<f32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TopicList {
    /// When the metadata behind the list was read, ms since the epoch.
    pub refreshed_at: Option<i64>,
    /// When klens answered, ms since the epoch (for "read N s ago").
    pub served_at: i64,
    /// Why the last metadata read failed, while the list shown is older (or empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Topics in the cluster, and how many passed the filter.
    pub total: u64,
    pub matched: u64,
    /// The rows of the window asked for: every topic unless a filter or page was given.
    pub topics: Vec<TopicSummary>,
}

impl TopicSummary {
    /// The value of a sortable column of the topics table.
    pub fn sort_key(&self, column: &str) -> Option<SortKey> {
        let n = |v: Option<f64>| Some(SortKey::Number(v));
        match column {
            "partitions" => n(Some(self.partitions as f64)),
            "replicas" => n(Some(self.replication_factor as f64)),
            "records" => n(self.records.map(|v| v as f64)),
            "size" => n(self.size_bytes.map(|v| v as f64)),
            "rate" => n(self.produce_rate),
            "under_replicated" => n(Some(self.under_replicated as f64)),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionDetail {
    pub partition: i32,
    /// -1 while the partition has no leader.
    pub leader: i32,
    pub replicas: Vec<i32>,
    pub isr: Vec<i32>,
    pub low: Option<i64>,
    pub high: Option<i64>,
    pub size_bytes: Option<u64>,
}

/// A consumer group with committed offsets on a topic, and its lag there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicConsumer {
    pub group: String,
    pub state: String,
    /// The group's lag summed over this topic's partitions; `None` when no end offset is known.
    pub lag: Option<u64>,
    /// The group's committed offset on each partition of this topic it has one for, with the
    /// partition's end and the lag there.
    #[serde(default)]
    pub offsets: Vec<super::GroupOffset>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TopicDetail {
    pub name: String,
    pub internal: bool,
    pub partitions: Vec<PartitionDetail>,
    /// The leaders' bytes summed over partitions; `None` unless every partition's is known.
    pub size_bytes: Option<u64>,
    /// Records per second over the last minute, and recent rates, oldest first.
    pub produce_rate: Option<f64>,
    pub produce_trend: Vec<f32>,
    /// Groups with committed offsets on this topic.
    pub consumers: Vec<TopicConsumer>,
    /// The Kafka Connect connectors that write or read it, those the caller may see.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connectors: Vec<super::ConnectorRef>,
    /// The replications that copy it into another cluster, or that made it as a copy, those the
    /// caller may see.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replications: Vec<super::ReplicationRef>,
    /// When metadata, sizes and groups were last read, ms since the epoch.
    pub refreshed_at: Option<i64>,
    pub sizes_refreshed_at: Option<i64>,
    pub groups_refreshed_at: Option<i64>,
    /// When klens answered, ms since the epoch.
    pub served_at: i64,
}

/// The answer to a topic change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicChanged {
    pub cluster: String,
    pub topic: String,
    /// `true` when Kafka only validated the change.
    #[serde(default)]
    pub dry_run: bool,
}

/// What `create_topic` asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateTopicRequest {
    pub cluster: String,
    pub topic: String,
    pub partitions: i32,
    /// `None` takes the broker's default.
    pub replication_factor: Option<i32>,
    /// Topic config overrides, e.g. `cleanup.policy: compact`.
    pub configs: BTreeMap<String, String>,
    pub dry_run: bool,
}

serve! {
    /// Topics of a cluster, from the catalog: all of them, or the window the optional arguments
    /// describe (name filter `q`, `sort` column, `desc`, `offset`, `limit`).
    GetUrl "topics" fn topics(
        cluster: String, #[server(flatten)] window: WindowArgs
    ) -> TopicList as Topics;

    /// One topic and its partitions, from the catalog.
    GetUrl "topic" fn topic(
        cluster: String, topic: Arg<String>
    ) -> TopicDetail as Topic;
}

/// The arguments of `create_topic` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CreateTopicArgs {
    pub cluster: String,
    pub topic: Arg<String>,
    pub partitions: Arg<i32>,
    /// Missing takes the broker's default.
    pub replication_factor: Arg<i32>,
    /// Topic config overrides, e.g. `cleanup.policy: compact`.
    pub configs: Arg<BTreeMap<String, String>>,
    /// `true`: Kafka validates the topic and creates nothing.
    pub dry_run: Arg<bool>,
}

impl CreateTopicArgs {
    /// The request these arguments describe, or `BAD_REQUEST` naming the first bad one.
    pub fn parse(self) -> Result<CreateTopicRequest, ApiError> {
        Ok(CreateTopicRequest {
            cluster: self.cluster,
            topic: self.topic.required("topic")?,
            partitions: self.partitions.required("partitions")?,
            replication_factor: self.replication_factor.optional("replication_factor")?,
            configs: self.configs.or("configs", BTreeMap::new())?,
            dry_run: self.dry_run.or("dry_run", false)?,
        })
    }
}

serve! {
    /// Creates a topic (CREATE_TOPICS on a writable cluster).
    Json "create_topic" fn create_topic(
        #[server(flatten)] args: CreateTopicArgs
    ) -> TopicChanged as CreateTopic;

    /// Deletes a topic (DELETE_TOPICS on a writable cluster; never an internal topic).
    Json "delete_topic" fn delete_topic(
        cluster: String, topic: Arg<String>
    ) -> TopicChanged as DeleteTopic;
}
