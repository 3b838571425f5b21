//! MirrorMaker 2 as klens drives it: a replication is a set of MirrorMaker connectors on a
//! Connect cluster of the target, named `<replication>.mirror-source` (and `-checkpoint`,
//! `-heartbeat`) so that klens knows them as one; their configs are written here from what
//! the operator chose and read back the same way. MirrorMaker's own records (offset syncs,
//! checkpoints) are decoded here too. Everything in this room is pure: the service reaches
//! Connect and Kafka.

use std::collections::BTreeMap;

use app::access::{glob_matches, globs_meet};
use app::api::{Naming, OffsetMove, PlannedOffset};

pub mod progress;
pub mod records;

#[cfg(test)]
mod tests;

const BYTES: &str = "org.apache.kafka.connect.converters.ByteArrayConverter";
const IDENTITY_POLICY: &str = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy";
const DEFAULT_POLICY: &str = "org.apache.kafka.connect.mirror.DefaultReplicationPolicy";
/// What MirrorMaker itself leaves out (Kafka 4.1's default `topics.exclude`), kept whatever
/// the operator excludes besides.
const INTERNAL_EXCLUDES: &[&str] = &["mm2.*\\.internal", ".*\\.replica", "__.*"];
/// MirrorMaker's default `groups.exclude`: console consumers, Connect's sinks, Kafka's own.
const GROUP_EXCLUDES: &[&str] = &["console-consumer-.*", "connect-.*", "__.*"];
/// The longest replication name: its connectors' names add at most 18 bytes.
pub const MAX_NAME: usize = 200;
/// The most topic or group patterns a replication names.
pub const MAX_PATTERNS: usize = 200;

/// A replication's connectors, each by name with its config.
pub type Connectors = Vec<(String, BTreeMap<String, String>)>;

/// The part a connector plays in a replication.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Copies the records (and writes the offset syncs).
    Source,
    /// Translates consumer groups' offsets into the target (only when groups are named).
    Checkpoint,
    /// Writes heartbeats into the target, by which tools see the flow is alive.
    Heartbeat,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Source, Role::Checkpoint, Role::Heartbeat];

    fn suffix(self) -> &'static str {
        match self {
            Role::Source => ".mirror-source",
            Role::Checkpoint => ".mirror-checkpoint",
            Role::Heartbeat => ".mirror-heartbeat",
        }
    }

    pub fn class(self) -> &'static str {
        match self {
            Role::Source => "org.apache.kafka.connect.mirror.MirrorSourceConnector",
            Role::Checkpoint => "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
            Role::Heartbeat => "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
        }
    }

    /// The name of this role's connector in replication `name`.
    pub fn connector(self, name: &str) -> String {
        format!("{name}{}", self.suffix())
    }
}

/// The replication and role of a connector klens made for one: its name ends in a role's
/// suffix and its class is that role's. Other MirrorMaker connectors are nobody's here.
pub fn role_of(connector: &str, class: &str) -> Option<(String, Role)> {
    Role::ALL.into_iter().find_map(|role| {
        let name = connector.strip_suffix(role.suffix())?;
        (class == role.class() && name_problem(name).is_none()).then(|| (name.to_string(), role))
    })
}

/// Whether a connector name ends as a replication's connectors do: such a name is kept for
/// replications, never given to a loose connector.
pub fn is_reserved(connector: &str) -> bool {
    Role::ALL.iter().any(|role| connector.ends_with(role.suffix()))
}

/// Whether `connector` is one of replication `name`'s connectors.
pub fn is_part(name: &str, connector: &str) -> bool {
    Role::ALL.iter().any(|role| role.connector(name) == connector)
}

/// Why `name` cannot name a replication: 1 to [`MAX_NAME`] of `a-z`, `0-9`, `-`, `_`, `.`.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() || name.len() > MAX_NAME {
        return Some(format!("a replication name is 1 to {MAX_NAME} characters"));
    }
    if let Some(c) = name.chars().find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-' | '_' | '.')) {
        return Some(format!("{c:?} is not one of a-z, 0-9, -, _ and ."));
    }
    if name.starts_with('.') {
        return Some("a replication name does not start with a dot".to_string());
    }
    None
}

/// What a replication is, as the operator chose it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub name: String,
    pub source: String,
    pub target: String,
    pub connect: String,
    /// Topic names or globs, and those left out.
    pub topics: Vec<String>,
    pub exclude: Vec<String>,
    pub naming: Naming,
    pub sync_configs: bool,
    /// Groups (names or globs) checkpointed; none: no checkpoint connector.
    pub groups: Vec<String>,
}

impl Spec {
    /// The connectors it is made of, each with its config: the source and heartbeat always,
    /// the checkpoint when groups are named. `source` and `target` are the clusters'
    /// `mirror.properties`.
    pub fn connectors(
        &self, source: &BTreeMap<String, String>, target: &BTreeMap<String, String>,
    ) -> Connectors {
        let mut all = Vec::new();
        for role in Role::ALL {
            if role == Role::Checkpoint && self.groups.is_empty() {
                continue;
            }
            let mut config: BTreeMap<String, String> = BTreeMap::new();
            let mut set = |k: &str, v: String| {
                config.insert(k.to_string(), v);
            };
            set("connector.class", role.class().to_string());
            set("source.cluster.alias", self.source.clone());
            set("target.cluster.alias", self.target.clone());
            for (k, v) in source {
                set(&format!("source.cluster.{k}"), v.clone());
            }
            for (k, v) in target {
                set(&format!("target.cluster.{k}"), v.clone());
            }
            let policy = match self.naming {
                Naming::Identity => IDENTITY_POLICY,
                Naming::Prefix => DEFAULT_POLICY,
            };
            set("replication.policy.class", policy.to_string());
            for converter in ["key.converter", "value.converter", "header.converter"] {
                set(converter, BYTES.to_string());
            }
            // -1: the broker's default replication factor for what MirrorMaker creates.
            match role {
                Role::Source | Role::Checkpoint => {
                    set("topics", regex_list(&self.topics));
                    let mut exclude: Vec<String> =
                        self.exclude.iter().map(|g| glob_to_regex(g)).collect();
                    exclude.extend(INTERNAL_EXCLUDES.iter().map(|e| e.to_string()));
                    set("topics.exclude", exclude.join(","));
                }
                Role::Heartbeat => {}
            }
            match role {
                Role::Source => {
                    set("sync.topic.configs.enabled", self.sync_configs.to_string());
                    // klens shows ACLs where they are; copying them is the operator's call.
                    set("sync.topic.acls.enabled", "false".into());
                    set("replication.factor", "-1".into());
                    set("offset-syncs.topic.replication.factor", "-1".into());
                    set("refresh.topics.interval.seconds", "60".into());
                }
                Role::Checkpoint => {
                    set("groups", regex_list(&self.groups));
                    set("groups.exclude", GROUP_EXCLUDES.join(","));
                    set("checkpoints.topic.replication.factor", "-1".into());
                    set("emit.checkpoints.interval.seconds", "10".into());
                    set("refresh.groups.interval.seconds", "60".into());
                    // Failover is klens's to plan and apply, never done behind a group's back.
                    set("sync.group.offsets.enabled", "false".into());
                }
                Role::Heartbeat => {
                    set("heartbeats.topic.replication.factor", "-1".into());
                }
            }
            all.push((role.connector(&self.name), config));
        }
        all
    }

    /// The replication a source connector's config (and its checkpoint's, when it has one)
    /// says, when klens wrote them: `None` for a config klens cannot read back.
    pub fn from_configs(
        name: &str, connect: &str, source: &BTreeMap<String, String>,
        checkpoint: Option<&BTreeMap<String, String>>,
    ) -> Option<Spec> {
        let get = |k: &str| source.get(k).map(String::as_str);
        let naming = match get("replication.policy.class") {
            Some(IDENTITY_POLICY) => Naming::Identity,
            None | Some(DEFAULT_POLICY) => Naming::Prefix,
            Some(_) => return None,
        };
        let globs = |list: Option<&str>| -> Option<Vec<String>> {
            split(list.unwrap_or_default()).iter().map(|r| regex_to_glob(r)).collect()
        };
        let mut exclude_regexes = split(get("topics.exclude").unwrap_or_default());
        exclude_regexes.retain(|r| !INTERNAL_EXCLUDES.contains(&r.as_str()));
        let exclude = exclude_regexes.iter().map(|r| regex_to_glob(r)).collect::<Option<_>>()?;
        Some(Spec {
            name: name.to_string(),
            source: get("source.cluster.alias")?.to_string(),
            target: get("target.cluster.alias")?.to_string(),
            connect: connect.to_string(),
            topics: globs(get("topics"))?,
            exclude,
            naming,
            sync_configs: get("sync.topic.configs.enabled") != Some("false"),
            groups: match checkpoint {
                Some(c) => globs(c.get("groups").map(String::as_str))?,
                None => Vec::new(),
            },
        })
    }

    /// The name a source topic's copy has on the target.
    pub fn target_topic(&self, topic: &str) -> String {
        match self.naming {
            Naming::Identity => topic.to_string(),
            Naming::Prefix => format!("{}.{topic}", self.source),
        }
    }

    /// The source topic a copy named `copy` on the target comes from, under this naming.
    pub fn source_topic<'a>(&self, copy: &'a str) -> Option<&'a str> {
        match self.naming {
            Naming::Identity => Some(copy),
            Naming::Prefix => copy.strip_prefix(self.source.as_str())?.strip_prefix('.'),
        }
    }

    /// Whether a checkpoint of `group` on the copy `copy` is this replication's: a group it
    /// names, on a topic it copies.
    pub fn checkpoints(&self, group: &str, copy: &str) -> bool {
        self.groups.iter().any(|g| glob_matches(g, group))
            && self.source_topic(copy).is_some_and(|t| self.copies(t))
    }

    /// Whether the replication copies source topic `topic`: a pattern takes it, no exclusion
    /// leaves it out, MirrorMaker does not hold it for internal, and under prefix naming it is
    /// not a copy that came from the target (MirrorMaker's cycle rule: a dotted prefix naming
    /// the target, at any depth, is never sent back there).
    pub fn copies(&self, topic: &str) -> bool {
        let cycle = self.naming == Naming::Prefix && {
            let mut segments: Vec<&str> = topic.split('.').collect();
            segments.pop();
            segments.contains(&self.target.as_str())
        };
        self.topics.iter().any(|g| glob_matches(g, topic))
            && !self.exclude.iter().any(|g| glob_matches(g, topic))
            && !is_internal(topic)
            && !cycle
    }

    /// Why this replication may not exist beside `others` (the replications klens knows, this
    /// one's earlier version left out): the same source and target with identity naming, a
    /// selection that takes MirrorMaker's own topics, or an identity loop with another.
    pub fn problem(&self, others: &[Spec]) -> Option<(&'static str, String)> {
        if self.source == self.target && self.naming == Naming::Identity {
            return Some((
                "naming",
                format!(
                    "Replicating cluster \"{}\" into itself under the same names would copy \
                     every topic onto itself; use prefix naming.",
                    self.source
                ),
            ));
        }
        for glob in &self.topics {
            if let Some(internal) = self.takes_internal(glob) {
                return Some((
                    "topics",
                    format!(
                        "\"{glob}\" takes MirrorMaker's own topic {internal}; name the topics \
                         to copy more narrowly (\"*\" alone copies every topic but those)."
                    ),
                ));
            }
        }
        // Two replications of one pair share MirrorMaker's offset syncs and checkpoints, keyed
        // by topic: the same topic copied by both would mix them.
        let twin = others.iter().find(|o| {
            o.name != self.name
                && o.source == self.source
                && o.target == self.target
                && overlap(&self.topics, &o.topics)
        });
        if let Some(twin) = twin {
            return Some((
                "topics",
                format!(
                    "Replication \"{}\" copies topics these patterns take from {} into {} \
                     already; change its topics instead.",
                    twin.name, self.source, self.target
                ),
            ));
        }
        if self.naming == Naming::Identity {
            let back = others.iter().find(|o| {
                o.name != self.name
                    && o.naming == Naming::Identity
                    && o.source == self.target
                    && o.target == self.source
                    && overlap(&self.topics, &o.topics)
            });
            if let Some(back) = back {
                return Some((
                    "topics",
                    format!(
                        "Replication \"{}\" copies {} into {} under the same names: with this \
                         one, records would go round in a loop. Use prefix naming or topics \
                         the other does not copy.",
                        back.name, back.source, back.target
                    ),
                ));
            }
        }
        None
    }
}

/// Whether two topic selections may take a common name: some name matches a pattern of each
/// (also two globs that only meet in the middle, `a*` and `*b`). Excludes are not weighed: an
/// overlap they would remove is still refused.
fn overlap(a: &[String], b: &[String]) -> bool {
    a.iter().any(|x| b.iter().any(|y| globs_meet(x, y)))
}

/// Whether MirrorMaker treats `topic` as internal and never copies it (Kafka 4.1's rule, with
/// its heartbeats, which klens does not list as a replication's topics).
pub fn is_internal(topic: &str) -> bool {
    topic.starts_with("__")
        || topic.starts_with('.')
        || (topic.starts_with("mm2") && topic.ends_with(".internal"))
        || topic.ends_with(".checkpoints.internal")
        || topic == "heartbeats"
        || topic.ends_with(".heartbeats")
}

impl Spec {
    /// The internal topic a pattern of the selection takes, if any: a name MirrorMaker holds
    /// for internal, or a pattern taking one of its topics for these clusters (or Kafka's own).
    /// `*` alone takes every topic but those, so it names none.
    fn takes_internal(&self, glob: &str) -> Option<String> {
        if glob.chars().all(|c| c == '*') {
            return None;
        }
        if !glob.contains(['*', '?']) && is_internal(glob) {
            return Some(glob.to_string());
        }
        let (s, t) = (&self.source, &self.target);
        [
            format!("mm2-offset-syncs.{t}.internal"),
            format!("mm2-offset-syncs.{s}.internal"),
            format!("{s}.checkpoints.internal"),
            "heartbeats".to_string(),
            format!("{s}.heartbeats"),
            "__consumer_offsets".to_string(),
            "__transaction_state".to_string(),
        ]
        .into_iter()
        .find(|t| glob_matches(glob, t))
    }
}

/// Why a topic or group pattern cannot be used: empty, or holding what neither Kafka names
/// nor a glob has.
pub fn pattern_problem(glob: &str) -> Option<String> {
    if glob.is_empty() || glob.len() > 249 {
        return Some("a name or pattern is 1 to 249 characters".to_string());
    }
    glob.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '*' | '?')))
        .map(|c| format!("{c:?} is not in a topic or group name, nor * or ?"))
}

/// Comma-separated entries, trimmed, empties dropped.
fn split(list: &str) -> Vec<String> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

fn regex_list(globs: &[String]) -> String {
    globs.iter().map(|g| glob_to_regex(g)).collect::<Vec<_>>().join(",")
}

/// The regular expression MirrorMaker matches for a glob over names of `a-z A-Z 0-9 . _ -`:
/// `*` is `.*`, `?` is `.`, a dot is escaped; the rest stands for itself.
pub fn glob_to_regex(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len() + 4);
    for c in glob.chars() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            '.' => out.push_str("\\."),
            c => out.push(c),
        }
    }
    out
}

/// The glob [`glob_to_regex`] made `regex` of, or `None` for a regex it could not have made.
pub fn regex_to_glob(regex: &str) -> Option<String> {
    let mut out = String::with_capacity(regex.len());
    let mut chars = regex.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('.') => out.push('.'),
                _ => return None,
            },
            '.' if chars.peek() == Some(&'*') => {
                chars.next();
                out.push('*');
            }
            '.' => out.push('?'),
            c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => out.push(c),
            _ => return None,
        }
    }
    Some(out)
}

/// The topic holding a source connector's offset syncs: on the source cluster, named after
/// the target.
pub fn offset_syncs_topic(target: &str) -> String {
    format!("mm2-offset-syncs.{target}.internal")
}

/// The topic holding the checkpoints of groups of `source`: on the target cluster.
pub fn checkpoints_topic(source: &str) -> String {
    format!("{source}.checkpoints.internal")
}

/// Whether a failover plan sent back is the plan as it stands now: the same partitions, each
/// from the committed offset it starts from now and to the offset the newest checkpoints give.
pub fn plan_holds(sent: &[PlannedOffset], now: &[OffsetMove]) -> bool {
    let now: BTreeMap<(&str, i32), (Option<i64>, i64)> =
        now.iter().map(|m| ((m.topic.as_str(), m.partition), (m.from, m.to))).collect();
    let sent_moves: BTreeMap<(&str, i32), (Option<i64>, i64)> =
        sent.iter().map(|p| ((p.topic.as_str(), p.partition), (p.from, p.to))).collect();
    sent.len() == sent_moves.len() && sent_moves == now
}
