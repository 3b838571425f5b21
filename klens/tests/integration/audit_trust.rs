//! Issue 31: an audit nobody can forge, erase, silence or flood through klens. The audit topic
//! is klens's alone (no write, no record read, through any call); events another client writes
//! there are flagged; a write whose attempt a sink cannot take never reaches Kafka; the decision
//! answers first even while a sink is down; refusals, however large the request, stay small;
//! the guards' refusals are recorded too. Each effect is checked with another client (kcat,
//! Kafka's own tools) or in the file itself.

use std::io::Write as _;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::ClientConfig;
use serde_json::{json, Value};

use crate::support::*;

const KEY: &str = "an-audit-key-of-32-bytes-or-so!!";

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Every record of `topic`, as kcat (a client apart from klens) reads it.
fn records_of(topic: &str) -> String {
    let out = std::process::Command::new("kcat")
        .args(["-b", OPEN_PORT, "-C", "-t", topic, "-e", "-q", "-f", "%s\n"])
        .output()
        .expect("kcat runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes `lines` to `topic` with kcat, as a client with Kafka credentials of its own would.
fn write_with_kcat(topic: &str, lines: &[String]) {
    let mut child = std::process::Command::new("kcat")
        .args(["-b", OPEN_PORT, "-P", "-t", topic])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("kcat runs");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        writeln!(stdin, "{line}").expect("written");
    }
    drop(stdin);
    assert!(child.wait().expect("kcat ends").success());
}

async fn create_topic_with(name: &str, configs: &[(&str, &str)]) {
    let admin: AdminClient<DefaultClientContext> =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("admin client");
    let mut topic = NewTopic::new(name, 1, TopicReplication::Fixed(1));
    for (k, v) in configs {
        topic = topic.set(k, v);
    }
    let results = admin
        .create_topics(
            [&topic],
            &AdminOptions::new().operation_timeout(Some(Duration::from_secs(10))),
        )
        .await
        .expect("create_topics answered");
    for result in results {
        result.unwrap_or_else(|(t, e)| panic!("creating {t}: {e}"));
    }
}

fn topic_sink_yaml(sink: &str) -> String {
    format!(
        "clusters:\n{}    writable: true\n{}audit:\n  topic: {{ cluster: rw, name: {sink} }}\n  key: {KEY}\n",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("ro", "klens-secret"),
    )
}

fn file_sink_yaml(file: &std::path::Path) -> String {
    format!(
        "clusters:\n{}    writable: true\n{}audit:\n  file: {}\n",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("ro", "klens-secret"),
        file.display()
    )
}

#[tokio::test]
async fn the_audit_topic_refuses_every_write_and_record_read_for_everyone() {
    let sink = unique("it-audit-own");
    create_topic(&sink, 1).await;
    let router = router(&topic_sink_yaml(&sink)).await;

    let forged = json!({"cluster": "rw", "topic": sink, "value": {"encoding": "json", "data": {"forged": true}}});
    let writes = [
        ("/api/produce", forged),
        ("/api/delete_records", json!({"cluster": "rw", "topic": sink, "all": true})),
        (
            "/api/alter_topic_configs",
            json!({"cluster": "rw", "topic": sink, "set": {"retention.ms": "1000"}}),
        ),
        ("/api/add_partitions", json!({"cluster": "rw", "topic": sink, "count": 2})),
        ("/api/delete_topic", json!({"cluster": "rw", "topic": sink})),
    ];
    for (path, body) in writes {
        let (status, answer) = post(&router, path, body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {answer}");
        assert_eq!(answer["code"], "PROTECTED_TOPIC", "{path}");
    }
    for path in [
        format!("/api/records?cluster=rw&topic={sink}&from=earliest"),
        format!("/api/record?cluster=rw&topic={sink}&partition=0&offset=0"),
        format!("/api/export?cluster=rw&topic={sink}"),
        format!("/api/tail?cluster=rw&topic={sink}"),
    ] {
        let (status, bytes) = get_raw(&router, &path).await;
        let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {answer}");
        assert_eq!(answer["code"], "PROTECTED_TOPIC", "{path}");
    }
    // Its configs and the catalog stay readable.
    let (status, _) =
        get_raw(&router, &format!("/api/topic_configs?cluster=rw&topic={sink}")).await;
    assert_eq!(status, StatusCode::OK);

    // Kafka agrees: the topic is there with its one partition and nothing deleted, its
    // retention untouched, and every record on it is klens's own event of those refusals.
    assert!(kafka_topics().iter().any(|(n, p)| *n == sink && *p == 1));
    let text = records_of(&sink);
    assert!(!text.contains("forged"), "a forged record reached the topic");
    let events = lines(&text);
    assert_eq!(events.len(), 5, "one event per refused write: {text}");
    assert!(events
        .iter()
        .all(|e| e["outcome"]["code"] == "PROTECTED_TOPIC" && e["mac"].is_string()));
    assert_eq!(watermarks(&sink, 1)[0].0, 0, "no record was deleted");
    let configs = kafka_configs(&["--entity-type", "topics", "--entity-name", &sink]);
    assert!(!configs.contains("retention.ms=1000"), "{configs}");
}

#[tokio::test]
async fn events_another_client_writes_to_the_audit_topic_are_flagged() {
    let sink = unique("it-audit-forged");
    create_topic(&sink, 1).await;
    let router = router(&topic_sink_yaml(&sink)).await;
    let topic = unique("it-audit-genuine");
    let (status, body) = post(
        &router,
        "/api/create_topic",
        json!({"cluster": "rw", "topic": topic, "partitions": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let genuine = lines(&records_of(&sink));
    assert_eq!(genuine.len(), 2, "an attempt and its outcome");

    // Another client rewrites history: a copy of klens's outcome naming someone else (its
    // signature kept), and an event with no signature at all.
    let mut renamed = genuine[1].clone();
    renamed["id"] = json!("f".repeat(32));
    renamed["who"] = json!({"kind": "user", "subject": "mallory", "name": "Mallory", "groups": []});
    let mut unsigned = genuine[1].clone();
    unsigned["id"] = json!("e".repeat(32));
    unsigned.as_object_mut().expect("object").remove("mac");
    write_with_kcat(&sink, &[renamed.to_string(), unsigned.to_string()]);

    let (status, bytes) = get_raw(&router, "/api/audit?cluster=rw").await;
    assert_eq!(status, StatusCode::OK);
    let listed: Value = serde_json::from_slice(&bytes).expect("JSON");
    let by_id = |id: &str| {
        listed["events"]
            .as_array()
            .expect("events")
            .iter()
            .find(|e| e["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no event {id}: {listed}"))
    };
    let mine = by_id(genuine[0]["id"].as_str().expect("id"));
    assert_eq!(mine["genuine"], true);
    assert_eq!(mine["phase"], "outcome", "the outcome stands for its attempt");
    assert_eq!(by_id(&"f".repeat(32))["genuine"], false);
    assert_eq!(by_id(&"e".repeat(32))["genuine"], false);
}

#[tokio::test]
async fn an_audit_topic_that_refuses_the_event_stops_the_write_before_kafka() {
    // Events are a few hundred bytes: this topic takes none of them.
    let sink = unique("it-audit-tiny");
    create_topic_with(&sink, &[("max.message.bytes", "64")]).await;
    let target = unique("it-audit-target");
    create_topic(&target, 1).await;
    let router = router(&topic_sink_yaml(&sink)).await;
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
        json!({"cluster": "rw", "topic": target, "value": {"encoding": "text", "data": "x"}}),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(!kafka_topics().iter().any(|(n, _)| *n == created));
    assert_eq!(watermarks(&target, 1), [(0, 0)], "nothing was produced");
    assert_eq!(records_of(&sink), "", "the topic took nothing");
}

#[tokio::test]
async fn a_full_audit_file_stops_the_write_before_kafka() {
    // Every append to /dev/full fails as on a full disk.
    let router = router(&file_sink_yaml(std::path::Path::new("/dev/full"))).await;
    let created = unique("it-audit-full");
    let (status, body) = post(
        &router,
        "/api/create_topic",
        json!({"cluster": "rw", "topic": created, "partitions": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["code"], "AUDIT_UNAVAILABLE");
    assert!(!kafka_topics().iter().any(|(n, _)| *n == created));
}

#[tokio::test]
async fn the_decision_answers_first_even_while_the_audit_is_down() {
    let dir = std::env::temp_dir().join(unique("klens-audit-down"));
    std::fs::create_dir_all(&dir).expect("dir");
    let router = router(&file_sink_yaml(&dir.join("audit.ndjson"))).await;
    std::fs::remove_dir_all(&dir).expect("remove");
    let value = json!({"encoding": "text", "data": "x"});
    let (status, body) =
        post(&router, "/api/produce", json!({"cluster": "ro", "topic": "t", "value": value})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "READ_ONLY_CLUSTER");
    let (status, body) =
        post(&router, "/api/produce", json!({"cluster": "nowhere", "topic": "t", "value": value}))
            .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], "UNKNOWN_CLUSTER");
    let (status, body) = post(
        &router,
        "/api/create_topic",
        json!({"cluster": "rw", "topic": unique("it-audit-down"), "partitions": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["code"], "AUDIT_UNAVAILABLE");
}

#[tokio::test]
async fn huge_refused_calls_leave_a_few_kilobytes_and_floods_are_counted() {
    let dir = std::env::temp_dir().join(unique("klens-audit-flood"));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("audit.ndjson");
    let router = router(&file_sink_yaml(&file)).await;
    let huge = "x".repeat(1_900_000);
    for _ in 0..5 {
        // Under produce's body limit: refused by the decision.
        let (status, body) = post(
            &router,
            "/api/produce",
            json!({"cluster": "ro", "topic": huge, "value": {"encoding": "text", "data": huge}}),
        )
        .await;
        assert_eq!(
            body["code"],
            "READ_ONLY_CLUSTER",
            "{status} {}",
            &body.to_string()[..300.min(body.to_string().len())]
        );
        // Over create_topic's: refused before its arguments are read.
        let (status, body) = post(
            &router,
            "/api/create_topic",
            json!({"cluster": "rw", "topic": huge, "partitions": 1}),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["field"], "body");
    }
    let text = std::fs::read_to_string(&file).expect("the audit file");
    let events = lines(&text);
    assert_eq!(events.len(), 10, "every refused attempt is recorded: {text}");
    assert!(text.len() < 12 * 1024, "ten refusals of 1.9 MB each took {} bytes", text.len());
    let cut = &events[0];
    assert_eq!(cut["resource"]["length"], huge.len());
    assert_eq!(events[1]["resource"], json!({"kind": "request", "name": "/api/create_topic"}));

    // Past ten refusals a minute, one caller's refusals are counted, not written one by one.
    for _ in 0..40 {
        let (_, body) = post(
            &router,
            "/api/produce",
            json!({"cluster": "ro", "topic": "t", "value": {"encoding": "text", "data": "x"}}),
        )
        .await;
        assert_eq!(body["code"], "READ_ONLY_CLUSTER");
    }
    let written = lines(&std::fs::read_to_string(&file).expect("file")).len() - events.len();
    // The minute may turn during the loop: at most ten a minute, and a count per minute.
    assert!(written <= 21, "{written} events for 40 refusals");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_guards_refusals_are_recorded() {
    let dir = std::env::temp_dir().join(unique("klens-audit-guards"));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("audit.ndjson");
    let router = router(&file_sink_yaml(&file)).await;
    let body = json!({"cluster": "rw", "topic": "t", "partitions": 1}).to_string();
    let cross_site = Request::post("/api/create_topic")
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .header("origin", "https://elsewhere.example")
        .body(Body::from(body.clone()))
        .expect("request");
    let (status, _) = send(&router, cross_site).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let form = Request::post("/api/create_topic")
        .header("host", "127.0.0.1:8080")
        .header("content-type", "text/plain")
        .body(Body::from(body))
        .expect("request");
    let (status, _) = send(&router, form).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let events = lines(&std::fs::read_to_string(&file).expect("the audit file"));
    let codes: Vec<&str> =
        events.iter().map(|e| e["outcome"]["code"].as_str().unwrap_or_default()).collect();
    assert_eq!(codes, ["CROSS_SITE", "UNSUPPORTED_MEDIA_TYPE"]);
    assert!(events
        .iter()
        .all(|e| e["cluster"] == "" && e["privilege"].is_null() && e["decision"] == "refused"));
    // The Audit log page shows them with any cluster's events.
    let (status, bytes) = get_raw(&router, "/api/audit?cluster=rw").await;
    assert_eq!(status, StatusCode::OK);
    let listed: Value = serde_json::from_slice(&bytes).expect("JSON");
    assert_eq!(listed["matched"], 2, "{listed}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A body over its call's limit, sent by someone signed in: the guard's refusal names them.
#[tokio::test]
async fn a_guard_s_refusal_names_the_signed_in_caller() {
    let dir = std::env::temp_dir().join(unique("klens-audit-guard-who"));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("audit.ndjson");
    let yaml = format!(
        "clusters:\n{}    writable: true\n{}audit:\n  file: {}\n",
        scram_cluster("rw", "klens-secret"),
        auth_block("  roles:\n    admin: [create_topics]\n  bindings:\n    - groups: [kafka-admins]\n      role: admin\n"),
        file.display()
    );
    let router = router(&yaml).await;
    let alice = sign_in(&router, "alice").await;
    let huge = "x".repeat(100_000);
    let (status, body) = post_as(
        &router,
        &alice,
        "/api/create_topic",
        json!({"cluster": "rw", "topic": huge, "partitions": 1}),
    )
    .await;
    assert_eq!((status, body["field"].clone()), (StatusCode::BAD_REQUEST, json!("body")));
    let events = lines(&std::fs::read_to_string(&file).expect("the audit file"));
    let refused = events
        .iter()
        .find(|e| e["resource"]["name"] == "/api/create_topic")
        .unwrap_or_else(|| panic!("the refusal is recorded: {events:?}"));
    assert_eq!(refused["who"]["kind"], "user", "{refused}");
    assert_eq!(refused["who"]["name"], "Alice Admin", "{refused}");
    assert!(refused["who"]["subject"].as_str().is_some_and(|s| !s.is_empty()), "{refused}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// One JSON-RPC call to the MCP router with `headers`: its status.
async fn mcp_call(router: &axum::Router, headers: &[(&str, &str)], body: &Value) -> StatusCode {
    let mut request = Request::post("/mcp")
        .header("host", "127.0.0.1:18999")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    send(router, request.body(Body::from(body.to_string())).expect("request")).await.0
}

#[tokio::test]
async fn mcp_events_name_the_gateway_s_user_only_with_the_secret() {
    let dir = std::env::temp_dir().join(unique("klens-audit-mcp"));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("audit.ndjson");
    let yaml = format!(
        "{}mcp:\n  listen: 127.0.0.1:18999\n  privileges: [create_topics]\n  secret: gateway-secret\n",
        file_sink_yaml(&file)
    );
    let config = config(&yaml);
    let catalog = std::sync::Arc::new(server::catalog::Catalog::new(&config));
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    let policy = std::sync::Arc::new(server::auth::Policy::from_config(&config));
    let audit = server::audit::Audit::new(config.audit.as_ref(), &config.clusters).expect("audit");
    let service =
        std::sync::Arc::new(server::service::Service::new(policy, catalog).with_audit(audit));
    let router = server::mcp::router(service, config.mcp.as_ref().expect("mcp"));
    let create = |topic: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "klens_topic_create", "arguments": {"cluster": "rw", "topic": topic, "partitions": 1, "dry_run": true}}});
    let bearer = "Bearer gateway-secret";
    let status = mcp_call(
        &router,
        &[("authorization", bearer), ("x-klens-user", "carol@example.com")],
        &create(&unique("it-audit-mcp")),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // Without the secret the name is not even read: the guard refuses, and that is recorded.
    let status = mcp_call(
        &router,
        &[("x-klens-user", "mallory@example.com")],
        &create(&unique("it-audit-mcp")),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let events = lines(&std::fs::read_to_string(&file).expect("the audit file"));
    // The dry run asked Kafka to validate the topic: its attempt, its outcome, the refusal.
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!((&events[0]["phase"], &events[1]["phase"]), (&json!("attempt"), &json!("outcome")));
    assert_eq!(events[0]["door"], "mcp");
    assert_eq!(
        events[0]["who"],
        json!({"kind": "mcp", "subject": null, "name": "carol@example.com", "groups": [], "forwarded": true})
    );
    assert_eq!(events[0]["privilege"], "CREATE_TOPICS");
    assert_eq!(events[2]["outcome"]["code"], "UNAUTHENTICATED");
    assert_eq!(events[2]["who"]["name"], Value::Null);
    let text = std::fs::read_to_string(&file).expect("file");
    assert!(!text.contains("mallory") && !text.contains("gateway-secret"));
    let _ = std::fs::remove_dir_all(&dir);
}
