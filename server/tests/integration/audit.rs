//! The audit file: one event per write attempt, allowed or refused, from the UI and `/api`, with
//! its fields, and nothing of a password or a record's content in it; a sink that cannot take
//! events refuses the write before Kafka is asked.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{json, Value};

use crate::support::*;

fn yaml(file: &std::path::Path) -> String {
    format!(
        "clusters:\n{}    writable: true\n{}audit:\n  file: {}\n",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("ro", "klens-secret"),
        file.display()
    )
}

fn events(file: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[tokio::test]
async fn every_write_attempt_is_one_event_and_no_secret_is_in_any() {
    let dir = std::env::temp_dir().join(unique("klens-audit"));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("audit.ndjson");
    let router = router(&yaml(&file)).await;
    let topic = unique("it-audit");
    let card = "4111111111111111";
    let password = "Pw-Never-Logged-1";

    let (status, body) = post(
        &router,
        "/api/create_topic",
        json!({"cluster": "rw", "topic": topic, "partitions": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = post(&router, "/api/produce", json!({"cluster": "rw", "topic": topic, "key": {"encoding": "text", "data": "k1"}, "value": {"encoding": "text", "data": card}})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let offset = body["offset"].clone();
    let (status, _) = post(
        &router,
        "/api/produce",
        json!({"cluster": "ro", "topic": topic, "value": {"encoding": "text", "data": card}}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = post(&router, "/api/set_scram_credential", json!({"cluster": "rw", "user": unique("it-audit-user"), "password": password, "dry_run": true})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // A browser marks its requests: that one came through the UI.
    let request = Request::post("/api/delete_topic")
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .header("sec-fetch-site", "same-origin")
        .body(Body::from(
            json!({"cluster": "rw", "topic": topic}).to_string(),
        ))
        .expect("request");
    let (status, bytes) = send(&router, request).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    // A catalog read is no write: no event.
    let (status, _) = get_json(&router, "/api/topics?cluster=rw").await;
    assert_eq!(status, StatusCode::OK);

    let text = std::fs::read_to_string(&file).expect("the audit file");
    assert!(
        !text.contains(card),
        "a record value reached the audit file"
    );
    assert!(
        !text.contains(password),
        "a password reached the audit file"
    );
    let got = events(&file);
    let shape: Vec<(&str, &str, &str, &str, bool)> = got
        .iter()
        .map(|e| {
            (
                e["privilege"].as_str().unwrap_or_default(),
                e["cluster"].as_str().unwrap_or_default(),
                e["decision"].as_str().unwrap_or_default(),
                e["door"].as_str().unwrap_or_default(),
                e["outcome"]["ok"].as_bool().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("CREATE_TOPICS", "rw", "allowed", "api", true),
            ("PRODUCE", "rw", "allowed", "api", true),
            ("PRODUCE", "ro", "refused", "api", false),
            ("SET_SCRAM_CREDENTIALS", "rw", "allowed", "api", true),
            ("DELETE_TOPICS", "rw", "allowed", "ui", true),
        ]
    );
    let produced = &got[1];
    assert_eq!(
        produced["resource"],
        json!({"kind": "topic", "name": topic})
    );
    assert_eq!(produced["summary"]["key_length"], 2);
    assert_eq!(produced["summary"]["value_length"], card.len());
    assert_eq!(produced["summary"]["offset"], offset);
    assert_eq!(produced["who"]["kind"], "anonymous");
    assert_eq!(got[2]["outcome"]["code"], "READ_ONLY_CLUSTER");
    assert_eq!(got[3]["dry_run"], true);
    assert!(got[3]["summary"].get("password").is_none());
    let ids: std::collections::BTreeSet<&str> =
        got.iter().filter_map(|e| e["id"].as_str()).collect();
    assert_eq!(ids.len(), got.len(), "ids are unique");
    // Kafka agrees with the log: the topic came and went.
    assert!(!kafka_topics().iter().any(|(n, _)| *n == topic));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_write_the_audit_cannot_record_does_not_happen() {
    let dir = std::env::temp_dir().join(unique("klens-audit-gone"));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("audit.ndjson");
    let router = router(&yaml(&file)).await;
    // The folder of the audit file goes away (a volume unmounted, a path removed).
    std::fs::remove_dir_all(&dir).expect("remove");
    let topic = unique("it-audit-unrecorded");
    let (status, body) = post(
        &router,
        "/api/create_topic",
        json!({"cluster": "rw", "topic": topic, "partitions": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["code"], "AUDIT_UNAVAILABLE");
    assert!(
        !kafka_topics().iter().any(|(n, _)| *n == topic),
        "the unrecorded write reached Kafka"
    );
    // Back: the same write goes through and is recorded.
    std::fs::create_dir_all(&dir).expect("dir");
    let (status, _) = post(
        &router,
        "/api/create_topic",
        json!({"cluster": "rw", "topic": topic, "partitions": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(events(&file).len(), 1);
    assert!(kafka_topics().iter().any(|(n, _)| *n == topic));
    let _ = std::fs::remove_dir_all(&dir);
}
