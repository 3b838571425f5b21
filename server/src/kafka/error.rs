//! What went wrong in a librdkafka call klens made (reading offsets, creating a client, reading
//! records), typed so that its mapping onto the contract's errors is made here once: a call
//! Kafka did not answer in time is a timeout (504), anything else a client failure (502).
//! Kafka's refusals of admin requests are [`super::admin::refusal`]'s, and the protocol
//! client's errors [`super::wire::WireError`]'s.

use app::error::Flavor;
use app::{ApiError, ErrorCode};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};

#[derive(Clone, Debug, PartialEq)]
pub enum ClientError {
    /// librdkafka's own error while klens was `doing` something ("reading offsets").
    Kafka { doing: &'static str, error: KafkaError },
    /// Kafka answered, but for one partition with an error: what a read needs is missing.
    Partition { doing: &'static str, partition: i32, error: KafkaError },
    /// The thread running a blocking call ended without an answer.
    Lost { doing: String, why: String },
}

impl ClientError {
    /// A constructor for `map_err`: librdkafka's `error` while `doing` something.
    pub fn while_(doing: &'static str) -> impl Fn(KafkaError) -> ClientError {
        move |error| ClientError::Kafka { doing, error }
    }

    /// Whether Kafka did not answer in time, rather than answered with an error.
    pub fn timed_out(&self) -> bool {
        let code = match self {
            ClientError::Kafka { error, .. } | ClientError::Partition { error, .. } => {
                error.rdkafka_error_code()
            }
            ClientError::Lost { .. } => None,
        };
        matches!(
            code,
            Some(
                RDKafkaErrorCode::OperationTimedOut
                    | RDKafkaErrorCode::RequestTimedOut
                    | RDKafkaErrorCode::MessageTimedOut
            )
        )
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Kafka { doing, error } => write!(f, "{doing}: {error}"),
            ClientError::Partition { doing, partition, error } => {
                write!(f, "{doing}, partition {partition}: {error}")
            }
            ClientError::Lost { doing, why } => write!(f, "{doing} failed: {why}"),
        }
    }
}

impl From<ClientError> for ApiError {
    fn from(error: ClientError) -> ApiError {
        let flavor = if error.timed_out() { Flavor::ConflictOrTimeout } else { Flavor::Plain };
        ApiError {
            flavor,
            ..ApiError::new(
                ErrorCode::Client,
                format!("Kafka did not give klens what it asked for ({error})."),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_kafka_did_not_answer_in_time_is_a_timeout_and_others_a_client_failure() {
        let timed_out = ClientError::Kafka {
            doing: "reading offsets",
            error: KafkaError::OffsetFetch(RDKafkaErrorCode::OperationTimedOut),
        };
        let refused = ClientError::Partition {
            doing: "reading offsets",
            partition: 3,
            error: KafkaError::OffsetFetch(RDKafkaErrorCode::NotLeaderForPartition),
        };
        let lost =
            ClientError::Lost { doing: "reading records".into(), why: "the task panicked".into() };
        let statuses: Vec<(ErrorCode, u16)> = [timed_out, refused.clone(), lost]
            .into_iter()
            .map(|e| {
                let e = ApiError::from(e);
                (e.code, e.status())
            })
            .collect();
        assert_eq!(
            statuses,
            vec![(ErrorCode::Client, 504), (ErrorCode::Client, 502), (ErrorCode::Client, 502)]
        );
        assert!(ApiError::from(refused).message.contains("partition 3"));
    }
}
