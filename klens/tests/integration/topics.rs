use std::time::Duration;

use axum::http::StatusCode;

use crate::support::*;

fn topic_partitions(name: &str) -> Option<usize> {
    kafka_topics().into_iter().find(|(t, _)| t == name).map(|(_, p)| p)
}

/// Two views of the same Kafka, writable and read-only, plus one as a Kafka user without the
/// ACLs to create topics.
fn write_clusters() -> String {
    format!(
        "clusters:\n{}    writable: true\n{}  - name: weak\n    bootstrap_servers: {SCRAM_PORT}\n    writable: true\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: reporting\n      password: reporting-secret\n",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("ro", "klens-secret"),
    )
}

#[tokio::test]
async fn create_and_delete_topic_follow_the_whole_chain() {
    let router = router(&write_clusters()).await;
    let topic = unique("it-create");

    // A dry run: Kafka validates, and the topic is not there.
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "rw", "topic": topic, "partitions": 3, "dry_run": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["dry_run"], true);
    assert_eq!(topic_partitions(&topic), None);
    // Kafka's own judgement in a dry run: an impossible replication factor is refused.
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "rw", "topic": topic, "partitions": 1, "replication_factor": 9, "dry_run": true }),
    )
    .await;
    assert_eq!((status.as_u16(), body["code"].as_str()), (422, Some("ADMIN")), "{body}");

    // Allowed: created in Kafka with the partitions asked for.
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "rw", "topic": topic, "partitions": 3 }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, serde_json::json!({ "cluster": "rw", "topic": topic, "dry_run": false }));
    assert_eq!(topic_partitions(&topic), Some(3));

    // Kafka's own refusal of a duplicate: ADMIN, 409, with Kafka's error name.
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "rw", "topic": topic, "partitions": 3 }),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("ADMIN")), "{body}");
    assert_eq!(body["kafka_error"], "TopicAlreadyExists");

    // Read-only cluster: refused before the privilege, and nothing reaches Kafka.
    let other = unique("it-ro");
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "ro", "topic": other, "partitions": 1 }),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("READ_ONLY_CLUSTER")));
    let (status, body) =
        post(&router, "/api/delete_topic", serde_json::json!({ "cluster": "ro", "topic": topic }))
            .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("READ_ONLY_CLUSTER")));
    assert_eq!(topic_partitions(&other), None);
    assert_eq!(topic_partitions(&topic), Some(3));

    // Internal topics (Kafka's own flag) are never changed, and the check comes before the
    // arguments.
    for (path, name) in
        [("/api/create_topic", "__consumer_offsets"), ("/api/delete_topic", "__consumer_offsets")]
    {
        let (status, body) = post(
            &router,
            path,
            serde_json::json!({ "cluster": "rw", "topic": name, "partitions": 0 }),
        )
        .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::FORBIDDEN, Some("INTERNAL_TOPIC")),
            "{path}"
        );
    }

    // A name is not what makes a topic internal: a user's topic that starts with `__` is an
    // ordinary topic, created and deleted like any other.
    let underscored = unique("__it-user");
    for path in ["/api/create_topic", "/api/delete_topic"] {
        let (status, body) = post(
            &router,
            path,
            serde_json::json!({ "cluster": "rw", "topic": underscored, "partitions": 1 }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        if path == "/api/create_topic" {
            assert_eq!(topic_partitions(&underscored), Some(1));
            let (status, detail) =
                get_raw(&router, &format!("/api/topic?cluster=rw&topic={underscored}")).await;
            assert_eq!(status, StatusCode::OK);
            let detail: serde_json::Value = serde_json::from_slice(&detail).expect("json");
            assert_eq!(detail["internal"], serde_json::json!(false), "{detail}");
        }
    }
    let (status, detail) = get_raw(&router, "/api/topic?cluster=rw&topic=__consumer_offsets").await;
    assert_eq!(status, StatusCode::OK);
    let detail: serde_json::Value = serde_json::from_slice(&detail).expect("json");
    assert_eq!(detail["internal"], serde_json::json!(true), "{detail}");

    // Bad arguments name the field.
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "rw", "topic": other, "partitions": 0 }),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str(), body["field"].as_str()),
        (StatusCode::BAD_REQUEST, Some("BAD_REQUEST"), Some("partitions"))
    );

    // An unknown cluster: 404 UNKNOWN_CLUSTER whatever the rest says.
    let (status, body) = post(
        &router,
        "/api/delete_topic",
        serde_json::json!({ "cluster": "nope", "topic": "__x" }),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        body,
        serde_json::json!({ "code": "UNKNOWN_CLUSTER", "message": "There is no cluster named \"nope\"." })
    );

    // Kafka's ACLs deny klens's own user: REFUSED.
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "weak", "topic": other, "partitions": 1 }),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("REFUSED")), "{body}");
    assert_eq!(topic_partitions(&other), None);

    // Delete: gone from Kafka; a second delete is NOT_FOUND.
    let (status, body) =
        post(&router, "/api/delete_topic", serde_json::json!({ "cluster": "rw", "topic": topic }))
            .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut gone = false;
    for _ in 0..20 {
        if topic_partitions(&topic).is_none() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(gone, "the topic is still listed by Kafka");
    let (status, body) =
        post(&router, "/api/delete_topic", serde_json::json!({ "cluster": "rw", "topic": topic }))
            .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("NOT_FOUND")),
        "{body}"
    );
}

#[tokio::test]
async fn record_counts_and_watermarks_match_what_was_produced() {
    let topic = unique("it-counts");
    create_topic(&topic, 3).await;
    produce(&topic, &[(0, 5), (2, 12)]);
    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");
    let holds = |records: u64| {
        let topic = topic.clone();
        move |e: &server::catalog::ClusterEntry| {
            e.topics(&Default::default())
                .topics
                .iter()
                .any(|t| t.name == topic && t.records == Some(records))
        }
    };
    refresh_until(entry, holds(17)).await;
    let listed = find(entry, &topic);
    assert_eq!(listed.records, Some(17));
    assert_eq!(listed.partitions, 3);
    let detail = entry.topic(&topic).expect("the topic is described");
    let marks: Vec<_> = detail.partitions.iter().map(|p| (p.partition, p.low, p.high)).collect();
    assert_eq!(marks, [(0, Some(0), Some(5)), (1, Some(0), Some(0)), (2, Some(0), Some(12))]);

    // The produce rate: records added between two refreshes of a fresh projection, per second.
    // A refresh whose watermark read fails (a timeout while other tests load the broker) keeps
    // no sample, and says so by the record count it leaves: refresh until one has read them.
    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, holds(17)).await;
    assert_eq!(find(entry, &topic).records, Some(17), "a refresh read the watermarks");
    let first = entry.state().refreshed_at.expect("refreshed");
    assert_eq!(find(entry, &topic).produce_rate, None, "one sample has no rate");
    produce(&topic, &[(1, 20)]);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    refresh_until(entry, holds(37)).await;
    assert_eq!(find(entry, &topic).records, Some(37), "a refresh read the new watermarks");
    let second = entry.state().refreshed_at.expect("refreshed");
    let want = 20.0 / ((second - first) as f64 / 1000.0);
    let got = find(entry, &topic).produce_rate.expect("a rate");
    assert!((got - want).abs() < 1e-9, "rate {got}, expected {want}");
}

fn find(entry: &server::catalog::ClusterEntry, topic: &str) -> app::api::TopicSummary {
    entry.topics(&Default::default()).topics.into_iter().find(|t| t.name == topic).expect("listed")
}
