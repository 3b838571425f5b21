//! Kafka Connect reads against the dev stack's real Connect workers: connectors made through
//! Connect's own REST API are listed and described by klens, secrets masked, each shown only to
//! a caller whose scope covers every topic it uses; a worker behind basic auth takes klens's
//! credentials.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::*;

const CONNECT_AUTH: &str = "http://127.0.0.1:18084";

/// Connect's own word on a connector's status.
pub(crate) async fn status(name: &str) -> Value {
    connect_get(&format!("connectors/{name}/status")).await
}

/// Connect's own answer at `path`, its status and JSON (`null` when none), asked again while its
/// workers rebalance (409, or 500 "a rebalance is expected") for up to ten seconds.
async fn connect_answer(path: &str) -> (u16, Value) {
    let mut last = (0, Value::Null);
    for _ in 0..40 {
        let answer = reqwest::get(format!("{CONNECT}/{path}")).await.expect("Connect answers");
        let code = answer.status().as_u16();
        last = (code, answer.json().await.unwrap_or(Value::Null));
        if code != 409 && code < 500 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    last
}

/// Connect's own JSON answer at `path` ([`connect_answer`]).
pub(crate) async fn connect_get(path: &str) -> Value {
    connect_answer(path).await.1
}

/// The HTTP status of Connect's answer at `path` ([`connect_answer`]).
pub(crate) async fn connect_status(path: &str) -> u16 {
    connect_answer(path).await.0
}

/// klens's dev connectors (dev/connect/plugin), the classes tests create through klens.
pub(crate) const LINES_SOURCE: &str = "dev.klens.connect.LinesSourceConnector";
pub(crate) const DISCARD_SINK: &str = "dev.klens.connect.DiscardSinkConnector";
/// A Connect cluster's allow-list for them, under its `url:` line.
pub(crate) const ALLOW_DEV: &str = "        allow:\n          classes: [\"dev.klens.connect.*\"]\n";

/// A sink of the dev connectors on `topics`, with a secret among its config.
pub(crate) fn discard_sink(topics: &str) -> Value {
    json!({
        "connector.class": DISCARD_SINK,
        "tasks.max": "1",
        "topics": topics,
        "connection.url": "jdbc:postgresql://db.example:5432/orders",
        "connection.password": "hunter2-not-shown",
    })
}

pub(crate) fn sink(file: &str, topics: &str) -> Value {
    json!({
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "tasks.max": "1",
        "file": file,
        "topics": topics,
        "connection.password": "hunter2-not-shown",
    })
}

fn cluster_yaml(connect: &str) -> String {
    format!("clusters:\n{}    connect:\n{connect}", scram_cluster("local", "klens-secret"))
}

fn names(list: &Value) -> Vec<String> {
    list["connects"][0]["connectors"]
        .as_array()
        .map(|cs| cs.iter().map(|c| c["name"].as_str().unwrap_or_default().to_string()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn connectors_are_listed_and_described_with_secrets_masked_and_failures_explained() {
    let prefix = unique("it-conn");
    let (covered, hidden) = (format!("{prefix}-a"), format!("{prefix}-b"));
    create_topic(&covered, 1).await;
    create_topic(&hidden, 1).await;
    let dir = std::env::temp_dir();
    let good = format!("{prefix}-sink");
    let failing = format!("{prefix}-failing");
    put_connector(CONNECT, &good, sink(&dir.join(&good).to_string_lossy(), &covered)).await;
    put_connector(CONNECT, &failing, sink("/proc/forbidden/x", &hidden)).await;
    // Connect starts the failing task a moment after it takes the config.
    for _ in 0..60 {
        if status(&failing).await["tasks"][0]["state"] == "FAILED" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    let yaml = cluster_yaml("      - name: dev\n        url: http://127.0.0.1:18083\n");
    let (router, catalog) = router_and_catalog(&yaml).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;

    let (code, list) = get_json(&router, "/api/connectors?cluster=local").await;
    assert_eq!(code, 200, "{list}");
    assert_eq!(list["connects"][0]["name"], "dev");
    assert!(list["connects"][0]["error"].is_null(), "{list}");
    let listed = names(&list);
    assert!(listed.contains(&good) && listed.contains(&failing), "{listed:?}");

    // The failed task carries the first Caused by: line, as Connect's own status names it.
    let (code, detail) =
        get_json(&router, &format!("/api/connector?cluster=local&connect=dev&name={failing}"))
            .await;
    assert_eq!(code, 200, "{detail}");
    let connect_says = status(&failing).await;
    assert_eq!(connect_says["tasks"][0]["state"], "FAILED", "{connect_says}");
    let task = &detail["connector"]["tasks"][0];
    assert_eq!(task["state"], "FAILED", "{detail}");
    assert!(task["cause"].as_str().unwrap_or_default().contains("NoSuchFileException"), "{task}");
    assert_eq!(detail["connector"]["topics"], json!([hidden]));
    assert_eq!(detail["group"], format!("connect-{failing}"));

    // The secret never leaves klens: masked in the detail, absent from every answer's bytes.
    let path = format!("/api/connector?cluster=local&connect=dev&name={good}");
    let (code, raw) = get_raw(&router, &path).await;
    assert_eq!(code, 200);
    let text = String::from_utf8_lossy(&raw);
    assert!(!text.contains("hunter2"), "{text}");
    let detail: Value = serde_json::from_slice(&raw).expect("JSON");
    let password = detail["config"]
        .as_array()
        .and_then(|c| c.iter().find(|v| v["name"] == "connection.password"))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(
        password,
        json!({"name": "connection.password", "value": "********", "masked": true})
    );
    let (_, raw_list) = get_raw(&router, "/api/connectors?cluster=local").await;
    assert!(!String::from_utf8_lossy(&raw_list).contains("hunter2"));

    // A connector that does not exist, and a Connect cluster that does not exist.
    let (code, _) =
        get_json(&router, "/api/connector?cluster=local&connect=dev&name=it-no-such-connector")
            .await;
    assert_eq!(code, 404);
    let (code, _) =
        get_json(&router, &format!("/api/connector?cluster=local&connect=nope&name={good}")).await;
    assert_eq!(code, 404);

    delete_connector(CONNECT, &good).await;
    delete_connector(CONNECT, &failing).await;
}

/// Two sinks, one on a topic `covered` starts and one on another, and a writable cluster
/// whose payments-team (erin) holds `privileges` scoped to `covered*` topics; bob a viewer.
/// Answers (the sink erin's scope covers, the other, the config).
pub(crate) async fn two_sinks_and_a_scope(
    covered: &str, other: &str, privileges: &str,
) -> (String, String, String) {
    let (mine, theirs) = (format!("{covered}-t"), unique(other));
    create_topic(&mine, 1).await;
    create_topic(&theirs, 1).await;
    let dir = std::env::temp_dir();
    let (a, b) = (format!("{covered}-sink"), format!("{theirs}-sink"));
    put_connector(CONNECT, &a, sink(&dir.join(&a).to_string_lossy(), &mine)).await;
    put_connector(CONNECT, &b, sink(&dir.join(&b).to_string_lossy(), &theirs)).await;
    // Connect has a status for each a moment after it takes the config.
    until_state(&a, "RUNNING").await;
    until_state(&b, "RUNNING").await;
    let yaml = format!(
        "clusters:\n{}    writable: true\n    connect:\n      - name: dev\n        url: {CONNECT}\n{ALLOW_DEV}{}",
        scram_cluster("local", "klens-secret"),
        auth_block(&format!(
            "  roles:\n    conn: [{privileges}]\n    viewer: [records]\n  bindings:\n    - groups: [payments-team]\n      role: conn\n      resources:\n        topics: [\"{covered}*\"]\n    - groups: [kafka-viewers]\n      role: viewer\n"
        )),
    );
    (a, b, yaml)
}

/// erin's scope covers the topics `covered` starts: she sees the sink on them only, the other
/// answers exactly as a connector that does not exist; bob, without CONNECTORS, is refused.
#[tokio::test]
async fn a_scope_shows_only_the_connectors_whose_topics_it_covers() {
    let covered = unique("it-cscope");
    let (a, b, yaml) = two_sinks_and_a_scope(&covered, "it-cother", "connectors").await;
    let (router, catalog) = router_and_catalog(&yaml).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;

    let erin = sign_in(&router, "erin").await;
    let (code, raw) = get_as(&router, &erin, "/api/connectors?cluster=local").await;
    assert_eq!(code, 200);
    let list: Value = serde_json::from_slice(&raw).expect("JSON");
    assert_eq!(names(&list), vec![a.clone()], "{list}");
    let hidden = format!("/api/connector?cluster=local&connect=dev&name={b}");
    let absent = "/api/connector?cluster=local&connect=dev&name=it-cother-absent".to_string();
    let (code_h, body_h) = get_as(&router, &erin, &hidden).await;
    let (code_a, body_a) = get_as(&router, &erin, &absent).await;
    assert_eq!((code_h.as_u16(), code_a.as_u16()), (404, 404));
    let message = |b: &[u8]| serde_json::from_slice::<Value>(b).expect("JSON")["code"].clone();
    assert_eq!(message(&body_h), message(&body_a));

    let bob = sign_in(&router, "bob").await;
    let (code, raw) = get_as(&router, &bob, "/api/connectors?cluster=local").await;
    assert_eq!(code, 403, "{}", String::from_utf8_lossy(&raw));
    let refusal: Value = serde_json::from_slice(&raw).expect("JSON");
    assert_eq!(refusal["privilege"], "CONNECTORS");

    delete_connector(CONNECT, &a).await;
    delete_connector(CONNECT, &b).await;
}

/// The worker behind basic auth answers klens with its credentials, and says so without them.
#[tokio::test]
async fn a_worker_behind_basic_auth_takes_klens_credentials() {
    let name = unique("it-cauth");
    create_topic(&name, 1).await;
    let file = std::env::temp_dir().join(&name);
    put_connector(CONNECT_AUTH, &name, sink(&file.to_string_lossy(), &name)).await;
    let yaml = cluster_yaml(&format!(
        "      - name: signed\n        url: {CONNECT_AUTH}\n        username: klens\n        password: klens-connect-secret\n      - name: anonymous\n        url: {CONNECT_AUTH}\n"
    ));
    let (router, catalog) = router_and_catalog(&yaml).await;
    let entry = catalog.get("local").expect("local");
    entry.refresh_connect("signed").await;
    entry.refresh_connect("anonymous").await;
    let (code, list) = get_json(&router, "/api/connectors?cluster=local").await;
    assert_eq!(code, 200, "{list}");
    let signed = &list["connects"][0];
    assert!(signed["error"].is_null(), "{signed}");
    assert!(names(&list).contains(&name), "{list}");
    let anonymous = &list["connects"][1];
    assert!(
        anonymous["error"].as_str().unwrap_or_default().contains("refused klens's credentials"),
        "{anonymous}"
    );
    delete_connector(CONNECT_AUTH, &name).await;
}

/// Waits until Connect itself says `name`'s connector is in `state`; the last status.
pub(crate) async fn until_state(name: &str, state: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..60 {
        last = status(name).await;
        if last["connector"]["state"] == state {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    last
}

/// Pause, resume, stop, restart (only the failed tasks), restart one task and delete, each
/// seen by Connect's own REST API; a read-only cluster and a caller without the privilege are
/// refused before anything reaches Connect.
#[tokio::test]
async fn connector_changes_reach_connect_and_are_refused_where_they_should_be() {
    let name = unique("it-cchange");
    create_topic(&name, 1).await;
    let file = std::env::temp_dir().join(&name);
    put_connector(CONNECT, &name, sink(&file.to_string_lossy(), &name)).await;
    until_state(&name, "RUNNING").await;
    let failing = format!("{name}-failing");
    put_connector(CONNECT, &failing, sink("/proc/forbidden/x", &name)).await;

    let connect = "    connect:\n      - name: dev\n        url: http://127.0.0.1:18083\n";
    let yaml = format!(
        "clusters:\n{}    writable: true\n{connect}{}{connect}",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("ro", "klens-secret")
    );
    let (router, catalog) = router_and_catalog(&yaml).await;
    for cluster in ["rw", "ro"] {
        catalog.get(cluster).expect("cluster").refresh_connect("dev").await;
    }
    let args = |cluster: &str, extra: Value| {
        let mut body = json!({"cluster": cluster, "connect": "dev", "name": name});
        if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
            b.extend(e.clone());
        }
        body
    };

    // The read-only cluster refuses before anything else, the connector untouched.
    let (code, answer) = post(&router, "/api/pause_connector", args("ro", json!({}))).await;
    assert_eq!(code, 403, "{answer}");
    assert_eq!(answer["code"], "READ_ONLY_CLUSTER");
    assert_eq!(status(&name).await["connector"]["state"], "RUNNING");

    let (code, answer) = post(&router, "/api/pause_connector", args("rw", json!({}))).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(until_state(&name, "PAUSED").await["connector"]["state"], "PAUSED");
    let (code, answer) = post(&router, "/api/resume_connector", args("rw", json!({}))).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(until_state(&name, "RUNNING").await["connector"]["state"], "RUNNING");
    let (code, answer) = post(&router, "/api/stop_connector", args("rw", json!({}))).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(until_state(&name, "STOPPED").await["connector"]["state"], "STOPPED");
    let (code, _) = post(&router, "/api/resume_connector", args("rw", json!({}))).await;
    assert_eq!(code, 200);
    until_state(&name, "RUNNING").await;

    // Restarting only what failed: the failing sink's task is restarted (and fails again).
    for _ in 0..60 {
        if status(&failing).await["tasks"][0]["state"] == "FAILED" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    catalog.get("rw").expect("rw").refresh_connect("dev").await;
    let body = json!({"cluster": "rw", "connect": "dev", "name": failing, "include_tasks": true, "only_failed": true});
    let (code, answer) = post(&router, "/api/restart_connector", body).await;
    assert_eq!(code, 200, "{answer}");
    let (code, answer) = post(&router, "/api/restart_task", args("rw", json!({"task": 0}))).await;
    assert_eq!(code, 200, "{answer}");
    let (code, answer) = post(&router, "/api/restart_task", args("rw", json!({"task": 7}))).await;
    assert_eq!(code, 404, "{answer}");

    // Deleted: Connect no longer knows it, and klens's list says the same at once.
    let (code, answer) = post(&router, "/api/delete_connector", args("rw", json!({}))).await;
    assert_eq!(code, 200, "{answer}");
    assert!(answer["state"].is_null(), "{answer}");
    assert_eq!(connect_status(&format!("connectors/{name}")).await, 404);
    let (_, list) = get_json(&router, "/api/connectors?cluster=rw").await;
    assert!(!names(&list).contains(&name), "{list}");
    delete_connector(CONNECT, &failing).await;
}

/// erin holds MANAGE_CONNECTORS on the topics `covered` starts: a connector on another topic
/// answers her change as a missing one, and bob, who holds nothing, is refused by privilege.
#[tokio::test]
async fn a_scoped_manager_changes_only_the_connectors_her_scope_covers() {
    let covered = unique("it-cmanage");
    let (a, b, yaml) =
        two_sinks_and_a_scope(&covered, "it-cforeign", "connectors, manage_connectors").await;
    let (router, catalog) = router_and_catalog(&yaml).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let erin = sign_in(&router, "erin").await;
    let body = |name: &str| json!({"cluster": "local", "connect": "dev", "name": name});
    let (code, raw) = post_as(&router, &erin, "/api/pause_connector", body(&b)).await;
    assert_eq!(code, 404, "{raw}");
    assert_eq!(status(&b).await["connector"]["state"], "RUNNING");
    let (code, raw) = post_as(&router, &erin, "/api/pause_connector", body(&a)).await;
    assert_eq!(code, 200, "{raw}");
    assert_eq!(until_state(&a, "PAUSED").await["connector"]["state"], "PAUSED");

    let bob = sign_in(&router, "bob").await;
    let (code, raw) = post_as(&router, &bob, "/api/delete_connector", body(&a)).await;
    assert_eq!(code, 403, "{raw}");
    assert_eq!(raw["privilege"], "MANAGE_CONNECTORS");
    assert_eq!(status(&a).await["connector"]["state"], "PAUSED");

    delete_connector(CONNECT, &a).await;
    delete_connector(CONNECT, &b).await;
}

/// Connect's stored config of `name`, read through its own REST API.
async fn stored_config(name: &str) -> Value {
    connect_get(&format!("connectors/{name}/config")).await
}

/// A source created through klens after Connect validates it writes records another client
/// reads; a sink's edit that sends its masked secret back keeps the stored one.
#[tokio::test]
async fn a_connector_is_created_after_validation_and_an_edit_keeps_its_secret() {
    let name = unique("it-ccreate");
    create_topic(&name, 1).await;
    let yaml = cluster_yaml(&format!(
        "      - name: dev\n        url: http://127.0.0.1:18083\n{ALLOW_DEV}"
    ))
    .replace("    connect:", "    writable: true\n    connect:");
    let (router, catalog) = router_and_catalog(&yaml).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let source = json!({
        "connector.class": LINES_SOURCE,
        "tasks.max": "1",
        "lines": "one,two,three",
        "topic": name,
    });
    let body = |config: &Value, dry_run: bool| json!({"cluster": "local", "connect": "dev", "name": name, "config": config, "dry_run": dry_run});

    // Connect's own verdict on a bad value, and nothing created by a dry run.
    let mut bad = source.clone();
    bad["tasks.max"] = json!("many");
    let (code, answer) = post(&router, "/api/create_connector", body(&bad, true)).await;
    assert_eq!(code, 200, "{answer}");
    assert!(answer["error_count"].as_u64() > Some(0), "{answer}");
    assert_eq!(answer["verdicts"][0]["name"], "tasks.max", "{answer}");
    let (code, answer) = post(&router, "/api/create_connector", body(&source, true)).await;
    assert_eq!((code.as_u16(), answer["error_count"].as_u64()), (200, Some(0)), "{answer}");
    assert!(stored_config(&name).await.get("connector.class").is_none());
    let (code, answer) = post(&router, "/api/create_connector", body(&bad, false)).await;
    assert_eq!(code, 400, "{answer}");

    let (code, answer) = post(&router, "/api/create_connector", body(&source, false)).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["applied"], true);
    // The records arrive where another client reads them.
    let mut high = 0;
    for _ in 0..60 {
        high = watermarks(&name, 1)[0].1;
        if high >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(high, 3);

    // An edit sending the masked secret back keeps the stored secret and changes the rest.
    let sink_name = format!("{name}-sink");
    let sink_config = discard_sink(&name);
    let sink_body = |config: &Value| json!({"cluster": "local", "connect": "dev", "name": sink_name, "config": config});
    let (code, answer) = post(&router, "/api/create_connector", sink_body(&sink_config)).await;
    assert_eq!(code, 200, "{answer}");
    let mut edited = sink_config.clone();
    edited["connection.password"] = json!("********");
    edited["tasks.max"] = json!("2");
    let (code, answer) = post(&router, "/api/update_connector", sink_body(&edited)).await;
    assert_eq!(code, 200, "{answer}");
    let stored = stored_config(&sink_name).await;
    assert_eq!(stored["connection.password"], "hunter2-not-shown", "{stored}");
    assert_eq!(stored["tasks.max"], "2", "{stored}");

    // MirrorMaker's connectors belong to replications, in every spelling.
    for class in ["org.apache.kafka.connect.mirror.MirrorSourceConnector", "MirrorSource"] {
        let mirror = json!({"connector.class": class, "topics": name});
        let (code, answer) = post(&router, "/api/create_connector", body(&mirror, true)).await;
        assert_eq!(code, 400, "{answer}");
        assert!(
            answer["message"].as_str().is_some_and(|m| m.starts_with("connector.class:")),
            "{answer}"
        );
    }
    delete_connector(CONNECT, &name).await;
    delete_connector(CONNECT, &sink_name).await;
}

/// erin may create connectors on the topics her scope covers: a source writing elsewhere is
/// refused for PRODUCE on that topic and never reaches Connect.
#[tokio::test]
async fn a_scoped_caller_creates_only_connectors_on_her_topics() {
    let covered = unique("it-ccscope");
    let (a, b, yaml) = two_sinks_and_a_scope(
        &covered,
        "it-ccother",
        "connectors, manage_connectors, produce, records",
    )
    .await;
    let (router, catalog) = router_and_catalog(&yaml).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let erin = sign_in(&router, "erin").await;
    let source = |topic: &str| json!({"connector.class": LINES_SOURCE, "topic": topic});
    let name = format!("{covered}-src");
    let elsewhere = unique("it-ccforeign");
    let body =
        json!({"cluster": "local", "connect": "dev", "name": name, "config": source(&elsewhere)});
    let (code, answer) = post_as(&router, &erin, "/api/create_connector", body).await;
    assert_eq!(code, 403, "{answer}");
    assert_eq!(answer["privilege"], "PRODUCE");
    assert!(stored_config(&name).await.get("connector.class").is_none());
    let mine = format!("{covered}-t");
    let body = json!({"cluster": "local", "connect": "dev", "name": name, "config": source(&mine)});
    let (code, answer) = post_as(&router, &erin, "/api/create_connector", body).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(stored_config(&name).await["topic"], mine);
    for connector in [&name, &a, &b] {
        delete_connector(CONNECT, connector).await;
    }
}

/// Two replicas of klens: one deletes a connector while the other edits it, at the same moment.
/// Whichever goes first, the edit never makes the deleted connector again (Connect's config PUT
/// would create it): the connector is gone, as Connect's own API says.
#[tokio::test]
async fn an_edit_on_one_replica_never_brings_back_a_connector_another_deleted() {
    let topic = unique("it-crace");
    create_topic(&topic, 1).await;
    let name = format!("{topic}-sink");
    let yaml = format!(
        "clusters:\n{}    writable: true\n    connect:\n      - name: dev\n        url: {CONNECT}\n{ALLOW_DEV}",
        scram_cluster("local", "klens-secret")
    );
    let (one, first) = router_and_catalog(&yaml).await;
    let (two, second) = router_and_catalog(&yaml).await;
    let body = |config: &Value| json!({"cluster": "local", "connect": "dev", "name": name, "config": config});
    let config = discard_sink(&topic);
    let (code, made) = post(&one, "/api/create_connector", body(&config)).await;
    assert_eq!(code, 200, "{made}");
    for catalog in [&first, &second] {
        catalog.get("local").expect("local").refresh_connect("dev").await;
    }
    let mut edited = config.clone();
    edited["connection.password"] = json!("********");
    edited["tasks.max"] = json!("2");
    let gone = json!({"cluster": "local", "connect": "dev", "name": name});
    let ((d, deleted), (u, updated)) = tokio::join!(
        post(&one, "/api/delete_connector", gone),
        post(&two, "/api/update_connector", body(&edited))
    );
    assert_eq!(d, 200, "{deleted}");
    assert!(matches!(u.as_u16(), 200 | 404), "{updated}");
    // A moment for Connect to settle whatever was sent last.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(connect_status(&format!("connectors/{name}")).await, 404, "{updated}");
}
