//! `/metrics` in Prometheus's text format. Counters and histograms of what happens (refreshes,
//! HTTP requests, MCP calls) go through the `metrics` facade into one process-wide recorder;
//! what the projection already holds (the age of each part, produce rates, lag, open streams)
//! is written from it at each scrape, so it is never stale and never kept for a topic that has
//! gone.
//!
//! Labels carry cluster names, routes, tools, parts and outcomes, and, for the per-topic and
//! per-group series, topic and group names: never a secret, a user or a record's content.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::OnceLock;

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use app::access::ClusterAccess;

use crate::auth::oidc::now_ms;
use crate::catalog::Catalog;

/// The most topics, and the most groups, each cluster reports a series for: the busiest
/// topics by produce rate and the groups with the most lag. Ten thousand topics would
/// otherwise be ten thousand series per scrape.
pub const SERIES_PER_CLUSTER: usize = 200;

/// Seconds buckets of the HTTP and refresh histograms.
const BUCKETS: &[f64] =
    &[0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// The process's recorder, installed on first use. Should another recorder be installed
/// already, klens's own series are the only ones rendered.
fn handle() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), BUCKETS)
                .map_err(|error| tracing::warn!(%error, "metrics buckets"))
                .ok()?
                .build_recorder();
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!(
                    "another metrics recorder is installed; /metrics shows klens's gauges only"
                );
            }
            Some(handle)
        })
        .as_ref()
}

/// Installs the recorder, so that what happens before the first scrape is counted.
pub fn install() {
    handle();
}

/// One MCP tool call and how it ended (`ok`, or the error code).
pub fn mcp_call(tool: &'static str, outcome: &'static str) {
    metrics::counter!("klens_mcp_calls_total", "tool" => tool, "outcome" => outcome).increment(1);
}

/// Counts and times every request of the UI port by its route (the pattern it matched, never
/// the path itself: names in a path would make a series each) and status.
pub async fn track(request: Request, next: Next) -> Response {
    let route = match request.extensions().get::<MatchedPath>() {
        _ if request.uri().path().starts_with("/pkg/") => "/pkg".to_string(),
        Some(path) => path.as_str().to_string(),
        None => "other".to_string(),
    };
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    let status = response.status().as_u16().to_string();
    metrics::counter!("klens_http_requests_total", "route" => route.clone(), "status" => status)
        .increment(1);
    metrics::histogram!("klens_http_request_duration_seconds", "route" => route)
        .record(started.elapsed().as_secs_f64());
    response
}

/// Who a scrape is for: the scraper of `metrics.listen`, which sees every name, or a caller of
/// the UI port, who sees the clusters they may see (each as [`ClusterAccess::sees`] shows it).
pub enum Audience {
    All,
    Caller(Vec<ClusterAccess>),
}

impl Audience {
    /// How the audience sees `cluster`: `None` when they do not, `Some(None)` when they see
    /// all of it, `Some(Some(access))` when a scoped catalog shows them part of it.
    fn cluster(&self, cluster: &str) -> Option<Option<&ClusterAccess>> {
        match self {
            Audience::All => Some(None),
            Audience::Caller(seen) => {
                seen.iter().find(|a| a.name == cluster).map(|a| a.scoped_catalog.then_some(a))
            }
        }
    }
}

/// The whole scrape for `audience`: the recorder's series, then the projection's. A caller
/// gets no series of a cluster they do not see, and of a scoped catalog only the covered
/// topics and groups.
pub fn render(catalog: &Catalog, open_streams: usize, audience: &Audience) -> String {
    let recorded = handle().map(PrometheusHandle::render).unwrap_or_default();
    let mut out = match audience {
        Audience::All => recorded,
        Audience::Caller(_) => recorded
            .lines()
            .filter(|line| {
                line.starts_with('#')
                    || label(line, "cluster").is_none_or(|c| audience.cluster(&c).is_some())
            })
            .fold(String::new(), |mut out, line| {
                out.push_str(line);
                out.push('\n');
                out
            }),
    };
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&projection(catalog, open_streams, now_ms(), audience));
    out
}

/// The value of the label `name` of one sample line of the text format, unescaped.
fn label(line: &str, name: &str) -> Option<String> {
    let open = line.find('{')?;
    let mut rest = &line[open + 1..];
    loop {
        let (key, after) = rest.split_once("=\"")?;
        let key = key.trim_start_matches(',').trim();
        let mut value = String::new();
        let mut chars = after.char_indices();
        let end = loop {
            match chars.next()? {
                (_, '\\') => match chars.next()?.1 {
                    'n' => value.push('\n'),
                    c => value.push(c),
                },
                (i, '"') => break i,
                (_, c) => value.push(c),
            }
        };
        if key == name {
            return Some(value);
        }
        rest = &after[end + 1..];
        if rest.starts_with('}') {
            return None;
        }
    }
}

/// A label value as the text format wants it: backslash, double quote and newline escaped.
fn escaped(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// Writes one family: its help and type, then each `(labels, value)` sample.
fn family(out: &mut String, name: &str, help: &str, samples: &[(Vec<(&str, &str)>, f64)]) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} gauge");
    for (labels, value) in samples {
        let labels: Vec<String> =
            labels.iter().map(|(k, v)| format!("{k}=\"{}\"", escaped(v))).collect();
        if labels.is_empty() {
            let _ = writeln!(out, "{name} {value}");
        } else {
            let _ = writeln!(out, "{name}{{{}}} {value}", labels.join(","));
        }
    }
}

/// The series klens reads off its projection at `now` (ms), of what `audience` sees.
fn projection(catalog: &Catalog, open_streams: usize, now: i64, audience: &Audience) -> String {
    let mut out = String::new();
    let mut ages: Vec<(Vec<(&str, &str)>, f64)> = Vec::new();
    let mut failing: Vec<(Vec<(&str, &str)>, f64)> = Vec::new();
    let mut rates: Vec<(Vec<(&str, &str)>, f64)> = Vec::new();
    let mut lags: Vec<(Vec<(&str, &str)>, f64)> = Vec::new();
    let states: Vec<(String, crate::catalog::ClusterState)> = catalog
        .clusters()
        .iter()
        .filter_map(|e| {
            let state = match audience.cluster(&e.name)? {
                None => e.state(),
                Some(access) => {
                    // What the scoped catalog shows: its topics and groups, and the rates of
                    // those topics alone.
                    let mut state = e.state().seen_by(access);
                    let shown: std::collections::HashSet<&str> = state
                        .metadata
                        .iter()
                        .flat_map(|m| m.topics.iter().map(|t| t.name.as_str()))
                        .collect();
                    let rates = state
                        .produce_rates
                        .iter()
                        .filter(|(topic, _)| shown.contains(topic.as_str()))
                        .map(|(topic, rate)| (topic.clone(), *rate))
                        .collect();
                    state.produce_rates = std::sync::Arc::new(rates);
                    state
                }
            };
            Some((e.name.clone(), state))
        })
        .collect();
    let group_lags: Vec<HashMap<String, u64>> =
        states.iter().map(|(_, state)| crate::catalog::views::group_lags(state)).collect();
    for ((cluster, state), lag_of) in states.iter().zip(&group_lags) {
        let parts: [(&str, Option<i64>, bool); 5] = [
            ("metadata", state.refreshed_at, state.last_error.is_some()),
            ("groups", state.groups.refreshed_at, state.groups.error.is_some()),
            ("log_dirs", state.log_dirs.refreshed_at, state.log_dirs.error.is_some()),
            ("cluster_info", state.cluster_info.refreshed_at, state.cluster_info.error.is_some()),
            ("subjects", state.subjects.refreshed_at, state.subjects.error.is_some()),
        ];
        for (part, at, failed) in parts {
            if let Some(at) = at {
                let age = (now - at).max(0) as f64 / 1000.0;
                ages.push((vec![("cluster", cluster), ("part", part)], age));
            }
            failing
                .push((vec![("cluster", cluster), ("part", part)], if failed { 1.0 } else { 0.0 }));
        }
        let mut busiest: Vec<(&String, &f64)> = state.produce_rates.iter().collect();
        busiest.sort_by(|a, b| b.1.total_cmp(a.1).then_with(|| a.0.cmp(b.0)));
        for (topic, rate) in busiest.into_iter().take(SERIES_PER_CLUSTER) {
            rates.push((vec![("cluster", cluster), ("topic", topic)], *rate));
        }
        let mut most: Vec<(&String, &u64)> = lag_of.iter().collect();
        most.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        for (group, lag) in most.into_iter().take(SERIES_PER_CLUSTER) {
            lags.push((vec![("cluster", cluster), ("group", group)], *lag as f64));
        }
    }
    family(
        &mut out,
        "klens_part_age_seconds",
        "How long ago each part of a cluster's projection was last read successfully.",
        &ages,
    );
    family(
        &mut out,
        "klens_part_failing",
        "1 while the last refresh of the part failed (its last good data is still served).",
        &failing,
    );
    family(
        &mut out,
        "klens_topic_produce_rate",
        "Records per second produced to a topic over about the last minute (the busiest topics of each cluster).",
        &rates,
    );
    family(
        &mut out,
        "klens_group_lag",
        "Records a consumer group has yet to read, summed over its partitions (the groups with the most lag in each cluster).",
        &lags,
    );
    family(
        &mut out,
        "klens_open_streams",
        "Record exports and tails open now.",
        &[(Vec::new(), open_streams as f64)],
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_line_gives_its_labels_back_unescaped() {
        let line = r#"klens_refreshes_total{cluster="a\"b=\"c",part="metadata"} 3"#;
        assert_eq!(label(line, "cluster").as_deref(), Some("a\"b=\"c"));
        assert_eq!(label(line, "part").as_deref(), Some("metadata"));
        assert_eq!(label(line, "topic"), None);
        assert_eq!(label("klens_open_streams 0", "cluster"), None);
        assert_eq!(label(r#"x{route="/a",cluster="b\\n"} 1"#, "cluster").as_deref(), Some("b\\n"));
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escaped(r#"a"b\c"#), r#"a\"b\\c"#);
        assert_eq!(escaped("a\nb"), "a\\nb");
        let mut out = String::new();
        family(&mut out, "x", "help", &[(vec![("topic", "a\"b")], 1.5)]);
        assert_eq!(out, "# HELP x help\n# TYPE x gauge\nx{topic=\"a\\\"b\"} 1.5\n");
    }
}
