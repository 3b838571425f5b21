//! The refresh loops of the projection, one file per part, all started by [`spawn`]: each part
//! is read at its own pace, and a slow or failing part never holds up another.

mod groups;
mod log_dirs;
mod metadata;
mod producers;
mod subjects;
mod watched;

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{ClusterEntry, ClusterState};
use crate::kafka::Broker;

/// How often metadata and watermarks are read; a write reads its topic back at once besides.
const METADATA_INTERVAL: Duration = Duration::from_secs(15);
/// How often every group's members and committed offsets are read.
const GROUPS_INTERVAL: Duration = Duration::from_secs(10);
/// How often a group someone has open is read, and for how long after they last asked.
const WATCHED_INTERVAL: Duration = Duration::from_secs(2);
pub(super) const WATCH_FOR: Duration = Duration::from_secs(30);
/// Log dirs, the controller and racks change slowly.
const LOG_DIRS_INTERVAL: Duration = Duration::from_secs(30);
const SUBJECTS_INTERVAL: Duration = Duration::from_secs(30);
/// Producers are asked of every partition's leader: slower still, as the flow needs them.
const PRODUCERS_INTERVAL: Duration = Duration::from_secs(30);
/// How often each Connect cluster's connectors are read.
const CONNECT_INTERVAL: Duration = Duration::from_secs(10);
/// How long the secondary loops wait for the first metadata before looking again.
const WAIT_FOR_METADATA: Duration = Duration::from_millis(500);

/// A part of the projection as the metrics name it, and how to tell that its last refresh
/// failed.
struct Part {
    name: &'static str,
    failing: fn(&ClusterState) -> bool,
}

const METADATA: Part = Part { name: "metadata", failing: |s| s.last_error.is_some() };
const GROUPS: Part = Part { name: "groups", failing: |s| s.groups.error.is_some() };
const WATCHED_GROUPS: Part = Part { name: "watched_groups", failing: |s| s.groups.error.is_some() };
const LOG_DIRS: Part = Part {
    name: "log_dirs",
    failing: |s| s.log_dirs.error.is_some() || s.cluster_info.error.is_some(),
};
const PRODUCERS: Part = Part { name: "producers", failing: |s| s.producers.error.is_some() };
const SUBJECTS: Part = Part { name: "subjects", failing: |s| s.subjects.error.is_some() };
const CONNECT: Part =
    Part { name: "connect", failing: |s| s.connect.values().any(|p| p.error.is_some()) };

/// Starts every refresh loop of one cluster.
pub fn spawn(entry: Arc<ClusterEntry>) {
    every(
        &entry,
        METADATA,
        Duration::ZERO,
        METADATA_INTERVAL,
        |e| async move { e.refresh().await },
    );
    every(
        &entry,
        GROUPS,
        Duration::ZERO,
        GROUPS_INTERVAL,
        |e| async move { e.refresh_groups().await },
    );
    every(&entry, WATCHED_GROUPS, WATCHED_INTERVAL, WATCHED_INTERVAL, |e| async move {
        e.refresh_watched().await
    });
    every(&entry, LOG_DIRS, Duration::ZERO, LOG_DIRS_INTERVAL, |e| async move {
        e.refresh_log_dirs().await
    });
    every(&entry, PRODUCERS, Duration::ZERO, PRODUCERS_INTERVAL, |e| async move {
        e.refresh_producers().await
    });
    if entry.has_registry() {
        every(&entry, SUBJECTS, Duration::ZERO, SUBJECTS_INTERVAL, |e| async move {
            e.refresh_subjects().await
        });
    }
    for name in entry.connect_names() {
        every(&entry, CONNECT, Duration::ZERO, CONNECT_INTERVAL, move |e| {
            let name = name.clone();
            async move { e.refresh_connect(&name).await }
        });
    }
}

/// The one runner: after `first`, runs `job` again and again with `pause` between the end of
/// one run and the start of the next, and counts each run of `part` in the metrics.
fn every<F, Fut>(entry: &Arc<ClusterEntry>, part: Part, first: Duration, pause: Duration, job: F)
where
    F: Fn(Arc<ClusterEntry>) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    let entry = Arc::clone(entry);
    tokio::spawn(async move {
        tokio::time::sleep(first).await;
        loop {
            let started = Instant::now();
            job(Arc::clone(&entry)).await;
            let failed = (part.failing)(&entry.state());
            count_run(&entry.name, part.name, started.elapsed(), failed);
            tokio::time::sleep(pause).await;
        }
    });
}

/// Counts and times one run of a refresh part through the `metrics` facade, whose recorder
/// (`crate::metrics`) serves them on `/metrics`; the catalog needs nothing else of it.
fn count_run(cluster: &str, part: &'static str, took: Duration, failed: bool) {
    let labels = [("cluster", cluster.to_string()), ("part", part.to_string())];
    metrics::histogram!("klens_refresh_duration_seconds", &labels).record(took.as_secs_f64());
    metrics::counter!("klens_refreshes_total", &labels).increment(1);
    if failed {
        metrics::counter!("klens_refresh_failures_total", &labels).increment(1);
    }
}

impl ClusterEntry {
    /// The brokers of the last good metadata, waiting for the first if need be.
    async fn known_brokers(&self) -> Vec<Broker> {
        loop {
            if let Some(metadata) = self.state().metadata {
                return metadata.brokers.clone();
            }
            tokio::time::sleep(WAIT_FOR_METADATA).await;
        }
    }
}
