//! Client quotas against the dev stack, each change checked by what Kafka's own kafka-configs
//! tool lists for the entity.

use serde_json::{json, Value};

use crate::support::*;

fn quotas_of(entity: &[&str]) -> String {
    kafka_configs(entity).trim().to_string()
}

/// Waits until the tool's listing for `entity` satisfies `ready` (quotas reach brokers through
/// the metadata log), and answers the last listing.
fn listed_until(entity: &[&str], ready: impl Fn(&str) -> bool) -> String {
    let mut last = String::new();
    for _ in 0..20 {
        last = quotas_of(entity);
        if ready(&last) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    last
}

fn after(answer: &Value, key: &str) -> Value {
    answer["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["key"] == key)
        .map(|c| c["after"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn a_quota_klens_sets_is_what_kafkas_own_tool_lists() {
    let yaml = format!("clusters:\n{}    writable: true\n", scram_cluster("local", "klens-secret"));
    let router = router(&yaml).await;
    let user = unique("it-quota");
    let entity = ["--entity-type", "users", "--entity-name", user.as_str()];
    let part = json!([{"type": "user", "name": user}]);

    let body = json!({"cluster": "local", "entity": part, "set": {"producer_byte_rate": 1048576, "consumer_byte_rate": 2097152}, "dry_run": true});
    let (status, preview) = post(&router, "/api/alter_quota", body).await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(after(&preview, "producer_byte_rate"), json!(1048576.0));
    assert!(!quotas_of(&entity).contains("byte_rate"), "a dry run set a quota");

    let body = json!({"cluster": "local", "entity": part, "set": {"producer_byte_rate": 1048576, "consumer_byte_rate": 2097152}});
    let (status, set) = post(&router, "/api/alter_quota", body).await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(after(&set, "consumer_byte_rate"), json!(2097152.0));
    let listed = listed_until(&entity, |l| l.contains("consumer_byte_rate"));
    assert!(
        listed.contains("producer_byte_rate=1048576.0")
            && listed.contains("consumer_byte_rate=2097152.0"),
        "{listed}"
    );
    let (_, list) = get_json(&router, "/api/quotas?cluster=local").await;
    let ours = list["quotas"]
        .as_array()
        .expect("quotas")
        .iter()
        .find(|q| q["entity"] == part)
        .cloned()
        .expect("listed");
    assert_eq!(ours["values"]["producer_byte_rate"], json!(1048576.0));

    // Edit: one figure changes, one goes.
    let body = json!({"cluster": "local", "entity": part, "set": {"producer_byte_rate": 524288}, "remove": ["consumer_byte_rate"]});
    let (status, edited) = post(&router, "/api/alter_quota", body).await;
    assert_eq!(status, 200, "{edited}");
    assert_eq!(after(&edited, "consumer_byte_rate"), Value::Null);
    let listed = listed_until(&entity, |l| !l.contains("consumer_byte_rate"));
    assert!(
        listed.contains("producer_byte_rate=524288.0") && !listed.contains("consumer_byte_rate"),
        "{listed}"
    );

    let body = json!({"cluster": "local", "entity": part, "remove": ["producer_byte_rate"]});
    let (status, _) = post(&router, "/api/alter_quota", body).await;
    assert_eq!(status, 200);
    let listed = listed_until(&entity, |l| !l.contains("byte_rate"));
    assert!(!listed.contains("byte_rate"), "{listed}");
}

#[tokio::test]
async fn quotas_for_a_user_and_client_and_for_an_ip_reach_kafka() {
    let yaml = format!("clusters:\n{}    writable: true\n", scram_cluster("local", "klens-secret"));
    let router = router(&yaml).await;
    let client = unique("it-client");
    // The default user with one client id.
    let part = json!([{"type": "client-id", "name": client}, {"type": "user", "name": null}]);
    let body = json!({"cluster": "local", "entity": part, "set": {"request_percentage": 25.5}});
    let (status, set) = post(&router, "/api/alter_quota", body).await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["entity"][0], json!({"type": "user", "name": null}));
    let entity = [
        "--entity-type",
        "users",
        "--entity-default",
        "--entity-type",
        "clients",
        "--entity-name",
        client.as_str(),
    ];
    let listed = listed_until(&entity, |l| l.contains("request_percentage"));
    assert!(listed.contains("request_percentage=25.5"), "{listed}");
    let body = json!({"cluster": "local", "entity": part, "remove": ["request_percentage"]});
    assert_eq!(post(&router, "/api/alter_quota", body).await.0, 200);

    let ip = "10.20.30.40";
    let part = json!([{"type": "ip", "name": ip}]);
    let body = json!({"cluster": "local", "entity": part, "set": {"connection_creation_rate": 7}});
    let (status, set) = post(&router, "/api/alter_quota", body).await;
    assert_eq!(status, 200, "{set}");
    let entity = ["--entity-type", "ips", "--entity-name", ip];
    let listed = listed_until(&entity, |l| l.contains("connection_creation_rate"));
    assert!(listed.contains("connection_creation_rate=7.0"), "{listed}");
    let body = json!({"cluster": "local", "entity": part, "remove": ["connection_creation_rate"]});
    assert_eq!(post(&router, "/api/alter_quota", body).await.0, 200);
    let listed = listed_until(&entity, |l| !l.contains("connection_creation_rate"));
    assert!(!listed.contains("connection_creation_rate"), "{listed}");

    // A figure the entity does not take is refused before Kafka is asked.
    let body = json!({"cluster": "local", "entity": part, "set": {"producer_byte_rate": 1}});
    let (status, refused) = post(&router, "/api/alter_quota", body).await;
    assert_eq!((status.as_u16(), refused["field"].as_str()), (400, Some("set")), "{refused}");
}
