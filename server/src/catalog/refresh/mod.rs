//! The refresh loops of the projection, one file per part, all started by [`spawn`]: each part
//! is read at its own pace, and a slow or failing part never holds up another.

mod groups;
mod log_dirs;
mod metadata;
mod subjects;
mod watched;

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ClusterEntry;
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
/// How long the secondary loops wait for the first metadata before looking again.
const WAIT_FOR_METADATA: Duration = Duration::from_millis(500);

/// Starts every refresh loop of one cluster.
pub fn spawn(entry: Arc<ClusterEntry>) {
    every(
        &entry,
        "metadata",
        Duration::ZERO,
        METADATA_INTERVAL,
        |e| async move { e.refresh().await },
    );
    every(
        &entry,
        "groups",
        Duration::ZERO,
        GROUPS_INTERVAL,
        |e| async move { e.refresh_groups().await },
    );
    every(
        &entry,
        "watched_groups",
        WATCHED_INTERVAL,
        WATCHED_INTERVAL,
        |e| async move { e.refresh_watched().await },
    );
    every(
        &entry,
        "log_dirs",
        Duration::ZERO,
        LOG_DIRS_INTERVAL,
        |e| async move { e.refresh_log_dirs().await },
    );
    if entry.has_registry() {
        every(
            &entry,
            "subjects",
            Duration::ZERO,
            SUBJECTS_INTERVAL,
            |e| async move { e.refresh_subjects().await },
        );
    }
}

/// The one runner: after `first`, runs `job` again and again with `pause` between the end of
/// one run and the start of the next, and counts each run of `part` in the metrics.
fn every<F, Fut>(
    entry: &Arc<ClusterEntry>,
    part: &'static str,
    first: Duration,
    pause: Duration,
    job: F,
) where
    F: Fn(Arc<ClusterEntry>) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    let entry = Arc::clone(entry);
    tokio::spawn(async move {
        tokio::time::sleep(first).await;
        loop {
            let started = Instant::now();
            job(Arc::clone(&entry)).await;
            let failed = entry.part_failing(part);
            crate::metrics::refreshed(&entry.name, part, started.elapsed(), failed);
            tokio::time::sleep(pause).await;
        }
    });
}

impl ClusterEntry {
    /// Whether the last refresh of `part` failed.
    fn part_failing(&self, part: &str) -> bool {
        let state = self.state();
        match part {
            "metadata" => state.last_error.is_some(),
            "groups" | "watched_groups" => state.groups.error.is_some(),
            "log_dirs" => state.log_dirs.error.is_some() || state.cluster_info.error.is_some(),
            "subjects" => state.subjects.error.is_some(),
            _ => false,
        }
    }

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
