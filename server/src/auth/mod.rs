//! Who may see and do what. [`Policy`] is built once from the config; it resolves a
//! [`Subject`] to a [`ClusterAccess`] per cluster and makes the one authorization decision.
//! A [`Grant`] can only be minted here and names what it allows; what reads a cluster's data or
//! changes it requires the grant for exactly that, so no code path reaches Kafka for one thing
//! with a grant for another. A [`Caller`] is who a door found: a signed-in user, nobody (sign-in
//! off), or the MCP ceiling.
//!
//! `oidc.rs` runs the sign-in flow with the identity provider and remembers sign-outs; the web
//! sessions, the sign-in cookie and the `/auth/*` routes that carry it are the HTTP door's
//! (`http/session`).
//!
//! What must never happen here: I/O in the decision. It is a pure function over the config;
//! only the sign-in flow talks to the identity provider.

pub mod oidc;

use std::collections::{BTreeMap, BTreeSet};

use app::access::{Action, ClusterAccess, Resource, Scope};
use app::api::Door;
use app::{ApiError, ErrorCode, Privilege};

use self::oidc::SignedIn;

use crate::config::{Config, ResourcePatterns};

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

/// Who is calling, as the door they came through found them, and that door (for the audit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Caller {
    /// Sign-in is off: nobody in particular.
    Anonymous(Door),
    /// A signed-in person, with their session.
    User(SignedIn, Door),
    /// A call on the MCP listener, which holds the fixed ceiling; with the name a gateway
    /// forwarded along with the secret, when it did.
    Mcp(Option<String>),
}

impl Caller {
    /// The caller of a UI or `/api` request: anonymous without sign-in, else the session's
    /// user; `UNAUTHENTICATED` when sign-in is on and there is no live session.
    pub fn of_request(
        policy: &Policy, user: Option<&SignedIn>, door: Door,
    ) -> Result<Caller, ApiError> {
        if !policy.auth_enabled() {
            return Ok(Caller::Anonymous(door));
        }
        match user {
            Some(user) => Ok(Caller::User(user.clone(), door)),
            None => Err(ApiError::new(ErrorCode::Unauthenticated, "Sign in to use klens.")),
        }
    }

    /// What the decision looks at.
    pub fn subject(&self) -> Subject {
        match self {
            Caller::Anonymous(_) => Subject::Anonymous,
            Caller::User(user, _) => Subject::User { groups: user.groups.clone() },
            Caller::Mcp(_) => Subject::Mcp,
        }
    }

    /// The door the call came through.
    pub fn door(&self) -> Door {
        match self {
            Caller::Anonymous(door) | Caller::User(_, door) => *door,
            Caller::Mcp(_) => Door::Mcp,
        }
    }

    pub fn user(&self) -> Option<&SignedIn> {
        match self {
            Caller::User(user, _) => Some(user),
            _ => None,
        }
    }

    /// Whether the caller's sign-in still holds, asked again while a stream runs: a session
    /// past its expiry or signed out (which `oidc` remembers) no longer does. A caller without
    /// a session (sign-in off, the MCP ceiling) always holds.
    pub fn still_signed_in(&self, oidc: Option<&oidc::Oidc>) -> Result<(), String> {
        let Some(user) = self.user() else {
            return Ok(());
        };
        user.still_on(oidc::now_ms())?;
        if oidc.is_some_and(|o| o.is_signed_out(user)) {
            return Err("You signed out.".to_string());
        }
        Ok(())
    }
}

/// Proof that the decision allowed one action, naming the cluster, the privilege and the
/// resource. Only [`Policy::decide`] makes one; what reads a cluster's data or changes it calls
/// [`Grant::require`] first, so a grant for something else opens nothing. A grant for a write
/// opens nothing either until the audit has recorded the attempt ([`Grant::open`], called only
/// by `Service::open`), so no change reaches Kafka or the registry unrecorded.
#[derive(Debug)]
pub struct Grant {
    cluster: String,
    action: Action,
    /// For a write: its attempt is in every audit sink.
    recorded: bool,
}

impl Grant {
    pub fn cluster(&self) -> &str {
        &self.cluster
    }

    pub fn action(&self) -> &Action {
        &self.action
    }

    /// Marks the write's attempt as recorded by the audit. Only `Service::open` calls this,
    /// after every sink took the attempt.
    pub(crate) fn open(&mut self) {
        self.recorded = true;
    }

    /// `Ok` exactly when this grant was given for `privilege` on `resource` (topics, groups
    /// and subjects by name; the internal flag was settled by the decision).
    pub fn require(&self, privilege: Privilege, resource: &Resource) -> Result<(), ApiError> {
        let same_resource = match (&self.action.resource, resource) {
            (Resource::Cluster, Resource::Cluster) => true,
            (Resource::Topic { name: a, .. }, Resource::Topic { name: b, .. }) => a == b,
            (Resource::Group { name: a, .. }, Resource::Group { name: b, .. }) => a == b,
            (Resource::Subject(a), Resource::Subject(b)) => a == b,
            (
                Resource::Connector { connect: a, name: n, .. },
                Resource::Connector { connect: b, name: m, .. },
            ) => a == b && n == m,
            (Resource::Replication { name: a, .. }, Resource::Replication { name: b, .. }) => {
                a == b
            }
            (Resource::Processor { name: a, .. }, Resource::Processor { name: b, .. }) => a == b,
            _ => false,
        };
        if self.action.privilege == Some(privilege) && same_resource {
            if privilege.is_write() && !self.recorded {
                // Also klens's own mistake: a write path that skipped the audit.
                tracing::error!(cluster = %self.cluster, granted = ?self.action, "a write's grant was used before its attempt was recorded");
                return Err(ApiError::new(
                    ErrorCode::AuditUnavailable,
                    "klens did not record this change before making it, so it did not make it.",
                ));
            }
            return Ok(());
        }
        // A caller never sees this: it means klens itself passed the wrong grant along.
        tracing::error!(cluster = %self.cluster, granted = ?self.action, wanted = ?(privilege, resource), "a grant was used for another action");
        Err(ApiError {
            privilege: Some(privilege),
            ..ApiError::new(
                ErrorCode::MissingPrivilege,
                format!("This needs the {privilege} privilege on cluster \"{}\".", self.cluster),
            )
        })
    }

    /// The grant a failover commits a group's offsets on the target under: made only from a
    /// recorded grant of REPLICATION_OFFSETS on a replication, for RESET_OFFSETS on group
    /// `group` of the same cluster. The replication's decision is what allows it (moving a
    /// group onto what its checkpoints say needs no group privilege); the commit still names
    /// its one group, and the service checks that the replication checkpoints it.
    pub fn for_failover(&self, group: &str) -> Result<Grant, ApiError> {
        let from_replication = self.action.privilege == Some(Privilege::ReplicationOffsets)
            && matches!(self.action.resource, Resource::Replication { .. });
        if !from_replication || !self.recorded {
            tracing::error!(cluster = %self.cluster, granted = ?self.action, "a failover grant was asked of another grant");
            return Err(ApiError {
                privilege: Some(Privilege::ReplicationOffsets),
                ..ApiError::new(
                    ErrorCode::MissingPrivilege,
                    format!(
                        "This needs the REPLICATION_OFFSETS privilege on cluster \"{}\".",
                        self.cluster
                    ),
                )
            });
        }
        Ok(Grant {
            cluster: self.cluster.clone(),
            action: Action::new(Privilege::ResetOffsets, Resource::group(group.to_string())),
            recorded: true,
        })
    }

    /// [`Grant::require`] for a topic.
    pub fn require_topic(&self, privilege: Privilege, topic: &str) -> Result<(), ApiError> {
        self.require(privilege, &Resource::topic(topic))
    }
}

#[derive(Clone, Debug)]
struct RoleBinding {
    groups: BTreeSet<String>,
    privileges: BTreeSet<Privilege>,
    /// `None` covers every cluster.
    clusters: Option<BTreeSet<String>>,
    /// `None` covers every resource of those clusters.
    resources: Option<ResourcePatterns>,
}

#[derive(Clone, Debug)]
struct McpCeiling {
    privileges: BTreeSet<Privilege>,
    clusters: Option<BTreeSet<String>>,
    resources: Option<ResourcePatterns>,
}

/// What a subject holds on one cluster before the cluster's flags are added.
#[derive(Default)]
struct Held {
    privileges: BTreeSet<Privilege>,
    scopes: Vec<Scope>,
    /// Some binding covers the whole cluster (even one granting nothing).
    unscoped: bool,
}

impl Held {
    fn everything() -> Held {
        Held {
            privileges: Privilege::ALL.iter().copied().collect(),
            scopes: Vec::new(),
            unscoped: true,
        }
    }

    fn add(&mut self, privileges: &BTreeSet<Privilege>, resources: Option<&ResourcePatterns>) {
        match resources {
            None => {
                self.unscoped = true;
                self.privileges.extend(privileges.iter().copied());
            }
            Some(r) => self.scopes.push(Scope {
                privileges: privileges.clone(),
                topics: r.topics.clone(),
                groups: r.groups.clone(),
                subjects: r.subjects.clone(),
                connect: r.connect.clone(),
                replications: r.replications.clone(),
            }),
        }
    }
}

/// What the rules need of one configured cluster.
#[derive(Clone, Debug)]
struct ClusterRules {
    name: String,
    writable: bool,
    scoped_catalog: bool,
    /// Its Connect clusters' names, which whoami passes on so pages offer only what exists.
    connects: Vec<String>,
    /// Whether it has `mirror` settings, which whoami passes on for the Replications page.
    mirrored: bool,
    /// Whether it has a Flink, which whoami passes on for the Processors page.
    processors: bool,
}

/// The access rules of one config.
#[derive(Clone, Debug)]
pub struct Policy {
    /// The clusters, in config order.
    clusters: Vec<ClusterRules>,
    /// Whether sign-in is on.
    auth: bool,
    /// `None` when auth is off or has no roles: everyone holds everything.
    bindings: Option<Vec<RoleBinding>>,
    mcp: Option<McpCeiling>,
    /// (cluster, topic or glob) of the topics holding klens's own state or an engine's: the audit
    /// topic, the processors' definitions, Connect's and MirrorMaker's own topics.
    protected: Vec<(String, String)>,
}

/// The topics of `cluster` that engines keep their own state in, each a name or a glob:
/// every Connect cluster's storage topics (configs in clear), and, where MirrorMaker may run,
/// its offset syncs, checkpoints and dedicated-mode topics. Protected like the audit topic.
fn engine_topics(cluster: &crate::config::ClusterConfig) -> Vec<(String, String)> {
    let mut topics: Vec<String> =
        cluster.connect.iter().flat_map(|c| c.storage_topics.iter().cloned()).collect();
    if cluster.mirror.is_some() {
        topics.extend(["mm2*.internal", "*.checkpoints.internal"].map(String::from));
    }
    topics.sort();
    topics.dedup();
    topics.into_iter().map(|t| (cluster.name.clone(), t)).collect()
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
                        resources: b.resources.clone(),
                    })
                    .collect(),
            )
        });
        Policy {
            clusters: config
                .clusters
                .iter()
                .map(|c| ClusterRules {
                    name: c.name.clone(),
                    writable: c.writable,
                    scoped_catalog: c.scoped_catalog,
                    connects: c.connect.iter().map(|k| k.name.clone()).collect(),
                    mirrored: c.mirror.is_some(),
                    processors: c.flink.is_some(),
                })
                .collect(),
            auth: config.auth.is_some(),
            bindings,
            mcp: config.mcp.as_ref().map(|m| McpCeiling {
                privileges: m.privileges.iter().copied().collect(),
                clusters: m.clusters.as_ref().map(|c| c.iter().cloned().collect()),
                resources: m.resources.clone(),
            }),
            protected: config
                .audit
                .as_ref()
                .and_then(|a| a.topic.as_ref())
                .map(|t| (t.cluster.clone(), t.name.clone()))
                .into_iter()
                .chain(
                    config
                        .clusters
                        .iter()
                        .filter(|c| c.flink.is_some())
                        .map(|c| (c.name.clone(), crate::processor::DEFINITIONS_TOPIC.to_string())),
                )
                .chain(config.clusters.iter().flat_map(engine_topics))
                // Every writable cluster may hold the leases of changes made on it and the
                // records of the copy jobs writing to it.
                .chain(config.clusters.iter().filter(|c| c.writable).flat_map(|c| {
                    [crate::config::LEASES_TOPIC, crate::config::JOBS_TOPIC]
                        .map(|t| (c.name.clone(), t.to_string()))
                }))
                .collect(),
        }
    }

    /// Whether sign-in is on.
    pub fn auth_enabled(&self) -> bool {
        self.auth
    }

    /// What `subject` holds on `cluster`, or `None` when the cluster does not exist for them.
    pub fn access(&self, subject: &Subject, cluster: &str) -> Option<ClusterAccess> {
        let rules = self.clusters.iter().find(|c| c.name == cluster)?;
        let held = self.held(subject, cluster)?;
        Some(ClusterAccess {
            name: cluster.to_string(),
            writable: rules.writable,
            privileges: held.privileges,
            scoped_catalog: rules.scoped_catalog && !held.unscoped,
            connects: rules.connects.clone(),
            mirrored: rules.mirrored,
            processors: rules.processors,
            scopes: held.scopes,
            protected_topics: self
                .protected
                .iter()
                .filter(|(c, _)| c == cluster)
                .map(|(_, t)| t.clone())
                .collect(),
        })
    }

    /// Every cluster `subject` can see, in config order.
    pub fn visible(&self, subject: &Subject) -> Vec<ClusterAccess> {
        self.clusters.iter().filter_map(|c| self.access(subject, &c.name)).collect()
    }

    fn held(&self, subject: &Subject, cluster: &str) -> Option<Held> {
        match subject {
            // Without auth there is nobody to tell apart. With auth, a request without a session
            // never gets this far; should one, it sees nothing.
            Subject::Anonymous => (!self.auth).then(Held::everything),
            Subject::User { groups } => {
                if !self.auth {
                    return Some(Held::everything());
                }
                let Some(bindings) = &self.bindings else {
                    return Some(Held::everything());
                };
                let mut covered = false;
                let mut held = Held::default();
                for b in bindings {
                    let covers = b.clusters.as_ref().is_none_or(|c| c.contains(cluster));
                    if covers && groups.iter().any(|g| b.groups.contains(g)) {
                        covered = true;
                        held.add(&b.privileges, b.resources.as_ref());
                    }
                }
                covered.then_some(held)
            }
            Subject::Mcp => {
                let ceiling = self.mcp.as_ref()?;
                let covers = ceiling.clusters.as_ref().is_none_or(|c| c.contains(cluster));
                covers.then(|| {
                    let mut held = Held::default();
                    held.add(&ceiling.privileges, ceiling.resources.as_ref());
                    held
                })
            }
        }
    }

    /// The authorization decision. On success the [`Grant`] is what Kafka-facing code needs.
    pub fn decide(
        &self, subject: &Subject, cluster: &str, action: Action,
    ) -> Result<Grant, ApiError> {
        let access = self.access(subject, cluster);
        match app::access::decide(access.as_ref(), &action).into_error(cluster) {
            Some(error) => Err(error),
            None => Ok(Grant { cluster: cluster.to_string(), action, recorded: false }),
        }
    }
}

#[cfg(test)]
mod tests;
