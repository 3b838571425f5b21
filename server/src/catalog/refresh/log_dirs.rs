//! Log dirs (sizes), the active controller and racks.

use std::time::Instant;

use crate::catalog::{ClusterEntry, LogDirs};

impl ClusterEntry {
    /// Reads log dirs, the controller and racks once.
    pub async fn refresh_log_dirs(&self) {
        let brokers = self.known_brokers().await;
        let started = Instant::now();
        let wire = match self.link.wire() {
            Ok(wire) => wire,
            Err(error) => {
                let error = error.to_string();
                self.update(|s| {
                    s.log_dirs.record(Err(error.clone()));
                    s.cluster_info.record(Err(error));
                });
                return;
            }
        };
        // The catalog keeps each failure as the message it shows.
        let answers = wire.log_dirs(&brokers).await.into_iter();
        let dirs =
            LogDirs::new(answers.map(|(id, a)| (id, a.map_err(|e| e.to_string()))).collect());
        let info = wire.cluster_info(&brokers).await.map_err(|e| e.to_string());
        match &dirs {
            Ok(_) => tracing::debug!(
                cluster = %self.name,
                ms = started.elapsed().as_millis() as u64,
                "log dirs refreshed"
            ),
            Err(error) => tracing::info!(cluster = %self.name, %error, "log dirs not read"),
        }
        self.update(|s| {
            s.log_dirs.record(dirs);
            s.cluster_info.record(info);
        });
    }
}
