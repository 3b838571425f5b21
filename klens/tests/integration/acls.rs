//! ACL bindings against the dev stack, with each effect checked by behaviour: a consumer that
//! signs in as the user a binding names reads the topic after klens creates it, and is refused
//! after klens deletes it; what stays is what Kafka's own admin client lists.

use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};
use serde_json::json;

use crate::support::*;

/// What a consumer signed in as `reporting` over SCRAM gets from partition 0 of `topic`: its
/// first record's value, or Kafka's error.
fn read_as_reporting(topic: &str) -> Result<Vec<u8>, String> {
    use rdkafka::message::Message;
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", SCRAM_PORT)
        .set("security.protocol", "SASL_PLAINTEXT")
        .set("sasl.mechanism", "SCRAM-SHA-512")
        .set("sasl.username", "reporting")
        .set("sasl.password", "reporting-secret")
        .set("group.id", unique("reporting-it"))
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
    let mut assignment = TopicPartitionList::new();
    assignment.add_partition_offset(topic, 0, Offset::Beginning).expect("partition");
    consumer.assign(&assignment).expect("assign");
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut last = "nothing read".to_string();
    while Instant::now() < deadline {
        match consumer.poll(Duration::from_millis(500)) {
            Some(Ok(m)) => return Ok(m.payload().unwrap_or_default().to_vec()),
            Some(Err(e)) => {
                last = e.to_string();
                if last.contains("Authorization") || last.contains("authorization") {
                    return Err(last);
                }
            }
            None => {}
        }
    }
    Err(last)
}

/// The bindings on `topic`, as confluent-kafka's admin client lists them (signed in as the
/// dev stack's super user), one `principal operation permission pattern` line each.
fn bindings_on(topic: &str) -> Vec<String> {
    let script = r#"
import sys
from confluent_kafka.admin import AdminClient, AclBindingFilter, ResourceType, ResourcePatternType, AclOperation, AclPermissionType
admin = AdminClient({"bootstrap.servers": "127.0.0.1:19092"})
f = AclBindingFilter(ResourceType.TOPIC, sys.argv[1], ResourcePatternType.ANY, None, None, AclOperation.ANY, AclPermissionType.ANY)
for b in admin.describe_acls(f).result(timeout=15):
    print(b.principal, b.operation.name, b.permission_type.name, b.resource_pattern_type.name)
"#;
    let mut lines: Vec<String> = dev_python(script, &[topic]).lines().map(str::to_string).collect();
    lines.sort();
    lines
}

#[tokio::test]
async fn an_acl_klens_creates_lets_its_user_read_until_klens_deletes_exactly_it() {
    let topic = unique("it-acl");
    create_topic(&topic, 1).await;
    produce(&topic, &[(0, 1)]);
    assert!(read_as_reporting(&topic).is_err(), "no ACL yet");

    let yaml = format!("clusters:\n{}    writable: true\n", scram_cluster("local", "klens-secret"));
    let router = router(&yaml).await;
    let binding = |operation: &str| {
        json!({"cluster": "local", "principal": "User:reporting", "resource_type": "topic",
               "resource_name": topic, "operation": operation})
    };

    let mut preview = binding("read");
    preview["dry_run"] = json!(true);
    let (status, said) = post(&router, "/api/create_acl", preview).await;
    assert_eq!(status.as_u16(), 200, "{said}");
    assert_eq!(said["words"], format!("User:reporting may READ the topic {topic} from any host"));
    assert!(bindings_on(&topic).is_empty(), "a dry run creates nothing");

    for operation in ["read", "describe"] {
        let (status, made) = post(&router, "/api/create_acl", binding(operation)).await;
        assert_eq!(status.as_u16(), 200, "{made}");
    }
    assert_eq!(
        bindings_on(&topic),
        ["User:reporting DESCRIBE ALLOW LITERAL", "User:reporting READ ALLOW LITERAL"]
    );
    assert_eq!(read_as_reporting(&topic), Ok(b"record 0".to_vec()));

    // Deleting READ leaves DESCRIBE: exactly that binding goes.
    let (status, gone) = post(&router, "/api/delete_acl", binding("read")).await;
    assert_eq!(status.as_u16(), 200, "{gone}");
    assert_eq!(bindings_on(&topic), ["User:reporting DESCRIBE ALLOW LITERAL"]);
    let refused = read_as_reporting(&topic).expect_err("READ is gone");
    assert!(refused.contains("uthorization"), "{refused}");

    let (status, again) = post(&router, "/api/delete_acl", binding("read")).await;
    assert_eq!((status.as_u16(), again["code"].as_str()), (404, Some("NOT_FOUND")), "{again}");
    let (status, listed) = get_raw(&router, "/api/acls?cluster=local").await;
    let listed: serde_json::Value = serde_json::from_slice(&listed).expect("JSON");
    assert_eq!(status.as_u16(), 200, "{listed}");
    let ours: Vec<_> = listed["acls"]
        .as_array()
        .expect("acls")
        .iter()
        .filter(|a| a["resource_name"] == json!(topic))
        .map(|a| a["operation"].clone())
        .collect();
    assert_eq!(ours, [json!("describe")]);
    post(&router, "/api/delete_acl", binding("describe")).await;
    assert!(bindings_on(&topic).is_empty());
}

/// With a Kafka user for klens that holds nothing on the cluster (dev/seed's `klens-limited`),
/// the ACL and SCRAM calls say what that user lacks, as `REFUSED`.
#[tokio::test]
async fn the_acl_and_user_calls_say_what_klens_own_kafka_user_lacks() {
    let yaml = format!(
        "clusters:\n  - name: limited\n    bootstrap_servers: {SCRAM_PORT}\n    writable: true\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: klens-limited\n      password: limited-secret\n"
    );
    let router = router(&yaml).await;
    for (path, needs) in [
        ("/api/acls?cluster=limited", "DESCRIBE"),
        ("/api/scram_users?cluster=limited", "DESCRIBE"),
        ("/api/quotas?cluster=limited", "DESCRIBE_CONFIGS"),
        ("/api/broker_configs?cluster=limited&broker=1", "DESCRIBE_CONFIGS"),
    ] {
        let (status, body) = get_raw(&router, path).await;
        let body: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(
            (status.as_u16(), body["code"].as_str()),
            (403, Some("REFUSED")),
            "{path}: {body}"
        );
        let message = body["message"].as_str().unwrap_or_default();
        assert!(message.contains(&format!("needs {needs} on the cluster")), "{path}: {message}");
    }
    for (call, body) in [
        (
            "create_acl",
            json!({"cluster": "limited", "principal": "User:nobody", "resource_type": "topic",
                   "resource_name": "orders", "operation": "read"}),
        ),
        (
            "set_scram_credential",
            json!({"cluster": "limited", "user": unique("it-nobody"), "password": "never set"}),
        ),
    ] {
        let (status, answer) = post(&router, &format!("/api/{call}"), body).await;
        assert_eq!(
            (status.as_u16(), answer["code"].as_str()),
            (403, Some("REFUSED")),
            "{call}: {answer}"
        );
        let message = answer["message"].as_str().unwrap_or_default();
        assert!(message.contains("needs ALTER on the cluster"), "{call}: {message}");
    }
}
