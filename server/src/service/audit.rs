//! The audit log as a caller with AUDIT reads it: one cluster's events, newest first, filtered
//! and in pages.

use app::access::{Action, Resource};
use app::api::{AuditArgs, AuditEvent, AuditList};
use app::{ApiError, Privilege};

use super::Service;
use crate::auth::oidc::now_ms;
use crate::auth::Caller;

/// The most events one page holds.
pub const MAX_PAGE: u64 = 500;

/// The filters, judged.
struct Filters {
    user: Option<String>,
    privilege: Option<Privilege>,
    resource: Option<String>,
    since: Option<i64>,
    until: Option<i64>,
}

impl Filters {
    fn keeps(&self, e: &AuditEvent) -> bool {
        let user = self.user.as_deref().is_none_or(|u| {
            e.who.kind == u
                || e.who.subject.as_deref() == Some(u)
                || e.who.name.as_deref().is_some_and(|n| n.contains(u))
        });
        let resource = self
            .resource
            .as_deref()
            .is_none_or(|r| e.resource.name.as_deref().is_some_and(|n| n.contains(r)));
        user && resource
            && self.privilege.is_none_or(|p| e.privilege == Some(p))
            && self.since.is_none_or(|t| e.time >= t)
            && self.until.is_none_or(|t| e.time < t)
    }
}

pub async fn list(
    service: &Service, caller: &Caller, cluster: &str, args: AuditArgs,
) -> Result<AuditList, ApiError> {
    let recorded = args.clone();
    service
        .audited_read(caller, cluster, Privilege::Audit, &recorded, async move {
            service.decide(caller, cluster, Action::new(Privilege::Audit, Resource::Cluster))?;
            // Reading the audit topic is a read of records: it counts like a page of them.
            let _running = service.reads.admit(caller)?;
            let privilege =
                match args.privilege.optional("privilege")? {
                    None => None,
                    Some(name) => Some(Privilege::from_wire_name(&name).ok_or_else(|| {
                        ApiError::bad_request(
                    "privilege",
                    format!("There is no privilege {name}; write it as PRODUCE or RESET_OFFSETS."),
                )
                    })?),
                };
            let filters = Filters {
                user: args.user.optional("user")?.filter(|u| !u.is_empty()),
                privilege,
                resource: args.resource.optional("resource")?.filter(|r| !r.is_empty()),
                since: match (args.since.optional("since")?, args.within.optional("within")?) {
                    (Some(since), _) => Some(since),
                    (None, Some(within)) => Some(now_ms().saturating_sub(within.max(0))),
                    (None, None) => None,
                },
                until: args.until.optional("until")?,
            };
            let offset = args.offset.or("offset", 0)?;
            let limit = args.limit.or("limit", 100)?;
            if limit == 0 || limit > MAX_PAGE {
                return Err(ApiError::bad_request(
                    "limit",
                    format!("A page holds 1 to {MAX_PAGE} events."),
                ));
            }
            let Some((events, older_not_read)) = service.audit().recent().await? else {
                return Ok(AuditList {
                    configured: false,
                    events: Vec::new(),
                    matched: 0,
                    older_not_read: false,
                    served_at: now_ms(),
                });
            };
            let kept: Vec<AuditEvent> = events
                .into_iter()
                .rev()
                .filter(|e| (e.cluster == cluster || e.cluster.is_empty()) && filters.keeps(e))
                .collect();
            let matched = kept.len() as u64;
            let events = kept
                .into_iter()
                .skip(usize::try_from(offset).unwrap_or(usize::MAX))
                .take(usize::try_from(limit).unwrap_or(usize::MAX))
                .collect();
            Ok(AuditList { configured: true, events, matched, older_not_read, served_at: now_ms() })
        })
        .await
}

// The server functions this capability answers.
serves!(app::api::Audit, |s, c, a| list(&s, &c, &a.cluster, a.args));
