//! Masking: what a caller without UNMASK on a topic sees of its records. The rules of the
//! config's `masking` list name topics by glob and fields by path; [`Masking::for_topic`] gathers
//! those of one topic into a [`TopicMask`], which the record reads apply to every record they
//! answer (pages, one record, the export, the tail, MCP) and which the filter reads through, so
//! that a filter never matches on what the caller may not see.
//!
//! What must never happen here: a masked value, or bytes that hold it, leaving in any field of
//! an answer. A part a rule covers is marked masked and loses its `raw` bytes, and one that
//! cannot be read as fields (text, bytes, or a framed value that did not decode) is masked
//! whole. Headers are not fields of the value and are not masked.

use app::api::{Encoded, Encoding, Record};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::config::{MaskStrategy, MaskingRule, Secret};

/// What a redacted field, or a part masked whole, shows instead of its value.
pub const REDACTED: &str = "****";

/// The config's masking rules and the key of the `hash` strategy.
#[derive(Debug, Default)]
pub struct Masking {
    rules: Vec<MaskingRule>,
    key: Option<Secret>,
}

impl Masking {
    pub fn new(rules: Vec<MaskingRule>, key: Option<Secret>) -> Masking {
        Masking { rules, key }
    }

    /// The rules that apply to `topic`, or `None` when no rule names it.
    pub fn for_topic(&self, topic: &str) -> Option<TopicMask> {
        let rules: Vec<MaskingRule> = self
            .rules
            .iter()
            .filter(|r| r.topics.iter().any(|p| app::access::glob_matches(p, topic)))
            .cloned()
            .collect();
        if rules.is_empty() {
            return None;
        }
        Some(TopicMask { rules, key: self.key.as_ref().map(|k| k.expose().as_bytes().to_vec()) })
    }
}

/// The masking rules of one topic, ready to apply.
pub struct TopicMask {
    rules: Vec<MaskingRule>,
    /// The HMAC key, when one is configured (every rule that hashes has one).
    key: Option<Vec<u8>>,
}

impl std::fmt::Debug for TopicMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopicMask")
            .field("rules", &self.rules)
            .field("key", &self.key.as_ref().map(|_| "***"))
            .finish()
    }
}

impl TopicMask {
    /// Whether `other` hides the same fields the same way (the same rules but for the topics
    /// they name, and the same key): records copied from a topic this mask covers into one
    /// `other` covers show a caller nothing more there than they did here.
    pub fn hides_as(&self, other: &TopicMask) -> bool {
        let same = |r: &MaskingRule, s: &MaskingRule| {
            r.fields == s.fields && r.keys == s.keys && r.strategy == s.strategy
        };
        self.key == other.key
            && self.rules.iter().all(|r| other.rules.iter().any(|s| same(r, s)))
            && other.rules.iter().all(|s| self.rules.iter().any(|r| same(r, s)))
    }

    /// Whether keys are masked too: a search by a key's exact bytes would then tell a masked
    /// key from others.
    pub fn masks_keys(&self) -> bool {
        self.rules.iter().any(|r| r.keys)
    }

    /// The first field of `part` (a key when `is_key`) that a `hash` rule would replace when
    /// the record is read back, as its dotted path; `None` when there is none. One key hashes
    /// every value, so a caller who may write such a field and read its hash back could confirm
    /// a guess of any value hidden the same way. A part framed with a schema that did not
    /// decode may hold such a field: it names the rule's first.
    pub fn hashed_field(&self, part: &Encoded, is_key: bool) -> Option<String> {
        let structured = matches!(
            part.encoding,
            Encoding::Json | Encoding::Avro | Encoding::Protobuf | Encoding::JsonSchema
        );
        self.rules
            .iter()
            .filter(|r| r.strategy == MaskStrategy::Hash && (!is_key || r.keys))
            .flat_map(|r| &r.fields)
            .find(|path| part.error.is_some() || (structured && holds(&part.data, path)))
            .map(|path| path.join("."))
    }

    /// Masks a decoded record in place: its value, and its key where a rule says so. Headers
    /// are not fields of the value and stay as they are.
    pub fn apply(&self, record: &mut Record) {
        self.part(&mut record.value, false);
        self.part(&mut record.key, true);
    }

    fn part(&self, part: &mut Encoded, is_key: bool) {
        let rules: Vec<&MaskingRule> = self.rules.iter().filter(|r| !is_key || r.keys).collect();
        if rules.is_empty() || part.encoding == Encoding::Null {
            return;
        }
        let structured = matches!(
            part.encoding,
            Encoding::Json | Encoding::Avro | Encoding::Protobuf | Encoding::JsonSchema
        ) && part.error.is_none();
        // What the page shows of a part a rule covers is never the record itself: the bytes
        // hold every field as written, and a value can read otherwise than its bytes (JSON
        // with a repeated key keeps the last), so they never go, masked field found or not.
        part.raw = None;
        part.masked = true;
        if !structured {
            // Text, bytes, or a framed value that did not decode: no field can be told apart,
            // and the reason it did not decode is no business of the caller's either.
            part.encoding = Encoding::Text;
            part.data = Value::String(REDACTED.to_string());
            part.error = None;
            return;
        }
        for rule in rules {
            for path in &rule.fields {
                self.at_path(&mut part.data, path, rule.strategy);
            }
        }
    }

    /// Masks the field at `path` below `value`, in every element of the arrays on the way
    /// (repeated fields); whether anything was masked.
    fn at_path(&self, value: &mut Value, path: &[String], strategy: MaskStrategy) -> bool {
        let Some((first, rest)) = path.split_first() else {
            return false;
        };
        match value {
            Value::Array(items) => {
                // Every element, not only up to the first that had the field.
                let mut done = false;
                for item in items {
                    done |= self.at_path(item, path, strategy);
                }
                done
            }
            Value::Object(fields) => {
                let names: Vec<String> =
                    fields.keys().filter(|name| field_matches(first, name)).cloned().collect();
                let mut done = false;
                for name in names {
                    if rest.is_empty() {
                        if strategy == MaskStrategy::Drop {
                            fields.shift_remove(&name);
                        } else if let Some(found) = fields.get_mut(&name) {
                            self.replace(found, strategy);
                        }
                        done = true;
                    } else if let Some(inner) = fields.get_mut(&name) {
                        done |= self.at_path(inner, rest, strategy);
                    }
                }
                done
            }
            _ => false,
        }
    }

    /// Replaces a field's value as `strategy` says: each element of an array on its own,
    /// except an array of numbers (Avro's bytes and fixed read as one), which is one value: a
    /// byte at a time, a hash would be a table anyone could draw up.
    fn replace(&self, value: &mut Value, strategy: MaskStrategy) {
        match value {
            Value::Array(items) if !items.iter().all(Value::is_number) || items.is_empty() => {
                items.iter_mut().for_each(|v| self.replace(v, strategy))
            }
            Value::Null => {}
            other => *other = Value::String(self.masked(other, strategy)),
        }
    }

    fn masked(&self, value: &Value, strategy: MaskStrategy) -> String {
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        match strategy {
            MaskStrategy::Redact | MaskStrategy::Drop => REDACTED.to_string(),
            MaskStrategy::Last4 => last4(&text),
            MaskStrategy::Hash => match &self.key {
                Some(key) => hmac_hex(key, &text),
                // The config refuses a hash rule without a key; should one come, hide all.
                None => REDACTED.to_string(),
            },
        }
    }
}

/// Whether `value` has a field at `path` (in any element of the arrays on the way) whose value
/// masking would replace: anything but `null`.
fn holds(value: &Value, path: &[String]) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return !value.is_null();
    };
    match value {
        Value::Array(items) => items.iter().any(|item| holds(item, path)),
        Value::Object(fields) => {
            fields.iter().any(|(name, inner)| field_matches(first, name) && holds(inner, rest))
        }
        _ => false,
    }
}

/// Whether the path segment `segment` names the field `name`: exactly, or as the lowerCamelCase
/// JSON name Protobuf gives a snake_case field (`card_number` is `cardNumber`).
fn field_matches(segment: &str, name: &str) -> bool {
    segment == name || (segment.contains('_') && lower_camel(segment) == name)
}

fn lower_camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Stars for every character but the last four; every one when there are four or fewer.
fn last4(text: &str) -> String {
    let count = text.chars().count();
    if count <= 4 {
        return "*".repeat(count);
    }
    let tail: String = text.chars().skip(count - 4).collect();
    format!("{}{tail}", "*".repeat(count - 4))
}

fn hmac_hex(key: &[u8], text: &str) -> String {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        return REDACTED.to_string();
    };
    mac.update(text.as_bytes());
    mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
