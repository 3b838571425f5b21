//! SQL processors through klens, against the dev stack's Kafka and Flink: a processor that
//! filters and reshapes real JSON records, its output read back by a consumer of its own; its
//! job seen by Flink's REST API; stopped with a savepoint and resumed with no record lost or
//! doubled; scaled; deleted; resumed after Flink lost its job. And the refusals: each missing
//! grant answered before any job reaches Flink, a topic the caller may not read answered
//! exactly as one that does not exist, and a statement error with its line and column.

use std::collections::BTreeMap;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::ClientConfig;
use serde_json::{json, Value};

use crate::support::*;

/// dev/stack's Flink: the JobManager's REST API and the SQL Gateway.
const FLINK_REST: &str = "http://127.0.0.1:18086";
const FLINK_GATEWAY: &str = "http://127.0.0.1:18087";

fn yaml(rest: &str) -> String {
    format!(
        "clusters:\n  - name: local\n    bootstrap_servers: {OPEN_PORT}\n    writable: true\n    flink:\n      sql_gateway: {FLINK_GATEWAY}\n      rest: {FLINK_REST}\n      properties:\n        bootstrap.servers: {OPEN_PORT}\n{rest}"
    )
}

/// Orders as JSON: `id`, `total` (ten times the id), a nested `ship.city`; keyed by id.
fn produce_orders(topic: &str, ids: std::ops::Range<i64>) {
    produce_orders_with(topic, ids, None);
}

/// Orders as [`produce_orders`] writes them, with a field `extra` more when given.
fn produce_orders_with(topic: &str, ids: std::ops::Range<i64>, extra: Option<Value>) {
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    for id in ids {
        let mut value = json!({"id": id, "total": (id * 10) as f64, "ship": {"city": format!("city-{}", id % 3)}, "tags": ["a"]});
        if let Some(extra) = &extra {
            value["extra"] = extra.clone();
        }
        let value = value.to_string();
        let key = format!("k{id}");
        producer
            .send(BaseRecord::to(topic).key(&key).payload(&value))
            .unwrap_or_else(|(e, _)| panic!("send: {e}"));
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
}

/// The newest definition of processor `name` in the definitions topic, as a consumer of its
/// own reads it.
fn definition(name: &str) -> Value {
    last_json_of(server::processor::DEFINITIONS_TOPIC, name)
}

/// Every value of `topic` a consumer of its own reads, as JSON, until `count` or `wait`.
fn read_json(topic: &str, count: usize, wait: Duration) -> Vec<Value> {
    let consumer = reader_of(topic, "it-proc-reader");
    let deadline = std::time::Instant::now() + wait;
    let mut values = Vec::new();
    while values.len() < count && std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            if let Some(v) = m.payload().and_then(|p| serde_json::from_slice(p).ok()) {
                values.push(v);
            }
        }
    }
    // A moment more: anything beyond `count` would be a doubled record.
    let until = std::time::Instant::now() + Duration::from_secs(2);
    while std::time::Instant::now() < until {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            if let Some(v) = m.payload().and_then(|p| serde_json::from_slice(p).ok()) {
                values.push(v);
            }
        }
    }
    values
}

async fn flink_get(path: &str) -> Value {
    reqwest::get(format!("{FLINK_REST}/{path}"))
        .await
        .expect("Flink answers")
        .json()
        .await
        .expect("JSON")
}

/// The jobs Flink knows under a processor's job name or its previews', with their states.
async fn jobs_named(processor: &str) -> Vec<(String, String)> {
    let overview = flink_get("jobs/overview").await;
    let names = [format!("klens-processor-{processor}"), format!("klens-preview-{processor}")];
    overview["jobs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|j| names.iter().any(|n| j["name"] == n.as_str()))
        .map(|j| {
            (
                j["jid"].as_str().unwrap_or_default().to_string(),
                j["state"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

async fn job_state(id: &str) -> String {
    flink_get(&format!("jobs/{id}")).await["state"].as_str().unwrap_or_default().to_string()
}

async fn wait_for_state(id: &str, states: &[&str]) -> String {
    let mut state = String::new();
    for _ in 0..100 {
        state = job_state(id).await;
        if states.contains(&state.as_str()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    state
}

/// The ids of the output's records, each with how often it came.
fn counted(values: &[Value]) -> BTreeMap<i64, usize> {
    let mut ids = BTreeMap::new();
    for v in values {
        *ids.entry(v["id"].as_i64().unwrap_or(-1)).or_default() += 1;
    }
    ids
}

#[tokio::test]
async fn a_processor_filters_records_and_keeps_them_through_stop_resume_and_scale() {
    let input = unique("it-proc-in");
    let output = unique("it-proc-out");
    let name = unique("it-proc").replace('_', "-");
    create_topic(&input, 2).await;
    create_topic(&output, 1).await;
    produce_orders(&input, 0..20);
    let dir = std::env::temp_dir().join(unique("klens-proc-audit"));
    std::fs::create_dir_all(&dir).expect("dir");
    let audit = dir.join("audit.ndjson");
    let (router, catalog) =
        router_and_catalog(&yaml(&format!("audit:\n  file: {}\n", audit.display()))).await;
    let local = catalog.get("local").expect("local");
    refresh_until(local, |e| e.topic_metadata(&output).ok().flatten().is_some()).await;
    let sql = format!(
        "INSERT INTO `{output}`\nSELECT id, total, ship.city AS city\nFROM `{input}` WHERE total >= 100"
    );
    let body =
        |dry_run: bool| json!({"cluster": "local", "name": name, "sql": sql, "dry_run": dry_run});

    // The preview: Flink's plan, what it reads and writes, the first rows; no job stays.
    let (code, preview) = post(&router, "/api/create_processor", body(true)).await;
    assert_eq!(code, 200, "{preview}");
    assert_eq!(preview["reads"], json!([input]), "{preview}");
    assert_eq!(preview["writes"], json!(output), "{preview}");
    assert_eq!(preview["columns"], json!(["id", "total", "city"]), "{preview}");
    let rows = preview["rows"].as_array().expect("rows");
    assert!(!rows.is_empty() && rows.len() <= 20, "{preview}");
    assert!(rows.iter().all(|r| r[1].as_f64().is_some_and(|t| t >= 100.0)), "{preview}");
    assert!(preview["plan"].as_str().is_some_and(|p| p.contains("LogicalFilter")), "{preview}");
    assert!(read_json(&output, 1, Duration::from_secs(1)).is_empty(), "a preview wrote records");

    // Created: ten orders of the twenty pass, reshaped, as a consumer of its own reads them.
    let (code, created) = post(&router, "/api/create_processor", body(false)).await;
    assert_eq!(code, 200, "{created}");
    let job = created["job"].as_str().expect("a job").to_string();
    assert_eq!(wait_for_state(&job, &["RUNNING"]).await, "RUNNING");
    let first = read_json(&output, 10, Duration::from_secs(60));
    assert_eq!(counted(&first), (10..20).map(|i| (i, 1)).collect(), "{first:?}");
    assert!(first.contains(&json!({"id": 10, "total": 100.0, "city": "city-1"})), "{first:?}");
    let (code, listed) = get_json(&router, "/api/processors?cluster=local").await;
    assert_eq!(code, 200);
    let mine = listed["processors"].as_array().into_iter().flatten().find(|p| p["name"] == name);
    assert_eq!(mine.map(|p| p["state"].clone()), Some(json!("RUNNING")), "{listed}");
    // Its running job's throughput, by Flink's meters.
    let (_, detail) = get_json(&router, &format!("/api/processor?cluster=local&name={name}")).await;
    assert!(detail["processor"]["read_per_second"].as_f64().is_some_and(|r| r >= 0.0), "{detail}");
    assert!(detail["plan"].as_str().is_some_and(|p| p.contains("LogicalFilter")), "{detail}");
    // What the definitions topic keeps, as another consumer reads it: the columns the preview
    // showed, which every start declares again.
    let kept = definition(&name);
    let shown: Vec<Value> =
        preview["tables"][0]["columns"].as_array().expect("tables")[..4].to_vec();
    assert_eq!(
        json!([
            ["id", "BIGINT"],
            ["total", "DOUBLE"],
            ["ship", "ROW<`city` STRING>"],
            ["tags", "ARRAY<STRING>"]
        ]),
        json!(shown),
        "{preview}"
    );
    assert_eq!(kept["columns"][&input], json!(shown), "{kept}");

    // Stopped with a savepoint: Flink finishes the job; records written meanwhile wait.
    let (code, stopped) =
        post(&router, "/api/stop_processor", json!({"cluster": "local", "name": name})).await;
    assert_eq!(code, 200, "{stopped}");
    let savepoint = stopped["savepoint"].as_str().expect("a savepoint").to_string();
    assert!(savepoint.contains("savepoint"), "{savepoint}");
    assert_eq!(wait_for_state(&job, &["FINISHED"]).await, "FINISHED");
    let (_, detail) = get_json(&router, &format!("/api/processor?cluster=local&name={name}")).await;
    assert_eq!(
        (detail["processor"]["state"].as_str(), detail["savepoint"].as_str()),
        (Some("STOPPED"), Some(savepoint.as_str())),
        "{detail}"
    );
    // Written meanwhile with a field the author never saw: the resumed job declares the kept
    // columns, and reads these orders as it read the others.
    produce_orders_with(&input, 20..30, Some(json!({"deep": true})));

    // Resumed from the savepoint: the new orders come once, none of the first again.
    let (code, resumed) =
        post(&router, "/api/resume_processor", json!({"cluster": "local", "name": name})).await;
    assert_eq!(code, 200, "{resumed}");
    let second_job = resumed["job"].as_str().expect("a job").to_string();
    assert_ne!(second_job, job);
    let all = read_json(&output, 20, Duration::from_secs(60));
    assert_eq!(counted(&all), (10..30).map(|i| (i, 1)).collect(), "lost or doubled: {all:?}");

    // Scaled to two: a job of parallelism 2 from the next savepoint.
    let (code, scaled) = post(
        &router,
        "/api/scale_processor",
        json!({"cluster": "local", "name": name, "parallelism": 2}),
    )
    .await;
    assert_eq!(code, 200, "{scaled}");
    let third_job = scaled["job"].as_str().expect("a job").to_string();
    assert_eq!(wait_for_state(&third_job, &["RUNNING"]).await, "RUNNING");
    let vertices = flink_get(&format!("jobs/{third_job}")).await;
    let parallelism: Vec<i64> = vertices["vertices"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["parallelism"].as_i64())
        .collect();
    assert!(parallelism.contains(&2), "{vertices}");

    // Deleted: its job cancelled, the processor gone from the list.
    let (code, deleted) =
        post(&router, "/api/delete_processor", json!({"cluster": "local", "name": name})).await;
    assert_eq!(code, 200, "{deleted}");
    assert_eq!(wait_for_state(&third_job, &["CANCELED"]).await, "CANCELED");
    let (_, listed) = get_json(&router, "/api/processors?cluster=local").await;
    assert!(!listed.to_string().contains(&name), "{listed}");

    // Every change, the preview too, was recorded before Flink saw it and after, under
    // MANAGE_SQL_PROCESSORS on the processor.
    let events: Vec<Value> = std::fs::read_to_string(&audit)
        .expect("the audit file")
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let recorded: Vec<(String, String, bool)> = events
        .iter()
        .map(|e| {
            assert_eq!(e["privilege"], "MANAGE_SQL_PROCESSORS", "{e}");
            let resource = (e["resource"]["kind"].as_str(), e["resource"]["name"].as_str());
            assert_eq!(resource, (Some("processor"), Some(name.as_str())), "{e}");
            let phase = e["phase"].as_str().unwrap_or_default().to_string();
            let decision = e["decision"].as_str().unwrap_or_default().to_string();
            (phase, decision, e["dry_run"].as_bool().unwrap_or_default())
        })
        .collect();
    let phases: Vec<&str> = recorded.iter().map(|(p, ..)| p.as_str()).collect();
    assert_eq!(phases, ["attempt", "outcome"].repeat(6), "{events:?}");
    assert!(recorded.iter().all(|(_, decision, _)| decision == "allowed"), "{recorded:?}");
    assert_eq!(recorded.iter().filter(|(_, _, dry)| *dry).count(), 2, "{recorded:?}");
}

#[tokio::test]
async fn a_processor_whose_job_flink_no_longer_runs_is_resumed_from_its_groups_offsets() {
    let input = unique("it-lost-in");
    let output = unique("it-lost-out");
    let name = unique("it-lost").replace('_', "-");
    create_topic(&input, 1).await;
    create_topic(&output, 1).await;
    produce_orders(&input, 0..20);
    let (router, catalog) = router_and_catalog(&yaml("")).await;
    let local = catalog.get("local").expect("local");
    refresh_until(local, |e| e.topic_metadata(&output).ok().flatten().is_some()).await;
    let sql = format!("INSERT INTO `{output}` SELECT id, total FROM `{input}` WHERE total >= 100");
    let one = json!({"cluster": "local", "name": name});
    let (code, created) = post(
        &router,
        "/api/create_processor",
        json!({"cluster": "local", "name": name, "sql": sql}),
    )
    .await;
    assert_eq!(code, 200, "{created}");
    let job = created["job"].as_str().expect("a job").to_string();
    assert_eq!(wait_for_state(&job, &["RUNNING"]).await, "RUNNING");
    assert_eq!(counted(&read_json(&output, 10, Duration::from_secs(60))).len(), 10);

    // While its job runs, a resume is refused and Flink keeps one job.
    let (code, refused) = post(&router, "/api/resume_processor", one.clone()).await;
    assert_eq!((code.as_u16(), refused["code"].as_str()), (422, Some("ADMIN")), "{refused}");
    assert_eq!(jobs_named(&name).await.iter().filter(|(_, s)| s == "RUNNING").count(), 1);

    // Its job cancelled behind klens's back, as a Flink restart would lose it: klens says so,
    // and keeps it meant to run.
    let cancelled = reqwest::Client::new()
        .patch(format!("{FLINK_REST}/jobs/{job}?mode=cancel"))
        .send()
        .await
        .expect("Flink answers");
    assert!(cancelled.status().is_success(), "{}", cancelled.status());
    assert_eq!(wait_for_state(&job, &["CANCELED"]).await, "CANCELED");
    let (_, detail) = get_json(&router, &format!("/api/processor?cluster=local&name={name}")).await;
    let p = &detail["processor"];
    assert_eq!((p["state"].as_str(), p["desired"].as_str()), (Some("CANCELED"), Some("running")));

    // Resumed: Flink runs a new job, which reads what was written meanwhile.
    produce_orders(&input, 20..30);
    let (code, resumed) = post(&router, "/api/resume_processor", one.clone()).await;
    assert_eq!(code, 200, "{resumed}");
    let second = resumed["job"].as_str().expect("a job").to_string();
    assert_ne!(second, job);
    assert_eq!(wait_for_state(&second, &["RUNNING"]).await, "RUNNING");
    // From the group's last commit (a checkpoint), so some may come twice; none is lost.
    let mut seen = BTreeMap::new();
    for _ in 0..12 {
        seen = counted(&read_json(&output, 30, Duration::from_secs(5)));
        if (20..30).all(|id| seen.contains_key(&id)) {
            break;
        }
    }
    assert!((20..30).all(|id| seen.contains_key(&id)), "the orders written meanwhile: {seen:?}");

    let (code, deleted) = post(&router, "/api/delete_processor", one).await;
    assert_eq!(code, 200, "{deleted}");
    assert_eq!(wait_for_state(&second, &["CANCELED"]).await, "CANCELED");
}

#[tokio::test]
async fn refusals_come_before_flink_runs_anything_and_a_hidden_topic_is_a_missing_one() {
    let n = unique("x").trim_start_matches("x-").to_string();
    let input = format!("payments-it-proc-in-{n}");
    let output = format!("payments-it-proc-out-{n}");
    let secret = format!("it-proc-hidden-{n}");
    let missing = format!("it-proc-absent-{n}");
    let masked = format!("payments-it-proc-masked-{n}");
    create_topic(&input, 1).await;
    create_topic(&masked, 1).await;
    create_topic(&output, 1).await;
    create_topic(&secret, 1).await;
    produce_orders(&input, 0..3);
    produce_orders(&secret, 0..3);
    produce_orders(&masked, 0..3);
    // alice kafka-admins, bob kafka-viewers, dave kafka-operators and kafka-viewers, erin
    // payments-team, carol nothing.
    let roles = "  roles:\n    all: [sql_processors, manage_sql_processors, records, produce]\n    no-produce: [sql_processors, manage_sql_processors, records]\n    viewer: [sql_processors, records]\n  bindings:\n    - groups: [kafka-admins]\n      role: all\n    - groups: [kafka-viewers]\n      role: viewer\n    - groups: [kafka-operators]\n      role: no-produce\n    - groups: [payments-team]\n      role: all\n      resources:\n        topics: [\"payments-*\"]\n";
    let masking = format!(
        "masking:\n  - topics: [\"{masked}\"]\n    fields: [total]\n    strategy: redact\n"
    );
    let (router, catalog) =
        router_and_catalog(&yaml(&format!("{masking}{}", auth_block(roles)))).await;
    let local = catalog.get("local").expect("local");
    refresh_until(local, |e| e.topic_metadata(&masked).ok().flatten().is_some()).await;
    let body = |name: &str, sql: String| json!({"cluster": "local", "name": name, "sql": sql, "dry_run": true});

    // bob holds no MANAGE_SQL_PROCESSORS.
    let bob = sign_in(&router, "bob").await;
    let name = format!("it-proc-{n}");
    let (code, refused) = post_as(
        &router,
        &bob,
        "/api/create_processor",
        body(&name, format!("INSERT INTO `{output}` SELECT * FROM `{input}`")),
    )
    .await;
    assert_eq!(
        (code.as_u16(), refused["privilege"].as_str()),
        (403, Some("MANAGE_SQL_PROCESSORS")),
        "{refused}"
    );
    // carol sees no cluster.
    let carol = sign_in(&router, "carol").await;
    let (code, refused) = post_as(
        &router,
        &carol,
        "/api/create_processor",
        body(&name, format!("INSERT INTO `{output}` SELECT * FROM `{input}`")),
    )
    .await;
    assert_eq!(
        (code.as_u16(), refused["code"].as_str()),
        (404, Some("UNKNOWN_CLUSTER")),
        "{refused}"
    );
    // dave may not write the output: it is never declared, and Flink does not know it.
    let dave = sign_in(&router, "dave").await;
    let (code, refused) = post_as(
        &router,
        &dave,
        "/api/create_processor",
        body(&name, format!("INSERT INTO `{output}` SELECT * FROM `{input}`")),
    )
    .await;
    assert_ne!(code.as_u16(), 200, "{refused}");
    assert!(refused["message"].as_str().is_some_and(|m| m.contains(&output)), "{refused}");

    // erin's scope covers payments-*: a topic outside it answers exactly as a missing one.
    let erin = sign_in(&router, "erin").await;
    let sql = |from: &str| format!("INSERT INTO `{output}`\nSELECT id, total\nFROM `{from}`");
    let (code_hidden, hidden) =
        post_as(&router, &erin, "/api/create_processor", body(&name, sql(&secret))).await;
    let (code_missing, absent) =
        post_as(&router, &erin, "/api/create_processor", body(&name, sql(&missing))).await;
    assert_eq!(code_hidden, code_missing);
    assert_eq!(code_hidden.as_u16(), 400, "{hidden}");
    let hidden_words = hidden["message"].as_str().unwrap_or_default().replace(&secret, "T");
    let absent_words = absent["message"].as_str().unwrap_or_default().replace(&missing, "T");
    assert_eq!(hidden_words, absent_words);
    assert!(hidden_words.contains("line 3, column"), "{hidden_words}");
    // A topic masked for her (she holds no UNMASK) is no input: a query could copy the masked
    // field into another.
    let (code, refused) =
        post_as(&router, &erin, "/api/create_processor", body(&name, sql(&masked))).await;
    assert_eq!((code.as_u16(), refused["field"].as_str()), (400, Some("sql")), "{refused}");
    assert!(refused["message"].as_str().is_some_and(|m| m.contains("masked for you")), "{refused}");
    // A hint cannot point a table she may use at a topic she may not.
    let hinted = format!(
        "INSERT INTO `{output}` SELECT id, total FROM `{input}` /*+ OPTIONS('topic'='{secret}') */"
    );
    let (code, refused) =
        post_as(&router, &erin, "/api/create_processor", body(&name, hinted)).await;
    assert_eq!((code.as_u16(), refused["field"].as_str()), (400, Some("sql")), "{refused}");
    // Inside her scope her preview runs.
    let (code, preview) =
        post_as(&router, &erin, "/api/create_processor", body(&name, sql(&input))).await;
    assert_eq!(code, 200, "{preview}");

    // A statement error says where it is.
    let alice = sign_in(&router, "alice").await;
    let (code, wrong) = post_as(
        &router,
        &alice,
        "/api/create_processor",
        body(&name, format!("INSERT INTO `{output}` SELECT nope FROM `{input}`")),
    )
    .await;
    assert_eq!(code.as_u16(), 400, "{wrong}");
    assert!(
        wrong["message"]
            .as_str()
            .is_some_and(|m| m.contains("line 1, column") && m.contains("nope")),
        "{wrong}"
    );

    // The editor's columns of a topic: its JSON fields typed as Flink reads them, then the
    // record's own, for a caller who may write processors and read the topic.
    let table = |caller: String, topic: String| {
        let router = router.clone();
        async move {
            let path = format!("/api/processor_table?cluster=local&topic={topic}");
            let (code, body) = get_as(&router, &caller, &path).await;
            let json: Value = serde_json::from_slice(&body).expect("JSON");
            (code.as_u16(), json)
        }
    };
    let (code, columns) = table(erin.clone(), input.clone()).await;
    assert_eq!(code, 200, "{columns}");
    let typed: Vec<String> = columns["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| format!("{} {}", c[0].as_str().unwrap_or("?"), c[1].as_str().unwrap_or("?")))
        .collect();
    assert_eq!(
        typed,
        [
            "id BIGINT",
            "total DOUBLE",
            "ship ROW<`city` STRING>",
            "tags ARRAY<STRING>",
            "kafka_key BYTES",
            "kafka_partition INT",
            "kafka_offset BIGINT",
            "kafka_timestamp TIMESTAMP_LTZ(3)",
            "kafka_headers MAP<STRING, BYTES>",
        ]
    );
    // bob may not write processors; erin's scope hides a topic as it hides a missing one;
    // a topic masked for her shows her no columns.
    let (code, refused) = table(bob.clone(), input.clone()).await;
    assert_eq!((code, refused["privilege"].as_str()), (403, Some("MANAGE_SQL_PROCESSORS")));
    let (code_hidden, hidden) = table(erin.clone(), secret.clone()).await;
    let (code_missing, absent) = table(erin.clone(), missing.clone()).await;
    assert_eq!(code_hidden, code_missing, "{hidden} {absent}");
    assert_ne!(code_hidden, 200, "{hidden}");
    assert_eq!(
        hidden["message"].as_str().unwrap_or_default().replace(&secret, "T"),
        absent["message"].as_str().unwrap_or_default().replace(&missing, "T")
    );
    let (code, refused) = table(erin.clone(), masked.clone()).await;
    assert_eq!((code, refused["field"].as_str()), (400, Some("sql")), "{refused}");
    // dev/seed's Avro topic, its values framed by the registry's serializer: bytes, and said so.
    let (code, avro) = table(erin.clone(), "payments-avro".to_string()).await;
    assert_eq!(code, 200, "{avro}");
    assert_eq!(avro["columns"][0], json!(["kafka_value", "BYTES"]), "{avro}");
    assert!(avro["note"].as_str().is_some_and(|n| n.contains("registry")), "{avro}");
    let (_, plain) = table(erin.clone(), input.clone()).await;
    assert!(plain.get("note").is_none(), "{plain}");

    // None of it left a job with Flink.
    assert!(
        jobs_named(&name).await.iter().all(|(_, s)| s != "RUNNING"),
        "{:?}",
        jobs_named(&name).await
    );
}

/// Two replicas of klens (two services, each with its own clients and in-process lock) create
/// the same processor at the same moment: one creates it, the other finds it made, and Flink
/// runs one job for it. Then both delete it at once: one deletes it, the other finds it gone,
/// and Flink runs no job for it. The lease each change held is given back (a tombstone in the
/// leases topic, as a consumer of its own reads it).
#[tokio::test]
async fn two_replicas_creating_and_deleting_one_processor_at_once_make_one_job() {
    let input = unique("it-proc-race-in");
    let output = unique("it-proc-race-out");
    let name = unique("it-proc-race").replace('_', "-");
    create_topic(&input, 1).await;
    create_topic(&output, 1).await;
    produce_orders(&input, 0..5);
    let (one, catalog) = router_and_catalog(&yaml("")).await;
    let (two, _) = router_and_catalog(&yaml("")).await;
    refresh_until(catalog.get("local").expect("local"), |e| {
        e.topic_metadata(&output).ok().flatten().is_some()
    })
    .await;
    let sql = format!("INSERT INTO `{output}`\nSELECT id, total FROM `{input}`");
    let body = json!({"cluster": "local", "name": name, "sql": sql});
    let ((a, first), (b, second)) = tokio::join!(
        post(&one, "/api/create_processor", body.clone()),
        post(&two, "/api/create_processor", body.clone())
    );
    let mut codes = [a.as_u16(), b.as_u16()];
    codes.sort_unstable();
    assert_eq!(codes, [200, 422], "{first} {second}");
    let refused = if a == 200 { &second } else { &first };
    assert!(refused["message"].as_str().is_some_and(|m| m.contains("already")), "{refused}");
    let jobs = jobs_named(&name).await;
    let live: Vec<&(String, String)> = jobs
        .iter()
        .filter(|(_, state)| !matches!(state.as_str(), "CANCELED" | "FAILED" | "FINISHED"))
        .collect();
    assert_eq!(live.len(), 1, "Flink runs one job for it: {jobs:?}");

    let gone = json!({"cluster": "local", "name": name});
    let ((a, first), (b, second)) = tokio::join!(
        post(&one, "/api/delete_processor", gone.clone()),
        post(&two, "/api/delete_processor", gone.clone())
    );
    let mut codes = [a.as_u16(), b.as_u16()];
    codes.sort_unstable();
    assert_eq!(codes, [200, 404], "{first} {second}");
    let job = live[0].0.clone();
    assert_eq!(wait_for_state(&job, &["CANCELED"]).await, "CANCELED");
    assert!(definition(&name).is_null(), "the definition is gone");

    // Both changes gave their lease back.
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("group.id", unique("it-leases"))
        .set("auto.offset.reset", "earliest")
        .set("isolation.level", "read_committed")
        .create()
        .expect("consumer");
    consumer.subscribe(&[server::lease::LEASES_TOPIC]).expect("subscribe");
    let key = format!("processor/{name}");
    let (mut seen, mut last) = (0, Some(Vec::new()));
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while std::time::Instant::now() < until {
        match consumer.poll(Duration::from_millis(300)) {
            Some(Ok(m)) if m.key() == Some(key.as_bytes()) => {
                seen += 1;
                last = m.payload().map(<[u8]>::to_vec);
            }
            Some(_) => {}
            None if seen >= 8 => break,
            None => {}
        }
    }
    // Taken and given back by each of the four changes.
    assert_eq!(seen, 8, "records of the lease");
    assert_eq!(last, None, "the last is a tombstone");
}
