//! `/metrics`, parsed by Prometheus's own Python client: the families klens names are there,
//! counters move when requests are served and when a refresh fails, and no label carries a
//! configured secret.

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use serde_json::Value;
use server::catalog::Catalog;
use server::http::{app, AppState};

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
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
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
    let leptos = leptos::config::LeptosOptions::builder()
        .output_name("klens")
        .build();
    let router = app(AppState::new(leptos, &config, Arc::clone(&catalog)).expect("state"));

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
        value(
            &samples,
            "klens_part_failing",
            &[("cluster", &dead), ("part", "metadata")]
        ),
        1.0
    );
    assert_eq!(
        value(
            &samples,
            "klens_part_failing",
            &[("cluster", "rw"), ("part", "metadata")]
        ),
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
        value(
            &samples,
            "klens_http_request_duration_seconds_count",
            &[("route", "/api/topics")]
        ) >= 3.0
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
