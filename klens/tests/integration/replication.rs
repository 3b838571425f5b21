//! The ground replications stand on, checked against the dev stack: MirrorMaker 2's source
//! connector, on the stack's Connect worker, copies a topic of the remote Kafka into the first
//! one under MirrorMaker's default naming (`remote.<topic>`), every key, value and header byte for
//! byte with byte-array converters, as read back by a consumer of its own.

use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::message::{Header, Headers, Message, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::ClientConfig;
use serde_json::json;

use crate::support::*;

/// dev/stack's second Kafka, the other side of replications.
const REMOTE_PORT: &str = "127.0.0.1:28092";

const BYTES: &str = "org.apache.kafka.connect.converters.ByteArrayConverter";

/// A record as both sides hold it: key, value, headers.
type Held = (Option<Vec<u8>>, Option<Vec<u8>>, Vec<(String, Option<Vec<u8>>)>);

fn held(m: &impl Message) -> Held {
    let headers = m
        .headers()
        .map(|h| h.iter().map(|h| (h.key.to_string(), h.value.map(<[u8]>::to_vec))).collect())
        .unwrap_or_default();
    (m.key().map(<[u8]>::to_vec), m.payload().map(<[u8]>::to_vec), headers)
}

#[tokio::test]
async fn mirror_maker_copies_a_remote_topic_byte_for_byte() {
    let topic = unique("it-mirror");
    let admin: AdminClient<DefaultClientContext> =
        ClientConfig::new().set("bootstrap.servers", REMOTE_PORT).create().expect("admin");
    let new = NewTopic::new(&topic, 1, TopicReplication::Fixed(1));
    let made = admin
        .create_topics(
            [&new],
            &AdminOptions::new().operation_timeout(Some(Duration::from_secs(10))),
        )
        .await
        .expect("remote answers");
    made.into_iter().for_each(|r| r.map(|_| ()).expect("topic made"));

    // Bytes that are not UTF-8, an empty value, a tombstone and a header without a value.
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", REMOTE_PORT).create().expect("producer");
    let sent: Vec<Held> = (0u8..20)
        .map(|i| {
            let value = match i {
                3 => None,
                4 => Some(Vec::new()),
                _ => Some(vec![0xff, i, 0x00, 0xc3]),
            };
            let headers = vec![("h".to_string(), Some(vec![i, 0xfe])), ("empty".into(), None)];
            (Some(format!("k{i}").into_bytes()), value, headers)
        })
        .collect();
    for (key, value, headers) in &sent {
        let mut owned = OwnedHeaders::new();
        for (k, v) in headers {
            owned = owned.insert(Header { key: k, value: v.as_deref() });
        }
        let mut record = BaseRecord::<[u8], [u8]>::to(&topic).headers(owned);
        if let Some(key) = key {
            record = record.key(key.as_slice());
        }
        if let Some(value) = value {
            record = record.payload(value.as_slice());
        }
        producer.send(record).unwrap_or_else(|(e, _)| panic!("send: {e}"));
    }
    producer.flush(Duration::from_secs(10)).expect("flush");

    let name = format!("{topic}-source");
    let config = json!({
        "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
        "tasks.max": "1",
        "source.cluster.alias": "remote",
        "target.cluster.alias": "local",
        "source.cluster.bootstrap.servers": REMOTE_PORT,
        "target.cluster.bootstrap.servers": OPEN_PORT,
        "topics": topic,
        "key.converter": BYTES,
        "value.converter": BYTES,
        "header.converter": BYTES,
        "replication.factor": "1",
        "offset-syncs.topic.replication.factor": "1",
        "sync.topic.acls.enabled": "false",
        "sync.topic.configs.enabled": "false",
        "emit.heartbeats.enabled": "false",
    });
    put_connector(CONNECT, &name, config).await;

    // MirrorMaker makes the copy's topic once its connector starts.
    let copy = format!("remote.{topic}");
    for _ in 0..120 {
        if kafka_topics().iter().any(|(t, _)| *t == copy) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let consumer = reader_of(&copy, "it-mirror-reader");
    let mut got: Vec<Held> = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    while got.len() < sent.len() && std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(500)) {
            got.push(held(&m));
        }
    }
    delete_connector(CONNECT, &name).await;
    assert_eq!(got, sent, "{copy} holds what {topic} does, in order, byte for byte");
}
