//! The tables klens declares in a processor's Flink session, one per topic: a JSON value as
//! typed columns (inferred from a sample of the topic's records, see [`infer`]), any other
//! value as its bytes, and the record's key, partition, offset, timestamp and headers as
//! `kafka_*` columns (named apart from a value's own fields).

use std::collections::BTreeMap;

use serde_json::Value;

/// A column type of Flink SQL that a JSON value maps to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Boolean,
    Bigint,
    Double,
    String,
    /// An array of one element type.
    Array(Box<Type>),
    /// An object, its fields in the order first seen.
    Row(Vec<(String, Type)>),
    /// Only `null` seen so far.
    Unknown,
}

/// How deep an inferred type may nest; deeper values are a STRING column.
pub const MAX_DEPTH: usize = 6;
/// The most fields one inferred row keeps; a value's further fields are not columns.
pub const MAX_FIELDS: usize = 200;

impl Type {
    /// The type in Flink's SQL, an unknown one as STRING.
    pub fn sql(&self) -> String {
        match self {
            Type::Boolean => "BOOLEAN".into(),
            Type::Bigint => "BIGINT".into(),
            Type::Double => "DOUBLE".into(),
            Type::String | Type::Unknown => "STRING".into(),
            Type::Array(of) => format!("ARRAY<{}>", of.sql()),
            Type::Row(fields) => {
                let fields: Vec<String> =
                    fields.iter().map(|(n, t)| format!("{} {}", quote(n), t.sql())).collect();
                format!("ROW<{}>", fields.join(", "))
            }
        }
    }

    fn of(value: &Value, depth: usize) -> Type {
        if depth >= MAX_DEPTH {
            return if value.is_null() { Type::Unknown } else { Type::String };
        }
        match value {
            Value::Null => Type::Unknown,
            Value::Bool(_) => Type::Boolean,
            Value::Number(n) if n.is_i64() => Type::Bigint,
            Value::Number(_) => Type::Double,
            Value::String(_) => Type::String,
            Value::Array(items) => Type::Array(Box::new(
                items.iter().fold(Type::Unknown, |t, v| t.merge(Type::of(v, depth + 1))),
            )),
            Value::Object(map) => Type::Row(
                map.iter()
                    .filter(|(k, _)| is_field_name(k))
                    .take(MAX_FIELDS)
                    .map(|(k, v)| (k.clone(), Type::of(v, depth + 1)))
                    .collect(),
            ),
        }
    }

    /// The type that holds values of both: numbers widen to DOUBLE, rows take the fields of
    /// both, anything else that differs is a STRING column (Flink's JSON reader gives a
    /// field's text for it).
    fn merge(self, other: Type) -> Type {
        match (self, other) {
            (Type::Unknown, t) | (t, Type::Unknown) => t,
            (a, b) if a == b => a,
            (Type::Bigint, Type::Double) | (Type::Double, Type::Bigint) => Type::Double,
            (Type::Array(a), Type::Array(b)) => Type::Array(Box::new(a.merge(*b))),
            (Type::Row(mut a), Type::Row(b)) => {
                for (name, t) in b {
                    if let Some((_, have)) = a.iter_mut().find(|(n, _)| *n == name) {
                        *have = std::mem::replace(have, Type::Unknown).merge(t);
                    } else if a.len() < MAX_FIELDS {
                        a.push((name, t));
                    }
                }
                Type::Row(a)
            }
            _ => Type::String,
        }
    }
}

/// Whether a JSON field may be a column: a name Flink takes (not empty, at most 128
/// characters, no control character). A record a producer wrote with another field still reads;
/// the field is simply no column.
fn is_field_name(name: &str) -> bool {
    !name.is_empty() && name.chars().count() <= 128 && !name.chars().any(char::is_control)
}

/// The columns of a topic whose sampled values are all JSON objects, `None` when there is no
/// sample or one is not an object (the topic is then read as bytes).
pub fn infer<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> Option<Vec<(String, Type)>> {
    let mut row = Type::Unknown;
    let mut any = false;
    for bytes in values {
        let value: Value = serde_json::from_slice(bytes).ok()?;
        if !value.is_object() {
            return None;
        }
        any = true;
        row = row.merge(Type::of(&value, 0));
    }
    match row {
        Type::Row(fields) if any => {
            Some(fields.into_iter().filter(|(name, _)| !name.starts_with("kafka_")).collect())
        }
        _ => None,
    }
}

/// `name` as a Flink identifier: in backticks, a backtick doubled.
pub fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `text` as a Flink string literal: in single quotes, a quote doubled.
pub fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Where a table's reading starts, and whether it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// A processor: from its group's committed offsets, else the earliest; without end.
    Group(String),
    /// A preview: the newest records, from these offsets per partition to the end offsets of
    /// the moment it started.
    Newest(Vec<(i32, i64)>),
}

/// The columns every table has besides the value's: the record's key, its place and its time,
/// each with its type and where Flink takes it from (the key, or the record's metadata).
const RECORD_COLUMNS: [(&str, &str, &str); 5] = [
    ("kafka_key", "BYTES", ""),
    ("kafka_partition", "INT", " METADATA FROM 'partition' VIRTUAL"),
    ("kafka_offset", "BIGINT", " METADATA FROM 'offset' VIRTUAL"),
    ("kafka_timestamp", "TIMESTAMP_LTZ(3)", " METADATA FROM 'timestamp' VIRTUAL"),
    ("kafka_headers", "MAP<STRING, BYTES>", " METADATA FROM 'headers' VIRTUAL"),
];

/// A value's columns as a table declares them, each with its SQL type: the fields [`infer`]
/// found (JSON values), or else the value as one BYTES column `kafka_value`. What a processor's
/// definition keeps of each input, so that a restart declares what its author confirmed.
pub fn value_columns(inferred: Option<Vec<(String, Type)>>) -> Vec<(String, String)> {
    match inferred {
        Some(fields) if !fields.is_empty() => {
            fields.into_iter().map(|(n, t)| (n, t.sql())).collect()
        }
        _ => vec![(RAW_VALUE.0.to_string(), RAW_VALUE.1.to_string())],
    }
}

/// The one column of a value read as bytes.
const RAW_VALUE: (&str, &str) = ("kafka_value", "BYTES");

/// The columns of a topic's table as [`input_table`] declares them: the value's, then the
/// record's own.
pub fn input_columns(value: &[(String, String)]) -> Vec<(String, String)> {
    let record = RECORD_COLUMNS.iter().map(|(n, t, _)| (n.to_string(), t.to_string()));
    value.iter().cloned().chain(record).collect()
}

/// `CREATE TEMPORARY TABLE` for a topic read by a processor, its value's columns from
/// [`value_columns`]: a JSON value's fields, or its bytes. A column type (kept in a definition)
/// is checked by [`column_type`] before it goes into the statement.
pub fn input_table(
    topic: &str, value: &[(String, String)], properties: &BTreeMap<String, String>,
    reading: &Reading,
) -> Result<String, String> {
    let raw = matches!(value, [(n, t)] if (n.as_str(), t.as_str()) == RAW_VALUE);
    let format = if raw || value.is_empty() {
        "'value.format' = 'raw'"
    } else {
        "'value.format' = 'json', 'value.json.ignore-parse-errors' = 'true'"
    };
    let value_columns = if value.is_empty() {
        vec![format!("{} {}", quote(RAW_VALUE.0), RAW_VALUE.1)]
    } else {
        value
            .iter()
            .map(|(n, t)| Ok(format!("{} {}", quote(n), column_type(t)?)))
            .collect::<Result<Vec<_>, String>>()?
    };
    let mut options = vec![
        "'connector' = 'kafka'".to_string(),
        format!("'topic' = {}", literal(topic)),
        "'key.format' = 'raw'".to_string(),
        "'key.fields' = 'kafka_key'".to_string(),
        "'value.fields-include' = 'EXCEPT_KEY'".to_string(),
        format.to_string(),
    ];
    match reading {
        Reading::Group(group) => {
            options.push(format!("'properties.group.id' = {}", literal(group)));
            options.push("'scan.startup.mode' = 'group-offsets'".into());
            options.push("'properties.auto.offset.reset' = 'earliest'".into());
        }
        Reading::Newest(starts) => {
            let offsets: Vec<String> =
                starts.iter().map(|(p, o)| format!("partition:{p},offset:{o}")).collect();
            options.push("'scan.startup.mode' = 'specific-offsets'".into());
            options
                .push(format!("'scan.startup.specific-offsets' = {}", literal(&offsets.join(";"))));
            options.push("'scan.bounded.mode' = 'latest-offset'".into());
        }
    }
    options.extend(connection(properties));
    let record = RECORD_COLUMNS.iter().map(|(n, t, from)| format!("{} {t}{from}", quote(n)));
    Ok(format!(
        "CREATE TEMPORARY TABLE {} ({}) WITH ({})",
        quote(topic),
        value_columns.into_iter().chain(record).collect::<Vec<_>>().join(", "),
        options.join(", ")
    ))
}

/// `CREATE TEMPORARY TABLE` for the topic a processor writes: its rows as JSON objects of
/// `columns` (Flink's own names and types for the query's columns); a `kafka_key` column of
/// the query becomes each record's key.
pub fn output_table(
    topic: &str, columns: &[(String, String)], properties: &BTreeMap<String, String>,
) -> String {
    let defined: Vec<String> = columns.iter().map(|(n, t)| format!("{} {t}", quote(n))).collect();
    let mut options = vec![
        "'connector' = 'kafka'".to_string(),
        format!("'topic' = {}", literal(topic)),
        "'value.format' = 'json'".to_string(),
        "'sink.delivery-guarantee' = 'at-least-once'".to_string(),
    ];
    if columns.iter().any(|(n, _)| n == "kafka_key") {
        options.push("'key.format' = 'raw'".into());
        options.push("'key.fields' = 'kafka_key'".into());
        options.push("'value.fields-include' = 'EXCEPT_KEY'".into());
    }
    options.extend(connection(properties));
    format!(
        "CREATE TEMPORARY TABLE {} ({}) WITH ({})",
        quote(topic),
        defined.join(", "),
        options.join(", ")
    )
}

/// A column type as Flink's `DESCRIBE` prints it, made fit to declare again: its time
/// attribute marks (`*PROCTIME*`, `*ROWTIME*`) dropped, and refused unless it is words, digits,
/// `<>(),` and spaces, with names in backticks (doubled inside): nothing a type could use to end
/// the column list of the statement it goes into.
pub fn column_type(printed: &str) -> Result<String, String> {
    let text = printed.replace(" *PROCTIME*", "").replace(" *ROWTIME*", "");
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '`' {
            loop {
                match chars.next() {
                    Some('`') if chars.peek() == Some(&'`') => {
                        chars.next();
                    }
                    Some('`') => break,
                    Some(_) => {}
                    None => return Err(format!("the column type {printed:?} is not closed")),
                }
            }
        } else if !(c.is_ascii_alphanumeric() || "_<>(), ".contains(c)) {
            return Err(format!("klens cannot declare a column of type {printed:?}"));
        }
    }
    Ok(text)
}

/// The Kafka client properties of `clusters[].flink.properties`, as table options.
fn connection(properties: &BTreeMap<String, String>) -> Vec<String> {
    properties
        .iter()
        .map(|(k, v)| format!("{} = {}", literal(&format!("properties.{k}")), literal(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer_of(values: &[&str]) -> Option<Vec<(String, Type)>> {
        infer(values.iter().map(|v| v.as_bytes()))
    }

    /// The editor's columns are the table's: each, with its type, in the order the DDL
    /// declares them, for a JSON topic and a topic of bytes.
    #[test]
    fn the_editor_shows_the_columns_the_table_declares() {
        let json = value_columns(infer_of(&[r#"{"id": "a", "total": 10}"#]));
        for value in [json, value_columns(None)] {
            let ddl = input_table("t", &value, &BTreeMap::new(), &Reading::Group("g".into()))
                .expect("declared");
            let mut from = 0;
            for (name, sql_type) in input_columns(&value) {
                let declared = format!("{} {sql_type}", quote(&name));
                let at = ddl[from..].find(&declared).unwrap_or_else(|| {
                    panic!("{declared} is not declared after byte {from} of {ddl}")
                });
                from += at + declared.len();
            }
        }
        assert_eq!(value_columns(None), [("kafka_value".to_string(), "BYTES".to_string())]);
    }

    /// A definition's kept column types go into the statement only as types: one that would
    /// end the column list is refused.
    #[test]
    fn a_kept_column_type_cannot_end_the_column_list() {
        let kept = vec![("a".to_string(), "BIGINT) WITH ('topic' = 'x'".to_string())];
        assert!(input_table("t", &kept, &BTreeMap::new(), &Reading::Group("g".into())).is_err());
        let kept = vec![("a".to_string(), "ROW<`b` STRING>".to_string())];
        assert!(input_table("t", &kept, &BTreeMap::new(), &Reading::Group("g".into())).is_ok());
    }

    #[test]
    fn json_objects_become_typed_columns() {
        let columns = infer_of(&[
            r#"{"id": "a", "total": 10, "items": [{"sku": "x", "qty": 1}], "ship": {"city": "Lyon"}, "note": null}"#,
            r#"{"id": "b", "total": 12.5, "items": [], "ship": {"city": "Pau", "express": true}, "extra": false}"#,
        ])
        .expect("objects");
        let sql: Vec<String> = columns.iter().map(|(n, t)| format!("{n} {}", t.sql())).collect();
        assert_eq!(
            sql,
            [
                "id STRING",
                "total DOUBLE",
                "items ARRAY<ROW<`sku` STRING, `qty` BIGINT>>",
                "ship ROW<`city` STRING, `express` BOOLEAN>",
                "note STRING",
                "extra BOOLEAN",
            ]
        );
    }

    #[test]
    fn values_that_disagree_are_text_and_non_objects_are_bytes() {
        let columns =
            infer_of(&[r#"{"a": 1, "b": "x"}"#, r#"{"a": "one", "b": [1]}"#]).expect("objects");
        assert_eq!(columns, [("a".into(), Type::String), ("b".into(), Type::String)]);
        assert_eq!(infer_of(&[r#"{"a": 1}"#, "[1, 2]"]), None);
        assert_eq!(infer_of(&[r#"{"a": 1}"#, "not json"]), None);
        assert_eq!(infer_of(&[]), None);
        // Field names Flink would refuse are no columns.
        let long = "f".repeat(200);
        let odd = format!(r#"{{"": 1, "{long}": 2, "a\nb": 3, "ok": 4}}"#);
        assert_eq!(infer_of(&[&odd]).expect("object"), [("ok".to_string(), Type::Bigint)]);
        // The record's own columns keep their names.
        assert_eq!(infer_of(&[r#"{"kafka_key": 1, "k": 2}"#]).expect("object").len(), 1);
    }

    #[test]
    fn deep_and_wide_values_are_bounded() {
        let deep = format!("{}1{}", r#"{"a":"#.repeat(20), "}".repeat(20));
        let columns = infer_of(&[&deep]).expect("object");
        assert!(columns[0].1.sql().matches("ROW<").count() < MAX_DEPTH);
        let wide: Vec<String> = (0..500).map(|i| format!("\"f{i}\": {i}")).collect();
        let wide = format!("{{{}}}", wide.join(", "));
        assert_eq!(infer_of(&[&wide]).expect("object").len(), MAX_FIELDS);
    }

    #[test]
    fn printed_types_are_declared_again_only_when_plain() {
        for (printed, declared) in [
            ("BIGINT NOT NULL", "BIGINT NOT NULL"),
            ("TIMESTAMP_LTZ(3) *PROCTIME*", "TIMESTAMP_LTZ(3)"),
            (
                "ROW<`city` STRING, `a``b` DECIMAL(10, 2)>",
                "ROW<`city` STRING, `a``b` DECIMAL(10, 2)>",
            ),
            ("MAP<STRING, BYTES>", "MAP<STRING, BYTES>"),
        ] {
            assert_eq!(column_type(printed).as_deref(), Ok(declared), "{printed}");
        }
        for bad in
            ["STRING) WITH ('connector' = 'x'", "ROW<`open STRING>", "INT; DROP", "STRING -- x"]
        {
            assert!(column_type(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_and_texts_are_quoted() {
        assert_eq!(quote("a`b"), "`a``b`");
        assert_eq!(literal("it's"), "'it''s'");
        let properties: BTreeMap<String, String> =
            [("bootstrap.servers".to_string(), "k:9092".to_string())].into();
        let ddl = input_table(
            "or'ders",
            &value_columns(None),
            &properties,
            &Reading::Newest(vec![(0, 5), (1, 0)]),
        )
        .expect("declared");
        assert!(
            ddl.starts_with(
                "CREATE TEMPORARY TABLE `or'ders` (`kafka_value` BYTES, `kafka_key` BYTES"
            ),
            "{ddl}"
        );
        assert!(ddl.contains("'topic' = 'or''ders'"), "{ddl}");
        assert!(
            ddl.contains(
                "'scan.startup.specific-offsets' = 'partition:0,offset:5;partition:1,offset:0'"
            ),
            "{ddl}"
        );
        assert!(ddl.contains("'properties.bootstrap.servers' = 'k:9092'"), "{ddl}");
        let out = output_table(
            "out",
            &[("kafka_key".into(), "BYTES".into()), ("n".into(), "BIGINT".into())],
            &properties,
        );
        assert!(out.contains("'key.fields' = 'kafka_key'"), "{out}");
    }
}
