use std::process::Stdio;
use std::time::Duration;

use app::api::HealthStatus;
use server::catalog::Catalog;

use crate::support::*;

#[tokio::test]
async fn every_client_security_mode_reaches_the_cluster() {
    let clusters = format!(
        "clusters:
  - name: plaintext
    bootstrap_servers: {OPEN_PORT}
  - name: sasl-plain
    bootstrap_servers: {SCRAM_PORT}
    sasl:
      mechanism: PLAIN
      username: klens
      password: klens-secret
{}  - name: mtls
    bootstrap_servers: 127.0.0.1:19095
    tls:
      ca: {}
      cert: {}
      key: {}
",
        scram_cluster("scram", "klens-secret"),
        tls_file("ca.pem"),
        tls_file("client.pem"),
        tls_file("client.key"),
    );
    let catalog = Catalog::new(&config(&clusters));
    for entry in catalog.clusters() {
        entry.refresh().await;
        let summary = entry.summary();
        assert_eq!(summary.health.status, HealthStatus::Ok, "{}: {:?}", entry.name, summary.health);
        assert!(summary.topics.is_some_and(|n| n > 0), "{}", entry.name);
    }
}

#[tokio::test]
async fn mutual_tls_without_a_client_certificate_is_refused() {
    let yaml = format!(
        "clusters:\n  - name: anonymous-tls\n    bootstrap_servers: 127.0.0.1:19095\n    tls:\n      ca: {}\n",
        tls_file("ca.pem")
    );
    let catalog = Catalog::new(&config(&yaml));
    let entry = catalog.get("anonymous-tls").expect("configured");
    entry.refresh().await;
    let health = entry.summary().health;
    assert_eq!(health.status, HealthStatus::Unreachable, "{health:?}");
}

#[test]
fn the_sasl_password_never_reaches_the_log() {
    let secret = unique("hunter2-secret");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let path = write_temp(
        "config.yaml",
        &format!("listen: 127.0.0.1:{port}\nclusters:\n{}", scram_cluster("badauth", &secret)),
    );
    let mut child = klens()
        .args(["--config"])
        .arg(&path)
        .env("RUST_LOG", "trace")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("klens starts");
    // /ready turns 200 once the first refresh (a failed SASL handshake) is over and logged.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while http_status(port, "/ready") != Some(200) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = child.kill();
    let out = child.wait_with_output().expect("output");
    let log =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(log.contains("metadata refresh failed"), "no refresh failure logged:\n{log}");
    assert!(!log.contains(&secret), "the password leaked into the log");
}

/// The status of a plain HTTP/1.1 GET on loopback, or None when nothing answers.
fn http_status(port: u16, path: &str) -> Option<u16> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").ok()?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// An encrypted client key, with its password as `properties["ssl.key.password"]` (what the
/// configuration guide recommends), reaches the mutual-TLS listener through both of klens's
/// Kafka clients: metadata and groups through its protocol client, watermarks through
/// librdkafka, so topics, groups, lag and sizes all show. Regression for the re-cut issue: the
/// protocol client could not read such a key, and groups, lag and sizes went dark.
#[tokio::test]
async fn an_encrypted_client_key_shows_topics_groups_lag_and_sizes() {
    let password = unique("key-pw");
    let encrypted = std::env::temp_dir().join(format!("{}.key", unique("klens-encrypted")));
    let made = std::process::Command::new("openssl")
        .args(["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in"])
        .arg(tls_file("client.key"))
        .arg("-out")
        .arg(&encrypted)
        .args(["-passout", &format!("pass:{password}")])
        .status()
        .expect("openssl runs");
    assert!(made.success(), "openssl could not encrypt the key");
    let text = std::fs::read_to_string(&encrypted).expect("the encrypted key");
    assert!(text.contains("BEGIN ENCRYPTED PRIVATE KEY"), "{text}");

    let topic = unique("it-encrypted");
    create_topic(&topic, 1).await;
    produce(&topic, &[(0, 5)]);
    let group = unique("it-encrypted-group");
    commit_offsets(&group, &topic, &[(0, 2)]);

    let yaml = format!(
        "clusters:
  - name: mtls-encrypted
    bootstrap_servers: 127.0.0.1:19095
    tls:
      ca: {}
      cert: {}
      key: {}
    properties:
      ssl.key.password: {password}
",
        tls_file("ca.pem"),
        tls_file("client.pem"),
        encrypted.display(),
    );
    let catalog = Catalog::new(&config(&yaml));
    let entry = catalog.get("mtls-encrypted").expect("configured");
    entry.refresh().await;
    let summary = entry.summary();
    assert_eq!(summary.health.status, HealthStatus::Ok, "{:?}", summary.health);
    entry.refresh_groups().await;
    entry.refresh_log_dirs().await;
    let state = entry.state();
    assert_eq!(state.groups.error, None);
    assert_eq!(state.log_dirs.error, None);
    let detail = entry.group(&group).expect("the group is listed");
    let offset = detail.offsets.iter().find(|o| o.topic == topic).expect("its offset on the topic");
    assert_eq!((offset.committed, offset.end, offset.lag), (Some(2), Some(5), Some(3)));
    let sizes = entry.topic(&topic).expect("the topic").size_bytes;
    assert!(sizes.is_some_and(|b| b > 0), "{sizes:?}");

    // The wrong password is a clear failure, never a silent one, and never shows the password.
    let wrong = yaml.replace(&password, "not-the-password");
    let catalog = Catalog::new(&config(&wrong));
    let entry = catalog.get("mtls-encrypted").expect("configured");
    entry.refresh().await;
    let health = entry.summary().health;
    assert_eq!(health.status, HealthStatus::Unreachable);
    let error = health.error.unwrap_or_default();
    assert!(error.contains("cannot decrypt the key"), "{error}");
    assert!(!error.contains("not-the-password"), "{error}");
    let _ = std::fs::remove_file(&encrypted);
}
