//! SCRAM users: the list (ACLS on the cluster), setting a credential (SET_SCRAM_CREDENTIALS)
//! and deleting one (DELETE_SCRAM_CREDENTIALS), each checking its grant first. What klens's own
//! Kafka user lacks on the cluster is said in those words.

use app::access::Resource;
use app::api::ScramUser;
use app::{ApiError, ErrorCode, Privilege};
use kafka_protocol::error::{ParseResponseErrorCode, ResponseError};

use super::{cluster_refusal, wire_of};
use crate::auth::Grant;
use crate::config::Secret;
use crate::kafka::wire::topics::Refusal;
use crate::kafka::wire::WireError;
use crate::kafka::{Broker, Link};

fn scram_refusal(what: &str, user: &str, needs: &str, refusal: Refusal) -> ApiError {
    match refusal.code.err() {
        Some(ResponseError::ResourceNotFound) => ApiError {
            kafka_error: Some("ResourceNotFound".into()),
            ..ApiError::not_found(format!("Kafka holds no such SCRAM credential of \"{user}\"."))
        },
        _ => cluster_refusal(what, needs, user, refusal),
    }
}

/// A protocol client failure; a broker without the SCRAM APIs (before Kafka 2.7) says so.
fn client_error(error: WireError) -> ApiError {
    if let WireError::Unsupported { .. } = error.root() {
        return ApiError::new(
            ErrorCode::Client,
            format!("{error} (SCRAM users need Kafka 2.7 or later)"),
        );
    }
    ApiError::from(error)
}

pub async fn scram_users(
    grant: &Grant, link: &Link, known: &[Broker],
) -> Result<Vec<ScramUser>, ApiError> {
    grant.require(Privilege::Acls, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    wire.scram_users(known)
        .await
        .map_err(client_error)?
        .map_err(|r| scram_refusal("list the SCRAM users", "users", "DESCRIBE", r))
}

pub async fn set_scram(
    grant: &Grant, link: &Link, known: &[Broker], user: &str, mechanism: &str, iterations: i32,
    password: &Secret,
) -> Result<(), ApiError> {
    grant.require(Privilege::SetScramCredentials, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    wire.set_scram(grant, known, user, mechanism, iterations, password)
        .await
        .map_err(client_error)?
        .map_err(|r| scram_refusal("set a SCRAM credential", user, "ALTER", r))
}

pub async fn delete_scram(
    grant: &Grant, link: &Link, known: &[Broker], user: &str, mechanism: &str,
) -> Result<(), ApiError> {
    grant.require(Privilege::DeleteScramCredentials, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    wire.delete_scram(grant, known, user, mechanism)
        .await
        .map_err(client_error)?
        .map_err(|r| scram_refusal("delete a SCRAM credential", user, "ALTER", r))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a broker lacking the SCRAM APIs earns the sentence about Kafka 2.7.
    #[test]
    fn only_a_broker_without_the_scram_apis_is_told_to_upgrade() {
        let old = WireError::at(
            "broker 1 (a:9092)",
            WireError::Unsupported { api: 50, broker: None, klens: (0, 0) },
        );
        let e = client_error(old);
        assert_eq!(e.code, ErrorCode::Client);
        assert_eq!(
            e.message,
            "broker 1 (a:9092): the broker does not support API 50 \
             (SCRAM users need Kafka 2.7 or later)"
        );
        // A message that merely mentions versions is not taken for an old broker.
        let lost = WireError::Connection("no answer in time (version 3)".to_string());
        let e = client_error(lost);
        assert_eq!(e.code, ErrorCode::Client);
        assert_eq!(e.message, "no answer in time (version 3)");
    }
}
