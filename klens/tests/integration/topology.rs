//! The flow of data around a node (`/api/flow`), on the dev stack's Kafka and Connect: the
//! edges come from what Kafka and Connect hold (committed offsets, a sink's topics), and a
//! scoped caller sees only the nodes her scope covers, the others counted and never named.

use serde_json::Value;

use crate::connect::two_sinks_and_a_scope;
use crate::support::*;

/// The places of the nodes named `name` in a flow's answer.
fn node<'a>(flow: &'a Value, kind: &str, name: &str) -> Option<&'a Value> {
    flow["nodes"].as_array()?.iter().find(|n| n["kind"] == kind && n["name"] == name)
}

fn place(flow: &Value, kind: &str, name: &str) -> Option<usize> {
    flow["nodes"].as_array()?.iter().position(|n| n["kind"] == kind && n["name"] == name)
}

fn edge(flow: &Value, from: usize, to: usize) -> Option<&Value> {
    flow["edges"].as_array()?.iter().find(|e| e["from"] == from && e["to"] == to)
}

#[tokio::test]
async fn a_flow_draws_what_kafka_and_connect_hold_and_hides_what_a_scope_does_not_cover() {
    let covered = unique("it-flow");
    // Sink `mine_sink` reads `{covered}-t`; `their_sink` reads a topic outside the scope.
    let (mine_sink, their_sink, _) =
        two_sinks_and_a_scope(&covered, "it-fother", "connectors").await;
    let mine = format!("{covered}-t");
    let reader = format!("{covered}-reader");
    let both = format!("{covered}-both");
    commit_offsets(&reader, &mine, &[(0, 0)]);
    commit_offsets(&both, &mine, &[(0, 0)]);
    let their_topic = connector_topic(&their_sink).await;
    commit_offsets(&both, &their_topic, &[(0, 0)]);
    let yaml = format!(
        "clusters:\n{}    writable: true\n    catalog: scoped\n    connect:\n      - name: dev\n        url: {CONNECT}\n{}",
        scram_cluster("local", "klens-secret"),
        auth_block(&format!(
            "  roles:\n    flow: [topology, connectors, records]\n    admin: [topology, connectors]\n    viewer: [records]\n  bindings:\n    - groups: [payments-team]\n      role: flow\n      resources:\n        topics: [\"{covered}*\"]\n    - groups: [kafka-admins]\n      role: admin\n    - groups: [kafka-viewers]\n      role: viewer\n"
        )),
    );
    let (router, catalog) = router_and_catalog(&yaml).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let flow_of = |kind: &str, name: &str, hops: u8| {
        format!("/api/flow?cluster=local&kind={kind}&name={name}&hops={hops}")
    };

    // alice sees everything around her topic: both groups, the sink, no hidden neighbour.
    let alice = sign_in(&router, "alice").await;
    let (code, raw) = get_as(&router, &alice, &flow_of("topic", &mine, 1)).await;
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&raw));
    let flow: Value = serde_json::from_slice(&raw).expect("JSON");
    let at = place(&flow, "topic", &mine).expect("the topic");
    assert_eq!(flow["focus"], at);
    let sink = place(&flow, "connector", &mine_sink).expect("its sink");
    let read_by = place(&flow, "group", &reader).unwrap_or_else(|| panic!("its reader: {flow}"));
    assert!(place(&flow, "group", &both).is_some(), "{flow}");
    assert_eq!(
        edge(&flow, at, sink).expect("topic → sink")["source"],
        "the connector's topics",
        "{flow}"
    );
    assert_eq!(edge(&flow, at, read_by).expect("topic → group")["exact"], true);
    assert_eq!(node(&flow, "topic", &mine).expect("topic")["hidden_downstream"], 0);
    let svg = flow["svg"].as_str().expect("svg");
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert!(svg.contains(&format!("href=\"/c/local/connectors/dev/{mine_sink}\"")), "{svg}");

    // erin's scope covers her topic and the group that reads only it; the group that also
    // reads a topic outside it is counted, and nothing of it is named anywhere.
    let erin = sign_in(&router, "erin").await;
    let (code, raw) = get_as(&router, &erin, &flow_of("topic", &mine, 2)).await;
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&raw));
    let text = String::from_utf8_lossy(&raw).to_string();
    let flow: Value = serde_json::from_slice(&raw).expect("JSON");
    assert!(place(&flow, "group", &reader).is_some(), "{flow}");
    assert!(place(&flow, "connector", &mine_sink).is_some(), "{flow}");
    for secret in [&both, &their_topic, &their_sink] {
        assert!(!text.contains(secret.as_str()), "{secret} in {text}");
    }
    assert_eq!(node(&flow, "topic", &mine).expect("topic")["hidden_downstream"], 1, "{flow}");
    assert!(flow["svg"].as_str().unwrap_or_default().contains("+1 hidden"));

    // Around a topic outside her scope: exactly as a topic that does not exist.
    let absent_topic = format!("{covered}-absent-t");
    let (code_h, hidden) = get_as(&router, &erin, &flow_of("topic", &their_topic, 1)).await;
    let (code_a, missing) = get_as(&router, &erin, &flow_of("topic", &absent_topic, 1)).await;
    assert_eq!((code_h.as_u16(), code_a.as_u16()), (404, 404));
    assert_eq!(
        String::from_utf8_lossy(&hidden).replace(&their_topic, "X"),
        String::from_utf8_lossy(&missing).replace(&absent_topic, "X")
    );
    // Around the group she may not see: exactly as a group that does not exist.
    let absent = format!("{covered}-absent");
    let (code_h, hidden) = get_as(&router, &erin, &flow_of("group", &both, 1)).await;
    let (code_a, missing) = get_as(&router, &erin, &flow_of("group", &absent, 1)).await;
    assert_eq!((code_h.as_u16(), code_a.as_u16()), (404, 404));
    assert_eq!(
        String::from_utf8_lossy(&hidden).replace(&both, "X"),
        String::from_utf8_lossy(&missing).replace(&absent, "X")
    );

    // Without TOPOLOGY, refused; without the cluster, unknown; bad hops, named.
    let bob = sign_in(&router, "bob").await;
    let (code, raw) = get_as(&router, &bob, &flow_of("topic", &mine, 1)).await;
    let refused: Value = serde_json::from_slice(&raw).expect("JSON");
    assert_eq!((code.as_u16(), refused["privilege"].as_str()), (403, Some("TOPOLOGY")));
    let carol = sign_in(&router, "carol").await;
    let (code, raw) = get_as(&router, &carol, &flow_of("topic", &mine, 1)).await;
    let refused: Value = serde_json::from_slice(&raw).expect("JSON");
    assert_eq!((code.as_u16(), refused["code"].as_str()), (404, Some("UNKNOWN_CLUSTER")));
    let (code, raw) = get_as(&router, &alice, &flow_of("topic", &mine, 9)).await;
    let refused: Value = serde_json::from_slice(&raw).expect("JSON");
    assert_eq!((code.as_u16(), refused["field"].as_str()), (400, Some("hops")), "{refused}");
    let (code, raw) =
        get_as(&router, &alice, &flow_of("connector", &format!("dev/{mine_sink}"), 1)).await;
    let around_sink: Value = serde_json::from_slice(&raw).expect("JSON");
    assert_eq!(code, 200, "{around_sink}");
    assert!(place(&around_sink, "topic", &mine).is_some(), "{around_sink}");

    delete_connector(CONNECT, &mine_sink).await;
    delete_connector(CONNECT, &their_sink).await;
}

#[tokio::test]
async fn processors_stand_between_the_topics_they_read_and_write_as_far_as_a_scope_covers_them() {
    let covered = unique("it-flowp");
    let input = format!("{covered}-in");
    let output = format!("{covered}-out");
    let other_output = unique("it-fpother-out");
    for topic in [&input, &output, &other_output] {
        create_topic(topic, 1).await;
    }
    let mine = format!("{covered}-p");
    let theirs = unique("it-fpother-p");
    let defined = |name: &str, output: &str| serde_json::json!({"name": name, "sql": "", "parallelism": 1, "inputs": [input], "output": output, "desired": "stopped", "created_at": 0, "changed_at": 0});
    define_processor(defined(&mine, &output)).await;
    define_processor(defined(&theirs, &other_output)).await;
    let yaml = format!(
        "clusters:\n  - name: local\n    bootstrap_servers: {OPEN_PORT}\n    writable: true\n    catalog: scoped\n    flink:\n      sql_gateway: http://127.0.0.1:18087\n      rest: http://127.0.0.1:18086\n      properties:\n        bootstrap.servers: {OPEN_PORT}\n{}",
        auth_block(&format!(
            "  roles:\n    flow: [topology, sql_processors]\n  bindings:\n    - groups: [payments-team]\n      role: flow\n      resources:\n        topics: [\"{covered}*\"]\n    - groups: [kafka-admins]\n      role: flow\n"
        )),
    );
    let (router, catalog) = router_and_catalog(&yaml).await;
    let local = catalog.get("local").expect("local");
    refresh_until(local, |e| e.topic_metadata(&other_output).ok().flatten().is_some()).await;
    let flow_of =
        |kind: &str, name: &str| format!("/api/flow?cluster=local&kind={kind}&name={name}&hops=1");
    let read = |cookie: String, path: String| {
        let router = router.clone();
        async move {
            let (code, raw) = get_as(&router, &cookie, &path).await;
            (code.as_u16(), String::from_utf8_lossy(&raw).to_string())
        }
    };

    // alice: both processors read the topic, each through Flink's plan.
    let alice = sign_in(&router, "alice").await;
    let (code, text) = read(alice.clone(), flow_of("topic", &input)).await;
    assert_eq!(code, 200, "{text}");
    let flow: Value = serde_json::from_slice(text.as_bytes()).expect("JSON");
    let at = place(&flow, "topic", &input).expect("the topic");
    for name in [&mine, &theirs] {
        let p = place(&flow, "processor", name).unwrap_or_else(|| panic!("{name}: {flow}"));
        let e = edge(&flow, at, p).expect("topic → processor");
        assert_eq!(e["source"], "the processor's plan in Flink", "{flow}");
    }
    assert!(text.contains(&format!("href=\\\"/c/local/processors/{mine}\\\"")), "{text}");
    // Around the processor: what it reads, what it writes, the group it reads under.
    let (code, text) = read(alice.clone(), flow_of("processor", &mine)).await;
    assert_eq!(code, 200, "{text}");
    let flow: Value = serde_json::from_slice(text.as_bytes()).expect("JSON");
    let p = place(&flow, "processor", &mine).expect("the processor");
    assert_eq!(flow["focus"], p);
    assert!(edge(&flow, p, place(&flow, "topic", &output).expect("its output")).is_some());
    let group = format!("klens-processor-{mine}");
    assert!(edge(&flow, p, place(&flow, "group", &group).expect("its group")).is_some(), "{flow}");

    // erin: her processor is drawn; the other writes outside her scope, so it is counted and
    // never named, and around it she finds nothing, as around one that does not exist.
    let erin = sign_in(&router, "erin").await;
    let (code, text) = read(erin.clone(), flow_of("topic", &input)).await;
    assert_eq!(code, 200, "{text}");
    let flow: Value = serde_json::from_slice(text.as_bytes()).expect("JSON");
    assert!(place(&flow, "processor", &mine).is_some(), "{flow}");
    assert!(!text.contains(&theirs) && !text.contains(&other_output), "{text}");
    assert_eq!(node(&flow, "topic", &input).expect("topic")["hidden_downstream"], 1, "{flow}");
    let absent = unique("it-fpother-absent");
    let (code_h, hidden) = read(erin.clone(), flow_of("processor", &theirs)).await;
    let (code_a, missing) = read(erin.clone(), flow_of("processor", &absent)).await;
    assert_eq!((code_h, code_a), (404, 404));
    assert_eq!(hidden.replace(&theirs, "X"), missing.replace(&absent, "X"));
}

/// The one topic Connect says `connector`'s config names.
async fn connector_topic(connector: &str) -> String {
    let config: Value = reqwest::Client::new()
        .get(format!("{CONNECT}/connectors/{connector}/config"))
        .send()
        .await
        .expect("Connect answers")
        .json()
        .await
        .expect("JSON");
    config["topics"].as_str().expect("topics").to_string()
}

/// A producer Kafka keeps state for: an idempotent one (named by its producer id alone) and a
/// transactional one (by its transactional id), each an inferred writer of the topics it
/// wrote; for a scoped caller, a producer is drawn beside a topic she sees and the topics
/// outside her scope it writes are counted, never named.
#[tokio::test]
async fn idempotent_and_transactional_producers_are_found_and_drawn_as_inferred_writers() {
    let covered = unique("it-fprod");
    let mine = format!("{covered}-t");
    let other = unique("it-fprodother");
    create_topic(&mine, 2).await;
    create_topic(&other, 1).await;
    let transactional = format!("{covered}-tx");
    let script = r#"
import sys
from confluent_kafka import Producer
mine, other, tx = sys.argv[1], sys.argv[2], sys.argv[3]
idempotent = Producer({"bootstrap.servers": "127.0.0.1:19092", "enable.idempotence": True})
for i in range(4):
    idempotent.produce(mine, value=b"i%d" % i, partition=i % 2)
idempotent.flush(10)
p = Producer({"bootstrap.servers": "127.0.0.1:19092", "transactional.id": tx})
p.init_transactions(10)
p.begin_transaction()
p.produce(mine, value=b"t", partition=0)
p.produce(other, value=b"t", partition=0)
p.commit_transaction(10)
"#;
    dev_python(script, &[&mine, &other, &transactional]);
    // A group that read all of the topic and left: removable by whoever may delete it.
    let done = format!("{covered}-done");
    // The transaction's commit marker reaches partition 0 after `commit_transaction` returns:
    // wait for it (two idempotent records, the transaction's and its marker), or the group
    // commits one offset short of the end and is not done.
    let mut marks = watermarks(&mine, 2);
    for _ in 0..100 {
        if marks.first().is_some_and(|(_, high)| *high >= 4) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        marks = watermarks(&mine, 2);
    }
    let ends: Vec<(i32, i64)> =
        marks.iter().enumerate().map(|(p, (_, high))| (p as i32, *high)).collect();
    commit_offsets(&done, &mine, &ends);
    let yaml = format!(
        "clusters:\n{}    writable: true\n    catalog: scoped\n{}",
        scram_cluster("local", "klens-secret"),
        auth_block(&format!(
            "  roles:\n    flow: [topology, records]\n    admin: [topology, delete_groups]\n  bindings:\n    - groups: [payments-team]\n      role: flow\n      resources:\n        topics: [\"{covered}*\"]\n    - groups: [kafka-admins]\n      role: admin\n"
        )),
    );
    let (router, catalog) = router_and_catalog(&yaml).await;
    let entry = catalog.get("local").expect("local");
    refresh_until(entry, |e| e.topic_metadata(&other).ok().flatten().is_some()).await;
    entry.refresh_groups().await;
    entry.refresh_producers().await;
    let flow_of = |name: &str| format!("/api/flow?cluster=local&kind=topic&name={name}&hops=1");

    let alice = sign_in(&router, "alice").await;
    let (code, raw) = get_as(&router, &alice, &flow_of(&mine)).await;
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&raw));
    let flow: Value = serde_json::from_slice(&raw).expect("JSON");
    let at = place(&flow, "topic", &mine).expect("the topic");
    let tx = place(&flow, "producer", &transactional).unwrap_or_else(|| panic!("{flow}"));
    let writes = edge(&flow, tx, at).expect("transactional producer → topic");
    assert_eq!(writes["exact"], false, "{flow}");
    assert!(writes["source"].as_str().unwrap_or_default().contains("inferred"), "{flow}");
    // The idempotent producer: a node named by a number, writing the topic.
    let numbered: Vec<usize> = flow["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            n["kind"] == "producer"
                && n["name"].as_str().is_some_and(|s| s.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(numbered.len(), 1, "{flow}");
    assert!(edge(&flow, numbered[0], at).is_some(), "{flow}");
    assert!(node(&flow, "producer", &transactional).expect("tx")["detail"]
        .as_str()
        .is_some_and(|d| d.starts_with("transactional")));
    let coverage = flow["coverage"].to_string();
    assert!(coverage.contains("Producers known for 1 of 1 topic drawn"), "{coverage}");
    assert_eq!(node(&flow, "group", &done).expect("the finished group")["removable"], true);
    let svg = flow["svg"].as_str().expect("svg");
    assert!(svg.contains(&format!("href=\"/c/local/groups/{done}?delete\"")), "{svg}");
    // Around the transactional producer: both topics it wrote.
    let (code, raw) = get_as(
        &router,
        &alice,
        &format!("/api/flow?cluster=local&kind=producer&name={transactional}"),
    )
    .await;
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&raw));
    let around: Value = serde_json::from_slice(&raw).expect("JSON");
    assert!(place(&around, "topic", &other).is_some(), "{around}");

    // erin sees her topic and both its producers; the transactional one also writes a topic
    // outside her scope, counted and never named.
    let erin = sign_in(&router, "erin").await;
    let (code, raw) = get_as(&router, &erin, &flow_of(&mine)).await;
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&raw));
    let text = String::from_utf8_lossy(&raw).to_string();
    let flow: Value = serde_json::from_slice(&raw).expect("JSON");
    let seen = node(&flow, "producer", &transactional).unwrap_or_else(|| panic!("{flow}"));
    assert_eq!(seen["hidden_downstream"], 1, "{flow}");
    assert!(!text.contains(&other), "{text}");
    // She may not delete groups: nothing is removable for her.
    assert!(node(&flow, "group", &done).expect("her group").get("removable").is_none(), "{flow}");
    assert!(!text.contains("flow-remove"), "{text}");
    delete_group_once_empty(&done).await;
}

/// Kafka's own word-count Streams application, run by the dev stack until dropped.
struct StreamsApp(std::process::Child);

impl Drop for StreamsApp {
    /// Asks it to stop (it closes, leaving its group), and kills it after 15 s.
    fn drop(&mut self) {
        let pid = self.0.id().to_string();
        let _ = std::process::Command::new("kill").args(["-TERM", &pid]).status();
        for _ in 0..60 {
            if matches!(self.0.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(250));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A real Kafka Streams application (exactly once): the internal topics it makes and the
/// topic it writes through its transactions are drawn as its group's writes, each inferred.
#[tokio::test]
async fn a_streams_application_writes_its_internal_topics_and_its_output() {
    let app = unique("it-fstreams");
    for topic in ["streams-plaintext-input", "streams-wordcount-output"] {
        if !kafka_topics().iter().any(|(t, _)| t == topic) {
            create_topic(topic, 1).await;
        }
    }
    let state = std::env::temp_dir().join(&app);
    let properties = write_temp(
        &format!("{app}.properties"),
        &format!(
            "application.id={app}\nbootstrap.servers={OPEN_PORT}\nprocessing.guarantee=exactly_once_v2\ncommit.interval.ms=200\nstate.dir={}\nauto.offset.reset=earliest\n",
            state.display()
        ),
    );
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let child = std::process::Command::new(root.join("dev/stack"))
        .arg("streams")
        .arg(&properties)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("dev/stack streams");
    let running = StreamsApp(child);
    // Streams names them after its operators: `<application id>-…-changelog` / `-repartition`.
    let internal = |suffix: &str| {
        kafka_topics()
            .into_iter()
            .map(|(t, _)| t)
            .find(|t| t.starts_with(&format!("{app}-")) && t.ends_with(suffix))
    };
    let lines: Vec<(i32, Option<Vec<u8>>)> =
        (0..5).map(|i| (0, Some(format!("flow of data {i}").into_bytes()))).collect();
    // Written until the application has made its topics and counted some words.
    let mut made = None;
    for _ in 0..120 {
        produce_values("streams-plaintext-input", &lines);
        if let (Some(changelog), Some(repartition)) =
            (internal("-changelog"), internal("-repartition"))
        {
            if watermarks(&changelog, 1)[0].1 > 0 {
                made = Some((changelog, repartition));
                break;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    let (changelog, repartition) =
        made.expect("the Streams application made its internal topics and counted words");
    let (router, catalog) =
        router_and_catalog(&format!("clusters:\n{}", scram_cluster("local", "klens-secret"))).await;
    let entry = catalog.get("local").expect("local");
    refresh_until(entry, |e| e.topic_metadata(&changelog).ok().flatten().is_some()).await;
    entry.refresh_groups().await;
    entry.refresh_producers().await;
    let (code, flow) =
        get_json(&router, &format!("/api/flow?cluster=local&kind=group&name={app}&hops=1")).await;
    assert_eq!(code, 200, "{flow}");
    let g = place(&flow, "group", &app).expect("the application's group");
    let read = place(&flow, "topic", "streams-plaintext-input").expect("its input");
    assert_eq!(edge(&flow, read, g).expect("input → group")["exact"], true, "{flow}");
    for internal in [&changelog, &repartition] {
        let t = place(&flow, "topic", internal).unwrap_or_else(|| panic!("{internal}: {flow}"));
        let written = edge(&flow, g, t).unwrap_or_else(|| panic!("group → {internal}: {flow}"));
        assert_eq!(written["exact"], false);
        assert!(written["source"].as_str().unwrap_or_default().contains("Streams"), "{flow}");
    }
    let out = place(&flow, "topic", "streams-wordcount-output").unwrap_or_else(|| panic!("{flow}"));
    let written = edge(&flow, g, out).expect("group → output");
    assert_eq!(
        written["source"], "transactional ids named after the Streams application (inferred)",
        "{flow}"
    );
    // No producer node stands for the application's own transactions, and the offsets its
    // transactions commit are not drawn as data it writes.
    let kinds: Vec<&str> = flow["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter_map(|n| n["kind"].as_str())
        .collect();
    assert!(!kinds.contains(&"producer"), "{flow}");
    assert!(place(&flow, "topic", "__consumer_offsets").is_none(), "{flow}");
    drop(running);
    delete_group_once_empty(&app).await;
    let _ = std::fs::remove_dir_all(&state);
}
