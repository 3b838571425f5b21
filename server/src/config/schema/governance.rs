//! Masking rules and the audit sinks.

use super::*;

/// The shortest `masking_key`: shorter keys make hashes that can be tried by brute force.
pub(super) const MIN_MASKING_KEY: usize = 16;

/// `masking_key:` the HMAC key of the `hash` strategy, never echoed; `audit.key` is read the
/// same way.
pub(super) fn masking_key(value: &Value<'_>) -> Result<Secret, ConfigError> {
    let key = value.secret()?;
    if key.expose().len() < MIN_MASKING_KEY {
        return Err(value.error(format!(
            "is shorter than {MIN_MASKING_KEY} bytes; give a long random key (such as 32 bytes \
             from a password generator), the same on every replica"
        )));
    }
    Ok(key)
}

/// `masking:` the rules that hide fields of records from callers without UNMASK.
pub(super) fn masking(value: &Value<'_>, has_key: bool) -> Result<Vec<MaskingRule>, ConfigError> {
    let mut rules = Vec::new();
    for item in value.list()? {
        let map = item.map()?;
        map.only(MASKING_KEYS)?;
        let topics = glob_list(
            &map.required(
                "topics",
                "list the topics whose records this rule masks, such as [\"payments-*\"]",
            )?,
            "list at least one topic pattern such as \"payments-*\"",
        )?;
        let fields_value = map.required(
            "fields",
            "list the field paths to mask, such as [card.number, customer.email]",
        )?;
        let mut fields = Vec::new();
        for field in
            fields_value.non_empty_list("list at least one field path, such as card.number")?
        {
            let text = field.text()?;
            let path: Vec<String> = text.value.split('.').map(str::to_string).collect();
            if path.iter().any(|segment| segment.trim().is_empty()) {
                return Err(field.error(format!(
                    "{} is not a field path; name fields from the top of the value, joined \
                     by dots, such as card.number",
                    text.shown()
                )));
            }
            fields.push(path);
        }
        let keys = match map.get("keys") {
            Some(value) => value.bool()?,
            None => false,
        };
        let strategy_value = map.required(
            "strategy",
            "choose how the fields are masked: redact, last4, hash or drop",
        )?;
        let text = strategy_value.text()?;
        let strategy = match text.value.as_str() {
            "redact" => MaskStrategy::Redact,
            "last4" => MaskStrategy::Last4,
            "hash" => MaskStrategy::Hash,
            "drop" => MaskStrategy::Drop,
            _ => {
                return Err(strategy_value.error(format!(
                    "unknown strategy {}; expected redact, last4, hash or drop",
                    text.shown()
                )))
            }
        };
        if strategy == MaskStrategy::Hash && !has_key {
            return Err(strategy_value.error(
                "hash needs masking_key, the HMAC key (at least 16 bytes, the same on every \
                 replica); set it, such as masking_key: ${KLENS_MASKING_KEY}",
            ));
        }
        rules.push(MaskingRule { topics, fields, keys, strategy });
    }
    Ok(rules)
}

/// A non-empty list of glob patterns, none empty and none with a control character.
pub(super) fn glob_list(value: &Value<'_>, hint: &str) -> Result<Vec<String>, ConfigError> {
    let mut patterns = Vec::new();
    for item in value.non_empty_list(hint)? {
        let text = item.text()?;
        if text.value.trim().is_empty() {
            return Err(item.error(
                "is an empty pattern, which matches nothing; write a glob such as \
                 \"payments-*\" (* any run of characters, ? one character)",
            ));
        }
        if text.value.chars().any(char::is_control) {
            return Err(item.error(format!(
                "{} holds a control character, which no resource name has",
                text.shown()
            )));
        }
        patterns.push(text.value);
    }
    Ok(patterns)
}

/// `audit:`: the file events are appended to (whose folder must exist now), the topic they
/// are sent to, or both; and whether reads are recorded.
pub(super) fn audit(
    value: &Value<'_>, base_dir: &Path, clusters: &[&str],
) -> Result<AuditConfig, ConfigError> {
    let map = value.map()?;
    map.only(AUDIT_KEYS)?;
    let file = map.get("file").map(|value| audit_file(&value, base_dir)).transpose()?;
    let topic = map.get("topic").map(|value| audit_topic(&value, clusters)).transpose()?;
    if file.is_none() && topic.is_none() {
        return Err(value.error(
            "names no sink; give file (such as /var/log/klens/audit.ndjson), topic (such as \
             { cluster: ops, name: _klens_audit }), or both",
        ));
    }
    let reads = match map.get("reads") {
        Some(value) => value.bool()?,
        None => false,
    };
    let key = map.get("key").map(|value| masking_key(&value)).transpose()?;
    Ok(AuditConfig { file, topic, reads, key })
}

/// `audit.topic`: a configured cluster and a topic name Kafka accepts.
pub(super) fn audit_topic(value: &Value<'_>, clusters: &[&str]) -> Result<AuditTopic, ConfigError> {
    let map = value.map()?;
    map.only(AUDIT_TOPIC_KEYS)?;
    let cluster_value =
        map.required("cluster", "name the configured cluster that holds the topic")?;
    let cluster = known_cluster(&cluster_value, clusters)?;
    let name_value = map.required("name", "give the topic's name, such as _klens_audit")?;
    let text = name_value.text()?;
    if let Err(e) = app::names::TopicName::check(&text.value, "name") {
        return Err(name_value.error(format!(
            "{} is not a topic name: {}",
            text.shown(),
            e.message
        )));
    }
    Ok(AuditTopic { cluster, name: text.value })
}

pub(super) fn audit_file(file_value: &Value<'_>, base_dir: &Path) -> Result<PathBuf, ConfigError> {
    let path = path_of(file_value, base_dir, "the audit file")?;
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(folder) = folder {
        if !folder.is_dir() {
            return Err(file_value.error(format!(
                "the folder {} does not exist; create it, or name a file in a folder that does",
                folder.display()
            )));
        }
    }
    if path.is_dir() {
        return Err(
            file_value.error(format!("{} is a folder; name the file inside it", path.display()))
        );
    }
    Ok(path)
}
