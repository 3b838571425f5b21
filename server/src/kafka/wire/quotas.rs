//! Client quotas through DescribeClientQuotas (every entity, or one exactly) and
//! AlterClientQuotas (one entity's figures set and removed in one request).

use kafka_protocol::messages::alter_client_quotas_request::{EntityData, EntryData, OpData};
use kafka_protocol::messages::describe_client_quotas_request::ComponentData;
use kafka_protocol::messages::{AlterClientQuotasRequest, DescribeClientQuotasRequest};
use kafka_protocol::protocol::StrBytes;

use super::topics::Refusal;
use super::{WireClient, WireError, WireResult};
use crate::auth::Grant;
use crate::kafka::Broker;

/// An entity: each part's type and name, `None` for the default of that type.
pub type Entity = Vec<(String, Option<String>)>;

/// One entity's quotas as Kafka holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct QuotaEntry {
    pub entity: Entity,
    pub values: Vec<(String, f64)>,
}

/// DescribeClientQuotas match types.
const MATCH_EXACT: i8 = 0;
const MATCH_DEFAULT: i8 = 1;

fn text(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

impl WireClient {
    /// Every entity's quotas (with `None`), or exactly those of `entity`.
    pub async fn quotas(
        &self, known: &[Broker], entity: Option<&Entity>,
    ) -> WireResult<Result<Vec<QuotaEntry>, Refusal>> {
        let request = match entity {
            // No component and not strict: every entity.
            None => DescribeClientQuotasRequest::default().with_strict(false),
            Some(entity) => DescribeClientQuotasRequest::default()
                .with_components(
                    entity
                        .iter()
                        .map(|(kind, name)| {
                            let part = ComponentData::default().with_entity_type(text(kind));
                            match name {
                                Some(n) => {
                                    part.with_match_type(MATCH_EXACT).with_match(Some(text(n)))
                                }
                                None => part.with_match_type(MATCH_DEFAULT).with_match(None),
                            }
                        })
                        .collect(),
                )
                .with_strict(true),
        };
        let response = self.ask_any(known, &request, 0).await?;
        if let Err(refusal) = Refusal::of(response.error_code, response.error_message.as_ref()) {
            return Ok(Err(refusal));
        }
        Ok(Ok(response
            .entries
            .unwrap_or_default()
            .into_iter()
            .map(|e| QuotaEntry {
                entity: e
                    .entity
                    .into_iter()
                    .map(|p| (p.entity_type.to_string(), p.entity_name.map(|n| n.to_string())))
                    .collect(),
                values: e.values.into_iter().map(|v| (v.key.to_string(), v.value)).collect(),
            })
            .collect()))
    }

    /// Sets (`Some`) and removes (`None`) quotas of `entity` in one request. With
    /// `validate_only`, Kafka checks and changes nothing.
    pub async fn alter_quotas(
        &self, grant: &Grant, known: &[Broker], entity: &Entity, ops: &[(String, Option<f64>)],
        validate_only: bool,
    ) -> WireResult<Result<(), Refusal>> {
        let request = AlterClientQuotasRequest::default()
            .with_entries(vec![EntryData::default()
                .with_entity(
                    entity
                        .iter()
                        .map(|(kind, name)| {
                            EntityData::default()
                                .with_entity_type(text(kind))
                                .with_entity_name(name.as_deref().map(text))
                        })
                        .collect(),
                )
                .with_ops(
                    ops.iter()
                        .map(|(key, value)| {
                            OpData::default()
                                .with_key(text(key))
                                .with_value(value.unwrap_or(0.0))
                                .with_remove(value.is_none())
                        })
                        .collect(),
                )])
            .with_validate_only(validate_only);
        let broker = self.first(known)?;
        let mut lease = self.lease(broker).await?;
        let response = lease.write(grant, &request, 0).await?;
        match response.entries.first() {
            Some(r) => Ok(Refusal::of(r.error_code, r.error_message.as_ref())),
            None => Err(WireError::Protocol(
                "AlterClientQuotas: an answer without the entity".to_string(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kafka::wire::kinds::WriteRequest;
    use app::access::Resource;
    use app::Privilege;

    /// A quota change needs ALTER_QUOTAS on the cluster, once per entity; one that names no
    /// entity is never sent.
    #[test]
    fn quota_changes_need_their_privilege_on_the_cluster() {
        let request = AlterClientQuotasRequest::default()
            .with_entries(vec![EntryData::default(), EntryData::default()]);
        assert_eq!(request.needs(), vec![(Privilege::AlterQuotas, Resource::Cluster); 2]);
        assert!(AlterClientQuotasRequest::default().needs().is_empty());
    }
}
