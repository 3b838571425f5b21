//! ACL bindings: reading every binding (ACLS on the cluster), creating one (CREATE_ACLS) and
//! deleting exactly one (DELETE_ACLS), each checking its grant before the protocol client,
//! which checks it again per request. Kafka's refusals come back as the contract's errors.

use app::access::Resource;
use app::api::AclBinding;
use app::error::Flavor;
use app::{ApiError, ErrorCode, Privilege};
use kafka_protocol::error::{ParseResponseErrorCode, ResponseError};

use super::{cluster_refusal, wire_of};
use crate::auth::Grant;
use crate::kafka::wire::topics::Refusal;
use crate::kafka::{Broker, Link};

/// Kafka's refusal of an ACL request: klens's own Kafka user lacking what it needs on the
/// cluster is said in those words, and a cluster without an authorizer too.
fn acl_refusal(what: &str, needs: &str, refusal: Refusal) -> ApiError {
    match refusal.code.err() {
        Some(ResponseError::SecurityDisabled) => ApiError {
            kafka_error: Some("SecurityDisabled".into()),
            ..ApiError::new(
                ErrorCode::Admin,
                "The cluster has no authorizer configured, so it keeps no ACLs.",
            )
        },
        _ => cluster_refusal(what, needs, "ACL", refusal),
    }
}

/// Every binding of the cluster.
pub async fn acls(
    grant: &Grant, link: &Link, known: &[Broker],
) -> Result<Vec<AclBinding>, ApiError> {
    grant.require(Privilege::Acls, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    wire.acls(known).await?.map_err(|r| acl_refusal("list the ACLs", "DESCRIBE", r))
}

/// Creates `acl`.
pub async fn create_acl(
    grant: &Grant, link: &Link, known: &[Broker], acl: &AclBinding,
) -> Result<(), ApiError> {
    grant.require(Privilege::CreateAcls, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    wire.create_acl(grant, known, acl).await?.map_err(|r| acl_refusal("create an ACL", "ALTER", r))
}

/// Deletes exactly `acl`; `NOT_FOUND` when Kafka holds no such binding.
pub async fn delete_acl(
    grant: &Grant, link: &Link, known: &[Broker], acl: &AclBinding,
) -> Result<(), ApiError> {
    grant.require(Privilege::DeleteAcls, &Resource::Cluster)?;
    let wire = wire_of(link)?;
    let deleted = wire
        .delete_acl(grant, known, acl)
        .await?
        .map_err(|r| acl_refusal("delete an ACL", "ALTER", r))?;
    if deleted == 0 {
        return Err(ApiError {
            flavor: Flavor::Plain,
            ..ApiError::not_found(format!("Kafka holds no such ACL: {}.", acl.words()))
        });
    }
    Ok(())
}
