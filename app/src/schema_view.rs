//! What the Subject page shows of schema texts, worked out in the browser from two `schema`
//! answers: the text pretty-printed and cut into highlighted tokens, the lines that changed
//! between two versions, and the changes a reader of the data cares about — fields of Avro and
//! JSON Schema added (with or without a default), removed, renamed through an alias or retyped;
//! Protobuf fields by message and number.

use std::collections::BTreeMap;

use serde_json::Value;

/// A schema text as shown: JSON (Avro, JSON Schema) pretty-printed with its keys in the order
/// written; Protobuf as registered.
pub fn pretty(schema_type: &str, text: &str) -> String {
    if schema_type == "PROTOBUF" {
        return text.to_string();
    }
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| text.to_string())
}

/// The kind of a highlighted piece of text; `Plain` is not highlighted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    Plain,
    Key,
    Str,
    Number,
    Keyword,
    Comment,
}

impl Token {
    /// The CSS class of the kind.
    pub fn class(self) -> &'static str {
        match self {
            Token::Plain => "",
            Token::Key => "tok-key",
            Token::Str => "tok-str",
            Token::Number => "tok-num",
            Token::Keyword => "tok-kw",
            Token::Comment => "tok-comment",
        }
    }
}

const PROTO_KEYWORDS: &[&str] = &[
    "syntax", "package", "import", "option", "message", "enum", "oneof", "map", "repeated",
    "optional", "required", "reserved", "service", "rpc", "returns", "extend", "true", "false",
];

/// Cuts a text into pieces to highlight; joined again they give the text back exactly.
pub fn highlight(schema_type: &str, text: &str) -> Vec<(Token, String)> {
    let proto = schema_type == "PROTOBUF";
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<(Token, String)> = Vec::new();
    let mut push = |token: Token, s: String| match out.last_mut() {
        Some((t, last)) if *t == token => last.push_str(&s),
        _ => out.push((token, s)),
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c == '"' || (proto && c == '\'') {
            i += 1;
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(chars.len());
            let s: String = chars[start..i].iter().collect();
            // In JSON, a string followed by a colon is a key.
            let mut j = i;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            let kind = if !proto && chars.get(j) == Some(&':') { Token::Key } else { Token::Str };
            push(kind, s);
        } else if proto && c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            push(Token::Comment, chars[start..i].iter().collect());
        } else if proto && c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i = (i + 2).min(chars.len());
            push(Token::Comment, chars[start..i].iter().collect());
        } else if c.is_ascii_digit()
            || (c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '.' | '+' | '-'))
            {
                i += 1;
            }
            push(Token::Number, chars[start..i].iter().collect());
        } else if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '.')) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let keyword = if proto {
                PROTO_KEYWORDS.contains(&word.as_str())
            } else {
                matches!(word.as_str(), "true" | "false" | "null")
            };
            push(if keyword { Token::Keyword } else { Token::Plain }, word);
        } else {
            i += 1;
            push(Token::Plain, c.to_string());
        }
    }
    out
}

/// One line of a line diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Same(String),
    Removed(String),
    Added(String),
}

/// The most cells the line diff's table may have (lines of one text × lines of the other).
const MAX_DIFF_CELLS: usize = 4_000_000;

/// The lines of `new` against those of `old`, by their longest common subsequence; `None` when
/// the texts are too long to compare line by line.
pub fn line_diff(old: &str, new: &str) -> Option<Vec<Line>> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    if (a.len() + 1).saturating_mul(b.len() + 1) > MAX_DIFF_CELLS {
        return None;
    }
    let width = b.len() + 1;
    // common[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut common = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            common[i * width + j] = if a[i] == b[j] {
                common[(i + 1) * width + j + 1] + 1
            } else {
                common[(i + 1) * width + j].max(common[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(Line::Same(a[i].to_string()));
            i += 1;
            j += 1;
        } else if j < b.len()
            && (i == a.len() || common[i * width + j + 1] >= common[(i + 1) * width + j])
        {
            out.push(Line::Added(b[j].to_string()));
            j += 1;
        } else {
            out.push(Line::Removed(a[i].to_string()));
            i += 1;
        }
    }
    Some(out)
}

/// One change between two versions, as a reader of the data sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// Where: `Record.field`, `Record.inner.field`, `/properties/a`, `Message #3`.
    pub at: String,
    pub what: String,
}

fn change(at: &str, what: impl Into<String>) -> Change {
    Change { at: at.to_string(), what: what.into() }
}

/// The changes from `old` to `new`, or why they could not be worked out.
pub fn changes(schema_type: &str, old: &str, new: &str) -> Result<Vec<Change>, String> {
    match schema_type {
        "PROTOBUF" => Ok(proto_changes(&proto_fields(old), &proto_fields(new))),
        "JSON" => {
            let (old, new) = (parse(old)?, parse(new)?);
            let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
            json_fields(&old, "", true, &mut a);
            json_fields(&new, "", true, &mut b);
            Ok(json_changes(&a, &b))
        }
        _ => {
            let (old, new) = (parse(old)?, parse(new)?);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            avro_fields(&old, &mut a, 0);
            avro_fields(&new, &mut b, 0);
            Ok(avro_changes(&a, &b))
        }
    }
}

fn parse(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| format!("the schema is not JSON: {e}"))
}

/// A field of an Avro record: where it is, its type in short, whether it has a default, and
/// the names it was known by.
#[derive(Clone, Debug)]
struct AvroField {
    record: String,
    name: String,
    kind: String,
    default: Option<Value>,
    aliases: Vec<String>,
}

/// The depth past which nested types are not walked (a schema nests far less).
const MAX_NESTING: usize = 32;

/// A type in short: `string`, `["null", "string"]`, `array<Line>`, `record Line`.
fn avro_kind(schema: &Value) -> String {
    match schema {
        Value::String(s) => s.clone(),
        Value::Array(branches) => {
            format!("[{}]", branches.iter().map(avro_kind).collect::<Vec<_>>().join(", "))
        }
        Value::Object(o) => {
            let t = o.get("type").and_then(Value::as_str).unwrap_or("?");
            let logical = o.get("logicalType").and_then(Value::as_str);
            match (t, logical) {
                (_, Some(l)) => format!("{t} ({l})"),
                ("array", _) => {
                    format!("array<{}>", o.get("items").map(avro_kind).unwrap_or_default())
                }
                ("map", _) => {
                    format!("map<{}>", o.get("values").map(avro_kind).unwrap_or_default())
                }
                ("record" | "enum" | "fixed" | "error", _) => {
                    format!("{t} {}", o.get("name").and_then(Value::as_str).unwrap_or("?"))
                }
                (t, None) => t.to_string(),
            }
        }
        _ => "?".to_string(),
    }
}

/// Every field of every record defined in `schema`, records inside records included.
fn avro_fields(schema: &Value, out: &mut Vec<AvroField>, depth: usize) {
    if depth > MAX_NESTING {
        return;
    }
    match schema {
        Value::Array(branches) => branches.iter().for_each(|b| avro_fields(b, out, depth + 1)),
        Value::Object(o) => {
            let t = o.get("type");
            match t.and_then(Value::as_str) {
                Some("record" | "error") => {
                    let record = o.get("name").and_then(Value::as_str).unwrap_or("?").to_string();
                    for field in o.get("fields").and_then(Value::as_array).into_iter().flatten() {
                        let Some(name) = field.get("name").and_then(Value::as_str) else {
                            continue;
                        };
                        let kind = field.get("type").map(avro_kind).unwrap_or_default();
                        out.push(AvroField {
                            record: record.clone(),
                            name: name.to_string(),
                            kind,
                            default: field.get("default").cloned(),
                            aliases: field
                                .get("aliases")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                                .filter_map(|a| a.as_str().map(str::to_string))
                                .collect(),
                        });
                        if let Some(inner) = field.get("type") {
                            avro_fields(inner, out, depth + 1);
                        }
                    }
                }
                Some("array") => {
                    if let Some(items) = o.get("items") {
                        avro_fields(items, out, depth + 1);
                    }
                }
                Some("map") => {
                    if let Some(values) = o.get("values") {
                        avro_fields(values, out, depth + 1);
                    }
                }
                _ => {
                    // `{"type": {"type": "record", …}}`
                    if let Some(inner @ (Value::Object(_) | Value::Array(_))) = t {
                        avro_fields(inner, out, depth + 1);
                    }
                }
            }
        }
        _ => {}
    }
}

fn avro_changes(old: &[AvroField], new: &[AvroField]) -> Vec<Change> {
    let find = |list: &[AvroField], record: &str, name: &str| {
        list.iter().position(|f| f.record == record && f.name == name)
    };
    let mut out = Vec::new();
    let mut renamed_from = Vec::new();
    for f in new {
        let at = format!("{}.{}", f.record, f.name);
        match find(old, &f.record, &f.name) {
            Some(i) => {
                let before = &old[i];
                if before.kind != f.kind {
                    out.push(change(
                        &at,
                        format!("type changed from {} to {}", before.kind, f.kind),
                    ));
                }
                match (&before.default, &f.default) {
                    (None, Some(d)) => out.push(change(&at, format!("default {d} added"))),
                    (Some(_), None) => out.push(change(&at, "default removed")),
                    (Some(a), Some(b)) if a != b => {
                        out.push(change(&at, format!("default changed from {a} to {b}")))
                    }
                    _ => {}
                }
            }
            None => {
                let alias = f.aliases.iter().find(|a| {
                    find(old, &f.record, a).is_some() && find(new, &f.record, a).is_none()
                });
                match alias {
                    Some(a) => {
                        renamed_from.push((f.record.clone(), a.clone()));
                        out.push(change(&at, format!("renamed from {a} (an alias)")));
                    }
                    None => out.push(match &f.default {
                        Some(d) => change(&at, format!("added, with default {d}")),
                        None => change(&at, "added, without a default"),
                    }),
                }
            }
        }
    }
    for f in old {
        let renamed = renamed_from.iter().any(|(r, n)| *r == f.record && *n == f.name);
        if !renamed && find(new, &f.record, &f.name).is_none() {
            out.push(change(
                &format!("{}.{}", f.record, f.name),
                format!("removed (was {})", f.kind),
            ));
        }
    }
    out
}

/// JSON Schema properties by their pointer: (type in short, required).
fn json_fields(
    schema: &Value, at: &str, required: bool, out: &mut BTreeMap<String, (String, bool)>,
) {
    if at.matches('/').count() > MAX_NESTING * 2 {
        return;
    }
    let Some(o) = schema.as_object() else {
        return;
    };
    if !at.is_empty() {
        let kind = match o.get("type") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None if o.contains_key("$ref") => format!("$ref {}", o["$ref"].as_str().unwrap_or("?")),
            None => "any".to_string(),
        };
        out.insert(at.to_string(), (kind, required));
    }
    let needed: Vec<&str> = o
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if let Some(props) = o.get("properties").and_then(Value::as_object) {
        for (name, inner) in props {
            json_fields(
                inner,
                &format!("{at}/properties/{name}"),
                needed.contains(&name.as_str()),
                out,
            );
        }
    }
    if let Some(items) = o.get("items") {
        json_fields(items, &format!("{at}/items"), true, out);
    }
}

fn json_changes(
    old: &BTreeMap<String, (String, bool)>, new: &BTreeMap<String, (String, bool)>,
) -> Vec<Change> {
    let mut out = Vec::new();
    for (at, (kind, required)) in new {
        match old.get(at) {
            None => out.push(change(
                at,
                format!("added ({kind}, {})", if *required { "required" } else { "optional" }),
            )),
            Some((was, was_required)) => {
                if was != kind {
                    out.push(change(at, format!("type changed from {was} to {kind}")));
                }
                if was_required != required {
                    out.push(change(at, if *required { "now required" } else { "now optional" }));
                }
            }
        }
    }
    for (at, (kind, _)) in old {
        if !new.contains_key(at) {
            out.push(change(at, format!("removed (was {kind})")));
        }
    }
    out
}

/// Protobuf fields by (message, number): (name, type with its label).
fn proto_fields(text: &str) -> BTreeMap<(String, i64), (String, String)> {
    // Comments and strings out, then the punctuation apart from the words.
    let mut clean = String::with_capacity(text.len());
    for (token, piece) in highlight("PROTOBUF", text) {
        match token {
            Token::Comment => clean.push(' '),
            Token::Str => clean.push_str(" \"\" "),
            _ => clean.push_str(&piece),
        }
    }
    let spaced: String = clean
        .chars()
        .flat_map(|c| match c {
            '{' | '}' | ';' | '=' | '<' | '>' | ',' | '[' | ']' | '(' | ')' => vec![' ', c, ' '],
            c => vec![c],
        })
        .collect();
    let words: Vec<&str> = spaced.split_whitespace().collect();
    // The open blocks, innermost last: a message's name, or the kind of another block.
    #[derive(PartialEq)]
    enum Block {
        Message(String),
        Oneof,
        Other,
    }
    let mut stack: Vec<Block> = Vec::new();
    let mut out = BTreeMap::new();
    let mut statement: Vec<&str> = Vec::new();
    for word in words {
        match word {
            "{" => {
                stack.push(match (statement.first(), statement.get(1)) {
                    (Some(&"message"), Some(name)) => Block::Message(name.to_string()),
                    (Some(&"oneof"), _) => Block::Oneof,
                    _ => Block::Other,
                });
                statement.clear();
            }
            "}" => {
                stack.pop();
                statement.clear();
            }
            ";" => {
                // Fields are declared right inside a message, or inside a oneof of one.
                let in_fields = match stack.last() {
                    Some(Block::Message(_)) => true,
                    Some(Block::Oneof) => {
                        matches!(stack.iter().rev().nth(1), Some(Block::Message(_)))
                    }
                    _ => false,
                };
                let message = stack
                    .iter()
                    .filter_map(|b| match b {
                        Block::Message(n) => Some(n.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join(".");
                let eq = statement.iter().position(|w| *w == "=");
                let skip =
                    matches!(statement.first(), Some(&("option" | "reserved" | "extensions")));
                if let (true, false, Some(eq)) = (in_fields, skip, eq) {
                    let number = statement.get(eq + 1).and_then(|n| n.parse::<i64>().ok());
                    if let (Some(number), Some((name, kind))) =
                        (number, statement[..eq].split_last())
                    {
                        if !kind.is_empty() {
                            let kind = kind
                                .join(" ")
                                .replace(" < ", "<")
                                .replace(" , ", ", ")
                                .replace(" >", ">");
                            out.insert((message, number), (name.to_string(), kind));
                        }
                    }
                }
                statement.clear();
            }
            w => statement.push(w),
        }
    }
    out
}

fn proto_changes(
    old: &BTreeMap<(String, i64), (String, String)>,
    new: &BTreeMap<(String, i64), (String, String)>,
) -> Vec<Change> {
    let mut out = Vec::new();
    for ((message, number), (name, kind)) in new {
        let at = format!("{message} #{number}");
        match old.get(&(message.clone(), *number)) {
            None => out.push(change(&at, format!("field {name} ({kind}) added"))),
            Some((was_name, was_kind)) => {
                if was_name != name {
                    out.push(change(&at, format!("renamed from {was_name} to {name}")));
                }
                if was_kind != kind {
                    out.push(change(&at, format!("type changed from {was_kind} to {kind}")));
                }
            }
        }
    }
    for ((message, number), (name, kind)) in old {
        if !new.contains_key(&(message.clone(), *number)) {
            out.push(change(
                &format!("{message} #{number}"),
                format!("field {name} ({kind}) removed"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(changes: &[Change]) -> Vec<String> {
        changes.iter().map(|c| format!("{}: {}", c.at, c.what)).collect()
    }

    #[test]
    fn avro_field_changes() {
        let v1 = r#"{"type":"record","name":"Pay","fields":[
            {"name":"id","type":"string"},
            {"name":"amount","type":"int"},
            {"name":"who","type":"string"},
            {"name":"gone","type":"string"},
            {"name":"line","type":{"type":"record","name":"Line","fields":[{"name":"sku","type":"string"}]}}]}"#;
        let v2 = r#"{"type":"record","name":"Pay","fields":[
            {"name":"id","type":"string"},
            {"name":"amount","type":"long"},
            {"name":"customer","type":"string","aliases":["who"]},
            {"name":"note","type":["null","string"],"default":null},
            {"name":"tag","type":"string"},
            {"name":"line","type":{"type":"record","name":"Line","fields":[{"name":"sku","type":"string"},{"name":"qty","type":"int","default":1}]}}]}"#;
        assert_eq!(
            said(&changes("AVRO", v1, v2).expect("parses")),
            [
                "Pay.amount: type changed from int to long",
                "Pay.customer: renamed from who (an alias)",
                "Pay.note: added, with default null",
                "Pay.tag: added, without a default",
                "Line.qty: added, with default 1",
                "Pay.gone: removed (was string)",
            ]
        );
        assert!(changes("AVRO", v1, v1).expect("parses").is_empty());
        assert!(changes("AVRO", "{", v1).is_err());
    }

    #[test]
    fn json_schema_property_changes() {
        let v1 = r#"{"type":"object","required":["id"],"properties":{"id":{"type":"string"},"n":{"type":"integer"},"old":{"type":"string"}}}"#;
        let v2 = r#"{"type":"object","required":["id","n"],"properties":{"id":{"type":"string"},"n":{"type":"number"},"tags":{"type":"array","items":{"type":"string"}}}}"#;
        assert_eq!(
            said(&changes("JSON", v1, v2).expect("parses")),
            [
                "/properties/n: type changed from integer to number",
                "/properties/n: now required",
                "/properties/tags: added (array, optional)",
                "/properties/tags/items: added (string, required)",
                "/properties/old: removed (was string)",
            ]
        );
    }

    #[test]
    fn protobuf_changes_by_message_and_number() {
        let v1 = r#"syntax = "proto3"; // a comment = 9;
            message User { string id = 1; string name = 2; int32 age = 3;
              enum Kind { A = 0; B = 1; }
              message Inner { bool on = 1; } }"#;
        let v2 = r#"syntax = "proto3";
            message User { string id = 1; string full_name = 2; int64 age = 3;
              oneof contact { string email = 4; string phone = 5; }
              map<string, string> labels = 6 [deprecated = true];
              enum Kind { A = 0; B = 1; C = 2; }
              message Inner { } }"#;
        assert_eq!(
            said(&changes("PROTOBUF", v1, v2).expect("parses")),
            [
                "User #2: renamed from name to full_name",
                "User #3: type changed from int32 to int64",
                "User #4: field email (string) added",
                "User #5: field phone (string) added",
                "User #6: field labels (map<string, string>) added",
                "User.Inner #1: field on (bool) removed",
            ]
        );
    }

    #[test]
    fn line_diffs_keep_every_line_once() {
        let diff = line_diff("a\nb\nc\n", "a\nc\nd\n").expect("small");
        assert_eq!(
            diff,
            [
                Line::Same("a".into()),
                Line::Removed("b".into()),
                Line::Same("c".into()),
                Line::Added("d".into()),
            ]
        );
        let big = "x\n".repeat(3000);
        assert!(line_diff(&big, &big).is_none(), "too large to compare");
    }

    #[test]
    fn highlighting_gives_the_text_back() {
        for (kind, text) in [
            ("AVRO", "{\n  \"type\": \"record\",\n  \"n\": -1.5e3, \"x\": [true, null]\n}"),
            (
                "PROTOBUF",
                "syntax = \"proto3\";\n// hi\nmessage A { /* b */ int32 x = 1; }\n\"unterminated",
            ),
        ] {
            let pieces = highlight(kind, text);
            assert_eq!(pieces.iter().map(|(_, s)| s.as_str()).collect::<String>(), text);
        }
        let json = highlight("AVRO", r#"{"type": "record"}"#);
        assert!(json.contains(&(Token::Key, "\"type\"".to_string())));
        assert!(json.contains(&(Token::Str, "\"record\"".to_string())));
        let proto = highlight("PROTOBUF", "message A {}");
        assert_eq!(proto[0], (Token::Keyword, "message".to_string()));
    }
}
