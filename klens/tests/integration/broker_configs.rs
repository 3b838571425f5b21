//! Broker configs against the dev stack, each change checked by other clients: what
//! confluent-kafka's DescribeConfigs answers for the broker, and what Kafka's own
//! kafka-configs tool lists for the cluster-wide default.

use serde_json::{json, Value};

use crate::support::*;

/// A dynamic config no other test touches.
const CONFIG: &str = "log.cleaner.backoff.ms";

/// `value source` of `name` on broker 1, as confluent-kafka's admin client describes it.
fn described(name: &str) -> String {
    let script = r#"
import sys
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, ResourceType
admin = AdminClient({"bootstrap.servers": "127.0.0.1:19092"})
r = ConfigResource(ResourceType.BROKER, "1")
c = admin.describe_configs([r])[r].result(timeout=15)[sys.argv[1]]
print(c.value, ConfigSource(c.source).name)
"#;
    dev_python(script, &[name]).trim().to_string()
}

/// Waits until confluent-kafka describes `name` as `want` (dynamic values reach the broker
/// through the metadata log), and answers the last description.
fn described_as(name: &str, want: &str) -> String {
    let mut last = String::new();
    for _ in 0..20 {
        last = described(name);
        if last == want {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    last
}

/// `described`, once no dynamic value is in force any more.
fn described_until_static(name: &str) -> String {
    let mut last = String::new();
    for _ in 0..20 {
        last = described(name);
        if !last.contains(" DYNAMIC_") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    last
}

fn cluster_default() -> String {
    kafka_configs(&["--entity-type", "brokers", "--entity-default"])
}

fn router_yaml() -> String {
    format!(
        "clusters:\n{}    writable: true\n{}",
        scram_cluster("local", "klens-secret"),
        scram_cluster("ro", "klens-secret")
    )
}

fn change(body: &Value) -> (Option<&str>, Option<&str>) {
    let c = &body["changes"][0];
    (c["after"].as_str(), c["after_source"].as_str())
}

#[tokio::test]
async fn a_broker_config_klens_sets_is_what_other_clients_describe() {
    let router = router(&router_yaml()).await;
    // A run that failed half-way may have left values set: Kafka's own tool removes them.
    for entity in [["--entity-name", "1"], ["--entity-default", ""]] {
        let mut args = vec!["--bootstrap-server", OPEN_PORT, "--alter", "--entity-type", "brokers"];
        args.extend(entity.iter().filter(|a| !a.is_empty()));
        args.extend(["--delete-config", CONFIG]);
        let _ = kafka_tool_status("kafka.admin.ConfigCommand", &args);
    }
    // The value before any change, as confluent-kafka describes it once nothing dynamic is set.
    let original = described_until_static(CONFIG);
    let (start_value, start_source) = original.split_once(' ').expect("value and source");
    assert!(!start_source.starts_with("DYNAMIC"), "{CONFIG} is left set: {original}");
    let (status, list) = get_json(&router, "/api/broker_configs?cluster=local&broker=1").await;
    assert_eq!(status, 200, "{list}");
    let configs = list["configs"].as_array().expect("configs");
    let ours = configs.iter().find(|c| c["name"] == CONFIG).expect("listed");
    assert_eq!(ours["update_mode"], "cluster_wide");
    assert_eq!(ours["value"].as_str(), Some(start_value));
    let source = ours["source"].as_str().unwrap_or_default().to_uppercase();
    assert!(start_source.starts_with(&source), "{source} against {start_source}");
    let log_dirs = configs.iter().find(|c| c["name"] == "log.dirs").expect("log.dirs");
    assert_eq!(
        (log_dirs["read_only"].as_bool(), log_dirs["update_mode"].as_str()),
        (Some(true), Some("read_only"))
    );
    // No sensitive value leaves klens: the SSL listener's keystore password is in the broker's
    // server.properties.
    for c in configs.iter().filter(|c| c["sensitive"] == true) {
        assert!(c["value"].is_null(), "{c}");
        assert!(
            c["synonyms"].as_array().expect("synonyms").iter().all(|s| s["value"].is_null()),
            "{c}"
        );
    }
    assert!(!list.to_string().contains("klens-dev\""), "a store password in the answer");

    // A dry run: Kafka validates, nothing changes.
    let body = json!({"cluster": "local", "broker": 1, "set": {CONFIG: "16000"}, "dry_run": true});
    let (status, preview) = post(&router, "/api/alter_broker_config", body).await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(change(&preview), (Some("16000"), Some("dynamic_broker")));
    assert_eq!(described(CONFIG), original);

    let body = json!({"cluster": "local", "broker": 1, "set": {CONFIG: "16000"}});
    let (status, set) = post(&router, "/api/alter_broker_config", body).await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(change(&set), (Some("16000"), Some("dynamic_broker")));
    assert_eq!(described_as(CONFIG, "16000 DYNAMIC_BROKER_CONFIG"), "16000 DYNAMIC_BROKER_CONFIG");

    // The cluster-wide default, under the broker's own value.
    let body = json!({"cluster": "local", "set": {CONFIG: "17000"}});
    let (status, set) = post(&router, "/api/alter_broker_config", body).await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(change(&set), (Some("17000"), Some("dynamic_default_broker")));
    assert!(cluster_default().contains(&format!("{CONFIG}=17000")), "{}", cluster_default());
    let (_, defaults) = get_json(&router, "/api/broker_configs?cluster=local").await;
    assert_eq!(defaults["read_from"], 1);
    let shown = defaults["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .find(|c| c["name"] == CONFIG)
        .cloned()
        .expect("listed");
    assert_eq!(
        (shown["value"].as_str(), shown["source"].as_str()),
        (Some("17000"), Some("dynamic_default_broker"))
    );

    // Removing the broker's value falls back to the default.
    let body = json!({"cluster": "local", "broker": 1, "remove": [CONFIG]});
    let (status, removed) = post(&router, "/api/alter_broker_config", body).await;
    assert_eq!(status, 200, "{removed}");
    assert_eq!(change(&removed), (Some("17000"), Some("dynamic_default_broker")));
    assert_eq!(
        described_as(CONFIG, "17000 DYNAMIC_DEFAULT_BROKER_CONFIG"),
        "17000 DYNAMIC_DEFAULT_BROKER_CONFIG"
    );

    let body = json!({"cluster": "local", "remove": [CONFIG]});
    let (status, removed) = post(&router, "/api/alter_broker_config", body).await;
    assert_eq!(status, 200, "{removed}");
    assert!(!cluster_default().contains(CONFIG), "{}", cluster_default());
    assert_eq!(described_as(CONFIG, &original), original);
}

#[tokio::test]
async fn broker_config_changes_kafka_would_refuse_are_refused_in_words() {
    let router = router(&router_yaml()).await;
    for (body, status, words) in [
        (json!({"cluster": "local", "broker": 1, "set": {"log.dirs": "/tmp/x"}}), 422, "restart"),
        (json!({"cluster": "local", "set": {"listeners": "PLAINTEXT://:1"}}), 422, "per broker"),
        (json!({"cluster": "local", "broker": 99, "set": {CONFIG: "1"}}), 404, "no broker 99"),
        (json!({"cluster": "local", "broker": 1, "set": {CONFIG: "soon"}}), 422, "soon"),
        (json!({"cluster": "local", "broker": 1}), 400, "at least one"),
        (json!({"cluster": "ro", "broker": 1, "set": {CONFIG: "16000"}}), 403, "read-only"),
    ] {
        let (got, answer) = post(&router, "/api/alter_broker_config", body.clone()).await;
        assert_eq!(got.as_u16(), status, "{body}: {answer}");
        let message = answer["message"].as_str().unwrap_or_default();
        assert!(message.contains(words), "{body}: {message}");
    }
    // A value typed for a sensitive config is never answered back, whatever Kafka makes of it.
    let secret = "org.apache.kafka.common.security.plain.PlainLoginModule required password=\"typed-secret\";";
    for name in ["listener.name.sasl_plaintext.plain.sasl.jaas.config", "sasl.jaas.config"] {
        let body = json!({"cluster": "local", "broker": 1, "set": {name: secret}, "dry_run": true});
        let (_, answer) = post(&router, "/api/alter_broker_config", body).await;
        assert!(!answer.to_string().contains("typed-secret"), "{name}: {answer}");
    }
    assert!(!cluster_default().contains("listeners"), "{}", cluster_default());
    assert_eq!(described("log.dirs").split(' ').nth(1), Some("STATIC_BROKER_CONFIG"));
}
