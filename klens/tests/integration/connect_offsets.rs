//! A connector's offsets (KIP-875) through klens, against the dev stack's real Connect worker:
//! read as Connect holds them, planned by a dry run, changed only on a stopped connector, each
//! change seen by Connect's own REST API and by the sink's consumer group in Kafka; a change that
//! strays from the sink's topics, and callers the scope or the privilege leaves out, refused
//! with Connect unchanged.

use std::time::Duration;

use serde_json::{json, Value};

use crate::connect::{connect_get, sink, two_sinks_and_a_scope, until_state};
use crate::support::*;

/// Connect's own answer on `name`'s offsets.
async fn offsets_in_connect(name: &str) -> Value {
    connect_get(&format!("connectors/{name}/offsets")).await["offsets"].clone()
}

/// The offset the group `group` has committed on `topic` partition 0, read by a consumer of its
/// own (rdkafka), or `None` when it has none.
fn committed(group: &str, topic: &str) -> Option<i64> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    let consumer: BaseConsumer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("group.id", group)
        .create()
        .expect("consumer");
    let mut list = rdkafka::TopicPartitionList::new();
    list.add_partition(topic, 0);
    let answer = consumer.committed_offsets(list, Duration::from_secs(10)).expect("committed");
    let offset = answer.find_partition(topic, 0).map(|p| p.offset());
    match offset {
        Some(rdkafka::Offset::Offset(n)) => Some(n),
        _ => None,
    }
}

/// A FileStream sink on `topic` that reads plain strings.
fn string_sink(name: &str, topic: &str) -> Value {
    let mut config = sink(&std::env::temp_dir().join(name).to_string_lossy(), topic);
    config["value.converter"] = json!("org.apache.kafka.connect.storage.StringConverter");
    config["key.converter"] = json!("org.apache.kafka.connect.storage.StringConverter");
    config
}

#[tokio::test]
async fn offsets_are_read_planned_and_changed_only_on_a_stopped_connector() {
    let name = unique("it-coffsets");
    create_topic(&name, 1).await;
    produce(&name, &[(0, 5)]);
    put_connector(CONNECT, &name, string_sink(&name, &name)).await;
    // The sink commits what it has written every second (dev/stack's worker).
    let mut held = Value::Null;
    for _ in 0..60 {
        held = offsets_in_connect(&name).await;
        if held[0]["offset"]["kafka_offset"] == 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(held[0]["offset"]["kafka_offset"], 5, "{held}");

    let yaml = format!(
        "clusters:\n{}    writable: true\n    connect:\n      - name: dev\n        url: {CONNECT}\n",
        scram_cluster("local", "klens-secret")
    );
    let (router, catalog) = router_and_catalog(&yaml).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let path = format!("/api/connector_offsets?cluster=local&connect=dev&name={name}");
    let (code, read) = get_json(&router, &path).await;
    assert_eq!(code, 200, "{read}");
    assert_eq!(read["offsets"], held, "klens shows what Connect holds");
    assert_eq!(read["state"], "RUNNING");

    let body = |extra: Value| {
        let mut body = json!({"cluster": "local", "connect": "dev", "name": name});
        if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
            b.extend(e.clone());
        }
        body
    };
    // A running connector: the plan says so, and the change itself is refused.
    let (code, plan) =
        post(&router, "/api/reset_connector_offsets", body(json!({"dry_run": true}))).await;
    assert_eq!(code, 200, "{plan}");
    assert_eq!((plan["state"].clone(), plan["applied"].clone()), (json!("RUNNING"), json!(false)));
    assert_eq!(plan["before"], held);
    assert_eq!(plan["after"], json!([]));
    let (code, refused) = post(&router, "/api/reset_connector_offsets", body(json!({}))).await;
    assert_eq!((code.as_u16(), refused["code"].clone()), (409, json!("ADMIN")), "{refused}");
    assert!(refused["message"].as_str().unwrap_or_default().contains("Stop it first"));
    assert_eq!(offsets_in_connect(&name).await, held, "Connect unchanged");

    // A partition of a topic the sink does not read is refused before Connect sees it.
    let stray = json!({"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": 0}}]});
    let (code, refused) = post(&router, "/api/reset_connector_offsets", body(stray)).await;
    assert_eq!((code.as_u16(), refused["field"].clone()), (400, json!("offsets")), "{refused}");

    let (code, _) = post(&router, "/api/stop_connector", body(json!({}))).await;
    assert_eq!(code, 200);
    until_state(&name, "STOPPED").await;
    // Set partition 0 back to 2: Connect and the sink's group in Kafka both say 2.
    let two = json!({"offsets": [{"partition": {"kafka_topic": name, "kafka_partition": 0}, "offset": {"kafka_offset": 2}}]});
    let (code, plan) = post(&router, "/api/reset_connector_offsets", body(two)).await;
    assert_eq!(code, 200, "{plan}");
    assert_eq!(plan["applied"], true);
    assert_eq!(plan["before"], held);
    assert_eq!(offsets_in_connect(&name).await[0]["offset"]["kafka_offset"], 2);
    assert_eq!(committed(&format!("connect-{name}"), &name), Some(2));
    assert_eq!(plan["after"][0]["offset"]["kafka_offset"], 2, "{plan}");
    // The connector's page carries its offsets, and its lag is its group's: three records behind.
    let entry = catalog.get("local").expect("local");
    entry.refresh().await;
    entry.refresh_groups().await;
    let detail = format!("/api/connector?cluster=local&connect=dev&name={name}");
    let (code, detail) = get_json(&router, &detail).await;
    assert_eq!((code, detail["group_lag"].clone()), (200, json!(3)), "{detail}");
    assert_eq!(detail["offsets"][0]["offset"]["kafka_offset"], 2, "the page's offsets: {detail}");
    // The topic's page and the group's name the sink back.
    let (_, topic) = get_json(&router, &format!("/api/topic?cluster=local&topic={name}")).await;
    let linked = json!([{"connect": "dev", "name": name, "kind": "sink"}]);
    assert_eq!(topic["connectors"], linked, "{topic}");
    let group = format!("/api/group?cluster=local&group=connect-{name}");
    let (_, group) = get_json(&router, &group).await;
    assert_eq!(group["connector"], linked[0], "{group}");

    // Every offset removed: Connect holds none, and the group has no commit.
    let (code, plan) = post(&router, "/api/reset_connector_offsets", body(json!({}))).await;
    assert_eq!(code, 200, "{plan}");
    assert_eq!(offsets_in_connect(&name).await, json!([]));
    assert_eq!(committed(&format!("connect-{name}"), &name), None);

    delete_connector(CONNECT, &name).await;
}

/// erin manages the connectors on topics `covered` starts: another sink's offsets answer her as
/// a connector that does not exist; bob, without the privilege, is refused by name.
#[tokio::test]
async fn a_scope_and_the_privilege_guard_a_connectors_offsets() {
    let covered = unique("it-coffscope");
    let (a, b, yaml) =
        two_sinks_and_a_scope(&covered, "it-coffother", "connectors, manage_connectors").await;
    let (router, catalog) = router_and_catalog(&yaml).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let erin = sign_in(&router, "erin").await;
    let read = |n: &str| format!("/api/connector_offsets?cluster=local&connect=dev&name={n}");
    let (code, _) = get_as(&router, &erin, &read(&a)).await;
    assert_eq!(code, 200);
    let (code, _) = get_as(&router, &erin, &read(&b)).await;
    assert_eq!(code, 404);
    let body = |n: &str| json!({"cluster": "local", "connect": "dev", "name": n, "dry_run": true});
    let (code, raw) = post_as(&router, &erin, "/api/reset_connector_offsets", body(&b)).await;
    assert_eq!(code, 404, "{raw}");
    let (code, raw) = post_as(&router, &erin, "/api/reset_connector_offsets", body(&a)).await;
    assert_eq!(code, 200, "{raw}");

    let bob = sign_in(&router, "bob").await;
    let (code, raw) = post_as(&router, &bob, "/api/reset_connector_offsets", body(&a)).await;
    assert_eq!(
        (code.as_u16(), raw["privilege"].clone()),
        (403, json!("MANAGE_CONNECTORS")),
        "{raw}"
    );
    delete_connector(CONNECT, &a).await;
    delete_connector(CONNECT, &b).await;
}

/// erin sees a sink (CONNECTORS on its topics) and manages connectors elsewhere only: her reset
/// is refused on the privilege before the offsets she names are judged, so a refusal never says
/// which topics the sink reads.
#[tokio::test]
async fn a_reset_is_decided_on_the_connector_before_its_offsets_are_judged() {
    let covered = unique("it-coffdecide");
    let (a, b, yaml) = two_sinks_and_a_scope(&covered, "it-coffdother", "connectors").await;
    let yaml = yaml
        .replacen("    conn: [connectors]\n", "    conn: [connectors]\n    mgr: [manage_connectors]\n", 1)
        .replacen(
            "    - groups: [kafka-viewers]\n",
            "    - groups: [payments-team]\n      role: mgr\n      resources:\n        topics: [\"it-elsewhere*\"]\n    - groups: [kafka-viewers]\n",
            1,
        );
    assert!(yaml.contains("role: mgr"), "{yaml}");
    let (router, catalog) = router_and_catalog(&yaml).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let erin = sign_in(&router, "erin").await;
    let partition = |t: &str| json!([{"partition": {"kafka_topic": t, "kafka_partition": 0}, "offset": {"kafka_offset": 0}}]);
    for offsets in [partition("not-its-topic"), partition(&format!("{covered}-t")), json!(null)] {
        let body = json!({"cluster": "local", "connect": "dev", "name": a, "dry_run": true, "offsets": offsets});
        let (code, raw) = post_as(&router, &erin, "/api/reset_connector_offsets", body).await;
        assert_eq!(
            (code.as_u16(), raw["privilege"].clone()),
            (403, json!("MANAGE_CONNECTORS")),
            "{offsets}: {raw}"
        );
    }
    delete_connector(CONNECT, &a).await;
    delete_connector(CONNECT, &b).await;
}
