//! Metadata (brokers, topics with Kafka's internal flag, partitions) and watermarks, with the
//! produce rates they imply.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use crate::auth::oidc::now_ms;
use crate::catalog::{high_totals, ClusterEntry};
use crate::kafka::wire::WireError;
use crate::kafka::{self, MetadataSnapshot, Watermarks};

impl ClusterEntry {
    /// Metadata from the protocol client, then the watermarks of every partition through
    /// librdkafka. Watermarks are worth having but not worth failing the refresh for.
    async fn read_metadata(&self) -> Result<(MetadataSnapshot, Option<Watermarks>), WireError> {
        let wire = self.link.wire()?;
        let metadata = wire.metadata(&self.known_brokers_now(), None).await?;
        let watermarks = match self.link.clients() {
            Ok(clients) => {
                let topics = metadata.topics.clone();
                kafka::blocking("reading watermarks", move || {
                    clients.fetch_watermarks(&topics, crate::kafka::WATERMARK_TIMEOUT)
                })
                .await
            }
            Err(error) => Err(error),
        };
        let watermarks = watermarks
            .map_err(|error| {
                tracing::warn!(cluster = %self.name, %error, "watermarks not refreshed");
            })
            .ok();
        Ok((metadata, watermarks))
    }

    /// Reads metadata and watermarks once and records the outcome. A refresh that a write
    /// overtook keeps the written state; a failed watermark read keeps the last good ones.
    pub async fn refresh(&self) {
        let started = Instant::now();
        let writes = self.writes.load(Ordering::SeqCst);
        let outcome = self.read_metadata().await;
        match outcome {
            Ok((metadata, watermarks)) => {
                tracing::debug!(
                    cluster = %self.name,
                    ms = started.elapsed().as_millis() as u64,
                    topics = metadata.topics.len(),
                    partitions = metadata.partition_count(),
                    "refreshed"
                );
                let now = now_ms();
                let rates = watermarks.as_ref().and_then(|marks| {
                    let totals = high_totals(&metadata, marks);
                    let mut history = self.rate_history.lock().ok()?;
                    Some((history.record(now, totals), history.trend()))
                });
                self.update(|s| {
                    s.attempted = true;
                    s.last_error = None;
                    if self.writes.load(Ordering::SeqCst) != writes {
                        // A write was read back while this refresh ran; its view is newer.
                        return;
                    }
                    s.metadata = Some(Arc::new(metadata));
                    if let Some(marks) = watermarks {
                        s.watermarks = Arc::new(marks);
                    }
                    if let Some((produce_rates, rate_trend)) = rates {
                        s.produce_rates = Arc::new(produce_rates);
                        s.rate_trend = Arc::new(rate_trend);
                    }
                    s.refreshed_at = Some(now);
                });
            }
            Err(error) => {
                tracing::warn!(cluster = %self.name, %error, "metadata refresh failed");
                self.update(|s| {
                    s.last_error = Some(error.to_string());
                    s.attempted = true;
                });
            }
        }
    }
}
