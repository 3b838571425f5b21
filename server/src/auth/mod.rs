//! Who may see and do what. [`Policy`] is built once from the config; it resolves a
//! [`Subject`] to a [`ClusterAccess`] per cluster and makes the one authorization decision.
//! A [`Grant`] can only be minted here, and the Kafka-facing methods that act on a cluster ask
//! for one, so no code path reaches Kafka without having asked.
//!
//! `oidc.rs` runs the sign-in flow and `session.rs` the sessions and `/auth/*` routes.
//!
//! What must never happen here: I/O in the decision. It is a pure function over the config;
//! only the sign-in flow talks to the identity provider.

pub mod oidc;
pub mod session;

use std::collections::{BTreeMap, BTreeSet};

use app::access::{Action, ClusterAccess};
use app::{ApiError, Privilege};

use crate::config::Config;

/// Who is asking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// Nobody in particular: auth is off.
    Anonymous,
    /// A signed-in user, known by the groups of their ID token.
    User { groups: Vec<String> },
    /// A call on the MCP listener, which holds the fixed ceiling of `mcp.privileges`.
    Mcp,
}

/// Proof that the decision allowed `action` on `cluster`. Only [`Policy::decide`] makes one.
#[derive(Debug)]
pub struct Grant {
    cluster: String,
    action: Action,
}

impl Grant {
    pub fn cluster(&self) -> &str {
        &self.cluster
    }

    pub fn action(&self) -> &Action {
        &self.action
    }
}

#[derive(Clone, Debug)]
struct RoleBinding {
    groups: BTreeSet<String>,
    privileges: BTreeSet<Privilege>,
    /// `None` covers every cluster.
    clusters: Option<BTreeSet<String>>,
}

#[derive(Clone, Debug)]
struct McpCeiling {
    privileges: BTreeSet<Privilege>,
    clusters: Option<BTreeSet<String>>,
}

/// The access rules of one config.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Cluster name → writable, in config order.
    clusters: Vec<(String, bool)>,
    /// Whether sign-in is on.
    auth: bool,
    /// `None` when auth is off or has no roles: everyone holds everything.
    bindings: Option<Vec<RoleBinding>>,
    mcp: Option<McpCeiling>,
}

impl Policy {
    pub fn from_config(config: &Config) -> Policy {
        let bindings = config.auth.as_ref().and_then(|auth| {
            if auth.roles.is_empty() {
                return None;
            }
            let roles: BTreeMap<&str, BTreeSet<Privilege>> = auth
                .roles
                .iter()
                .map(|(name, privileges)| (name.as_str(), privileges.iter().copied().collect()))
                .collect();
            Some(
                auth.bindings
                    .iter()
                    .map(|b| RoleBinding {
                        groups: b.groups.iter().cloned().collect(),
                        privileges: roles.get(b.role.as_str()).cloned().unwrap_or_default(),
                        clusters: b.clusters.as_ref().map(|c| c.iter().cloned().collect()),
                    })
                    .collect(),
            )
        });
        Policy {
            clusters: config
                .clusters
                .iter()
                .map(|c| (c.name.clone(), c.writable))
                .collect(),
            auth: config.auth.is_some(),
            bindings,
            mcp: config.mcp.as_ref().map(|m| McpCeiling {
                privileges: m.privileges.iter().copied().collect(),
                clusters: m.clusters.as_ref().map(|c| c.iter().cloned().collect()),
            }),
        }
    }

    /// Whether sign-in is on.
    pub fn auth_enabled(&self) -> bool {
        self.auth
    }

    /// What `subject` holds on `cluster`, or `None` when the cluster does not exist for them.
    pub fn access(&self, subject: &Subject, cluster: &str) -> Option<ClusterAccess> {
        let writable = self
            .clusters
            .iter()
            .find(|(name, _)| name == cluster)
            .map(|(_, writable)| *writable)?;
        let privileges = self.privileges(subject, cluster)?;
        Some(ClusterAccess {
            name: cluster.to_string(),
            writable,
            privileges,
        })
    }

    /// Every cluster `subject` can see, in config order.
    pub fn visible(&self, subject: &Subject) -> Vec<ClusterAccess> {
        self.clusters
            .iter()
            .filter_map(|(name, _)| self.access(subject, name))
            .collect()
    }

    fn privileges(&self, subject: &Subject, cluster: &str) -> Option<BTreeSet<Privilege>> {
        let everything = || Privilege::ALL.iter().copied().collect();
        match subject {
            // Without auth there is nobody to tell apart. With auth, a request without a session
            // never gets this far; should one, it sees nothing.
            Subject::Anonymous => (!self.auth).then(everything),
            Subject::User { groups } => {
                if !self.auth {
                    return Some(everything());
                }
                let Some(bindings) = &self.bindings else {
                    return Some(everything());
                };
                let mut covered = false;
                let mut held = BTreeSet::new();
                for b in bindings {
                    let covers = b.clusters.as_ref().is_none_or(|c| c.contains(cluster));
                    if covers && groups.iter().any(|g| b.groups.contains(g)) {
                        covered = true;
                        held.extend(b.privileges.iter().copied());
                    }
                }
                covered.then_some(held)
            }
            Subject::Mcp => {
                let ceiling = self.mcp.as_ref()?;
                let covers = ceiling
                    .clusters
                    .as_ref()
                    .is_none_or(|c| c.contains(cluster));
                covers.then(|| ceiling.privileges.clone())
            }
        }
    }

    /// The authorization decision. On success the [`Grant`] is what Kafka-facing code needs.
    pub fn decide(
        &self,
        subject: &Subject,
        cluster: &str,
        action: Action,
    ) -> Result<Grant, ApiError> {
        let access = self.access(subject, cluster);
        match app::access::decide(access.as_ref(), &action).into_error(cluster) {
            Some(error) => Err(error),
            None => Ok(Grant {
                cluster: cluster.to_string(),
                action,
            }),
        }
    }
}

#[cfg(test)]
mod tests;
