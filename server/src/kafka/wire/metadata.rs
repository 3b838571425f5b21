//! Cluster metadata through the protocol client: brokers, topics with Kafka's internal flag,
//! partitions with leader, replicas and ISR.

use kafka_protocol::messages::metadata_request::MetadataRequestTopic;
use kafka_protocol::messages::{MetadataRequest, MetadataResponse, TopicName};
use kafka_protocol::protocol::StrBytes;

use super::{WireClient, WireError, WireResult};
use crate::kafka::{Broker, MetadataSnapshot, Partition, Topic};

/// Kafka's answer for a topic it does not know.
const UNKNOWN_TOPIC_OR_PARTITION: i16 = 3;

impl WireClient {
    /// Reads metadata from the first broker that answers: the `known` brokers of an earlier
    /// read first, then the bootstrap servers. `topics` of `None` asks for every topic; a topic
    /// Kafka does not know is left out of the answer.
    pub async fn metadata(
        &self, known: &[Broker], topics: Option<&[String]>,
    ) -> WireResult<MetadataSnapshot> {
        let request = MetadataRequest::default()
            .with_topics(topics.map(|names| {
                names
                    .iter()
                    .map(|n| {
                        MetadataRequestTopic::default()
                            .with_name(Some(TopicName(StrBytes::from_string(n.clone()))))
                    })
                    .collect()
            }))
            .with_allow_auto_topic_creation(false);
        let mut last_error = WireError::Connection("no broker to ask".to_string());
        for broker in known.iter().chain(self.bootstrap.iter()) {
            let answer = async {
                let mut lease = self.lease(broker).await?;
                lease.call(&request, 1).await
            }
            .await;
            match answer {
                Ok(response) => return snapshot(response),
                Err(error) => last_error = error,
            }
        }
        Err(last_error)
    }
}

fn snapshot(response: MetadataResponse) -> WireResult<MetadataSnapshot> {
    if response.error_code != 0 {
        return Err(WireError::Kafka { context: Some("Metadata"), code: response.error_code });
    }
    let brokers = response
        .brokers
        .into_iter()
        .map(|b| Broker { id: b.node_id.0, host: b.host.to_string(), port: b.port })
        .collect();
    let topics = response
        .topics
        .into_iter()
        .filter(|t| t.error_code != UNKNOWN_TOPIC_OR_PARTITION)
        .filter_map(|t| {
            let name = t.name?.0.to_string();
            let mut partitions: Vec<Partition> = t
                .partitions
                .into_iter()
                .map(|p| Partition {
                    id: p.partition_index,
                    leader: p.leader_id.0,
                    replicas: p.replica_nodes.into_iter().map(|b| b.0).collect(),
                    isr: p.isr_nodes.into_iter().map(|b| b.0).collect(),
                })
                .collect();
            partitions.sort_by_key(|p| p.id);
            Some(Topic { name, internal: t.is_internal, partitions })
        })
        .collect();
    Ok(MetadataSnapshot { brokers, topics })
}

/// `host:port` pairs of a `bootstrap_servers` list (IPv6 hosts in brackets), as brokers with
/// no id yet.
pub fn bootstrap_brokers(list: &str) -> Vec<Broker> {
    list.split(',')
        .map(str::trim)
        .filter_map(|entry| {
            let (host, port) = entry.rsplit_once(':')?;
            let host = host.trim_start_matches('[').trim_end_matches(']');
            Some(Broker { id: -1, host: host.to_string(), port: port.parse().ok()? })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bootstrap_lists_become_addresses() {
        let got: Vec<(String, i32)> = bootstrap_brokers("a:9092, b.example:19094,[::1]:9093,bad")
            .into_iter()
            .map(|b| (b.host, b.port))
            .collect();
        assert_eq!(
            got,
            vec![
                ("a".to_string(), 9092),
                ("b.example".to_string(), 19094),
                ("::1".to_string(), 9093)
            ]
        );
    }
}
