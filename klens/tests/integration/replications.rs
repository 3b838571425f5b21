//! Replications through klens, against the dev stack: a replication from the `remote` Kafka
//! into the first one made by `create_replication` on the stack's Connect worker, its copies
//! read back byte for byte by a consumer of their own, its lag followed to zero, a real group's
//! offsets translated through MirrorMaker's checkpoints and failed over so that a consumer on
//! the target resumes with no record lost; pause, resume and delete seen by Connect's REST API;
//! and the four checks of a create, each refused in turn with nothing reaching Connect.

use std::collections::BTreeSet;
use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::message::{Header, Headers, Message, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};
use serde_json::{json, Value};

use crate::connect::{connect_get, connect_status};
use crate::support::*;

const REMOTE_PORT: &str = "127.0.0.1:28092";
/// Its SCRAM listener, which MirrorMaker uses (dev/stack's `mirror` user).
const REMOTE_SASL_PORT: &str = "127.0.0.1:28094";

/// The two clusters of the stack as klens names them for replications: `remote` (the source)
/// and `local` (the target, with the Connect worker), each with the properties MirrorMaker's
/// clients use; `local_writable` and `rest` (an auth block) vary per test. MirrorMaker logs in to
/// the remote Kafka over SCRAM with the JAAS line of dev/stack's secrets file, named by a
/// config-provider reference that the Connect worker resolves.
fn yaml(local_writable: bool, rest: &str) -> String {
    let secrets = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/dev-stack/connect/secrets.properties");
    let secrets = secrets.to_string_lossy();
    format!(
        "clusters:\n  - name: remote\n    bootstrap_servers: {REMOTE_PORT}\n    writable: true\n    mirror:\n      properties:\n        bootstrap.servers: {REMOTE_SASL_PORT}\n        security.protocol: SASL_PLAINTEXT\n        sasl.mechanism: SCRAM-SHA-512\n        sasl.jaas.config: $${{file:{secrets}:remote.jaas}}\n{}    writable: {local_writable}\n    connect:\n      - name: dev\n        url: {CONNECT}\n    mirror:\n      properties:\n        bootstrap.servers: {OPEN_PORT}\n{rest}",
        scram_cluster("local", "klens-secret")
    )
}

/// A record as it is held: key, value, headers and timestamp.
type Held = (Option<Vec<u8>>, Option<Vec<u8>>, Vec<(String, Option<Vec<u8>>)>, Option<i64>);

fn held(m: &impl Message) -> Held {
    let headers = m
        .headers()
        .map(|h| h.iter().map(|h| (h.key.to_string(), h.value.map(<[u8]>::to_vec))).collect())
        .unwrap_or_default();
    (
        m.key().map(<[u8]>::to_vec),
        m.payload().map(<[u8]>::to_vec),
        headers,
        m.timestamp().to_millis(),
    )
}

async fn remote_topic(name: &str, partitions: i32) {
    let admin: AdminClient<DefaultClientContext> =
        ClientConfig::new().set("bootstrap.servers", REMOTE_PORT).create().expect("admin");
    let new = NewTopic::new(name, partitions, TopicReplication::Fixed(1));
    let options = AdminOptions::new().operation_timeout(Some(Duration::from_secs(10)));
    let made = admin.create_topics([&new], &options).await.expect("remote answers");
    made.into_iter().for_each(|r| r.map(|_| ()).expect("topic made"));
}

/// `count` records into partition 0 of `topic` on the remote Kafka: keys `k<i>`, values that
/// are not UTF-8, a header with bytes and one without a value, timestamps of their own (recent:
/// older ones would fall to the brokers' retention).
fn produce_remote(topic: &str, count: u8) -> Vec<Held> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(0))
        .unwrap_or(0);
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", REMOTE_PORT).create().expect("producer");
    let sent: Vec<Held> = (0..count)
        .map(|i| {
            let headers = vec![("h".to_string(), Some(vec![i, 0xfe])), ("empty".into(), None)];
            let value = Some(vec![0xff, i, 0x00, 0xc3]);
            (Some(format!("k{i}").into_bytes()), value, headers, Some(now - 60_000 + i64::from(i)))
        })
        .collect();
    for (key, value, headers, at) in &sent {
        let mut owned = OwnedHeaders::new();
        for (k, v) in headers {
            owned = owned.insert(Header { key: k, value: v.as_deref() });
        }
        let mut record = BaseRecord::<[u8], [u8]>::to(topic).partition(0).headers(owned);
        record = record.key(key.as_deref().unwrap_or_default());
        record = record.payload(value.as_deref().unwrap_or_default());
        if let Some(at) = at {
            record = record.timestamp(*at);
        }
        producer.send(record).unwrap_or_else(|(e, _)| panic!("send: {e}"));
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
    sent
}

/// A consumer of `group` on `bootstrap`, assigned partition 0 of `topic` from its committed
/// offset (else `from`).
fn consumer_at(bootstrap: &str, group: &str, topic: &str, from: Offset) -> BaseConsumer {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        .create()
        .expect("consumer");
    let mut list = TopicPartitionList::new();
    list.add_partition_offset(topic, 0, from).expect("partition");
    consumer.assign(&list).expect("assign");
    consumer
}

/// Reads until `count` records came or 90 s passed.
fn read(consumer: &BaseConsumer, count: usize) -> Vec<(i64, Held)> {
    let mut got = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    while got.len() < count && std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(500)) {
            got.push((m.offset(), held(&m)));
        }
    }
    got
}

/// The replication's page as klens answers it after the catalog reads both clusters and the
/// Connect worker again.
async fn page(
    router: &axum::Router, catalog: &server::catalog::Catalog, name: &str,
) -> (u16, Value) {
    for cluster in ["remote", "local"] {
        catalog.get(cluster).expect(cluster).refresh().await;
    }
    catalog.get("local").expect("local").refresh_connect("dev").await;
    get_json(router, &format!("/api/replication?cluster=local&name={name}")).await
}

/// Polls the replication's page until `done` holds, for up to two minutes.
async fn page_until(
    router: &axum::Router, catalog: &server::catalog::Catalog, name: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let mut last = Value::Null;
    for _ in 0..120 {
        let (code, answer) = page(router, catalog, name).await;
        assert_eq!(code, 200, "{answer}");
        last = answer;
        if done(&last) {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    last
}

fn connectors_of(name: &str) -> [String; 3] {
    ["source", "checkpoint", "heartbeat"].map(|role| format!("{name}.mirror-{role}"))
}

#[tokio::test]
async fn a_replication_copies_every_byte_and_fails_a_group_over_with_nothing_lost() {
    let topic = unique("it-repl");
    let name = topic.clone();
    let group = format!("{topic}-app");
    remote_topic(&topic, 1).await;
    let sent = produce_remote(&topic, 30);
    // The group reads ten records on the source and commits there.
    let on_source = consumer_at(REMOTE_PORT, &group, &topic, Offset::Beginning);
    assert_eq!(read(&on_source, 10).len(), 10);
    let mut at = TopicPartitionList::new();
    at.add_partition_offset(&topic, 0, Offset::Offset(10)).expect("offset");
    on_source.commit(&at, CommitMode::Sync).expect("commit on the source");
    drop(on_source);

    let (router, catalog) = router_and_catalog(&yaml(true, "")).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let body = |dry_run: bool| {
        json!({"cluster": "local", "name": name, "source": "remote", "connect": "dev",
               "topics": [topic], "groups": [format!("{topic}-*")], "dry_run": dry_run})
    };
    let (code, planned) = post(&router, "/api/create_replication", body(true)).await;
    assert_eq!(code, 200, "{planned}");
    assert_eq!(planned["error_count"], 0, "{planned}");
    assert_eq!(planned["connectors"], json!(connectors_of(&name)));
    for connector in connectors_of(&name) {
        assert_eq!(connect_status(&format!("connectors/{connector}")).await, 404, "a dry run");
    }
    let (code, made) = post(&router, "/api/create_replication", body(false)).await;
    assert_eq!(code, 200, "{made}");
    assert_eq!(made["applied"], true);
    for connector in connectors_of(&name) {
        let config = connect_get(&format!("connectors/{connector}/config")).await;
        assert_eq!(config["source.cluster.alias"], "remote", "{connector}: {config}");
        // Connect holds the reference, never the password it resolves to.
        let jaas = config["source.cluster.sasl.jaas.config"].as_str().unwrap_or_default();
        assert!(jaas.starts_with("${file:") && !config.to_string().contains("mirror-secret"));
        assert_eq!(
            config["value.converter"],
            "org.apache.kafka.connect.converters.ByteArrayConverter"
        );
    }
    // A second with the same name is a conflict; nothing else reaches Connect.
    let (code, again) = post(&router, "/api/create_replication", body(false)).await;
    assert_eq!((code.as_u16(), again["code"].as_str()), (409, Some("ADMIN")), "{again}");

    // The copy, read by a consumer of its own: every byte and timestamp, in order.
    let copy = format!("remote.{topic}");
    let reader = consumer_at(OPEN_PORT, &unique("it-repl-reader"), &copy, Offset::Beginning);
    let copied: Vec<Held> = read(&reader, sent.len()).into_iter().map(|(_, h)| h).collect();
    assert_eq!(copied, sent, "{copy} holds what {topic} does");

    // Its page: the lag falls to zero, and the checkpoint of the group arrives.
    let shown = page_until(&router, &catalog, &name, |p| {
        p["replication"]["lag"] == 0 && p["checkpoints"].as_array().is_some_and(|c| !c.is_empty())
    })
    .await;
    assert_eq!(shown["replication"]["health"], "healthy", "{shown}");
    assert_eq!(shown["replication"]["state"], "RUNNING", "{shown}");
    let partition = &shown["partitions"][0];
    assert_eq!(
        (
            &partition["topic"],
            &partition["target_topic"],
            &partition["source_end"],
            &partition["replicated_to"]
        ),
        (&json!(topic), &json!(copy), &json!(30), &json!(30)),
        "{shown}"
    );
    let checkpoint = &shown["checkpoints"][0];
    assert_eq!((&checkpoint["group"], &checkpoint["topic"]), (&json!(group), &json!(copy)));
    assert_eq!(checkpoint["upstream"], 10, "{shown}");
    let translated = checkpoint["downstream"].as_i64().expect("translated");
    assert!((0..=10).contains(&translated), "{shown}");
    let (code, list) = get_json(&router, "/api/replications?cluster=remote").await;
    assert_eq!(code, 200, "{list}");
    assert!(
        list["replications"].as_array().is_some_and(|r| r.iter().any(|r| r["name"] == name)),
        "the source lists it too: {list}"
    );
    // The copy names where it comes from, the source topic where it goes.
    let (_, copied) = get_json(&router, &format!("/api/topic?cluster=local&topic={copy}")).await;
    assert_eq!(
        copied["replications"],
        json!([{"name": name, "direction": "copied_from", "cluster": "remote", "topic": topic}])
    );
    let (_, original) =
        get_json(&router, &format!("/api/topic?cluster=remote&topic={topic}")).await;
    assert_eq!(
        original["replications"],
        json!([{"name": name, "direction": "copied_to", "cluster": "local", "topic": copy}])
    );
    let (code, connectors) = get_json(&router, "/api/connectors?cluster=local").await;
    assert_eq!(code, 200);
    let loose = connectors.to_string();
    assert!(!loose.contains(&format!("{name}.mirror")), "never a loose connector: {loose}");

    // Failover: the plan moves the group (not on the target yet) to the translated offset.
    let failover = |dry_run: bool, plan: Value| json!({"cluster": "local", "name": name, "group": group, "dry_run": dry_run, "plan": plan});
    let (code, plan) = post(&router, "/api/failover_group", failover(true, Value::Null)).await;
    assert_eq!(code, 200, "{plan}");
    let moves = plan["partitions"].as_array().expect("partitions").clone();
    assert_eq!(moves.len(), 1, "{plan}");
    assert_eq!((&moves[0]["from"], &moves[0]["to"]), (&Value::Null, &json!(translated)));
    let sent_plan: Vec<Value> = moves
        .iter()
        .map(|m| json!({"topic": m["topic"], "partition": m["partition"], "from": m["from"], "to": m["to"]}))
        .collect();
    // A plan sent back with another offset than the checkpoint's is stale: nothing committed.
    let mut forged = sent_plan.clone();
    forged[0]["to"] = json!(translated + 5);
    let (code, refused) =
        post(&router, "/api/failover_group", failover(false, json!(forged))).await;
    assert_eq!(
        (code.as_u16(), &refused["stale"], &refused["applied"]),
        (200, &json!(true), &json!(false))
    );
    let untouched = consumer_at(OPEN_PORT, &group, &copy, Offset::Beginning);
    let mut list = TopicPartitionList::new();
    list.add_partition(&copy, 0);
    let committed = untouched.committed_offsets(list, Duration::from_secs(10)).expect("committed");
    assert_eq!(committed.find_partition(&copy, 0).map(|p| p.offset()), Some(Offset::Invalid));
    drop(untouched);
    let (code, applied) =
        post(&router, "/api/failover_group", failover(false, json!(sent_plan))).await;
    assert_eq!((code.as_u16(), &applied["applied"]), (200, &json!(true)), "{applied}");
    // The same plan again is stale: the group starts elsewhere now, and nothing changes.
    let (code, stale) =
        post(&router, "/api/failover_group", failover(false, json!(sent_plan))).await;
    assert_eq!(
        (code.as_u16(), &stale["stale"], &stale["applied"]),
        (200, &json!(true), &json!(false))
    );

    // The group resumes on the target from what klens committed: every record from the tenth
    // on is read, and what comes before it again is what MirrorMaker's translation allows.
    let resumed = consumer_at(OPEN_PORT, &group, &copy, Offset::Stored);
    let expected = usize::try_from(30 - translated).expect("count");
    let got = read(&resumed, expected);
    assert_eq!(got.first().map(|(o, _)| *o), Some(translated), "starts at the committed offset");
    let keys: BTreeSet<Vec<u8>> = got.iter().filter_map(|(_, h)| h.0.clone()).collect();
    for i in 10..30 {
        assert!(keys.contains(format!("k{i}").as_bytes()), "k{i} is not lost");
    }
    let again = got.iter().filter(|(o, _)| *o < 10).count();
    assert_eq!(again, usize::try_from(10 - translated).expect("count"), "read again");

    // Pause, resume and delete, each as Connect says.
    let one = json!({"cluster": "local", "name": name});
    let (code, paused) = post(&router, "/api/pause_replication", one.clone()).await;
    assert_eq!(code, 200, "{paused}");
    for connector in connectors_of(&name) {
        crate::connect::until_state(&connector, "PAUSED").await;
        let state = connect_get(&format!("connectors/{connector}/status")).await;
        assert_eq!(state["connector"]["state"], "PAUSED", "{connector}");
    }
    let (code, _) = post(&router, "/api/resume_replication", one.clone()).await;
    assert_eq!(code, 200);
    for connector in connectors_of(&name) {
        let state = crate::connect::until_state(&connector, "RUNNING").await;
        assert_eq!(state["connector"]["state"], "RUNNING", "{connector}");
    }
    let (code, deleted) = post(&router, "/api/delete_replication", one).await;
    assert_eq!(code, 200, "{deleted}");
    for connector in connectors_of(&name) {
        assert_eq!(connect_status(&format!("connectors/{connector}")).await, 404, "{connector}");
    }
}

/// The four checks of a create, in the spec's order, each refused in turn with the resource
/// and privilege it lacks, and nothing sent to Connect; a caller passing all four gets the
/// dry run; a selection of MirrorMaker's own topics is refused after them.
#[tokio::test]
async fn each_of_the_four_checks_refuses_in_turn_and_nothing_reaches_connect() {
    let name = unique("it-four");
    let body = |topics: Value| {
        json!({"cluster": "local", "name": name, "source": "remote", "connect": "dev",
               "topics": topics, "dry_run": false})
    };
    let nothing_in_connect = || async {
        for connector in connectors_of(&name) {
            assert_eq!(connect_status(&format!("connectors/{connector}")).await, 404);
        }
    };

    // 1. The target is read-only.
    let read_only = router(&yaml(false, "")).await;
    let (code, refused) =
        post(&read_only, "/api/create_replication", body(json!(["orders"]))).await;
    assert_eq!(
        (code.as_u16(), refused["code"].as_str()),
        (403, Some("READ_ONLY_CLUSTER")),
        "{refused}"
    );
    nothing_in_connect().await;

    // Each user's groups (dev/oidc): alice kafka-admins, bob kafka-viewers, dave
    // kafka-operators and kafka-viewers, erin payments-team.
    let roles = "  roles:\n    viewer: [replications]\n    manager: [replications, manage_replications]\n    from: [replicate_from]\n  bindings:\n    - groups: [kafka-admins]\n      role: viewer\n    - groups: [kafka-viewers]\n      role: manager\n      resources:\n        replications: [\"it-four-*\"]\n        connect: [\"eu-*\"]\n    - groups: [payments-team]\n      role: manager\n      resources:\n        replications: [\"it-four-*\"]\n    - groups: [kafka-operators]\n      role: manager\n      clusters: [local]\n    - groups: [kafka-operators]\n      role: from\n      clusters: [remote]\n";
    let (router, catalog) = router_and_catalog(&yaml(true, &auth_block(roles))).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    for (who, privilege, names) in [
        // 2. MANAGE_REPLICATIONS on the target for this name.
        ("alice", "MANAGE_REPLICATIONS", "replication \""),
        // 3. The Connect cluster covered: bob's scope names only eu-* Connect clusters.
        ("bob", "MANAGE_REPLICATIONS", "Connect cluster \"dev\""),
        // 4. REPLICATE_FROM on the source.
        ("erin", "REPLICATE_FROM", "cluster \"remote\""),
    ] {
        let cookie = sign_in(&router, who).await;
        let (code, refused) =
            post_as(&router, &cookie, "/api/create_replication", body(json!(["orders"]))).await;
        assert_eq!(code, 403, "{who}: {refused}");
        assert_eq!(
            (refused["code"].as_str(), refused["privilege"].as_str()),
            (Some("MISSING_PRIVILEGE"), Some(privilege)),
            "{who}: {refused}"
        );
        let message = refused["message"].as_str().unwrap_or_default();
        assert!(message.contains(names), "{who}: {message}");
        nothing_in_connect().await;
    }
    // dave passes all four: his dry run is validated by Connect and creates nothing.
    let dave = sign_in(&router, "dave").await;
    let mut dry = body(json!(["orders"]));
    dry["dry_run"] = json!(true);
    let (code, planned) = post_as(&router, &dave, "/api/create_replication", dry).await;
    assert_eq!((code.as_u16(), &planned["error_count"]), (200, &json!(0)), "{planned}");
    // A name whose connector Connect has already (a loose one) is never taken over.
    let taken = unique("it-four-taken");
    let loose = format!("{taken}.mirror-source");
    let file = std::env::temp_dir().join(&loose);
    let sink = json!({"connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
                      "file": file.to_string_lossy(), "topics": "orders"});
    put_connector(CONNECT, &loose, sink.clone()).await;
    let mut over = body(json!(["orders"]));
    over["name"] = json!(taken);
    let (code, refused) = post_as(&router, &dave, "/api/create_replication", over).await;
    assert_eq!((code.as_u16(), refused["code"].as_str()), (409, Some("ADMIN")), "{refused}");
    let kept = connect_get(&format!("connectors/{loose}/config")).await;
    assert_eq!(kept["connector.class"], sink["connector.class"], "{kept}");
    delete_connector(CONNECT, &loose).await;
    // After the checks, the arguments: MirrorMaker's own topics are not a selection.
    for internal in [json!(["heartbeats"]), json!(["*.internal"])] {
        let (code, refused) =
            post_as(&router, &dave, "/api/create_replication", body(internal)).await;
        assert_eq!((code.as_u16(), refused["field"].as_str()), (400, Some("topics")), "{refused}");
    }
    nothing_in_connect().await;
    // alice reads it (REPLICATIONS) but a replication she cannot see answers as a missing one.
    let alice = sign_in(&router, "alice").await;
    let (code, _) = get_as(&router, &alice, "/api/replications?cluster=local").await;
    assert_eq!(code, 200);
    // erin holds REPLICATIONS only through her scope: she has the list, and a name her scope
    // does not take is refused by the decision before any lookup.
    let erin = sign_in(&router, "erin").await;
    let (code, _) = get_as(&router, &erin, "/api/replications?cluster=local").await;
    assert_eq!(code, 200);
    let (code, _) = get_as(&router, &erin, "/api/replication?cluster=local&name=other").await;
    assert_eq!(code, 403, "the decision on the name comes first");
}

/// A replication copies bytes, so a topic masked for the caller is replicated only into a copy
/// that hides the same fields the same way (else UNMASK), refused before anything reaches
/// Connect; and dev/seed's `demo-eu` shows its copied topics only to a caller whose catalog
/// shows them at both ends.
#[tokio::test]
async fn a_masked_topic_is_replicated_only_into_a_copy_masked_alike_and_pages_follow_both_catalogs()
{
    let topic = unique("it-rmask");
    remote_topic(&topic, 1).await;
    let name = unique("it-four-mask");
    // dave (kafka-operators) passes the four checks and holds no UNMASK.
    let roles = "  roles:\n    manager: [replications, manage_replications]\n    from: [replicate_from]\n  bindings:\n    - groups: [kafka-operators]\n      role: manager\n      clusters: [local]\n    - groups: [kafka-operators]\n      role: from\n      clusters: [remote]\n";
    let rule = |topics: &str| {
        format!("masking:\n  - topics: [{topics}]\n    fields: [card]\n    strategy: redact\n")
    };
    let body = json!({"cluster": "local", "name": name, "source": "remote", "connect": "dev",
                      "topics": [topic], "dry_run": true});

    let only_source =
        yaml(true, &format!("{}{}", rule(&format!("\"{topic}\"")), auth_block(roles)));
    let (router, catalog) = router_and_catalog(&only_source).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let dave = sign_in(&router, "dave").await;
    let (code, refused) = post_as(&router, &dave, "/api/create_replication", body.clone()).await;
    assert_eq!(code, 403, "{refused}");
    assert_eq!(
        (refused["privilege"].as_str(), refused["field"].as_str()),
        (Some("UNMASK"), Some("topics")),
        "{refused}"
    );
    for connector in connectors_of(&name) {
        assert_eq!(connect_status(&format!("connectors/{connector}")).await, 404);
    }

    // The copy (prefix naming: remote.<topic>) masked by the same rule: the dry run passes.
    let both = yaml(
        true,
        &format!("{}{}", rule(&format!("\"{topic}\", \"remote.{topic}\"")), auth_block(roles)),
    );
    let (router, catalog) = router_and_catalog(&both).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let dave = sign_in(&router, "dave").await;
    let (code, planned) = post_as(&router, &dave, "/api/create_replication", body).await;
    assert_eq!((code.as_u16(), &planned["error_count"]), (200, &json!(0)), "{planned}");

    // demo-eu copies eu-invoices: erin's scope (payments-* under a scoped catalog) does not
    // show it, so her page of the replication lists none of its partitions; alice's lists them.
    let scoped = "  roles:\n    reader: [replications]\n  bindings:\n    - groups: [kafka-admins]\n      role: reader\n    - groups: [payments-team]\n      role: reader\n      resources:\n        topics: [\"payments-*\"]\n        replications: [\"demo-*\"]\n";
    let yaml_scoped = yaml(true, &auth_block(scoped)).replace(
        "    writable: true\n    connect:",
        "    writable: true\n    catalog: scoped\n    connect:",
    );
    let (router, catalog) = router_and_catalog(&yaml_scoped).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let page = "/api/replication?cluster=local&name=demo-eu";
    let alice = sign_in(&router, "alice").await;
    let (code, raw) = get_as(&router, &alice, page).await;
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&raw));
    let seen: Value = serde_json::from_slice(&raw).expect("JSON");
    let topics = |v: &Value| -> BTreeSet<String> {
        v["partitions"]
            .as_array()
            .map(|ps| ps.iter().filter_map(|p| p["topic"].as_str().map(String::from)).collect())
            .unwrap_or_default()
    };
    assert!(topics(&seen).contains("eu-invoices"), "{seen}");
    let erin = sign_in(&router, "erin").await;
    let (code, raw) = get_as(&router, &erin, page).await;
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&raw));
    let hidden: Value = serde_json::from_slice(&raw).expect("JSON");
    assert!(topics(&hidden).is_empty(), "{hidden}");
    assert!(!String::from_utf8_lossy(&raw).contains("eu-invoices"), "{hidden}");
}

/// Two replicas of klens (two services, each with its own view of Connect) create two
/// replications of the same topic between the same pair at the same moment: the twin check of
/// one reads the other, so one is made and the other refused, and Connect holds the connectors
/// of one only.
#[tokio::test]
async fn two_replicas_making_twin_replications_at_once_make_one() {
    let topic = unique("it-repl-twin");
    remote_topic(&topic, 1).await;
    let (one, catalog) = router_and_catalog(&yaml(true, "")).await;
    let (two, _) = router_and_catalog(&yaml(true, "")).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let body = |name: &str| {
        json!({"cluster": "local", "name": name, "source": "remote", "connect": "dev",
               "topics": [topic]})
    };
    let (first, second) = (format!("{topic}-a"), format!("{topic}-b"));
    let ((a, made_a), (b, made_b)) = tokio::join!(
        post(&one, "/api/create_replication", body(&first)),
        post(&two, "/api/create_replication", body(&second))
    );
    let mut codes = [a.as_u16(), b.as_u16()];
    codes.sort_unstable();
    assert_eq!(codes, [200, 400], "{made_a} {made_b}");
    let (made, refused) = if a == 200 { (&first, &made_b) } else { (&second, &made_a) };
    assert_eq!(refused["field"], "topics", "{refused}");
    let other = if made == &first { &second } else { &first };
    for connector in connectors_of(other) {
        assert_eq!(connect_status(&format!("connectors/{connector}")).await, 404, "{connector}");
    }
    let source = &connectors_of(made)[0];
    assert_eq!(connect_status(&format!("connectors/{source}")).await, 200, "{source}");
    let (code, deleted) =
        post(&one, "/api/delete_replication", json!({"cluster": "local", "name": made})).await;
    assert_eq!(code, 200, "{deleted}");
}
