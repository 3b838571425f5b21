//! A schema proposed for a subject, and how records already in a topic read with it: the
//! registration's dry run tries the topic's newest records against the proposal before anything
//! is registered. It reads with the decoders of `decode` and the JSON Schema validator of
//! `encode`, which do not need it.

use prost_reflect::DynamicMessage;
use serde_json::Value;

use super::decode::{
    avro_value, confluent_frame, message_at, message_indexes, Decoder, Loaded, MAX_DECODED,
};
use super::encode;
use crate::registry::SchemaText;

/// A schema proposed for a subject, ready to read records with.
pub struct Proposed {
    decoder: Decoder,
    json: Option<encode::JsonValidator>,
}

impl Proposed {
    /// Prepares a proposed schema; the error says why it does not parse.
    pub fn new(text: &SchemaText) -> Result<Proposed, String> {
        // Avro and JSON Schema texts are JSON: a syntax error is named with its line and column.
        if text.schema_type != "PROTOBUF" {
            serde_json::from_str::<serde::de::IgnoredAny>(&text.schema)
                .map_err(|e| format!("the schema is not JSON: {e}"))?;
        }
        let decoder = Decoder::new(text)?;
        let json = match decoder {
            Decoder::Json => Some(encode::json_validator(text).map_err(|e| match e {
                encode::Unfit::Schema(why) => why,
                encode::Unfit::Value { reason, .. } => reason,
            })?),
            _ => None,
        };
        Ok(Proposed { decoder, json })
    }

    /// How framed `bytes` read with this schema: Avro through schema resolution from the
    /// record's writer schema to the proposed one; Protobuf as the message its frame names,
    /// decoded with the proposed schema; JSON Schema as the document checked against it.
    pub fn read(&self, loaded: &Loaded, bytes: Option<&[u8]>) -> Reading {
        let Some(raw) = bytes else {
            return Reading::Unchecked("null".into());
        };
        let Some((id, payload)) = confluent_frame(raw) else {
            return Reading::Unchecked("not framed with a schema id".into());
        };
        let writer = match loaded.0.get(&id).map(|d| d.as_ref()) {
            Some(Ok(writer)) => writer,
            Some(Err(error)) => return Reading::Unchecked(format!("schema {id}: {error}")),
            None => return Reading::Unchecked(format!("schema {id} could not be fetched")),
        };
        if payload.len() > MAX_DECODED {
            return Reading::Unchecked(format!(
                "{} bytes are more than klens decodes",
                payload.len()
            ));
        }
        let outcome = match (writer, &self.decoder) {
            (
                Decoder::Avro { schema, references, .. },
                Decoder::Avro { schema: reader, references: reader_references, .. },
            ) => {
                // The reasons below never quote the datum: whoever reads them may lack RECORDS.
                let Ok(value) = avro_value(schema, references, payload) else {
                    return Reading::Unchecked(format!(
                        "its bytes are not a datum of its writer schema {id}"
                    ));
                };
                let schemata: Vec<&apache_avro::Schema> =
                    std::iter::once(reader).chain(reader_references.iter()).collect();
                value.resolve_schemata(reader, schemata).map(|_| ()).map_err(|_| {
                    format!(
                        "written with schema {id}, it does not resolve to the proposed schema \
                         (a field it lacks has no default, or a value's type is not accepted)"
                    )
                })
            }
            (Decoder::Protobuf { .. }, Decoder::Protobuf { pool, .. }) => message_indexes(payload)
                .and_then(|(indexes, rest)| {
                    let descriptor = message_at(pool, &indexes)?;
                    DynamicMessage::decode(descriptor, rest)
                        .map(|_| ())
                        .map_err(|e| format!("not Protobuf of the proposed schema: {e}"))
                }),
            (Decoder::Json, Decoder::Json) => {
                match (&self.json, serde_json::from_slice::<Value>(payload)) {
                    (_, Err(e)) => return Reading::Unchecked(format!("not a JSON document: {e}")),
                    (Some(validator), Ok(doc)) => {
                        validator.first_error(&doc).map_err(|e| match e {
                            encode::Unfit::Value { path, reason } => {
                                format!("at \"{path}\": {reason}")
                            }
                            encode::Unfit::Schema(why) => why,
                        })
                    }
                    (None, Ok(_)) => Ok(()),
                }
            }
            (writer, proposed) => Err(format!(
                "written as {} with schema {id}; the proposed schema is {}",
                writer.kind(),
                proposed.kind()
            )),
        };
        match outcome {
            Ok(()) => Reading::Fits,
            Err(why) => Reading::Fails(why),
        }
    }
}

/// How one record's key or value reads with a proposed schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// It reads.
    Fits,
    /// It does not, and why.
    Fails(String),
    /// It could not be tried (null, not framed by a registry serializer, its writer schema
    /// unknown), and why.
    Unchecked(String),
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn text(schema: &str, kind: &str) -> SchemaText {
        let (schema, schema_type) = (schema.to_string(), kind.to_string());
        SchemaText { schema, schema_type, references: Vec::new() }
    }

    fn framed(id: u32, payload: &[u8]) -> Vec<u8> {
        [&[0][..], &id.to_be_bytes(), payload].concat()
    }

    /// A proposed schema reads each record as its writer's schema and the proposal allow:
    /// through Avro resolution, as the Protobuf message of the frame, or checked as JSON.
    #[test]
    fn records_are_read_with_a_proposed_schema() {
        let writers = [
            (1, r#"{"type":"record","name":"P","fields":[{"name":"a","type":"int"}]}"#, "AVRO"),
            (2, "syntax = \"proto3\";\nmessage M { int32 a = 1; }\n", "PROTOBUF"),
            (3, "{}", "JSON"),
        ];
        let mut loaded = Loaded::default();
        for (id, schema, kind) in writers {
            loaded.0.insert(id, Arc::new(Decoder::new(&text(schema, kind))));
        }
        let proposed =
            |schema: &str, kind: &str| Proposed::new(&text(schema, kind)).expect("parses");
        let with_default = proposed(
            r#"{"type":"record","name":"P","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":"x"}]}"#,
            "AVRO",
        );
        let without_default = proposed(
            r#"{"type":"record","name":"P","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}"#,
            "AVRO",
        );
        // A value that does not resolve is never quoted in the reason.
        let mut named = Loaded::default();
        named.0.insert(
            4,
            Arc::new(Decoder::new(&text(
                r#"{"type":"record","name":"P","fields":[{"name":"a","type":"string"}]}"#,
                "AVRO",
            ))),
        );
        let secret = b"card-4111111111111111";
        let mut datum = vec![(secret.len() as u8) << 1];
        datum.extend_from_slice(secret);
        let as_int = proposed(
            r#"{"type":"record","name":"P","fields":[{"name":"a","type":"int"}]}"#,
            "AVRO",
        );
        match as_int.read(&named, Some(&framed(4, &datum))) {
            Reading::Fails(why) => assert!(!why.contains("4111"), "{why}"),
            other => panic!("{other:?}"),
        }
        let avro = framed(1, &[0x0a]);
        assert_eq!(with_default.read(&loaded, Some(&avro)), Reading::Fits);
        assert!(matches!(
            without_default.read(&loaded, Some(&avro)),
            Reading::Fails(why) if why.contains("schema 1")
        ));
        // A datum its own writer schema does not read is not the proposal's fault.
        let broken = framed(1, &[0x80]);
        assert!(matches!(with_default.read(&loaded, Some(&broken)), Reading::Unchecked(_)));

        // Protobuf: field 1 as a varint reads as int32, not as a string (wire type 2).
        let proto = framed(2, &[0, 0x08, 0x05]);
        let as_int = proposed("syntax = \"proto3\";\nmessage M { int64 a = 1; }\n", "PROTOBUF");
        let as_text = proposed("syntax = \"proto3\";\nmessage M { string a = 1; }\n", "PROTOBUF");
        assert_eq!(as_int.read(&loaded, Some(&proto)), Reading::Fits);
        assert!(matches!(as_text.read(&loaded, Some(&proto)), Reading::Fails(_)));

        // JSON Schema: the document is checked against the proposal.
        let json = framed(3, br#"{"a": 5}"#);
        let needs_a = proposed(r#"{"type":"object","required":["a"]}"#, "JSON");
        let needs_b = proposed(r#"{"type":"object","required":["b"]}"#, "JSON");
        assert_eq!(needs_a.read(&loaded, Some(&json)), Reading::Fits);
        assert!(matches!(needs_b.read(&loaded, Some(&json)), Reading::Fails(_)));

        // Another type, no frame, a tombstone, an unknown id.
        assert!(matches!(
            with_default.read(&loaded, Some(&json)),
            Reading::Fails(why) if why.contains("JSON") && why.contains("AVRO")
        ));
        for bytes in [Some(&b"plain"[..]), None, Some(&framed(9, &[0])[..])] {
            assert!(matches!(with_default.read(&loaded, bytes), Reading::Unchecked(_)));
        }
    }

    /// A proposed schema that is not JSON says where.
    #[test]
    fn a_proposed_schema_that_does_not_parse_says_where() {
        let Err(why) = Proposed::new(&text("{\"type\": \"record\",\n \"name\" \"P\"}", "AVRO"))
        else {
            panic!("not JSON");
        };
        assert!(why.contains("line 2"), "{why}");
        let Err(why) = Proposed::new(&text(
            r#"{"type":"record","name":"P","fields":[{"name":"a","type":"nope"}]}"#,
            "AVRO",
        )) else {
            panic!("an unknown type");
        };
        assert!(why.contains("nope"), "{why}");
    }
}
