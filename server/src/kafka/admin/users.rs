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
use crate::kafka::{Broker, Link};

fn scram_refusal(what: &str, user: &str, needs: &str, refusal: Refusal) -> ApiError {
    match refusal.code.err() {
        Some(ResponseError::ResourceNotFound) => ApiError {
            kafka_error: Some("ResourceNotFound".into()),
            ..ApiError::new(
                ErrorCode::NotFound,
                format!("Kafka holds no such SCRAM credential of \"{user}\"."),
            )
        },
        _ => cluster_refusal(what, needs, user, refusal),
    }
}

/// A protocol client failure; a broker without the SCRAM APIs (before Kafka 2.7) says so.
fn client_error(error: String) -> ApiError {
    if error.contains("does not support") || error.contains("version") {
        return ApiError::new(
            ErrorCode::Client,
            format!("{error} (SCRAM users need Kafka 2.7 or later)"),
        );
    }
    ApiError::new(ErrorCode::Client, error)
}

pub async fn scram_users(
    grant: &Grant,
    link: &Link,
    known: &[Broker],
) -> Result<Vec<ScramUser>, ApiError> {
    grant.require(Privilege::Acls, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    wire.scram_users(known)
        .await
        .map_err(client_error)?
        .map_err(|r| scram_refusal("list the SCRAM users", "users", "DESCRIBE", r))
}

pub async fn set_scram(
    grant: &Grant,
    link: &Link,
    known: &[Broker],
    user: &str,
    mechanism: &str,
    iterations: i32,
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
    grant: &Grant,
    link: &Link,
    known: &[Broker],
    user: &str,
    mechanism: &str,
) -> Result<(), ApiError> {
    grant.require(Privilege::DeleteScramCredentials, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    wire.delete_scram(grant, known, user, mechanism)
        .await
        .map_err(client_error)?
        .map_err(|r| scram_refusal("delete a SCRAM credential", user, "ALTER", r))
}
