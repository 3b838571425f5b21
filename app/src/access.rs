//! What a caller may do on one cluster, and the decision over it. The server resolves a caller
//! to a [`ClusterAccess`] per visible cluster and asks [`ClusterAccess::decide`]; the browser gets
//! the same `ClusterAccess` from `/api/whoami` and asks the same function before it renders an
//! action, so what is shown and what the API allows cannot drift apart.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ErrorCode};
use crate::Privilege;

/// One visible cluster as a caller holds it: `/api/whoami` lists these.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterAccess {
    pub name: String,
    pub writable: bool,
    pub privileges: BTreeSet<Privilege>,
}

/// What an action touches. Kept in the question so that later rules (resource patterns, an
/// audit log) stay local to the decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resource {
    /// The cluster as a whole (catalog pages, brokers, ACLs, quotas, users).
    Cluster,
    /// A topic, with whether Kafka marks it internal.
    Topic { name: String, internal: bool },
    /// A consumer group.
    Group(String),
    /// A Schema Registry subject.
    Subject(String),
}

/// One thing a caller asks to do: `privilege` is `None` for catalog reads, which need none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub privilege: Option<Privilege>,
    pub resource: Resource,
}

impl Action {
    /// Reading the catalog of a cluster.
    pub fn catalog() -> Action {
        Action {
            privilege: None,
            resource: Resource::Cluster,
        }
    }

    /// Using `privilege` on `resource`.
    pub fn new(privilege: Privilege, resource: Resource) -> Action {
        Action {
            privilege: Some(privilege),
            resource,
        }
    }

    /// Whether the action changes something.
    pub fn is_write(&self) -> bool {
        self.privilege.is_some_and(Privilege::is_write)
    }
}

/// The answer to "may this caller do this on this cluster?".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Allowed,
    /// The cluster does not exist for this caller (or at all: the two are not told apart).
    UnknownCluster,
    /// A write on a cluster without `writable: true`.
    ReadOnlyCluster,
    /// A change to an internal topic.
    InternalTopic,
    /// The caller lacks this privilege on the cluster.
    MissingPrivilege(Privilege),
}

impl Decision {
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allowed)
    }

    /// The error for a refusal, `None` when allowed.
    pub fn into_error(self, cluster: &str) -> Option<ApiError> {
        match self {
            Decision::Allowed => None,
            Decision::UnknownCluster => Some(ApiError::unknown_cluster(cluster)),
            Decision::ReadOnlyCluster => Some(ApiError::read_only_cluster(cluster)),
            Decision::InternalTopic => Some(ApiError::new(
                ErrorCode::InternalTopic,
                "Internal topics belong to Kafka; klens does not change them.",
            )),
            Decision::MissingPrivilege(p) => Some(ApiError {
                privilege: Some(p),
                ..ApiError::new(
                    ErrorCode::MissingPrivilege,
                    format!("This needs the {p} privilege on cluster \"{cluster}\"."),
                )
            }),
        }
    }
}

impl ClusterAccess {
    /// The decision, in the fixed order: writable (for writes) → internal topic (for writes on
    /// topics) → privilege. Visibility is settled by having a `ClusterAccess` at all.
    pub fn decide(&self, action: &Action) -> Decision {
        let Some(privilege) = action.privilege else {
            return Decision::Allowed;
        };
        if privilege.is_write() {
            if !self.writable {
                return Decision::ReadOnlyCluster;
            }
            if matches!(action.resource, Resource::Topic { internal: true, .. }) {
                return Decision::InternalTopic;
            }
        }
        if !self.privileges.contains(&privilege) {
            return Decision::MissingPrivilege(privilege);
        }
        Decision::Allowed
    }

    /// Whether the UI should offer an action needing `privilege` on a non-internal resource.
    pub fn can(&self, privilege: Privilege) -> bool {
        self.decide(&Action::new(privilege, Resource::Cluster))
            .is_allowed()
    }
}

/// The decision for a caller who may or may not see the cluster.
pub fn decide(access: Option<&ClusterAccess>, action: &Action) -> Decision {
    match access {
        None => Decision::UnknownCluster,
        Some(access) => access.decide(action),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(writable: bool, privileges: &[Privilege]) -> ClusterAccess {
        ClusterAccess {
            name: "c".into(),
            writable,
            privileges: privileges.iter().copied().collect(),
        }
    }

    fn topic(internal: bool) -> Resource {
        Resource::Topic {
            name: "t".into(),
            internal,
        }
    }

    /// Every privilege × writable × held × internal, against the rule written out by hand.
    #[test]
    fn the_order_is_writable_then_internal_then_privilege() {
        for &p in Privilege::ALL {
            for writable in [false, true] {
                for held in [false, true] {
                    for internal in [false, true] {
                        let held_set: &[Privilege] = if held { &[p] } else { &[] };
                        let got =
                            access(writable, held_set).decide(&Action::new(p, topic(internal)));
                        let want = if p.is_write() && !writable {
                            Decision::ReadOnlyCluster
                        } else if p.is_write() && internal {
                            Decision::InternalTopic
                        } else if !held {
                            Decision::MissingPrivilege(p)
                        } else {
                            Decision::Allowed
                        };
                        assert_eq!(
                            got, want,
                            "{p:?} writable={writable} held={held} internal={internal}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn catalog_reads_need_nothing_but_visibility() {
        assert_eq!(
            access(false, &[]).decide(&Action::catalog()),
            Decision::Allowed
        );
        assert_eq!(decide(None, &Action::catalog()), Decision::UnknownCluster);
        assert_eq!(
            decide(None, &Action::new(Privilege::Records, Resource::Cluster)),
            Decision::UnknownCluster
        );
    }

    #[test]
    fn reading_an_internal_topic_is_not_a_change() {
        let a = access(false, &[Privilege::Records]);
        assert_eq!(
            a.decide(&Action::new(Privilege::Records, topic(true))),
            Decision::Allowed
        );
    }

    #[test]
    fn refusals_map_to_the_contract_codes() {
        let cases = [
            (Decision::UnknownCluster, ErrorCode::UnknownCluster, 404),
            (Decision::ReadOnlyCluster, ErrorCode::ReadOnlyCluster, 403),
            (Decision::InternalTopic, ErrorCode::InternalTopic, 403),
            (
                Decision::MissingPrivilege(Privilege::Produce),
                ErrorCode::MissingPrivilege,
                403,
            ),
        ];
        for (decision, code, status) in cases {
            let e = decision.into_error("c").expect("a refusal");
            assert_eq!((e.code, e.status()), (code, status));
        }
        let e = Decision::MissingPrivilege(Privilege::Produce)
            .into_error("c")
            .expect("refusal");
        assert_eq!(e.privilege, Some(Privilege::Produce));
        assert!(Decision::Allowed.into_error("c").is_none());
    }

    #[test]
    fn the_ui_offers_exactly_what_the_api_allows() {
        for &p in Privilege::ALL {
            for writable in [false, true] {
                for held in [false, true] {
                    let held_set: &[Privilege] = if held { &[p] } else { &[] };
                    let a = access(writable, held_set);
                    let api = a.decide(&Action::new(p, Resource::Cluster)).is_allowed();
                    assert_eq!(a.can(p), api);
                    assert_eq!(api, held && (writable || !p.is_write()));
                }
            }
        }
    }
}
