//! The tools about access: the ACL list, the audit log, and what the ceiling itself may do.

use app::api::Arg;
use app::Privilege;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    cluster_only, listed, object, parse, spec, Answer, ClusterArgs, ToolSpec, TOOLS as ALL,
};
use crate::auth::Caller;
use crate::service::{acls, audit, identity, Service};

pub(super) const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "klens_acls_list",
        privilege: Some(Privilege::Acls),
        write: false,
        idempotent: true,
        description: "Every ACL binding of a cluster: principal, host, resource, pattern, operation, permission. Needs ACLS.",
        schema: cluster_only,
        run: acls_list,
    },
    ToolSpec {
        name: "klens_audit_list",
        privilege: Some(Privilege::Audit),
        write: false,
        idempotent: true,
        description: "The audit log of a cluster, newest first: who attempted which write on what, through which door, and how it ended. Filters: user, privilege, resource (a name's part), since/until (ms since the epoch); pages with offset and limit. Needs AUDIT.",
        schema: || object(json!({"cluster": {"type": "string"}, "user": {"type": "string"}, "privilege": {"type": "string"}, "resource": {"type": "string"}, "since": {"type": "integer"}, "until": {"type": "integer"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}}), &["cluster"]),
        run: audit_list,
    },
    ToolSpec {
        name: "klens_access_explain",
        privilege: None,
        write: false,
        idempotent: true,
        description: "What this listener's ceiling holds on a cluster, whether the cluster is writable, and for each tool (or the one named) whether a call would be allowed and why not. Needs no privilege.",
        schema: || object(json!({"cluster": {"type": "string"}, "tool": {"type": "string"}}), &["cluster"]),
        run: access_explain,
    },
];

/// The arguments of `klens_audit_list`: the cluster and `/api/audit`'s filters.
#[derive(Deserialize)]
struct AuditToolArgs {
    cluster: String,
    #[serde(flatten)]
    filters: app::api::AuditArgs,
}

#[derive(Deserialize)]
struct ExplainArgs {
    cluster: String,
    #[serde(default)]
    tool: Arg<String>,
}

fn acls_list<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: ClusterArgs = parse(arguments)?;
        let bindings = acls::acls(s, c, &a.cluster).await?;
        listed(bindings, "acls", "the ACLs page lists every binding")
    })
}

fn audit_list<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: AuditToolArgs = parse(arguments)?;
        let events = audit::list(s, c, &a.cluster, a.filters).await?;
        listed(events, "events", "the Audit page pages through every event")
    })
}

/// What the ceiling may do on a cluster, tool by tool, in the words of the decision.
fn access_explain<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: ExplainArgs = parse(arguments)?;
        let cluster = a.cluster.as_str();
        let access = s.access(c, cluster)?;
        let tools: Vec<&ToolSpec> = match a.tool.optional("tool")? {
            Some(name) => vec![spec(&name).ok_or_else(|| {
                app::ApiError::bad_request("tool", format!("klens has no tool {name}."))
            })?],
            None => ALL.to_vec(),
        };
        let verdicts: Vec<Value> = tools
            .iter()
            .map(|t| {
                // The decision's own answer and words, as a call would get them.
                let why = t.privilege.and_then(|p| identity::refusal(&access, cluster, p));
                json!({
                    "tool": t.name,
                    "needs": t.privilege.map(|p| p.wire_name()),
                    "allowed": why.is_none(),
                    "why_not": why,
                })
            })
            .collect();
        Ok(json!({
            "cluster": cluster,
            "writable": access.writable,
            "ceiling": access.privileges.iter().map(|p| p.wire_name()).collect::<Vec<_>>(),
            "scopes": access.scopes,
            "tools": verdicts,
        }))
    })
}
