//! The groups someone has open, read every two seconds so their lag is fresh.

use std::sync::Arc;

use super::WATCH_FOR;
use crate::catalog::ClusterEntry;
use crate::kafka;

impl ClusterEntry {
    /// Reads the offsets of the groups someone has open, and the watermarks of their
    /// partitions, so that their lag is seconds old rather than a refresh interval.
    pub(super) async fn refresh_watched(&self) {
        let watched: Vec<String> = match self.watched.lock() {
            Ok(mut watched) => {
                watched.retain(|_, at| at.elapsed() < WATCH_FOR);
                watched.keys().cloned().collect()
            }
            Err(_) => return,
        };
        if watched.is_empty() {
            return;
        }
        let state = self.state();
        let (Some(groups), Some(metadata), Ok(wire), Ok(clients)) = (
            state.groups.data.clone(),
            state.metadata.clone(),
            self.link.wire(),
            self.link.clients(),
        ) else {
            return;
        };
        for id in watched {
            let Some(group) = groups.iter().find(|g| g.id == id) else {
                continue;
            };
            let Some(coordinator) = metadata.brokers.iter().find(|b| b.id == group.coordinator)
            else {
                continue;
            };
            let fresh = match wire.group(coordinator, &id, &group.kind).await {
                Ok(fresh) => fresh,
                Err(error) => {
                    tracing::debug!(cluster = %self.name, group = %id, %error, "watched group");
                    continue;
                }
            };
            let topics: Vec<kafka::Topic> = metadata
                .topics
                .iter()
                .filter(|t| fresh.offsets.iter().any(|(name, _, _)| *name == t.name))
                .cloned()
                .collect();
            let clients = Arc::clone(&clients);
            let marks = kafka::blocking("reading watermarks", move || {
                clients.fetch_watermarks(&topics, crate::kafka::WATERMARK_TIMEOUT)
            })
            .await
            .unwrap_or_default();
            self.update(|s| {
                let mut all = (*s.watermarks).clone();
                all.extend(marks);
                s.watermarks = Arc::new(all);
            });
            self.apply_group(&id, Some(fresh));
        }
    }
}
