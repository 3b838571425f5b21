//! ACL bindings through Kafka's own requests: DescribeAcls to read every binding, CreateAcls to
//! add one, and DeleteAcls with a filter that names every field of one binding, so that exactly
//! that binding goes and never what a wider filter would match.

use app::api::AclBinding;
use kafka_protocol::messages::create_acls_request::AclCreation;
use kafka_protocol::messages::delete_acls_request::DeleteAclsFilter;
use kafka_protocol::messages::{CreateAclsRequest, DeleteAclsRequest, DescribeAclsRequest};
use kafka_protocol::protocol::StrBytes;

use super::topics::Refusal;
use super::{WireClient, WireError, WireResult};
use crate::auth::Grant;
use crate::kafka::Broker;

/// Kafka's codes for "any" in a filter.
const ANY: i8 = 1;

/// Kafka's code of a resource type, pattern type, operation or permission as the API names it;
/// `None` for a name Kafka does not know.
fn code(table: &[(&str, i8)], name: &str) -> Option<i8> {
    table.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

/// The API's name of one of Kafka's codes; an unknown one as `unknown (<code>)`.
fn name(table: &[(&str, i8)], code: i8) -> String {
    table
        .iter()
        .find(|(_, c)| *c == code)
        .map_or_else(|| format!("unknown ({code})"), |(n, _)| (*n).to_string())
}

const RESOURCE_TYPES: [(&str, i8); 6] = [
    ("topic", 2),
    ("group", 3),
    ("cluster", 4),
    ("transactional_id", 5),
    ("delegation_token", 6),
    ("user", 7),
];
const PATTERN_TYPES: [(&str, i8); 2] = [("literal", 3), ("prefixed", 4)];
const OPERATIONS: [(&str, i8); 13] = [
    ("all", 2),
    ("read", 3),
    ("write", 4),
    ("create", 5),
    ("delete", 6),
    ("alter", 7),
    ("describe", 8),
    ("cluster_action", 9),
    ("describe_configs", 10),
    ("alter_configs", 11),
    ("idempotent_write", 12),
    ("create_tokens", 13),
    ("describe_tokens", 14),
];
const PERMISSIONS: [(&str, i8); 2] = [("deny", 2), ("allow", 3)];

/// A binding in Kafka's codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Codes {
    resource_type: i8,
    pattern_type: i8,
    operation: i8,
    permission: i8,
}

/// The codes of a binding the service judged; an unknown name is klens's own error.
fn codes(acl: &AclBinding) -> WireResult<Codes> {
    let known = |table: &[(&str, i8)], value: &str, what: &str| {
        code(table, value)
            .ok_or_else(|| WireError::Withheld(format!("no Kafka code for the {what} {value}")))
    };
    Ok(Codes {
        resource_type: known(&RESOURCE_TYPES, &acl.resource_type, "resource type")?,
        pattern_type: known(&PATTERN_TYPES, &acl.pattern_type, "pattern type")?,
        operation: known(&OPERATIONS, &acl.operation, "operation")?,
        permission: known(&PERMISSIONS, &acl.permission, "permission")?,
    })
}

fn text(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

impl WireClient {
    /// Every ACL binding, from the first broker that answers.
    pub async fn acls(&self, known: &[Broker]) -> WireResult<Result<Vec<AclBinding>, Refusal>> {
        let request = DescribeAclsRequest::default()
            .with_resource_type_filter(ANY)
            .with_resource_name_filter(None)
            .with_pattern_type_filter(ANY)
            .with_principal_filter(None)
            .with_host_filter(None)
            .with_operation(ANY)
            .with_permission_type(ANY);
        let response = self.ask_any(known, &request, 1).await?;
        if let Err(refusal) = Refusal::of(response.error_code, response.error_message.as_ref()) {
            return Ok(Err(refusal));
        }
        let mut out: Vec<AclBinding> = response
            .resources
            .into_iter()
            .flat_map(|r| {
                let resource_type = name(&RESOURCE_TYPES, r.resource_type);
                let resource_name = r.resource_name.to_string();
                let pattern_type = name(&PATTERN_TYPES, r.pattern_type);
                r.acls.into_iter().map(move |a| AclBinding {
                    principal: a.principal.to_string(),
                    host: a.host.to_string(),
                    resource_type: resource_type.clone(),
                    resource_name: resource_name.clone(),
                    pattern_type: pattern_type.clone(),
                    operation: name(&OPERATIONS, a.operation),
                    permission: name(&PERMISSIONS, a.permission_type),
                })
            })
            .collect();
        out.sort();
        Ok(Ok(out))
    }

    /// Adds one binding (CREATE_ACLS on the cluster).
    pub async fn create_acl(
        &self, grant: &Grant, known: &[Broker], acl: &AclBinding,
    ) -> WireResult<Result<(), Refusal>> {
        let c = codes(acl)?;
        let request = CreateAclsRequest::default().with_creations(vec![AclCreation::default()
            .with_resource_type(c.resource_type)
            .with_resource_name(text(&acl.resource_name))
            .with_resource_pattern_type(c.pattern_type)
            .with_principal(text(&acl.principal))
            .with_host(text(&acl.host))
            .with_operation(c.operation)
            .with_permission_type(c.permission)]);
        let broker = self.first(known)?;
        let mut lease = self.lease(broker).await?;
        let response = lease.write(grant, &request, 1).await?;
        match response.results.first() {
            Some(r) => Ok(Refusal::of(r.error_code, r.error_message.as_ref())),
            None => {
                Err(WireError::Protocol("CreateAcls: an answer without the binding".to_string()))
            }
        }
    }

    /// Deletes exactly `acl` (DELETE_ACLS on the cluster): a filter with every field given
    /// matches that binding only. Answers how many bindings Kafka deleted (0 or 1).
    pub async fn delete_acl(
        &self, grant: &Grant, known: &[Broker], acl: &AclBinding,
    ) -> WireResult<Result<usize, Refusal>> {
        let c = codes(acl)?;
        let request = DeleteAclsRequest::default().with_filters(vec![DeleteAclsFilter::default()
            .with_resource_type_filter(c.resource_type)
            .with_resource_name_filter(Some(text(&acl.resource_name)))
            .with_pattern_type_filter(c.pattern_type)
            .with_principal_filter(Some(text(&acl.principal)))
            .with_host_filter(Some(text(&acl.host)))
            .with_operation(c.operation)
            .with_permission_type(c.permission)]);
        let broker = self.first(known)?;
        let mut lease = self.lease(broker).await?;
        let response = lease.write(grant, &request, 1).await?;
        let Some(result) = response.filter_results.first() else {
            return Err(WireError::Protocol(
                "DeleteAcls: an answer without the filter".to_string(),
            ));
        };
        if let Err(refusal) = Refusal::of(result.error_code, result.error_message.as_ref()) {
            return Ok(Err(refusal));
        }
        for m in &result.matching_acls {
            if let Err(refusal) = Refusal::of(m.error_code, m.error_message.as_ref()) {
                return Ok(Err(refusal));
            }
        }
        Ok(Ok(result.matching_acls.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name the API offers has a Kafka code, and back.
    #[test]
    fn the_api_names_and_kafkas_codes_agree() {
        use app::api::{ACL_OPERATIONS, ACL_PATTERN_TYPES, ACL_PERMISSIONS, ACL_RESOURCE_TYPES};
        for (names, table) in [
            (&ACL_RESOURCE_TYPES[..], &RESOURCE_TYPES[..]),
            (&ACL_PATTERN_TYPES[..], &PATTERN_TYPES[..]),
            (&ACL_OPERATIONS[..], &OPERATIONS[..]),
            (&ACL_PERMISSIONS[..], &PERMISSIONS[..]),
        ] {
            assert_eq!(names.len(), table.len());
            for n in names {
                let c = code(table, n).unwrap_or_else(|| panic!("{n}"));
                assert_eq!(name(table, c), *n);
            }
        }
        assert_eq!(name(&OPERATIONS, 99), "unknown (99)");
    }

    /// Creating and deleting bindings each need their own privilege on the cluster, once per
    /// binding or filter; a request with none is never sent.
    #[test]
    fn acl_changes_need_their_privilege_on_the_cluster() {
        use super::super::kinds::WriteRequest;
        use app::access::Resource;
        use app::Privilege;
        let create = CreateAclsRequest::default()
            .with_creations(vec![AclCreation::default(), AclCreation::default()]);
        assert_eq!(create.needs(), vec![(Privilege::CreateAcls, Resource::Cluster); 2]);
        let delete = DeleteAclsRequest::default().with_filters(vec![DeleteAclsFilter::default()]);
        assert_eq!(delete.needs(), vec![(Privilege::DeleteAcls, Resource::Cluster)]);
        assert!(DeleteAclsRequest::default().needs().is_empty());
    }
}
