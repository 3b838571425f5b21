//! Every consumer group's members and committed offsets.

use std::time::Instant;

use crate::catalog::ClusterEntry;

impl ClusterEntry {
    /// Reads every group's members and committed offsets once.
    pub async fn refresh_groups(&self) {
        let brokers = self.known_brokers().await;
        let started = Instant::now();
        let outcome = match self.link.wire() {
            Ok(wire) => wire.groups(&brokers).await,
            Err(e) => Err(e),
        }
        .map_err(|e| e.to_string());
        match &outcome {
            Ok(groups) => tracing::debug!(
                cluster = %self.name,
                ms = started.elapsed().as_millis() as u64,
                groups = groups.len(),
                "groups refreshed"
            ),
            Err(error) => tracing::warn!(cluster = %self.name, %error, "groups not refreshed"),
        }
        self.update(|s| s.groups.record(outcome));
    }
}
