//! Broker configs: one broker's or the cluster-wide default's (BROKER_CONFIGS on the
//! cluster), and changes to either (ALTER_BROKER_CONFIGS, on a writable cluster).

use std::collections::BTreeMap;

use app::access::{Action, Resource};
use app::api::{AlterBrokerConfigArgs, Arg, BrokerConfigList, BrokerConfigsChanged};
use app::{ApiError, Privilege};

use super::topics::config_changes;
use super::{Granted, Service};
use crate::audit::Attempt;
use crate::auth::Caller;
use crate::kafka::admin::brokers;
use crate::kafka::Broker;

/// The broker `id` names among those the cluster's last metadata lists; `None` for the
/// cluster-wide default.
fn target(granted: &Granted, id: Option<i32>) -> Result<(Vec<Broker>, Option<Broker>), ApiError> {
    let known = granted.entry.known_brokers_now();
    let broker = match id {
        None => None,
        Some(id) => Some(known.iter().find(|b| b.id == id).cloned().ok_or_else(|| {
            ApiError::not_found(format!(
                "There is no broker {id} in cluster \"{}\".",
                granted.entry.name
            ))
        })?),
    };
    Ok((known, broker))
}

pub async fn broker_configs(
    service: &Service, caller: &Caller, cluster: &str, broker: Arg<i32>,
) -> Result<BrokerConfigList, ApiError> {
    let args = serde_json::json!({ "broker": &broker });
    service
        .audited_read(caller, cluster, Privilege::BrokerConfigs, &args, async move {
            let granted = service.decide(
                caller,
                cluster,
                Action::new(Privilege::BrokerConfigs, Resource::Cluster),
            )?;
            let id = broker.optional("broker")?;
            let (known, broker) = target(&granted, id)?;
            let (configs, read_from) =
                brokers::broker_configs(&granted.grant, &granted.link(), &known, broker.as_ref())
                    .await?;
            Ok(BrokerConfigList { cluster: cluster.to_string(), broker: id, read_from, configs })
        })
        .await
}

pub async fn alter_broker_config(
    service: &Service, caller: &Caller, args: AlterBrokerConfigArgs,
) -> Result<BrokerConfigsChanged, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::AlterBrokerConfigs, &args, &["set"]).with(
        "set",
        args.set.given().map(|s| s.keys().cloned().collect::<Vec<_>>()).unwrap_or_default(),
    );
    service
        .cluster_write(caller, attempt, |mut granted| async move {
            let id = args.broker.optional("broker")?;
            let set = args.set.or("set", BTreeMap::new())?;
            let remove = args.remove.or("remove", Vec::new())?;
            let dry_run = args.dry_run.or("dry_run", false)?;
            let changes = config_changes(set, remove)?;
            let (known, broker) = target(&granted, id)?;
            service.open(&mut granted.grant).await?;
            let changes = brokers::alter_broker_configs(
                &granted.grant,
                &granted.link(),
                &known,
                broker.as_ref(),
                &changes,
                dry_run,
            )
            .await?;
            Ok(BrokerConfigsChanged { cluster: args.cluster, broker: id, dry_run, changes })
        })
        .await
}

// The server functions this capability answers.
serves!(app::api::BrokerConfigs, |s, c, a| broker_configs(&s, &c, &a.cluster, a.broker));
serves!(app::api::AlterBrokerConfig, |s, c, a| alter_broker_config(&s, &c, a.args));
