//! Turning a record's bytes into what people read, without ever losing a byte: Confluent-framed
//! Avro, Protobuf and JSON Schema through the registry; else JSON; else UTF-8 text; else base64.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::api::{Encoded, Encoding};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};
use serde_json::Value;

use crate::registry::{Registry, SchemaText};

/// A registered schema, ready to decode with.
pub enum Decoder {
    Avro {
        schema: apache_avro::Schema,
        references: Vec<apache_avro::Schema>,
        /// The schema worked out for the one-pass walk to JSON; `None` when its named types
        /// do not resolve (every datum then fails the slower way, with why).
        plan: Option<Box<crate::records::avro::Plan>>,
    },
    Protobuf {
        pool: DescriptorPool,
        /// The pool worked out for the one-pass walk to JSON.
        plan: Box<crate::records::proto::Plan>,
    },
    Json,
}

/// The largest value klens decodes through a schema; a larger one is shown as its bytes.
pub(super) const MAX_DECODED: usize = 8 * 1024 * 1024;

/// The name under which a Protobuf schema's own text is compiled.
pub const MAIN_PROTO: &str = "klens-schema.proto";

impl Decoder {
    /// Prepares a decoder from a schema and the schemas it references.
    pub fn new(schema: &SchemaText) -> Result<Decoder, String> {
        match schema.schema_type.as_str() {
            "AVRO" => {
                let refs: Vec<&str> = schema.references.iter().map(|r| r.1.as_str()).collect();
                let (schema, references) =
                    apache_avro::Schema::parse_str_with_list(&schema.schema, refs)
                        .map_err(|e| format!("the Avro schema does not parse: {}", causes(&e)))?;
                let plan = {
                    let schemata: Vec<&apache_avro::Schema> =
                        std::iter::once(&schema).chain(references.iter()).collect();
                    apache_avro::schema::ResolvedSchema::try_from(schemata)
                        .ok()
                        .map(|resolved| {
                            let names: crate::records::avro::Names = resolved
                                .get_names()
                                .iter()
                                .map(|(name, schema)| (name.clone(), (*schema).clone()))
                                .collect();
                            Box::new(crate::records::avro::Plan::new(&schema, &names))
                        })
                };
                Ok(Decoder::Avro {
                    schema,
                    references,
                    plan,
                })
            }
            "PROTOBUF" => {
                for text in
                    std::iter::once(&schema.schema).chain(schema.references.iter().map(|r| &r.1))
                {
                    check_proto_text(text)?;
                }
                let mut files: HashMap<String, String> =
                    schema.references.iter().cloned().collect();
                files.insert(MAIN_PROTO.to_string(), schema.schema.clone());
                let resolver = protox::file::ChainFileResolver::new();
                let mut resolver = resolver;
                resolver.add(SourceFiles(files));
                resolver.add(protox::file::GoogleFileResolver::new());
                let mut compiler = protox::Compiler::with_file_resolver(resolver);
                compiler
                    .open_file(MAIN_PROTO)
                    .map_err(|e| format!("the Protobuf schema does not compile: {e}"))?;
                let pool = compiler.descriptor_pool();
                let plan = Box::new(crate::records::proto::Plan::new(&pool, MAIN_PROTO));
                Ok(Decoder::Protobuf { pool, plan })
            }
            "JSON" => Ok(Decoder::Json),
            other => Err(format!("schema type {other} is not supported")),
        }
    }

    /// How values decoded with this schema are shown.
    pub fn encoding(&self) -> Encoding {
        match self {
            Decoder::Avro { .. } => Encoding::Avro,
            Decoder::Protobuf { .. } => Encoding::Protobuf,
            Decoder::Json => Encoding::JsonSchema,
        }
    }

    /// The registry's name of the schema type.
    pub fn kind(&self) -> &'static str {
        match self {
            Decoder::Avro { .. } => "AVRO",
            Decoder::Protobuf { .. } => "PROTOBUF",
            Decoder::Json => "JSON",
        }
    }

    /// Writes the JSON of a payload (after the Confluent header) straight into `out`, as
    /// [`Decoder::decode`] shows it, without building its tree: Avro through the one-pass
    /// walk, Protobuf through the message's own serialisation. `None` for JSON Schema, or
    /// when the walk or the message refuses the payload: `out` must then be cut back to where
    /// it was. `Some(true)` when the JSON and the schema alone give back the payload's bytes
    /// (see [`super::avro::to_json`]), so that the export can leave them out.
    pub(crate) fn write_data(&self, payload: &[u8], out: &mut Vec<u8>) -> Option<bool> {
        if payload.len() > MAX_DECODED {
            return None;
        }
        match self {
            Decoder::Avro {
                plan: Some(plan), ..
            } => super::avro::to_json(plan, payload, out).ok(),
            Decoder::Protobuf { pool, plan } => {
                let (message, rest) = framed_message(pool, plan, payload).ok()?;
                let mark = out.len();
                if let Some(number) = message.number {
                    if let Ok(told) = super::proto::to_json(plan, number, rest, out) {
                        // The frame's index list gives back its bytes only as `[0]`, one 0.
                        return Some(told && payload.len() == rest.len() + 1);
                    }
                    out.truncate(mark);
                }
                // Not as the walk takes it: through the decoded message, which gives the same
                // JSON when the wire bytes are valid at all.
                let descriptor = message.descriptor(pool).ok()?;
                DynamicMessage::decode(descriptor, rest)
                    .is_ok_and(|message| serde_json::to_writer(&mut *out, &message).is_ok())
                    .then_some(false)
            }
            _ => None,
        }
    }

    /// Decodes the payload after the five-byte Confluent header.
    pub(crate) fn decode(&self, payload: &[u8]) -> Result<(Encoding, Value), String> {
        if payload.len() > MAX_DECODED {
            return Err(format!(
                "{} bytes are more than klens decodes through a schema ({} MiB)",
                payload.len(),
                MAX_DECODED / (1024 * 1024)
            ));
        }
        match self {
            Decoder::Avro {
                schema,
                references,
                plan,
            } => {
                if let Some(plan) = plan {
                    let mut json = Vec::new();
                    if super::avro::to_json(plan, payload, &mut json).is_ok() {
                        if let Ok(value) = serde_json::from_slice(&json) {
                            return Ok((Encoding::Avro, value));
                        }
                    }
                }
                // Not a datum the walk writes: decoded the slower way, which says why.
                let value = avro_value(schema, references, payload)?;
                let json = Value::try_from(value).map_err(|e| format!("Avro to JSON: {e}"))?;
                Ok((Encoding::Avro, json))
            }
            Decoder::Protobuf { pool, plan } => {
                // Through the text the export writes, so that both show a value alike (a
                // `float` field as the shortest decimal of its 32 bits).
                let mut text = Vec::new();
                if self.write_data(payload, &mut text).is_some() {
                    let json = serde_json::from_slice(&text)
                        .map_err(|e| format!("Protobuf to JSON: {e}"))?;
                    return Ok((Encoding::Protobuf, json));
                }
                // Not decodable: decoded again to say why.
                let (message, rest) = framed_message(pool, plan, payload)?;
                let descriptor = message.descriptor(pool)?;
                DynamicMessage::decode(descriptor, rest)
                    .map_err(|e| format!("not Protobuf of this schema: {e}"))?;
                Err("Protobuf to JSON failed".into())
            }
            Decoder::Json => {
                let json = serde_json::from_slice(payload)
                    .map_err(|e| format!("not a JSON document: {e}"))?;
                Ok((Encoding::JsonSchema, json))
            }
        }
    }
}

/// An error with the errors it stems from, outermost first.
fn causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    // A chain is short; the bound keeps a cyclic one from running on.
    for _ in 0..8 {
        let Some(next) = source else { break };
        text.push_str(": ");
        text.push_str(&next.to_string());
        source = next.source();
    }
    text
}

/// The Avro datum `payload` of `schema`, after the checks that keep a hostile datum from
/// costing more than its size.
pub(super) fn avro_value(
    schema: &apache_avro::Schema,
    references: &[apache_avro::Schema],
    payload: &[u8],
) -> Result<apache_avro::types::Value, String> {
    // The writer schema itself is among the names, so a recursive schema's references to its
    // own type resolve.
    let schemata: Vec<&apache_avro::Schema> =
        std::iter::once(schema).chain(references.iter()).collect();
    let resolved = apache_avro::schema::ResolvedSchema::try_from(schemata.clone())
        .map_err(|e| format!("the Avro schema does not resolve: {e}"))?;
    super::avro::check(schema, resolved.get_names(), payload)
        .map_err(|e| format!("not Avro of this schema: {e}"))?;
    let mut reader = payload;
    let value = apache_avro::from_avro_datum_schemata(schema, schemata.clone(), &mut reader, None)
        .map_err(|e| format!("not Avro of this schema: {e}"))?;
    if !reader.is_empty() {
        return Err(format!("{} bytes left after the Avro datum", reader.len()));
    }
    // The reader forgives some damage (a string cut short); writing the value back must give
    // the very same bytes, or it was not this schema's datum.
    let again = apache_avro::to_avro_datum_schemata(schema, schemata, value.clone());
    if again.as_deref().ok() != Some(payload) {
        return Err("the bytes are not an Avro datum of this schema".into());
    }
    Ok(value)
}

/// The largest Protobuf schema text klens compiles, and its deepest nesting of braces.
const MAX_PROTO_TEXT: usize = 1024 * 1024;
const MAX_PROTO_NESTING: usize = 64;

/// Refuses a Protobuf schema text that is too large or nests too deep, before the compiler
/// (which recurses into every nested message) sees it: a schema author writes this text.
/// Braces inside strings and comments do not count.
fn check_proto_text(text: &str) -> Result<(), String> {
    if text.len() > MAX_PROTO_TEXT {
        return Err(format!(
            "the Protobuf schema is over {} KiB; klens does not compile it",
            MAX_PROTO_TEXT / 1024
        ));
    }
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                // Skip the string, with its escapes.
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for d in chars.by_ref() {
                    if star && d == '/' {
                        break;
                    }
                    star = d == '*';
                }
            }
            '{' | '(' | '[' | '<' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' | ')' | ']' | '>' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > MAX_PROTO_NESTING {
        return Err(format!(
            "the Protobuf schema nests deeper than {MAX_PROTO_NESTING} levels; klens does not \
             compile it"
        ));
    }
    Ok(())
}

/// The source texts of a schema and its references, by import name.
struct SourceFiles(HashMap<String, String>);

impl protox::file::FileResolver for SourceFiles {
    fn open_file(&self, name: &str) -> Result<protox::file::File, protox::Error> {
        match self.0.get(name) {
            Some(source) => protox::file::File::from_source(name, source),
            None => Err(protox::Error::file_not_found(name)),
        }
    }
}

/// Reads the message-index list that follows the schema id in Confluent's Protobuf framing: a
/// zig-zag varint count, then that many zig-zag varints; a count of 0 means the first message.
pub(super) fn message_indexes(bytes: &[u8]) -> Result<(Vec<usize>, &[u8]), String> {
    let mut rest = bytes;
    let count = zigzag(&mut rest)?;
    if count == 0 {
        return Ok((vec![0], rest));
    }
    if !(1..=100).contains(&count) {
        return Err(format!("a message-index list of {count} entries"));
    }
    let mut indexes = Vec::new();
    for _ in 0..count {
        let index = zigzag(&mut rest)?;
        indexes.push(usize::try_from(index).map_err(|_| "a negative message index")?);
    }
    Ok((indexes, rest))
}

fn zigzag(bytes: &mut &[u8]) -> Result<i64, String> {
    let mut value: u64 = 0;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes
            .split_first()
            .ok_or("the message-index list is cut short")?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok((value >> 1) as i64 ^ -((value & 1) as i64));
        }
    }
    Err("a message index longer than a varint".into())
}

/// The message a Protobuf frame names: the plan's number for it, and its descriptor unless it
/// is the schema's first message (the frame of almost every record, looked up once).
struct Framed {
    number: Option<u32>,
    descriptor: Option<MessageDescriptor>,
}

impl Framed {
    /// The message's descriptor, looked up now for the schema's first message.
    fn descriptor(self, pool: &DescriptorPool) -> Result<MessageDescriptor, String> {
        match self.descriptor {
            Some(descriptor) => Ok(descriptor),
            None => message_at(pool, &[0]),
        }
    }
}

/// Reads the message-index list of a Protobuf payload; the common list `[0]` (one 0 byte)
/// without a lookup.
fn framed_message<'a>(
    pool: &DescriptorPool,
    plan: &super::proto::Plan,
    payload: &'a [u8],
) -> Result<(Framed, &'a [u8]), String> {
    if let (Some((0, rest)), Some(first)) = (payload.split_first(), plan.first()) {
        let framed = Framed {
            number: Some(first),
            descriptor: None,
        };
        return Ok((framed, rest));
    }
    let (indexes, rest) = message_indexes(payload)?;
    let descriptor = message_at(pool, &indexes)?;
    let framed = Framed {
        number: plan.message(&descriptor),
        descriptor: Some(descriptor),
    };
    Ok((framed, rest))
}

/// The message at an index path: the n-th top-level message of the schema, then nested ones.
pub(super) fn message_at(
    pool: &DescriptorPool,
    indexes: &[usize],
) -> Result<MessageDescriptor, String> {
    let file = pool
        .get_file_by_name(MAIN_PROTO)
        .ok_or("the compiled schema is missing")?;
    let (first, nested) = indexes.split_first().ok_or("no message index")?;
    let mut message = file
        .messages()
        .nth(*first)
        .ok_or_else(|| format!("the schema has no message number {first}"))?;
    for index in nested {
        let child = message.child_messages().nth(*index);
        message =
            child.ok_or_else(|| format!("{} has no nested message {index}", message.name()))?;
    }
    Ok(message)
}

/// Magic byte 0 and a four-byte schema id, then the payload.
pub fn confluent_frame(bytes: &[u8]) -> Option<(u32, &[u8])> {
    match bytes {
        [0, a, b, c, d, payload @ ..] => Some((u32::from_be_bytes([*a, *b, *c, *d]), payload)),
        _ => None,
    }
}

/// Bytes without a schema: null, JSON, UTF-8 text, else base64.
pub fn plain(bytes: Option<&[u8]>) -> Encoded {
    let Some(bytes) = bytes else {
        return encoded(Encoding::Null, Value::Null);
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return encoded(Encoding::Base64, Value::String(STANDARD.encode(bytes)));
    };
    // JSON only for objects and arrays: a bare number or word reads better as text.
    if looks_structured(text) {
        if let Ok(json) = serde_json::from_str::<Value>(text) {
            let exact = serde_json::to_string(&json).is_ok_and(|compact| compact == text);
            let mut out = encoded(Encoding::Json, json);
            if !exact {
                out.raw = Some(STANDARD.encode(bytes));
            }
            return out;
        }
    }
    encoded(Encoding::Text, Value::String(text.to_string()))
}

/// Whether text is shown as JSON when it parses: only objects and arrays, since a bare number
/// or word reads better as text.
pub fn looks_structured(text: &str) -> bool {
    matches!(text.trim_start().as_bytes().first(), Some(b'{' | b'['))
}

fn encoded(encoding: Encoding, data: Value) -> Encoded {
    Encoded {
        encoding,
        data,
        schema_id: None,
        raw: None,
        error: None,
        masked: false,
    }
}

/// How many schemas klens keeps decoders for, per cluster.
const CACHED_SCHEMAS: u64 = 10_000;
/// How long klens believes the registry that it has no schema of an id (one may be registered
/// under that id later).
const MISSING_FOR: Duration = Duration::from_secs(60);
/// The most schemas one batch of records fetches at once.
const FETCH_AT_ONCE: usize = 16;

/// What klens knows of one schema id: a decoder, or why there is none.
pub(super) type Known = Arc<Result<Decoder, String>>;

/// Found schemas are kept (an id never changes meaning); the registry's "no such schema" only
/// for a while.
struct Lifetime;

impl moka::Expiry<u32, Known> for Lifetime {
    fn expire_after_create(&self, _: &u32, known: &Known, _: Instant) -> Option<Duration> {
        known.as_ref().as_ref().err().map(|_| MISSING_FOR)
    }
}

/// The most schemas one batch of records may fetch. A producer picks the id in each frame, so a
/// page of records with random ids must not become as many registry calls; records whose
/// schema was not fetched show their bytes, with the reason.
const NEW_PER_BATCH: usize = 32;

/// The ids of `ids` to look up for one batch: each once, the known ones first (they cost no
/// registry call), then at most [`NEW_PER_BATCH`] unknown ones.
fn to_fetch(ids: impl IntoIterator<Item = u32>, known: impl Fn(&u32) -> bool) -> Vec<u32> {
    let mut ids: Vec<u32> = ids.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    let (mut out, unknown): (Vec<u32>, Vec<u32>) = ids.into_iter().partition(|id| known(id));
    out.extend(unknown.into_iter().take(NEW_PER_BATCH));
    out
}

/// The decoders one batch of records needs, by schema id.
#[derive(Default)]
pub struct Loaded(pub(super) HashMap<u32, Known>);

impl Loaded {
    /// The decoder of schema `id`, when it was fetched and prepared.
    pub fn decoder(&self, id: u32) -> Option<&Decoder> {
        self.0.get(&id)?.as_ref().as_ref().ok()
    }
}

/// The registry's schemas by id, in a bounded cache whose loads of one id are shared: many
/// pages asking for the same schema at once make one registry call.
pub struct Schemas {
    registry: Option<Arc<Registry>>,
    cache: moka::future::Cache<u32, Known>,
}

impl Schemas {
    pub fn new(registry: Option<Arc<Registry>>) -> Schemas {
        Schemas {
            registry,
            cache: moka::future::Cache::builder()
                .max_capacity(CACHED_SCHEMAS)
                .expire_after(Lifetime)
                .build(),
        }
    }

    /// The decoders of `ids`, fetching those not known yet, several at once. An unreachable
    /// registry is not remembered: it is asked again for the next batch.
    pub async fn load(&self, ids: impl IntoIterator<Item = u32>) -> Loaded {
        let mut loaded = Loaded::default();
        let Some(registry) = &self.registry else {
            return loaded;
        };
        let wanted = to_fetch(ids, |id| self.cache.contains_key(id));
        for batch in wanted.chunks(FETCH_AT_ONCE) {
            let loads = batch.iter().map(|&id| async move {
                let known = self.cache.try_get_with(id, async move {
                    match registry.schema_by_id(id).await {
                        Ok(Some(text)) => Ok(Arc::new(Decoder::new(&text))),
                        Ok(None) => Ok(Arc::new(Err(format!("the registry has no schema {id}")))),
                        Err(error) => {
                            let error = String::from(error);
                            tracing::warn!(%error, id, "schema not fetched");
                            Err(error)
                        }
                    }
                });
                (id, known.await)
            });
            for (id, known) in futures::future::join_all(loads).await {
                if let Ok(known) = known {
                    loaded.0.insert(id, known);
                }
            }
        }
        loaded
    }

    /// The schema ids that framed `bytes` would need.
    pub fn wanted(&self, bytes: Option<&[u8]>) -> Option<u32> {
        self.registry.as_ref()?;
        confluent_frame(bytes?).map(|(id, _)| id)
    }

    /// Decodes a key or value: through its schema when it is framed and the schema is known,
    /// otherwise as plain bytes (with the reason when a schema was expected and failed).
    pub fn decode(&self, loaded: &Loaded, bytes: Option<&[u8]>) -> Encoded {
        let Some(raw) = bytes else {
            return plain(None);
        };
        let Some((id, payload)) = self.wanted(Some(raw)).and_then(|_| confluent_frame(raw)) else {
            return plain(Some(raw));
        };
        let outcome = match loaded.0.get(&id) {
            Some(decoder) => match decoder.as_ref() {
                Ok(decoder) => decoder.decode(payload),
                Err(error) => Err(error.clone()),
            },
            None => Err(format!("schema {id} could not be fetched")),
        };
        match outcome {
            Ok((encoding, data)) => Encoded {
                encoding,
                data,
                schema_id: Some(id),
                raw: Some(STANDARD.encode(raw)),
                error: None,
                masked: false,
            },
            Err(error) => {
                let mut out = plain(Some(raw));
                out.schema_id = Some(id);
                out.error = Some(error);
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (hardening issue): a page of records framed with a thousand random schema
    /// ids asked the registry a thousand times.
    #[test]
    fn one_batch_fetches_a_bounded_number_of_new_schemas() {
        let known = |id: &u32| *id < 5;
        let got = to_fetch((0..1000).rev().chain(0..1000), known);
        assert_eq!(
            &got[..5],
            &[0, 1, 2, 3, 4],
            "known ids cost nothing and all come"
        );
        assert_eq!(got.len(), 5 + NEW_PER_BATCH);
        let mut unique = got.clone();
        unique.dedup();
        assert_eq!(unique, got, "each id once");
    }

    fn text(schema: &str, kind: &str) -> SchemaText {
        SchemaText {
            schema: schema.to_string(),
            schema_type: kind.to_string(),
            references: Vec::new(),
        }
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
            assert_eq!(
                bytes_of(&encoded).as_deref(),
                Some(bytes.as_slice()),
                "{bytes:?}"
            );
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
                    assert!(
                        matches!(part.encoding, Encoding::Avro | Encoding::Protobuf),
                        "{bytes:?}"
                    );
                    part.raw = None;
                }
            }
            let mut want = serde_json::to_vec(&page).expect("JSON");
            want.push(b'\n');
            assert_eq!(
                String::from_utf8_lossy(&line),
                String::from_utf8_lossy(&want),
                "{bytes:?}"
            );
        }
    }

    /// Regression (hardening issue): schema text from the registry went to the Protobuf
    /// compiler as it was, however deep it nested.
    #[test]
    fn protobuf_schema_text_is_bounded_before_it_compiles() {
        let deep = format!(
            "syntax = \"proto3\";\n{}{}",
            "message A { ".repeat(5_000),
            "} ".repeat(5_000)
        );
        let e = check_proto_text(&deep).expect_err("too deep");
        assert!(e.contains("deeper"), "{e}");
        let text = SchemaText {
            schema: deep,
            schema_type: "PROTOBUF".into(),
            references: Vec::new(),
        };
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
        assert_eq!(
            confluent_frame(&[0, 0, 0, 1, 2, 9]),
            Some((258, &[9u8][..]))
        );
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
        let (_, data) = decoder
            .decode(&[2, 2, 4, 0])
            .expect("a list of two decodes");
        assert_eq!(
            data,
            serde_json::json!({"value": 1, "next": {"value": 2, "next": null}})
        );
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
        let e = decoder
            .decode(&vec![0; MAX_DECODED + 1])
            .expect_err("too large");
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
        let (_, data) = decoder
            .decode(&[0, 0x0a, 2, b'o', b'k'])
            .expect("first message");
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
        schema: &apache_avro::Schema,
        names: &crate::records::avro::Names,
        random: &mut crate::fuzz::Inputs,
        depth: usize,
        entries: u64,
        out: &mut Vec<u8>,
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
            Schema::Int | Schema::Date => long(
                i64::from(random.next_u64() as i32 >> (random.next_u64() % 32)),
                out,
            ),
            Schema::Long | Schema::TimestampMillis => {
                long(random.next_u64() as i64 >> (random.next_u64() % 64), out)
            }
            Schema::Float => {
                let f =
                    [0.1f32, -2.5, 1e30, 3.0, f32::MIN_POSITIVE][(random.next_u64() % 5) as usize];
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
                let n = if depth > 6 {
                    0
                } else {
                    random.next_u64() % u.variants().len() as u64
                };
                long(n as i64, out);
                random_datum(
                    &u.variants()[n as usize],
                    names,
                    random,
                    depth + 1,
                    entries,
                    out,
                );
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
        schema: &apache_avro::Schema,
        names: &crate::records::avro::Names,
        json: &Value,
        out: &mut Vec<u8>,
    ) {
        use apache_avro::Schema;
        let bytes = |json: &Value| -> Vec<u8> {
            let items = json.as_array().expect("bytes as an array");
            items
                .iter()
                .map(|b| b.as_u64().expect("a byte") as u8)
                .collect()
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
            (
                Schema::Int | Schema::Long | Schema::Date | Schema::TimestampMillis,
                Value::Number(n),
            ) => long(n.as_i64().expect("an integer"), out),
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
                let i = e
                    .symbols
                    .iter()
                    .position(|s| s == symbol)
                    .expect("a symbol");
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
                let i = u
                    .variants()
                    .iter()
                    .position(|v| kind(v) == want)
                    .expect("a branch");
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
                    items
                        .iter()
                        .for_each(|item| avro_from_json(&a.items, names, item, out));
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
        let Decoder::Avro {
            plan: Some(plan), ..
        } = &decoder
        else {
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
                        let got: Value =
                            serde_json::from_slice(&out).expect("the walk writes JSON");
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
        assert!(
            agreed >= 3000 && refused > 1000,
            "{agreed} agreed, {refused} refused"
        );
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
}
