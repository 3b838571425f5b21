//! The audit file: every write attempt, allowed or refused, from the UI and `/api`, with its
//! fields, and nothing of a password or a record's content in it; a write that reaches Kafka is
//! recorded before (its attempt) and after (its outcome); a sink that cannot take events refuses
//! the write before Kafka is asked. The audit topic is klens's alone; events are signed, bounded
//! and rate-limited.

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

/// The events of the file, an attempt's outcome in its attempt's place.
fn events(file: &std::path::Path) -> Vec<Value> {
    merged(raw_events(file))
}

fn raw_events(file: &std::path::Path) -> Vec<Value> {
    parse_lines(&std::fs::read_to_string(file).unwrap_or_default())
}

/// Each attempt once: an `outcome` event replaces the `attempt` of the same id, which must come
/// before it.
fn merged(events: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for e in events {
        if e["phase"] == "outcome" {
            let at = out
                .iter()
                .position(|a| a["id"] == e["id"] && a["phase"] == "attempt")
                .unwrap_or_else(|| panic!("an outcome without its attempt before it: {e}"));
            out[at] = e;
        } else {
            out.push(e);
        }
    }
    out
}

/// One event per non-empty line of `text`.
fn parse_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Each event as (privilege, cluster, decision, door, whether it succeeded).
fn shape(events: &[Value]) -> Vec<(&str, &str, &str, &str, bool)> {
    events
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
        .body(Body::from(json!({"cluster": "rw", "topic": topic}).to_string()))
        .expect("request");
    let (status, bytes) = send(&router, request).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&bytes));
    // A catalog read is no write: no event.
    let (status, _) = get_json(&router, "/api/topics?cluster=rw").await;
    assert_eq!(status, StatusCode::OK);

    let text = std::fs::read_to_string(&file).expect("the audit file");
    assert!(!text.contains(card), "a record value reached the audit file");
    assert!(!text.contains(password), "a password reached the audit file");
    let raw = raw_events(&file);
    // The three writes that reached Kafka were recorded before and after; the refusal and the
    // dry run (which sent nothing) once.
    let phases: Vec<&str> = raw.iter().map(|e| e["phase"].as_str().unwrap_or("")).collect();
    assert_eq!(
        phases,
        ["attempt", "outcome", "attempt", "outcome", "whole", "whole", "attempt", "outcome"]
    );
    let got = merged(raw);
    assert_eq!(
        shape(&got),
        [
            ("CREATE_TOPICS", "rw", "allowed", "api", true),
            ("PRODUCE", "rw", "allowed", "api", true),
            ("PRODUCE", "ro", "refused", "api", false),
            ("SET_SCRAM_CREDENTIALS", "rw", "allowed", "api", true),
            ("DELETE_TOPICS", "rw", "allowed", "ui", true),
        ]
    );
    let produced = &got[1];
    assert_eq!(produced["resource"], json!({"kind": "topic", "name": topic}));
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
    assert!(!kafka_topics().iter().any(|(n, _)| *n == topic), "the unrecorded write reached Kafka");
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

/// The events of the audit topic, as kcat (a client apart from klens) reads them.
fn topic_events(topic: &str) -> Vec<Value> {
    let out = std::process::Command::new("kcat")
        .args(["-b", OPEN_PORT, "-C", "-t", topic, "-e", "-q", "-f", "%s\n"])
        .output()
        .expect("kcat runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    parse_lines(&String::from_utf8_lossy(&out.stdout))
}

/// The router over `yaml`, with only cluster `rw` read (another may be out of reach).
async fn router_reading_rw(yaml: &str) -> axum::Router {
    let config = config(yaml);
    let catalog = std::sync::Arc::new(server::catalog::Catalog::new(&config));
    for entry in catalog.clusters() {
        if entry.name == "rw" {
            entry.refresh().await;
        }
    }
    server::http::app(state_over(&config, catalog))
}

#[tokio::test]
async fn the_audit_topic_holds_one_event_per_attempt_and_reads_when_asked() {
    let sink = unique("it-audit-sink");
    create_topic(&sink, 1).await;
    let yaml = format!(
        "clusters:\n{}    writable: true\n{}audit:\n  topic: {{ cluster: rw, name: {sink} }}\n  reads: true\n",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("ro", "klens-secret"),
    );
    let router = router(&yaml).await;
    let topic = unique("it-audit-topic");
    let card = "4111111111111111";

    let (status, body) = post(
        &router,
        "/api/create_topic",
        json!({"cluster": "rw", "topic": topic, "partitions": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = post(
        &router,
        "/api/produce",
        json!({"cluster": "rw", "topic": topic, "value": {"encoding": "text", "data": card}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = post(
        &router,
        "/api/produce",
        json!({"cluster": "ro", "topic": topic, "value": {"encoding": "text", "data": card}}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Two privileged reads, one with a filter that is itself a secret.
    let (status, _) =
        get_raw(&router, &format!("/api/records?cluster=rw&topic={topic}&from=earliest&q={card}"))
            .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) =
        get_raw(&router, &format!("/api/topic_configs?cluster=rw&topic={topic}")).await;
    assert_eq!(status, StatusCode::OK);
    // Catalog reads need no privilege and are not recorded.
    let (status, _) = get_raw(&router, "/api/topics?cluster=rw").await;
    assert_eq!(status, StatusCode::OK);

    let raw = topic_events(&sink);
    let got = merged(raw.clone());
    assert_eq!(
        shape(&got),
        [
            ("CREATE_TOPICS", "rw", "allowed", "api", true),
            ("PRODUCE", "rw", "allowed", "api", true),
            ("PRODUCE", "ro", "refused", "api", false),
            ("RECORDS", "rw", "allowed", "api", true),
            ("TOPIC_CONFIGS", "rw", "allowed", "api", true),
        ]
    );
    let all = serde_json::to_string(&got).expect("JSON");
    assert!(!all.contains(card), "a record value or a filter reached the audit topic");
    assert_eq!(got[3]["resource"], json!({"kind": "topic", "name": topic}));
    assert_eq!(got[3]["summary"]["from"], "earliest");

    // The Audit page reads the topic: the same events, newest first (reading them is recorded
    // too, after the answer is made).
    let (status, bytes) = get_raw(&router, "/api/audit?cluster=rw").await;
    assert_eq!(status, StatusCode::OK);
    let listed: Value = serde_json::from_slice(&bytes).expect("JSON");
    let ids: Vec<&str> = listed["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["id"].as_str())
        .collect();
    let mut want: Vec<&str> =
        got.iter().filter(|e| e["cluster"] == "rw").filter_map(|e| e["id"].as_str()).collect();
    want.reverse();
    assert_eq!(ids, want);
    assert_eq!(topic_events(&sink).len(), raw.len() + 1, "the listing itself is recorded");
}

#[tokio::test]
async fn a_stopped_audit_cluster_refuses_writes_and_nothing_changes() {
    let topic = unique("it-audit-stopped");
    create_topic(&topic, 1).await;
    // The audit's cluster does not answer: nothing listens there.
    let yaml = format!(
        "clusters:\n{}    writable: true\n  - name: ops\n    bootstrap_servers: 127.0.0.1:1\naudit:\n  topic: {{ cluster: ops, name: _klens_audit }}\n",
        scram_cluster("rw", "klens-secret"),
    );
    let router = router_reading_rw(&yaml).await;
    let created = unique("it-audit-never");
    let (status, body) = post(
        &router,
        "/api/create_topic",
        json!({"cluster": "rw", "topic": created, "partitions": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["code"], "AUDIT_UNAVAILABLE");
    let (status, body) = post(
        &router,
        "/api/produce",
        json!({"cluster": "rw", "topic": topic, "value": {"encoding": "text", "data": "x"}}),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(!kafka_topics().iter().any(|(n, _)| *n == created));
    assert_eq!(watermarks(&topic, 1), [(0, 0)], "nothing was produced");
    // Reads are not recorded here (`reads` is off), so they go on.
    let (status, _) = get_raw(&router, &format!("/api/records?cluster=rw&topic={topic}")).await;
    assert_eq!(status, StatusCode::OK);
}
