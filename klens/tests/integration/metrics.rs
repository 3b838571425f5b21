//! `/metrics`, parsed by Prometheus's own Python client: the families klens names are there,
//! counters move when requests are served and when a refresh fails, and no label carries a
//! configured secret.

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use serde_json::Value;
use server::catalog::Catalog;
use server::http::app;

use crate::support::*;

/// Prometheus's text parser over `text`: each sample as `[name, labels, value]`.
const PARSE: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.append([s.name, s.labels, s.value, family.type])
print(json.dumps(out))
"#;

fn parse(text: &str) -> Vec<(String, Value, f64, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let venv = std::process::Command::new("bash")
        .args(["-c", "source dev/lib/venv.sh && klens_dev_venv"])
        .current_dir(&root)
        .output()
        .expect("bash");
    let python =
        std::path::Path::new(String::from_utf8_lossy(&venv.stdout).trim()).join("bin/python");
    let mut child = std::process::Command::new(python)
        .args(["-c", PARSE])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python");
    use std::io::Write;
    child.stdin.take().expect("stdin").write_all(text.as_bytes()).expect("write");
    let out = child.wait_with_output().expect("parser");
    assert!(
        out.status.success(),
        "Prometheus's parser refused the text: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let samples: Vec<(String, Value, f64, String)> =
        serde_json::from_slice(&out.stdout).expect("parser JSON");
    samples
}

fn value(samples: &[(String, Value, f64, String)], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|(n, l, _, _)| n == name && labels.iter().all(|(k, v)| l[*k] == *v))
        .map(|(_, _, v, _)| *v)
        .sum()
}

async fn scrape(router: &axum::Router) -> Vec<(String, Value, f64, String)> {
    let (status, bytes) = get_raw(router, "/metrics").await;
    assert_eq!(status, StatusCode::OK);
    parse(&String::from_utf8(bytes).expect("UTF-8"))
}

#[tokio::test]
async fn metrics_parse_as_prometheus_text_and_move_with_requests_and_failures() {
    server::metrics::install();
    let dead = unique("it-metrics-dead");
    let yaml = format!(
        "clusters:\n{}  - name: {dead}\n    bootstrap_servers: 127.0.0.1:1\nmcp:\n  listen: 127.0.0.1:18997\n  privileges: [records]\n  secret: metrics-test-mcp-secret\n",
        scram_cluster("rw", "klens-secret"),
    );
    let config = config(&yaml);
    let catalog = Arc::new(Catalog::new(&config));
    catalog.spawn_refreshers();
    let router = app(state_over(&config, Arc::clone(&catalog)));

    // The refresh of a cluster that does not answer fails, and says so; the live cluster's
    // first refresh (which may come later on a busy machine) gives its parts an age.
    let mut samples = scrape(&router).await;
    for _ in 0..60 {
        let failures = value(
            &samples,
            "klens_refresh_failures_total",
            &[("cluster", &dead), ("part", "metadata")],
        );
        let aged = samples
            .iter()
            .any(|(n, l, _, _)| n == "klens_part_age_seconds" && l["cluster"] == "rw");
        if failures >= 1.0 && aged {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        samples = scrape(&router).await;
    }
    assert!(
        value(
            &samples,
            "klens_refresh_failures_total",
            &[("cluster", &dead), ("part", "metadata")]
        ) >= 1.0,
        "no failed refresh counted for {dead}"
    );
    assert_eq!(
        value(&samples, "klens_part_failing", &[("cluster", &dead), ("part", "metadata")]),
        1.0
    );
    assert_eq!(
        value(&samples, "klens_part_failing", &[("cluster", "rw"), ("part", "metadata")]),
        0.0
    );
    assert!(samples
        .iter()
        .any(|(n, l, _, _)| n == "klens_part_age_seconds" && l["cluster"] == "rw"));
    assert!(samples
        .iter()
        .any(|(n, l, _, _)| n == "klens_refresh_duration_seconds_count" && l["cluster"] == "rw"));

    // Requests are counted by route and status, and timed.
    let before = value(
        &samples,
        "klens_http_requests_total",
        &[("route", "/api/topics"), ("status", "200")],
    );
    for _ in 0..2 {
        let (status, _) = get_raw(&router, "/api/topics?cluster=rw").await;
        assert_eq!(status, StatusCode::OK);
    }
    let (status, _) = get_raw(&router, "/api/topics?cluster=no-such-cluster").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let samples = scrape(&router).await;
    let after = value(
        &samples,
        "klens_http_requests_total",
        &[("route", "/api/topics"), ("status", "200")],
    );
    assert!(after - before >= 2.0, "{before} → {after}");
    assert!(
        value(
            &samples,
            "klens_http_requests_total",
            &[("route", "/api/topics"), ("status", "404")]
        ) >= 1.0
    );
    assert!(
        value(&samples, "klens_http_request_duration_seconds_count", &[("route", "/api/topics")])
            >= 3.0
    );
    // Each family klens names is there, of its type.
    for (name, kind) in [
        ("klens_open_streams", "gauge"),
        ("klens_refreshes_total", "counter"),
        ("klens_http_request_duration_seconds_bucket", "histogram"),
    ] {
        assert!(
            samples.iter().any(|(n, _, _, t)| n == name && t == kind),
            "{name} ({kind}) missing"
        );
    }
    // No label carries a secret, and no label names a path with a cluster in it.
    for (name, labels, _, _) in &samples {
        let text = labels.to_string();
        for secret in ["klens-secret", "metrics-test-mcp-secret"] {
            assert!(!text.contains(secret), "{name} {text}");
        }
        assert!(!text.contains("no-such-cluster"), "{name} {text}");
    }
}

/// On the UI port, `/metrics` shows a cluster, topic or group only to a signed-in caller who
/// sees it: carol (no cluster) sees none, erin (scoped to `payments-*` on `local`, whose catalog
/// is scoped) only those topics and their groups. `metrics.listen` still shows every name.
#[tokio::test]
async fn metrics_on_the_ui_port_show_only_what_the_caller_sees() {
    server::metrics::install();
    let covered = unique("payments-it-metrics");
    let hidden = unique("it-metrics-hidden");
    create_topic(&covered, 1).await;
    create_topic(&hidden, 1).await;
    let covered_group = format!("{covered}-g");
    let hidden_group = format!("{hidden}-g");
    produce(&covered, &[(0, 10)]);
    produce(&hidden, &[(0, 10)]);
    commit_offsets(&covered_group, &covered, &[(0, 0)]);
    commit_offsets(&hidden_group, &hidden, &[(0, 0)]);
    let yaml = format!(
        "clusters:\n{}    catalog: scoped\n{}{}",
        scram_cluster("local", "klens-secret"),
        scram_cluster("other", "klens-secret"),
        auth_block(
            "  roles:\n    payments: [records]\n  bindings:\n    - groups: [payments-team]\n      role: payments\n      clusters: [local]\n      resources:\n        topics: [\"payments-*\"]\n"
        ),
    );
    let config = config(&yaml);
    let catalog = Arc::new(Catalog::new(&config));
    // Two reads of the watermarks a moment apart, with records between, give each topic a
    // produce rate; the groups' lag comes from the second.
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    tokio::time::sleep(Duration::from_millis(1200)).await;
    produce(&covered, &[(0, 5000)]);
    produce(&hidden, &[(0, 5000)]);
    for entry in catalog.clusters() {
        entry.refresh().await;
        entry.refresh_groups().await;
    }
    let state = state_over(&config, Arc::clone(&catalog));
    let scraper = server::http::metrics_router(Arc::clone(&state.service));
    let router = app(state);
    // Something with a cluster label from the recorder, for each cluster, as a refresh run
    // records it.
    for cluster in ["local", "other"] {
        let labels = [("cluster", cluster), ("part", "metadata")];
        metrics::histogram!("klens_refresh_duration_seconds", &labels).record(0.001);
        metrics::counter!("klens_refreshes_total", &labels).increment(1);
    }

    let scrape_as = |cookie: String| {
        let router = router.clone();
        async move {
            let (status, bytes) = get_as(&router, &cookie, "/metrics").await;
            assert_eq!(status, StatusCode::OK);
            String::from_utf8(bytes).expect("UTF-8")
        }
    };
    let names = |samples: &[(String, Value, f64, String)], family: &str, label: &str| {
        samples
            .iter()
            .filter(|(n, _, _, _)| n == family)
            .filter_map(|(_, l, _, _)| l[label].as_str().map(str::to_string))
            .collect::<Vec<String>>()
    };

    let carol = sign_in(&router, "carol").await;
    let text = scrape_as(carol).await;
    let samples = parse(&text);
    assert!(
        samples.iter().all(|(_, l, _, _)| l.get("cluster").is_none()
            && l.get("topic").is_none()
            && l.get("group").is_none()),
        "carol sees no cluster, topic or group:\n{text}"
    );
    assert!(samples.iter().any(|(n, _, _, _)| n == "klens_open_streams"));

    let erin = sign_in(&router, "erin").await;
    let text = scrape_as(erin).await;
    let samples = parse(&text);
    assert!(
        samples.iter().all(|(_, l, _, _)| l.get("cluster").is_none() || l["cluster"] == "local"),
        "erin sees local alone:\n{text}"
    );
    let topics = names(&samples, "klens_topic_produce_rate", "topic");
    assert!(topics.contains(&covered), "{topics:?}");
    assert!(topics.iter().all(|t| t.starts_with("payments-")), "{topics:?}");
    let groups = names(&samples, "klens_group_lag", "group");
    assert!(groups.contains(&covered_group), "{groups:?}");
    assert!(!text.contains(&hidden), "erin sees nothing of {hidden}");
    assert!(
        samples.iter().any(|(n, l, _, _)| n == "klens_refreshes_total" && l["cluster"] == "local"),
        "the recorder's series of local stay"
    );

    // The scraper's port shows every name.
    let (status, bytes) = get_raw(&scraper, "/metrics").await;
    assert_eq!(status, StatusCode::OK);
    let text = String::from_utf8(bytes).expect("UTF-8");
    let samples = parse(&text);
    let topics = names(&samples, "klens_topic_produce_rate", "topic");
    assert!(topics.contains(&hidden) && topics.contains(&covered), "{topics:?}");
    let groups = names(&samples, "klens_group_lag", "group");
    assert!(groups.contains(&hidden_group), "{groups:?}");
    let clusters = names(&samples, "klens_part_failing", "cluster");
    assert!(clusters.contains(&"other".to_string()), "{clusters:?}");
}
