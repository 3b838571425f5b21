//! klens when the services behind it fail: the broker down when klens starts, restarted under
//! an open tail and an export, frozen mid-request, and the schema registry gone. These stop and
//! start the one-node dev stack's processes, so they cannot share it with other tests:
//! `make integration-faults` runs them alone, one at a time, and brings the stack back after
//! each (also when a test fails).

#[path = "integration/support.rs"]
#[allow(dead_code)]
mod support;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::api::HealthStatus;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use server::catalog::Catalog;
use server::http::{app, AppState};
use support::*;
use tower::ServiceExt;

const REGISTRY: &str = "http://127.0.0.1:18081/apis/ccompat/v7";

fn repo() -> std::path::PathBuf {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("run by cargo");
    Path::new(&manifest).join("..")
}

/// The pid dev/stack recorded for `service` (`kafka`, `registry`).
fn pid_of(service: &str) -> String {
    let file = repo().join(format!("target/dev-stack/pids/{service}.pid"));
    std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{} (is dev/stack up?): {e}", file.display()))
        .trim()
        .to_string()
}

fn signal(pid: &str, signal: &str) {
    let status = Command::new("kill").args([signal, pid]).status().expect("kill runs");
    assert!(status.success(), "kill {signal} {pid}");
}

/// Stops `service` as an operator would (TERM) and waits until it is gone.
fn stop(service: &str) {
    let pid = pid_of(service);
    signal(&pid, "-TERM");
    for _ in 0..600 {
        if !Path::new(&format!("/proc/{pid}")).exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{service} (pid {pid}) did not stop within a minute");
}

/// Starts whatever of the dev stack is not running, and waits until it answers.
fn start_stack() {
    let status = Command::new(repo().join("dev/stack")).arg("up").status().expect("dev/stack runs");
    assert!(status.success(), "dev/stack up failed");
}

/// Brings the stack back when a test ends, however it ends.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        start_stack();
    }
}

/// A stopped (SIGSTOP) process: it keeps its sockets open and answers nothing, as a broker in
/// a long pause does. Woken when dropped.
struct Frozen(String);

impl Frozen {
    fn new(service: &str) -> Frozen {
        let pid = pid_of(service);
        signal(&pid, "-STOP");
        Frozen(pid)
    }
}

impl Drop for Frozen {
    fn drop(&mut self) {
        signal(&self.0, "-CONT");
    }
}

fn plain_cluster() -> String {
    format!("clusters:\n  - name: local\n    bootstrap_servers: {OPEN_PORT}\n")
}

fn state_of(yaml: &str, catalog: Arc<Catalog>) -> AppState {
    let leptos = leptos::config::LeptosOptions::builder().output_name("klens").build();
    let config = config(yaml);
    let service =
        Arc::new(server::service::Service::from_config(&config, catalog).expect("service"));
    AppState::new(leptos, &config, service).expect("state")
}

/// GETs `path`, and how long the answer took.
async fn timed_get(router: &axum::Router, path: &str) -> (StatusCode, serde_json::Value, Duration) {
    let started = Instant::now();
    let (status, body) = get_raw(router, path).await;
    let json = serde_json::from_slice(&body)
        .unwrap_or_else(|_| panic!("{path}: not JSON: {}", String::from_utf8_lossy(&body)));
    (status, json, started.elapsed())
}

/// Produces `count` values of `size` bytes to partition 0 of `topic`.
/// `count` records of `size` bytes, spread in turn over `partitions` partitions.
fn produce_sized(topic: &str, partitions: usize, count: usize, size: usize) {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
    let producer: BaseProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("linger.ms", "20")
        .set("queue.buffering.max.kbytes", "65536")
        .create()
        .expect("producer");
    let payload = "x".repeat(size);
    for i in 0..count {
        let key = i.to_string();
        let mut record =
            BaseRecord::to(topic).partition((i % partitions) as i32).key(&key).payload(&payload);
        loop {
            match producer.send(record) {
                Ok(()) => break,
                Err((_, back)) => {
                    producer.poll(Duration::from_millis(10));
                    record = back;
                }
            }
        }
    }
    producer.flush(Duration::from_secs(60)).expect("flush");
}

/// Started while its only broker is down, klens answers at once, says the cluster cannot be
/// reached, refuses record reads with an error of the contract within their deadline, and
/// shows the cluster once the broker is back, without a restart.
#[tokio::test]
async fn started_without_its_broker_klens_answers_then_catches_up() {
    let _restore = Restore;
    stop("kafka");

    let yaml = format!("{}    writable: true\n", plain_cluster());
    let catalog = Arc::new(Catalog::new(&config(&yaml)));
    let entry = catalog.get("local").expect("configured");
    let started = Instant::now();
    entry.refresh().await;
    let first_refresh = started.elapsed();
    assert!(
        first_refresh < Duration::from_secs(30),
        "a refresh with no broker took {first_refresh:?}"
    );
    let router = app(state_of(&yaml, Arc::clone(&catalog)));

    let (status, _, took) = timed_get(&router, "/health").await;
    assert_eq!(status, StatusCode::OK);
    assert!(took < Duration::from_secs(1), "/health took {took:?}");

    let (status, clusters, took) = timed_get(&router, "/api/clusters").await;
    assert_eq!(status, StatusCode::OK, "{clusters}");
    assert!(took < Duration::from_secs(1), "/api/clusters took {took:?}");
    let local = &clusters[0];
    assert_eq!(local["health"]["status"], "unreachable", "{clusters}");
    assert!(
        local["health"]["error"].as_str().is_some_and(|r| !r.is_empty()),
        "the reason is shown: {clusters}"
    );

    let (status, body, took) =
        timed_get(&router, "/api/records?cluster=local&topic=anything&from=earliest").await;
    assert!(took < Duration::from_secs(8), "a record page took {took:?}");
    assert!(status.is_client_error() || status.is_server_error(), "{status} {body}");
    assert!(body["code"].is_string() && body["message"].is_string(), "{body}");
    // A change answers CLIENT: Kafka cannot be reached, nothing was changed.
    let started = Instant::now();
    let (status, body) = post(
        &router,
        "/api/add_partitions",
        serde_json::json!({ "cluster": "local", "topic": "anything", "count": 2 }),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(8), "a change took {:?}", started.elapsed());
    assert_eq!((status.as_u16(), body["code"].as_str()), (502, Some("CLIENT")), "{body}");

    start_stack();
    let topic = unique("it-fault-start");
    create_topic(&topic, 1).await;
    for _ in 0..120 {
        entry.refresh().await;
        if entry.topic(&topic).is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(entry.topic(&topic).is_some(), "the cluster is read again");
    assert_eq!(entry.summary().health.status, HealthStatus::Ok);
    let (status, clusters, _) = timed_get(&router, "/api/clusters").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(clusters[0]["health"]["status"], "ok", "{clusters}");
}

/// An export read while the broker restarts is either whole, or ends with an error line: never
/// a file that looks complete and is short. Two partitions, so that the export's two readers
/// both run and the error line still comes after every record line of both. A tail open across the restart either delivers a
/// record produced after it, or ends with an event that says why.
#[tokio::test]
async fn a_broker_restart_under_an_export_and_a_tail() {
    let _restore = Restore;
    const RECORDS: usize = 60_000;
    let topic = unique("it-fault-export");
    create_topic(&topic, 2).await;
    produce_sized(&topic, 2, RECORDS, 1024);
    let tailed = unique("it-fault-tail");
    create_topic(&tailed, 1).await;
    produce(&tailed, &[(0, 1)]);

    let yaml = plain_cluster();
    let catalog = Arc::new(Catalog::new(&config(&yaml)));
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| {
        e.topic(&topic).is_some_and(|t| {
            t.partitions.iter().map(|p| p.high.unwrap_or(0)).sum::<i64>() == RECORDS as i64
        }) && e.topic(&tailed).is_some()
    })
    .await;
    let router = app(state_of(&yaml, catalog));

    let get = |path: String| {
        Request::get(path).header("host", "127.0.0.1:8080").body(Body::empty()).expect("request")
    };
    let export = router
        .clone()
        .oneshot(get(format!("/api/export?cluster=local&topic={topic}")))
        .await
        .expect("answers");
    assert_eq!(export.status(), StatusCode::OK);
    let tail = router
        .clone()
        .oneshot(get(format!("/api/tail?cluster=local&topic={tailed}")))
        .await
        .expect("answers");
    assert_eq!(tail.status(), StatusCode::OK);

    // The export is read slowly, so that the restart falls inside it.
    let reader = tokio::spawn(async move {
        let mut body = export.into_body();
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            match frame {
                Ok(frame) => {
                    if let Some(data) = frame.data_ref() {
                        bytes.extend_from_slice(data);
                    }
                }
                Err(e) => panic!("the export body failed: {e}"),
            }
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        bytes
    });
    let mut tail_body = tail.into_body();

    tokio::time::sleep(Duration::from_secs(1)).await;
    tokio::task::spawn_blocking(|| {
        stop("kafka");
        start_stack();
    })
    .await
    .expect("restarted");
    produce(&tailed, &[(0, 1)]);

    // The tail: a record produced after the restart, or an end event, within two minutes.
    let mut seen = String::new();
    let outcome = tokio::time::timeout(Duration::from_secs(120), async {
        while let Some(frame) = tail_body.frame().await {
            let Ok(frame) = frame else {
                return "the body failed";
            };
            if let Some(data) = frame.data_ref() {
                seen.push_str(&String::from_utf8_lossy(data));
            }
            if seen.contains("event: end") {
                return "ended";
            }
            if seen.contains("record 0") {
                return "resumed";
            }
        }
        "closed without an end event"
    })
    .await;
    match outcome {
        Ok(how @ ("resumed" | "ended")) => eprintln!("the tail across the restart {how}: {seen}"),
        Ok(other) => panic!("the tail {other}: {seen}"),
        Err(_) => panic!("the tail said nothing for two minutes after the restart: {seen}"),
    }

    let bytes = tokio::time::timeout(Duration::from_secs(180), reader)
        .await
        .expect("the export ends")
        .expect("the reader ran");
    let text = String::from_utf8(bytes).expect("NDJSON is UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    let errors: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("{\"error\""))
        .map(|(i, _)| i)
        .collect();
    match errors.as_slice() {
        [] => assert_eq!(lines.len(), RECORDS, "a short export with no error line"),
        [last] => assert_eq!(*last, lines.len() - 1, "the error line is the last"),
        more => panic!("{} error lines", more.len()),
    }
    // Every record line is a record, each partition's in offset order from 0.
    let mut next = [0u64; 2];
    for (i, line) in lines.iter().take(lines.len() - errors.len()).enumerate() {
        let record: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let partition = record["partition"].as_u64().expect("partition") as usize;
        assert_eq!(record["offset"], next[partition], "line {i}");
        next[partition] += 1;
    }
    eprintln!(
        "export across the restart: {} of {RECORDS} records, then {}",
        lines.len() - errors.len(),
        errors.first().map_or("the end", |&i| lines[i])
    );
}

/// While the broker answers nothing (a stopped process, as in a long pause), the pages klens
/// serves from its projection still answer at once, a record page answers within its
/// deadline, and reads work again once the broker does.
#[tokio::test]
async fn a_frozen_broker_stalls_no_page() {
    let _restore = Restore;
    let topic = unique("it-fault-frozen");
    create_topic(&topic, 2).await;
    produce(&topic, &[(0, 5), (1, 5)]);
    let yaml = plain_cluster();
    let catalog = Arc::new(Catalog::new(&config(&yaml)));
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| e.topic(&topic).is_some()).await;
    let router = app(state_of(&yaml, catalog));
    let page = format!("/api/records?cluster=local&topic={topic}&from=earliest");

    {
        let _frozen = Frozen::new("kafka");
        for path in ["/health", "/api/clusters", "/api/topics?cluster=local"] {
            let (status, body, took) = timed_get(&router, path).await;
            assert_eq!(status, StatusCode::OK, "{path}: {body}");
            assert!(took < Duration::from_secs(1), "{path} took {took:?}");
        }
        let (status, body, took) = timed_get(&router, &page).await;
        assert!(took < Duration::from_secs(8), "a record page took {took:?}");
        if status == StatusCode::OK {
            assert!(
                body["records"].as_array().is_some_and(|r| r.len() < 10),
                "a frozen broker served every record: {body}"
            );
        } else {
            assert!(body["code"].is_string(), "{status} {body}");
        }
    }

    let mut last = serde_json::Value::Null;
    for _ in 0..60 {
        let (status, body, _) = timed_get(&router, &page).await;
        if status == StatusCode::OK && body["records"].as_array().is_some_and(|r| r.len() == 10) {
            return;
        }
        last = body;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    panic!("record reads did not recover after the broker woke: {last}");
}

/// With the registry gone, a page of framed records still answers within its deadline, and
/// each framed value falls back to its bytes with the reason, nothing lost.
#[tokio::test]
async fn the_registry_gone_framed_values_fall_back_to_bytes() {
    let _restore = Restore;
    let subject = unique("it-fault-subject");
    let registered = registry(
        reqwest::Method::POST,
        &format!("subjects/{subject}/versions"),
        serde_json::json!({
            "schema": r#"{"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}"#
        }),
    )
    .await;
    let id = registered["id"].as_u64().expect("an id") as u32;
    let mut framed = vec![0u8];
    framed.extend_from_slice(&id.to_be_bytes());
    framed.extend_from_slice(&[4, b'h', b'i']);

    let topic = unique("it-fault-framed");
    create_topic(&topic, 1).await;
    {
        use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
        let producer: BaseProducer = rdkafka::ClientConfig::new()
            .set("bootstrap.servers", OPEN_PORT)
            .create()
            .expect("producer");
        producer
            .send(BaseRecord::<[u8], [u8]>::to(&topic).payload(&framed[..]))
            .unwrap_or_else(|(e, _)| panic!("send: {e}"));
        producer.flush(Duration::from_secs(10)).expect("flush");
    }

    stop("registry");
    let yaml = format!("{}    schema_registry:\n      url: {REGISTRY}\n", plain_cluster());
    let catalog = Arc::new(Catalog::new(&config(&yaml)));
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| {
        e.topic(&topic).is_some_and(|t| t.partitions.iter().any(|p| p.high == Some(1)))
    })
    .await;
    entry.refresh_subjects().await;
    let subjects = entry.subjects();
    assert!(subjects.error.is_some(), "the registry's absence is shown");
    let router = app(state_of(&yaml, catalog));

    let (status, body, took) =
        timed_get(&router, &format!("/api/records?cluster=local&topic={topic}&from=earliest"))
            .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(took < Duration::from_secs(8), "the page took {took:?}");
    let value = &body["records"][0]["value"];
    assert_eq!(value["schema_id"], id, "{value}");
    assert!(value["error"].as_str().is_some_and(|e| !e.is_empty()), "the reason is given: {value}");
    use base64::Engine;
    let data = value["data"].as_str().expect("the bytes as data");
    let decoded = match value["encoding"].as_str() {
        Some("base64") => base64::engine::general_purpose::STANDARD.decode(data).expect("base64"),
        Some("text") => data.as_bytes().to_vec(),
        other => panic!("a framed value without its schema shown as {other:?}"),
    };
    assert_eq!(decoded, framed, "every byte is kept: {value}");

    // A registry write answers CLIENT (502): the registry cannot be reached.
    let yaml = format!(
        "{}    writable: true\n    schema_registry:\n      url: {REGISTRY}\n",
        plain_cluster()
    );
    let router = app(state_of(&yaml, Arc::new(Catalog::new(&config(&yaml)))));
    for (call, body) in [
        (
            "register_schema",
            serde_json::json!({"cluster": "local", "subject": subject, "schema": "\"string\""}),
        ),
        (
            "set_compatibility",
            serde_json::json!({"cluster": "local", "subject": subject, "compatibility": "FULL"}),
        ),
        ("delete_schema", serde_json::json!({"cluster": "local", "subject": subject})),
    ] {
        let (status, answer) = post(&router, &format!("/api/{call}"), body).await;
        assert_eq!(
            (status.as_u16(), answer["code"].as_str()),
            (502, Some("CLIENT")),
            "{call}: {answer}"
        );
    }
}
