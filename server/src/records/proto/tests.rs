use super::*;
use crate::fuzz::{cases, Inputs};
use crate::records::decode::{Decoder, MAIN_PROTO};
use crate::registry::SchemaText;
use prost_reflect::{DynamicMessage, Kind as ProtoKind, MapKey, MessageDescriptor, Value as Proto};
use protox::prost::Message as _;
use serde_json::Value;

const SCHEMA: &str = r#"syntax = "proto3";
package t;
import "google/protobuf/timestamp.proto";

message All {
  double d = 1; float f = 2; int32 i32 = 3; int64 i64 = 4; uint32 u32 = 5; uint64 u64 = 6;
  sint32 s32 = 7; sint64 s64 = 8; fixed32 fx32 = 9; fixed64 fx64 = 10; sfixed32 sf32 = 11;
  sfixed64 sf64 = 12; bool b = 13; string s = 14; bytes by = 15; Color color = 16; All child = 17;
  repeated int32 ri = 18; repeated double rd = 19; repeated string rs = 20; repeated All rc = 21;
  repeated Color rcol = 22;
  map<string, int64> msi = 23; map<int32, All> mia = 24; map<bool, Color> mbc = 25;
  map<uint64, string> mus = 26; map<sint32, bytes> msb = 27;
  optional int32 oi = 28; optional string os = 29;
  oneof choice { string cs = 30; int64 ci = 31; All cm = 32; }
  int32 snake_case_name = 33 [json_name = "odd \"name\""];
  google.protobuf.Timestamp ts = 34;
  repeated sint64 rs64 = 35 [packed = false];
  repeated fixed32 rf32 = 36;
  Other.Inner inner = 37;
}
enum Color { RED = 0; GREEN = 1; BLUE = 2; }
message Other { message Inner { float x = 1; } }
"#;

/// Fields whose JSON object is a map: its keys come in no fixed order.
const MAPS: [&str; 5] = ["msi", "mia", "mbc", "mus", "msb"];

fn decoder() -> (Decoder, MessageDescriptor) {
    let text = SchemaText {
        schema: SCHEMA.into(),
        schema_type: "PROTOBUF".into(),
        references: Vec::new(),
    };
    let decoder = Decoder::new(&text).expect("the schema compiles");
    let Decoder::Protobuf { pool, .. } = &decoder else { panic!("a Protobuf decoder") };
    let all = pool.get_message_by_name("t.All").expect("t.All");
    (decoder, all)
}

fn plan(decoder: &Decoder) -> &Plan {
    match decoder {
        Decoder::Protobuf { plan, .. } => plan,
        _ => unreachable!(),
    }
}

/// What `prost-reflect` writes for the bytes, if they decode, read back (through its text:
/// a `float` as its own shortest decimal, not widened first).
fn reference(all: &MessageDescriptor, bytes: &[u8]) -> Option<Value> {
    let message = DynamicMessage::decode(all.clone(), bytes).ok()?;
    let text = serde_json::to_vec(&message).expect("serialises");
    Some(serde_json::from_slice(&text).expect("reads back"))
}

fn walked(decoder: &Decoder, bytes: &[u8]) -> Result<Value, Refused> {
    walked_told(decoder, bytes).map(|(json, _)| json)
}

/// The walk's JSON, and whether it gives back the bytes.
fn walked_told(decoder: &Decoder, bytes: &[u8]) -> Result<(Value, bool), Refused> {
    let plan = plan(decoder);
    let mut out = b"garbage before".to_vec();
    let told = to_json(plan, plan.first().expect("first"), bytes, &mut out)?;
    let text = &out[b"garbage before".len()..];
    let json = serde_json::from_slice(text).unwrap_or_else(|e| {
        panic!("the walk wrote no JSON ({e}): {}", String::from_utf8_lossy(text))
    });
    Ok((json, told))
}

/// Whether a map in `json` has more than one entry: `prost-reflect` keeps a map's entries
/// in a hash map, so it writes them in an order of its own.
fn has_entries_in_order(json: &Value) -> bool {
    match json {
        Value::Object(fields) => fields.iter().any(|(k, v)| {
            (MAPS.contains(&k.as_str()) && v.as_object().is_some_and(|m| m.len() > 1))
                || has_entries_in_order(v)
        }),
        Value::Array(items) => items.iter().any(has_entries_in_order),
        _ => false,
    }
}

/// When the walk says its JSON gives back the bytes, `prost-reflect` reads the JSON and
/// writes those bytes (unless a map's order is its own); `true` when it was asked.
fn given_back(all: &MessageDescriptor, json: &Value, bytes: &[u8]) -> bool {
    if has_entries_in_order(json) {
        return false;
    }
    let message = DynamicMessage::deserialize(all.clone(), json)
        .unwrap_or_else(|e| panic!("prost-reflect reads the walk's JSON ({e}): {json}"));
    assert_eq!(message.encode_to_vec(), bytes, "{json}");
    true
}

/// Objects alike with their keys in the same order, except maps'.
fn same_order(a: &Value, b: &Value, map: bool) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            (map || a.keys().eq(b.keys()))
                && a.iter().all(|(k, v)| {
                    b.get(k).is_some_and(|w| same_order(v, w, MAPS.contains(&k.as_str())))
                })
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(v, w)| same_order(v, w, false))
        }
        _ => a == b,
    }
}

fn scalar(kind: &ProtoKind, r: &mut Inputs) -> Proto {
    let pick = r.next_u64();
    let edge = |values: &[u64]| values[(pick % values.len() as u64) as usize];
    let n = edge(&[0, 1, u64::MAX, 127, 128, 1 << 31, (1 << 31) - 1, 1 << 63, pick >> 3]);
    match kind {
        ProtoKind::Double => Proto::F64(match pick % 7 {
            0 => 0.0,
            1 => -0.0,
            2 => f64::NAN,
            3 => f64::INFINITY,
            4 => f64::NEG_INFINITY,
            5 => 1e300,
            _ => f64::from_bits(r.next_u64()),
        }),
        ProtoKind::Float => Proto::F32(match pick % 6 {
            0 => 0.0,
            1 => f32::NAN,
            2 => f32::NEG_INFINITY,
            3 => 0.1,
            _ => f32::from_bits(r.next_u64() as u32),
        }),
        ProtoKind::Int32 | ProtoKind::Sint32 | ProtoKind::Sfixed32 => Proto::I32(n as i32),
        ProtoKind::Int64 | ProtoKind::Sint64 | ProtoKind::Sfixed64 => Proto::I64(n as i64),
        ProtoKind::Uint32 | ProtoKind::Fixed32 => Proto::U32(n as u32),
        ProtoKind::Uint64 | ProtoKind::Fixed64 => Proto::U64(n),
        ProtoKind::Bool => Proto::Bool(pick.is_multiple_of(2)),
        ProtoKind::String => {
            Proto::String(r.text(&["", "a", "\"", "\\", "\u{1}", "é", "😀", "\n", "</"]))
        }
        ProtoKind::Bytes => Proto::Bytes(r.bytes().into()),
        ProtoKind::Enum(_) => Proto::EnumNumber((pick % 5) as i32 - 1),
        ProtoKind::Message(m) => Proto::Message(DynamicMessage::new(m.clone())),
    }
}

fn key(kind: &ProtoKind, r: &mut Inputs) -> MapKey {
    match scalar(kind, r) {
        Proto::Bool(b) => MapKey::Bool(b),
        Proto::I32(n) => MapKey::I32(n),
        Proto::I64(n) => MapKey::I64(n),
        Proto::U32(n) => MapKey::U32(n),
        Proto::U64(n) => MapKey::U64(n),
        Proto::String(s) => MapKey::String(s),
        other => panic!("no map key of {other:?}"),
    }
}

fn value(kind: &ProtoKind, r: &mut Inputs, depth: usize) -> Proto {
    match kind {
        ProtoKind::Message(m) if m.full_name() == "google.protobuf.Timestamp" => {
            let mut ts = DynamicMessage::new(m.clone());
            ts.set_field_by_name("seconds", Proto::I64(1_700_000_000));
            Proto::Message(ts)
        }
        ProtoKind::Message(m) => Proto::Message(message(m, r, depth + 1)),
        other => scalar(other, r),
    }
}

/// A message with some of its fields set, nesting at most three deep.
fn message(desc: &MessageDescriptor, r: &mut Inputs, depth: usize) -> DynamicMessage {
    let mut m = DynamicMessage::new(desc.clone());
    if depth > 2 {
        return m;
    }
    for field in desc.fields() {
        // The timestamp (which the walk leaves to the decoder) only now and then.
        let rare = field.name() == "ts";
        if !r.next_u64().is_multiple_of(if rare { 20 } else { 3 }) {
            continue;
        }
        let kind = field.kind();
        let v = if field.is_map() {
            let ProtoKind::Message(entry) = &kind else { unreachable!() };
            let (k, v) = (entry.map_entry_key_field(), entry.map_entry_value_field());
            let entries = (0..r.next_u64() % 4)
                .map(|_| (key(&k.kind(), r), value(&v.kind(), r, depth)))
                .collect();
            Proto::Map(entries)
        } else if field.is_list() {
            Proto::List((0..r.next_u64() % 4).map(|_| value(&kind, r, depth)).collect())
        } else {
            value(&kind, r, depth)
        };
        m.set_field(&field, v);
    }
    m
}

/// Random messages, encoded as `prost` writes them, are written by the walk as
/// `prost-reflect` serialises them; changed bytes are either refused or written alike.
#[test]
fn fuzz_the_walk_writes_what_prost_reflect_writes() {
    let (decoder, all) = decoder();
    let mut r = Inputs::new(0x5eed_0f90, 24);
    let (mut walked_whole, mut whole) = (0, 0);
    let (mut walked_changed, mut encoded_again) = (0, 0);
    for _ in 0..cases(1000) {
        let bytes = message(&all, &mut r, 0).encode_to_vec();
        let want = reference(&all, &bytes).expect("prost-reflect reads its own bytes");
        whole += 1;
        if let Ok((got, told)) = walked_told(&decoder, &bytes) {
            walked_whole += 1;
            assert!(same_order(&got, &want, false), "{bytes:?}\n{got}\n{want}");
            if told && given_back(&all, &got, &bytes) {
                encoded_again += 1;
            }
        }
        // Changed bytes: one flipped, cut short, or a field written twice.
        let mut changed = bytes.clone();
        match r.next_u64() % 3 {
            0 if !changed.is_empty() => {
                let at = (r.next_u64() % changed.len() as u64) as usize;
                changed[at] ^= 1 << (r.next_u64() % 8);
            }
            1 => changed.truncate((r.next_u64() % (changed.len() as u64 + 1)) as usize),
            _ => changed.extend_from_slice(&bytes[..bytes.len() / 2]),
        }
        if let Ok((got, told)) = walked_told(&decoder, &changed) {
            walked_changed += 1;
            let want = reference(&all, &changed)
                .unwrap_or_else(|| panic!("the walk wrote bytes prost refuses: {changed:?}"));
            assert!(same_order(&got, &want, false), "{changed:?}\n{got}\n{want}");
            if told && given_back(&all, &got, &changed) {
                encoded_again += 1;
            }
        }
        // Through the decoder (walk or not), the pages show what prost-reflect reads.
        let mut framed = vec![0];
        framed.extend_from_slice(&changed);
        let shown = decoder.decode(&framed).ok().map(|(_, v)| v);
        assert_eq!(shown, reference(&all, &changed), "{changed:?}");
    }
    // Most messages are the walk's to write (those with a timestamp are not).
    assert!(walked_whole * 10 > whole * 7, "{walked_whole} of {whole}");
    assert!(walked_changed > 0);
    // Many say their JSON gives back their bytes, and it does.
    assert!(encoded_again * 20 > whole, "{encoded_again} of {whole}");
    eprintln!(
        "walked {walked_whole} of {whole} messages, {walked_changed} changed ones; \
         {encoded_again} encoded again from their JSON"
    );
}

fn tag(number: u32, wire: u8) -> u8 {
    (number << 3) as u8 | wire
}

#[test]
fn the_walk_takes_what_prost_reads_and_leaves_the_rest() {
    let (decoder, all) = decoder();
    // What the walk writes, and whether its JSON gives back the bytes.
    let accepted: &[(&str, Vec<u8>, bool)] = &[
        ("a zero on the wire is left out", vec![tag(3, 0), 0], false),
        ("a zero with presence is written", vec![0xe0, 0x01, 0], true),
        (
            "unknown fields are passed over",
            {
                let mut b = vec![0x98, 0x06, 1, 0xa1, 0x06];
                b.extend_from_slice(&[9; 8]);
                b.extend_from_slice(&[tag(3, 0), 5]);
                b
            },
            false,
        ),
        (
            "an int32 below zero in ten bytes",
            {
                let mut b = vec![tag(3, 0)];
                b.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
                b
            },
            true,
        ),
        ("an int32 below zero in five bytes", vec![tag(3, 0), 0xff, 0xff, 0xff, 0xff, 0x0f], false),
        ("a varint longer than it needs", vec![tag(3, 0), 0x85, 0x80, 0x00], false),
        ("an enum number the schema does not name", vec![0x80, 0x01, 9], true),
        ("a boolean sent as 2", vec![tag(13, 0), 2], false),
        ("a float NaN", vec![tag(2, 5), 0, 0, 0xc0, 0x7f], false),
        ("a map entry without key or value", vec![0xba, 0x01, 0, 0xc2, 0x01, 2, 0x08, 1], false),
        ("a map entry, value then key", vec![0xba, 0x01, 4, 0x10, 1, 0x0a, 0], false),
        ("a map entry, key then value", vec![0xba, 0x01, 5, 0x0a, 1, b'k', 0x10, 1], true),
        (
            "repeated int32, packed and not, together",
            vec![0x92, 0x01, 2, 1, 2, 0x90, 0x01, 3],
            false,
        ),
        ("repeated int32 in two packed runs", vec![0x92, 0x01, 1, 1, 0x92, 0x01, 1, 2], false),
        ("repeated int32 in one packed run", vec![0x92, 0x01, 2, 1, 2], true),
        ("repeated sint64 (packed = false) packed", vec![0x9a, 0x02, 1, 2], false),
        ("repeated sint64 (packed = false) one by one", vec![0x98, 0x02, 2, 0x98, 0x02, 4], true),
        ("a packed field of no items", vec![0x92, 0x01, 0], false),
        ("the custom JSON name", vec![0x88, 0x02, 7], true),
    ];
    for (what, bytes, gives_back) in accepted {
        let want = reference(&all, bytes).expect(what);
        let (got, told) =
            walked_told(&decoder, bytes).unwrap_or_else(|_| panic!("refused: {what}"));
        assert!(same_order(&got, &want, false), "{what}: {got} vs {want}");
        assert_eq!(told, *gives_back, "{what}");
        // `prost-reflect` packs every repeated number of proto3, `packed = false` or not.
        if told && !what.contains("packed = false") {
            assert!(given_back(&all, &got, bytes), "{what}");
        }
    }
    let refused: &[(&str, Vec<u8>)] = &[
        ("a field twice (the last wins)", vec![tag(3, 0), 1, tag(3, 0), 2]),
        ("fields out of order", vec![tag(4, 0), 1, tag(3, 0), 2]),
        ("a message twice (they merge)", vec![0x8a, 0x01, 2, 0x18, 1, 0x8a, 0x01, 2, 0x20, 1]),
        ("a map key twice", vec![0xba, 0x01, 4, 0x0a, 0, 0x10, 1, 0xba, 0x01, 4, 0x0a, 0, 0x10, 2]),
        ("two fields of a oneof", vec![0xf2, 0x01, 1, b'a', 0xf8, 0x01, 1]),
        ("a group", vec![0x9b, 0x06, 0x9c, 0x06]),
        ("a string that is not UTF-8", vec![tag(14, 2), 1, 0xff]),
        ("a wire type the field does not have", vec![tag(3, 5), 0, 0, 0, 0]),
        ("a timestamp (its JSON is its own)", vec![0x92, 0x02, 2, 0x08, 1]),
        ("cut short", vec![tag(14, 2), 3, b'a']),
        ("a map of long keys, beyond the bytes the walk compares", {
            let mut b = Vec::new();
            for i in 0..30u8 {
                // msi (23): entry of key 1 = 20,000 bytes ending in i.
                let mut key = vec![b'k'; 19_999];
                key.push(b'a' + i);
                let mut entry = vec![0x0a, 0xa0, 0x9c, 0x01];
                entry.extend_from_slice(&key);
                b.extend_from_slice(&[0xba, 0x01, 0xa4, 0x9c, 0x01]);
                b.extend_from_slice(&entry);
            }
            b
        }),
    ];
    for (what, bytes) in refused {
        assert_eq!(walked(&decoder, bytes).err(), Some(Refused), "{what}");
        // The decoder still shows what prost-reflect reads, or refuses with it.
        let mut framed = vec![0];
        framed.extend_from_slice(bytes);
        let shown = decoder.decode(&framed).ok().map(|(_, v)| v);
        assert_eq!(shown, reference(&all, bytes), "{what}");
    }
}

#[test]
fn a_nested_message_named_by_its_frame_is_walked() {
    let (decoder, _) = decoder();
    let Decoder::Protobuf { pool, .. } = &decoder else { unreachable!() };
    let inner = pool.get_message_by_name("t.Other.Inner").expect("inner");
    // Message indexes [1, 0]: the second top-level message, its first nested one.
    let bytes = [4, 2, 0, tag(1, 5), 0, 0, 0x80, 0x3f];
    let (_, shown) = decoder.decode(&bytes).expect("decodes");
    assert_eq!(shown, serde_json::json!({"x": 1.0}));
    let plan = plan(&decoder);
    assert!(plan.message(&inner).is_some());
    let mut out = Vec::new();
    assert!(decoder.write_data(&bytes, &mut out).is_some());
    assert_eq!(out, br#"{"x":1.0}"#);
    let _ = MAIN_PROTO;
}
