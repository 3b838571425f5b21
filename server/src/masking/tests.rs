use app::api::{Encoded, Encoding, Record, TimestampType};
use serde_json::{json, Value};

use super::*;
use crate::records::decode::Decoder;
use crate::records::encode::encode;
use crate::registry::SchemaText;

const KEY: &str = "a-key-of-at-least-16-bytes";

fn rule(fields: &[&str], strategy: MaskStrategy, keys: bool) -> MaskingRule {
    MaskingRule {
        topics: vec!["payments-*".into()],
        fields: fields.iter().map(|f| f.split('.').map(str::to_string).collect()).collect(),
        keys,
        strategy,
    }
}

fn mask(rules: Vec<MaskingRule>) -> TopicMask {
    Masking::new(rules, Some(Secret::new(KEY.into())))
        .for_topic("payments-eu")
        .expect("the rules name the topic")
}

fn part(encoding: Encoding, data: Value) -> Encoded {
    Encoded {
        encoding,
        data,
        schema_id: None,
        raw: Some("AAAAAAE=".into()),
        error: None,
        masked: false,
    }
}

fn record(key: Encoded, value: Encoded) -> Record {
    Record {
        topic: "payments-eu".into(),
        partition: 0,
        offset: 0,
        timestamp: None,
        timestamp_type: TimestampType::CreateTime,
        key,
        value,
        headers: Vec::new(),
        size: 0,
    }
}

/// HMAC-SHA256 of `text` under [`KEY`], worked out apart from the code under test (RFC 2104
/// over the `sha2` digest), so that a wrong key or input shows.
fn expected_hmac(text: &str) -> String {
    use sha2::Digest;
    let mut block = [0u8; 64];
    block[..KEY.len()].copy_from_slice(KEY.as_bytes());
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner =
        sha2::Sha256::new().chain_update(pad(0x36)).chain_update(text.as_bytes()).finalize();
    let outer = sha2::Sha256::new().chain_update(pad(0x5c)).chain_update(inner).finalize();
    outer.iter().map(|b| format!("{b:02x}")).collect()
}

/// A payment with a nested card, a repeated list of contacts and a repeated scalar.
fn payment() -> Value {
    json!({
        "id": 7,
        "card": {"number": "4111111111111111", "expiry": "12/30"},
        "contacts": [
            {"email": "ann@example.com", "kind": "billing"},
            {"email": "bob@example.com", "kind": "shipping"}
        ],
        "tags": ["vip", "card-4111111111111111"]
    })
}

#[test]
fn each_strategy_masks_nested_and_repeated_fields_and_nothing_else() {
    let fields = ["card.number", "contacts.email", "tags"];
    let cases = [
        (
            MaskStrategy::Redact,
            json!({
                "id": 7,
                "card": {"number": "****", "expiry": "12/30"},
                "contacts": [
                    {"email": "****", "kind": "billing"},
                    {"email": "****", "kind": "shipping"}
                ],
                "tags": ["****", "****"]
            }),
        ),
        (
            MaskStrategy::Last4,
            json!({
                "id": 7,
                "card": {"number": "************1111", "expiry": "12/30"},
                "contacts": [
                    {"email": "***********.com", "kind": "billing"},
                    {"email": "***********.com", "kind": "shipping"}
                ],
                "tags": ["***", "*****************1111"]
            }),
        ),
        (
            MaskStrategy::Hash,
            json!({
                "id": 7,
                "card": {"number": expected_hmac("4111111111111111"), "expiry": "12/30"},
                "contacts": [
                    {"email": expected_hmac("ann@example.com"), "kind": "billing"},
                    {"email": expected_hmac("bob@example.com"), "kind": "shipping"}
                ],
                "tags": [expected_hmac("vip"), expected_hmac("card-4111111111111111")]
            }),
        ),
        (
            MaskStrategy::Drop,
            json!({
                "id": 7,
                "card": {"expiry": "12/30"},
                "contacts": [{"kind": "billing"}, {"kind": "shipping"}]
            }),
        ),
    ];
    for (strategy, want) in cases {
        let m = mask(vec![rule(&fields, strategy, false)]);
        let mut r = record(
            part(Encoding::Text, json!("4111111111111111")),
            part(Encoding::Json, payment()),
        );
        m.apply(&mut r);
        assert_eq!(r.value.data, want, "{strategy:?}");
        assert!(r.value.masked, "{strategy:?}");
        assert_eq!(r.value.raw, None, "{strategy:?}: the bytes hold every field");
        // The key is not masked without `keys`.
        assert_eq!(r.key.data, json!("4111111111111111"));
        assert!(!r.key.masked);
    }
}

/// The same value read through each schema type: the masked fields are gone from what the
/// page would show, whatever form the decoder gave the value.
#[test]
fn values_decoded_through_each_schema_type_are_masked_alike() {
    let avro = SchemaText {
        schema: r#"{"type":"record","name":"Payment","fields":[
            {"name":"id","type":"long"},
            {"name":"card","type":{"type":"record","name":"Card","fields":[
                {"name":"number","type":"string"},{"name":"expiry","type":"string"}]}},
            {"name":"contacts","type":{"type":"array","items":{"type":"record","name":"Contact",
                "fields":[{"name":"email","type":["null","string"]},{"name":"kind","type":"string"}]}}},
            {"name":"tags","type":{"type":"array","items":"string"}}]}"#
            .into(),
        schema_type: "AVRO".into(),
        references: Vec::new(),
    };
    let protobuf = SchemaText {
        schema: r#"syntax = "proto3";
            message Payment {
              int64 id = 1;
              Card card = 2;
              repeated Contact contacts = 3;
              repeated string tags = 4;
            }
            message Card { string number = 1; string expiry = 2; }
            message Contact { string email = 1; string kind = 2; }"#
            .into(),
        schema_type: "PROTOBUF".into(),
        references: Vec::new(),
    };
    let json_schema = SchemaText {
        schema: r#"{"type":"object"}"#.into(),
        schema_type: "JSON".into(),
        references: Vec::new(),
    };
    let plain = payment();
    for (schema, value, encoding) in [
        (&avro, &plain, Encoding::Avro),
        (&protobuf, &plain, Encoding::Protobuf),
        (&json_schema, &plain, Encoding::JsonSchema),
    ] {
        let framed = encode(schema, 1, None, value).expect("encodes");
        let (got, data) =
            Decoder::new(schema).expect("a decoder").decode(&framed[5..]).expect("decodes");
        assert_eq!(got, encoding);
        let shown = |data: &Value| data.to_string();
        assert!(shown(&data).contains("4111111111111111"), "{encoding:?}: {data}");
        let m = mask(vec![rule(
            &["card.number", "contacts.email", "tags"],
            MaskStrategy::Last4,
            false,
        )]);
        let mut r = record(part(Encoding::Null, Value::Null), part(encoding, data));
        m.apply(&mut r);
        let text = shown(&r.value.data);
        for secret in ["4111111111111111", "ann@example.com", "bob@example.com", "vip"] {
            assert!(!text.contains(secret), "{encoding:?} shows {secret}: {text}");
        }
        assert!(text.contains("************1111"), "{encoding:?}: {text}");
        assert!(text.contains("12/30"), "{encoding:?} keeps the rest: {text}");
        assert!(r.value.masked && r.value.raw.is_none());
    }
}

#[test]
fn a_part_that_is_not_fields_is_masked_whole() {
    let m = mask(vec![rule(&["card.number"], MaskStrategy::Last4, true)]);
    let mut failed = part(Encoding::Base64, json!("AAAAAAEC"));
    failed.schema_id = Some(1);
    failed.error = Some("schema 1 could not be fetched".into());
    for value in [
        part(Encoding::Text, json!("card 4111111111111111")),
        part(Encoding::Base64, json!("/wD+")),
        failed,
    ] {
        let mut r = record(part(Encoding::Text, json!("customer-4111")), value);
        m.apply(&mut r);
        for p in [&r.key, &r.value] {
            assert_eq!(p.data, json!(REDACTED));
            assert_eq!(p.encoding, Encoding::Text);
            assert!(p.masked && p.raw.is_none() && p.error.is_none());
        }
    }
    // Nothing to hide in a null.
    let mut r = record(part(Encoding::Null, Value::Null), part(Encoding::Null, Value::Null));
    m.apply(&mut r);
    assert!(!r.value.masked && !r.key.masked);
}

#[test]
fn keys_are_masked_only_by_rules_that_say_so_and_topics_by_glob() {
    let masking = Masking::new(
        vec![
            rule(&["card.number"], MaskStrategy::Redact, false),
            rule(&["customer"], MaskStrategy::Redact, true),
        ],
        None,
    );
    assert!(masking.for_topic("orders").is_none());
    assert!(masking.for_topic("payments-").is_some());
    let m = masking.for_topic("payments-eu").expect("named");
    assert!(m.masks_keys());
    let mut r = record(
        part(Encoding::Json, json!({"customer": "ann", "card": {"number": "1"}})),
        part(Encoding::Json, json!({"customer": "ann", "card": {"number": "1"}})),
    );
    m.apply(&mut r);
    assert_eq!(r.key.data, json!({"customer": "****", "card": {"number": "1"}}));
    assert_eq!(r.value.data, json!({"customer": "****", "card": {"number": "****"}}));
    let only_values = Masking::new(vec![rule(&["a"], MaskStrategy::Redact, false)], None);
    assert!(!only_values.for_topic("payments-x").expect("named").masks_keys());
}

#[test]
fn a_value_without_the_fields_shows_as_it_is_but_never_with_its_bytes() {
    let m = mask(vec![rule(&["card.number"], MaskStrategy::Redact, false)]);
    let mut r = record(
        part(Encoding::Null, Value::Null),
        part(Encoding::Json, json!({"id": 1, "card": "none", "list": [1, 2]})),
    );
    m.apply(&mut r);
    assert_eq!(r.value.data, json!({"id": 1, "card": "none", "list": [1, 2]}));
    // The bytes could read otherwise than the value (JSON with a repeated key keeps the last).
    assert!(r.value.masked);
    assert_eq!(r.value.raw, None);
}

#[test]
fn bytes_decoded_as_a_list_of_numbers_are_one_value() {
    let m = mask(vec![rule(&["digest", "tags"], MaskStrategy::Hash, false)]);
    let mut r = record(
        part(Encoding::Null, Value::Null),
        part(Encoding::Avro, json!({"digest": [1, 2, 3], "tags": ["a", "b"]})),
    );
    m.apply(&mut r);
    assert_eq!(r.value.data["digest"], json!(expected_hmac("[1,2,3]")));
    assert_eq!(r.value.data["tags"], json!([expected_hmac("a"), expected_hmac("b")]));
}

#[test]
fn protobuf_snake_case_paths_reach_their_json_names() {
    let m = mask(vec![rule(&["card_number"], MaskStrategy::Redact, false)]);
    let mut r = record(
        part(Encoding::Null, Value::Null),
        part(Encoding::Protobuf, json!({"cardNumber": "4111", "card_numbers": "x"})),
    );
    m.apply(&mut r);
    assert_eq!(r.value.data, json!({"cardNumber": "****", "card_numbers": "x"}));
}

#[test]
fn last4_hides_short_values_entirely_and_counts_characters() {
    assert_eq!(last4("1234"), "****");
    assert_eq!(last4(""), "");
    assert_eq!(last4("héllo wörld"), "*******örld");
    assert_eq!(lower_camel("card_number_x"), "cardNumberX");
}

#[test]
fn the_key_never_shows_in_debug_output() {
    let m = mask(vec![rule(&["a"], MaskStrategy::Hash, false)]);
    assert!(!format!("{m:?}").contains(KEY));
}

/// Writing a field that a hash rule masks, then reading its hash back, would confirm a guess:
/// such a field is found wherever a read would hash it (in arrays, by Protobuf's JSON name, in a
/// key only under `keys`), and nowhere else.
#[test]
fn a_field_a_read_would_hash_is_found_before_it_is_written() {
    let m = mask(vec![
        rule(&["customer.email"], MaskStrategy::Hash, true),
        rule(&["card_number"], MaskStrategy::Hash, false),
        rule(&["note"], MaskStrategy::Redact, true),
    ]);
    let hashed = |encoding, data: Value, is_key| m.hashed_field(&part(encoding, data), is_key);
    let email = json!({"customer": {"email": "ann@example.com"}});
    for encoding in [Encoding::Json, Encoding::Avro, Encoding::Protobuf, Encoding::JsonSchema] {
        assert_eq!(hashed(encoding, email.clone(), false).as_deref(), Some("customer.email"));
    }
    assert_eq!(
        hashed(Encoding::Json, email.clone(), true).as_deref(),
        Some("customer.email"),
        "the email rule masks keys too"
    );
    assert_eq!(
        hashed(Encoding::Json, json!([{"customer": [{"email": "x"}]}]), false).as_deref(),
        Some("customer.email")
    );
    assert_eq!(
        hashed(Encoding::Protobuf, json!({"cardNumber": "4111"}), false).as_deref(),
        Some("card_number")
    );
    // The card rule does not mask keys; redacted fields tell nothing; null is not hashed.
    assert_eq!(hashed(Encoding::Json, json!({"card_number": "4111"}), true), None);
    assert_eq!(hashed(Encoding::Json, json!({"note": "x"}), false), None);
    assert_eq!(hashed(Encoding::Json, json!({"customer": {"email": null}}), false), None);
    assert_eq!(hashed(Encoding::Json, json!({"customer": "x"}), false), None);
    // Text and bytes are masked whole, never hashed.
    assert_eq!(hashed(Encoding::Text, json!("customer.email"), false), None);
    assert_eq!(hashed(Encoding::Base64, json!("AAE="), false), None);
    assert_eq!(hashed(Encoding::Null, Value::Null, false), None);
    // A framed part that did not decode could hold the field.
    let mut unread = part(Encoding::Base64, json!("AAAAAAE="));
    unread.error = Some("schema 1 could not be fetched".into());
    assert_eq!(m.hashed_field(&unread, false).as_deref(), Some("customer.email"));
}

#[test]
fn a_mask_hides_as_another_only_with_the_same_fields_strategies_and_key() {
    let card = rule(&["card.number"], MaskStrategy::Last4, false);
    let email = rule(&["customer.email"], MaskStrategy::Hash, true);
    let both = mask(vec![card.clone(), email.clone()]);
    assert!(both.hides_as(&mask(vec![email.clone(), card.clone()])), "order does not matter");
    assert!(!both.hides_as(&mask(vec![card.clone()])), "a field left unhidden");
    assert!(!mask(vec![card.clone()]).hides_as(&both), "a field hidden more is still another mask");
    let redacted = rule(&["card.number"], MaskStrategy::Redact, false);
    assert!(!mask(vec![card.clone()]).hides_as(&mask(vec![redacted])), "another strategy");
    let other_key = Masking::new(vec![card.clone()], Some(Secret::new("another-key".into())))
        .for_topic("payments-eu")
        .expect("named");
    assert!(!mask(vec![card]).hides_as(&other_key), "hashes under another key");
}
