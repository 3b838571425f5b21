use std::sync::Arc;

use app::api::HealthStatus;
use server::catalog::Catalog;

use crate::support::*;

#[tokio::test]
async fn the_catalog_counts_what_kafka_reports_over_scram() {
    let topic = unique("it-catalog");
    create_topic(&topic, 7).await;
    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");

    // Metadata can lag a fresh topic by a moment; refresh until klens sees it.
    refresh_until(entry, |e| e.topics(&Default::default()).topics.iter().any(|t| t.name == topic))
        .await;
    // Other tests create and delete topics meanwhile: compare with what Kafka reported both
    // just before and just after a refresh, once the two agree.
    let mut truth = kafka_topics();
    for _ in 0..20 {
        entry.refresh().await;
        let after = kafka_topics();
        if after == truth {
            break;
        }
        truth = after;
    }
    let summary = entry.summary();
    assert_eq!(summary.health.status, HealthStatus::Ok, "{:?}", summary.health);
    assert_eq!(summary.brokers, Some(1));
    assert_eq!(summary.topics, Some(truth.len() as u64));
    assert_eq!(summary.partitions, Some(truth.iter().map(|(_, p)| *p as u64).sum()));
    assert_eq!(summary.under_replicated, Some(0));
    let ours = entry.state().metadata.expect("metadata");
    let ours = ours.topics.iter().find(|t| t.name == topic).expect("topic");
    assert_eq!(ours.partitions.len(), 7);
    assert!(summary.refreshed_at.is_some());
}

#[tokio::test]
async fn a_wrong_password_makes_the_cluster_unreachable_and_names_the_failure() {
    let secret = unique("not-the-password");
    let config = config(&format!("clusters:\n{}", scram_cluster("badauth", &secret)));
    let catalog = Catalog::new(&config);
    let entry = catalog.get("badauth").expect("configured");
    entry.refresh().await;
    let health = entry.summary().health;
    assert_eq!(health.status, HealthStatus::Unreachable);
    let error = health.error.expect("an error text");
    assert!(error.contains("Authentication") || error.contains("SASL"), "{error}");
    assert!(!error.contains(&secret), "the password leaked into the error: {error}");
}

#[tokio::test]
async fn one_unreachable_cluster_does_not_hide_the_others() {
    let config = config(&format!(
        "clusters:\n{}  - name: nowhere\n    bootstrap_servers: 127.0.0.1:1\n",
        scram_cluster("local", "klens-secret")
    ));
    let catalog = Arc::new(Catalog::new(&config));
    assert!(!catalog.all_attempted());
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    assert!(catalog.all_attempted());
    let local = catalog.get("local").expect("local").summary();
    let nowhere = catalog.get("nowhere").expect("nowhere").summary();
    assert_eq!(local.health.status, HealthStatus::Ok);
    assert_eq!(nowhere.health.status, HealthStatus::Unreachable);
    assert_eq!(nowhere.topics, None);
}
