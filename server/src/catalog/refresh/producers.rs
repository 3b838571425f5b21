//! The producers Kafka keeps state for, and the transactional ids, for the flow of data.

use std::time::Instant;

use crate::catalog::ClusterEntry;

impl ClusterEntry {
    /// Asks every partition's leader for its producers, and every broker for its
    /// transactions, once. Brokers that fail leave the rest standing, said in the scan;
    /// only a scan with no answer at all is an error.
    pub async fn refresh_producers(&self) {
        let _ = self.known_brokers().await;
        let Some(metadata) = self.state().metadata else { return };
        let started = Instant::now();
        let outcome = match self.link.wire() {
            Ok(wire) => {
                let scan = wire.producers(&metadata).await;
                if scan.topics_asked == 0 && !metadata.topics.is_empty() && !scan.errors.is_empty()
                {
                    Err(scan.errors.join("; "))
                } else {
                    Ok(scan)
                }
            }
            Err(error) => Err(error.to_string()),
        };
        match &outcome {
            Ok(scan) => tracing::debug!(
                cluster = %self.name,
                ms = started.elapsed().as_millis() as u64,
                writes = scan.writes.len(),
                transactions = scan.transactions.len(),
                "producers refreshed"
            ),
            Err(error) => tracing::info!(cluster = %self.name, %error, "producers not read"),
        }
        self.update(|s| s.producers.record(outcome));
    }
}
