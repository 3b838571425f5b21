//! Integration tests against the real Kafka of `dev/stack` (started by `make integration`).
//! Each test makes its own topics and clusters so tests never share state.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use app::api::HealthStatus;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::ClientConfig;
use server::catalog::Catalog;
use server::config::Config;
use server::http::{app, AppState};
use tower::ServiceExt;

const OPEN_PORT: &str = "127.0.0.1:19092";
const SCRAM_PORT: &str = "127.0.0.1:19094";

fn unique(prefix: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{prefix}-{nanos}")
}

fn config(yaml: &str) -> Config {
    server::config::parse(yaml, "test.yaml", &|_| None, Path::new("."))
        .unwrap_or_else(|e| panic!("test config is invalid: {e}"))
}

fn scram_cluster(name: &str, password: &str) -> String {
    format!(
        "  - name: {name}\n    bootstrap_servers: {SCRAM_PORT}\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: klens\n      password: {password}\n"
    )
}

async fn create_topic(name: &str, partitions: i32) {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .create()
        .expect("admin client");
    let topic = NewTopic::new(name, partitions, TopicReplication::Fixed(1));
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

/// Topic name → partition count, as kcat (a separate librdkafka build) reads it over the open port.
fn kafka_topics() -> Vec<(String, usize)> {
    let out = Command::new("kcat")
        .args(["-b", OPEN_PORT, "-L", "-J"])
        .output()
        .expect("kcat runs (is it installed?)");
    assert!(
        out.status.success(),
        "kcat failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("kcat JSON");
    json["topics"]
        .as_array()
        .expect("topics")
        .iter()
        .map(|t| {
            let name = t["topic"].as_str().expect("topic name").to_string();
            let partitions = t["partitions"].as_array().map(Vec::len).unwrap_or(0);
            (name, partitions)
        })
        .collect()
}

#[tokio::test]
async fn the_catalog_counts_what_kafka_reports_over_scram() {
    let topic = unique("it-catalog");
    create_topic(&topic, 7).await;
    let config = config(&format!(
        "clusters:\n{}",
        scram_cluster("local", "klens-secret")
    ));
    let catalog = Catalog::new(&config);
    let entry = catalog.get("local").expect("configured");

    // Metadata can lag a fresh topic by a moment; refresh until klens sees it.
    refresh_until(entry, |e| e.topics().topics.iter().any(|t| t.name == topic)).await;
    let summary = entry.summary();
    let truth = kafka_topics();
    assert_eq!(
        summary.health.status,
        HealthStatus::Ok,
        "{:?}",
        summary.health
    );
    assert_eq!(summary.brokers, Some(1));
    assert_eq!(summary.topics, Some(truth.len() as u64));
    assert_eq!(
        summary.partitions,
        Some(truth.iter().map(|(_, p)| *p as u64).sum())
    );
    assert_eq!(summary.under_replicated, Some(0));
    let ours = entry.state().metadata.expect("metadata");
    let ours = ours.topics.iter().find(|t| t.name == topic).expect("topic");
    assert_eq!(ours.partitions.len(), 7);
    assert!(summary.refreshed_at.is_some());
}

#[tokio::test]
async fn a_wrong_password_makes_the_cluster_unreachable_and_names_the_failure() {
    let secret = unique("not-the-password");
    let config = config(&format!("clusters:\n{}", scram_cluster("badauth", &secret)));
    let catalog = Catalog::new(&config);
    let entry = catalog.get("badauth").expect("configured");
    entry.refresh().await;
    let health = entry.summary().health;
    assert_eq!(health.status, HealthStatus::Unreachable);
    let error = health.error.expect("an error text");
    assert!(
        error.contains("Authentication") || error.contains("SASL"),
        "{error}"
    );
    assert!(
        !error.contains(&secret),
        "the password leaked into the error: {error}"
    );
}

#[tokio::test]
async fn one_unreachable_cluster_does_not_hide_the_others() {
    let config = config(&format!(
        "clusters:\n{}  - name: nowhere\n    bootstrap_servers: 127.0.0.1:1\n",
        scram_cluster("local", "klens-secret")
    ));
    let catalog = Arc::new(Catalog::new(&config));
    assert!(!catalog.all_attempted());
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    assert!(catalog.all_attempted());
    let local = catalog.get("local").expect("local").summary();
    let nowhere = catalog.get("nowhere").expect("nowhere").summary();
    assert_eq!(local.health.status, HealthStatus::Ok);
    assert_eq!(nowhere.health.status, HealthStatus::Unreachable);
    assert_eq!(nowhere.topics, None);
}

fn klens() -> Command {
    Command::new(env!("CARGO_BIN_EXE_klens"))
}

fn check_config(path: &std::path::Path) -> std::process::Output {
    klens()
        .args(["--check-config", "--config"])
        .arg(path)
        .output()
        .expect("klens runs")
}

fn write_temp(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(unique("klens-it"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

#[test]
fn check_config_accepts_a_good_file_without_connecting() {
    let path = write_temp(
        "config.yaml",
        "clusters:\n  - name: far\n    bootstrap_servers: 192.0.2.1:9092\n",
    );
    let out = check_config(&path);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("valid (1 cluster)"));
}

#[test]
fn check_config_names_the_key_and_position_of_a_mistake() {
    let path = write_temp(
        "config.yaml",
        "clusters:\n  - name: a\n    bootstrap_servers: x:1\n    writeable: true\n",
    );
    let out = check_config(&path);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("config.yaml:4:5: clusters[0].writeable"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

#[test]
fn the_sasl_password_never_reaches_the_log() {
    let secret = unique("hunter2-secret");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let path = write_temp(
        "config.yaml",
        &format!(
            "listen: 127.0.0.1:{port}\nclusters:\n{}",
            scram_cluster("badauth", &secret)
        ),
    );
    let mut child = klens()
        .args(["--config"])
        .arg(&path)
        .env("RUST_LOG", "trace")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("klens starts");
    // /ready turns 200 once the first refresh (a failed SASL handshake) is over and logged.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while http_status(port, "/ready") != Some(200) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = child.kill();
    let out = child.wait_with_output().expect("output");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        log.contains("metadata refresh failed"),
        "no refresh failure logged:\n{log}"
    );
    assert!(!log.contains(&secret), "the password leaked into the log");
}

/// The status of a plain HTTP/1.1 GET on loopback, or None when nothing answers.
fn http_status(port: u16, path: &str) -> Option<u16> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// The router over `yaml`, with every cluster refreshed once.
async fn router(yaml: &str) -> axum::Router {
    let config = config(yaml);
    let catalog = Arc::new(Catalog::new(&config));
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    let leptos = leptos::config::LeptosOptions::builder()
        .output_name("klens")
        .build();
    app(AppState::new(leptos, &config, catalog).expect("state"))
}

async fn post(
    router: &axum::Router,
    path: &str,
    body: serde_json::Value,
) -> (StatusCode, serde_json::Value) {
    let request = Request::post(path)
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("request");
    let response = router
        .clone()
        .oneshot(request)
        .await
        .expect("router answers");
    let status = response.status();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("not JSON ({status}): {}", String::from_utf8_lossy(&bytes)));
    (status, json)
}

fn topic_partitions(name: &str) -> Option<usize> {
    kafka_topics()
        .into_iter()
        .find(|(t, _)| t == name)
        .map(|(_, p)| p)
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

    // Allowed: created in Kafka with the partitions asked for.
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "rw", "topic": topic, "partitions": 3 }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, serde_json::json!({ "cluster": "rw", "topic": topic }));
    assert_eq!(topic_partitions(&topic), Some(3));

    // Kafka's own refusal of a duplicate: ADMIN, 409, with Kafka's error name.
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "rw", "topic": topic, "partitions": 3 }),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("ADMIN")),
        "{body}"
    );
    assert_eq!(body["kafka_error"], "TopicAlreadyExists");

    // Read-only cluster: refused before the privilege, and nothing reaches Kafka.
    let other = unique("it-ro");
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "ro", "topic": other, "partitions": 1 }),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("READ_ONLY_CLUSTER"))
    );
    let (status, body) = post(
        &router,
        "/api/delete_topic",
        serde_json::json!({ "cluster": "ro", "topic": topic }),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("READ_ONLY_CLUSTER"))
    );
    assert_eq!(topic_partitions(&other), None);
    assert_eq!(topic_partitions(&topic), Some(3));

    // Internal topics are never changed, and the check comes before the arguments.
    for (path, name) in [
        ("/api/create_topic", "__klens_made_up"),
        ("/api/delete_topic", "__consumer_offsets"),
    ] {
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

    // Bad arguments name the field.
    let (status, body) = post(
        &router,
        "/api/create_topic",
        serde_json::json!({ "cluster": "rw", "topic": other, "partitions": 0 }),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str(), body["field"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("BAD_REQUEST"),
            Some("partitions")
        )
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
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("REFUSED")),
        "{body}"
    );
    assert_eq!(topic_partitions(&other), None);

    // Delete: gone from Kafka; a second delete is NOT_FOUND.
    let (status, body) = post(
        &router,
        "/api/delete_topic",
        serde_json::json!({ "cluster": "rw", "topic": topic }),
    )
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
    let (status, body) = post(
        &router,
        "/api/delete_topic",
        serde_json::json!({ "cluster": "rw", "topic": topic }),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("NOT_FOUND")),
        "{body}"
    );
}

/// Refreshes until `ready` holds (Kafka's metadata and offsets can lag a change by a moment);
/// gives up after five seconds and lets the caller's assertions say what is missing.
async fn refresh_until(
    entry: &server::catalog::ClusterEntry,
    ready: impl Fn(&server::catalog::ClusterEntry) -> bool,
) {
    for _ in 0..20 {
        entry.refresh().await;
        if ready(entry) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Produces `count` records to each listed partition over the open port and waits for them.
fn produce(topic: &str, counts: &[(i32, usize)]) {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .create()
        .expect("producer");
    for &(partition, count) in counts {
        for i in 0..count {
            let payload = format!("record {i}");
            producer
                .send(
                    BaseRecord::<str, str>::to(topic)
                        .partition(partition)
                        .payload(&payload),
                )
                .unwrap_or_else(|(e, _)| panic!("send: {e}"));
        }
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
}

#[tokio::test]
async fn record_counts_and_watermarks_match_what_was_produced() {
    let topic = unique("it-counts");
    create_topic(&topic, 3).await;
    produce(&topic, &[(0, 5), (2, 12)]);
    let config = config(&format!(
        "clusters:\n{}",
        scram_cluster("local", "klens-secret")
    ));
    let catalog = Catalog::new(&config);
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| {
        e.topics()
            .topics
            .iter()
            .any(|t| t.name == topic && t.records == Some(17))
    })
    .await;
    let listed = find(entry, &topic);
    assert_eq!(listed.records, Some(17));
    assert_eq!(listed.partitions, 3);
    let detail = entry.topic(&topic).expect("the topic is described");
    let marks: Vec<_> = detail
        .partitions
        .iter()
        .map(|p| (p.partition, p.low, p.high))
        .collect();
    assert_eq!(
        marks,
        [
            (0, Some(0), Some(5)),
            (1, Some(0), Some(0)),
            (2, Some(0), Some(12))
        ]
    );

    // The produce rate: records added between two refreshes of a fresh projection, per second.
    let catalog = Catalog::new(&config);
    let entry = catalog.get("local").expect("configured");
    entry.refresh().await;
    let first = entry.state().refreshed_at.expect("refreshed");
    assert_eq!(
        find(entry, &topic).produce_rate,
        None,
        "one sample has no rate"
    );
    produce(&topic, &[(1, 20)]);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    entry.refresh().await;
    let second = entry.state().refreshed_at.expect("refreshed");
    let want = 20.0 / ((second - first) as f64 / 1000.0);
    let got = find(entry, &topic).produce_rate.expect("a rate");
    assert!((got - want).abs() < 1e-9, "rate {got}, expected {want}");
}

fn find(entry: &server::catalog::ClusterEntry, topic: &str) -> app::api::TopicSummary {
    entry
        .topics()
        .topics
        .into_iter()
        .find(|t| t.name == topic)
        .expect("listed")
}

/// The client certificate files `dev/stack` generates for its mutual-TLS listener. The folder is
/// found at run time: with the build cache shared between clones, a path fixed at compile time
/// could name another clone's certificates.
fn tls_file(name: &str) -> String {
    let package = std::env::var("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|_| std::env::current_dir())
        .expect("the package folder");
    let file = package.join("../target/dev-stack/tls").join(name);
    file.to_string_lossy().into_owned()
}

#[tokio::test]
async fn every_client_security_mode_reaches_the_cluster() {
    let clusters = format!(
        "clusters:
  - name: plaintext
    bootstrap_servers: {OPEN_PORT}
  - name: sasl-plain
    bootstrap_servers: {SCRAM_PORT}
    sasl:
      mechanism: PLAIN
      username: klens
      password: klens-secret
{}  - name: mtls
    bootstrap_servers: 127.0.0.1:19095
    tls:
      ca: {}
      cert: {}
      key: {}
",
        scram_cluster("scram", "klens-secret"),
        tls_file("ca.pem"),
        tls_file("client.pem"),
        tls_file("client.key"),
    );
    let catalog = Catalog::new(&config(&clusters));
    for entry in catalog.clusters() {
        entry.refresh().await;
        let summary = entry.summary();
        assert_eq!(
            summary.health.status,
            HealthStatus::Ok,
            "{}: {:?}",
            entry.name,
            summary.health
        );
        assert!(summary.topics.is_some_and(|n| n > 0), "{}", entry.name);
    }
}

#[tokio::test]
async fn mutual_tls_without_a_client_certificate_is_refused() {
    let yaml = format!(
        "clusters:\n  - name: anonymous-tls\n    bootstrap_servers: 127.0.0.1:19095\n    tls:\n      ca: {}\n",
        tls_file("ca.pem")
    );
    let catalog = Catalog::new(&config(&yaml));
    let entry = catalog.get("anonymous-tls").expect("configured");
    entry.refresh().await;
    let health = entry.summary().health;
    assert_eq!(health.status, HealthStatus::Unreachable, "{health:?}");
}
