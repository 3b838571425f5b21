//! The shape of an audit event, as the audit file holds it one per line.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
}

/// What an attempt touched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditResource {
    /// `cluster`, `topic`, `group` or `subject`.
    pub kind: String,
    pub name: Option<String>,
}

/// How an attempt ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditOutcome {
    pub ok: bool,
    /// The error code when it did not succeed, such as `MISSING_PRIVILEGE` or `ADMIN`.
    pub code: Option<String>,
    pub message: Option<String>,
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
    pub cluster: String,
    pub privilege: Privilege,
    pub resource: AuditResource,
    /// What was asked, without passwords, secrets or record contents (a produce gives the key's
    /// and value's lengths, and the offset the record got).
    pub summary: Value,
    pub dry_run: bool,
    /// `allowed` or `refused` (by the decision: sign-in, cluster, writable flag, privilege).
    pub decision: String,
    pub outcome: AuditOutcome,
}
