//! Helpers shared by the modules of this binary: the dev stack's ports, configs and clusters,
//! topics and records made over the open port, and requests through klens's router.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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

pub(crate) const OPEN_PORT: &str = "127.0.0.1:19092";
pub(crate) const SCRAM_PORT: &str = "127.0.0.1:19094";

pub(crate) fn unique(prefix: &str) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("{prefix}-{nanos}")
}

pub(crate) fn config(yaml: &str) -> Config {
    server::config::parse(yaml, "test.yaml", &|_| None, Path::new("."))
        .unwrap_or_else(|e| panic!("test config is invalid: {e}"))
}

pub(crate) fn scram_cluster(name: &str, password: &str) -> String {
    format!(
        "  - name: {name}\n    bootstrap_servers: {SCRAM_PORT}\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: klens\n      password: {password}\n"
    )
}

pub(crate) async fn create_topic(name: &str, partitions: i32) {
    let admin: AdminClient<DefaultClientContext> =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("admin client");
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
pub(crate) fn kafka_topics() -> Vec<(String, usize)> {
    let out = Command::new("kcat")
        .args(["-b", OPEN_PORT, "-L", "-J"])
        .output()
        .expect("kcat runs (is it installed?)");
    assert!(out.status.success(), "kcat failed: {}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("kcat JSON");
    let mut topics: Vec<(String, usize)> = json["topics"]
        .as_array()
        .expect("topics")
        .iter()
        .map(|t| {
            let name = t["topic"].as_str().expect("topic name").to_string();
            let partitions = t["partitions"].as_array().map(Vec::len).unwrap_or(0);
            (name, partitions)
        })
        .collect();
    topics.sort();
    topics
}

pub(crate) fn klens() -> Command {
    Command::new(env!("CARGO_BIN_EXE_klens"))
}

pub(crate) fn check_config(path: &std::path::Path) -> std::process::Output {
    klens().args(["--check-config", "--config"]).arg(path).output().expect("klens runs")
}

pub(crate) fn write_temp(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(unique("klens-it"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

/// The UI door's state over `config` and `catalog`, built as `main` builds it: one service,
/// handed to the door.
pub(crate) fn state_over(config: &Config, catalog: Arc<Catalog>) -> AppState {
    let leptos = leptos::config::LeptosOptions::builder().output_name("klens").build();
    let service = server::service::Service::from_config(config, catalog).expect("service");
    AppState::new(leptos, config, Arc::new(service)).expect("state")
}

/// The service over `yaml` (with its audit), every cluster refreshed once: a replica of klens
/// without its doors, for what runs in the background (the copy jobs' sweep).
pub(crate) async fn service_of(yaml: &str) -> Arc<server::service::Service> {
    let config = config(yaml);
    let catalog = Arc::new(Catalog::new(&config));
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    Arc::new(server::service::Service::from_config(&config, catalog).expect("service"))
}

/// The router over `yaml`, with every cluster refreshed once.
pub(crate) async fn router(yaml: &str) -> axum::Router {
    let config = config(yaml);
    let catalog = Arc::new(Catalog::new(&config));
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    app(state_over(&config, catalog))
}

/// The router over `yaml` and its catalog, with every cluster's metadata and groups read once.
pub(crate) async fn router_and_catalog(yaml: &str) -> (axum::Router, Arc<Catalog>) {
    let config = config(yaml);
    let catalog = Arc::new(Catalog::new(&config));
    for entry in catalog.clusters() {
        entry.refresh().await;
        entry.refresh_groups().await;
    }
    let router = app(state_over(&config, Arc::clone(&catalog)));
    (router, catalog)
}

pub(crate) async fn post(
    router: &axum::Router, path: &str, body: serde_json::Value,
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

/// Refreshes until `ready` holds (Kafka's metadata and offsets can lag a change by a moment);
/// gives up after five seconds and lets the caller's assertions say what is missing.
pub(crate) async fn refresh_until(
    entry: &server::catalog::ClusterEntry, ready: impl Fn(&server::catalog::ClusterEntry) -> bool,
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
pub(crate) fn produce(topic: &str, counts: &[(i32, usize)]) {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    for &(partition, count) in counts {
        for i in 0..count {
            let payload = format!("record {i}");
            producer
                .send(BaseRecord::<str, str>::to(topic).partition(partition).payload(&payload))
                .unwrap_or_else(|(e, _)| panic!("send: {e}"));
        }
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
}

/// Produces one record per `(partition, value)` (a `None` value is a tombstone) over the open
/// port and waits for them.
pub(crate) fn produce_values(topic: &str, values: &[(i32, Option<Vec<u8>>)]) {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    for (partition, value) in values {
        let mut record = BaseRecord::<str, [u8]>::to(topic).partition(*partition).key("k");
        if let Some(value) = value {
            record = record.payload(value.as_slice());
        }
        producer.send(record).unwrap_or_else(|(e, _)| panic!("send: {e}"));
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
}

/// The status and JSON answer (`null` when there is none) of one call to the dev stack's
/// registry, whatever the status.
pub(crate) async fn registry_status(
    method: reqwest::Method, path: &str,
) -> (u16, serde_json::Value) {
    let url = format!("http://127.0.0.1:18081/apis/ccompat/v7/{path}");
    let response = reqwest::Client::new()
        .request(method, &url)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(serde_json::Value::Null))
}

/// The client certificate files `dev/stack` generates for its mutual-TLS listener. The folder is
/// found at run time: with the build cache shared between clones, a path fixed at compile time
/// could name another clone's certificates.
pub(crate) fn tls_file(name: &str) -> String {
    let package = std::env::var("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|_| std::env::current_dir())
        .expect("the package folder");
    let file = package.join("../target/dev-stack/tls").join(name);
    file.to_string_lossy().into_owned()
}

/// Commits `offsets` (partition → next offset to read) for `group` on `topic`, without joining
/// the group, as a tool resetting offsets would.
pub(crate) fn commit_offsets(group: &str, topic: &str, offsets: &[(i32, i64)]) {
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
    consumer.commit(&list, CommitMode::Sync).expect("offsets committed");
}

/// Deletes `group` once its members have left (for up to 20 s): the browser suite shares this
/// Kafka and searches its groups.
pub(crate) async fn delete_group_once_empty(group: &str) {
    let admin: AdminClient<DefaultClientContext> =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("admin");
    for _ in 0..40 {
        let deleted = admin.delete_groups(&[group], &AdminOptions::new()).await;
        if deleted.is_ok_and(|results| results.iter().all(Result::is_ok)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// A catalog of the dev stack as one cluster `local`, reached over SCRAM as klens.
pub(crate) fn scram_catalog() -> Catalog {
    Catalog::new(&config(&format!("clusters:\n{}", scram_cluster("local", "klens-secret"))))
}

/// A member that has joined `group` on `topic` with the rebalance `protocol` (`classic`, or
/// `consumer` for KIP-848) and holds its assignment.
pub(crate) fn join_group(
    group: &str, topic: &str, client_id: &str, protocol: &str,
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
        if consumer.assignment().map(|a| a.count() > 0).unwrap_or(false) {
            return consumer;
        }
    }
    panic!("the consumer of {group} was never assigned partitions");
}

/// Calls the dev stack's registry and returns the JSON answer.
pub(crate) async fn registry(
    method: reqwest::Method, path: &str, body: serde_json::Value,
) -> serde_json::Value {
    let url = format!("http://127.0.0.1:18081/apis/ccompat/v7/{path}");
    let response = reqwest::Client::new()
        .request(method, &url)
        .header("content-type", "application/vnd.schemaregistry.v1+json")
        .json(&body)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    assert!(response.status().is_success(), "{url}: {}", response.status());
    response.json().await.expect("registry JSON")
}

/// GETs `path` from the router and returns the status and the raw body.
pub(crate) async fn get_raw(router: &axum::Router, path: &str) -> (StatusCode, Vec<u8>) {
    let request =
        Request::get(path).header("host", "127.0.0.1:8080").body(Body::empty()).expect("request");
    send(router, request).await
}

/// Sends `request` through the router and returns the status and the whole body.
pub(crate) async fn send(router: &axum::Router, request: Request<Body>) -> (StatusCode, Vec<u8>) {
    let response = router.clone().oneshot(request).await.expect("router answers");
    let status = response.status();
    let bytes = response.into_body().collect().await.expect("body").to_bytes();
    (status, bytes.to_vec())
}

/// Runs a Python script in the dev tools' environment (confluent-kafka, fastavro; made by
/// dev/lib/venv.sh on first use) with `args`, and gives back what it prints.
pub(crate) fn dev_python(script: &str, args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let venv = Command::new("bash")
        .args(["-c", "source dev/lib/venv.sh && klens_dev_venv"])
        .current_dir(&root)
        .output()
        .expect("bash");
    assert!(venv.status.success(), "{}", String::from_utf8_lossy(&venv.stderr));
    let python = Path::new(String::from_utf8_lossy(&venv.stdout).trim()).join("bin/python");
    let out = Command::new(python).arg("-c").arg(script).args(args).output().expect("python");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The (low, high) watermarks of partitions `0..partitions` of `topic`, as a consumer of the
/// test's own reads them.
pub(crate) fn watermarks(topic: &str, partitions: i32) -> Vec<(i64, i64)> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("group.id", "it-watermarks")
        .create()
        .expect("consumer");
    (0..partitions)
        .map(|p| consumer.fetch_watermarks(topic, p, Duration::from_secs(10)).expect("watermarks"))
        .collect()
}

/// GETs `path` from the router: the status and the JSON answer.
pub(crate) async fn get_json(router: &axum::Router, path: &str) -> (u16, serde_json::Value) {
    let (status, body) = get_raw(router, path).await;
    (status.as_u16(), serde_json::from_slice(&body).expect("JSON"))
}

/// Runs one of Kafka's own command-line tools (its class, as `dev/stack kafka` takes it).
fn run_kafka_tool(class: &str, args: &[&str]) -> std::process::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    Command::new(root.join("dev/stack"))
        .arg("kafka")
        .arg(class)
        .args(args)
        .output()
        .expect("dev/stack runs")
}

/// Runs one of Kafka's own tools and gives back what it prints.
pub(crate) fn kafka_tool(class: &str, args: &[&str]) -> String {
    let out = run_kafka_tool(class, args);
    assert!(out.status.success(), "{class} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Runs one of Kafka's own tools and answers whether it succeeded (for clean-up that may find
/// nothing to do).
pub(crate) fn kafka_tool_status(class: &str, args: &[&str]) -> bool {
    run_kafka_tool(class, args).status.success()
}

/// What Kafka's own kafka-configs tool describes for `entity` (its own arguments, such as
/// `--entity-type users --entity-name alice`), over the open port.
pub(crate) fn kafka_configs(entity: &[&str]) -> String {
    let mut args = vec!["--bootstrap-server", OPEN_PORT, "--describe"];
    args.extend_from_slice(entity);
    kafka_tool("kafka.admin.ConfigCommand", &args)
}

/// The service over `yaml` (masking as configured), its clusters refreshed once, for calls as
/// the MCP ceiling (`server::auth::Caller::Mcp`), whose privileges and resources `yaml` sets.
pub(crate) async fn ceiling_service(yaml: &str) -> Arc<server::service::Service> {
    let config = config(yaml);
    let catalog = Arc::new(Catalog::new(&config));
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    let policy = Arc::new(server::auth::Policy::from_config(&config));
    Arc::new(server::service::Service::new(policy, catalog).with_masking(
        server::masking::Masking::new(config.masking.clone(), config.masking_key.clone()),
    ))
}

/// A cluster `local` with the dev stack's registry, writable, and an MCP ceiling holding
/// `privileges` (a YAML list's inside) with `extra` lines below it (`resources:`).
pub(crate) fn registry_ceiling_yaml(privileges: &str, extra: &str) -> String {
    format!(
        "clusters:\n{}    writable: true\n    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n\
         mcp:\n  listen: 127.0.0.1:18997\n  privileges: [{privileges}]\n  secret: mcp-test-secret\n{extra}",
        scram_cluster("local", "klens-secret"),
    )
}

/// The OpenID Connect provider `dev/stack` runs, whose users are `dev/oidc/users.json`.
pub(crate) const OIDC_ISSUER: &str = "http://127.0.0.1:19000";

/// The `auth` block for the dev stack's provider, with `rest` (roles and bindings, indented
/// two spaces) after it.
pub(crate) fn auth_block(rest: &str) -> String {
    format!(
        "auth:\n  oidc:\n    issuer: {OIDC_ISSUER}\n    client_id: klens\n    client_secret: klens-secret\n    redirect_uri: http://127.0.0.1:8080/auth/callback\n  claim: groups\n{rest}"
    )
}

/// The `name=value` of each cookie `headers` set.
fn set_cookies(headers: &axum::http::HeaderMap) -> Vec<(String, String)> {
    headers
        .get_all(axum::http::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .filter_map(|pair| pair.split_once('='))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// Signs `user` (password `<user>-pw`) in to the klens of `router` through the real provider,
/// as a browser would: klens's `/auth/login`, the provider's login form, klens's callback.
/// Answers the `Cookie` header of the session.
pub(crate) async fn sign_in(router: &axum::Router, user: &str) -> String {
    let request = |uri: &str, cookie: Option<&str>| {
        let mut r = Request::get(uri).header("host", "127.0.0.1:8080");
        if let Some(cookie) = cookie {
            r = r.header("cookie", cookie);
        }
        r.body(Body::empty()).expect("request")
    };
    let started =
        router.clone().oneshot(request("/auth/login", None)).await.expect("router answers");
    assert!(started.status().is_redirection(), "{}", started.status());
    let pending = set_cookies(started.headers())
        .into_iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join("; ");
    let mut location = started.headers()["location"].to_str().expect("location").to_string();

    // The provider's side, with its own cookies, one redirect at a time.
    let provider = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let mut jar: std::collections::BTreeMap<String, String> = Default::default();
    let callback = "http://127.0.0.1:8080/auth/callback";
    for _ in 0..12 {
        if location.starts_with(callback) {
            break;
        }
        let url = if location.starts_with('/') {
            format!("{OIDC_ISSUER}{location}")
        } else {
            location.clone()
        };
        let cookies = jar.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join("; ");
        let mut response = provider
            .get(&url)
            .header("cookie", &cookies)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        jar.extend(set_cookies(response.headers()));
        if response.status().is_success() {
            // The login form: post the user's name and password to it.
            let login = format!("{}/login", url.split('?').next().unwrap_or(&url));
            let cookies =
                jar.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join("; ");
            response = provider
                .post(&login)
                .header("cookie", &cookies)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(format!("username={user}&password={user}-pw"))
                .send()
                .await
                .unwrap_or_else(|e| panic!("{login}: {e}"));
            jar.extend(set_cookies(response.headers()));
        }
        assert!(response.status().is_redirection(), "{url}: {}", response.status());
        location = response.headers()["location"].to_str().expect("location").to_string();
    }
    assert!(location.starts_with(callback), "{location}");

    let path = &location["http://127.0.0.1:8080".len()..];
    let done = router.clone().oneshot(request(path, Some(&pending))).await.expect("router answers");
    assert!(done.status().is_redirection(), "{}", done.status());
    let session = set_cookies(done.headers())
        .into_iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join("; ");
    assert!(!session.is_empty(), "the callback starts a session");
    session
}

/// POSTs `body` to `path` as the session of `cookie`: the status and the JSON answer.
pub(crate) async fn post_as(
    router: &axum::Router, cookie: &str, path: &str, body: serde_json::Value,
) -> (StatusCode, serde_json::Value) {
    let request = Request::post(path)
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .header("cookie", cookie)
        .body(Body::from(body.to_string()))
        .expect("request");
    let (status, bytes) = send(router, request).await;
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("not JSON ({status}): {}", String::from_utf8_lossy(&bytes)));
    (status, json)
}

/// GETs `path` as the session of `cookie`: the status and the raw body.
pub(crate) async fn get_as(
    router: &axum::Router, cookie: &str, path: &str,
) -> (StatusCode, Vec<u8>) {
    let request = Request::get(path)
        .header("host", "127.0.0.1:8080")
        .header("cookie", cookie)
        .body(Body::empty())
        .expect("request");
    send(router, request).await
}

/// dev/stack's open Kafka Connect worker.
pub(crate) const CONNECT: &str = "http://127.0.0.1:18083";

/// Creates (or replaces) connector `name` with `config` through Connect's REST API.
pub(crate) async fn put_connector(base: &str, name: &str, config: serde_json::Value) {
    let answer = reqwest::Client::new()
        .put(format!("{base}/connectors/{name}/config"))
        .basic_auth("klens", Some("klens-connect-secret"))
        .json(&config)
        .send()
        .await
        .expect("Connect answers");
    assert!(answer.status().is_success(), "{}", answer.text().await.unwrap_or_default());
}

pub(crate) async fn delete_connector(base: &str, name: &str) {
    let _ = reqwest::Client::new()
        .delete(format!("{base}/connectors/{name}"))
        .basic_auth("klens", Some("klens-connect-secret"))
        .send()
        .await;
}

/// Writes a processor's definition (its JSON as klens keeps it) into the stack's definitions
/// topic, as klens's store would, making the topic first if needed.
pub(crate) async fn define_processor(definition: serde_json::Value) {
    use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
    use rdkafka::client::DefaultClientContext;
    use rdkafka::producer::{FutureProducer, FutureRecord};
    let topic = server::processor::DEFINITIONS_TOPIC;
    let admin: AdminClient<DefaultClientContext> =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("admin");
    let new = NewTopic::new(topic, 1, TopicReplication::Fixed(1)).set("cleanup.policy", "compact");
    let _ = admin.create_topics([&new], &AdminOptions::new()).await.expect("answered");
    let name = definition["name"].as_str().expect("a name").to_string();
    let producer: FutureProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    producer
        .send(
            FutureRecord::to(topic).key(&name).payload(&definition.to_string()),
            std::time::Duration::from_secs(10),
        )
        .await
        .expect("defined");
}

/// A consumer of its own (a new group named from `group`) subscribed to `topic` on the open
/// port, from the earliest offset, committing nothing: another client reading what klens wrote.
pub(crate) fn reader_of(topic: &str, group: &str) -> rdkafka::consumer::BaseConsumer {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("group.id", unique(group))
        .set("auto.offset.reset", "earliest")
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
    consumer.subscribe(&[topic]).expect("subscribe");
    consumer
}

/// The newest value of `key` in `topic` as JSON (null when absent or a tombstone), as a
/// consumer of its own reads it within ten seconds.
pub(crate) fn last_json_of(topic: &str, key: &str) -> serde_json::Value {
    use rdkafka::Message;
    let consumer = reader_of(topic, "it-last-value");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut found = serde_json::Value::Null;
    while std::time::Instant::now() < until {
        if let Some(Ok(m)) = consumer.poll(std::time::Duration::from_millis(200)) {
            if m.key() == Some(key.as_bytes()) {
                found =
                    m.payload().and_then(|p| serde_json::from_slice(p).ok()).unwrap_or_default();
            }
        } else if !found.is_null() {
            break;
        }
    }
    found
}
