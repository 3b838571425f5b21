//! Topic configs and the topic changes after create and delete (config overrides, more
//! partitions, deleting records), through `/api` against the real Kafka. Each effect is read
//! back by a client of the test's own (librdkafka's admin and consumer, or kcat), never by klens.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::http::StatusCode;
use rdkafka::admin::{AdminClient, AdminOptions, ResourceSpecifier};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;

use crate::support::*;

/// A writable and a read-only view of the stack as klens, and a writable one as `reporting`,
/// a Kafka user that may read and describe `click*` topics and change nothing.
fn clusters() -> String {
    format!(
        "clusters:\n{}    writable: true\n{}  - name: weak\n    bootstrap_servers: {SCRAM_PORT}\n    writable: true\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: reporting\n      password: reporting-secret\n",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("ro", "klens-secret"),
    )
}

/// The overrides of `topic` (config → value), as librdkafka's admin client reads them.
async fn overrides(topic: &str) -> BTreeMap<String, String> {
    let admin: AdminClient<DefaultClientContext> =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("admin client");
    let described = admin
        .describe_configs([&ResourceSpecifier::Topic(topic)], &AdminOptions::new())
        .await
        .expect("describe_configs answered");
    let resource = described.into_iter().next().expect("one resource").expect("described");
    resource
        .entries
        .into_iter()
        .filter(|e| matches!(e.source, rdkafka::admin::ConfigSource::DynamicTopic))
        .filter_map(|e| Some((e.name, e.value?)))
        .collect()
}

/// The low watermark of each partition of `topic`, as a consumer of the test's own reads it.
fn low_watermarks(topic: &str, partitions: i32) -> Vec<i64> {
    watermarks(topic, partitions).into_iter().map(|w| w.0).collect()
}

fn partition_count(topic: &str) -> Option<usize> {
    kafka_topics().into_iter().find(|(t, _)| t == topic).map(|(_, p)| p)
}

fn refusal(status: StatusCode, body: &serde_json::Value) -> (u16, &str) {
    (status.as_u16(), body["code"].as_str().unwrap_or("(no code)"))
}

#[tokio::test]
async fn topic_configs_show_where_values_come_from_and_change_incrementally() {
    let topic = unique("click-it-configs");
    let router = router(&clusters()).await;

    // Created with configs, checked by Kafka's own validation.
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({
            "cluster": "rw", "topic": topic, "partitions": 1,
            "configs": { "retention.ms": "3600000", "cleanup.policy": "delete" }
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let before = overrides(&topic).await;
    assert_eq!(before.get("retention.ms").map(String::as_str), Some("3600000"));
    assert_eq!(before.get("cleanup.policy").map(String::as_str), Some("delete"));

    // Every config with its source, overrides first, with Kafka's documentation.
    let (status, body) =
        get_raw(&router, &format!("/api/topic_configs?cluster=rw&topic={topic}")).await;
    assert_eq!(status, StatusCode::OK);
    let listed: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    let configs = listed["configs"].as_array().expect("configs");
    assert!(configs.len() > 20, "{listed}");
    let sources: Vec<&str> = configs.iter().filter_map(|c| c["source"].as_str()).collect();
    let first_inherited = sources.iter().position(|s| *s != "topic").expect("inherited");
    assert!(
        sources[first_inherited..].iter().all(|s| *s != "topic"),
        "overrides come first: {sources:?}"
    );
    let named = |n: &str| {
        configs.iter().find(|c| c["name"] == n).unwrap_or_else(|| panic!("{n} listed")).clone()
    };
    let retention = named("retention.ms");
    assert_eq!(
        (retention["value"].as_str(), retention["source"].as_str()),
        (Some("3600000"), Some("topic"))
    );
    assert_eq!(retention["type"], "long");
    assert!(retention["documentation"].as_str().is_some_and(|d| d.len() > 20));
    // The value in force heads its synonyms.
    assert_eq!(retention["synonyms"][0]["source"], "topic", "{retention}");
    assert_ne!(named("segment.bytes")["source"], "topic");

    // A dry run: Kafka validates, nothing changes, the answer says what would.
    let (status, body) = post(
        &router,
        "/api/alter_topic_configs",
        serde_json::json!({
            "cluster": "rw", "topic": topic, "dry_run": true,
            "set": { "max.message.bytes": "2000000" }, "remove": ["retention.ms"]
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["dry_run"], true);
    let change = |n: &str| {
        body["changes"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["name"] == n))
            .cloned()
            .unwrap_or_else(|| panic!("{n} in {body}"))
    };
    let removed = change("retention.ms");
    assert_eq!(removed["before"], "3600000");
    assert_eq!(removed["before_source"], "topic");
    assert_ne!(removed["after_source"], "topic", "{removed}");
    assert_ne!(removed["after"], "3600000", "{removed}");
    assert_eq!(change("max.message.bytes")["after"], "2000000");
    assert_eq!(overrides(&topic).await, before, "a dry run changed nothing");

    // Applied: the named override is set, the others survive.
    let (status, body) = post(
        &router,
        "/api/alter_topic_configs",
        serde_json::json!({
            "cluster": "rw", "topic": topic, "set": { "max.message.bytes": "2000000" }
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["changes"][0]["after"], "2000000", "{body}");
    let now = overrides(&topic).await;
    assert_eq!(now.get("max.message.bytes").map(String::as_str), Some("2000000"));
    assert_eq!(now.get("retention.ms").map(String::as_str), Some("3600000"));
    assert_eq!(now.get("cleanup.policy").map(String::as_str), Some("delete"));

    // Removing one override leaves the rest.
    let (status, body) = post(
        &router,
        "/api/alter_topic_configs",
        serde_json::json!({ "cluster": "rw", "topic": topic, "remove": ["retention.ms"] }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let now = overrides(&topic).await;
    assert!(!now.contains_key("retention.ms"), "{now:?}");
    assert_eq!(now.get("max.message.bytes").map(String::as_str), Some("2000000"));

    // Kafka's refusals, with Kafka's words.
    for (set, what) in [
        (serde_json::json!({ "retention.ms": "soon" }), "retention.ms"),
        (serde_json::json!({ "no.such.config": "1" }), "no.such.config"),
    ] {
        let (status, body) = post(
            &router,
            "/api/alter_topic_configs",
            serde_json::json!({ "cluster": "rw", "topic": topic, "set": set }),
        )
        .await;
        assert_eq!(refusal(status, &body), (422, "ADMIN"), "{body}");
        let message = body["message"].as_str().unwrap_or_default();
        assert!(message.contains(what), "Kafka's message names {what}: {message}");
    }
    let (status, body) = post(
        &router,
        "/api/alter_topic_configs",
        serde_json::json!({ "cluster": "rw", "topic": topic }),
    )
    .await;
    assert_eq!(refusal(status, &body), (400, "BAD_REQUEST"));
    assert_eq!(body["field"], "set");

    // The contract's refusals, before Kafka.
    let set = serde_json::json!({ "retention.ms": "1000" });
    let (status, body) = post(
        &router,
        "/api/alter_topic_configs",
        serde_json::json!({ "cluster": "ro", "topic": topic, "set": set }),
    )
    .await;
    assert_eq!(refusal(status, &body), (403, "READ_ONLY_CLUSTER"));
    let (status, body) = post(
        &router,
        "/api/alter_topic_configs",
        serde_json::json!({ "cluster": "rw", "topic": "__consumer_offsets", "set": set }),
    )
    .await;
    assert_eq!(refusal(status, &body), (403, "INTERNAL_TOPIC"));
    let (status, body) = post(
        &router,
        "/api/alter_topic_configs",
        serde_json::json!({ "cluster": "rw", "topic": unique("it-none"), "set": set }),
    )
    .await;
    assert_eq!(refusal(status, &body), (404, "NOT_FOUND"));
    // Reading configs is no change: the read-only view reads them, of an internal topic too.
    let (status, body) =
        get_raw(&router, "/api/topic_configs?cluster=ro&topic=__consumer_offsets").await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    assert_eq!(
        overrides(&topic).await.get("retention.ms"),
        None,
        "no refused change reached Kafka"
    );
}

#[tokio::test]
async fn klens_own_kafka_user_without_the_acls_gets_refused() {
    // `reporting` may describe click* topics, so weak's catalog lists this one, but it may
    // not alter their configs, add partitions or delete records.
    let topic = unique("click-it-refused");
    create_topic(&topic, 1).await;
    produce(&topic, &[(0, 3)]);
    let router = router(&clusters()).await;
    let calls = [
        (
            "/api/alter_topic_configs",
            serde_json::json!({ "cluster": "weak", "topic": topic, "set": { "retention.ms": "1000" } }),
        ),
        (
            "/api/add_partitions",
            serde_json::json!({ "cluster": "weak", "topic": topic, "count": 2 }),
        ),
        (
            "/api/delete_records",
            serde_json::json!({ "cluster": "weak", "topic": topic, "partition": 0, "offset": 2 }),
        ),
    ];
    for (path, args) in calls {
        let (status, body) = post(&router, path, args).await;
        assert_eq!(refusal(status, &body), (403, "REFUSED"), "{path}: {body}");
        assert!(body["message"].as_str().is_some_and(|m| m.contains("ACL")), "{path}: {body}");
    }
    assert!(overrides(&topic).await.is_empty());
    assert_eq!(partition_count(&topic), Some(1));
    assert_eq!(low_watermarks(&topic, 1), [0]);
}

#[tokio::test]
async fn add_partitions_raises_the_count_and_kafka_refuses_a_lower_one() {
    let topic = unique("it-partitions");
    create_topic(&topic, 2).await;
    let router = router(&clusters()).await;

    let (status, body) = post(
        &router,
        "/api/add_partitions",
        serde_json::json!({ "cluster": "rw", "topic": topic, "count": 5, "dry_run": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["before"].as_u64(), body["after"].as_u64()), (Some(2), Some(5)));
    assert_eq!(partition_count(&topic), Some(2), "a dry run adds nothing");

    let (status, body) = post(
        &router,
        "/api/add_partitions",
        serde_json::json!({ "cluster": "rw", "topic": topic, "count": 5 }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["after"], 5);
    assert_eq!(partition_count(&topic), Some(5));
    // The catalog shows the new partitions at once.
    let (_, detail) = get_raw(&router, &format!("/api/topic?cluster=rw&topic={topic}")).await;
    let detail: serde_json::Value = serde_json::from_slice(&detail).expect("JSON");
    assert_eq!(detail["partitions"].as_array().map(Vec::len), Some(5));

    for count in [5, 3] {
        let (status, body) = post(
            &router,
            "/api/add_partitions",
            serde_json::json!({ "cluster": "rw", "topic": topic, "count": count }),
        )
        .await;
        assert_eq!(refusal(status, &body), (422, "ADMIN"), "{body}");
        assert_eq!(body["kafka_error"], "InvalidPartitions");
        let message = body["message"].as_str().unwrap_or_default();
        assert!(message.contains("5"), "Kafka's own words: {message}");
    }
    let (status, body) = post(
        &router,
        "/api/add_partitions",
        serde_json::json!({ "cluster": "rw", "topic": topic, "count": "many" }),
    )
    .await;
    assert_eq!(refusal(status, &body), (400, "BAD_REQUEST"));
    assert_eq!(body["field"], "count");
    let (status, body) = post(
        &router,
        "/api/add_partitions",
        serde_json::json!({ "cluster": "ro", "topic": topic, "count": 9 }),
    )
    .await;
    assert_eq!(refusal(status, &body), (403, "READ_ONLY_CLUSTER"));
    assert_eq!(partition_count(&topic), Some(5));
}

#[tokio::test]
async fn delete_records_moves_the_low_watermark_exactly_where_asked() {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
    let topic = unique("it-delete-records");
    create_topic(&topic, 3).await;
    produce(&topic, &[(0, 10), (1, 10)]);
    // Partition 2 holds records at known times, an hour ago plus i seconds (recent enough that
    // retention leaves them alone).
    let base = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64
        - 3_600_000;
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    for i in 0..10i64 {
        producer
            .send(
                BaseRecord::<str, str>::to(&topic)
                    .partition(2)
                    .payload("timed")
                    .timestamp(base + i * 1000),
            )
            .unwrap_or_else(|(e, _)| panic!("send: {e}"));
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
    let router = router(&clusters()).await;
    let delete = |args: serde_json::Value| {
        let router = router.clone();
        async move { post(&router, "/api/delete_records", args).await }
    };

    // The preview says what would go, and nothing goes.
    let (status, body) = delete(serde_json::json!({
        "cluster": "rw", "topic": topic, "partition": 0, "offset": 4, "dry_run": true
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["deleted"], 4);
    assert_eq!(body["partitions"][0]["low_after"], 4);
    assert_eq!(low_watermarks(&topic, 3), [0, 0, 0]);

    // One partition, before an offset.
    let (status, body) = delete(serde_json::json!({
        "cluster": "rw", "topic": topic, "partition": 0, "offset": 4
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["deleted"], 4);
    assert_eq!(low_watermarks(&topic, 3), [4, 0, 0]);

    // Every partition, before a time: partition 2 keeps its records from base + 5 s on;
    // partitions 0 and 1 hold only newer records and lose none.
    let (status, body) = delete(serde_json::json!({
        "cluster": "rw", "topic": topic, "timestamp": base + 5000, "dry_run": true
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["deleted"], 5, "{body}");
    let (status, body) = delete(serde_json::json!({
        "cluster": "rw", "topic": topic, "timestamp": base + 5000
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(low_watermarks(&topic, 3), [4, 0, 5]);

    // All of one partition.
    let (status, body) = delete(serde_json::json!({
        "cluster": "rw", "topic": topic, "partition": 1, "all": true
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["deleted"], 10);
    assert_eq!(low_watermarks(&topic, 3), [4, 10, 5]);

    // Arguments that say nothing clear, or cut beyond the end.
    for (args, field) in [
        (serde_json::json!({ "offset": 3 }), "partition"),
        (serde_json::json!({ "partition": 0 }), "offset"),
        (serde_json::json!({ "partition": 0, "offset": 3, "all": true }), "offset"),
        (serde_json::json!({ "partition": 0, "offset": 11 }), "offset"),
    ] {
        let mut args = args;
        args["cluster"] = "rw".into();
        args["topic"] = topic.clone().into();
        let (status, body) = delete(args.clone()).await;
        assert_eq!(refusal(status, &body), (400, "BAD_REQUEST"), "{args}: {body}");
        assert_eq!(body["field"], field, "{args}: {body}");
    }
    let (status, body) = delete(serde_json::json!({
        "cluster": "rw", "topic": topic, "partition": 7, "all": true
    }))
    .await;
    assert_eq!(refusal(status, &body), (404, "NOT_FOUND"), "{body}");
    let (status, body) = delete(serde_json::json!({
        "cluster": "ro", "topic": topic, "partition": 0, "all": true
    }))
    .await;
    assert_eq!(refusal(status, &body), (403, "READ_ONLY_CLUSTER"));
    assert_eq!(low_watermarks(&topic, 3), [4, 10, 5]);
}
