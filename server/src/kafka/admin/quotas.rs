//! Client quotas: every entity's (BROKER_CONFIGS on the cluster) and changes to one entity's
//! (ALTER_QUOTAS), each read back until Kafka shows it. What klens's own Kafka user lacks is
//! said in those words.

use std::collections::BTreeMap;

use app::access::Resource;
use app::api::{ClientQuota, QuotaEntityPart, QuotaValueChange, QUOTA_ENTITY_TYPES};
use app::{ApiError, ErrorCode, Privilege};

use super::{cluster_refusal, read_until, wire_of};
use crate::auth::Grant;
use crate::kafka::wire::quotas::{Entity, QuotaEntry};
use crate::kafka::wire::{WireClient, WireError};
use crate::kafka::{Broker, Link};

fn unreachable(error: WireError) -> ApiError {
    ApiError::new(
        ErrorCode::Client,
        format!("klens could not reach Kafka for client quotas: {error}."),
    )
}

fn entity_of(parts: &[QuotaEntityPart]) -> Entity {
    parts.iter().map(|p| (p.kind.clone(), p.name.clone())).collect()
}

/// Where an entity sorts: users, client ids, users with client ids, IPs; defaults first.
fn order_key(quota: &ClientQuota) -> (usize, Vec<(usize, Option<String>)>) {
    let position = |kind: &str| QUOTA_ENTITY_TYPES.iter().position(|t| *t == kind).unwrap_or(9);
    let shape = match quota.entity.as_slice() {
        [one] => match one.kind.as_str() {
            "user" => 0,
            "client-id" => 1,
            _ => 3,
        },
        _ => 2,
    };
    let parts = quota.entity.iter().map(|p| (position(&p.kind), p.name.clone())).collect();
    (shape, parts)
}

fn quota_of(entry: QuotaEntry) -> ClientQuota {
    let mut entity: Vec<QuotaEntityPart> =
        entry.entity.into_iter().map(|(kind, name)| QuotaEntityPart { kind, name }).collect();
    entity.sort_by_key(|p| QUOTA_ENTITY_TYPES.iter().position(|t| *t == p.kind));
    ClientQuota { entity, values: entry.values.into_iter().collect() }
}

/// Every entity's quotas, in page order.
pub async fn quotas(
    grant: &Grant, link: &Link, known: &[Broker],
) -> Result<Vec<ClientQuota>, ApiError> {
    grant.require(Privilege::BrokerConfigs, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    let entries =
        wire.quotas(known, None).await.map_err(unreachable)?.map_err(|r| {
            cluster_refusal("list the client quotas", "DESCRIBE_CONFIGS", "quotas", r)
        })?;
    let mut quotas: Vec<ClientQuota> = entries.into_iter().map(quota_of).collect();
    quotas.sort_by_key(order_key);
    Ok(quotas)
}

/// Exactly `entity`'s quotas.
async fn of_entity(
    wire: &WireClient, known: &[Broker], entity: &Entity, words: &str,
) -> Result<BTreeMap<String, f64>, ApiError> {
    let entries =
        wire.quotas(known, Some(entity)).await.map_err(unreachable)?.map_err(|r| {
            cluster_refusal("read the client quotas of", "DESCRIBE_CONFIGS", words, r)
        })?;
    Ok(entries.into_iter().flat_map(|e| e.values).collect())
}

/// Sets (`Some`) and removes (`None`) quotas of `entity`. With `dry_run`, Kafka validates and
/// nothing changes; otherwise the answer is what Kafka shows after the change.
pub async fn alter_quota(
    grant: &Grant, link: &Link, known: &[Broker], parts: &[QuotaEntityPart],
    ops: &[(String, Option<f64>)], dry_run: bool,
) -> Result<Vec<QuotaValueChange>, ApiError> {
    grant.require(Privilege::AlterQuotas, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    let entity = entity_of(parts);
    let words = app::api::entity_words(parts);
    let before = of_entity(&wire, known, &entity, &words).await?;
    wire.alter_quotas(grant, known, &entity, ops, dry_run)
        .await
        .map_err(unreachable)?
        .map_err(|r| cluster_refusal("change a client quota", "ALTER_CONFIGS", &words, r))?;
    let after = if dry_run {
        None
    } else {
        read_until(
            || of_entity(&wire, known, &entity, &words),
            |now| ops.iter().all(|(k, v)| now.get(k).copied() == *v),
        )
        .await
    };
    Ok(ops
        .iter()
        .map(|(key, value)| QuotaValueChange {
            key: key.clone(),
            before: before.get(key).copied(),
            after: match &after {
                Some(now) => now.get(key).copied(),
                // A dry run: what is set, or nothing once removed.
                None => *value,
            },
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quota(parts: &[(&str, Option<&str>)]) -> ClientQuota {
        ClientQuota {
            entity: parts.iter().map(|(k, n)| QuotaEntityPart::new(k, *n)).collect(),
            values: BTreeMap::new(),
        }
    }

    #[test]
    fn quotas_sort_by_shape_with_defaults_first() {
        let mut list = [
            quota(&[("ip", Some("10.0.0.1"))]),
            quota(&[("user", Some("bob")), ("client-id", Some("app"))]),
            quota(&[("client-id", Some("app"))]),
            quota(&[("user", Some("alice"))]),
            quota(&[("user", None)]),
        ];
        list.sort_by_key(order_key);
        let words: Vec<String> = list.iter().map(|q| app::api::entity_words(&q.entity)).collect();
        assert_eq!(
            words,
            [
                "default user",
                "user alice",
                "client id app",
                "user bob, client id app",
                "IP 10.0.0.1"
            ]
        );
    }

    #[test]
    fn an_entity_reads_user_before_client_id() {
        let q = quota_of(QuotaEntry {
            entity: vec![("client-id".into(), Some("app".into())), ("user".into(), None)],
            values: vec![("producer_byte_rate".into(), 1024.0)],
        });
        assert_eq!(app::api::entity_words(&q.entity), "default user, client id app");
        assert_eq!(q.values.get("producer_byte_rate"), Some(&1024.0));
    }
}
