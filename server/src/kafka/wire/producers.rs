//! Who writes which topic, as far as Kafka keeps it: `DescribeProducers` asks each partition's
//! leader for the producers with state on it (every idempotent or transactional producer that
//! wrote there within `producer.id.expiration.ms`), `ListTransactions` asks each broker for the
//! transactional ids it coordinates, and `DescribeTransactions` what each of those writes now.
//! A producer without idempotence leaves no state, so what this finds is never the whole story.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use futures::future::join_all;
use kafka_protocol::messages::describe_producers_request::TopicRequest;
use kafka_protocol::messages::{
    DescribeProducersRequest, DescribeTransactionsRequest, ListTransactionsRequest, TopicName,
    TransactionalId,
};
use kafka_protocol::protocol::StrBytes;

use super::{describe_code, Lease, WireClient, WireResult};
use crate::kafka::{Broker, MetadataSnapshot};

/// Partitions per DescribeProducers request.
const PARTITION_BATCH: usize = 2_000;
/// Transactional ids per DescribeTransactions request.
const TRANSACTION_BATCH: usize = 200;
/// Producers kept per topic, the latest writers first: a topic written by many short-lived
/// producers keeps its state for each of them for a day.
pub const WRITERS_PER_TOPIC: usize = 16;

/// One producer's writes to one topic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Writes {
    pub producer_id: i64,
    pub topic: String,
    /// Partitions of the topic the producer has state on.
    pub partitions: u32,
    /// Its last write to any of them, ms since the epoch (-1 when the broker did not say).
    pub last_write_ms: i64,
}

/// A transactional id, as its coordinator describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transaction {
    pub id: String,
    pub producer_id: i64,
    /// Kafka's name for its state: Ongoing, CompleteCommit, Empty, …
    pub state: String,
    /// The topics of the transaction in progress, if one is.
    pub topics: Vec<String>,
}

/// What the brokers said about the producers of the partitions they lead.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProducerScan {
    /// Sorted by topic, then producer id.
    pub writes: Vec<Writes>,
    pub transactions: Vec<Transaction>,
    /// Topics asked about (every partition of which had a leader to ask).
    pub topics_asked: usize,
    /// Topics with more producers than [`WRITERS_PER_TOPIC`], whose earliest were left out.
    pub crowded: usize,
    /// Why some brokers' or partitions' answers are missing, one line each.
    pub errors: Vec<String>,
}

impl WireClient {
    /// The producers of every partition of `metadata`'s topics, and the transactional ids of
    /// every broker. A broker that fails leaves the others' answers standing, said in
    /// `errors`.
    pub async fn producers(&self, metadata: &MetadataSnapshot) -> ProducerScan {
        let mut by_leader: BTreeMap<i32, Vec<(&str, i32)>> = BTreeMap::new();
        for topic in &metadata.topics {
            for p in &topic.partitions {
                by_leader.entry(p.leader).or_default().push((&topic.name, p.id));
            }
        }
        let asks = metadata.brokers.iter().map(|broker| {
            let partitions = by_leader.remove(&broker.id).unwrap_or_default();
            async move { (broker, self.producers_of(broker, partitions).await) }
        });
        let answers = join_all(asks).await;
        let mut scan = ProducerScan::default();
        // Per (topic, producer): partitions and the last write.
        let mut writes: BTreeMap<(String, i64), (u32, i64)> = BTreeMap::new();
        let mut unanswered: BTreeSet<String> = BTreeSet::new();
        for (broker, answer) in answers {
            match answer {
                Ok(led) => {
                    for (topic, producer, last) in led.writes {
                        let slot = writes.entry((topic, producer)).or_insert((0, -1));
                        slot.0 += 1;
                        slot.1 = slot.1.max(last);
                    }
                    unanswered.extend(led.unanswered);
                    scan.transactions.extend(led.transactions);
                    scan.errors.extend(led.errors);
                }
                Err(error) => scan.errors.push(format!("broker {}: {error}", broker.id)),
            }
        }
        // Partitions no broker leads (leader -1, or a broker missing from the metadata).
        for partitions in by_leader.values() {
            unanswered.extend(partitions.iter().map(|(t, _)| t.to_string()));
        }
        scan.topics_asked =
            metadata.topics.iter().filter(|t| !unanswered.contains(&t.name)).count();
        let mut per_topic: BTreeMap<String, Vec<Writes>> = BTreeMap::new();
        for ((topic, producer_id), (partitions, last_write_ms)) in writes {
            let topic_writes = per_topic.entry(topic.clone()).or_default();
            topic_writes.push(Writes { producer_id, topic, partitions, last_write_ms });
        }
        for (_, mut topic_writes) in per_topic {
            if topic_writes.len() > WRITERS_PER_TOPIC {
                scan.crowded += 1;
                topic_writes.sort_by_key(|w| std::cmp::Reverse(w.last_write_ms));
                topic_writes.truncate(WRITERS_PER_TOPIC);
                topic_writes.sort_by_key(|w| w.producer_id);
            }
            scan.writes.extend(topic_writes);
        }
        scan.transactions.sort_by(|a, b| a.id.cmp(&b.id));
        scan.transactions.dedup_by(|a, b| a.id == b.id);
        scan
    }

    /// One broker's answers: the producers of the partitions it leads, then the transactions
    /// it coordinates.
    async fn producers_of(&self, broker: &Broker, partitions: Vec<(&str, i32)>) -> WireResult<Led> {
        let mut lease = self.lease(broker).await?;
        let mut led = Led::default();
        for batch in partitions.chunks(PARTITION_BATCH) {
            describe_producers(&mut lease, batch, &mut led).await?;
        }
        // The producers stand even when the transactions cannot be read (a broker without the
        // API, or klens without DESCRIBE on transactional ids).
        let listed = match lease.call(&ListTransactionsRequest::default(), 0).await {
            Ok(listed) => listed,
            Err(error) => {
                led.errors.push(format!("transactions not listed: {error}"));
                return Ok(led);
            }
        };
        if listed.error_code != 0 {
            led.errors.push(format!(
                "broker {}: transactions not listed ({})",
                broker.id,
                describe_code(listed.error_code)
            ));
            return Ok(led);
        }
        let ids: Vec<(String, i64, String)> = listed
            .transaction_states
            .into_iter()
            .map(|t| {
                (t.transactional_id.0.to_string(), t.producer_id.0, t.transaction_state.to_string())
            })
            .collect();
        for batch in ids.chunks(TRANSACTION_BATCH) {
            let request = DescribeTransactionsRequest::default().with_transactional_ids(
                batch
                    .iter()
                    .map(|(id, _, _)| TransactionalId(StrBytes::from_string(id.clone())))
                    .collect(),
            );
            let described = match lease.call(&request, 0).await {
                Ok(described) => described,
                Err(error) => {
                    led.errors.push(format!("transactions not described: {error}"));
                    return Ok(led);
                }
            };
            let mut topics: HashMap<String, Vec<String>> = described
                .transaction_states
                .into_iter()
                .filter(|t| t.error_code == 0)
                .map(|t| {
                    let names = t.topics.into_iter().map(|d| d.topic.0.to_string()).collect();
                    (t.transactional_id.0.to_string(), names)
                })
                .collect();
            for (id, producer_id, state) in batch {
                let mut topics = topics.remove(id).unwrap_or_default();
                topics.sort();
                topics.dedup();
                led.transactions.push(Transaction {
                    id: id.clone(),
                    producer_id: *producer_id,
                    state: state.clone(),
                    topics,
                });
            }
        }
        Ok(led)
    }
}

/// What one broker said.
#[derive(Default)]
struct Led {
    /// (topic, producer id, last write ms), one per partition the producer has state on.
    writes: Vec<(String, i64, i64)>,
    /// Topics with a partition the broker did not describe.
    unanswered: BTreeSet<String>,
    transactions: Vec<Transaction>,
    errors: Vec<String>,
}

async fn describe_producers(
    lease: &mut Lease, batch: &[(&str, i32)], led: &mut Led,
) -> WireResult<()> {
    let mut topics: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for (topic, partition) in batch {
        topics.entry(topic).or_default().push(*partition);
    }
    let request = DescribeProducersRequest::default().with_topics(
        topics
            .iter()
            .map(|(name, partitions)| {
                TopicRequest::default()
                    .with_name(TopicName(StrBytes::from_string(name.to_string())))
                    .with_partition_indexes(partitions.clone())
            })
            .collect(),
    );
    let answer = lease.call(&request, 0).await?;
    let mut described: BTreeSet<(String, i32)> = BTreeSet::new();
    let mut refused = None;
    for topic in answer.topics {
        let name = topic.name.0.to_string();
        for p in topic.partitions {
            if p.error_code != 0 {
                refused.get_or_insert(p.error_code);
                continue;
            }
            described.insert((name.clone(), p.partition_index));
            for producer in p.active_producers {
                led.writes.push((name.clone(), producer.producer_id.0, producer.last_timestamp));
            }
        }
    }
    for (topic, partition) in batch {
        if !described.contains(&(topic.to_string(), *partition)) {
            led.unanswered.insert(topic.to_string());
        }
    }
    if let Some(code) = refused {
        led.errors.push(format!(
            "{}: some partitions' producers not described ({})",
            lease.label,
            describe_code(code)
        ));
    }
    Ok(())
}
