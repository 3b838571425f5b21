//! What a caller may do on one cluster, and the decision over it. The server resolves a caller
//! to a [`ClusterAccess`] per visible cluster and asks [`ClusterAccess::decide`]; the browser gets
//! the same `ClusterAccess` from `/api/whoami` and asks the same function before it renders an
//! action, so what is shown and what the API allows cannot drift apart.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ErrorCode};
use crate::privilege::ResourceKind;
use crate::Privilege;

/// One visible cluster as a caller holds it: `/api/whoami` lists these.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterAccess {
    pub name: String,
    pub writable: bool,
    /// What the caller holds on the whole cluster (from bindings without `resources`).
    pub privileges: BTreeSet<Privilege>,
    /// What the caller holds on some of its resources only (from bindings with `resources`).
    #[serde(default)]
    pub scopes: Vec<Scope>,
    /// The cluster sets `catalog: scoped` and the caller has no binding on all of it: the
    /// catalog shows only the resources the scopes cover.
    #[serde(default)]
    pub scoped_catalog: bool,
    /// Topics of this cluster that hold klens's own state (the audit, the processors'
    /// definitions) or an engine's (Connect's storage topics, MirrorMaker's internal ones),
    /// each a name or a glob: no caller reads their records or changes them, whatever they
    /// hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protected_topics: Vec<String>,
    /// The names of the cluster's Connect clusters (`clusters[].connect`), none when it has
    /// none: the Connectors page is offered only where there is one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connects: Vec<String>,
    /// Whether MirrorMaker can reach the cluster (`clusters[].mirror`): the Replications page
    /// is offered only where one can run into or out of it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mirrored: bool,
    /// Whether the cluster has a Flink for SQL processors (`clusters[].flink`): the
    /// Processors page is offered only where processors can run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub processors: bool,
}

/// Privileges held on the resources some patterns cover (one scoped binding, or the MCP
/// ceiling's `resources`). Patterns are globs ([`glob_matches`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    pub privileges: BTreeSet<Privilege>,
    pub topics: Vec<String>,
    pub groups: Vec<String>,
    pub subjects: Vec<String>,
    /// Globs over the names of Connect clusters; empty covers every Connect cluster.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect: Vec<String>,
    /// Globs over replication names; empty covers no replication.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replications: Vec<String>,
}

impl Scope {
    fn topic(&self, name: &str) -> bool {
        any_matches(&self.topics, name)
    }

    /// A group named by `groups`, or one every one of whose topics is covered. A group with
    /// no topics is covered by its name alone.
    fn group(&self, name: &str, topics: &[String]) -> bool {
        any_matches(&self.groups, name)
            || (!topics.is_empty() && topics.iter().all(|t| self.topic(t)))
    }

    /// A subject named by `subjects`, or the key or value subject of a covered topic.
    fn subject(&self, name: &str) -> bool {
        any_matches(&self.subjects, name) || subject_topic(name).is_some_and(|t| self.topic(t))
    }

    /// A connector of a covered Connect cluster whose topics are all known and covered: one
    /// whose topics cannot be known from its config (a pattern) is never covered by a scope.
    fn connector(&self, connect: &str, topics: Option<&[String]>) -> bool {
        (self.connect.is_empty() || any_matches(&self.connect, connect))
            && topics.is_some_and(|t| !t.is_empty() && t.iter().all(|t| self.topic(t)))
    }

    /// A replication named by `replications`, and, when the question names the Connect
    /// cluster it runs on, that Connect cluster covered by `connect` (empty covers all).
    fn replication(&self, name: &str, connect: Option<&str>) -> bool {
        any_matches(&self.replications, name)
            && connect.is_none_or(|c| self.connect.is_empty() || any_matches(&self.connect, c))
    }

    /// A processor every one of whose topics (inputs and output) is covered; one without
    /// known topics never is.
    fn processor(&self, topics: &[String]) -> bool {
        !topics.is_empty() && topics.iter().all(|t| self.topic(t))
    }

    /// Whether the patterns cover `resource`, whatever privilege is asked.
    pub fn covers(&self, resource: &Resource) -> bool {
        match resource {
            Resource::Cluster => false,
            Resource::Topic { name, .. } => self.topic(name),
            Resource::Group { name, topics } => self.group(name, topics),
            Resource::Subject(name) => self.subject(name),
            Resource::Connector { connect, topics, .. } => {
                self.connector(connect, topics.as_deref())
            }
            Resource::Replication { name, connect } => self.replication(name, connect.as_deref()),
            Resource::Processor { topics, .. } => self.processor(topics),
        }
    }

    /// Whether this scope grants `privilege` on `resource`: a topic privilege on a covered
    /// topic, a group privilege on a covered group (or, for the offsets a change touches, on a
    /// covered topic), a subject privilege on a covered subject; a cluster privilege never.
    pub fn grants(&self, privilege: Privilege, resource: &Resource) -> bool {
        if !self.privileges.contains(&privilege) {
            return false;
        }
        match (privilege.kind(), resource) {
            (ResourceKind::Topic, Resource::Topic { name, .. }) => self.topic(name),
            (ResourceKind::Group, Resource::Group { name, topics }) => self.group(name, topics),
            (ResourceKind::Group, Resource::Topic { name, .. }) => self.topic(name),
            (ResourceKind::Subject, Resource::Subject(name)) => self.subject(name),
            (ResourceKind::Connector, Resource::Connector { connect, topics, .. }) => {
                self.connector(connect, topics.as_deref())
            }
            (ResourceKind::Replication, Resource::Replication { name, connect }) => {
                self.replication(name, connect.as_deref())
            }
            (ResourceKind::Processor, Resource::Processor { topics, .. }) => self.processor(topics),
            _ => false,
        }
    }
}

/// The topic a subject is named after under the topic name strategy: `<topic>-key` or
/// `<topic>-value`.
pub fn subject_topic(subject: &str) -> Option<&str> {
    subject
        .strip_suffix("-value")
        .or_else(|| subject.strip_suffix("-key"))
        .filter(|t| !t.is_empty())
}

fn any_matches(patterns: &[String], name: &str) -> bool {
    patterns.iter().any(|p| glob_matches(p, name))
}

/// Whether `text` matches the glob `pattern`: `*` is any run of characters (also none), `?`
/// exactly one, every other character itself. Linear in practice; at worst the product of
/// the two lengths, with no recursion.
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    // The last `*` seen, and the text position it is currently taken to end at.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            star = Some((sp, st + 1));
            pi = sp + 1;
            ti = st + 1;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether some name matches both globs (`a*` and `*b` meet in `ab`). Exact: a walk over the
/// pairs of positions in the two patterns, each step taking one character both produce, or
/// ending a `*` of either; the product of the two lengths, with no recursion.
pub fn globs_meet(p: &str, q: &str) -> bool {
    let p: Vec<char> = p.chars().collect();
    let q: Vec<char> = q.chars().collect();
    let width = q.len() + 1;
    // can[i * width + j]: some text is matched by both p[..i] and q[..j].
    let mut can = vec![false; (p.len() + 1) * width];
    can[0] = true;
    for i in 0..=p.len() {
        for j in 0..=q.len() {
            if !can[i * width + j] {
                continue;
            }
            let (a, b) = (p.get(i).copied(), q.get(j).copied());
            if a == Some('*') {
                can[(i + 1) * width + j] = true;
                if b.is_some_and(|c| c != '*') {
                    can[i * width + j + 1] = true;
                }
            }
            if b == Some('*') {
                can[i * width + j + 1] = true;
                if a.is_some_and(|c| c != '*') {
                    can[(i + 1) * width + j] = true;
                }
            }
            if let (Some(x), Some(y)) = (a, b) {
                if x != '*' && y != '*' && (x == '?' || y == '?' || x == y) {
                    can[(i + 1) * width + j + 1] = true;
                }
            }
        }
    }
    can[p.len() * width + q.len()]
}

/// What an action touches. Kept in the question so that the resource scopes stay local to
/// the decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resource {
    /// The cluster as a whole (catalog pages, brokers, ACLs, quotas, users).
    Cluster,
    /// A topic, with whether Kafka marks it internal.
    Topic { name: String, internal: bool },
    /// A consumer group, with the topics it has committed offsets on or is assigned (as the
    /// projection last read them), through which a scope may cover it.
    Group { name: String, topics: Vec<String> },
    /// A Schema Registry subject.
    Subject(String),
    /// A connector of the Connect cluster `connect`, with the topics it uses: `None` when its
    /// config does not say them (a pattern), which only an unscoped binding covers.
    Connector { connect: String, name: String, topics: Option<Vec<String>> },
    /// A replication between clusters, by name; with the Connect cluster it runs on when the
    /// question is whether a scope covers that too (creating or updating one).
    Replication { name: String, connect: Option<String> },
    /// A SQL processor, with every topic it reads and the one it writes.
    Processor { name: String, topics: Vec<String> },
}

impl Resource {
    /// A topic Kafka does not mark internal.
    pub fn topic(name: impl Into<String>) -> Resource {
        Resource::Topic { name: name.into(), internal: false }
    }

    /// A group with the topics it has offsets on or is assigned (any order, repeats allowed):
    /// kept sorted and each once, so the server's view and the page's agree.
    pub fn group_on(name: impl Into<String>, topics: impl IntoIterator<Item = String>) -> Resource {
        let mut topics: Vec<String> = topics.into_iter().collect();
        topics.sort();
        topics.dedup();
        Resource::Group { name: name.into(), topics }
    }

    /// A group known by its name alone.
    pub fn group(name: impl Into<String>) -> Resource {
        Resource::Group { name: name.into(), topics: Vec::new() }
    }

    /// How a refusal names it: ` on topic "t" in` for a named resource, ` on` for the cluster.
    fn phrase(&self) -> String {
        match self {
            Resource::Cluster => " on".to_string(),
            Resource::Topic { name, .. } => format!(" on topic \"{name}\" in"),
            Resource::Group { name, .. } => format!(" on group \"{name}\" in"),
            Resource::Subject(name) => format!(" on subject \"{name}\" in"),
            Resource::Connector { connect, name, .. } => {
                format!(" on connector \"{name}\" of Connect cluster \"{connect}\" in")
            }
            Resource::Replication { name, connect: None } => {
                format!(" on replication \"{name}\" in")
            }
            Resource::Replication { name, connect: Some(connect) } => {
                format!(" on replication \"{name}\" running on Connect cluster \"{connect}\" in")
            }
            Resource::Processor { name, .. } => format!(" on processor \"{name}\" in"),
        }
    }
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
        Action { privilege: None, resource: Resource::Cluster }
    }

    /// Using `privilege` on `resource`.
    pub fn new(privilege: Privilege, resource: Resource) -> Action {
        Action { privilege: Some(privilege), resource }
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
    /// Reading the records of, or changing, a topic that holds klens's own state.
    ProtectedTopic,
    /// The caller lacks this privilege on the resource.
    MissingPrivilege(Privilege, Resource),
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
            Decision::ProtectedTopic => Some(ApiError::new(
                ErrorCode::ProtectedTopic,
                "This topic holds klens's own state (its audit log, or its SQL processors' \
                 definitions): nobody reads its records or changes it through klens. Holders of \
                 AUDIT read the audit's events on the Audit log page, holders of SQL_PROCESSORS \
                 the processors on the Processors page.",
            )),
            Decision::MissingPrivilege(p, resource) => Some(ApiError {
                privilege: Some(p),
                ..ApiError::new(
                    ErrorCode::MissingPrivilege,
                    format!(
                        "This needs the {p} privilege{} cluster \"{cluster}\".",
                        resource.phrase()
                    ),
                )
            }),
        }
    }
}

impl ClusterAccess {
    /// The decision, in the fixed order: writable (for writes) → internal topic (for writes on
    /// topics) → privilege, held on the whole cluster or granted on the resource by a scope.
    /// Visibility is settled by having a `ClusterAccess` at all.
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
        if self.protects(privilege, &action.resource) {
            return Decision::ProtectedTopic;
        }
        if !self.holds(privilege, &action.resource) {
            return Decision::MissingPrivilege(privilege, action.resource.clone());
        }
        Decision::Allowed
    }

    /// Whether `privilege` on `resource` touches a protected topic's records or the topic
    /// itself: every write on it, and RECORDS and UNMASK (its configs and the catalog stay
    /// readable).
    pub fn protects(&self, privilege: Privilege, resource: &Resource) -> bool {
        let Resource::Topic { name, .. } = resource else {
            return false;
        };
        let touches =
            privilege.is_write() || matches!(privilege, Privilege::Records | Privilege::Unmask);
        touches
            && privilege.kind() == ResourceKind::Topic
            && self.protected_topics.iter().any(|p| glob_matches(p, name))
    }

    /// Whether `privilege` is held on `resource`, leaving the writable flag and Kafka's
    /// internal topics aside.
    pub fn holds(&self, privilege: Privilege, resource: &Resource) -> bool {
        self.privileges.contains(&privilege)
            || self.scopes.iter().any(|s| s.grants(privilege, resource))
    }

    /// Whether the UI should offer an action needing `privilege` on `resource`: exactly when
    /// the API would allow it.
    pub fn can_on(&self, privilege: Privilege, resource: &Resource) -> bool {
        self.decide(&Action::new(privilege, resource.clone())).is_allowed()
    }

    /// Whether an action needing `privilege` may be allowed on some resource, for what is
    /// offered before the resource is chosen (a link, Create topic): held on the cluster, or
    /// in a scope, and the cluster writable for a write.
    pub fn can(&self, privilege: Privilege) -> bool {
        let held = self.privileges.contains(&privilege)
            || (privilege.kind() != ResourceKind::Cluster
                && self.scopes.iter().any(|s| s.privileges.contains(&privilege)));
        held && (self.writable || !privilege.is_write())
    }

    /// Whether the catalog shows `resource` to this caller: always, unless the cluster's
    /// catalog is scoped and no scope covers it.
    pub fn sees(&self, resource: &Resource) -> bool {
        !self.scoped_catalog
            || matches!(resource, Resource::Cluster)
            || self.scopes.iter().any(|s| s.covers(resource))
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
mod properties;

#[cfg(test)]
mod tests {
    use super::*;

    fn access(writable: bool, privileges: &[Privilege]) -> ClusterAccess {
        ClusterAccess {
            name: "c".into(),
            writable,
            privileges: privileges.iter().copied().collect(),
            scopes: Vec::new(),
            scoped_catalog: false,
            protected_topics: Vec::new(),
            connects: Vec::new(),
            mirrored: false,
            processors: false,
        }
    }

    fn topic(internal: bool) -> Resource {
        Resource::Topic { name: "t".into(), internal }
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
                            Decision::MissingPrivilege(p, topic(internal))
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

    /// Issue 31: the audit topic's records and the topic itself are nobody's, whatever they
    /// hold; its configs stay readable and a read-only cluster still says so first.
    #[test]
    fn a_protected_topic_refuses_its_records_and_every_change_to_everyone() {
        for writable in [false, true] {
            let mut a = access(writable, Privilege::ALL);
            a.protected_topics = vec!["t".into()];
            for &p in Privilege::ALL {
                let got = a.decide(&Action::new(p, topic(false)));
                let want = if p.is_write() && !writable {
                    Decision::ReadOnlyCluster
                } else if p.kind() == ResourceKind::Topic
                    && (p.is_write() || matches!(p, Privilege::Records | Privilege::Unmask))
                {
                    Decision::ProtectedTopic
                } else {
                    Decision::Allowed
                };
                assert_eq!(got, want, "{p:?} writable={writable}");
            }
            let other = Resource::topic("t2");
            assert!(a.decide(&Action::new(Privilege::Records, other)).is_allowed());
        }
    }

    #[test]
    fn catalog_reads_need_nothing_but_visibility() {
        assert_eq!(access(false, &[]).decide(&Action::catalog()), Decision::Allowed);
        assert_eq!(decide(None, &Action::catalog()), Decision::UnknownCluster);
        assert_eq!(
            decide(None, &Action::new(Privilege::Records, Resource::Cluster)),
            Decision::UnknownCluster
        );
    }

    #[test]
    fn reading_an_internal_topic_is_not_a_change() {
        let a = access(false, &[Privilege::Records]);
        assert_eq!(a.decide(&Action::new(Privilege::Records, topic(true))), Decision::Allowed);
    }

    #[test]
    fn refusals_map_to_the_contract_codes() {
        let cases = [
            (Decision::UnknownCluster, ErrorCode::UnknownCluster, 404),
            (Decision::ReadOnlyCluster, ErrorCode::ReadOnlyCluster, 403),
            (Decision::InternalTopic, ErrorCode::InternalTopic, 403),
            (
                Decision::MissingPrivilege(Privilege::Produce, Resource::Cluster),
                ErrorCode::MissingPrivilege,
                403,
            ),
        ];
        for (decision, code, status) in cases {
            let e = decision.into_error("c").expect("a refusal");
            assert_eq!((e.code, e.status()), (code, status));
        }
        let e = Decision::MissingPrivilege(Privilege::Produce, Resource::Cluster)
            .into_error("c")
            .expect("refusal");
        assert_eq!(e.privilege, Some(Privilege::Produce));
        assert_eq!(e.message, "This needs the PRODUCE privilege on cluster \"c\".");
        let e = Decision::MissingPrivilege(Privilege::Produce, Resource::topic("t"))
            .into_error("c")
            .expect("refusal");
        assert_eq!(e.message, "This needs the PRODUCE privilege on topic \"t\" in cluster \"c\".");
        assert!(Decision::Allowed.into_error("c").is_none());
    }

    #[test]
    fn globs_meet_when_some_name_matches_both() {
        let cases = [
            ("a*", "*b", true),
            ("?x", "y?", true),
            ("a?", "?b", true),
            ("*a*", "*b*", true),
            ("a*", "b*", false),
            ("ab", "a?c", false),
            ("abc", "a*d", false),
            ("orders", "orders", true),
            ("orders", "order", false),
            ("orders", "ord*", true),
            ("*-eu", "payments-*", true),
            ("payments-*", "ledger-*", false),
            ("a*c", "*b*", true),
            ("a?c", "*bb*", false),
            ("*", "", true),
            ("", "", true),
            ("", "?", false),
            ("**", "*x*", true),
        ];
        for (p, q, want) in cases {
            assert_eq!(globs_meet(p, q), want, "{p} and {q}");
            assert_eq!(globs_meet(q, p), want, "{q} and {p}");
            // Where one is a plain name, meeting is matching.
            if !q.contains(['*', '?']) {
                assert_eq!(glob_matches(p, q), want, "{p} matching {q}");
            }
        }
    }

    #[test]
    fn globs_match_runs_single_characters_and_literals() {
        let cases = [
            ("payments-*", "payments-eu", true),
            ("payments-*", "payments-", true),
            ("payments-*", "payment-eu", false),
            ("ledger", "ledger", true),
            ("ledger", "ledgers", false),
            ("ledger", "Ledger", false),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("a?c", "abbc", false),
            ("*", "", true),
            ("*", "anything at all", true),
            ("*-value", "orders-value", true),
            ("*a*b*", "xxaxxbxx", true),
            ("*a*b*", "xxbxxaxx", false),
            ("a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false),
            ("pay.*", "pay.x", true),
            ("pay.*", "payx", false),
            ("[a]", "[a]", true),
            ("[a]", "a", false),
            ("ü?", "üé", true),
            ("", "", true),
            ("", "x", false),
        ];
        for (pattern, text, want) in cases {
            assert_eq!(glob_matches(pattern, text), want, "{pattern:?} on {text:?}");
        }
    }

    fn scope(privileges: &[Privilege]) -> Scope {
        Scope {
            privileges: privileges.iter().copied().collect(),
            topics: vec!["payments-*".into(), "ledger".into()],
            groups: vec!["pay-app-*".into()],
            subjects: vec!["payments.*".into()],
            connect: Vec::new(),
            replications: vec!["staging-*".into()],
        }
    }

    fn scoped(writable: bool, privileges: &[Privilege]) -> ClusterAccess {
        ClusterAccess { scopes: vec![scope(privileges)], ..access(writable, &[]) }
    }

    /// A processor is covered when every topic it reads and writes is, and one without topics
    /// never is; its privileges are granted exactly there.
    #[test]
    fn a_scope_covers_a_processor_only_when_every_topic_is() {
        let processor = |topics: &[&str]| Resource::Processor {
            name: "p".into(),
            topics: topics.iter().map(|t| t.to_string()).collect(),
        };
        let scope = Scope {
            privileges: [Privilege::SqlProcessors, Privilege::ManageSqlProcessors].into(),
            topics: vec!["payments-*".into(), "ledger".into()],
            ..Scope::default()
        };
        for (topics, covered) in [
            (&["payments-eu", "ledger"][..], true),
            (&["payments-eu"][..], true),
            (&["payments-eu", "orders"][..], false),
            (&["orders"][..], false),
            (&[][..], false),
        ] {
            let resource = processor(topics);
            assert_eq!(scope.covers(&resource), covered, "{topics:?}");
            assert_eq!(scope.grants(Privilege::SqlProcessors, &resource), covered, "{topics:?}");
            assert_eq!(scope.grants(Privilege::ManageSqlProcessors, &resource), covered);
            assert!(
                !scope.grants(Privilege::Records, &resource),
                "a topic privilege on {topics:?}"
            );
        }
        assert!(!scope.grants(Privilege::SqlProcessors, &Resource::topic("payments-eu")));
    }

    /// Every privilege × held in the scope or not × every kind of resource, covered or not,
    /// internal or not × writable, against the rule of governance.md written out by hand.
    #[test]
    fn a_scope_grants_its_privileges_on_exactly_the_resources_it_covers() {
        let group = |name: &str, topics: &[&str]| Resource::Group {
            name: name.into(),
            topics: topics.iter().map(|t| t.to_string()).collect(),
        };
        let replication = |name: &str, connect: Option<&str>| Resource::Replication {
            name: name.into(),
            connect: connect.map(str::to_string),
        };
        let connector = |topics: Option<&[&str]>| Resource::Connector {
            connect: "dev".into(),
            name: "sink".into(),
            topics: topics.map(|t| t.iter().map(|t| t.to_string()).collect()),
        };
        // (resource, covered for topic privileges, for group privileges, for subject ones, for
        // connector ones, for replication ones)
        let resources = [
            (Resource::Cluster, false, false, false, false, false),
            (Resource::topic("payments-eu"), true, true, false, false, false),
            (Resource::topic("ledger"), true, true, false, false, false),
            (Resource::topic("orders"), false, false, false, false, false),
            (
                Resource::Topic { name: "payments-internal".into(), internal: true },
                true,
                true,
                false,
                false,
                false,
            ),
            (group("pay-app-1", &["orders"]), false, true, false, false, false),
            (group("billing", &["payments-eu", "ledger"]), false, true, false, false, false),
            (group("billing", &["payments-eu", "orders"]), false, false, false, false, false),
            (group("billing", &[]), false, false, false, false, false),
            (Resource::Subject("payments.card".into()), false, false, true, false, false),
            (Resource::Subject("payments-eu-value".into()), false, false, true, false, false),
            (Resource::Subject("ledger-key".into()), false, false, true, false, false),
            (Resource::Subject("orders-value".into()), false, false, false, false, false),
            (Resource::Subject("-value".into()), false, false, false, false, false),
            (connector(Some(&["payments-eu", "ledger"])), false, false, false, true, false),
            (connector(Some(&["payments-eu", "orders"])), false, false, false, false, false),
            (connector(Some(&[])), false, false, false, false, false),
            (connector(None), false, false, false, false, false),
            (replication("staging-eu", None), false, false, false, false, true),
            (replication("staging-eu", Some("any-connect")), false, false, false, false, true),
            (replication("prod-eu", None), false, false, false, false, false),
        ];
        for &p in Privilege::ALL {
            for in_scope in [false, true] {
                for writable in [false, true] {
                    for (resource, topic, group, subject, connector, replication) in &resources {
                        let held: &[Privilege] = if in_scope { &[p] } else { &[] };
                        let a = scoped(writable, held);
                        let covered = match p.kind() {
                            ResourceKind::Topic => *topic,
                            ResourceKind::Group => *group,
                            ResourceKind::Subject => *subject,
                            ResourceKind::Connector => *connector,
                            ResourceKind::Replication => *replication,
                            // No processor among these resources: see the test below.
                            ResourceKind::Processor | ResourceKind::Cluster => false,
                        };
                        let internal = matches!(resource, Resource::Topic { internal: true, .. });
                        let want = if p.is_write() && !writable {
                            Decision::ReadOnlyCluster
                        } else if p.is_write() && internal {
                            Decision::InternalTopic
                        } else if in_scope && covered {
                            Decision::Allowed
                        } else {
                            Decision::MissingPrivilege(p, resource.clone())
                        };
                        let got = a.decide(&Action::new(p, resource.clone()));
                        assert_eq!(
                            got, want,
                            "{p:?} in_scope={in_scope} writable={writable} {resource:?}"
                        );
                        assert_eq!(a.can_on(p, resource), want == Decision::Allowed);
                    }
                }
            }
        }
    }

    /// A replication scope with Connect names covers a replication by name alone, and a change
    /// that names the Connect cluster only on a named one; the refusal names both.
    #[test]
    fn a_replication_scope_covers_its_connect_clusters_only_when_asked() {
        let mut a = scoped(true, &[Privilege::ManageReplications]);
        a.scopes[0].connect = vec!["eu-*".into()];
        let on = |connect: Option<&str>| Resource::Replication {
            name: "staging-1".into(),
            connect: connect.map(str::to_string),
        };
        let manage = |r: Resource| a.decide(&Action::new(Privilege::ManageReplications, r));
        assert!(manage(on(None)).is_allowed());
        assert!(manage(on(Some("eu-connect"))).is_allowed());
        let refused = manage(on(Some("us-connect"))).into_error("c").expect("refused");
        assert_eq!(
            refused.message,
            "This needs the MANAGE_REPLICATIONS privilege on replication \"staging-1\" running on \
             Connect cluster \"us-connect\" in cluster \"c\"."
        );
        let other = Resource::Replication { name: "prod-1".into(), connect: None };
        assert!(!manage(other).is_allowed());
    }

    #[test]
    fn unscoped_and_scoped_privileges_add_up() {
        let a = ClusterAccess {
            scopes: vec![scope(&[Privilege::Produce])],
            ..access(true, &[Privilege::Records])
        };
        assert!(a.can_on(Privilege::Records, &Resource::topic("orders")));
        assert!(a.can_on(Privilege::Produce, &Resource::topic("payments-x")));
        assert!(!a.can_on(Privilege::Produce, &Resource::topic("orders")));
        // Offered before the topic is chosen, since some topic allows it.
        assert!(a.can(Privilege::Produce));
        assert!(!a.can(Privilege::DeleteTopics));
        // A cluster privilege listed in a scope (the config refuses it) grants nothing.
        let b = scoped(true, &[Privilege::Acls, Privilege::CreateTopics]);
        assert!(!b.can(Privilege::Acls));
        assert!(!b.can_on(Privilege::Acls, &Resource::Cluster));
        assert!(b.can(Privilege::CreateTopics));
        assert!(!scoped(false, &[Privilege::CreateTopics]).can(Privilege::CreateTopics));
    }

    #[test]
    fn a_scoped_catalog_shows_what_the_scopes_cover() {
        let mut a = scoped(true, &[]);
        let shown = [
            Resource::Cluster,
            Resource::topic("payments-eu"),
            Resource::group("pay-app-2"),
            Resource::Group { name: "x".into(), topics: vec!["ledger".into()] },
            Resource::Subject("ledger-value".into()),
            Resource::Subject("payments.card".into()),
        ];
        let hidden = [
            Resource::topic("orders"),
            Resource::group("x"),
            Resource::Subject("orders-value".into()),
        ];
        for r in shown.iter().chain(&hidden) {
            assert!(a.sees(r), "an open catalog shows {r:?}");
        }
        a.scoped_catalog = true;
        for r in &shown {
            assert!(a.sees(r), "{r:?}");
        }
        for r in &hidden {
            assert!(!a.sees(r), "{r:?}");
        }
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
