//! Producing through `/api/produce` against the real Kafka: every byte read back by a consumer
//! of the test's own, and keys placed where Java-partitioned and librdkafka-partitioned
//! producers of the test's own put them.

use std::time::Duration;

use axum::http::StatusCode;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Offset, TopicPartitionList};

use crate::support::*;

fn clusters() -> String {
    format!(
        "clusters:\n{}    writable: true\n{}  - name: weak\n    bootstrap_servers: {SCRAM_PORT}\n    writable: true\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: reporting\n      password: reporting-secret\n",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("ro", "klens-secret"),
    )
}

/// One record as a consumer of the test's own reads it: key, value and headers, as bytes.
type Read = (
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Vec<(String, Option<Vec<u8>>)>,
);

fn read_at(topic: &str, partition: i32, offset: i64) -> Read {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("group.id", "it-produce-reader")
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
    let mut list = TopicPartitionList::new();
    list.add_partition_offset(topic, partition, Offset::Offset(offset))
        .expect("partition");
    consumer.assign(&list).expect("assign");
    for _ in 0..50 {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            let headers = m
                .headers()
                .map(|h| {
                    h.iter()
                        .map(|h| (h.key.to_string(), h.value.map(<[u8]>::to_vec)))
                        .collect()
                })
                .unwrap_or_default();
            return (
                m.key().map(<[u8]>::to_vec),
                m.payload().map(<[u8]>::to_vec),
                headers,
            );
        }
    }
    panic!("no record at {topic}/{partition}/{offset}");
}

/// Where a librdkafka producer of the test's own with `partitioner` puts `key`.
async fn placed_by(partitioner: &str, topic: &str, key: &str) -> i32 {
    let producer: FutureProducer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("partitioner", partitioner)
        .create()
        .expect("producer");
    let delivery = producer
        .send(
            FutureRecord::<str, str>::to(topic)
                .key(key)
                .payload("oracle"),
            Duration::from_secs(10),
        )
        .await
        .unwrap_or_else(|(e, _)| panic!("send: {e}"));
    delivery.partition
}

fn code(status: StatusCode, body: &serde_json::Value) -> (u16, String) {
    (
        status.as_u16(),
        body["code"].as_str().unwrap_or("(none)").to_string(),
    )
}

#[tokio::test]
async fn a_produced_record_is_read_back_byte_for_byte() {
    let topic = unique("it-produce");
    create_topic(&topic, 3).await;
    let router = router(&clusters()).await;

    let (status, body) = post(
        &router,
        "/api/produce",
        serde_json::json!({
            "cluster": "rw", "topic": topic, "partition": 1,
            "key": { "encoding": "base64", "data": "/wBrZXk=" },
            "value": { "encoding": "json", "data": { "id": 7, "name": "séance", "tags": ["a"] } },
            "headers": [
                { "key": "trace", "value": { "encoding": "text", "data": "t-1" } },
                { "key": "trace", "value": { "encoding": "text", "data": "t-2" } },
                { "key": "empty" },
                { "key": "bin", "value": { "encoding": "base64", "data": "AAEC" } }
            ]
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["partition"], 1);
    let offset = body["offset"].as_i64().expect("an offset");
    assert!(body["timestamp"].as_i64().is_some_and(|t| t > 0));
    let (key, value, headers) = read_at(&topic, 1, offset);
    assert_eq!(key.as_deref(), Some(&b"\xff\x00key"[..]));
    assert_eq!(
        value.as_deref(),
        Some(r#"{"id":7,"name":"séance","tags":["a"]}"#.as_bytes())
    );
    assert_eq!(
        headers,
        [
            ("trace".to_string(), Some(b"t-1".to_vec())),
            ("trace".to_string(), Some(b"t-2".to_vec())),
            ("empty".to_string(), None),
            ("bin".to_string(), Some(vec![0, 1, 2])),
        ]
    );

    // A tombstone: a key and no value.
    let (status, body) = post(
        &router,
        "/api/produce",
        serde_json::json!({
            "cluster": "rw", "topic": topic, "partition": 0,
            "key": { "encoding": "text", "data": "gone" },
            "value": { "encoding": "null" }
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (key, value, _) = read_at(&topic, 0, body["offset"].as_i64().expect("offset"));
    assert_eq!((key.as_deref(), value), (Some(&b"gone"[..]), None));

    // The contract's refusals, and nothing written.
    let value = serde_json::json!({ "encoding": "text", "data": "x" });
    for (body, want) in [
        (
            serde_json::json!({ "cluster": "ro", "topic": topic, "value": value }),
            (403, "READ_ONLY_CLUSTER"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "topic": "__consumer_offsets", "value": value }),
            (403, "INTERNAL_TOPIC"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "topic": topic, "partition": 9, "value": value }),
            (404, "NOT_FOUND"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "topic": unique("it-none"), "value": value }),
            (404, "NOT_FOUND"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "topic": topic, "value": { "encoding": "base64", "data": "@@" } }),
            (400, "BAD_REQUEST"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "topic": topic, "value": { "encoding": "text", "data": 5 } }),
            (400, "BAD_REQUEST"),
        ),
    ] {
        let (status, answer) = post(&router, "/api/produce", body.clone()).await;
        assert_eq!(
            code(status, &answer),
            (want.0, want.1.to_string()),
            "{body}: {answer}"
        );
    }
    let counts: Vec<_> = kafka_topics()
        .into_iter()
        .filter(|(t, _)| *t == topic)
        .collect();
    assert_eq!(counts.len(), 1);
}

#[tokio::test]
async fn keys_land_where_java_and_librdkafka_producers_put_them() {
    let topic = unique("it-produce-keys");
    create_topic(&topic, 6).await;
    let router = router(&clusters()).await;
    for key in [
        "order-1",
        "order-2",
        "customer-42",
        "ü-key",
        "a",
        "zzzzzzzzzzzzzzzzzzzz",
    ] {
        let java = placed_by("murmur2_random", &topic, key).await;
        let librdkafka = placed_by("consistent_random", &topic, key).await;
        let payload = serde_json::json!({
            "cluster": "rw", "topic": topic,
            "key": { "encoding": "text", "data": key },
            "value": { "encoding": "text", "data": "from klens" }
        });
        let mut dry = payload.clone();
        dry["dry_run"] = true.into();
        let (status, preview) = post(&router, "/api/produce", dry).await;
        assert_eq!(status, StatusCode::OK, "{preview}");
        assert_eq!(
            preview["offset"],
            serde_json::Value::Null,
            "a dry run writes nothing"
        );
        assert_eq!(preview["partition"], java, "{key}: {preview}");
        assert_eq!(preview["key_partitions"]["murmur2"], java, "{key}");
        assert_eq!(preview["key_partitions"]["consistent"], librdkafka, "{key}");
        let (status, written) = post(&router, "/api/produce", payload).await;
        assert_eq!(status, StatusCode::OK, "{written}");
        assert_eq!(written["partition"], java, "{key}: {written}");
        assert_eq!(written["partitioner"], "murmur2_random");
    }
}

#[tokio::test]
async fn klens_own_kafka_user_without_write_is_refused() {
    let topic = unique("click-it-produce");
    create_topic(&topic, 1).await;
    let router = router(&clusters()).await;
    let (status, body) = post(
        &router,
        "/api/produce",
        serde_json::json!({ "cluster": "weak", "topic": topic, "value": { "encoding": "text", "data": "x" } }),
    )
    .await;
    assert_eq!(code(status, &body), (403, "REFUSED".into()), "{body}");
}

#[tokio::test]
async fn find_by_key_reads_only_the_keys_partitions() {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
    let topic = unique("it-find-key");
    create_topic(&topic, 6).await;
    // Noise in every partition, then three versions of one key from a Java-partitioned
    // producer, and one of another key from a librdkafka-partitioned one.
    let noise: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .create()
        .expect("producer");
    for p in 0..6 {
        for i in 0..50 {
            noise
                .send(
                    BaseRecord::to(&topic)
                        .partition(p)
                        .key(&format!("noise-{i}"))
                        .payload("n"),
                )
                .unwrap_or_else(|(e, _)| panic!("send: {e}"));
        }
    }
    noise.flush(Duration::from_secs(10)).expect("flush");
    let mut java_partition = -1;
    for version in ["v1", "v2", "v3"] {
        let producer: FutureProducer = ClientConfig::new()
            .set("bootstrap.servers", OPEN_PORT)
            .set("partitioner", "murmur2_random")
            .create()
            .expect("producer");
        java_partition = producer
            .send(
                FutureRecord::<str, str>::to(&topic)
                    .key("customer-7")
                    .payload(version),
                Duration::from_secs(10),
            )
            .await
            .unwrap_or_else(|(e, _)| panic!("send: {e}"))
            .partition;
    }
    let crc_partition = placed_by("consistent_random", &topic, "legacy-9").await;
    let router = router(&clusters()).await;

    let page = |query: String| {
        let router = router.clone();
        let path = format!("/api/records?cluster=rw&topic={topic}&{query}");
        async move {
            let (status, body) = get_raw(&router, &path).await;
            assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
            serde_json::from_slice::<serde_json::Value>(&body).expect("JSON")
        }
    };
    let found = page("key=customer-7".into()).await;
    let values: Vec<&str> = found["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["value"]["data"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(values, ["v1", "v2", "v3"], "{found}");
    assert!(found["records"]
        .as_array()
        .expect("records")
        .iter()
        .all(|r| r["key"]["data"] == "customer-7" && r["partition"] == java_partition));
    let searched = found["key_partitions"]
        .as_array()
        .expect("the partitions read");
    assert!(searched.iter().any(|p| *p == java_partition), "{found}");
    assert!(searched.len() <= 2);
    // At most two partitions of 50 + a few records were read, not the topic's 300 and more.
    assert!(
        found["scanned"].as_u64().is_some_and(|n| n <= 2 * 54),
        "{found}"
    );

    let latest = page("key=customer-7&limit=1".into()).await;
    assert_eq!(latest["records"].as_array().map(Vec::len), Some(1));
    assert_eq!(latest["records"][0]["value"]["data"], "v3");

    // A key written by a librdkafka-partitioned client is found too.
    let legacy = page("key=legacy-9".into()).await;
    assert_eq!(legacy["records"][0]["partition"], crc_partition, "{legacy}");
    let only_java = page("key=legacy-9&partitioner=murmur2_random".into()).await;
    let java_for_legacy = only_java["key_partitions"][0].as_i64();
    if java_for_legacy != Some(i64::from(crc_partition)) {
        assert_eq!(
            only_java["records"].as_array().map(Vec::len),
            Some(0),
            "{only_java}"
        );
    }
    let (status, _) = get_raw(
        &router,
        &format!("/api/records?cluster=rw&topic={topic}&key=x&partitioner=random"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}
