//! ACL bindings: the list (ACLS on the cluster), creating one (CREATE_ACLS) and deleting exactly
//! one (DELETE_ACLS). Each is decided first (writable → privilege), then its binding judged,
//! then sent with the grant.

use app::api::{
    AclArgs, AclBinding, AclChanged, AclList, Arg, ACL_OPERATIONS, ACL_PATTERN_TYPES,
    ACL_PERMISSIONS, ACL_RESOURCE_TYPES,
};
use app::{ApiError, Privilege};

use super::Service;
use crate::audit::Attempt;
use crate::auth::Caller;
use crate::kafka::admin::acls;

/// The longest principal, host or resource name klens sends.
const MAX_NAME: usize = 1000;

pub async fn acls(service: &Service, caller: &Caller, cluster: &str) -> Result<AclList, ApiError> {
    let acls = service
        .cluster_read(caller, cluster, Privilege::Acls, |granted, known| async move {
            acls::acls(&granted.grant, &granted.link(), &known).await
        })
        .await?;
    Ok(AclList { cluster: cluster.to_string(), acls })
}

/// One field of a binding: given (or its default), not blank, not too long, with
/// `exact_only` not starting or ending with white space, and when `known` is given, one of the
/// names it knows.
fn field(
    value: Arg<String>, name: &str, default: Option<&str>, known: Option<&[&str]>, exact_only: bool,
) -> Result<String, ApiError> {
    let value = match (value.optional(name)?, default) {
        (Some(v), _) => v,
        (None, Some(d)) => d.to_string(),
        (None, None) => return Err(ApiError::bad_request(name, format!("`{name}` is required."))),
    };
    // A name is taken exactly as given: trimming it could make a delete match another
    // binding. New bindings may not start or end with white space.
    if exact_only && value.trim() != value {
        return Err(ApiError::bad_request(
            name,
            format!("`{name}` starts or ends with white space."),
        ));
    }
    if value.is_empty() || value.len() > MAX_NAME {
        return Err(ApiError::bad_request(name, format!("`{name}` is 1 to {MAX_NAME} bytes.")));
    }
    if let Some(names) = known {
        let lower = value.to_ascii_lowercase();
        if !names.contains(&lower.as_str()) {
            return Err(ApiError::bad_request(
                name,
                format!("`{name}` is one of {}.", names.join(", ")),
            ));
        }
        return Ok(lower);
    }
    Ok(value)
}

/// The binding `args` name, judged.
fn binding(args: AclArgs, create: bool) -> Result<(AclBinding, bool), ApiError> {
    let principal = field(args.principal, "principal", None, None, create)?;
    if !principal.split_once(':').is_some_and(|(kind, who)| !kind.is_empty() && !who.is_empty()) {
        return Err(ApiError::bad_request(
            "principal",
            "A principal is written as its type and name, such as User:alice.",
        ));
    }
    let host = field(args.host, "host", Some("*"), None, create)?;
    if host != "*" && host.parse::<std::net::IpAddr>().is_err() {
        return Err(ApiError::bad_request("host", "A host is * (any host) or one IP address."));
    }
    let resource_type =
        field(args.resource_type, "resource_type", None, Some(&ACL_RESOURCE_TYPES), create)?;
    let default_name = (resource_type == "cluster").then_some("kafka-cluster");
    let resource_name = field(args.resource_name, "resource_name", default_name, None, create)?;
    let pattern_type = field(
        args.pattern_type,
        "pattern_type",
        Some("literal"),
        Some(&ACL_PATTERN_TYPES),
        create,
    )?;
    let operation = field(args.operation, "operation", None, Some(&ACL_OPERATIONS), create)?;
    let permission =
        field(args.permission, "permission", Some("allow"), Some(&ACL_PERMISSIONS), create)?;
    let dry_run = args.dry_run.optional("dry_run")?.unwrap_or(false);
    Ok((
        AclBinding {
            principal,
            host,
            resource_type,
            resource_name,
            pattern_type,
            operation,
            permission,
        },
        dry_run,
    ))
}

/// Which change an ACL call makes.
#[derive(Clone, Copy)]
enum Change {
    Create,
    Delete,
}

pub async fn create_acl(
    service: &Service, caller: &Caller, args: AclArgs,
) -> Result<AclChanged, ApiError> {
    change(service, caller, args, Change::Create).await
}

pub async fn delete_acl(
    service: &Service, caller: &Caller, args: AclArgs,
) -> Result<AclChanged, ApiError> {
    change(service, caller, args, Change::Delete).await
}

/// Under the audit: decides the change, judges the binding, then makes the change unless it
/// is a dry run.
async fn change(
    service: &Service, caller: &Caller, args: AclArgs, change: Change,
) -> Result<AclChanged, ApiError> {
    let privilege = match change {
        Change::Create => Privilege::CreateAcls,
        Change::Delete => Privilege::DeleteAcls,
    };
    let attempt = Attempt::of(&args.cluster, privilege, &args, &[]);
    service
        .cluster_write(caller, attempt, |mut granted| async move {
            let cluster = args.cluster.clone();
            let (acl, dry_run) = binding(args, matches!(change, Change::Create))?;
            if !dry_run {
                service.open(&mut granted.grant).await?;
                let (grant, link) = (&granted.grant, granted.link());
                let known = granted.entry.known_brokers_now();
                match change {
                    Change::Create => acls::create_acl(grant, &link, &known, &acl).await?,
                    Change::Delete => acls::delete_acl(grant, &link, &known, &acl).await?,
                }
            }
            Ok(AclChanged { cluster, dry_run, words: acl.words(), acl })
        })
        .await
}

// The server functions this capability answers.
serves!(app::api::Acls, |s, c, a| acls(&s, &c, &a.cluster));
serves!(app::api::CreateAcl, |s, c, a| create_acl(&s, &c, a.args));
serves!(app::api::DeleteAcl, |s, c, a| delete_acl(&s, &c, a.args));
