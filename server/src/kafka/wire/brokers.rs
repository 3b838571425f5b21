//! Broker configs through DescribeConfigs and IncrementalAlterConfigs: one broker's (asked of
//! that broker, which alone answers for itself) or the cluster-wide default's (the empty
//! resource name, asked of any broker).

use super::topics::{ConfigChange, ConfigEntry, Refusal};
use super::{WireClient, WireResult};
use crate::auth::Grant;
use crate::kafka::Broker;

/// Kafka's resource type for a broker in config requests.
pub const BROKER_RESOURCE: i8 = 4;

impl WireClient {
    /// Every config of `broker` as that broker describes it, or (with `None`) the dynamic
    /// cluster-wide defaults that are set, from the first broker that answers.
    pub async fn broker_configs(
        &self, known: &[Broker], broker: Option<&Broker>,
    ) -> WireResult<Result<Vec<ConfigEntry>, Refusal>> {
        match broker {
            Some(b) => {
                self.describe_configs(std::slice::from_ref(b), BROKER_RESOURCE, &b.id.to_string())
                    .await
            }
            None => self.describe_configs(self.targets(known), BROKER_RESOURCE, "").await,
        }
    }

    /// Sets and removes dynamic configs of `broker` (sent to it), or of the cluster-wide
    /// default (sent to the first known broker). With `validate_only`, Kafka checks only.
    pub async fn alter_broker_configs(
        &self, grant: &Grant, known: &[Broker], broker: Option<&Broker>, changes: &[ConfigChange],
        validate_only: bool,
    ) -> WireResult<Result<(), Refusal>> {
        let (to, name) = match broker {
            Some(b) => (b, b.id.to_string()),
            None => (self.first(known)?, String::new()),
        };
        self.alter_configs(grant, to, BROKER_RESOURCE, &name, changes, validate_only).await
    }
}
