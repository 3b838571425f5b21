//! Client quotas (BROKER_CONFIGS to read, ALTER_QUOTAS to change): the limits Kafka holds per
//! user, client id, user and client id together, or IP address, and per default of each.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::Arg;
use crate::error::ApiError;

/// How a quota's figure reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaUnit {
    BytesPerSecond,
    Percent,
    PerSecond,
}

/// One kind of quota Kafka keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotaKey {
    /// Kafka's name.
    pub key: &'static str,
    pub label: &'static str,
    pub unit: QuotaUnit,
    /// Kafka holds it as a whole number.
    pub whole: bool,
    /// It applies to IP entities (and only they take it); the others apply to users and
    /// client ids.
    pub ip: bool,
}

pub const QUOTA_KEYS: [QuotaKey; 5] = [
    QuotaKey {
        key: "producer_byte_rate",
        label: "Produce",
        unit: QuotaUnit::BytesPerSecond,
        whole: true,
        ip: false,
    },
    QuotaKey {
        key: "consumer_byte_rate",
        label: "Fetch",
        unit: QuotaUnit::BytesPerSecond,
        whole: true,
        ip: false,
    },
    QuotaKey {
        key: "request_percentage",
        label: "Request time",
        unit: QuotaUnit::Percent,
        whole: false,
        ip: false,
    },
    QuotaKey {
        key: "controller_mutation_rate",
        label: "Partition mutations",
        unit: QuotaUnit::PerSecond,
        whole: false,
        ip: false,
    },
    QuotaKey {
        key: "connection_creation_rate",
        label: "New connections",
        unit: QuotaUnit::PerSecond,
        whole: true,
        ip: true,
    },
];

/// The quota kind named `key`.
pub fn quota_key(key: &str) -> Option<&'static QuotaKey> {
    QUOTA_KEYS.iter().find(|k| k.key == key)
}

/// Kafka's entity types, in the order an entity names them.
pub const QUOTA_ENTITY_TYPES: [&str; 3] = ["user", "client-id", "ip"];

/// One part of a quota's entity: its type and name, or (`name: null`) the default of that
/// type. `name` must be given, so a misspelt field never sets a default by accident.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuotaEntityPart {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(deserialize_with = "Option::deserialize")]
    pub name: Option<String>,
}

impl QuotaEntityPart {
    pub fn new(kind: &str, name: Option<&str>) -> QuotaEntityPart {
        QuotaEntityPart {
            kind: kind.to_string(),
            name: name.map(str::to_string),
        }
    }

    fn words(&self) -> String {
        let kind = match self.kind.as_str() {
            "user" => "user",
            "client-id" => "client id",
            "ip" => "IP",
            other => other,
        };
        match &self.name {
            Some(name) => format!("{kind} {name}"),
            None => format!("default {kind}"),
        }
    }
}

/// An entity in words: "user alice, client id billing", "default user".
pub fn entity_words(entity: &[QuotaEntityPart]) -> String {
    let words: Vec<String> = entity.iter().map(QuotaEntityPart::words).collect();
    words.join(", ")
}

/// The quotas of one entity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClientQuota {
    /// User first, then client id; or one IP.
    pub entity: Vec<QuotaEntityPart>,
    /// Quota name → figure.
    pub values: BTreeMap<String, f64>,
}

/// `GET /api/quotas`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuotaList {
    pub cluster: String,
    /// Users, then client ids, then user and client id together, then IPs; defaults first.
    pub quotas: Vec<ClientQuota>,
}

/// The arguments of `alter_quota` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AlterQuotaArgs {
    pub cluster: String,
    #[serde(default)]
    pub entity: Arg<Vec<QuotaEntityPart>>,
    /// Quotas to set: name → figure.
    #[serde(default)]
    pub set: Arg<BTreeMap<String, f64>>,
    /// Quotas to remove.
    #[serde(default)]
    pub remove: Arg<Vec<String>>,
    /// `true`: Kafka validates the change and applies nothing.
    #[serde(default)]
    pub dry_run: Arg<bool>,
}

/// One quota before and after a change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuotaValueChange {
    pub key: String,
    pub before: Option<f64>,
    pub after: Option<f64>,
}

/// The answer of `alter_quota`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuotaChanged {
    pub cluster: String,
    pub entity: Vec<QuotaEntityPart>,
    pub dry_run: bool,
    pub changes: Vec<QuotaValueChange>,
}

/// Every client quota of the cluster (BROKER_CONFIGS).
#[server(endpoint = "quotas", input = GetUrl)]
pub async fn quotas(cluster: String) -> Result<QuotaList, ApiError> {
    super::backend::current()?.quotas(cluster).await
}

/// Sets and removes the quotas of one entity (ALTER_QUOTAS on a writable cluster).
#[server(endpoint = "alter_quota", input = Json)]
pub async fn alter_quota(
    #[server(flatten)] args: AlterQuotaArgs,
) -> Result<QuotaChanged, ApiError> {
    super::backend::current()?.alter_quota(args).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entity_part_needs_its_name_said() {
        let part: QuotaEntityPart =
            serde_json::from_str(r#"{"type": "user", "name": null}"#).expect("a default");
        assert_eq!(part, QuotaEntityPart::new("user", None));
        for bad in [
            r#"{"type": "user"}"#,
            r#"{"type": "user", "nmae": "alice"}"#,
        ] {
            assert!(
                serde_json::from_str::<QuotaEntityPart>(bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn entities_read_as_words() {
        let entity = [
            QuotaEntityPart::new("user", Some("alice")),
            QuotaEntityPart::new("client-id", None),
        ];
        assert_eq!(entity_words(&entity), "user alice, default client id");
        assert_eq!(
            entity_words(&[QuotaEntityPart::new("ip", Some("10.0.0.1"))]),
            "IP 10.0.0.1"
        );
    }
}
