//! The catalog on a three-broker cluster: replicas, in-sync replicas, under-replicated
//! partitions, the controller and every broker's log dirs. Needs `dev/stack up --brokers 3`
//! (`make integration-3brokers` brings that layout up, runs this, and restores the one-node
//! layout); it stops and restarts node 3 of that stack.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use app::api::HealthStatus;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::ClientConfig;
use server::catalog::{Catalog, ClusterEntry};
use server::config::Config;

const BOOTSTRAP: &str = "127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:31092";

fn repo() -> std::path::PathBuf {
    // At run time, never `env!`: the build cache is shared between clones.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("run by cargo");
    Path::new(&manifest).join("..")
}

fn config() -> Config {
    let yaml = format!("clusters:\n  - name: three\n    bootstrap_servers: {BOOTSTRAP}\n");
    server::config::parse(&yaml, "test.yaml", &|_| None, Path::new("."))
        .unwrap_or_else(|e| panic!("test config is invalid: {e}"))
}

/// (partition, replicas, isr) of `topic` as kcat reads it.
fn kcat_partitions(topic: &str) -> Vec<(i32, usize, usize)> {
    let out = Command::new("kcat")
        .args(["-b", "127.0.0.1:19092", "-L", "-J", "-t", topic])
        .output()
        .expect("kcat runs");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("kcat JSON");
    let mut rows: Vec<_> = json["topics"][0]["partitions"]
        .as_array()
        .expect("partitions")
        .iter()
        .map(|p| {
            (
                p["partition"].as_i64().expect("id") as i32,
                p["replicas"].as_array().map(Vec::len).unwrap_or(0),
                p["isrs"].as_array().map(Vec::len).unwrap_or(0),
            )
        })
        .collect();
    rows.sort();
    rows
}

fn ours(entry: &ClusterEntry, topic: &str) -> Vec<(i32, usize, usize)> {
    entry
        .topic(topic)
        .map(|t| {
            t.partitions.iter().map(|p| (p.partition, p.replicas.len(), p.isr.len())).collect()
        })
        .unwrap_or_default()
}

async fn refresh_until(entry: &ClusterEntry, seconds: u64, ready: impl Fn(&ClusterEntry) -> bool) {
    for _ in 0..seconds * 2 {
        entry.refresh().await;
        if ready(entry) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

fn stack(args: &[&str]) {
    let status =
        Command::new(repo().join("dev/stack")).args(args).status().expect("dev/stack runs");
    assert!(status.success(), "dev/stack {args:?} failed");
}

#[tokio::test]
async fn replicas_isr_controller_and_log_dirs_of_three_brokers() {
    let topic = format!(
        "it-three-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0)
    );
    let admin: AdminClient<DefaultClientContext> =
        ClientConfig::new().set("bootstrap.servers", BOOTSTRAP).create().expect("admin");
    let spec = NewTopic::new(&topic, 6, TopicReplication::Fixed(3));
    for result in
        admin.create_topics([&spec], &AdminOptions::new()).await.expect("create_topics answered")
    {
        result.unwrap_or_else(|(t, e)| panic!("creating {t}: {e}"));
    }

    let catalog = Catalog::new(&config());
    let entry = catalog.get("three").expect("configured");
    refresh_until(entry, 10, |e| ours(e, &topic).len() == 6).await;
    entry.refresh_log_dirs().await;

    let summary = entry.summary();
    assert_eq!(summary.brokers, Some(3));
    assert_eq!(summary.health.status, HealthStatus::Ok, "{:?}", summary.health);
    assert_eq!(ours(entry, &topic), kcat_partitions(&topic));
    assert!(ours(entry, &topic).iter().all(|&(_, r, i)| r == 3 && i == 3));

    let brokers = entry.brokers();
    assert_eq!(brokers.brokers.len(), 3);
    let controllers: Vec<i32> =
        brokers.brokers.iter().filter(|b| b.controller).map(|b| b.id).collect();
    assert_eq!(controllers.len(), 1, "exactly one active controller");
    assert_eq!(brokers.controller, Some(controllers[0]));
    for b in &brokers.brokers {
        assert!(b.log_dirs_error.is_none(), "broker {}: {:?}", b.id, b.log_dirs_error);
        assert_eq!(b.log_dirs.len(), 1, "broker {}", b.id);
    }
    let replicas: u64 = brokers.brokers.iter().map(|b| b.replicas).sum();
    let metadata = entry.state().metadata.expect("metadata");
    let want: u64 = metadata.partitions().map(|p| p.replicas.len() as u64).sum();
    assert_eq!(replicas, want);

    // Node 3 fails (killed outright, as a crash): its replicas leave the ISR once the
    // controller fences it, and the cluster reads as degraded.
    let pid_file = repo().join("target/dev-stack/pids/kafka3-node3.pid");
    let pid = std::fs::read_to_string(&pid_file).expect("node 3 runs under dev/stack");
    let pid = pid.trim().to_string();
    let killed = Command::new("kill").args(["-KILL", &pid]).status().expect("kill runs");
    assert!(killed.success());
    // Gone before anything restarts it, so `dev/stack up` below starts it afresh.
    for _ in 0..100 {
        if !Path::new(&format!("/proc/{pid}")).exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    refresh_until(entry, 60, |e| {
        e.summary().under_replicated.unwrap_or(0) > 0 && e.summary().brokers == Some(2)
    })
    .await;
    let degraded = entry.summary();
    stack(&["up", "--brokers", "3"]);

    assert_eq!(degraded.health.status, HealthStatus::Degraded, "{:?}", degraded.health);
    assert_eq!(degraded.brokers, Some(2));
    let shrunk = ours(entry, &topic);
    assert!(shrunk.iter().all(|&(_, r, i)| r == 3 && i == 2), "{shrunk:?}");
    let under = degraded.under_replicated.expect("counted");
    let all_partitions = metadata.partition_count();
    assert!(
        under >= 6 && under <= all_partitions,
        "{under} of {all_partitions} partitions under-replicated"
    );
}
