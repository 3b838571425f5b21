use std::path::Path;

use app::api::HealthStatus;
use server::catalog::Catalog;

use crate::support::*;

/// The bytes of a partition's segment files on disk, read from the log dir itself.
fn bytes_on_disk(log_dir: &str, topic: &str, partition: i32) -> u64 {
    let dir = Path::new(log_dir).join(format!("{topic}-{partition}"));
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .filter(|f| f.path().extension().is_some_and(|x| x == "log"))
        .map(|f| f.metadata().map(|m| m.len()).unwrap_or(0))
        .sum()
}

#[tokio::test]
async fn sizes_come_from_log_dirs_and_match_the_files_on_disk() {
    let topic = unique("it-size");
    create_topic(&topic, 2).await;
    produce(&topic, &[(0, 50), (1, 3)]);
    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| e.topic(&topic).is_some()).await;
    entry.refresh_log_dirs().await;

    let brokers = entry.brokers();
    assert_eq!(brokers.controller, Some(1), "the single node leads the quorum");
    let broker = &brokers.brokers[0];
    assert!(broker.controller);
    assert!(broker.log_dirs_error.is_none(), "{:?}", broker.log_dirs_error);
    let dir = &broker.log_dirs[0];
    assert!(dir.error.is_none());
    assert!(dir.total_bytes.unwrap_or(0) >= dir.usable_bytes.unwrap_or(0));

    let detail = entry.topic(&topic).expect("topic");
    for p in &detail.partitions {
        assert_eq!(
            p.size_bytes,
            Some(bytes_on_disk(&dir.path, &topic, p.partition)),
            "partition {}",
            p.partition
        );
    }
    assert!(detail.partitions[0].size_bytes > detail.partitions[1].size_bytes);
    let sum: u64 = detail.partitions.iter().filter_map(|p| p.size_bytes).sum();
    assert_eq!(detail.size_bytes, Some(sum));
    assert_eq!(entry.summary().size_bytes, dir.size_bytes);
}

#[tokio::test]
async fn without_describe_on_the_cluster_sizes_stay_empty_and_the_rest_works() {
    // `reporting` may read click* topics and reporting-* groups, and nothing on the cluster.
    let config = config(
        "clusters:\n  - name: weak\n    bootstrap_servers: 127.0.0.1:19094\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: reporting\n      password: reporting-secret\n",
    );
    let catalog = Catalog::new(&config);
    let entry = catalog.get("weak").expect("configured");
    entry.refresh().await;
    entry.refresh_log_dirs().await;
    entry.refresh_groups().await;

    let summary = entry.summary();
    assert_eq!(summary.health.status, HealthStatus::Ok, "{:?}", summary.health);
    assert_eq!(summary.size_bytes, None);
    let topics = entry.topics(&Default::default()).topics;
    let click = topics
        .iter()
        .find(|t| t.name == "clickstream")
        .expect("the seeded clickstream topic is visible");
    assert_eq!(click.size_bytes, None);
    assert!(click.records.is_some(), "watermarks still work");
    let brokers = entry.brokers();
    let error = brokers.brokers[0].log_dirs_error.clone().expect("log dirs refused");
    assert!(error.contains("ClusterAuthorizationFailed"), "{error}");
    assert_eq!(brokers.controller, None);
    assert!(entry.state().groups.error.is_none(), "groups still read");
}
