//! Client quotas (BROKER_CONFIGS to read, ALTER_QUOTAS to change): the limits Kafka holds per
//! user, client id, user and client id together, or IP address, and per default of each.

use std::collections::BTreeMap;

use super::Answer;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::Arg;

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

/// Binary units for byte rates, as quotas are usually set (1 MiB/s is 1048576).
pub const BYTE_UNITS: [(&str, f64); 4] = [
    ("B/s", 1.0),
    ("KiB/s", 1024.0),
    ("MiB/s", 1024.0 * 1024.0),
    ("GiB/s", 1024.0 * 1024.0 * 1024.0),
];

impl QuotaKey {
    /// A figure of this kind in human units: "1.5 MiB/s", "25 %", "10 /s".
    pub fn show(&self, value: f64) -> String {
        let trim = |v: f64| {
            let text = format!("{v:.2}");
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        match self.unit {
            QuotaUnit::BytesPerSecond => {
                let (name, size) = BYTE_UNITS
                    .iter()
                    .rev()
                    .find(|(_, size)| value >= *size)
                    .copied()
                    .unwrap_or(BYTE_UNITS[0]);
                format!("{} {name}", trim(value / size))
            }
            QuotaUnit::Percent => format!("{} %", trim(value)),
            QuotaUnit::PerSecond => format!("{} /s", trim(value)),
        }
    }
}

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
        QuotaEntityPart { kind: kind.to_string(), name: name.map(str::to_string) }
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
    pub entity: Arg<Vec<QuotaEntityPart>>,
    /// Quotas to set: name → figure.
    pub set: Arg<BTreeMap<String, f64>>,
    /// Quotas to remove.
    pub remove: Arg<Vec<String>>,
    /// `true`: Kafka validates the change and applies nothing.
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

serve! {
    /// Every client quota of the cluster (BROKER_CONFIGS).
    GetUrl "quotas" fn quotas(cluster: String) -> QuotaList as Quotas;

    /// Sets and removes the quotas of one entity (ALTER_QUOTAS on a writable cluster).
    Json "alter_quota" fn alter_quota(
        #[server(flatten)] args: AlterQuotaArgs
    ) -> QuotaChanged as AlterQuota;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entity_part_needs_its_name_said() {
        let part: QuotaEntityPart =
            serde_json::from_str(r#"{"type": "user", "name": null}"#).expect("a default");
        assert_eq!(part, QuotaEntityPart::new("user", None));
        for bad in [r#"{"type": "user"}"#, r#"{"type": "user", "nmae": "alice"}"#] {
            assert!(serde_json::from_str::<QuotaEntityPart>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn figures_read_in_human_units() {
        let shown = |key: &str, v: f64| quota_key(key).expect("known").show(v);
        assert_eq!(shown("producer_byte_rate", 1_048_576.0), "1 MiB/s");
        assert_eq!(shown("consumer_byte_rate", 1_572_864.0), "1.5 MiB/s");
        assert_eq!(shown("consumer_byte_rate", 500.0), "500 B/s");
        assert_eq!(shown("consumer_byte_rate", 0.0), "0 B/s");
        assert_eq!(shown("request_percentage", 25.5), "25.5 %");
        assert_eq!(shown("connection_creation_rate", 7.0), "7 /s");
    }

    #[test]
    fn entities_read_as_words() {
        let entity =
            [QuotaEntityPart::new("user", Some("alice")), QuotaEntityPart::new("client-id", None)];
        assert_eq!(entity_words(&entity), "user alice, default client id");
        assert_eq!(entity_words(&[QuotaEntityPart::new("ip", Some("10.0.0.1"))]), "IP 10.0.0.1");
    }
}
