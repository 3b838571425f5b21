//! SCRAM users against the dev stack, checked by behaviour: a user klens adds signs in to the
//! SASL listener with that password (and not with another), and cannot once klens deletes the
//! credential.

use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::ClientConfig;
use serde_json::json;

use crate::support::*;

/// Whether `user` signs in with `password` over SCRAM-SHA-512 (a metadata request answers).
fn signs_in(user: &str, password: &str) -> bool {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", SCRAM_PORT)
        .set("security.protocol", "SASL_PLAINTEXT")
        .set("sasl.mechanism", "SCRAM-SHA-512")
        .set("sasl.username", user)
        .set("sasl.password", password)
        .create()
        .expect("client");
    consumer.fetch_metadata(None, Duration::from_secs(5)).is_ok()
}

/// Waits up to ten seconds for `signs_in` to become `want` (a change reaches every listener
/// through the metadata log).
fn eventually(user: &str, password: &str, want: bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if signs_in(user, password) == want {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[tokio::test]
async fn a_user_klens_adds_signs_in_until_klens_deletes_the_credential() {
    let user = unique("it-user");
    let password = "a long passphrase, salted by klens";
    let yaml = format!("clusters:\n{}    writable: true\n", scram_cluster("local", "klens-secret"));
    let router = router(&yaml).await;
    let set = json!({"cluster": "local", "user": user, "mechanism": "SCRAM-SHA-512",
                     "iterations": 4096, "password": password});

    let mut preview = set.clone();
    preview["dry_run"] = json!(true);
    let (status, said) = post(&router, "/api/set_scram_credential", preview).await;
    assert_eq!(status.as_u16(), 200, "{said}");
    assert!(!said.to_string().contains(password), "the answer never holds the password");
    assert!(!signs_in(&user, password), "a dry run adds nobody");

    let (status, done) = post(&router, "/api/set_scram_credential", set).await;
    assert_eq!(status.as_u16(), 200, "{done}");
    assert!(!done.to_string().contains(password));
    assert!(eventually(&user, password, true), "the new user signs in");
    assert!(!signs_in(&user, "another password"));

    let (status, listed) = get_raw(&router, "/api/scram_users?cluster=local").await;
    let listed: serde_json::Value = serde_json::from_slice(&listed).expect("JSON");
    assert_eq!(status.as_u16(), 200, "{listed}");
    let ours = listed["users"]
        .as_array()
        .expect("users")
        .iter()
        .find(|u| u["user"] == json!(user))
        .cloned();
    assert_eq!(
        ours.map(|u| u["credentials"].clone()),
        Some(json!([{"mechanism": "SCRAM-SHA-512", "iterations": 4096}]))
    );

    let delete = json!({"cluster": "local", "user": user, "mechanism": "SCRAM-SHA-512"});
    let (status, gone) = post(&router, "/api/delete_scram_credential", delete.clone()).await;
    assert_eq!(status.as_u16(), 200, "{gone}");
    assert!(eventually(&user, password, false), "the deleted user no longer signs in");
    let (status, again) = post(&router, "/api/delete_scram_credential", delete).await;
    assert_eq!((status.as_u16(), again["code"].as_str()), (404, Some("NOT_FOUND")), "{again}");
}
