use super::*;
use serde_json::json;

fn text(kind: &str, schema: &str) -> SchemaText {
    SchemaText { schema: schema.to_string(), schema_type: kind.to_string(), references: Vec::new() }
}

fn path_of(result: Result<Vec<u8>, Unfit>) -> String {
    match result {
        Err(Unfit::Value { path, .. }) => path,
        other => panic!("expected a refused value, got {other:?}"),
    }
}

const ORDER: &str = r#"{"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "note", "type": ["null", "string"], "default": null},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
        "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID"]}},
    {"name": "next", "type": ["null", "Order"], "default": null}]}"#;

/// What klens writes decodes back, through klens's own decoder and `apache-avro`'s, to
/// the value given (defaults filled in).
#[test]
fn avro_values_round_trip_and_defaults_fill_in() {
    let schema = text("AVRO", ORDER);
    let value = json!({"id": 7, "lines": [{"sku": "a/b", "qty": 2}], "status": "PAID",
        "next": {"id": 8, "note": {"string": "wrapped"}, "lines": [], "status": "NEW"}});
    let bytes = encode(&schema, 42, None, &value).expect("encodes");
    assert_eq!(&bytes[..5], &[0, 0, 0, 0, 42]);
    let parsed = Schema::parse_str(ORDER).expect("schema");
    let mut reader = &bytes[5..];
    let back = apache_avro::from_avro_datum(&parsed, &mut reader, None).expect("decodes");
    assert!(reader.is_empty());
    let back = Value::try_from(back).expect("json");
    assert_eq!(
        back,
        json!({"id": 7, "note": null, "lines": [{"sku": "a/b", "qty": 2}], "status": "PAID",
            "next": {"id": 8, "note": "wrapped", "lines": [], "status": "NEW", "next": null}})
    );
}

#[test]
fn avro_refusals_name_the_first_bad_field() {
    let schema = text("AVRO", ORDER);
    for (value, path) in [
        (json!({"id": "7", "lines": [], "status": "NEW"}), "/id"),
        (
            json!({"id": 1, "lines": [{"sku": "x", "qty": 1}, {"sku": "y", "qty": 1.5}], "status": "NEW"}),
            "/lines/1/qty",
        ),
        (json!({"id": 1, "lines": [], "status": "GONE"}), "/status"),
        (json!({"id": 1, "lines": []}), "/status"),
        (json!({"id": 1, "lines": [], "status": "NEW", "colour": "red"}), "/colour"),
        (
            json!({"id": 1, "lines": [], "status": "NEW", "next": {"id": 2, "lines": [], "status": 3}}),
            "/next/status",
        ),
        (json!({"id": 1, "lines": [], "status": "NEW", "note": 5}), "/note"),
        (json!([1]), ""),
    ] {
        assert_eq!(path_of(encode(&schema, 1, None, &value)), path, "{value}");
    }
    let huge = json!({"id": 2147483648_i64});
    assert_eq!(
        path_of(encode(
            &text("AVRO", r#"{"type":"record","name":"R","fields":[{"name":"id","type":"int"}]}"#),
            1,
            None,
            &huge
        )),
        "/id"
    );
}

#[test]
fn avro_bytes_take_both_json_forms() {
    let schema = text("AVRO", r#""bytes""#);
    let a = encode(&schema, 1, None, &json!([0, 255, 65])).expect("array");
    let b = encode(&schema, 1, None, &json!("\u{0}\u{ff}A")).expect("string");
    assert_eq!(a, b);
    assert_eq!(&a[5..], &[6, 0, 255, 65]);
    assert_eq!(path_of(encode(&schema, 1, None, &json!([256]))), "/0");
}

const PROTO: &str = r#"syntax = "proto3"; package shop;
    message Order { int64 id = 1; repeated Line lines = 2;
        message Line { string sku = 1; int32 qty = 2; } }
    message Other { string name = 1; }"#;

#[test]
fn protobuf_values_encode_with_their_message_indexes() {
    let schema = text("PROTOBUF", PROTO);
    let value = json!({"id": "9", "lines": [{"sku": "x", "qty": 3}]});
    let bytes = encode(&schema, 5, None, &value).expect("encodes");
    assert_eq!(&bytes[..6], &[0, 0, 0, 0, 5, 0], "first message: one 0");
    let other = encode(&schema, 5, Some("shop.Other"), &json!({"name": "n"})).expect("other");
    assert_eq!(&other[5..8], &[2, 2, b'\n'], "indexes [1], then field 1");
    let line = encode(&schema, 5, Some("shop.Order.Line"), &json!({"sku": "s"})).expect("nested");
    assert_eq!(&line[5..8], &[4, 0, 0], "indexes [0, 0]");
    // Decoding with klens's own decoder gives the value back.
    let decoder = Decoder::new(&schema).expect("compiles");
    let Decoder::Protobuf { pool, .. } = decoder else { panic!("protobuf") };
    let order = pool.get_message_by_name("shop.Order").expect("Order");
    let message = DynamicMessage::decode(order, &bytes[6..]).expect("decodes");
    assert_eq!(serde_json::to_value(&message).expect("json"), value);
    assert_eq!(
        path_of(encode(
            &schema,
            5,
            None,
            &json!({"id": 1, "lines": [{"sku": "x", "qty": "many"}]})
        )),
        "/lines/0/qty"
    );
    assert!(matches!(encode(&schema, 5, Some("shop.Missing"), &json!({})), Err(Unfit::Schema(_))));
}

#[test]
fn json_schema_values_are_checked_and_written_as_json() {
    let mut schema = text(
        "JSON",
        r#"{"type": "object", "properties": {"id": {"type": "integer"},
            "tags": {"type": "array", "items": {"$ref": "tag.json"}}}, "required": ["id"]}"#,
    );
    schema.references =
        vec![("tag.json".to_string(), r#"{"type": "string", "pattern": "^[a-z]+$"}"#.to_string())];
    let bytes = encode(&schema, 3, None, &json!({"id": 1, "tags": ["a"]})).expect("fits");
    assert_eq!(&bytes[5..], br#"{"id":1,"tags":["a"]}"#);
    assert_eq!(
        path_of(encode(&schema, 3, None, &json!({"id": 1, "tags": ["ok", "NO"]}))),
        "/tags/1"
    );
    assert_eq!(path_of(encode(&schema, 3, None, &json!({"tags": []}))), "");
    // A reference outside the registered ones is never fetched.
    let remote = text("JSON", r#"{"$ref": "http://127.0.0.1:9/x.json"}"#);
    assert!(matches!(encode(&remote, 3, None, &json!(1)), Err(Unfit::Schema(_))));
}
