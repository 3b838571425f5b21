use app::api::{Encoded, Encoding, Record, TimestampType};

use super::*;
use crate::config::{MaskStrategy, MaskingRule};
use crate::masking::Masking;
use crate::records::decode::{plain, Decoder};
use crate::registry::SchemaText;

fn raw(key: &[u8], value: &[u8], headers: &[(&str, Option<&[u8]>)]) -> RawRecord {
    RawRecord {
        partition: 2,
        offset: 41,
        timestamp: Some(1_700_000_000_000),
        timestamp_type: TimestampType::CreateTime,
        key: Some(key.to_vec()),
        value: Some(value.to_vec()),
        headers: headers.iter().map(|(k, v)| (k.to_string(), v.map(<[u8]>::to_vec))).collect(),
    }
}

/// The record as a page shows it, decoded as plain bytes (no registry).
fn shown(r: &RawRecord) -> Record {
    Record {
        topic: "t".into(),
        partition: r.partition,
        offset: r.offset,
        timestamp: r.timestamp,
        timestamp_type: r.timestamp_type,
        key: plain(r.key.as_deref()),
        value: plain(r.value.as_deref()),
        headers: Vec::new(),
        size: r.size(),
    }
}

fn passes(expression: &str, r: &RawRecord) -> Result<bool, String> {
    let e = Expression::compile(expression).map_err(|f| f.sentence())?;
    let shown = shown(r);
    e.test(r, e.uses().decoded().then_some(&shown))
}

fn order() -> RawRecord {
    raw(
        b"order-17",
        br#"{"id":17,"qty":7,"price":12.5,"big":18446744073709551615,"customer":{"tier":"gold"},"items":[{"sku":"a","n":2},{"sku":"b","n":9}]}"#,
        &[("trace", Some(b"abc")), ("bin", Some(&[0xff, 0x00])), ("none", None)],
    )
}

#[test]
fn integers_compare_as_integers() {
    let r = order();
    assert_eq!(passes("value.qty > 5", &r), Ok(true));
    assert_eq!(passes("value.qty > 7", &r), Ok(false));
    assert_eq!(passes("value.qty == 7", &r), Ok(true));
    assert_eq!(passes("value.price > 12.0", &r), Ok(true));
    assert_eq!(passes("value.big == 18446744073709551615u", &r), Ok(true));
    assert_eq!(passes("offset == 41 && partition == 2", &r), Ok(true));
    assert_eq!(passes("timestamp >= 1700000000000", &r), Ok(true));
    assert_eq!(passes("size > 100", &r), Ok(true));
}

#[test]
fn json_values_are_maps_and_text_is_text() {
    let r = order();
    assert_eq!(passes("value.customer.tier == 'gold'", &r), Ok(true));
    assert_eq!(passes("value.items.exists(i, i.n > 8 && i.sku == 'b')", &r), Ok(true));
    assert_eq!(passes("value.items.all(i, i.n > 8)", &r), Ok(false));
    assert_eq!(passes("size(value.items.filter(i, i.n > 1)) == 2", &r), Ok(true));
    assert_eq!(passes("has(value.customer) && !has(value.missing)", &r), Ok(true));
    assert_eq!(passes("key == 'order-17' && keyText.startsWith('order-')", &r), Ok(true));
    assert_eq!(passes(r#"valueText.contains('"tier":"gold"')"#, &r), Ok(true));
    assert_eq!(passes("headers.trace == 'abc' && headers['none'] == null", &r), Ok(true));
    assert_eq!(passes("headers.bin == '/wA='", &r), Ok(true), "non-UTF-8 header as base64");
    assert_eq!(passes("type(value) == map && type(key) == string", &r), Ok(true));
    assert_eq!(passes("schemaId == null", &r), Ok(true));
    // A missing field is an error of that record, not a match.
    assert!(passes("value.nothing == 1", &r).is_err());
    assert!(passes("value.qty", &r).expect_err("an int").contains("bool"));
}

#[test]
fn avro_protobuf_and_json_schema_values_are_maps() {
    let decoded = |kind: &str, schema: &str, payload: &[u8], id: u32| {
        let text =
            SchemaText { schema: schema.into(), schema_type: kind.into(), references: Vec::new() };
        let (encoding, data) =
            Decoder::new(&text).expect("schema").decode(payload).expect("decodes");
        Encoded { encoding, data, schema_id: Some(id), raw: None, error: None, masked: false }
    };
    let avro = decoded(
        "AVRO",
        r#"{"type":"record","name":"P","fields":[{"name":"id","type":"long"},{"name":"note","type":["null","string"]}]}"#,
        &[6, 2, 4, b'h', b'i'],
        5,
    );
    let proto = decoded(
        "PROTOBUF",
        "syntax = \"proto3\";\nmessage A { string name = 1; int64 n = 2; }\n",
        &[0, 0x0a, 2, b'o', b'k', 0x10, 9],
        6,
    );
    let schema = decoded(
        "JSON",
        r#"{"type":"object","properties":{"qty":{"type":"integer"}}}"#,
        br#"{"qty": 3}"#,
        7,
    );
    for (value, expression, kind) in [
        (avro, "value.id == 3 && value.note == 'hi' && schemaId == 5", Encoding::Avro),
        // Protobuf's JSON mapping writes 64-bit integers as strings, as the page shows them.
        (
            proto,
            "value.name == 'ok' && value.n == '9' && int(value.n) > 8 && schemaId == 6",
            Encoding::Protobuf,
        ),
        (schema, "value.qty == 3 && schemaId == 7", Encoding::JsonSchema),
    ] {
        assert_eq!(value.encoding, kind);
        let r = raw(b"k", b"framed", &[]);
        let mut record = shown(&r);
        record.value = value;
        let e = Expression::compile(expression).expect("compiles");
        assert_eq!(e.test(&r, Some(&record)), Ok(true), "{expression}");
        // valueText of a decoded value is the JSON shown, not the framed bytes.
        let e = Expression::compile("valueText.startsWith('{')").expect("compiles");
        assert_eq!(e.test(&r, Some(&record)), Ok(true), "{expression}");
    }
}

#[test]
fn a_masked_record_is_seen_masked() {
    let masking = Masking::new(
        vec![MaskingRule {
            topics: vec!["t".into()],
            fields: vec![vec!["customer".into(), "tier".into()]],
            keys: false,
            strategy: MaskStrategy::Redact,
        }],
        None,
    );
    let mask = masking.for_topic("t").expect("a rule names t");
    let r = order();
    let mut record = shown(&r);
    mask.apply(&mut record);
    for expression in [
        "value.customer.tier == 'gold'",
        "valueText.contains('gold')",
        "value.customer.tier != '****'",
    ] {
        let e = Expression::compile(expression).expect("compiles");
        assert_eq!(e.test(&r, Some(&record)), Ok(false), "{expression}");
    }
    let e = Expression::compile("value.qty == 7 && value.customer.tier == '****'").expect("ok");
    assert_eq!(e.test(&r, Some(&record)), Ok(true));
}

#[test]
fn faults_say_where() {
    let fault = |s: &str| Expression::compile(s).expect_err(s);
    let f = fault("value.qty >");
    assert_eq!(f.line, 1);
    assert!(f.column >= 11, "{f:?}");
    assert!(f.message.contains("ends early") && !f.message.contains("expecting {"), "{f:?}");
    let f = fault("value.qty > 1 && vlaue.n == 2");
    assert_eq!((f.line, f.column), (1, 18), "{f:?}");
    assert!(f.message.contains("vlaue"), "{f:?}");
    let f = fault("value.items.map(i, i.n).size() > 1");
    assert!(f.message.contains("map"), "{f:?}");
    let f = fault("value.a.exists(x, value.b.exists(y, x == y))");
    assert!(f.message.contains("inside another"), "{f:?}");
    assert_eq!(f.column, 27, "the name of the inner call: {f:?}");
    let f = fault("true &&\n  nothing");
    assert_eq!((f.line, f.column), (2, 3), "{f:?}");
    assert!(f.sentence().starts_with("Line 2, column 3: "));
    assert!(fault("").message.contains("empty"));
    assert!(fault(&"x".repeat(MAX_EXPRESSION + 1)).message.contains("at most"));
    // A comprehension over another's answer is not nested, and its names are its own.
    assert!(Expression::compile("value.a.filter(x, x > 1).exists(y, y == 2)").is_ok());
    assert!(Expression::compile("value.a.exists(x, x > 1) && x == 1").is_err());
    assert!(Expression::compile("a.b").is_err());
}

#[test]
fn deep_expressions_are_refused_not_overflowed() {
    // Brackets are counted before the parser sees them, strings and comments aside.
    let deep = format!("{}1{}", "(".repeat(2000), ")".repeat(2000));
    let f = Expression::compile(&deep).expect_err("too deep");
    assert_eq!(f.column, MAX_NESTING + 1, "{f:?}");
    assert!(Expression::compile(&format!("'{}' == valueText", "(".repeat(100))).is_ok());
    assert!(Expression::compile(&format!("// {}\ntrue", "[".repeat(100))).is_ok());
    assert!(Expression::compile(&format!("r'\\' == '{}'", "(".repeat(40))).is_ok());
    let f =
        Expression::compile(&format!("\"\"\"{}\"\"\" == '' || {}", "(".repeat(40), "(".repeat(40)))
            .expect_err("the second run is code");
    assert!(f.message.contains("brackets"), "{f:?}");
    // Every shape that nests without brackets, as long as the limit allows: refused cleanly.
    let long = |unit: &str, tail: &str| {
        let mut s = unit.repeat((MAX_EXPRESSION - tail.len()) / unit.len());
        s.push_str(tail);
        s
    };
    for source in [
        long("1+", "1 == 1"),
        long("1*", "1 == 1"),
        long("a.", "b"),
        long("!", "true"),
        long("-", "1 == 1"),
        long("true && ", "true"),
        long("true || ", "true"),
        long("1 < ", "1"),
        long("true ? true : ", "true"),
        long("[1,", "1]"),
        long("value.x[0]", " == 1"),
        format!("{}{}", "size(".repeat(30), ")".repeat(30)),
    ] {
        let outcome = Expression::compile(&source);
        // Either refused with a reason, or small enough to run on any thread.
        if let Ok(e) = &outcome {
            let r = order();
            let _ = e.test(&r, Some(&shown(&r)));
        }
    }
    assert!(Expression::compile(&long("1+", "1 == 1")).is_err(), "deeper than MAX_DEPTH");
    let names = vec!["offset > 0"; MAX_REFERENCES + 1].join(" && ");
    assert!(Expression::compile(&names).expect_err("many names").message.contains("at most"));
}

#[test]
fn only_what_an_expression_reaches_is_made_into_values_and_answers_stay_the_same() {
    let e = Expression::compile("value.a.b == 1 && value.a.c == 2 && key.x == 1").expect("ok");
    let reach = |paths: &[&[&str]]| {
        let mut r = Reach::default();
        for p in paths {
            r.add(p);
        }
        r
    };
    assert_eq!(e.value, reach(&[&["a", "b"], &["a", "c"]]));
    assert_eq!(e.key, reach(&[&["x"]]));
    let bare = Expression::compile("value.a.b == 1 && size(value) > 0").expect("ok");
    assert!(bare.value.whole, "a bare value is reached whole");
    // The end of a chain is whole below it: sizes, equality and has() see every field there.
    let r = order();
    for (expression, want) in [
        ("size(value.customer) == 1", true),
        ("size(value.items) == 2 && value.items[1].n == 9", true),
        ("has(value.customer.tier) && !has(value.customer.zzz)", true),
        ("value.customer == {'tier': 'gold'}", true),
        ("value.customer.tier == 'gold' && size(value) == 6", true),
        ("value.items.exists(i, i.sku == 'b')", true),
    ] {
        assert_eq!(passes(expression, &r), Ok(want), "{expression}");
    }
    // A comprehension's own name is not the record's value.
    assert_eq!(passes("value.items.exists(value, value.n == 9)", &r), Ok(true));
}

#[test]
fn json_is_read_only_as_far_as_the_expression_reaches() {
    let e = Expression::compile("value.a.b == 1 && size(value.list) == 2").expect("ok");
    let text = r#"{"a": {"b": 1, "c": {"deep": [1, 2]}}, "list": [{"x": 1}, 2], "big": 18446744073709551615, "z": "skipped"}"#;
    let read = reached_json(text, e.value_reach()).expect("JSON");
    assert_eq!(read, serde_json::json!({"a": {"b": 1}, "list": [{"x": 1}, 2]}));
    let whole = Expression::compile("value == null").expect("ok");
    let all: serde_json::Value = serde_json::from_str(text).expect("JSON");
    assert_eq!(reached_json(text, whole.value_reach()), Some(all));
    assert_eq!(reached_json("{\"a\": 1} trailing", e.value_reach()), None);
    assert_eq!(reached_json("{\"a\": ", e.value_reach()), None);
    assert_eq!(
        reached_json("[1, {\"a\": 2}]", e.value_reach()),
        Some(serde_json::json!([1, {"a": 2}]))
    );
}
