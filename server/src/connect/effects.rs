//! Every effect a connector config can have, read off the config before it reaches Connect. A
//! connector runs with the Connect worker's files, network and Kafka credentials, not its
//! author's: the topics named by `topic` and `topics` are only part of what a config reaches.
//! This file says what the rest is (topics by pattern, dead letters and a source's own offsets
//! topic, the group a sink commits in) and refuses, naming the key, whatever klens cannot
//! decide: a FileStream or MirrorMaker class, a class the operator did not allow, a
//! config-provider reference or a client override the operator did not allow by key, a
//! transform that renames the topic a source writes. The service decides what is left against
//! the caller's privileges.

use std::collections::BTreeMap;

use app::access::glob_matches;

use crate::config::engine_classes::never_loose;
use crate::config::ConnectAllow;

/// What a connector config, once refusals are out of the way, makes the connector do to Kafka.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// Topics a sink reads, by name (`topics`).
    pub reads: Vec<String>,
    /// A sink's `topics.regex`: every topic it matches, now or later, is read.
    pub pattern: Option<String>,
    /// Topics written, each with the key that names it: a source's `topic`/`topics`, a
    /// dead-letter topic, a source's own offsets topic.
    pub writes: Vec<(String, &'static str)>,
    /// Whether the config asks the worker to create the topics a source writes.
    pub creates_topics: bool,
    /// The consumer group a sink commits its offsets in.
    pub group: Option<String>,
}

impl Effects {
    /// Every topic the connector uses by name, sorted, each once; `None` with a pattern.
    pub fn topics(&self) -> Option<Vec<String>> {
        if self.pattern.is_some() {
            return None;
        }
        let mut all: Vec<String> =
            self.reads.iter().cloned().chain(self.writes.iter().map(|(t, _)| t.clone())).collect();
        all.sort();
        all.dedup();
        Some(all)
    }
}

/// A config klens will not send to Connect: the key at fault and why, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub key: String,
    pub reason: String,
}

fn refuse(key: impl Into<String>, reason: impl Into<String>) -> Refusal {
    Refusal { key: key.into(), reason: reason.into() }
}

/// The prefixes of the keys that override a connector's Kafka clients.
const OVERRIDES: [&str; 3] = ["producer.override.", "consumer.override.", "admin.override."];

/// The key naming a sink's dead-letter topic.
pub const DEAD_LETTER: &str = "errors.deadletterqueue.topic.name";
/// The key naming a source's own offsets topic (KIP-618).
pub const OFFSETS_TOPIC: &str = "offsets.storage.topic";

/// Kafka's own transforms that leave a record's topic as it is, by simple name (a `$Key` or
/// `$Value` variant is the same transform).
const KEEPING_TRANSFORMS: &[&str] = &[
    "Cast",
    "DropHeaders",
    "ExtractField",
    "Filter",
    "Flatten",
    "HeaderFrom",
    "HoistField",
    "InsertField",
    "InsertHeader",
    "MaskField",
    "ReplaceField",
    "SetSchemaMetadata",
    "TimestampConverter",
    "ValueToKey",
];
/// Kafka's own transforms that rename a record's topic.
const ROUTING_TRANSFORMS: &[&str] = &["RegexRouter", "TimestampRouter"];
const KAFKA_TRANSFORMS: &str = "org.apache.kafka.connect.transforms.";
const KAFKA_PREDICATES: &[&str] = &[
    "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
    "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
    "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
];
const KAFKA_CONVERTERS: &[&str] = &[
    "org.apache.kafka.connect.json.JsonConverter",
    "org.apache.kafka.connect.storage.StringConverter",
    "org.apache.kafka.connect.storage.SimpleHeaderConverter",
    "org.apache.kafka.connect.converters.ByteArrayConverter",
    "org.apache.kafka.connect.converters.BooleanConverter",
    "org.apache.kafka.connect.converters.DoubleConverter",
    "org.apache.kafka.connect.converters.FloatConverter",
    "org.apache.kafka.connect.converters.IntegerConverter",
    "org.apache.kafka.connect.converters.LongConverter",
    "org.apache.kafka.connect.converters.ShortConverter",
];

/// Whether one of `patterns` (names or globs) matches `name`.
pub fn allowed(patterns: &[String], name: &str) -> bool {
    patterns.iter().any(|p| glob_matches(p, name))
}

/// Whether `value` holds a config-provider reference anywhere (`${provider:path:key}`, which
/// Connect replaces with what the worker's provider reads, from its files or its vaults).
pub fn holds_reference(value: &str) -> bool {
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) if after[..end].contains(':') => return true,
            Some(end) => rest = &after[end + 1..],
            None => return false,
        }
    }
    false
}

/// The comma-separated names of `key`, trimmed, without empties.
fn list(config: &BTreeMap<String, String>, key: &str) -> Vec<String> {
    config
        .get(key)
        .map(|v| v.split(',').map(str::trim).filter(|t| !t.is_empty()).map(String::from).collect())
        .unwrap_or_default()
}

/// The simple name of a class, without a nested `$Key`/`$Value`.
fn simple(class: &str) -> &str {
    let simple = class.trim().rsplit('.').next().unwrap_or_default();
    simple.split('$').next().unwrap_or(simple)
}

/// The effects of the config of connector `name`, a `kind` (`source` or `sink`) of plugin
/// `class` (as Connect names the plugin), under the allow-list of its Connect cluster `connect`.
pub fn effects(
    connect: &str, kind: &str, name: &str, class: &str, config: &BTreeMap<String, String>,
    allow: &ConnectAllow,
) -> Result<Effects, Refusal> {
    let class_key = super::CONNECTOR_CLASS;
    let given = config.get(class_key).map(String::as_str).unwrap_or(class);
    for spelling in [given, class] {
        if let Some(engine) = never_loose(spelling) {
            return Err(refuse(
                class_key,
                format!("{spelling} is {engine}; klens never creates it as a loose connector."),
            ));
        }
    }
    if !allowed(&allow.classes, class) && !allowed(&allow.classes, given) {
        return Err(refuse(
            class_key,
            format!(
                "Connect cluster \"{connect}\" does not allow {class} through klens: an operator \
                 lists the classes it may run under its allow.classes."
            ),
        ));
    }
    for (key, value) in config {
        if holds_reference(value) && !allowed(&allow.references, key) {
            return Err(refuse(
                key.clone(),
                "holds a config-provider reference, which the Connect worker would resolve with \
                 its own files and secrets: give the value itself, or ask an operator to allow \
                 references in this key (allow.references).",
            ));
        }
        if OVERRIDES.iter().any(|p| key.starts_with(p)) && !allowed(&allow.overrides, key) {
            return Err(refuse(
                key.clone(),
                "overrides a setting of the worker's own Kafka clients (their credentials, \
                 brokers or group), which klens cannot decide: leave it out, or ask an operator \
                 to allow this key (allow.overrides).",
            ));
        }
    }
    judge_classes(kind, config, allow)?;

    let mut effects = Effects::default();
    let dead_letter = config.get(DEAD_LETTER).map(|t| t.trim()).filter(|t| !t.is_empty());
    if kind == "sink" {
        effects.reads = list(config, "topics");
        effects.pattern =
            config.get("topics.regex").map(|r| r.trim().to_string()).filter(|r| !r.is_empty());
        effects.group = Some(
            config
                .get("consumer.override.group.id")
                .map(|g| g.trim().to_string())
                .filter(|g| !g.is_empty())
                .unwrap_or_else(|| format!("connect-{name}")),
        );
    } else {
        for key in ["topic", "topics"] {
            effects.writes.extend(list(config, key).into_iter().map(|t| (t, key)));
        }
        if effects.writes.is_empty() {
            return Err(refuse(
                "topic",
                "names no topic, so klens cannot tell which topics this source writes (its \
                 plugin would choose): name them with topic or topics.",
            ));
        }
        if let Some(own) = config.get(OFFSETS_TOPIC).map(|t| t.trim()).filter(|t| !t.is_empty()) {
            effects.writes.push((own.to_string(), OFFSETS_TOPIC));
        }
        effects.creates_topics = config.keys().any(|k| k.starts_with("topic.creation."));
    }
    if let Some(topic) = dead_letter {
        effects.writes.push((topic.to_string(), DEAD_LETTER));
    }
    Ok(effects)
}

/// The transforms, predicates and converters a config names: Kafka's own, or classes the
/// operator allows; a transform that renames topics only on a sink, where the name it makes
/// never reaches Kafka.
fn judge_classes(
    kind: &str, config: &BTreeMap<String, String>, allow: &ConnectAllow,
) -> Result<(), Refusal> {
    for alias in list(config, "transforms") {
        let key = format!("transforms.{alias}.type");
        let Some(class) = config.get(&key) else {
            continue;
        };
        let kafkas = class.trim().starts_with(KAFKA_TRANSFORMS);
        let name = simple(class);
        if kafkas && ROUTING_TRANSFORMS.contains(&name) {
            if kind == "sink" {
                continue;
            }
            return Err(refuse(
                key,
                format!(
                    "{name} renames the topic this source writes, so klens cannot tell where \
                     its records go: name the topics in topic or topics instead."
                ),
            ));
        }
        if kafkas && KEEPING_TRANSFORMS.contains(&name) {
            continue;
        }
        if !allowed(&allow.classes, class.trim()) {
            return Err(refuse(key, not_allowed("transform", class)));
        }
    }
    for alias in list(config, "predicates") {
        let key = format!("predicates.{alias}.type");
        let Some(class) = config.get(&key) else {
            continue;
        };
        if !KAFKA_PREDICATES.contains(&class.trim()) && !allowed(&allow.classes, class.trim()) {
            return Err(refuse(key, not_allowed("predicate", class)));
        }
    }
    for key in ["key.converter", "value.converter", "header.converter"] {
        let Some(class) = config.get(key) else {
            continue;
        };
        if !KAFKA_CONVERTERS.contains(&class.trim()) && !allowed(&allow.classes, class.trim()) {
            return Err(refuse(key, not_allowed("converter", class)));
        }
    }
    Ok(())
}

fn not_allowed(what: &str, class: &str) -> String {
    format!(
        "the {what} {} is not one of Kafka's own, and an operator has not allowed it for this \
         Connect cluster (allow.classes).",
        class.trim()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SINK: &str = "org.apache.kafka.connect.tools.VerifiableSinkConnector";
    const SOURCE: &str = "org.apache.kafka.connect.tools.VerifiableSourceConnector";

    fn allow(classes: &[&str], overrides: &[&str], references: &[&str]) -> ConnectAllow {
        let own = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        ConnectAllow {
            classes: own(classes),
            overrides: own(overrides),
            references: own(references),
        }
    }

    fn config(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn judged(
        kind: &str, class: &str, pairs: &[(&str, &str)], allow: &ConnectAllow,
    ) -> Result<Effects, Refusal> {
        let mut c = config(pairs);
        c.entry(super::super::CONNECTOR_CLASS.into()).or_insert_with(|| class.to_string());
        effects("dev", kind, "c1", class, &c, allow)
    }

    /// A refused config: kind, class, its keys, the key the refusal names.
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], &'a str);

    /// Each way a config reaches past its topics, refused with the key at fault.
    #[test]
    fn what_klens_cannot_decide_is_refused_by_its_key() {
        let open = allow(&["org.apache.kafka.connect.tools.*"], &[], &[]);
        let cases: &[Case] = &[
            (
                "source",
                "org.apache.kafka.connect.file.FileStreamSourceConnector",
                &[("topic", "t")],
                "connector.class",
            ),
            (
                "source",
                SOURCE,
                &[("connector.class", "FileStreamSource"), ("topic", "t")],
                "connector.class",
            ),
            (
                "source",
                SOURCE,
                &[("connector.class", "MirrorSourceConnector"), ("topic", "t")],
                "connector.class",
            ),
            ("sink", "io.example.JdbcSinkConnector", &[("topics", "t")], "connector.class"),
            (
                "sink",
                SINK,
                &[("topics", "t"), ("connection.password", "${file:/etc/secrets:remote.jaas}")],
                "connection.password",
            ),
            ("sink", SINK, &[("topics", "t"), ("url", "jdbc:x://h/${env:HOME:x}")], "url"),
            (
                "sink",
                SINK,
                &[("topics", "t"), ("consumer.override.group.id", "billing-service")],
                "consumer.override.group.id",
            ),
            (
                "sink",
                SINK,
                &[("topics", "t"), ("consumer.override.sasl.jaas.config", "x")],
                "consumer.override.sasl.jaas.config",
            ),
            (
                "source",
                SOURCE,
                &[("topic", "t"), ("producer.override.bootstrap.servers", "x:9092")],
                "producer.override.bootstrap.servers",
            ),
            (
                "source",
                SOURCE,
                &[("topic", "t"), ("admin.override.client.id", "x")],
                "admin.override.client.id",
            ),
            (
                "source",
                SOURCE,
                &[
                    ("topic", "t"),
                    ("transforms", "r"),
                    ("transforms.r.type", "org.apache.kafka.connect.transforms.RegexRouter"),
                ],
                "transforms.r.type",
            ),
            (
                "source",
                SOURCE,
                &[
                    ("topic", "t"),
                    ("transforms", "r"),
                    ("transforms.r.type", "org.apache.kafka.connect.transforms.TimestampRouter"),
                ],
                "transforms.r.type",
            ),
            (
                "sink",
                SINK,
                &[
                    ("topics", "t"),
                    ("transforms", "x"),
                    ("transforms.x.type", "com.example.Anything"),
                ],
                "transforms.x.type",
            ),
            (
                "sink",
                SINK,
                &[("topics", "t"), ("predicates", "p"), ("predicates.p.type", "com.example.P")],
                "predicates.p.type",
            ),
            (
                "sink",
                SINK,
                &[("topics", "t"), ("value.converter", "com.example.Reader")],
                "value.converter",
            ),
            ("source", SOURCE, &[("tasks.max", "1")], "topic"),
        ];
        for (kind, class, pairs, key) in cases {
            let refusal = judged(kind, class, pairs, &open).expect_err(&format!("{pairs:?}"));
            assert_eq!(refusal.key, *key, "{pairs:?}: {}", refusal.reason);
        }
    }

    #[test]
    fn the_operators_allow_list_lets_exactly_its_keys_through() {
        let allow =
            allow(&[SINK], &["consumer.override.max.poll.records"], &["*.basic.auth.user.info"]);
        let ok = judged(
            "sink",
            SINK,
            &[
                ("topics", "a, b"),
                ("consumer.override.max.poll.records", "10"),
                ("value.converter.basic.auth.user.info", "${file:/s:info}"),
            ],
            &allow,
        )
        .expect("allowed");
        assert_eq!(ok.reads, ["a", "b"]);
        assert_eq!(ok.group.as_deref(), Some("connect-c1"));
        for (key, value) in [
            ("consumer.override.max.poll.interval.ms", "10"),
            ("consumer.override.group.id", "g"),
            ("connection.password", "${file:/s:p}"),
        ] {
            let refused = judged("sink", SINK, &[("topics", "a"), (key, value)], &allow);
            assert_eq!(refused.map_err(|r| r.key), Err(key.to_string()));
        }
        // Allowing a class by a glob never lets an engine class through.
        let every = self::allow(&["*"], &[], &[]);
        let file = "org.apache.kafka.connect.file.FileStreamSinkConnector";
        assert!(judged("sink", file, &[("topics", "a")], &every).is_err());
    }

    #[test]
    fn every_topic_a_config_reaches_is_an_effect() {
        let open = allow(&["*"], &["consumer.override.group.id"], &[]);
        let sink = judged(
            "sink",
            SINK,
            &[
                ("topics", "in"),
                (DEAD_LETTER, "elsewhere"),
                ("consumer.override.group.id", "theirs"),
                ("transforms", "r"),
                ("transforms.r.type", "org.apache.kafka.connect.transforms.RegexRouter"),
            ],
            &open,
        )
        .expect("a sink may rename what it sees");
        assert_eq!(sink.reads, ["in"]);
        assert_eq!(sink.writes, [("elsewhere".to_string(), DEAD_LETTER)]);
        assert_eq!(sink.group.as_deref(), Some("theirs"));
        assert_eq!(sink.topics(), Some(vec!["elsewhere".to_string(), "in".to_string()]));

        let pattern = judged("sink", SINK, &[("topics.regex", "team-.*")], &open).expect("ok");
        assert_eq!(pattern.pattern.as_deref(), Some("team-.*"));
        assert_eq!(pattern.topics(), None);

        let source = judged(
            "source",
            SOURCE,
            &[
                ("topics", "a,b"),
                (OFFSETS_TOPIC, "own-offsets"),
                ("topic.creation.default.partitions", "1"),
            ],
            &open,
        )
        .expect("ok");
        let written: Vec<&str> = source.writes.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(written, ["a", "b", "own-offsets"]);
        assert!(source.creates_topics);
        assert_eq!(source.group, None);
    }

    #[test]
    fn references_are_found_anywhere_in_a_value() {
        assert!(holds_reference("${file:/a:b}"));
        assert!(holds_reference("jdbc:x://${vault:path:key}@h"));
        assert!(holds_reference("a ${x} then ${env:HOME}"));
        assert!(!holds_reference("${notareference}"));
        assert!(!holds_reference("plain $ { text"));
        assert!(!holds_reference("${unclosed:"));
    }
}
