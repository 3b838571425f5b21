//! Client quotas: the list (BROKER_CONFIGS on the cluster) and changes to one entity's
//! (ALTER_QUOTAS, on a writable cluster). The entity and each figure are judged before Kafka
//! is asked: a shape Kafka knows, names exactly as given, figures Kafka can hold.

use std::collections::BTreeMap;
use std::net::IpAddr;

use app::api::{quota_key, AlterQuotaArgs, Arg, QuotaChanged, QuotaEntityPart, QuotaList};
use app::{ApiError, Privilege};

use super::Service;
use crate::audit::Attempt;
use crate::auth::Caller;
use crate::kafka::admin::quotas;

/// The longest entity name klens sends.
const MAX_NAME: usize = 255;

pub async fn quotas(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<QuotaList, ApiError> {
    let quotas = service
        .cluster_read(caller, cluster, Privilege::BrokerConfigs, |granted, known| async move {
            quotas::quotas(&granted.grant, &granted.link(), &known).await
        })
        .await?;
    Ok(QuotaList { cluster: cluster.to_string(), quotas })
}

/// The entity as given, judged: a user, a client id, a user with a client id, or an IP, each
/// named or the default of its type; user before client id. A name is taken exactly (trimming
/// could reach another entity), and a new figure's entity may not start or end with white
/// space.
fn entity(
    parts: Arg<Vec<QuotaEntityPart>>, setting: bool,
) -> Result<Vec<QuotaEntityPart>, ApiError> {
    let mut parts = parts.required("entity")?;
    let shape = |kinds: &[&str]| {
        let mut have: Vec<&str> = parts.iter().map(|p| p.kind.as_str()).collect();
        have.sort_unstable();
        let mut want = kinds.to_vec();
        want.sort_unstable();
        have == want
    };
    if !(shape(&["user"])
        || shape(&["client-id"])
        || shape(&["user", "client-id"])
        || shape(&["ip"]))
    {
        return Err(ApiError::bad_request(
            "entity",
            "An entity is a user, a client id, a user with a client id, or an IP address: [{\"type\": \"user\" | \"client-id\" | \"ip\", \"name\": … or null for the default}].",
        ));
    }
    for part in &parts {
        let Some(name) = &part.name else { continue };
        if name.is_empty() || name.len() > MAX_NAME || name.chars().any(char::is_control) {
            return Err(ApiError::bad_request(
                "entity",
                format!("A {} name is 1 to {MAX_NAME} bytes, without control characters (null for the default).", part.kind),
            ));
        }
        if setting && name.trim() != name {
            return Err(ApiError::bad_request(
                "entity",
                format!("The {} name starts or ends with white space.", part.kind),
            ));
        }
        if part.kind == "ip" && name.parse::<IpAddr>().is_err() {
            return Err(ApiError::bad_request(
                "entity",
                format!("\"{name}\" is not an IP address."),
            ));
        }
    }
    parts.sort_by_key(|p| p.kind != "user");
    Ok(parts)
}

/// The figures to set and remove, judged against the entity: each quota once, of a kind the
/// entity takes, finite, not negative, whole where Kafka holds whole numbers.
fn operations(
    parts: &[QuotaEntityPart], set: BTreeMap<String, f64>, remove: Vec<String>,
) -> Result<Vec<(String, Option<f64>)>, ApiError> {
    if set.is_empty() && remove.is_empty() {
        return Err(ApiError::bad_request("set", "Name at least one quota to set or remove."));
    }
    let ip = parts.iter().any(|p| p.kind == "ip");
    let kind_of = |field: &str, key: &str| {
        let known = quota_key(key).ok_or_else(|| {
            ApiError::bad_request(
                field,
                format!(
                    "{key:?} is no quota Kafka keeps; the quotas are {}.",
                    app::api::QUOTA_KEYS.map(|k| k.key).join(", ")
                ),
            )
        })?;
        if known.ip != ip {
            let applies = if known.ip { "IP addresses only" } else { "users and client ids only" };
            return Err(ApiError::bad_request(field, format!("{key} applies to {applies}.")));
        }
        Ok(known)
    };
    let mut ops = Vec::new();
    for (key, value) in set {
        let known = kind_of("set", &key)?;
        if !value.is_finite() || value < 0.0 {
            return Err(ApiError::bad_request("set", format!("{key} is a number of 0 or more.")));
        }
        // Kafka holds connection_creation_rate as an int and the byte rates as longs.
        let most =
            if known.key == "connection_creation_rate" { f64::from(i32::MAX) } else { 9.0e18 };
        if known.whole && (value.fract() != 0.0 || value > most) {
            return Err(ApiError::bad_request(
                "set",
                format!("{key} is a whole number up to {most}."),
            ));
        }
        ops.push((key, Some(value)));
    }
    for key in remove {
        kind_of("remove", &key)?;
        if ops.iter().any(|(k, _)| *k == key) {
            return Err(ApiError::bad_request("remove", format!("{key} is named twice.")));
        }
        ops.push((key, None));
    }
    Ok(ops)
}

pub async fn alter_quota(
    service: &Service, caller: &Caller, args: AlterQuotaArgs,
) -> Result<QuotaChanged, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::AlterQuotas, &args, &[]);
    service
        .cluster_write(caller, attempt, |mut granted| async move {
            let set = args.set.or("set", BTreeMap::new())?;
            let remove = args.remove.or("remove", Vec::new())?;
            let parts = entity(args.entity, !set.is_empty())?;
            let ops = operations(&parts, set, remove)?;
            let dry_run = args.dry_run.or("dry_run", false)?;
            service.open(&mut granted.grant).await?;
            let known = granted.entry.known_brokers_now();
            let changes =
                quotas::alter_quota(&granted.grant, &granted.link(), &known, &parts, &ops, dry_run)
                    .await?;
            Ok(QuotaChanged { cluster: args.cluster, entity: parts, dry_run, changes })
        })
        .await
}

// The server functions this capability answers.
serves!(app::api::Quotas, |s, c, a| quotas(&s, &c, &a.cluster));
serves!(app::api::AlterQuota, |s, c, a| alter_quota(&s, &c, a.args));

#[cfg(test)]
mod tests {
    use super::*;
    use app::ErrorCode;

    fn part(kind: &str, name: Option<&str>) -> QuotaEntityPart {
        QuotaEntityPart::new(kind, name)
    }

    fn refused(outcome: Result<impl std::fmt::Debug, ApiError>, field: &str) -> String {
        let e = outcome.expect_err("refused");
        assert_eq!(
            (e.code, e.field.as_deref()),
            (ErrorCode::BadRequest, Some(field)),
            "{}",
            e.message
        );
        e.message
    }

    #[test]
    fn entities_take_the_shapes_kafka_knows() {
        let ok = entity(Arg::Given(vec![part("client-id", Some("app")), part("user", None)]), true)
            .expect("a user with a client id");
        assert_eq!(ok, [part("user", None), part("client-id", Some("app"))]);
        for bad in [
            vec![],
            vec![part("user", Some("a")), part("user", Some("b"))],
            vec![part("user", Some("a")), part("ip", Some("10.0.0.1"))],
            vec![part("group", Some("g"))],
        ] {
            refused(entity(Arg::Given(bad), true), "entity");
        }
        assert!(refused(entity(Arg::Given(vec![part("ip", Some("10.0.0.300"))]), true), "entity")
            .contains("not an IP"));
        // White space around a name: refused for a new figure, taken exactly for a removal.
        refused(entity(Arg::Given(vec![part("user", Some(" alice"))]), true), "entity");
        assert!(entity(Arg::Given(vec![part("user", Some(" alice"))]), false).is_ok());
        refused(entity(Arg::Missing, true), "entity");
    }

    #[test]
    fn figures_fit_the_entity_and_kafkas_types() {
        let user = [part("user", Some("alice"))];
        let ip = [part("ip", None)];
        let set = |pairs: &[(&str, f64)]| pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let ops = operations(
            &user,
            set(&[("producer_byte_rate", 1048576.0), ("request_percentage", 12.5)]),
            vec!["consumer_byte_rate".into()],
        )
        .expect("fine");
        assert_eq!(ops.len(), 3);
        assert!(operations(&ip, set(&[("connection_creation_rate", 5.0)]), vec![]).is_ok());
        refused(operations(&user, set(&[("connection_creation_rate", 5.0)]), vec![]), "set");
        refused(operations(&ip, set(&[("producer_byte_rate", 5.0)]), vec![]), "set");
        refused(operations(&user, set(&[("producer_byte_rate", 1.5)]), vec![]), "set");
        refused(operations(&user, set(&[("producer_byte_rate", -1.0)]), vec![]), "set");
        refused(operations(&user, set(&[("producer_byte_rate", f64::INFINITY)]), vec![]), "set");
        refused(operations(&user, set(&[("bogus", 1.0)]), vec![]), "set");
        refused(
            operations(
                &user,
                set(&[("producer_byte_rate", 1.0)]),
                vec!["producer_byte_rate".into()],
            ),
            "remove",
        );
        refused(operations(&user, BTreeMap::new(), vec![]), "set");
    }
}
