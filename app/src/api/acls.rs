//! ACL bindings (ACLS to read, CREATE_ACLS and DELETE_ACLS to change), in Kafka's own words:
//! each binding lets or forbids one principal one operation on resources of one type, named
//! exactly or by a prefix, from one host or any.

use super::Answer;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::Arg;

/// Resource types a binding may name, as the API spells them.
pub const ACL_RESOURCE_TYPES: [&str; 6] =
    ["topic", "group", "cluster", "transactional_id", "delegation_token", "user"];

/// How a binding names its resources.
pub const ACL_PATTERN_TYPES: [&str; 2] = ["literal", "prefixed"];

/// Operations a binding may name.
pub const ACL_OPERATIONS: [&str; 13] = [
    "all",
    "read",
    "write",
    "create",
    "delete",
    "alter",
    "describe",
    "cluster_action",
    "describe_configs",
    "alter_configs",
    "idempotent_write",
    "create_tokens",
    "describe_tokens",
];

/// Whether a binding allows or denies.
pub const ACL_PERMISSIONS: [&str; 2] = ["allow", "deny"];

/// One ACL binding.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AclBinding {
    /// `User:bob`, or another type Kafka's principal builder makes.
    pub principal: String,
    /// `*` for any host, else one IP address.
    pub host: String,
    pub resource_type: String,
    /// The name, or the prefix for a `prefixed` pattern; `*` names every resource of the type
    /// (with `literal`); the cluster is `kafka-cluster`.
    pub resource_name: String,
    pub pattern_type: String,
    pub operation: String,
    pub permission: String,
}

impl AclBinding {
    /// What the binding does, in a sentence: "User:bob may READ topics whose names start with
    /// orders- from any host".
    pub fn words(&self) -> String {
        let may = if self.permission == "deny" { "may not" } else { "may" };
        let (one, many) = match self.resource_type.as_str() {
            "topic" => ("topic", "topics"),
            "group" => ("consumer group", "consumer groups"),
            "cluster" => ("the cluster", "the cluster"),
            "transactional_id" => ("transactional id", "transactional ids"),
            "delegation_token" => ("delegation token", "delegation tokens"),
            "user" => ("user", "users"),
            other => (other, other),
        };
        let what = if self.resource_type == "cluster" {
            one.to_string()
        } else if self.pattern_type == "prefixed" {
            format!("{many} whose names start with {}", self.resource_name)
        } else if self.resource_name == "*" {
            format!("every {one}")
        } else {
            format!("the {one} {}", self.resource_name)
        };
        let operation = if self.operation == "all" {
            "do anything to".to_string()
        } else {
            self.operation.to_ascii_uppercase()
        };
        let host = if self.host == "*" {
            "from any host".to_string()
        } else {
            format!("from {}", self.host)
        };
        format!("{} {may} {operation} {what} {host}", self.principal)
    }
}

/// `GET /api/acls`: every binding of the cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AclList {
    pub cluster: String,
    /// By principal, then resource, then operation.
    pub acls: Vec<AclBinding>,
}

serve! {
    /// Every ACL binding of the cluster (ACLS).
    GetUrl "acls" fn acls(cluster: String) -> AclList as Acls;
}

/// The arguments of `create_acl` and `delete_acl` as sent: one binding.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AclArgs {
    pub cluster: String,
    pub principal: Arg<String>,
    /// Default `*`.
    pub host: Arg<String>,
    pub resource_type: Arg<String>,
    pub resource_name: Arg<String>,
    /// Default `literal`.
    pub pattern_type: Arg<String>,
    pub operation: Arg<String>,
    /// Default `allow`.
    pub permission: Arg<String>,
    pub dry_run: Arg<bool>,
}

/// The answer of `create_acl` and `delete_acl`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AclChanged {
    pub cluster: String,
    pub dry_run: bool,
    pub acl: AclBinding,
    /// What the binding does, in a sentence.
    pub words: String,
}

serve! {
    /// Create one ACL binding (CREATE_ACLS).
    Json "create_acl" fn create_acl(#[server(flatten)] args: AclArgs) -> AclChanged as CreateAcl;

    /// Delete exactly one ACL binding, never the others a wider filter would match (DELETE_ACLS).
    Json "delete_acl" fn delete_acl(#[server(flatten)] args: AclArgs) -> AclChanged as DeleteAcl;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(
        resource_type: &str, name: &str, pattern: &str, op: &str, perm: &str, host: &str,
    ) -> AclBinding {
        AclBinding {
            principal: "User:bob".into(),
            host: host.into(),
            resource_type: resource_type.into(),
            resource_name: name.into(),
            pattern_type: pattern.into(),
            operation: op.into(),
            permission: perm.into(),
        }
    }

    #[test]
    fn a_binding_says_what_it_allows() {
        let cases = [
            (
                binding("topic", "orders-", "prefixed", "read", "allow", "*"),
                "User:bob may READ topics whose names start with orders- from any host",
            ),
            (
                binding("group", "billing", "literal", "read", "allow", "10.0.0.7"),
                "User:bob may READ the consumer group billing from 10.0.0.7",
            ),
            (
                binding("topic", "*", "literal", "all", "deny", "*"),
                "User:bob may not do anything to every topic from any host",
            ),
            (
                binding("cluster", "kafka-cluster", "literal", "describe_configs", "allow", "*"),
                "User:bob may DESCRIBE_CONFIGS the cluster from any host",
            ),
        ];
        for (b, want) in cases {
            assert_eq!(b.words(), want);
        }
    }
}
