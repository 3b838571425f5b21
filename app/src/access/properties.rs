//! Properties of the decision over random scoped bindings: random topic, group and subject
//! names against random globs, checked against a model written here from governance.md with a
//! matcher of its own. A fixed-seed generator, so a failure runs again the same; `make unit`
//! keeps the case count short and `make fuzz` makes it long (`KLENS_FUZZ_CASES`), as the
//! server's fuzz tests do.

use std::collections::BTreeSet;

use super::*;

fn cases(default: usize) -> usize {
    std::env::var("KLENS_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(default)
}

/// xorshift64*, the server's fuzz generator.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    /// Up to `max` pieces of `alphabet`. A small alphabet, so that patterns and names meet
    /// often; a character of two bytes, so that positions are characters and not bytes.
    fn text(&mut self, alphabet: &[&str], max: usize) -> String {
        let len = self.below(max + 1);
        (0..len).map(|_| alphabet[self.below(alphabet.len())]).collect()
    }

    fn name(&mut self) -> String {
        self.text(&["a", "b", "A", "-", ".", "ü"], 6)
    }

    fn pattern(&mut self) -> String {
        self.text(&["a", "b", "A", "-", "ü", "*", "?"], 5)
    }

    fn patterns(&mut self) -> Vec<String> {
        (0..self.below(3)).map(|_| self.pattern()).collect()
    }

    /// A subject, often named after a topic (`<topic>-key`, `<topic>-value`).
    fn subject(&mut self) -> String {
        let base = self.name();
        match self.below(3) {
            0 => base,
            1 => format!("{base}-key"),
            _ => format!("{base}-value"),
        }
    }

    fn privileges(&mut self) -> BTreeSet<Privilege> {
        Privilege::ALL.iter().copied().filter(|_| self.chance(3)).collect()
    }

    fn resource(&mut self) -> Resource {
        match self.below(7) {
            0 => Resource::Cluster,
            6 => Resource::Processor {
                name: self.name(),
                topics: (0..self.below(3)).map(|_| self.name()).collect(),
            },
            5 => Resource::Replication {
                name: self.name(),
                connect: (!self.chance(2)).then(|| self.name()),
            },
            4 => {
                let topics: Vec<String> = (0..self.below(3)).map(|_| self.name()).collect();
                let known = !self.chance(4);
                Resource::Connector {
                    connect: self.name(),
                    name: self.name(),
                    topics: known.then_some(topics),
                }
            }
            1 => Resource::Topic { name: self.name(), internal: self.chance(4) },
            2 => {
                let topics: Vec<String> = (0..self.below(3)).map(|_| self.name()).collect();
                Resource::group_on(self.name(), topics)
            }
            _ => Resource::Subject(self.subject()),
        }
    }

    /// A caller holding nothing on the whole cluster, with up to three scoped bindings.
    fn scoped_caller(&mut self) -> ClusterAccess {
        let scopes = (0..self.below(4))
            .map(|_| Scope {
                privileges: self.privileges(),
                topics: self.patterns(),
                groups: self.patterns(),
                subjects: self.patterns(),
                connect: if self.chance(2) { Vec::new() } else { self.patterns() },
                replications: self.patterns(),
            })
            .collect();
        ClusterAccess {
            name: "c".into(),
            writable: !self.chance(4),
            privileges: BTreeSet::new(),
            scopes,
            scoped_catalog: self.chance(2),
            protected_topics: Vec::new(),
            connects: Vec::new(),
            mirrored: false,
            processors: false,
        }
    }
}

/// The glob of governance.md read the plain way: `*` tries every split, `?` takes one
/// character, anything else itself. Exponential, fine for these short patterns.
fn reference_glob(pattern: &[char], text: &[char]) -> bool {
    match pattern {
        [] => text.is_empty(),
        ['*', rest @ ..] => (0..=text.len()).any(|i| reference_glob(rest, &text[i..])),
        ['?', rest @ ..] => !text.is_empty() && reference_glob(rest, &text[1..]),
        [c, rest @ ..] => text.first() == Some(c) && reference_glob(rest, &text[1..]),
    }
}

fn reference_matches(patterns: &[String], name: &str) -> bool {
    let name: Vec<char> = name.chars().collect();
    patterns.iter().any(|p| reference_glob(&p.chars().collect::<Vec<_>>(), &name))
}

/// Whether `scope` covers `resource` for a privilege of `kind` (governance.md): a topic by a
/// topic pattern; a group by a group pattern or by all of its (at least one) topics, and the
/// topic a group change's offsets are on by a topic pattern; a subject by a subject pattern or
/// through the topic of `<topic>-key` / `<topic>-value`; the cluster never.
fn reference_covers(scope: &Scope, kind: ResourceKind, resource: &Resource) -> bool {
    let topic = |name: &str| reference_matches(&scope.topics, name);
    match (kind, resource) {
        (ResourceKind::Topic | ResourceKind::Group, Resource::Topic { name, .. }) => topic(name),
        (ResourceKind::Group, Resource::Group { name, topics }) => {
            reference_matches(&scope.groups, name)
                || (!topics.is_empty() && topics.iter().all(|t| topic(t)))
        }
        (ResourceKind::Subject, Resource::Subject(name)) => {
            let by_topic = ["-key", "-value"]
                .iter()
                .any(|suffix| name.strip_suffix(suffix).is_some_and(|t| !t.is_empty() && topic(t)));
            reference_matches(&scope.subjects, name) || by_topic
        }
        // A connector of a named (or any, with no names) Connect cluster whose topics are
        // known, at least one, and every one covered.
        (ResourceKind::Connector, Resource::Connector { connect, topics, .. }) => {
            (scope.connect.is_empty() || reference_matches(&scope.connect, connect))
                && topics.as_ref().is_some_and(|t| !t.is_empty() && t.iter().all(|t| topic(t)))
        }
        // A replication by its name; when its Connect cluster is asked, that one covered too
        // (no names: every one).
        (ResourceKind::Replication, Resource::Replication { name, connect }) => {
            reference_matches(&scope.replications, name)
                && connect.as_ref().is_none_or(|c| {
                    scope.connect.is_empty() || reference_matches(&scope.connect, c)
                })
        }
        // A processor whose topics are at least one, and every one covered.
        (ResourceKind::Processor, Resource::Processor { topics, .. }) => {
            !topics.is_empty() && topics.iter().all(|t| topic(t))
        }
        _ => false,
    }
}

/// Whether `scope` covers `resource` for some kind of privilege: what a scoped catalog shows.
fn reference_shows(scope: &Scope, resource: &Resource) -> bool {
    let kind = match resource {
        Resource::Cluster => return false,
        Resource::Topic { .. } => ResourceKind::Topic,
        Resource::Group { .. } => ResourceKind::Group,
        Resource::Subject(_) => ResourceKind::Subject,
        Resource::Connector { .. } => ResourceKind::Connector,
        Resource::Replication { .. } => ResourceKind::Replication,
        Resource::Processor { .. } => ResourceKind::Processor,
    };
    reference_covers(scope, kind, resource)
}

#[test]
fn fuzz_glob_matches_agrees_with_a_plain_matcher() {
    let mut random = Random(0x6b6c_656e_7367_6c6f);
    for _ in 0..cases(20_000) {
        let pattern = random.pattern();
        let text = random.name();
        let want =
            reference_glob(&pattern.chars().collect::<Vec<_>>(), &text.chars().collect::<Vec<_>>());
        assert_eq!(glob_matches(&pattern, &text), want, "{pattern:?} on {text:?}");
    }
}

/// A caller with scoped bindings only: whatever privilege of whatever kind it asks, on
/// whatever resource, it is allowed only where a scope holding that privilege covers the
/// resource, and there it is allowed unless the cluster is read-only or the topic internal.
/// Its catalog shows only what some scope covers.
#[test]
fn fuzz_a_scoped_caller_is_allowed_only_where_a_scope_covers() {
    let mut random = Random(0x6b6c_656e_7373_636f);
    for _ in 0..cases(5_000) {
        let caller = random.scoped_caller();
        let resource = random.resource();
        for &privilege in Privilege::ALL {
            let covered = caller.scopes.iter().any(|s| {
                s.privileges.contains(&privilege)
                    && reference_covers(s, privilege.kind(), &resource)
            });
            let decision = caller.decide(&Action::new(privilege, resource.clone()));
            let context = || format!("{privilege:?} on {resource:?} by {caller:?}");
            if decision.is_allowed() {
                assert!(covered, "allowed but no scope covers: {}", context());
            }
            assert_eq!(caller.holds(privilege, &resource), covered, "holds: {}", context());
            let refused_first = privilege.is_write()
                && (!caller.writable || matches!(resource, Resource::Topic { internal: true, .. }));
            if covered && !refused_first {
                assert_eq!(decision, Decision::Allowed, "{}", context());
            }
            if !covered && !refused_first {
                assert_eq!(
                    decision,
                    Decision::MissingPrivilege(privilege, resource.clone()),
                    "{}",
                    context()
                );
            }
            assert_eq!(caller.can_on(privilege, &resource), decision.is_allowed(), "{}", context());
        }
        let shown = caller.scopes.iter().any(|s| reference_shows(s, &resource));
        if caller.scoped_catalog && !matches!(resource, Resource::Cluster) {
            assert_eq!(caller.sees(&resource), shown, "sees {resource:?} by {caller:?}");
        } else {
            assert!(caller.sees(&resource), "{resource:?} by {caller:?}");
        }
    }
}
