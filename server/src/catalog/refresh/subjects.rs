//! The registry's subjects.

use crate::catalog::ClusterEntry;

impl ClusterEntry {
    /// Reads the registry's subjects once.
    pub async fn refresh_subjects(&self) {
        let outcome = match &self.registry {
            None => return,
            Some(Ok(registry)) => registry.subjects().await,
            Some(Err(error)) => Err(error.clone()),
        };
        if let Err(error) = &outcome {
            tracing::warn!(cluster = %self.name, %error, "subjects not refreshed");
        }
        self.update(|s| s.subjects.record(outcome));
    }
}
