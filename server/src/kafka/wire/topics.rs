//! A topic's configs, and the topic changes librdkafka's Rust binding cannot make with Kafka's
//! own words on refusal: incremental config changes, new partitions, deleting records. Each
//! change is a [`WriteRequest`](super::kinds::WriteRequest), sent only under its grant.

use kafka_protocol::messages::create_partitions_request::CreatePartitionsTopic;
use kafka_protocol::messages::delete_records_request::{
    DeleteRecordsPartition, DeleteRecordsTopic,
};
use kafka_protocol::messages::describe_configs_request::DescribeConfigsResource;
use kafka_protocol::messages::incremental_alter_configs_request::{
    AlterConfigsResource, AlterableConfig,
};
use kafka_protocol::messages::{
    CreatePartitionsRequest, DeleteRecordsRequest, DescribeConfigsRequest,
    IncrementalAlterConfigsRequest, TopicName,
};
use kafka_protocol::protocol::StrBytes;

use super::kinds::ReadRequest;
use super::{WireClient, WireError, WireResult};
use crate::auth::Grant;
use crate::kafka::Broker;

/// Kafka's resource type for a topic in config requests.
pub const TOPIC_RESOURCE: i8 = 2;
/// IncrementalAlterConfigs operations.
const SET: i8 = 0;
const DELETE: i8 = 1;
/// How long Kafka may work on a change before it answers (within the client's own timeout).
const CHANGE_TIMEOUT_MS: i32 = 10_000;

/// Kafka's refusal of one resource: its error code and, when it gave one, its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub code: i16,
    pub message: Option<String>,
}

impl Refusal {
    /// `Ok` for Kafka's "no error", else the refusal with its message.
    pub(super) fn of(code: i16, message: Option<&StrBytes>) -> Result<(), Refusal> {
        if code == 0 {
            return Ok(());
        }
        Err(Refusal { code, message: message.map(|m| m.to_string()).filter(|m| !m.is_empty()) })
    }
}

/// One config of a resource as Kafka describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigEntry {
    pub name: String,
    pub value: Option<String>,
    /// Kafka's config source code (1 topic, 2 dynamic broker, 3 dynamic default broker, 4
    /// static broker, 5 default, …).
    pub source: i8,
    pub read_only: bool,
    pub sensitive: bool,
    /// Where else a value is set, highest precedence first (the value in force first).
    pub synonyms: Vec<(String, Option<String>, i8)>,
    /// Kafka's config type code (1 boolean, 2 string, 3 int, 4 short, 5 long, 6 double, 7
    /// list, 8 class, 9 password).
    pub config_type: i8,
    pub documentation: Option<String>,
}

/// A change to one config: `Some(value)` sets an override, `None` removes it.
pub type ConfigChange = (String, Option<String>);

fn text(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

impl WireClient {
    /// The brokers to ask: those of the last metadata, else the bootstrap servers.
    pub(super) fn targets<'a>(&'a self, known: &'a [Broker]) -> &'a [Broker] {
        if known.is_empty() {
            &self.bootstrap
        } else {
            known
        }
    }

    /// Sends a read to the first broker that answers: those of the last metadata, else the
    /// bootstrap servers.
    pub(super) async fn ask_any<R: ReadRequest>(
        &self, known: &[Broker], request: &R, min: i16,
    ) -> WireResult<R::Response> {
        self.ask_first(self.targets(known), request, min).await
    }

    /// Sends a read to the first of `ask` that answers.
    pub(super) async fn ask_first<R: ReadRequest>(
        &self, ask: &[Broker], request: &R, min: i16,
    ) -> WireResult<R::Response> {
        let mut last_error = WireError::Connection("no broker to ask".to_string());
        for broker in ask {
            let answer = async {
                let mut lease = self.lease(broker).await?;
                lease.call(request, min).await
            }
            .await;
            match answer {
                Ok(response) => return Ok(response),
                Err(error) => last_error = error,
            }
        }
        Err(last_error)
    }

    /// Every config of `topic`, with synonyms and Kafka's documentation, from the first broker
    /// that answers.
    pub async fn topic_configs(
        &self, known: &[Broker], topic: &str,
    ) -> WireResult<Result<Vec<ConfigEntry>, Refusal>> {
        self.describe_configs(self.targets(known), TOPIC_RESOURCE, topic).await
    }

    /// Every config of one resource (a topic, a broker by id, or `""` for the cluster-wide
    /// broker default), from the first of `ask` that answers.
    pub(super) async fn describe_configs(
        &self, ask: &[Broker], resource_type: i8, name: &str,
    ) -> WireResult<Result<Vec<ConfigEntry>, Refusal>> {
        let request = DescribeConfigsRequest::default()
            .with_resources(vec![DescribeConfigsResource::default()
                .with_resource_type(resource_type)
                .with_resource_name(text(name))
                .with_configuration_keys(None)])
            .with_include_synonyms(true)
            .with_include_documentation(true);
        let response = self.ask_first(ask, &request, 1).await?;
        let Some(result) = response.results.into_iter().next() else {
            return Err(WireError::Protocol(
                "DescribeConfigs: an answer without the resource".to_string(),
            ));
        };
        if let Err(refusal) = Refusal::of(result.error_code, result.error_message.as_ref()) {
            return Ok(Err(refusal));
        }
        Ok(Ok(result
            .configs
            .into_iter()
            .map(|c| ConfigEntry {
                name: c.name.to_string(),
                // Kafka sends no value for a sensitive config; never show one anyway.
                value: c.value.filter(|_| !c.is_sensitive).map(|v| v.to_string()),
                source: c.config_source,
                read_only: c.read_only,
                sensitive: c.is_sensitive,
                synonyms: c
                    .synonyms
                    .into_iter()
                    .map(|s| {
                        let value = s.value.filter(|_| !c.is_sensitive);
                        (s.name.to_string(), value.map(|v| v.to_string()), s.source)
                    })
                    .collect(),
                config_type: c.config_type,
                documentation: c.documentation.map(|d| d.to_string()),
            })
            .collect()))
    }

    /// Sets and removes overrides of `topic` in one request, with Kafka's incremental
    /// semantics (a config not named keeps its override). With `validate_only`, Kafka checks
    /// the change and applies nothing. Sent to one broker, which hands it to the controller.
    pub async fn alter_topic_configs(
        &self, grant: &Grant, known: &[Broker], topic: &str, changes: &[ConfigChange],
        validate_only: bool,
    ) -> WireResult<Result<(), Refusal>> {
        let broker = self.first(known)?;
        self.alter_configs(grant, broker, TOPIC_RESOURCE, topic, changes, validate_only).await
    }

    /// Sets and removes configs of one resource in one incremental request sent to `broker`.
    pub(super) async fn alter_configs(
        &self, grant: &Grant, broker: &Broker, resource_type: i8, name: &str,
        changes: &[ConfigChange], validate_only: bool,
    ) -> WireResult<Result<(), Refusal>> {
        let configs = changes
            .iter()
            .map(|(name, value)| {
                AlterableConfig::default()
                    .with_name(text(name))
                    .with_config_operation(if value.is_some() { SET } else { DELETE })
                    .with_value(value.as_deref().map(text))
            })
            .collect();
        let request = IncrementalAlterConfigsRequest::default()
            .with_resources(vec![AlterConfigsResource::default()
                .with_resource_type(resource_type)
                .with_resource_name(text(name))
                .with_configs(configs)])
            .with_validate_only(validate_only);
        let mut lease = self.lease(broker).await?;
        let response = lease.write(grant, &request, 0).await?;
        match response.responses.first() {
            Some(r) => Ok(Refusal::of(r.error_code, r.error_message.as_ref())),
            None => Err(WireError::Protocol(
                "IncrementalAlterConfigs: an answer without the resource".to_string(),
            )),
        }
    }

    /// Raises the partition count of `topic` to `count` (Kafka picks the replicas). With
    /// `validate_only`, Kafka checks and creates nothing.
    pub async fn create_partitions(
        &self, grant: &Grant, known: &[Broker], topic: &str, count: i32, validate_only: bool,
    ) -> WireResult<Result<(), Refusal>> {
        let request = CreatePartitionsRequest::default()
            .with_topics(vec![CreatePartitionsTopic::default()
                .with_name(TopicName(text(topic)))
                .with_count(count)
                .with_assignments(None)])
            .with_timeout_ms(CHANGE_TIMEOUT_MS)
            .with_validate_only(validate_only);
        let broker = self.first(known)?;
        let mut lease = self.lease(broker).await?;
        let response = lease.write(grant, &request, 0).await?;
        match response.results.first() {
            Some(r) => Ok(Refusal::of(r.error_code, r.error_message.as_ref())),
            None => Err(WireError::Protocol(
                "CreatePartitions: an answer without the topic".to_string(),
            )),
        }
    }

    /// Deletes the records of `topic` before each given offset, asking each partition's
    /// leader. Answers, per partition, its new low watermark or Kafka's refusal.
    pub async fn delete_records(
        &self, grant: &Grant, topic: &str, by_leader: &[(Broker, Vec<(i32, i64)>)],
    ) -> Vec<(i32, Result<i64, Refusal>)> {
        let mut out = Vec::new();
        for (leader, offsets) in by_leader {
            let request = DeleteRecordsRequest::default()
                .with_topics(vec![DeleteRecordsTopic::default()
                    .with_name(TopicName(text(topic)))
                    .with_partitions(
                        offsets
                            .iter()
                            .map(|&(partition, offset)| {
                                DeleteRecordsPartition::default()
                                    .with_partition_index(partition)
                                    .with_offset(offset)
                            })
                            .collect(),
                    )])
                .with_timeout_ms(CHANGE_TIMEOUT_MS);
            let answer = async {
                let mut lease = self.lease(leader).await?;
                lease.write(grant, &request, 0).await
            }
            .await;
            match answer {
                Ok(response) => {
                    let mut answered: Vec<(i32, Result<i64, Refusal>)> = response
                        .topics
                        .into_iter()
                        .flat_map(|t| t.partitions)
                        .map(|p| {
                            let outcome = Refusal::of(p.error_code, None).map(|()| p.low_watermark);
                            (p.partition_index, outcome)
                        })
                        .collect();
                    // A partition the answer left out is reported, not taken as done.
                    for &(partition, _) in offsets {
                        if !answered.iter().any(|(p, _)| *p == partition) {
                            answered.push((partition, Err(unanswered("no answer for it"))));
                        }
                    }
                    out.extend(answered);
                }
                Err(error) => {
                    out.extend(
                        offsets.iter().map(|&(partition, _)| {
                            (partition, Err(unanswered(&error.to_string())))
                        }),
                    );
                }
            }
        }
        out
    }

    pub(super) fn first<'a>(&'a self, known: &'a [Broker]) -> WireResult<&'a Broker> {
        self.targets(known)
            .first()
            .ok_or_else(|| WireError::Connection("no broker to ask".to_string()))
    }
}

/// A partition whose change got no answer: Kafka's "network exception", with klens's reason.
fn unanswered(reason: &str) -> Refusal {
    Refusal { code: NETWORK_EXCEPTION, message: Some(reason.to_string()) }
}

/// Kafka's code for a request that got no answer.
pub const NETWORK_EXCEPTION: i16 = 13;
