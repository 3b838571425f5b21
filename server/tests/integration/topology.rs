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

    // Around a topic outside her scope: refused on the topic, as any topic privilege is.
    let (code, raw) = get_as(&router, &erin, &flow_of("topic", &their_topic, 1)).await;
    let refused: Value = serde_json::from_slice(&raw).expect("JSON");
    assert_eq!(
        (code.as_u16(), refused["privilege"].as_str()),
        (403, Some("TOPOLOGY")),
        "{refused}"
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
