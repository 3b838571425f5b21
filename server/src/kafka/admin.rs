//! The admin room: changes through Kafka's admin API with their read-back, and how Kafka's
//! refusals map onto the error contract. Every change takes the [`Grant`] for its privilege on
//! its resource and checks it before anything reaches Kafka.

use std::sync::Arc;
use std::time::Duration;

use app::error::Flavor;
use app::names::TopicName;
use app::{ApiError, ErrorCode, Privilege};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};

use super::{Broker, KafkaClients, KlensContext, Link, Topic, Watermarks};
use crate::auth::Grant;

pub mod acls;
pub mod brokers;
mod changes;
pub mod groups;
pub mod produce;
pub mod quotas;
pub mod users;
pub use changes::*;

/// How long Kafka may take over one admin operation.
const OPERATION_TIMEOUT: Duration = Duration::from_secs(30);

fn options() -> AdminOptions {
    AdminOptions::new()
        .operation_timeout(Some(OPERATION_TIMEOUT))
        .request_timeout(Some(OPERATION_TIMEOUT))
}

/// What the caller asked to create, already validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicSpec {
    pub name: String,
    pub partitions: i32,
    /// `None` takes the broker's default.
    pub replication_factor: Option<i32>,
    pub configs: Vec<(String, String)>,
}

/// A sanity bound on one request; Kafka itself has none, but a typo of extra zeros is likelier
/// than a wish for more partitions than this.
pub const MAX_PARTITIONS: i32 = 100_000;

impl TopicSpec {
    /// Validates what a caller asked for.
    pub fn new(
        name: &str, partitions: i32, replication_factor: Option<i32>,
        configs: &std::collections::BTreeMap<String, String>,
    ) -> Result<TopicSpec, ApiError> {
        TopicName::check(name, "topic")?;
        if !(1..=MAX_PARTITIONS).contains(&partitions) {
            return Err(ApiError::bad_request(
                "partitions",
                format!("partitions must be between 1 and {MAX_PARTITIONS}."),
            ));
        }
        if let Some(rf) = replication_factor {
            if !(1..=i32::from(i16::MAX)).contains(&rf) {
                return Err(ApiError::bad_request(
                    "replication_factor",
                    "replication_factor must be at least 1 (omit it for the broker's default).",
                ));
            }
        }
        if configs.keys().any(|k| k.trim().is_empty()) {
            return Err(ApiError::bad_request("configs", "A config name cannot be empty."));
        }
        Ok(TopicSpec {
            name: name.to_string(),
            partitions,
            replication_factor,
            configs: configs.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        })
    }
}

/// A topic as Kafka shows it after a change, with its watermarks: what the projection takes
/// in. `topic` is `None` once the topic is gone.
pub struct ReadBack {
    pub topic: Option<Topic>,
    pub watermarks: Watermarks,
}

/// The clients of a cluster.
fn clients_of(link: &Link) -> Result<Arc<KafkaClients>, ApiError> {
    link.clients().map_err(ApiError::from)
}

/// The protocol client of a cluster.
fn wire_of(link: &Link) -> Result<Arc<super::wire::WireClient>, ApiError> {
    Ok(link.wire()?)
}

/// The admin client among `clients`. The decision refuses writes on read-only clusters first;
/// a read-only cluster has no admin client at all, so this is a second lock.
fn admin_of<'a>(
    clients: &'a KafkaClients, link: &Link,
) -> Result<&'a AdminClient<KlensContext>, ApiError> {
    clients.admin().ok_or_else(|| ApiError::read_only_cluster(&link.cluster))
}

/// Creates the topic `spec` describes (CREATE_TOPICS on that topic), then reads it back.
pub async fn create_topic(
    grant: &Grant, link: &Link, known: &[Broker], spec: &TopicSpec,
) -> Result<ReadBack, ApiError> {
    create(grant, link, spec, false).await?;
    let clients = clients_of(link)?;
    Ok(read_back(link, &clients, known, &spec.name, |t| t.is_some()).await)
}

/// Asks Kafka to validate creating `spec` (CREATE_TOPICS on it) and creates nothing.
pub async fn validate_topic(grant: &Grant, link: &Link, spec: &TopicSpec) -> Result<(), ApiError> {
    create(grant, link, spec, true).await
}

async fn create(
    grant: &Grant, link: &Link, spec: &TopicSpec, validate_only: bool,
) -> Result<(), ApiError> {
    grant.require_topic(Privilege::CreateTopics, &spec.name)?;
    let clients = clients_of(link)?;
    let admin = admin_of(&clients, link)?;
    let mut topic = NewTopic::new(
        &spec.name,
        spec.partitions,
        TopicReplication::Fixed(spec.replication_factor.unwrap_or(-1)),
    );
    for (key, value) in &spec.configs {
        topic = topic.set(key, value);
    }
    let results = admin
        .create_topics([&topic], &options().validate_only(validate_only))
        .await
        .map_err(|e| admin_error("create the topic", &e))?;
    for result in results {
        result.map_err(|(_, code)| refusal("create topic", &spec.name, code))?;
    }
    Ok(())
}

/// Deletes a topic (DELETE_TOPICS on that topic), then reads it back until Kafka shows it gone.
pub async fn delete_topic(
    grant: &Grant, link: &Link, known: &[Broker], name: &str,
) -> Result<ReadBack, ApiError> {
    grant.require_topic(Privilege::DeleteTopics, name)?;
    let clients = clients_of(link)?;
    let admin = admin_of(&clients, link)?;
    let results = admin
        .delete_topics(&[name], &options())
        .await
        .map_err(|e| admin_error("delete the topic", &e))?;
    for result in results {
        result.map_err(|(_, code)| refusal("delete topic", name, code))?;
    }
    Ok(read_back(link, &clients, known, name, |t| t.is_none()).await)
}

/// How often, and how long, a write waits for Kafka's metadata to show it.
const READ_BACK_PAUSE: Duration = Duration::from_millis(250);
const READ_BACK_TRIES: usize = 40;

/// How many times a config or quota change is read back, `READ_BACK_PAUSE` apart.
const SETTLE_TRIES: usize = 12;

/// Reads with `read` until `shows` holds of its answer (a config or quota change reaches the
/// brokers through the metadata log a moment after Kafka answers), for up to three seconds.
/// Answers the last good read, or `None` when none succeeded: the change happened, only its
/// read-back failed.
async fn read_until<T, E, F, Fut>(mut read: F, shows: impl Fn(&T) -> bool) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
{
    let mut last = None;
    for _ in 0..SETTLE_TRIES {
        if let Ok(now) = read().await {
            let done = shows(&now);
            last = Some(now);
            if done {
                break;
            }
        }
        tokio::time::sleep(READ_BACK_PAUSE).await;
    }
    last
}

/// Reads one topic back after a write, waiting (briefly) until Kafka shows it as `ready` says
/// (created, gone, with its new partitions): far cheaper than a full refresh on a large
/// cluster. Failing to read it back is not a failed write; the next refresh shows it.
async fn read_back(
    link: &Link, clients: &Arc<KafkaClients>, known: &[Broker], name: &str,
    ready: impl Fn(Option<&Topic>) -> bool,
) -> ReadBack {
    let mut topic = None;
    if let Ok(wire) = link.wire() {
        let names = [name.to_string()];
        for _ in 0..READ_BACK_TRIES {
            topic = wire
                .metadata(known, Some(&names))
                .await
                .ok()
                .and_then(|m| m.topics.into_iter().find(|t| t.name == name))
                .filter(|t| !t.partitions.is_empty());
            if ready(topic.as_ref()) {
                break;
            }
            tokio::time::sleep(READ_BACK_PAUSE).await;
        }
    }
    let watermarks = match &topic {
        Some(t) => {
            let (clients, t) = (Arc::clone(clients), t.clone());
            super::blocking("reading watermarks", move || {
                clients.fetch_watermarks(std::slice::from_ref(&t), crate::kafka::WATERMARK_TIMEOUT)
            })
            .await
            .unwrap_or_default()
        }
        None => Watermarks::new(),
    };
    ReadBack { topic, watermarks }
}

/// A request that never got an answer from Kafka.
pub(crate) fn admin_error(what: &str, error: &KafkaError) -> ApiError {
    let timed_out = matches!(
        error.rdkafka_error_code(),
        Some(RDKafkaErrorCode::OperationTimedOut) | Some(RDKafkaErrorCode::RequestTimedOut)
    );
    ApiError {
        flavor: if timed_out { Flavor::ConflictOrTimeout } else { Flavor::Plain },
        ..ApiError::new(
            ErrorCode::Client,
            format!("klens could not {what}: Kafka did not answer ({error})."),
        )
    }
}

/// Kafka's answer to one admin request about `name`, as the contract's error.
pub fn refusal(what: &str, name: &str, code: RDKafkaErrorCode) -> ApiError {
    use RDKafkaErrorCode::*;
    let (code_out, flavor) = match code {
        TopicAuthorizationFailed
        | ClusterAuthorizationFailed
        | GroupAuthorizationFailed
        | TransactionalIdAuthorizationFailed
        | DelegationTokenAuthorizationFailed
        | SaslAuthenticationFailed => (ErrorCode::Refused, Flavor::Plain),
        UnknownTopicOrPartition | UnknownTopicId => (ErrorCode::NotFound, Flavor::Plain),
        TopicAlreadyExists => (ErrorCode::Admin, Flavor::ConflictOrTimeout),
        RequestTimedOut | OperationTimedOut | MessageTimedOut => {
            (ErrorCode::Client, Flavor::ConflictOrTimeout)
        }
        QueueFull => (ErrorCode::Client, Flavor::Plain),
        BrokerTransportFailure
        | AllBrokersDown
        | NetworkException
        | BrokerNotAvailable
        | LeaderNotAvailable
        | NotController
        | CoordinatorNotAvailable => (ErrorCode::Client, Flavor::Plain),
        _ => (ErrorCode::Admin, Flavor::Plain),
    };
    let message = match code_out {
        ErrorCode::Refused => format!(
            "Kafka refused to {what} \"{name}\" to klens's own Kafka user ({code}); grant that user the ACL it needs."
        ),
        ErrorCode::NotFound => format!("There is no topic named \"{name}\" ({code})."),
        _ => format!("Kafka could not {what} \"{name}\": {code}."),
    };
    ApiError { kafka_error: Some(format!("{code:?}")), flavor, ..ApiError::new(code_out, message) }
}

/// A config as Kafka describes it, for tests: `chain` is its synonyms, nearest first.
#[cfg(test)]
pub(crate) fn test_config(
    name: &str, value: Option<&str>, source: app::api::ConfigSource,
    chain: &[(&str, app::api::ConfigSource)],
) -> app::api::TopicConfig {
    app::api::TopicConfig {
        name: name.into(),
        value: value.map(Into::into),
        source,
        read_only: false,
        sensitive: false,
        synonyms: chain
            .iter()
            .map(|(v, s)| app::api::ConfigSynonym {
                name: name.into(),
                value: Some((*v).into()),
                source: *s,
            })
            .collect(),
        kind: Some("int".into()),
        documentation: None,
        update_mode: Some(app::api::UpdateMode::of(name, false)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kafka_refusals_map_onto_the_contract() {
        use RDKafkaErrorCode::*;
        let cases = [
            (TopicAuthorizationFailed, ErrorCode::Refused, 403),
            (ClusterAuthorizationFailed, ErrorCode::Refused, 403),
            (UnknownTopicOrPartition, ErrorCode::NotFound, 404),
            (TopicAlreadyExists, ErrorCode::Admin, 409),
            (InvalidPartitions, ErrorCode::Admin, 422),
            (InvalidReplicationFactor, ErrorCode::Admin, 422),
            (InvalidConfig, ErrorCode::Admin, 422),
            (PolicyViolation, ErrorCode::Admin, 422),
            (RequestTimedOut, ErrorCode::Client, 504),
            (MessageTimedOut, ErrorCode::Client, 504),
            (BrokerTransportFailure, ErrorCode::Client, 502),
        ];
        for (kafka, code, status) in cases {
            let e = refusal("create topic", "t", kafka);
            assert_eq!((e.code, e.status()), (code, status), "{kafka:?}");
            assert_eq!(e.kafka_error.as_deref(), Some(format!("{kafka:?}").as_str()));
        }
    }

    #[test]
    fn topic_requests_are_checked_before_kafka_sees_them() {
        let none = std::collections::BTreeMap::new();
        let long = "x".repeat(250);
        let cases: [(&str, i32, Option<i32>, Option<&str>); 11] = [
            ("orders", 3, None, None),
            ("a.b_c-D9", 1, Some(1), None),
            (&long[..249], 1, None, None),
            ("", 1, None, Some("topic")),
            (".", 1, None, Some("topic")),
            ("..", 1, None, Some("topic")),
            (&long, 1, None, Some("topic")),
            ("with space", 1, None, Some("topic")),
            ("ok", 0, None, Some("partitions")),
            ("ok", 100_001, None, Some("partitions")),
            ("ok", 1, Some(0), Some("replication_factor")),
        ];
        for (name, partitions, rf, bad_field) in cases {
            let got = TopicSpec::new(name, partitions, rf, &none).err();
            assert_eq!(
                got.as_ref().and_then(|e| e.field.as_deref()),
                bad_field,
                "{name} {partitions} {rf:?}"
            );
            if let Some(e) = got {
                assert_eq!((e.code, e.status()), (ErrorCode::BadRequest, 400));
            }
        }
        let mut configs = std::collections::BTreeMap::new();
        configs.insert(" ".to_string(), "x".to_string());
        let e = TopicSpec::new("ok", 1, None, &configs).expect_err("empty config name");
        assert_eq!(e.field.as_deref(), Some("configs"));
    }

    #[test]
    fn the_message_keeps_kafkas_words() {
        let e = refusal("create topic", "orders", RDKafkaErrorCode::TopicAlreadyExists);
        assert!(
            e.message.starts_with("Kafka could not create topic \"orders\": "),
            "{}",
            e.message
        );
        assert!(e.message.contains("Topic already exists"), "{}", e.message);
    }
}
