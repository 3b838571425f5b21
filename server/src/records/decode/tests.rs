use super::*;

/// Regression (hardening issue): a page of records framed with a thousand random schema
/// ids asked the registry a thousand times.
#[test]
fn one_batch_fetches_a_bounded_number_of_new_schemas() {
    let known = |id: &u32| *id < 5;
    let got = to_fetch((0..1000).rev().chain(0..1000), known);
    assert_eq!(&got[..5], &[0, 1, 2, 3, 4], "known ids cost nothing and all come");
    assert_eq!(got.len(), 5 + NEW_PER_BATCH);
    let mut unique = got.clone();
    unique.dedup();
    assert_eq!(unique, got, "each id once");
}

fn text(schema: &str, kind: &str) -> SchemaText {
    SchemaText { schema: schema.to_string(), schema_type: kind.to_string(), references: Vec::new() }
}

fn bytes_of(e: &Encoded) -> Option<Vec<u8>> {
    if let Some(raw) = &e.raw {
        return STANDARD.decode(raw).ok();
    }
    match (&e.encoding, &e.data) {
        (Encoding::Null, _) => None,
        (Encoding::Base64, Value::String(s)) => STANDARD.decode(s).ok(),
        (Encoding::Text, Value::String(s)) => Some(s.as_bytes().to_vec()),
        (Encoding::Json, v) => serde_json::to_vec(v).ok(),
        _ => None,
    }
}

/// Arbitrary bytes, framed for known and unknown schema ids or not framed at all, through
/// the whole record decoder: never a panic, and every byte comes back.
#[test]
fn fuzz_record_values() {
    let registry = crate::registry::Registry::new(&crate::config::RegistryConfig {
        url: "http://127.0.0.1:1".into(),
        username: None,
        password: None,
    })
    .expect("a registry client");
    let schemas = Schemas::new(Some(Arc::new(registry)));
    let texts = [
        (r#"{"type":"record","name":"N","fields":[{"name":"v","type":["null","string","N"]},{"name":"m","type":{"type":"map","values":"long"}}]}"#, "AVRO"),
        ("syntax = \"proto3\";\nmessage A { string s = 1; repeated A a = 2; map<string, int64> m = 3; }\n", "PROTOBUF"),
        ("{}", "JSON"),
    ];
    let mut loaded = Loaded::default();
    for (id, (schema, kind)) in texts.iter().enumerate() {
        let text = SchemaText {
            schema: schema.to_string(),
            schema_type: kind.to_string(),
            references: Vec::new(),
        };
        let id = u32::try_from(id).expect("small") + 1;
        loaded.0.insert(id, Arc::new(Decoder::new(&text)));
    }
    let mut inputs = crate::fuzz::Inputs::new(0x5eed_0003, 64);
    for n in 0..crate::fuzz::cases(20_000) {
        let mut bytes = inputs.bytes();
        if n % 2 == 0 {
            // A Confluent frame for schema 1, 2, 3 or 4 (unknown).
            let id = (n / 2 % 4) as u32 + 1;
            let mut framed = vec![0];
            framed.extend_from_slice(&id.to_be_bytes());
            framed.extend_from_slice(&bytes);
            bytes = framed;
        }
        let encoded = schemas.decode(&loaded, Some(&bytes));
        assert_eq!(bytes_of(&encoded).as_deref(), Some(bytes.as_slice()), "{bytes:?}");
        // The export's line of a record holding these bytes is the pages' line.
        let record = super::super::RawRecord {
            partition: 0,
            offset: n as i64,
            timestamp: None,
            timestamp_type: app::api::TimestampType::NotAvailable,
            key: Some(bytes.clone()),
            value: Some(bytes.clone()),
            headers: Vec::new(),
        };
        let mut line = Vec::new();
        super::super::lines::write_record(
            &mut line,
            "t",
            &record,
            &schemas,
            &loaded,
            &mut super::super::lines::Scratch::default(),
        );
        // But for the bytes of a value decoded through a schema, which the export leaves
        // out when the data and the schema give them back (tested in `avro` and `proto`).
        let mut page = record.decode("t", &schemas, &loaded);
        let written: Value = serde_json::from_slice(&line).expect("a JSON line");
        for (part, name) in [(&mut page.key, "key"), (&mut page.value, "value")] {
            if written[name].get("raw").is_none() && part.raw.is_some() {
                assert!(matches!(part.encoding, Encoding::Avro | Encoding::Protobuf), "{bytes:?}");
                part.raw = None;
            }
        }
        let mut want = serde_json::to_vec(&page).expect("JSON");
        want.push(b'\n');
        assert_eq!(String::from_utf8_lossy(&line), String::from_utf8_lossy(&want), "{bytes:?}");
    }
}

/// Regression (hardening issue): schema text from the registry went to the Protobuf
/// compiler as it was, however deep it nested.
#[test]
fn protobuf_schema_text_is_bounded_before_it_compiles() {
    let deep =
        format!("syntax = \"proto3\";\n{}{}", "message A { ".repeat(5_000), "} ".repeat(5_000));
    let e = check_proto_text(&deep).expect_err("too deep");
    assert!(e.contains("deeper"), "{e}");
    let text = SchemaText { schema: deep, schema_type: "PROTOBUF".into(), references: Vec::new() };
    assert!(Decoder::new(&text).is_err());
    // Braces in strings and comments do not count; ordinary nesting compiles.
    let fine = "syntax = \"proto3\"; // {{{{\n/* {{{{ */ message A { message B { string s = 1 [json_name = \"{{{{\"]; } }\n";
    assert_eq!(check_proto_text(fine), Ok(()));
    assert!(check_proto_text(&"x".repeat(MAX_PROTO_TEXT + 1)).is_err());
}

#[test]
fn plain_bytes_always_come_back() {
    let cases: Vec<(Option<&[u8]>, Encoding)> = vec![
        (None, Encoding::Null),
        (Some(b""), Encoding::Text),
        (Some(b"hello"), Encoding::Text),
        (Some(b"42"), Encoding::Text),
        (Some(br#"{"a":1,"b":[true,null]}"#), Encoding::Json),
        (Some(b"{ \"spaced\" : 1 }"), Encoding::Json),
        (Some(br#"{"z":1,"a":2}"#), Encoding::Json),
        (Some(b"{not json"), Encoding::Text),
        (Some(&[0xff, 0xfe, 0x00, 0x41]), Encoding::Base64),
        (Some(&[0x00, 0x00, 0x00, 0x00, 0x07, 0x02]), Encoding::Text),
    ];
    for (input, want) in cases {
        let out = plain(input);
        assert_eq!(out.encoding, want, "{input:?}");
        assert_eq!(bytes_of(&out), input.map(<[u8]>::to_vec), "{input:?}");
    }
}

#[test]
fn framing_and_message_indexes() {
    assert_eq!(confluent_frame(&[0, 0, 0, 1, 2, 9]), Some((258, &[9u8][..])));
    assert_eq!(confluent_frame(&[1, 0, 0, 1, 2, 9]), None);
    assert_eq!(confluent_frame(&[0, 0, 0, 1]), None);
    // [0] is written as a single 0; [1, 2] as count 2 then 1 and 2, all zig-zag.
    assert_eq!(message_indexes(&[0, 7]), Ok((vec![0], &[7u8][..])));
    assert_eq!(message_indexes(&[4, 2, 4, 7]), Ok((vec![1, 2], &[7u8][..])));
    assert!(message_indexes(&[4, 2]).is_err());
    assert!(message_indexes(&[0x80]).is_err());
}

#[test]
fn recursive_avro_schemas_decode_and_hostile_data_does_not() {
    let list = SchemaText {
        schema: r#"{"type":"record","name":"Node","namespace":"k","fields":[{"name":"value","type":"int"},{"name":"next","type":["null","Node"]}]}"#.into(),
        schema_type: "AVRO".into(),
        references: Vec::new(),
    };
    let decoder = Decoder::new(&list).expect("a recursive schema");
    // Regression (hardening issue): "Unresolved schema reference" for any recursive schema.
    let (_, data) = decoder.decode(&[2, 2, 4, 0]).expect("a list of two decodes");
    assert_eq!(data, serde_json::json!({"value": 1, "next": {"value": 2, "next": null}}));
    // A list nested far past the limit is refused, not a stack overflow.
    let mut deep = [2u8, 2].repeat(50_000);
    deep.extend_from_slice(&[2, 0]);
    assert!(decoder.decode(&deep).is_err());
    // An array of nulls claiming 2^31 items is refused, not 30 GB reserved.
    let nulls = SchemaText {
        schema: r#"{"type":"array","items":"null"}"#.into(),
        schema_type: "AVRO".into(),
        references: Vec::new(),
    };
    let decoder = Decoder::new(&nulls).expect("schema");
    assert!(decoder.decode(&[0x80, 0x80, 0x80, 0x80, 0x10, 0]).is_err());
    // A value over the size cap is not decoded at all.
    let e = decoder.decode(&vec![0; MAX_DECODED + 1]).expect_err("too large");
    assert!(e.contains("more than klens decodes"), "{e}");
}

#[test]
fn avro_and_protobuf_decode_through_their_schemas() {
    let avro = SchemaText {
        schema: r#"{"type":"record","name":"P","fields":[{"name":"id","type":"long"},{"name":"note","type":["null","string"]}]}"#.into(),
        schema_type: "AVRO".into(),
        references: Vec::new(),
    };
    let decoder = Decoder::new(&avro).expect("Avro schema");
    // id = 3 (zig-zag 6), note = union branch 1 (2), "hi" (length 2 → 4).
    let (encoding, data) = decoder.decode(&[6, 2, 4, b'h', b'i']).expect("decodes");
    assert_eq!(encoding, Encoding::Avro);
    assert_eq!(data, serde_json::json!({"id": 3, "note": "hi"}));
    assert!(decoder.decode(&[6, 2, 4, b'h']).is_err(), "cut short");
    assert!(decoder.decode(&[6, 0, 9]).is_err(), "bytes left over");

    let proto = SchemaText {
        schema: "syntax = \"proto3\";\nmessage A { string name = 1; }\nmessage B { message C { int32 n = 1; } }\n".into(),
        schema_type: "PROTOBUF".into(),
        references: Vec::new(),
    };
    let decoder = Decoder::new(&proto).expect("Protobuf schema");
    // Message index [1, 0] (B.C): count 2, then 1 and 0, zig-zag; then field 1 = 5.
    let (encoding, data) = decoder.decode(&[4, 2, 0, 0x08, 5]).expect("decodes");
    assert_eq!(encoding, Encoding::Protobuf);
    assert_eq!(data, serde_json::json!({"n": 5}));
    let (_, data) = decoder.decode(&[0, 0x0a, 2, b'o', b'k']).expect("first message");
    assert_eq!(data, serde_json::json!({"name": "ok"}));
    assert!(decoder.decode(&[2, 8, 0x08, 5]).is_err(), "no message 4");
    assert!(Decoder::new(&SchemaText {
        schema: "message {".into(),
        schema_type: "PROTOBUF".into(),
        references: Vec::new(),
    })
    .is_err());
}

/// A schema with every kind of type the one-pass walk writes, recursion included.
const EVERY_KIND: &str = r#"{"type": "record", "name": "R", "namespace": "n", "fields": [
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "b", "type": "boolean"},
    {"name": "s", "type": "string"},
    {"name": "by", "type": "bytes"},
    {"name": "fx", "type": {"type": "fixed", "name": "F", "size": 3}},
    {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "u", "type": ["null", "string", "long", "R"]},
    {"name": "a", "type": {"type": "array", "items": ["null", "F", "E"]}},
    {"name": "m", "type": {"type": "map", "values": "double"}}]}"#;

/// An Avro int or long: zig-zag, then a varint.
fn long(n: i64, out: &mut Vec<u8>) {
    let mut z = ((n << 1) ^ (n >> 63)) as u64;
    while z > 0x7f {
        out.push(0x80 | (z & 0x7f) as u8);
        z >>= 7;
    }
    out.push(z as u8);
}

/// Writes a random datum of `schema` the way Avro writers do, with at most `entries` map
/// entries.
fn random_datum(
    schema: &apache_avro::Schema, names: &crate::records::avro::Names,
    random: &mut crate::fuzz::Inputs, depth: usize, entries: u64, out: &mut Vec<u8>,
) {
    use apache_avro::Schema;
    let text = |random: &mut crate::fuzz::Inputs, out: &mut Vec<u8>| {
        let pieces = ["a", "é", "\"", "\\", "\n", "😀", "key", "\u{1}"];
        let t: String = (0..random.next_u64() % 5)
            .map(|_| pieces[(random.next_u64() % pieces.len() as u64) as usize])
            .collect();
        long(t.len() as i64, out);
        out.extend_from_slice(t.as_bytes());
    };
    match schema {
        Schema::Int | Schema::Date => {
            long(i64::from(random.next_u64() as i32 >> (random.next_u64() % 32)), out)
        }
        Schema::Long | Schema::TimestampMillis => {
            long(random.next_u64() as i64 >> (random.next_u64() % 64), out)
        }
        Schema::Float => {
            let f = [0.1f32, -2.5, 1e30, 3.0, f32::MIN_POSITIVE][(random.next_u64() % 5) as usize];
            out.extend_from_slice(&f.to_le_bytes());
        }
        Schema::Double => {
            let d = f64::from_bits(random.next_u64() >> 2);
            out.extend_from_slice(&d.to_le_bytes());
        }
        Schema::Boolean => out.push((random.next_u64() % 2) as u8),
        Schema::String => text(random, out),
        Schema::Bytes => {
            let bytes = random.bytes();
            long(bytes.len() as i64, out);
            out.extend_from_slice(&bytes);
        }
        Schema::Fixed(fixed) => {
            for _ in 0..fixed.size {
                out.push(random.next_u64() as u8);
            }
        }
        Schema::Enum(e) => long((random.next_u64() % e.symbols.len() as u64) as i64, out),
        Schema::Union(u) => {
            // Deep enough, the recursion takes the null branch.
            let n = if depth > 6 { 0 } else { random.next_u64() % u.variants().len() as u64 };
            long(n as i64, out);
            random_datum(&u.variants()[n as usize], names, random, depth + 1, entries, out);
        }
        Schema::Record(r) => {
            for field in &r.fields {
                random_datum(&field.schema, names, random, depth + 1, entries, out);
            }
        }
        Schema::Array(a) => {
            let n = random.next_u64() % 4;
            if n > 0 {
                long(n as i64, out);
                for _ in 0..n {
                    random_datum(&a.items, names, random, depth + 1, entries, out);
                }
            }
            out.push(0);
        }
        Schema::Map(m) => {
            let n = random.next_u64() % (entries + 1);
            if n > 0 {
                long(n as i64, out);
                for i in 0..n {
                    let key = format!("k{i}");
                    long(key.len() as i64, out);
                    out.extend_from_slice(key.as_bytes());
                    random_datum(&m.types, names, random, depth + 1, entries, out);
                }
            }
            out.push(0);
        }
        Schema::Ref { name } => {
            let found = names.get(name).expect("named");
            random_datum(found, names, random, depth + 1, entries, out);
        }
        _ => {}
    }
}

/// Writes `json` as an Avro datum of `schema` the way the export's API page says a client
/// gives back the bytes of a value without `raw`: a union's branch is the one whose kind
/// of JSON the value is; arrays and maps in one block.
fn avro_from_json(
    schema: &apache_avro::Schema, names: &crate::records::avro::Names, json: &Value,
    out: &mut Vec<u8>,
) {
    use apache_avro::Schema;
    let bytes = |json: &Value| -> Vec<u8> {
        let items = json.as_array().expect("bytes as an array");
        items.iter().map(|b| b.as_u64().expect("a byte") as u8).collect()
    };
    let named = |schema: &Schema| -> Schema {
        match schema {
            Schema::Ref { name } => names.get(name).expect("named").clone(),
            other => other.clone(),
        }
    };
    match (&named(schema), json) {
        (Schema::Null, Value::Null) => {}
        (Schema::Boolean, Value::Bool(b)) => out.push(u8::from(*b)),
        (Schema::Int | Schema::Long | Schema::Date | Schema::TimestampMillis, Value::Number(n)) => {
            long(n.as_i64().expect("an integer"), out)
        }
        (Schema::Float, Value::Number(n)) => {
            out.extend_from_slice(&(n.as_f64().expect("a number") as f32).to_le_bytes())
        }
        (Schema::Double, Value::Number(n)) => {
            out.extend_from_slice(&n.as_f64().expect("a number").to_le_bytes())
        }
        (Schema::String, Value::String(text)) => {
            long(text.len() as i64, out);
            out.extend_from_slice(text.as_bytes());
        }
        (Schema::Bytes, json) => {
            let bytes = bytes(json);
            long(bytes.len() as i64, out);
            out.extend_from_slice(&bytes);
        }
        (Schema::Fixed(_), json) => out.extend_from_slice(&bytes(json)),
        (Schema::Enum(e), Value::String(symbol)) => {
            let i = e.symbols.iter().position(|s| s == symbol).expect("a symbol");
            long(i as i64, out);
        }
        (Schema::Union(u), json) => {
            let kind = |schema: &Schema| match named(schema) {
                Schema::Null => 0,
                Schema::Boolean => 1,
                Schema::String | Schema::Enum(_) => 3,
                Schema::Bytes | Schema::Fixed(_) | Schema::Array(_) => 4,
                Schema::Record(_) | Schema::Map(_) => 5,
                _ => 2,
            };
            let want = match json {
                Value::Null => 0,
                Value::Bool(_) => 1,
                Value::Number(_) => 2,
                Value::String(_) => 3,
                Value::Array(_) => 4,
                Value::Object(_) => 5,
            };
            let i = u.variants().iter().position(|v| kind(v) == want).expect("a branch");
            long(i as i64, out);
            avro_from_json(&u.variants()[i], names, json, out);
        }
        (Schema::Record(r), Value::Object(fields)) => {
            for field in &r.fields {
                avro_from_json(&field.schema, names, &fields[&field.name], out);
            }
        }
        (Schema::Array(a), Value::Array(items)) => {
            if !items.is_empty() {
                long(items.len() as i64, out);
                items.iter().for_each(|item| avro_from_json(&a.items, names, item, out));
            }
            out.push(0);
        }
        (Schema::Map(m), Value::Object(entries)) => {
            if !entries.is_empty() {
                long(entries.len() as i64, out);
                for (key, value) in entries {
                    long(key.len() as i64, out);
                    out.extend_from_slice(key.as_bytes());
                    avro_from_json(&m.types, names, value, out);
                }
            }
            out.push(0);
        }
        (schema, json) => panic!("{json} is not a {schema:?}"),
    }
}

fn every_kind() -> (Decoder, apache_avro::Schema, crate::records::avro::Names) {
    let decoder = Decoder::new(&text(EVERY_KIND, "AVRO")).expect("parses");
    let Decoder::Avro { schema, .. } = &decoder else {
        panic!("Avro");
    };
    let schema = schema.clone();
    let names = apache_avro::schema::ResolvedSchema::try_from(&schema)
        .expect("resolves")
        .get_names()
        .iter()
        .map(|(name, schema)| (name.clone(), (*schema).clone()))
        .collect();
    (decoder, schema, names)
}

/// The one-pass walk writes the JSON that `apache-avro` reads, for datums of every kind
/// of type (maps of at most one entry, whose order cannot differ), and refuses what it
/// refuses: damaged and cut copies of the same datums too.
#[test]
fn the_avro_walk_writes_what_apache_avro_reads() {
    let (decoder, schema, names) = every_kind();
    let Decoder::Avro { plan: Some(plan), .. } = &decoder else {
        panic!("planned");
    };
    let mut random = crate::fuzz::Inputs::new(0x6176_726f_6a73_6f6e, 16);
    let (mut agreed, mut refused) = (0, 0);
    for _ in 0..crate::fuzz::cases(3000) {
        let mut datum = Vec::new();
        random_datum(&schema, &names, &mut random, 0, 1, &mut datum);
        let cut = (random.next_u64() % (datum.len() as u64 + 1)) as usize;
        let mut bent = datum.clone();
        let at = (random.next_u64() % datum.len() as u64) as usize;
        bent[at] = random.next_u64() as u8;
        for bytes in [&datum[..], &datum[..cut], &bent[..]] {
            let mut out = Vec::new();
            let walked = crate::records::avro::to_json(plan, bytes, &mut out);
            let read = avro_value(&schema, &[], bytes)
                .and_then(|v| Value::try_from(v).map_err(|e| e.to_string()));
            match (walked, read) {
                (Ok(told), Ok(want)) => {
                    let got: Value = serde_json::from_slice(&out).expect("the walk writes JSON");
                    assert_eq!(got, want, "{bytes:?}");
                    assert_eq!(out, serde_json::to_vec(&want).expect("JSON"), "same text");
                    // Every union of this schema tells its branches apart, so the JSON
                    // and the schema give back the bytes.
                    assert!(told, "{bytes:?}");
                    let mut again = Vec::new();
                    avro_from_json(&schema, &names, &got, &mut again);
                    assert_eq!(again, bytes, "{got}");
                    agreed += 1;
                }
                (Err(_), Err(_)) => refused += 1,
                (walked, read) => {
                    panic!("{bytes:?}: the walk {walked:?}, apache-avro {read:?}")
                }
            }
        }
    }
    assert!(agreed >= 3000 && refused > 1000, "{agreed} agreed, {refused} refused");
}

/// Regression (issue 32): a map of several entries failed to decode most of the time,
/// because the check that the datum is written back the same wrote its entries in hash
/// order. Decoded through the walk, the map keeps its entries as written.
#[test]
fn an_avro_map_of_several_entries_decodes() {
    let (decoder, schema, names) = every_kind();
    let mut random = crate::fuzz::Inputs::new(0x6d61_7073, 16);
    for _ in 0..20 {
        let mut datum = Vec::new();
        random_datum(&schema, &names, &mut random, 0, 8, &mut datum);
        let (encoding, value) = decoder.decode(&datum).expect("decodes");
        assert_eq!(encoding, Encoding::Avro);
        assert!(value["m"].is_object(), "{value}");
        // The entries keep their order: the JSON gives back the bytes.
        let mut again = Vec::new();
        avro_from_json(&schema, &names, &value, &mut again);
        assert_eq!(again, datum, "{value}");
    }
}
