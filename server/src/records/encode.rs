//! Turning a JSON value into the bytes of a registered schema, framed as Confluent's serializers
//! frame them (magic byte 0, the schema id, for Protobuf the message indexes, then the payload):
//! the other half of [`super::decode`], used by produce.
//!
//! A value that does not fit is refused with the path of the first part that does not (`/a/0/b`,
//! a JSON pointer into the value), before anything is sent. The forms klens shows a decoded
//! value in are the forms it accepts back, so a record read from a page can be written again.

use std::collections::HashMap;

use apache_avro::schema::{
    DecimalSchema, EnumSchema, FixedSchema, Name, Namespace, RecordSchema, ResolvedSchema,
};
use apache_avro::types::Value as Avro;
use apache_avro::Schema;
use prost_reflect::prost::Message;
use prost_reflect::{DynamicMessage, MessageDescriptor};
use serde_json::Value;

use super::decode::{Decoder, MAIN_PROTO};
use crate::registry::SchemaText;

/// Why a value was not encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unfit {
    /// The registered schema itself cannot be used (it does not parse, or names a message it
    /// lacks).
    Schema(String),
    /// The value does not fit the schema: where (a JSON pointer, `""` for the whole value) and
    /// why.
    Value { path: String, reason: String },
}

fn unfit(path: &str, reason: impl Into<String>) -> Unfit {
    Unfit::Value { path: path.to_string(), reason: reason.into() }
}

/// The most steps an Avro conversion may take: a union tries each of its types, so a schema of
/// unions inside unions could otherwise make a small value cost a great deal.
const AVRO_STEPS: usize = 1_000_000;

/// Encodes `value` with schema `id` (whose text is `schema`); `message` picks a Protobuf
/// message by its full name (default: the schema's first message).
pub fn encode(
    schema: &SchemaText, id: u32, message: Option<&str>, value: &Value,
) -> Result<Vec<u8>, Unfit> {
    let mut out = vec![0];
    out.extend_from_slice(&id.to_be_bytes());
    match schema.schema_type.as_str() {
        "JSON" => {
            json_schema(schema, value)?;
            let bytes = serde_json::to_vec(value).map_err(|e| unfit("", e.to_string()))?;
            out.extend_from_slice(&bytes);
        }
        _ => match Decoder::new(schema).map_err(Unfit::Schema)? {
            Decoder::Avro { schema, references, .. } => {
                let schemata: Vec<&Schema> =
                    std::iter::once(&schema).chain(references.iter()).collect();
                let resolved = ResolvedSchema::try_from(schemata.clone())
                    .map_err(|e| Unfit::Schema(format!("the Avro schema does not resolve: {e}")))?;
                let mut walk = AvroWalk { names: resolved.get_names(), steps: AVRO_STEPS };
                let datum = walk.value(&schema, &None, value, "", 0)?;
                let bytes = apache_avro::to_avro_datum_schemata(&schema, schemata, datum)
                    .map_err(|e| unfit("", format!("Avro refused the value: {e}")))?;
                out.extend_from_slice(&bytes);
            }
            Decoder::Protobuf { pool, .. } => {
                let file = pool
                    .get_file_by_name(MAIN_PROTO)
                    .ok_or_else(|| Unfit::Schema("the compiled schema is missing".into()))?;
                let descriptor = match message {
                    Some(name) => pool
                        .get_message_by_name(name)
                        .filter(|m| m.parent_file() == file)
                        .ok_or_else(|| {
                            Unfit::Schema(format!("the schema has no message named {name}"))
                        })?,
                    None => file
                        .messages()
                        .next()
                        .ok_or_else(|| Unfit::Schema("the schema has no message".into()))?,
                };
                out.extend_from_slice(&message_indexes(&descriptor));
                out.extend_from_slice(&protobuf(&descriptor, value)?.encode_to_vec());
            }
            // JSON schemas are handled above; `Decoder::new` gives this only for them.
            Decoder::Json => return Err(Unfit::Schema("a JSON schema took the wrong path".into())),
        },
    }
    Ok(out)
}

/// Confluent's message-index list for a message: the index of each message from the file's
/// top level down, as zig-zag varints after their count; `[0]` is written as a single 0.
fn message_indexes(message: &MessageDescriptor) -> Vec<u8> {
    let mut path = Vec::new();
    let mut at = message.clone();
    loop {
        let siblings: Vec<MessageDescriptor> = match at.parent_message() {
            Some(parent) => parent.child_messages().collect(),
            None => at.parent_file().messages().collect(),
        };
        path.push(siblings.iter().position(|m| *m == at).unwrap_or(0));
        match at.parent_message() {
            Some(parent) => at = parent,
            None => break,
        }
    }
    path.reverse();
    if path == [0] {
        return vec![0];
    }
    let mut out = Vec::new();
    for n in std::iter::once(path.len()).chain(path.iter().copied()) {
        let mut z = (n as u64) << 1;
        loop {
            let byte = (z & 0x7f) as u8;
            z >>= 7;
            if z == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
    }
    out
}

/// The JSON pointer of a serde path (`a.b[0]` → `/a/b/0`).
fn pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        out.push('/');
        match segment {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } | Segment::Enum { variant: key } => out.push_str(&escape(key)),
            Segment::Unknown => out.push('?'),
        }
    }
    out
}

/// A message from its protobuf JSON form (field names in lowerCamelCase or as declared).
fn protobuf(descriptor: &MessageDescriptor, value: &Value) -> Result<DynamicMessage, Unfit> {
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(value, &mut track);
    DynamicMessage::deserialize(descriptor.clone(), tracked)
        .map_err(|e| Unfit::Value { path: pointer(&track.path()), reason: e.to_string() })
}

/// Finds a schema a JSON schema references, among the references registered with it. A
/// reference to anything else fails: klens never fetches a URL a schema names.
struct References(HashMap<String, Value>);

impl jsonschema::Retrieve for References {
    fn retrieve(
        &self, uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let uri = uri.as_str();
        self.0
            .iter()
            .find(|(name, _)| uri == name.as_str() || uri.ends_with(&format!("/{name}")))
            .map(|(_, schema)| schema.clone())
            .ok_or_else(|| format!("{uri} is not among the schema's references").into())
    }
}

/// Checks `value` against a JSON schema and its references.
fn json_schema(schema: &SchemaText, value: &Value) -> Result<(), Unfit> {
    json_validator(schema)?.first_error(value)
}

/// A JSON schema compiled with its references, ready to check values against.
pub struct JsonValidator(jsonschema::Validator);

impl JsonValidator {
    /// The first place `value` breaks the schema, as a JSON pointer and a reason.
    pub fn first_error(&self, value: &Value) -> Result<(), Unfit> {
        let first = self.0.iter_errors(value).next().map(|error| Unfit::Value {
            path: error.instance_path().as_str().to_string(),
            reason: error.masked().to_string(),
        });
        first.map_or(Ok(()), Err)
    }
}

/// Compiles a JSON schema with the schemas it references.
pub fn json_validator(schema: &SchemaText) -> Result<JsonValidator, Unfit> {
    let parse = |text: &str| {
        serde_json::from_str::<Value>(text)
            .map_err(|e| Unfit::Schema(format!("the JSON schema is not JSON: {e}")))
    };
    let references = schema
        .references
        .iter()
        .map(|(name, text)| Ok((name.clone(), parse(text)?)))
        .collect::<Result<HashMap<_, _>, Unfit>>()?;
    let validator = jsonschema::options()
        // Linear-time patterns: a registered pattern must not make a value take forever.
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .with_retriever(References(references))
        .build(&parse(&schema.schema)?)
        .map_err(|e| Unfit::Schema(format!("the JSON schema does not compile: {e}")))?;
    Ok(JsonValidator(validator))
}

struct AvroWalk<'a, 's> {
    names: &'a apache_avro::schema::NamesRef<'s>,
    steps: usize,
}

/// The JSON kind of a value, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The name a union branch goes by in Avro's JSON encoding (`{"string": "x"}`).
fn branch_name(schema: &Schema) -> Option<String> {
    if let Some(name) = schema.name() {
        return Some(name.fullname(None));
    }
    Some(
        match schema {
            Schema::Null => "null",
            Schema::Boolean => "boolean",
            Schema::Int | Schema::Date | Schema::TimeMillis => "int",
            long_schemas!() => "long",
            Schema::Float => "float",
            Schema::Double => "double",
            Schema::Bytes | Schema::BigDecimal => "bytes",
            Schema::String | Schema::Uuid => "string",
            Schema::Array(_) => "array",
            Schema::Map(_) => "map",
            _ => return None,
        }
        .to_string(),
    )
}

/// Bytes as klens shows them (an array of numbers 0–255) or as Avro's JSON encoding writes them
/// (a string whose code points are the bytes).
fn bytes_of(value: &Value, path: &str) -> Result<Vec<u8>, Unfit> {
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_u64().and_then(|n| u8::try_from(n).ok()).ok_or_else(|| {
                    unfit(&format!("{path}/{i}"), "a byte is a number from 0 to 255")
                })
            })
            .collect(),
        Value::String(text) => text
            .chars()
            .map(|c| {
                u8::try_from(u32::from(c)).map_err(|_| {
                    unfit(path, "bytes as a string take characters U+0000 to U+00FF only")
                })
            })
            .collect(),
        other => Err(unfit(
            path,
            format!("expected bytes (an array of numbers or a string), found {}", kind(other)),
        )),
    }
}

impl AvroWalk<'_, '_> {
    fn value(
        &mut self, schema: &Schema, space: &Namespace, value: &Value, path: &str, depth: usize,
    ) -> Result<Avro, Unfit> {
        if depth > super::avro::MAX_DEPTH {
            return Err(unfit(path, "the value nests deeper than klens encodes"));
        }
        self.steps = self
            .steps
            .checked_sub(1)
            .ok_or_else(|| unfit(path, "the value is too costly to fit to this schema"))?;
        let expected = |what: &str| unfit(path, format!("expected {what}, found {}", kind(value)));
        let int = || -> Result<i32, Unfit> {
            value
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| expected("a whole number from -2^31 to 2^31-1"))
        };
        let long = || value.as_i64().ok_or_else(|| expected("a whole number of 64 bits"));
        Ok(match schema {
            Schema::Null => match value {
                Value::Null => Avro::Null,
                _ => return Err(expected("null")),
            },
            Schema::Boolean => Avro::Boolean(value.as_bool().ok_or_else(|| expected("a boolean"))?),
            Schema::Int => Avro::Int(int()?),
            Schema::Date => Avro::Date(int()?),
            Schema::TimeMillis => Avro::TimeMillis(int()?),
            Schema::Long => Avro::Long(long()?),
            Schema::TimeMicros => Avro::TimeMicros(long()?),
            Schema::TimestampMillis => Avro::TimestampMillis(long()?),
            Schema::TimestampMicros => Avro::TimestampMicros(long()?),
            Schema::TimestampNanos => Avro::TimestampNanos(long()?),
            Schema::LocalTimestampMillis => Avro::LocalTimestampMillis(long()?),
            Schema::LocalTimestampMicros => Avro::LocalTimestampMicros(long()?),
            Schema::LocalTimestampNanos => Avro::LocalTimestampNanos(long()?),
            Schema::Float => {
                Avro::Float(value.as_f64().ok_or_else(|| expected("a number"))? as f32)
            }
            Schema::Double => Avro::Double(value.as_f64().ok_or_else(|| expected("a number"))?),
            Schema::String => {
                Avro::String(value.as_str().ok_or_else(|| expected("a string"))?.to_string())
            }
            Schema::Uuid => {
                let text = value.as_str().ok_or_else(|| expected("a UUID string"))?;
                Avro::Uuid(text.parse().map_err(|e| unfit(path, format!("not a UUID: {e}")))?)
            }
            Schema::Bytes => Avro::Bytes(bytes_of(value, path)?),
            Schema::BigDecimal => {
                return Err(unfit(path, "klens does not write big-decimal values"));
            }
            Schema::Fixed(FixedSchema { size, .. }) => {
                let bytes = bytes_of(value, path)?;
                if bytes.len() != *size {
                    return Err(unfit(
                        path,
                        format!("expected exactly {size} bytes, found {}", bytes.len()),
                    ));
                }
                Avro::Fixed(*size, bytes)
            }
            Schema::Duration => {
                let bytes: [u8; 12] = bytes_of(value, path)?
                    .try_into()
                    .map_err(|_| unfit(path, "a duration is exactly 12 bytes"))?;
                Avro::Duration(bytes.into())
            }
            Schema::Decimal(DecimalSchema { inner, .. }) => {
                let bytes = bytes_of(value, path)?;
                if let Schema::Fixed(FixedSchema { size, .. }) = inner.as_ref() {
                    if bytes.len() != *size {
                        return Err(unfit(
                            path,
                            format!("expected exactly {size} bytes, found {}", bytes.len()),
                        ));
                    }
                }
                Avro::Decimal(bytes.into())
            }
            Schema::Enum(EnumSchema { symbols, .. }) => {
                let text = value.as_str().ok_or_else(|| expected("a symbol string"))?;
                let index = symbols.iter().position(|s| s == text).ok_or_else(|| {
                    unfit(
                        path,
                        format!("\"{text}\" is not one of the symbols {}", symbols.join(", ")),
                    )
                })?;
                Avro::Enum(index as u32, text.to_string())
            }
            Schema::Array(array) => {
                let items = value.as_array().ok_or_else(|| expected("an array"))?;
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    out.push(self.value(
                        &array.items,
                        space,
                        item,
                        &format!("{path}/{i}"),
                        depth + 1,
                    )?);
                }
                Avro::Array(out)
            }
            Schema::Map(map) => {
                let entries = value.as_object().ok_or_else(|| expected("an object"))?;
                let mut out = HashMap::with_capacity(entries.len());
                for (key, item) in entries {
                    let at = format!("{path}/{}", escape(key));
                    out.insert(key.clone(), self.value(&map.types, space, item, &at, depth + 1)?);
                }
                Avro::Map(out)
            }
            Schema::Record(RecordSchema { name, fields, .. }) => {
                let inner = name.fully_qualified_name(space).namespace;
                let given = value.as_object().ok_or_else(|| expected("an object"))?;
                if let Some(extra) = given.keys().find(|k| !fields.iter().any(|f| &f.name == *k)) {
                    return Err(unfit(
                        &format!("{path}/{}", escape(extra)),
                        format!("{} has no field named \"{extra}\"", name.fullname(None)),
                    ));
                }
                let mut out = Vec::with_capacity(fields.len());
                for field in fields {
                    let at = format!("{path}/{}", escape(&field.name));
                    let datum = match (given.get(&field.name), &field.default) {
                        (Some(v), _) => self.value(&field.schema, &inner, v, &at, depth + 1)?,
                        (None, Some(default)) => {
                            // A union's default is a value of its first type.
                            let (schema, wrap) = match &field.schema {
                                Schema::Union(u) => match u.variants().first() {
                                    Some(first) => (first, true),
                                    None => (&field.schema, false),
                                },
                                other => (other, false),
                            };
                            let datum = self.value(schema, &inner, default, &at, depth + 1)?;
                            if wrap {
                                Avro::Union(0, Box::new(datum))
                            } else {
                                datum
                            }
                        }
                        (None, None) => {
                            return Err(unfit(&at, "missing, and the field has no default"))
                        }
                    };
                    out.push((field.name.clone(), datum));
                }
                Avro::Record(out)
            }
            Schema::Union(union) => return self.union(union.variants(), space, value, path, depth),
            Schema::Ref { name } => {
                let full: Name = name.fully_qualified_name(space);
                let found = self.names.get(&full).ok_or_else(|| {
                    Unfit::Schema(format!("the schema has no type named {}", full.fullname(None)))
                })?;
                self.value(found, &full.namespace, value, path, depth + 1)?
            }
        })
    }

    /// A union value: the Avro JSON encoding `{"<type>": value}` when the key names one of the
    /// union's types, else the first type the plain value fits.
    fn union(
        &mut self, variants: &[Schema], space: &Namespace, value: &Value, path: &str, depth: usize,
    ) -> Result<Avro, Unfit> {
        let named = |schema: &Schema| {
            let mut name = branch_name(schema)?;
            if let (Some(n), Some(ns)) = (schema.name(), space) {
                if n.namespace.is_none() {
                    name = format!("{ns}.{name}");
                }
            }
            Some(name)
        };
        if let Some((key, inner)) =
            value.as_object().filter(|o| o.len() == 1).and_then(|o| o.iter().next())
        {
            for (i, variant) in variants.iter().enumerate() {
                let matches = named(variant).is_some_and(|n| n == *key)
                    || variant.name().is_some_and(|n| n.name == *key);
                if matches {
                    let at = format!("{path}/{}", escape(key));
                    let datum = self.value(variant, space, inner, &at, depth + 1)?;
                    return Ok(Avro::Union(i as u32, Box::new(datum)));
                }
            }
        }
        let mut errors = Vec::new();
        for (i, variant) in variants.iter().enumerate() {
            match self.value(variant, space, value, path, depth + 1) {
                Ok(datum) => return Ok(Avro::Union(i as u32, Box::new(datum))),
                Err(e @ Unfit::Schema(_)) => return Err(e),
                Err(e) => errors.push((variant, e)),
            }
        }
        // When only one type takes values of this JSON kind, its complaint is the useful one.
        let same_kind: Vec<_> = errors
            .into_iter()
            .filter(|(variant, _)| same_kind(variant, value, self.names, space))
            .collect();
        if let [(_, error)] = same_kind.as_slice() {
            return Err(error.clone());
        }
        let names: Vec<String> = variants.iter().filter_map(branch_name).collect();
        Err(unfit(
            path,
            format!("{} fits none of the union's types ({})", kind(value), names.join(", ")),
        ))
    }
}

/// Whether a schema takes JSON values of the kind `value` is.
fn same_kind(
    schema: &Schema, value: &Value, names: &apache_avro::schema::NamesRef<'_>, space: &Namespace,
) -> bool {
    let schema = match schema {
        Schema::Ref { name } => match names.get(&name.fully_qualified_name(space)) {
            Some(found) => *found,
            None => return false,
        },
        other => other,
    };
    match value {
        Value::Object(_) => matches!(schema, Schema::Record(_) | Schema::Map(_)),
        Value::Array(_) => matches!(
            schema,
            Schema::Array(_) | Schema::Bytes | Schema::Fixed(_) | Schema::Decimal(_)
        ),
        Value::String(_) => matches!(schema, Schema::String | Schema::Enum(_) | Schema::Uuid),
        Value::Number(_) => {
            matches!(schema, Schema::Int | Schema::Long | Schema::Float | Schema::Double)
        }
        _ => false,
    }
}

/// A key as one step of a JSON pointer.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests;
