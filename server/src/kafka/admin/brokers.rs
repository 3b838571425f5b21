//! Broker configs: one broker's every config, or the cluster-wide default's dynamic ones
//! (BROKER_CONFIGS on the cluster), and changes to either (ALTER_BROKER_CONFIGS). A read-only
//! config, or a per-broker one asked of the default, is refused before Kafka is asked, in
//! words that say why.

use std::collections::BTreeMap;

use app::api::{ConfigChangeView, ConfigSource, TopicConfig, UpdateMode};
use app::{ApiError, ErrorCode, Privilege};

use super::changes::{by_name, change_views, shows_change, unreachable_kafka, view};
use super::{cluster_refusal, read_until, wire_of};
use crate::auth::Grant;
use crate::kafka::wire::topics::{ConfigChange, Refusal};
use crate::kafka::wire::WireClient;
use crate::kafka::{Broker, Link};
use app::access::Resource;

/// The level a change to `broker` (or, with `None`, to the default) sets values at.
pub fn level_of(broker: Option<&Broker>) -> ConfigSource {
    match broker {
        Some(_) => ConfigSource::DynamicBroker,
        None => ConfigSource::DynamicDefaultBroker,
    }
}

fn target_words(broker: Option<&Broker>) -> String {
    match broker {
        Some(b) => format!("broker {}", b.id),
        None => "the cluster-wide broker default".to_string(),
    }
}

fn refusal(what: &str, needs: &str, broker: Option<&Broker>, refusal: Refusal) -> ApiError {
    cluster_refusal(what, needs, &target_words(broker), refusal)
}

/// Every config of `broker` as it describes itself, each with its update mode.
async fn describe(
    wire: &WireClient, known: &[Broker], broker: Option<&Broker>,
) -> Result<Vec<TopicConfig>, ApiError> {
    let entries = wire
        .broker_configs(known, broker)
        .await
        .map_err(|e| unreachable_kafka("read the configs of", &target_words(broker), &e))?
        .map_err(|r| refusal("read broker configs", "DESCRIBE_CONFIGS", broker, r))?;
    Ok(entries
        .into_iter()
        .map(|entry| {
            let mut config = view(entry);
            config.update_mode = Some(UpdateMode::of(&config.name, config.read_only));
            config
        })
        .collect())
}

/// The cluster-wide default as a page shows it: every config that may have a default, from
/// a broker's own list, with the default's value where one is set and otherwise what that
/// broker falls back to; then any default Kafka holds that the broker does not list.
pub(super) fn default_view(
    of_broker: Vec<TopicConfig>, defaults: Vec<TopicConfig>,
) -> Vec<TopicConfig> {
    let mut set = by_name(defaults);
    let mut out = Vec::new();
    for mut config in of_broker {
        if config.update_mode != Some(UpdateMode::ClusterWide) {
            continue;
        }
        set.remove(&config.name);
        // The broker's own dynamic value is no part of the default.
        config.synonyms.retain(|s| s.source != ConfigSource::DynamicBroker);
        match config.synonyms.first() {
            Some(head) => {
                config.value = head.value.clone();
                config.source = head.source;
            }
            None if config.source == ConfigSource::DynamicBroker => {
                config.value = None;
                config.source = ConfigSource::Default;
            }
            None => {}
        }
        out.push(config);
    }
    for (_, mut config) in set {
        config.update_mode = Some(UpdateMode::of(&config.name, config.read_only));
        config.source = ConfigSource::DynamicDefaultBroker;
        out.push(config);
    }
    out
}

/// Values set at `level` first, then by name.
fn in_page_order(mut configs: Vec<TopicConfig>, level: ConfigSource) -> Vec<TopicConfig> {
    configs.sort_by(|a, b| (!a.is_set_at(level), &a.name).cmp(&(!b.is_set_at(level), &b.name)));
    configs
}

/// What a page shows for `broker`, or for the default: the configs, and for the default the
/// broker whose list it was read from.
async fn read(
    wire: &WireClient, known: &[Broker], broker: Option<&Broker>,
) -> Result<(Vec<TopicConfig>, Option<i32>, Vec<TopicConfig>), ApiError> {
    match broker {
        Some(b) => {
            let configs = describe(wire, known, Some(b)).await?;
            Ok((configs.clone(), None, configs))
        }
        None => {
            let Some(from) = known.first() else {
                return Err(ApiError::new(
                    ErrorCode::Client,
                    "No broker of the cluster is known yet, so its configs cannot be read.",
                ));
            };
            let own = describe(wire, known, Some(from)).await?;
            let defaults = describe(wire, known, None).await?;
            Ok((default_view(own.clone(), defaults), Some(from.id), own))
        }
    }
}

/// Every config of `broker`, or of the cluster-wide default, in page order; for the default,
/// also the broker whose list it shows.
pub async fn broker_configs(
    grant: &Grant, link: &Link, known: &[Broker], broker: Option<&Broker>,
) -> Result<(Vec<TopicConfig>, Option<i32>), ApiError> {
    grant.require(Privilege::BrokerConfigs, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    let (configs, read_from, _) = read(&wire, known, broker).await?;
    Ok((in_page_order(configs, level_of(broker)), read_from))
}

/// Why Kafka would refuse to change `config` at this level while brokers run, if it would.
fn unchangeable(config: &TopicConfig, broker: Option<&Broker>) -> Option<String> {
    match config.update_mode {
        Some(UpdateMode::ReadOnly) => Some(format!(
            "{} is read-only while brokers run: each broker reads it from server.properties at start-up, so changing it takes a restart.",
            config.name
        )),
        Some(UpdateMode::PerBroker) if broker.is_none() => Some(format!(
            "{} is set per broker only: Kafka takes no cluster-wide default for it.",
            config.name
        )),
        _ => None,
    }
}

/// Sets and removes dynamic values of `broker` or of the cluster-wide default. With
/// `dry_run`, Kafka validates and nothing changes; otherwise the answer is what the broker
/// shows after the change.
pub async fn alter_broker_configs(
    grant: &Grant, link: &Link, known: &[Broker], broker: Option<&Broker>,
    changes: &[ConfigChange], dry_run: bool,
) -> Result<Vec<ConfigChangeView>, ApiError> {
    grant.require(Privilege::AlterBrokerConfigs, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    let level = level_of(broker);
    let (shown, _, own) = read(&wire, known, broker).await?;
    for (name, _) in changes {
        if let Some(why) =
            own.iter().find(|c| c.name == *name).and_then(|c| unchangeable(c, broker))
        {
            return Err(ApiError::new(ErrorCode::Admin, why));
        }
    }
    wire.alter_broker_configs(grant, known, broker, changes, dry_run)
        .await
        .map_err(|e| unreachable_kafka("change the configs of", &target_words(broker), &e))?
        .map_err(|r| refusal("change broker configs", "ALTER_CONFIGS", broker, r))?;
    let before = by_name(shown);
    let after = if dry_run { None } else { read_back(&wire, known, broker, changes).await };
    Ok(change_views(level, changes, &before, after.as_ref()))
}

/// The configs after a change, once the broker shows every part of it, or as last read;
/// `None` when they could not be read.
async fn read_back(
    wire: &WireClient, known: &[Broker], broker: Option<&Broker>, changes: &[ConfigChange],
) -> Option<BTreeMap<String, TopicConfig>> {
    let level = level_of(broker);
    read_until(
        || async { read(wire, known, broker).await.map(|(configs, _, _)| by_name(configs)) },
        |now| {
            changes.iter().all(|(name, value)| shows_change(now.get(name), level, value.as_deref()))
        },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::super::changes::predicted;
    use super::super::test_config as config;
    use super::*;

    #[test]
    fn a_removal_shows_once_the_value_follows_the_chain() {
        use ConfigSource::*;
        // The chain already falls back to the default; the value is still the broker's.
        let lagging = config(
            "num.io.threads",
            Some("16"),
            DynamicDefaultBroker,
            &[("12", DynamicDefaultBroker), ("8", Default)],
        );
        assert!(!shows_change(Some(&lagging), DynamicBroker, None));
        let settled = config(
            "num.io.threads",
            Some("12"),
            DynamicDefaultBroker,
            &[("12", DynamicDefaultBroker), ("8", Default)],
        );
        assert!(shows_change(Some(&settled), DynamicBroker, None));
        let set = config(
            "num.io.threads",
            Some("16"),
            DynamicBroker,
            &[("16", DynamicBroker), ("8", Default)],
        );
        assert!(shows_change(Some(&set), DynamicBroker, Some("16")));
        assert!(!shows_change(Some(&set), DynamicBroker, Some("17")));
    }

    #[test]
    fn the_default_shows_its_own_value_or_what_brokers_fall_back_to() {
        use ConfigSource::*;
        let of_broker = vec![
            // Set on the broker and as the default: the page shows the default.
            config(
                "log.cleaner.threads",
                Some("4"),
                DynamicBroker,
                &[("4", DynamicBroker), ("2", DynamicDefaultBroker), ("1", Default)],
            ),
            // Set on the broker only: the page shows what the default level falls back to.
            config(
                "num.io.threads",
                Some("16"),
                DynamicBroker,
                &[("16", DynamicBroker), ("8", StaticBroker)],
            ),
            // Per broker only: not on the default's page.
            config(
                "listeners",
                Some("PLAINTEXT://:9092"),
                StaticBroker,
                &[("PLAINTEXT://:9092", StaticBroker)],
            ),
        ];
        let defaults = vec![
            config("log.cleaner.threads", Some("2"), DynamicDefaultBroker, &[]),
            // A default the broker's list lacks still shows.
            config(
                "listener.name.internal.max.connections",
                Some("100"),
                DynamicDefaultBroker,
                &[],
            ),
        ];
        let page = default_view(of_broker, defaults);
        let seen: Vec<(&str, Option<&str>, ConfigSource)> =
            page.iter().map(|c| (c.name.as_str(), c.value.as_deref(), c.source)).collect();
        assert_eq!(
            seen,
            [
                ("log.cleaner.threads", Some("2"), DynamicDefaultBroker),
                ("num.io.threads", Some("8"), StaticBroker),
                ("listener.name.internal.max.connections", Some("100"), DynamicDefaultBroker),
            ]
        );
        assert!(page[0].synonyms.iter().all(|s| s.source != DynamicBroker));
    }

    #[test]
    fn read_only_and_per_broker_configs_are_refused_where_kafka_would() {
        let broker = Broker { id: 1, host: "h".into(), port: 9092 };
        let mut read_only = config("log.dirs", Some("/x"), ConfigSource::StaticBroker, &[]);
        read_only.read_only = true;
        read_only.update_mode = Some(UpdateMode::ReadOnly);
        for target in [Some(&broker), None] {
            let why = unchangeable(&read_only, target).expect("refused");
            assert!(why.contains("restart"), "{why}");
        }
        let listeners = config("listeners", None, ConfigSource::StaticBroker, &[]);
        assert_eq!(unchangeable(&listeners, Some(&broker)), None);
        assert!(unchangeable(&listeners, None).is_some_and(|w| w.contains("per broker")));
        let threads = config("num.io.threads", None, ConfigSource::Default, &[]);
        assert_eq!(unchangeable(&threads, None), None);
    }

    #[test]
    fn removing_a_brokers_value_falls_back_to_the_default_level() {
        use ConfigSource::*;
        let c = config(
            "num.io.threads",
            Some("16"),
            DynamicBroker,
            &[("16", DynamicBroker), ("12", DynamicDefaultBroker), ("8", Default)],
        );
        assert_eq!(
            predicted(DynamicBroker, Some(&c), None),
            (Some("12".into()), Some(DynamicDefaultBroker))
        );
    }
}
