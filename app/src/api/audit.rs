//! The shape of an audit event, as the audit file holds it one per line and the audit topic
//! one per record.

use super::Answer;
use leptos::server_fn::codec::GetUrl;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Arg;
use crate::Privilege;

/// The way a call reached klens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Door {
    /// The browser UI (a request a browser made from a klens page).
    Ui,
    /// `/api` from a script or any client that is not a browser.
    Api,
    /// The MCP listener.
    Mcp,
}

/// Who made an attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditWho {
    /// `user`, `anonymous` (sign-in off) or `mcp`.
    pub kind: String,
    /// The identity provider's subject id of a user.
    pub subject: Option<String>,
    pub name: Option<String>,
    pub groups: Vec<String>,
    /// For `mcp`: `name` is who the gateway in front of klens said the person is (trusted only
    /// with the MCP secret), not someone klens signed in itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forwarded: bool,
}

/// What an attempt touched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditResource {
    /// `cluster`, `topic`, `group`, `subject`, or `request` (a guard's refusal: the path).
    pub kind: String,
    pub name: Option<String>,
    /// The name's length in bytes when the event keeps only its start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
}

/// How an attempt ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditOutcome {
    pub ok: bool,
    /// The error code when it did not succeed, such as `MISSING_PRIVILEGE` or `ADMIN`.
    pub code: Option<String>,
    pub message: Option<String>,
}

/// Which part of an attempt an event records. A write that reaches Kafka leaves two events
/// with the same id: its `attempt`, in every sink before anything is sent, and its `outcome`
/// after; everything else (refusals, reads, the guards' refusals, counts of refusals that
/// were not recorded one by one) is one `whole` event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuditPhase {
    Attempt,
    Outcome,
    #[default]
    Whole,
}

/// One write attempt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditEvent {
    /// 32 hex digits, unique per event.
    pub id: String,
    /// When klens answered, ms since the epoch.
    pub time: i64,
    pub who: AuditWho,
    pub door: Door,
    /// Empty for what concerns no one cluster (the HTTP and MCP guards' refusals).
    pub cluster: String,
    /// `None` for the guards' refusals, which come before any privilege is asked.
    #[serde(default)]
    pub privilege: Option<Privilege>,
    pub resource: AuditResource,
    /// What was asked, without passwords, secrets or record contents (a produce gives the key's
    /// and value's lengths, and the offset the record got).
    pub summary: Value,
    pub dry_run: bool,
    /// `allowed` or `refused` (by the decision: sign-in, cluster, writable flag, privilege).
    pub decision: String,
    pub outcome: AuditOutcome,
    #[serde(default)]
    pub phase: AuditPhase,
    /// How many more refused attempts of the same caller in the same minute were only
    /// counted, not recorded one by one (this event stands for them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<u64>,
    /// HMAC-SHA256 of the event without this field, under `audit.key`, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
    /// Set when read back with `audit.key` configured: whether `mac` shows klens wrote the
    /// event. Never stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub genuine: Option<bool>,
}

/// The filters of `/api/audit`, as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditArgs {
    /// A user's subject or name, or `mcp`/`anonymous`: events whose `who` mentions it.
    pub user: Arg<String>,
    /// A privilege's wire name, such as `PRODUCE`.
    pub privilege: Arg<String>,
    /// Text the resource's name contains.
    pub resource: Arg<String>,
    /// Events at or after this time, ms since the epoch.
    pub since: Arg<i64>,
    /// Events before this time, ms since the epoch.
    pub until: Arg<i64>,
    /// Events of the last this many ms (another way to say `since`).
    pub within: Arg<i64>,
    /// How many events to skip, newest first.
    pub offset: Arg<u64>,
    /// How many to answer (at most 500; default 100).
    pub limit: Arg<u64>,
}

/// `GET /api/audit`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditList {
    /// Whether klens has an audit sink (a file or a topic).
    pub configured: bool,
    /// The cluster's events that pass the filters, newest first, this page of them.
    pub events: Vec<AuditEvent>,
    /// How many events pass the filters.
    pub matched: u64,
    /// The sink holds older events than klens read (it reads the newest part, up to a bound).
    pub older_not_read: bool,
    pub served_at: i64,
}

serve! {
    /// The audit events of a cluster, newest first (AUDIT).
    GetUrl "audit" fn audit(
        cluster: String, #[server(flatten)] args: AuditArgs
    ) -> AuditList as Audit;
}
