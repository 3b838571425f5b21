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
    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");

    // Metadata can lag a fresh topic by a moment; refresh until klens sees it.
    refresh_until(entry, |e| {
        e.topics(&Default::default())
            .topics
            .iter()
            .any(|t| t.name == topic)
    })
    .await;
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
    let (status, bytes) = send(router, request).await;
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
    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| {
        e.topics(&Default::default())
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
    let catalog = scram_catalog();
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
        .topics(&Default::default())
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

/// Commits `offsets` (partition → next offset to read) for `group` on `topic`, without joining
/// the group, as a tool resetting offsets would.
fn commit_offsets(group: &str, topic: &str, offsets: &[(i32, i64)]) {
    use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
    let mut list = rdkafka::TopicPartitionList::new();
    for &(partition, offset) in offsets {
        list.add_partition_offset(topic, partition, rdkafka::Offset::Offset(offset))
            .expect("partition");
    }
    consumer
        .commit(&list, CommitMode::Sync)
        .expect("offsets committed");
}

/// A catalog of the dev stack as one cluster `local`, reached over SCRAM as klens.
fn scram_catalog() -> Catalog {
    Catalog::new(&config(&format!(
        "clusters:\n{}",
        scram_cluster("local", "klens-secret")
    )))
}

/// A member that has joined `group` on `topic` with the rebalance `protocol` (`classic`, or
/// `consumer` for KIP-848) and holds its assignment.
fn join_group(
    group: &str,
    topic: &str,
    client_id: &str,
    protocol: &str,
) -> rdkafka::consumer::BaseConsumer {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("group.id", group)
        .set("group.protocol", protocol)
        .set("client.id", client_id)
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
    consumer.subscribe(&[topic]).expect("subscribe");
    for _ in 0..60 {
        let _ = consumer.poll(Duration::from_millis(250));
        if consumer
            .assignment()
            .map(|a| a.count() > 0)
            .unwrap_or(false)
        {
            return consumer;
        }
    }
    panic!("the consumer of {group} was never assigned partitions");
}

#[tokio::test]
async fn groups_show_exact_committed_offsets_lag_and_members() {
    let topic = unique("it-lag");
    create_topic(&topic, 3).await;
    produce(&topic, &[(0, 10), (1, 4)]);
    let idle = unique("it-idle");
    commit_offsets(&idle, &topic, &[(0, 7), (1, 4)]);
    let active = unique("it-active");
    let client_id = unique("it-client");
    let _member = join_group(&active, &topic, &client_id, "classic");

    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| {
        e.topics(&Default::default())
            .topics
            .iter()
            .any(|t| t.name == topic && t.records == Some(14))
    })
    .await;
    entry.refresh_groups().await;

    let group = entry.group(&idle).expect("the committed group is listed");
    assert_eq!(group.state, "Empty");
    assert!(group.members.is_empty());
    let offsets: Vec<_> = group
        .offsets
        .iter()
        .map(|o| (o.topic.as_str(), o.partition, o.committed, o.end, o.lag))
        .collect();
    assert_eq!(
        offsets,
        [
            (topic.as_str(), 0, 7, Some(10), Some(3)),
            (topic.as_str(), 1, 4, Some(4), Some(0)),
        ],
        "partition 2 has no committed offset and is not listed"
    );
    assert_eq!(group.lag, Some(3));

    let listed = entry.groups(&Default::default());
    let row = listed
        .groups
        .iter()
        .find(|g| g.group == idle)
        .expect("listed");
    assert_eq!((row.members, row.topics, row.lag), (0, 1, Some(3)));
    assert!(listed.refreshed_at.is_some() && listed.error.is_none());

    let member_group = entry.group(&active).expect("the joined group is listed");
    assert_eq!(member_group.state, "Stable");
    assert_eq!(member_group.members.len(), 1);
    let member = &member_group.members[0];
    assert_eq!(member.client_id, client_id);
    assert!(!member.host.is_empty());
    let mut assigned: Vec<_> = member
        .assignments
        .iter()
        .map(|a| (a.topic.as_str(), a.partition))
        .collect();
    assigned.sort();
    assert_eq!(
        assigned,
        [
            (topic.as_str(), 0),
            (topic.as_str(), 1),
            (topic.as_str(), 2)
        ]
    );

    let consumers = entry.topic(&topic).expect("topic").consumers;
    let lag_of = |g: &str| consumers.iter().find(|c| c.group == g).map(|c| c.lag);
    assert_eq!(lag_of(&idle), Some(Some(3)));
}

#[tokio::test]
async fn kip_848_groups_show_their_members_and_assignments() {
    let topic = unique("it-848");
    create_topic(&topic, 3).await;
    let group = unique("it-848-group");
    let client_id = unique("it-848-client");
    let _member = join_group(&group, &topic, &client_id, "consumer");

    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| e.topic(&topic).is_some()).await;
    // The member holds all three partitions once the group has settled.
    let mut described = None;
    for _ in 0..40 {
        entry.refresh_groups().await;
        described = entry.group(&group);
        if described.as_ref().is_some_and(|g| {
            g.state == "Stable" && g.members.first().is_some_and(|m| m.assignments.len() == 3)
        }) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let described = described.expect("the KIP-848 group is listed");
    assert_eq!(described.state, "Stable", "{described:?}");
    assert_eq!(described.members.len(), 1, "{described:?}");
    let member = &described.members[0];
    assert_eq!(member.client_id, client_id);
    assert!(!member.host.is_empty());
    let assigned: Vec<_> = member
        .assignments
        .iter()
        .map(|a| (a.topic.as_str(), a.partition))
        .collect();
    assert_eq!(
        assigned,
        [
            (topic.as_str(), 0),
            (topic.as_str(), 1),
            (topic.as_str(), 2)
        ]
    );
    let row = entry
        .groups(&Default::default())
        .groups
        .into_iter()
        .find(|g| g.group == group)
        .expect("listed");
    assert_eq!(row.members, 1);
}

/// The bytes of a partition's segment files on disk, read from the log dir itself.
fn bytes_on_disk(log_dir: &str, topic: &str, partition: i32) -> u64 {
    let dir = Path::new(log_dir).join(format!("{topic}-{partition}"));
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .filter(|f| f.path().extension().is_some_and(|x| x == "log"))
        .map(|f| f.metadata().map(|m| m.len()).unwrap_or(0))
        .sum()
}

#[tokio::test]
async fn sizes_come_from_log_dirs_and_match_the_files_on_disk() {
    let topic = unique("it-size");
    create_topic(&topic, 2).await;
    produce(&topic, &[(0, 50), (1, 3)]);
    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| e.topic(&topic).is_some()).await;
    entry.refresh_log_dirs().await;

    let brokers = entry.brokers();
    assert_eq!(
        brokers.controller,
        Some(1),
        "the single node leads the quorum"
    );
    let broker = &brokers.brokers[0];
    assert!(broker.controller);
    assert!(
        broker.log_dirs_error.is_none(),
        "{:?}",
        broker.log_dirs_error
    );
    let dir = &broker.log_dirs[0];
    assert!(dir.error.is_none());
    assert!(dir.total_bytes.unwrap_or(0) >= dir.usable_bytes.unwrap_or(0));

    let detail = entry.topic(&topic).expect("topic");
    for p in &detail.partitions {
        assert_eq!(
            p.size_bytes,
            Some(bytes_on_disk(&dir.path, &topic, p.partition)),
            "partition {}",
            p.partition
        );
    }
    assert!(detail.partitions[0].size_bytes > detail.partitions[1].size_bytes);
    let sum: u64 = detail.partitions.iter().filter_map(|p| p.size_bytes).sum();
    assert_eq!(detail.size_bytes, Some(sum));
    assert_eq!(entry.summary().size_bytes, dir.size_bytes);
}

#[tokio::test]
async fn without_describe_on_the_cluster_sizes_stay_empty_and_the_rest_works() {
    // `reporting` may read click* topics and reporting-* groups, and nothing on the cluster.
    let config = config(
        "clusters:\n  - name: weak\n    bootstrap_servers: 127.0.0.1:19094\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: reporting\n      password: reporting-secret\n",
    );
    let catalog = Catalog::new(&config);
    let entry = catalog.get("weak").expect("configured");
    entry.refresh().await;
    entry.refresh_log_dirs().await;
    entry.refresh_groups().await;

    let summary = entry.summary();
    assert_eq!(
        summary.health.status,
        HealthStatus::Ok,
        "{:?}",
        summary.health
    );
    assert_eq!(summary.size_bytes, None);
    let topics = entry.topics(&Default::default()).topics;
    let click = topics
        .iter()
        .find(|t| t.name == "clickstream")
        .expect("the seeded clickstream topic is visible");
    assert_eq!(click.size_bytes, None);
    assert!(click.records.is_some(), "watermarks still work");
    let brokers = entry.brokers();
    let error = brokers.brokers[0]
        .log_dirs_error
        .clone()
        .expect("log dirs refused");
    assert!(error.contains("ClusterAuthorizationFailed"), "{error}");
    assert_eq!(brokers.controller, None);
    assert!(entry.state().groups.error.is_none(), "groups still read");
}

/// Calls the dev stack's registry and returns the JSON answer.
async fn registry(
    method: reqwest::Method,
    path: &str,
    body: serde_json::Value,
) -> serde_json::Value {
    let url = format!("http://127.0.0.1:18081/apis/ccompat/v7/{path}");
    let response = reqwest::Client::new()
        .request(method, &url)
        .header("content-type", "application/vnd.schemaregistry.v1+json")
        .json(&body)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    assert!(
        response.status().is_success(),
        "{url}: {}",
        response.status()
    );
    response.json().await.expect("registry JSON")
}

#[tokio::test]
async fn subjects_show_what_the_registry_holds() {
    let subject = unique("it-subject");
    let schema = |fields: &str| {
        serde_json::json!({
            "schema": format!(r#"{{"type":"record","name":"R","fields":[{fields}]}}"#)
        })
    };
    let path = format!("subjects/{subject}/versions");
    registry(
        reqwest::Method::PUT,
        &format!("config/{subject}"),
        serde_json::json!({"compatibility": "FULL"}),
    )
    .await;
    registry(
        reqwest::Method::POST,
        &path,
        schema(r#"{"name":"a","type":"string"}"#),
    )
    .await;
    let second = registry(
        reqwest::Method::POST,
        &path,
        schema(r#"{"name":"a","type":"string"},{"name":"b","type":"int","default":0}"#),
    )
    .await;
    let global = registry(reqwest::Method::GET, "config", serde_json::Value::Null).await;

    let config = config(&format!(
        "clusters:\n{}    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n",
        scram_cluster("local", "klens-secret")
    ));
    let catalog = Catalog::new(&config);
    let entry = catalog.get("local").expect("configured");
    entry.refresh_subjects().await;
    let list = entry.subjects();
    assert!(list.registry && list.error.is_none(), "{:?}", list.error);
    assert_eq!(
        list.global_compatibility.as_deref(),
        global["compatibilityLevel"].as_str()
    );
    let ours = list
        .subjects
        .iter()
        .find(|s| s.subject == subject)
        .expect("the new subject is listed");
    assert_eq!(ours.versions, [1, 2]);
    let latest = ours.latest.clone().expect("latest");
    assert_eq!((latest.version, latest.schema_type.as_str()), (2, "AVRO"));
    assert_eq!(Some(latest.id), second["id"].as_i64());
    assert_eq!(ours.compatibility.as_deref(), Some("FULL"));
    assert!(ours.compatibility_overridden);
}

#[tokio::test]
async fn search_finds_a_topic_despite_a_typo() {
    let topic = unique("it-searchable");
    create_topic(&topic, 1).await;
    let router = router(&format!(
        "clusters:\n{}",
        scram_cluster("local", "klens-secret")
    ))
    .await;
    // Swap two letters of the name: "it-saerchable-…".
    let typo = topic.replacen("searchable", "saerchable", 1);
    let (status, bytes) = get_raw(&router, &format!("/api/search?q={typo}")).await;
    assert_eq!(status, StatusCode::OK);
    let json: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
    let first = &json["hits"][0];
    assert_eq!(first["kind"], "topic", "{json}");
    assert_eq!(first["name"], topic.as_str());
    assert_eq!(first["url"], format!("/c/local/topics/{topic}"));
}

/// GETs `path` from the router and returns the status and the raw body.
async fn get_raw(router: &axum::Router, path: &str) -> (StatusCode, Vec<u8>) {
    let request = Request::get(path)
        .header("host", "127.0.0.1:8080")
        .body(Body::empty())
        .expect("request");
    send(router, request).await
}

/// Sends `request` through the router and returns the status and the whole body.
async fn send(router: &axum::Router, request: Request<Body>) -> (StatusCode, Vec<u8>) {
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
    (status, bytes.to_vec())
}

/// The exact bytes an encoded key, value or header value stands for.
fn bytes_of(encoded: &serde_json::Value) -> Option<Vec<u8>> {
    use base64::Engine;
    let b64 = |s: &serde_json::Value| {
        base64::engine::general_purpose::STANDARD
            .decode(s.as_str().expect("base64 text"))
            .expect("valid base64")
    };
    if let Some(raw) = encoded.get("raw") {
        return Some(b64(raw));
    }
    match encoded["encoding"].as_str().expect("encoding") {
        "null" => None,
        "base64" => Some(b64(&encoded["data"])),
        "text" => Some(encoded["data"].as_str().expect("text").as_bytes().to_vec()),
        "json" => Some(serde_json::to_vec(&encoded["data"]).expect("json")),
        other => panic!("{other} without raw bytes: {encoded}"),
    }
}

/// One record as produced: partition, key, value, headers, timestamp.
type Produced = (
    i32,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Vec<(String, Option<Vec<u8>>)>,
    i64,
);

/// Checks one record of klens's answer against what was produced.
fn assert_same(got: &serde_json::Value, want: &Produced, what: &str) {
    let (partition, key, value, headers, timestamp) = want;
    assert_eq!(got["partition"], *partition, "{what}: {got}");
    assert_eq!(got["timestamp"], *timestamp, "{what}: {got}");
    assert_eq!(got["timestamp_type"], "create_time", "{what}");
    assert_eq!(bytes_of(&got["key"]), *key, "{what}: key of {got}");
    assert_eq!(bytes_of(&got["value"]), *value, "{what}: value of {got}");
    let got_headers: Vec<(String, Option<Vec<u8>>)> = got["headers"]
        .as_array()
        .expect("headers")
        .iter()
        .map(|h| {
            (
                h["key"].as_str().expect("key").to_string(),
                bytes_of(&h["value"]),
            )
        })
        .collect();
    assert_eq!(&got_headers, headers, "{what}: headers of {got}");
}

#[tokio::test]
async fn records_record_and_export_give_back_every_byte() {
    use rdkafka::message::{Header, OwnedHeaders};
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

    let topic = unique("it-fidelity");
    create_topic(&topic, 3).await;
    // An Avro schema registered for the topic's values, and one value framed with its id.
    let registered = registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-value/versions"),
        serde_json::json!({"schema": r#"{"type":"record","name":"F","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"}]}"#}),
    )
    .await;
    let schema_id = registered["id"].as_u64().expect("schema id") as u32;
    // id = 42 (zig-zag 84), name = "x" (length 1 → 2).
    let mut framed = vec![0u8];
    framed.extend_from_slice(&schema_id.to_be_bytes());
    framed.extend_from_slice(&[84, 2, b'x']);
    // A Protobuf schema and a JSON Schema under subjects of their own (the frame names the
    // schema by id, whatever the subject).
    let proto_id = registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-proto/versions"),
        serde_json::json!({
            "schemaType": "PROTOBUF",
            "schema": "syntax = \"proto3\";\nmessage P {\n  int32 id = 1;\n  string name = 2;\n}\n",
        }),
    )
    .await["id"]
        .as_u64()
        .expect("Protobuf schema id") as u32;
    let json_id = registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-json/versions"),
        serde_json::json!({
            "schemaType": "JSON",
            "schema": r#"{"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array"}}}"#,
        }),
    )
    .await["id"]
        .as_u64()
        .expect("JSON Schema id") as u32;
    // Magic byte, id, message index [0] as the single byte 0, then P{id: 7, name: "p"} written
    // out by hand: field 1 varint 7, field 2 length 1 "p".
    let mut proto = vec![0u8];
    proto.extend_from_slice(&proto_id.to_be_bytes());
    proto.extend_from_slice(&[0, 0x08, 7, 0x12, 1, b'p']);
    let mut json_framed = vec![0u8];
    json_framed.extend_from_slice(&json_id.to_be_bytes());
    json_framed.extend_from_slice(br#"{"n": 5, "tags": ["a", "b"]}"#);

    // Explicit timestamps, recent enough that retention leaves them alone.
    let t0 = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
        - 60_000;
    let binary: Vec<u8> = (0..=255u8).rev().collect();
    let produced: Vec<Produced> = vec![
        (
            0,
            Some(b"k1".to_vec()),
            Some(b"plain text".to_vec()),
            vec![
                ("h".into(), Some(b"1".to_vec())),
                ("h".into(), Some(b"2".to_vec())),
                ("nothing".into(), None),
            ],
            t0,
        ),
        (0, None, None, Vec::new(), t0 + 1),
        (1, Some(Vec::new()), Some(Vec::new()), Vec::new(), t0 + 2),
        (
            1,
            Some(vec![0xff, 0x00, 0xfe]),
            Some(binary),
            vec![("bin".into(), Some(vec![0xc3, 0x28]))],
            t0 + 3,
        ),
        (
            2,
            Some(b"json".to_vec()),
            Some(br#"{"a": 1,  "b": [true]}"#.to_vec()),
            Vec::new(),
            t0 + 4,
        ),
        (2, Some(b"avro".to_vec()), Some(framed), Vec::new(), t0 + 5),
        (0, Some(b"proto".to_vec()), Some(proto), Vec::new(), t0 + 6),
        (
            1,
            Some(b"json".to_vec()),
            Some(json_framed),
            Vec::new(),
            t0 + 7,
        ),
    ];
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .create()
        .expect("producer");
    for (partition, key, value, headers, timestamp) in &produced {
        let mut h = OwnedHeaders::new();
        for (k, v) in headers {
            h = h.insert(Header {
                key: k.as_str(),
                value: v.as_deref(),
            });
        }
        let mut record = BaseRecord::<[u8], [u8]>::to(&topic)
            .partition(*partition)
            .timestamp(*timestamp)
            .headers(h);
        if let Some(k) = key {
            record = record.key(k.as_slice());
        }
        if let Some(v) = value {
            record = record.payload(v.as_slice());
        }
        producer
            .send(record)
            .unwrap_or_else(|(e, _)| panic!("send: {e}"));
        producer.flush(Duration::from_secs(10)).expect("flush");
    }

    let router = router(&format!(
        "clusters:\n{}    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n",
        scram_cluster("local", "klens-secret")
    ))
    .await;

    // A page of every record, oldest first across partitions.
    let (status, body) = get_raw(
        &router,
        &format!("/api/records?cluster=local&topic={topic}&from=earliest&limit=500"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let page: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    let records = page["records"].as_array().expect("records");
    assert_eq!(records.len(), produced.len(), "{page}");
    for (got, want) in records.iter().zip(&produced) {
        assert_same(got, want, "records");
    }
    assert_eq!(page["next"], serde_json::Value::Null, "all read");
    let avro = &records[5]["value"];
    assert_eq!(avro["encoding"], "avro");
    assert_eq!(avro["schema_id"], schema_id);
    assert_eq!(avro["data"], serde_json::json!({"id": 42, "name": "x"}));
    let proto = &records[6]["value"];
    assert_eq!(proto["encoding"], "protobuf", "{proto}");
    assert_eq!(proto["schema_id"], proto_id);
    assert_eq!(proto["data"], serde_json::json!({"id": 7, "name": "p"}));
    let json = &records[7]["value"];
    assert_eq!(json["encoding"], "json_schema", "{json}");
    assert_eq!(json["schema_id"], json_id);
    assert_eq!(
        json["data"],
        serde_json::json!({"n": 5, "tags": ["a", "b"]})
    );
    assert_eq!(records[1]["key"]["encoding"], "null");
    assert_eq!(records[1]["value"]["encoding"], "null");
    assert_eq!(records[3]["value"]["encoding"], "base64");

    // Each record alone.
    for (got, want) in records.iter().zip(&produced) {
        let path = format!(
            "/api/record?cluster=local&topic={topic}&partition={}&offset={}",
            got["partition"], got["offset"]
        );
        let (status, body) = get_raw(&router, &path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        let one: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_same(&one, want, "record");
    }

    // The export: one line per record, each partition in offset order.
    let (status, body) =
        get_raw(&router, &format!("/api/export?cluster=local&topic={topic}")).await;
    assert_eq!(status, StatusCode::OK);
    let mut lines: Vec<serde_json::Value> = body
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("NDJSON line"))
        .collect();
    lines.sort_by_key(|l| l["timestamp"].as_i64());
    assert_eq!(lines.len(), produced.len());
    for (got, want) in lines.iter().zip(&produced) {
        assert_same(got, want, "export");
    }

    // From a timestamp: the first records at or after it, per partition.
    let (_, body) = get_raw(
        &router,
        &format!(
            "/api/records?cluster=local&topic={topic}&timestamp={}",
            t0 + 3
        ),
    )
    .await;
    let page: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    let stamps: Vec<i64> = page["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["timestamp"].as_i64())
        .collect();
    assert_eq!(stamps, [t0 + 3, t0 + 4, t0 + 5, t0 + 6, t0 + 7]);

    // A filter, and a refused missing record.
    let (_, body) = get_raw(
        &router,
        &format!("/api/records?cluster=local&topic={topic}&from=earliest&q=PLAIN"),
    )
    .await;
    let page: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(page["records"].as_array().map(Vec::len), Some(1), "{page}");
    let (status, _) = get_raw(
        &router,
        &format!("/api/record?cluster=local&topic={topic}&partition=0&offset=99"),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
