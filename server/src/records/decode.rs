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
                    apache_avro::schema::ResolvedSchema::try_from(schemata).ok().map(|resolved| {
                        let names: crate::records::avro::Names = resolved
                            .get_names()
                            .iter()
                            .map(|(name, schema)| (name.clone(), (*schema).clone()))
                            .collect();
                        Box::new(crate::records::avro::Plan::new(&schema, &names))
                    })
                };
                Ok(Decoder::Avro { schema, references, plan })
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
            Decoder::Avro { plan: Some(plan), .. } => super::avro::to_json(plan, payload, out).ok(),
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
            Decoder::Avro { schema, references, plan } => {
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
    schema: &apache_avro::Schema, references: &[apache_avro::Schema], payload: &[u8],
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
        let (&byte, rest) = bytes.split_first().ok_or("the message-index list is cut short")?;
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
    pool: &DescriptorPool, plan: &super::proto::Plan, payload: &'a [u8],
) -> Result<(Framed, &'a [u8]), String> {
    if let (Some((0, rest)), Some(first)) = (payload.split_first(), plan.first()) {
        let framed = Framed { number: Some(first), descriptor: None };
        return Ok((framed, rest));
    }
    let (indexes, rest) = message_indexes(payload)?;
    let descriptor = message_at(pool, &indexes)?;
    let framed = Framed { number: plan.message(&descriptor), descriptor: Some(descriptor) };
    Ok((framed, rest))
}

/// The message at an index path: the n-th top-level message of the schema, then nested ones.
pub(super) fn message_at(
    pool: &DescriptorPool, indexes: &[usize],
) -> Result<MessageDescriptor, String> {
    let file = pool.get_file_by_name(MAIN_PROTO).ok_or("the compiled schema is missing")?;
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
    plain_as(bytes, true)
}

/// [`plain`], with the bytes of JSON that reads otherwise than it is written (`raw`) only when
/// `exact`: a filter looks at the data, never at the bytes.
fn plain_as(bytes: Option<&[u8]>, exact: bool) -> Encoded {
    let Some(bytes) = bytes else {
        return encoded(Encoding::Null, Value::Null);
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return encoded(Encoding::Base64, Value::String(STANDARD.encode(bytes)));
    };
    // JSON only for objects and arrays: a bare number or word reads better as text.
    if looks_structured(text) {
        if let Ok(json) = serde_json::from_str::<Value>(text) {
            let same = !exact || serde_json::to_string(&json).is_ok_and(|compact| compact == text);
            let mut out = encoded(Encoding::Json, json);
            if !same {
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
    Encoded { encoding, data, schema_id: None, raw: None, error: None, masked: false }
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
                    match registry.schema_by_id(id, &|_| true).await {
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
        self.decode_as(loaded, bytes, true)
    }

    /// [`Schemas::decode`] for a filter: the data only, without the bytes an answer carries
    /// beside it (`raw`).
    pub fn decode_data(&self, loaded: &Loaded, bytes: Option<&[u8]>) -> Encoded {
        self.decode_as(loaded, bytes, false)
    }

    fn decode_as(&self, loaded: &Loaded, bytes: Option<&[u8]>, exact: bool) -> Encoded {
        let Some(raw) = bytes else {
            return plain(None);
        };
        let Some((id, payload)) = self.wanted(Some(raw)).and_then(|_| confluent_frame(raw)) else {
            return plain_as(Some(raw), exact);
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
                raw: exact.then(|| STANDARD.encode(raw)),
                error: None,
                masked: false,
            },
            Err(error) => {
                let mut out = plain_as(Some(raw), exact);
                out.schema_id = Some(id);
                out.error = Some(error);
                out
            }
        }
    }
}

#[cfg(test)]
mod tests;
