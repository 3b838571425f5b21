//! Moving records through klens, each effect seen by another client (kcat over the open port):
//! a real Kafka Connect sink's dead-letter records redriven to the topic they came from; a
//! copy to another cluster; a dry run that writes nothing; a redrive whose targets are decided
//! one by one for a scoped caller.

use std::time::Duration;

use axum::http::StatusCode;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::ClientConfig;
use serde_json::{json, Value};

use crate::support::*;

const REMOTE_PORT: &str = "127.0.0.1:28092";

/// The records of `topic` on the Kafka at `bootstrap` from `offset` of partition 0 on, as kcat
/// prints them (`-J`: key, payload, headers as a flat list of names and values).
fn kcat_records(bootstrap: &str, topic: &str, offset: i64) -> Vec<Value> {
    let out = std::process::Command::new("kcat")
        .args([
            "-b",
            bootstrap,
            "-C",
            "-t",
            topic,
            "-p",
            "0",
            "-o",
            &offset.to_string(),
            "-e",
            "-J",
            "-q",
        ])
        .output()
        .expect("kcat runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("kcat's JSON"))
        .collect()
}

/// A record's headers as kcat lists them: (name, value) pairs.
fn headers_of(record: &Value) -> Vec<(String, String)> {
    let flat: Vec<String> = record["headers"]
        .as_array()
        .map(|h| h.iter().map(|v| v.as_str().unwrap_or("").to_string()).collect())
        .unwrap_or_default();
    flat.chunks(2).map(|p| (p[0].clone(), p.get(1).cloned().unwrap_or_default())).collect()
}

/// Waits for job `id` on `cluster` to end; its last state.
async fn job_end(router: &axum::Router, cookie: Option<&str>, cluster: &str, id: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..120 {
        let path = format!("/api/copy_jobs?cluster={cluster}");
        let (code, body) = match cookie {
            Some(cookie) => get_as(router, cookie, &path).await,
            None => get_raw(router, &path).await,
        };
        assert_eq!(code, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
        let list: Value = serde_json::from_slice(&body).expect("JSON");
        last = list["jobs"]
            .as_array()
            .and_then(|jobs| jobs.iter().find(|j| j["id"] == id).cloned())
            .unwrap_or(Value::Null);
        if last["state"] != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    last
}

#[tokio::test]
async fn a_connect_dead_letter_queue_is_redriven_to_the_topic_its_headers_name() {
    let source = unique("it-redrive-src");
    let dlq = unique("it-redrive-dlq");
    create_topic(&source, 1).await;
    create_topic(&dlq, 1).await;
    // A FileStream sink that cannot read JSON from what it is given sends each such record to
    // its dead-letter queue, with Connect's context in headers.
    let connector = unique("it-dlq-sink");
    put_connector(
        CONNECT,
        &connector,
        json!({
            "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "tasks.max": "1",
            "file": format!("/tmp/{connector}.txt"),
            "topics": source,
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        }),
    )
    .await;
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    let bad: Vec<String> = (0..3).map(|i| format!("not json {{{i}")).collect();
    for (i, value) in bad.iter().enumerate() {
        let key = format!("k{i}");
        let trace = format!("t{i}");
        let record = BaseRecord::to(&source)
            .key(&key)
            .payload(value)
            .headers(OwnedHeaders::new().insert(Header { key: "trace", value: Some(&trace) }));
        producer.send(record).unwrap_or_else(|(e, _)| panic!("send: {e}"));
    }
    producer.send(BaseRecord::to(&source).key("ok").payload("{\"fine\": true}")).expect("send");
    producer.flush(Duration::from_secs(10)).expect("flush");
    let mut in_dlq = 0;
    for _ in 0..120 {
        in_dlq = watermarks(&dlq, 1)[0].1;
        if in_dlq >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(in_dlq, 3, "Connect sent the three bad records to its dead-letter queue");
    // Stopped, so that records redriven are not sent back again, and its group removed once
    // its members have left (the browser suite shares this Kafka and searches its groups).
    let _ = reqwest::Client::new()
        .delete(format!("{CONNECT}/connectors/{connector}"))
        .basic_auth("klens", Some("klens-connect-secret"))
        .send()
        .await;
    delete_group_once_empty(&format!("connect-{connector}")).await;
    let written = kcat_records(OPEN_PORT, &dlq, 0);
    assert!(headers_of(&written[0])
        .iter()
        .any(|(k, v)| k == "__connect.errors.topic" && *v == source));

    let router = router(&format!(
        "clusters:\n{}    writable: true\n",
        scram_cluster("local", "klens-secret")
    ))
    .await;
    let before = watermarks(&source, 1)[0].1;

    // The dry run: all three back to the source, Connect's headers to go; nothing written.
    let (status, planned) = post(
        &router,
        "/api/copy_records",
        json!({"cluster": "local", "topic": dlq, "dry_run": true}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{planned}");
    let plan = &planned["plan"];
    assert_eq!(plan["redrive"], true);
    assert_eq!(plan["matched"], 3, "{plan}");
    assert_eq!(
        plan["targets"],
        json!([{"cluster": "local", "topic": source, "records": 3, "placement": "kept"}])
    );
    let stripped: Vec<&str> =
        plan["stripped"].as_array().expect("stripped").iter().filter_map(Value::as_str).collect();
    assert!(stripped.contains(&"__connect.errors.topic"), "{plan}");
    assert!(stripped.contains(&"__connect.errors.exception.message"), "{plan}");
    assert_eq!(plan["sample"][0]["target_partition"], 0);
    assert_eq!(watermarks(&source, 1)[0].1, before, "a dry run writes nothing");

    // The redrive, as a job.
    let (status, started) =
        post(&router, "/api/copy_records", json!({"cluster": "local", "topic": dlq})).await;
    assert_eq!(status, StatusCode::OK, "{started}");
    let id = started["job"]["id"].as_str().expect("a job id").to_string();
    let ended = job_end(&router, None, "local", &id).await;
    assert_eq!(ended["state"], "done", "{ended}");
    assert_eq!((ended["copied"].as_u64(), ended["failed"].as_u64()), (Some(3), Some(0)), "{ended}");

    // Another client finds each record back where it came from: the same key, value and
    // headers, Connect's context gone, the lineage added.
    let back = kcat_records(OPEN_PORT, &source, before);
    assert_eq!(back.len(), 3, "{back:?}");
    for (i, record) in back.iter().enumerate() {
        assert_eq!(record["key"], format!("k{i}"));
        assert_eq!(record["payload"], bad[i]);
        let headers = headers_of(record);
        assert!(headers.iter().all(|(k, _)| !k.starts_with("__connect.errors.")), "{headers:?}");
        assert_eq!(headers[0], ("trace".to_string(), format!("t{i}")), "{headers:?}");
        let dlq_offset = written[i]["offset"].as_i64().expect("offset");
        assert_eq!(
            headers.last(),
            Some(&("klens-copied-from".to_string(), format!("local/{dlq}/0/{dlq_offset}"))),
            "{headers:?}"
        );
    }
}

/// Dead letters whose headers name a partition the target lacks: the plan says the producer
/// places them by key, and each sampled record has no target partition.
#[tokio::test]
async fn a_redrive_to_a_partition_the_target_lacks_is_planned_by_key() {
    let target = unique("it-redrive-narrow");
    let dlq = unique("it-redrive-dlq-narrow");
    create_topic(&target, 1).await;
    create_topic(&dlq, 1).await;
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    for (key, partition) in [("k0", "0"), ("k5", "5")] {
        let headers = OwnedHeaders::new()
            .insert(Header { key: "__connect.errors.topic", value: Some(target.as_str()) })
            .insert(Header { key: "__connect.errors.partition", value: Some(partition) })
            .insert(Header { key: "__connect.errors.offset", value: Some("0") });
        let record = BaseRecord::to(&dlq).key(key).payload("v").headers(headers);
        producer.send(record).unwrap_or_else(|(e, _)| panic!("send: {e}"));
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
    let router = router(&format!(
        "clusters:\n{}    writable: true\n",
        scram_cluster("local", "klens-secret")
    ))
    .await;
    let (status, planned) = post(
        &router,
        "/api/copy_records",
        json!({"cluster": "local", "topic": dlq, "dry_run": true}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{planned}");
    let plan = &planned["plan"];
    assert_eq!(
        plan["targets"],
        json!([{"cluster": "local", "topic": target, "records": 2, "placement": "by_key"}]),
        "{plan}"
    );
    let partitions: Vec<Value> = plan["sample"]
        .as_array()
        .expect("sample")
        .iter()
        .map(|s| s["target_partition"].clone())
        .collect();
    assert_eq!(partitions, [json!(0), Value::Null], "{plan}");
}

#[tokio::test]
async fn a_copy_reaches_another_cluster_and_a_scoped_redrive_decides_each_target() {
    // Three records on local, copied to a topic of the remote Kafka with their timestamps.
    let source = unique("it-copy-src");
    create_topic(&source, 1).await;
    let target = unique("it-copy-dst");
    {
        use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
        let admin: AdminClient<_> =
            ClientConfig::new().set("bootstrap.servers", REMOTE_PORT).create().expect("admin");
        admin
            .create_topics(
                &[NewTopic::new(&target, 1, TopicReplication::Fixed(1))],
                &AdminOptions::new(),
            )
            .await
            .expect("created");
    }
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    // Recent times, which retention leaves alone.
    let t0 = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
        - 60_000;
    for i in 0..3 {
        let value = format!("v{i}");
        let record = BaseRecord::to(&source).key("k").payload(&value).timestamp(t0 + i);
        producer.send(record).expect("send");
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
    let router = router(&format!(
        "clusters:\n{}    writable: true\n  - name: remote\n    bootstrap_servers: {REMOTE_PORT}\n    writable: true\n",
        scram_cluster("local", "klens-secret")
    ))
    .await;
    let copy = json!({"cluster": "local", "topic": source, "target_cluster": "remote",
                      "target_topic": target, "keep_timestamps": true, "expr": "valueText != 'v1'"});
    let (status, started) = post(&router, "/api/copy_records", copy).await;
    assert_eq!(status, StatusCode::OK, "{started}");
    let id = started["job"]["id"].as_str().expect("a job id").to_string();
    assert_eq!(started["job"]["target"], format!("remote/{target}"));
    let ended = job_end(&router, None, "local", &id).await;
    assert_eq!(ended["copied"], 2, "{ended}");
    let copied = kcat_records(REMOTE_PORT, &target, 0);
    let values: Vec<&str> = copied.iter().filter_map(|r| r["payload"].as_str()).collect();
    assert_eq!(values, ["v0", "v2"]);
    assert_eq!(copied[1]["ts"], t0 + 2, "the timestamp kept");
    // A topic into itself, and a target that does not exist, are refused before anything runs.
    let (status, refused) = post(
        &router,
        "/api/copy_records",
        json!({"cluster": "local", "topic": source, "target_topic": source}),
    )
    .await;
    assert_eq!(
        (status, refused["field"].as_str()),
        (StatusCode::BAD_REQUEST, Some("target_topic"))
    );
    let (status, _) = post(
        &router,
        "/api/copy_records",
        json!({"cluster": "local", "topic": source, "target_topic": unique("it-copy-none")}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A dead-letter topic in Spring Kafka's layout whose records name two topics; erin may
    // write to one of them only.
    let covered = unique("it-scoped");
    let dlq = format!("{covered}-dlq");
    let mine = format!("{covered}-orders");
    let theirs = unique("it-other-orders");
    for topic in [&dlq, &mine, &theirs] {
        create_topic(topic, 1).await;
    }
    for (i, origin) in [&mine, &theirs, &mine].into_iter().enumerate() {
        let headers = OwnedHeaders::new()
            .insert(Header { key: "kafka_dlt-original-topic", value: Some(origin.as_bytes()) })
            .insert(Header {
                key: "kafka_dlt-original-partition",
                value: Some(&0i32.to_be_bytes()),
            })
            .insert(Header {
                key: "kafka_dlt-original-offset",
                value: Some(&(i as i64).to_be_bytes()),
            })
            .insert(Header { key: "kafka_dlt-exception-message", value: Some("boom") });
        producer
            .send(BaseRecord::to(&dlq).key("k").payload(&format!("r{i}")).headers(headers))
            .expect("send");
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
    let yaml = format!(
        "clusters:\n{}    writable: true\n{}",
        scram_cluster("local", "klens-secret"),
        auth_block(&format!(
            "  roles:\n    movers: [records, produce]\n  bindings:\n    - groups: [payments-team]\n      role: movers\n      resources:\n        topics: [\"{covered}*\"]\n"
        )),
    );
    let scoped = crate::support::router(&yaml).await;
    let erin = sign_in(&scoped, "erin").await;
    let (status, planned) = post_as(
        &scoped,
        &erin,
        "/api/copy_records",
        json!({"cluster": "local", "topic": dlq, "dry_run": true}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{planned}");
    let targets = planned["plan"]["targets"].as_array().expect("targets").clone();
    let of = |topic: &str| targets.iter().find(|t| t["topic"] == topic).cloned().expect("listed");
    assert_eq!(of(&mine)["records"], 2);
    assert!(of(&mine).get("refused").is_none(), "{targets:?}");
    assert!(of(&theirs)["refused"].as_str().is_some_and(|r| r.contains("PRODUCE")), "{targets:?}");
    assert_eq!(planned["plan"]["skipped"][0]["records"], 1, "{planned}");
    assert_eq!(planned["plan"]["stripped"], json!(["kafka_dlt-exception-message"]));

    let (status, started) =
        post_as(&scoped, &erin, "/api/copy_records", json!({"cluster": "local", "topic": dlq}))
            .await;
    assert_eq!(status, StatusCode::OK, "{started}");
    let id = started["job"]["id"].as_str().expect("a job id").to_string();
    let ended = job_end(&scoped, Some(&erin), "local", &id).await;
    assert_eq!(
        (ended["copied"].as_u64(), ended["skipped"].as_u64()),
        (Some(2), Some(1)),
        "{ended}"
    );
    let back: Vec<Value> = kcat_records(OPEN_PORT, &mine, 0);
    let values: Vec<&str> = back.iter().filter_map(|r| r["payload"].as_str()).collect();
    assert_eq!(values, ["r0", "r2"]);
    assert!(headers_of(&back[0]).iter().all(|(k, _)| k != "kafka_dlt-exception-message"));
    assert!(headers_of(&back[0]).iter().any(|(k, _)| k == "kafka_dlt-original-topic"));
    assert_eq!(watermarks(&theirs, 1)[0].1, 0, "nothing reached the refused topic");
    // A copy straight into the refused topic is refused whole, and another's job is not hers.
    let (status, refused) = post_as(
        &scoped,
        &erin,
        "/api/copy_records",
        json!({"cluster": "local", "topic": dlq, "target_topic": theirs}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    let (status, _) = post_as(
        &scoped,
        &erin,
        "/api/cancel_copy",
        json!({"cluster": "local", "id": "copy-0000000000000000"}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_copy_keeps_to_its_rate_and_stops_when_its_owner_says() {
    let source = unique("it-copy-slow");
    let target = unique("it-copy-slow-dst");
    create_topic(&source, 1).await;
    create_topic(&target, 1).await;
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    for i in 0..100 {
        let value = format!("v{i}");
        producer.send(BaseRecord::to(&source).key("k").payload(&value)).expect("send");
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
    let yaml = format!(
        "clusters:\n{}    writable: true\n{}",
        scram_cluster("local", "klens-secret"),
        auth_block("  roles:\n    movers: [records, produce]\n    readers: [records]\n  bindings:\n    - groups: [kafka-admins]\n      role: movers\n    - groups: [payments-team]\n      role: readers\n"),
    );
    let router = crate::support::router(&yaml).await;
    let alice = sign_in(&router, "alice").await;
    let erin = sign_in(&router, "erin").await;
    // Five records a second: after about a second and a half, a handful are copied.
    let (status, started) = post_as(
        &router,
        &alice,
        "/api/copy_records",
        json!({"cluster": "local", "topic": source, "target_topic": target, "rate": 5}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{started}");
    let id = started["job"]["id"].as_str().expect("a job id").to_string();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // Another caller, who may not write where it writes, neither sees the job nor stops it.
    let (code, theirs) = get_as(&router, &erin, "/api/copy_jobs?cluster=local").await;
    assert_eq!(code, StatusCode::OK);
    let theirs: Value = serde_json::from_slice(&theirs).expect("JSON");
    assert!(theirs["jobs"].as_array().expect("jobs").iter().all(|j| j["id"] != id), "{theirs}");
    let (status, _) =
        post_as(&router, &erin, "/api/cancel_copy", json!({"cluster": "local", "id": id})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, stopping) =
        post_as(&router, &alice, "/api/cancel_copy", json!({"cluster": "local", "id": id})).await;
    assert_eq!(status, StatusCode::OK, "{stopping}");
    let ended = job_end(&router, Some(&alice), "local", &id).await;
    assert_eq!(ended["state"], "cancelled", "{ended}");
    let copied = ended["copied"].as_u64().expect("copied");
    assert!((3..=15).contains(&copied), "five a second for about a second and a half: {ended}");
    // What was copied stays copied, and nothing after the stop.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(watermarks(&target, 1)[0].1, copied as i64, "{ended}");
}

/// Two replicas of klens over one Kafka: a job alice starts on one is listed to her on the
/// other, and dave, who may write where it writes, stops it from the other; the replica running
/// it stops within a beat, and the target stops growing (as Kafka's watermarks say).
#[tokio::test]
async fn a_job_is_listed_and_stopped_from_another_replica() {
    let source = unique("it-copy-two");
    let target = unique("it-copy-two-dst");
    create_topic(&source, 1).await;
    create_topic(&target, 1).await;
    produce(&source, &[(0, 500)]);
    let yaml = format!(
        "clusters:\n{}    writable: true\n{}",
        scram_cluster("local", "klens-secret"),
        auth_block("  roles:\n    movers: [records, produce]\n  bindings:\n    - groups: [kafka-admins, kafka-operators]\n      role: movers\n"),
    );
    let one = crate::support::router(&yaml).await;
    let two = crate::support::router(&yaml).await;
    let alice_one = sign_in(&one, "alice").await;
    let (alice_two, dave_two) = (sign_in(&two, "alice").await, sign_in(&two, "dave").await);
    let (status, started) = post_as(
        &one,
        &alice_one,
        "/api/copy_records",
        json!({"cluster": "local", "topic": source, "target_topic": target, "rate": 20}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{started}");
    let id = started["job"]["id"].as_str().expect("a job id").to_string();
    let listed = |router: axum::Router, cookie: String| {
        let id = id.clone();
        async move {
            let (code, body) = get_as(&router, &cookie, "/api/copy_jobs?cluster=local").await;
            assert_eq!(code, StatusCode::OK);
            let list: Value = serde_json::from_slice(&body).expect("JSON");
            list["jobs"].as_array().and_then(|j| j.iter().find(|j| j["id"] == id).cloned())
        }
    };
    let on_two = listed(two.clone(), alice_two.clone()).await.expect("listed on the other");
    assert_eq!(on_two["state"], "running", "{on_two}");
    assert_eq!(on_two["target"], format!("local/{target}"), "{on_two}");
    // dave's own list does not show alice's job, yet he may stop it: he may write there.
    assert!(listed(two.clone(), dave_two.clone()).await.is_none());
    let (status, stopping) =
        post_as(&two, &dave_two, "/api/cancel_copy", json!({"cluster": "local", "id": id})).await;
    assert_eq!(status, StatusCode::OK, "{stopping}");
    let ended = job_end(&one, Some(&alice_one), "local", &id).await;
    assert_eq!(ended["state"], "cancelled", "{ended}");
    let copied = ended["copied"].as_u64().expect("copied");
    assert!(copied < 500, "stopped before the end: {ended}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(watermarks(&target, 1)[0].1, copied as i64, "nothing written after the stop");
    // And the other replica lists it ended, from the record the running one wrote last.
    let mut seen = Value::Null;
    for _ in 0..20 {
        seen = listed(two.clone(), alice_two.clone()).await.unwrap_or_default();
        if seen["state"] == "cancelled" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(
        (seen["state"].clone(), seen["copied"].clone()),
        (json!("cancelled"), json!(copied))
    );
}

/// A job whose replica stopped mid-way (its record left running, not written for a while, as
/// another client writes it here) is ended by the first replica that sweeps: failed, with the
/// reason and its counts, and the outcome of its attempt in the audit, under the attempt's id.
/// A second sweep, on another replica, ends nothing more.
#[tokio::test]
async fn a_job_whose_replica_stopped_is_ended_once_with_its_outcome_audited() {
    use rdkafka::producer::{FutureProducer, FutureRecord};
    let dir = std::env::temp_dir().join(unique("klens-copy-lost"));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("audit.ndjson");
    let yaml = format!(
        "clusters:\n{}    writable: true\naudit:\n  file: {}\n",
        scram_cluster("local", "klens-secret"),
        file.display()
    );
    let id = format!("copy-{:016x}", rand::random::<u64>());
    let attempt_id = format!("{:032x}", rand::random::<u128>());
    let stale = server::auth::oidc::now_ms() - 60_000;
    let record = json!({
        "job": {"id": id, "cluster": "local", "topic": "it-src", "target": "local/it-dst",
                "state": "running", "started": stale - 5_000, "total": 100, "scanned": 40,
                "copied": 30, "skipped": 0, "failed": 0, "targets": [["local/it-dst", 30]]},
        "owner": "anonymous", "on_cluster": "local", "on_topic": "it-dst",
        "holder": "gone-host pid 1 00000000", "beat": stale,
        "attempt": {"id": attempt_id, "time": stale - 5_000,
                    "who": {"kind": "anonymous", "subject": null, "name": null, "groups": [], "forwarded": false},
                    "door": "api", "cluster": "local", "privilege": "PRODUCE",
                    "resource": {"kind": "topic", "name": "it-dst"}, "summary": {}, "dry_run": false,
                    "decision": "allowed", "outcome": {"ok": true, "code": null, "message": null},
                    "phase": "attempt"}
    });
    // The topic exists once any replica wrote a job; made here for a stack where none did.
    let service = crate::support::service_of(&yaml).await;
    let producer: FutureProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    let admin: rdkafka::admin::AdminClient<rdkafka::client::DefaultClientContext> =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("admin");
    let topic = rdkafka::admin::NewTopic::new(
        server::jobs::JOBS_TOPIC,
        1,
        rdkafka::admin::TopicReplication::Fixed(1),
    )
    .set("cleanup.policy", "compact");
    let _ = admin.create_topics([&topic], &rdkafka::admin::AdminOptions::new()).await;
    let value = record.to_string();
    producer
        .send(
            FutureRecord::to(server::jobs::JOBS_TOPIC).key(&id).payload(&value),
            Duration::from_secs(10),
        )
        .await
        .expect("written");
    let ended = server::service::copy_jobs::sweep(&service).await;
    assert!(ended.contains(&id), "{ended:?}");
    let other = crate::support::service_of(&yaml).await;
    let again = server::service::copy_jobs::sweep(&other).await;
    assert!(!again.contains(&id), "ended once: {again:?}");
    // Its record, as a consumer of its own reads it: failed, with its counts and the reason.
    let kept = last_json_of(server::jobs::JOBS_TOPIC, &id);
    assert_eq!(kept["job"]["state"], "failed", "{kept}");
    assert_eq!(kept["job"]["copied"], 30, "{kept}");
    assert!(kept["job"]["error"].as_str().is_some_and(|e| e.contains("gone-host")), "{kept}");
    // The audit holds the outcome of the attempt, under its id.
    let text = std::fs::read_to_string(&file).expect("the audit file");
    let outcome: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["id"] == attempt_id)
        .unwrap_or_else(|| panic!("no outcome for the attempt: {text}"));
    assert_eq!(
        (outcome["phase"].clone(), outcome["outcome"]["ok"].clone()),
        (json!("outcome"), json!(false))
    );
    assert_eq!(outcome["summary"]["copied"], 30, "{outcome}");
    let _ = std::fs::remove_dir_all(&dir);
}
