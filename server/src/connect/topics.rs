//! Which topics a connector uses, as far as its config and Connect say: what the decision
//! needs to know before a scoped caller may see or change it.

use std::collections::BTreeMap;

/// The config key naming a connector's class.
pub const CONNECTOR_CLASS: &str = "connector.class";

/// The topics named by `topic` and `topics` (comma-separated), a dead-letter topic and a
/// source's own offsets topic, trimmed, without empties.
fn named(config: &BTreeMap<String, String>) -> Vec<String> {
    ["topic", "topics", super::effects::DEAD_LETTER, super::effects::OFFSETS_TOPIC]
        .iter()
        .filter_map(|k| config.get(*k))
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// The topics a connector of `kind` uses: those its config names and those Connect says it
/// has used, sorted, each once. `None` when they cannot be known: a `topics.regex`, or a
/// source whose config names none (its plugin picks them) or renames them by a transform
/// before Connect has seen it write any.
pub fn topics_of(
    kind: &str, config: &BTreeMap<String, String>, active: &[String],
) -> Option<Vec<String>> {
    if config.get("topics.regex").is_some_and(|r| !r.trim().is_empty()) {
        return None;
    }
    let named = named(config);
    let transforms = config.get("transforms").is_some_and(|t| !t.trim().is_empty());
    if kind != "sink" && active.is_empty() && (named.is_empty() || transforms) {
        return None;
    }
    let mut all: Vec<String> = named.into_iter().chain(active.iter().cloned()).collect();
    all.sort();
    all.dedup();
    Some(all)
}

/// The topics a connector config will write (a source) or read (a sink) when created or
/// updated, from the config alone; `None` when the config does not make them knowable.
pub fn targets(kind: &str, config: &BTreeMap<String, String>) -> Option<Vec<String>> {
    topics_of(kind, config, &[]).filter(|t| !t.is_empty())
}
