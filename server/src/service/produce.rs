//! Producing one record: decided (writable → not internal → PRODUCE on the topic), then each
//! part of the record judged and made into bytes (a key or value in a schema encoding through
//! the cluster's registry), then written, or (dry run) described.

use app::api::{Encoding, KeyPlacement, Payload, ProduceArgs, Produced, SchemaUsed};
use app::{ApiError, ErrorCode, Privilege};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use serde_json::json;

use super::schemas::{check_subject, reads_subject, registry_error, registry_of};
use super::{Granted, Service};
use crate::audit::Attempt;
use crate::auth::oidc::now_ms;
use crate::auth::Caller;
use crate::kafka::admin::produce::{produce as write, Outgoing};
use crate::kafka::partition::Partitioner;
use crate::masking::TopicMask;
use crate::records::decode::Schemas;
use crate::records::encode::{encode, Unfit};
use crate::registry::{Registry, SchemaText};

/// The most bytes of key, value and headers one record may carry (Kafka's own default limit
/// for a whole record is 1 MiB; the broker says so when a record is too large).
const MAX_PART: usize = 8 * 1024 * 1024;
/// The most headers one record may carry.
const MAX_HEADERS: usize = 1000;

/// The bytes `payload` describes; `field` names it in a refusal.
pub fn payload_bytes(payload: &Payload, field: &str) -> Result<Option<Vec<u8>>, ApiError> {
    let text = || {
        payload.data.as_str().ok_or_else(|| {
            ApiError::bad_request(field, format!("`{field}.data` is a string for this encoding."))
        })
    };
    let bytes = match payload.encoding {
        Encoding::Null => return Ok(None),
        Encoding::Text => text()?.as_bytes().to_vec(),
        Encoding::Json => serde_json::to_vec(&payload.data).map_err(|e| {
            ApiError::bad_request(field, format!("`{field}.data` is not JSON: {e}."))
        })?,
        Encoding::Base64 => STANDARD.decode(text()?).map_err(|e| {
            ApiError::bad_request(field, format!("`{field}.data` is not standard base64: {e}."))
        })?,
        Encoding::Avro | Encoding::Protobuf | Encoding::JsonSchema => {
            return Err(ApiError::bad_request(
                field,
                format!("`{field}` cannot use a schema encoding; only a key or a value can."),
            ))
        }
    };
    within_part(field, bytes)
}

fn within_part(field: &str, bytes: Vec<u8>) -> Result<Option<Vec<u8>>, ApiError> {
    if bytes.len() > MAX_PART {
        return Err(ApiError::bad_request(field, format!("`{field}` is over {MAX_PART} bytes.")));
    }
    Ok(Some(bytes))
}

/// The registry's type name of the schemas a schema encoding takes.
fn schema_type(encoding: Encoding) -> Option<&'static str> {
    match encoding {
        Encoding::Avro => Some("AVRO"),
        Encoding::Protobuf => Some("PROTOBUF"),
        Encoding::JsonSchema => Some("JSON"),
        _ => None,
    }
}

/// The schema `payload` names: by id, or by subject (default `<topic>-<field>`) and version
/// (default the newest). Encoding reads the schema, so the caller needs SCHEMA_TEXT on its
/// subject (for an id, on one of the subjects that hold it) and on the subject of everything it
/// references, at every depth; a schema they may not read answers exactly as one the registry
/// lacks.
async fn chosen_schema(
    reader: &Reader<'_>, registry: &Registry, topic: &str, payload: &Payload, field: &str,
) -> Result<(SchemaText, SchemaUsed), ApiError> {
    if let Some(id) = payload.schema_id {
        if payload.subject.is_some() || payload.version.is_some() {
            return Err(ApiError::bad_request(
                field,
                format!("Give `{field}.schema_id` or `{field}.subject`, not both."),
            ));
        }
        let missing = || ApiError::not_found(format!("The registry has no schema {id}."));
        let holders = registry.subjects_of_id(id).await.map_err(registry_error)?;
        if !holders.iter().any(|s| reader.reads(s)) {
            return Err(missing());
        }
        let text = registry
            .schema_by_id(id, &|s| reader.reads(s))
            .await
            .map_err(registry_error)?
            .ok_or_else(missing)?;
        let used =
            SchemaUsed { subject: None, version: None, id, schema_type: text.schema_type.clone() };
        return Ok((text, used));
    }
    let subject = payload
        .subject
        .clone()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| format!("{topic}-{field}"));
    check_subject(&subject, &format!("{field}.subject"))?;
    let missing = || {
        let what = match payload.version {
            Some(v) => format!("version {v} of subject \"{subject}\""),
            None => format!("subject \"{subject}\""),
        };
        ApiError::not_found(format!("The registry has no {what}."))
    };
    if !reader.reads(&subject) {
        return Err(missing());
    }
    let found = registry
        .subject_version(&subject, payload.version, &|s| reader.reads(s))
        .await
        .map_err(registry_error)?
        .ok_or_else(missing)?;
    let used = SchemaUsed {
        subject: Some(subject),
        version: Some(found.version),
        id: found.id,
        schema_type: found.schema.schema_type.clone(),
    };
    Ok((found.schema, used))
}

/// Who reads schemas for the record: the caller, on a cluster.
struct Reader<'a> {
    service: &'a Service,
    caller: &'a Caller,
    cluster: &'a str,
}

impl Reader<'_> {
    fn reads(&self, subject: &str) -> bool {
        reads_subject(self.service, self.caller, self.cluster, subject)
    }
}

/// A key or value as judged with the other arguments: its bytes, or, for a schema encoding,
/// the payload to encode (with the registry type it wants) once the topic is known.
enum Part {
    Bytes(Option<Vec<u8>>),
    Schema(Payload, &'static str),
}

fn judge_part(payload: Option<Payload>, field: &str) -> Result<Part, ApiError> {
    let Some(payload) = payload else {
        return Ok(Part::Bytes(None));
    };
    Ok(match schema_type(payload.encoding) {
        Some(wanted) => Part::Schema(payload, wanted),
        None => Part::Bytes(payload_bytes(&payload, field)?),
    })
}

/// The bytes of a key or value, a schema encoding's JSON encoded with the registered schema it
/// names (and which one that was).
async fn part_bytes(
    reader: &Reader<'_>, granted: &Granted, topic: &str, part: Part, field: &str,
) -> Result<(Option<Vec<u8>>, Option<SchemaUsed>), ApiError> {
    let (payload, wanted) = match part {
        Part::Bytes(bytes) => return Ok((bytes, None)),
        Part::Schema(payload, wanted) => (payload, wanted),
    };
    let registry = registry_of(granted)?;
    let payload = &payload;
    let (text, used) = chosen_schema(reader, &registry, topic, payload, field).await?;
    if text.schema_type != wanted {
        return Err(ApiError::bad_request(
            field,
            format!(
                "Schema {} is a {} schema, not {wanted}; choose the encoding that matches it.",
                used.id, text.schema_type
            ),
        ));
    }
    let bytes =
        encode(&text, used.id, payload.message.as_deref(), &payload.data).map_err(|unfit| {
            match unfit {
                Unfit::Value { path, reason } => ApiError::bad_request(
                    &format!("{field}.data{path}"),
                    format!("`{field}.data{path}` does not fit schema {}: {reason}.", used.id),
                ),
                Unfit::Schema(reason) => ApiError::bad_request(
                    field,
                    format!("Schema {} cannot encode values: {reason}.", used.id),
                ),
            }
        })?;
    Ok((within_part(field, bytes)?, Some(used)))
}

/// Refuses a record that holds a field the topic's `hash` rules mask, for a caller who sees
/// the topic masked: reading it back would show its hash beside the hashes of the values they
/// may not read, so they could write guesses until one matches. Each part is read as a record
/// read would read it (through its schema when it is framed), so no encoding gets around it.
/// It is the UNMASK privilege that is missing: the same record is a plain write for a caller
/// who holds it, and for whom nothing is hidden.
async fn no_hashed_field(
    schemas: &Schemas, mask: &TopicMask, topic: &str, key: Option<&[u8]>, value: Option<&[u8]>,
) -> Result<(), ApiError> {
    let loaded =
        schemas.load([schemas.wanted(key), schemas.wanted(value)].into_iter().flatten()).await;
    for (part, bytes, is_key) in [("key", key, true), ("value", value, false)] {
        let Some(path) = mask.hashed_field(&schemas.decode(&loaded, bytes), is_key) else {
            continue;
        };
        return Err(ApiError {
            privilege: Some(Privilege::Unmask),
            ..ApiError::new(
                ErrorCode::MissingPrivilege,
                format!(
                    "Topic \"{topic}\" masks the field {path} of its {part}s by hash, and this \
                     {part} holds it: writing it needs the UNMASK privilege on the topic, since \
                     its hash read back would confirm a guess of a value hidden the same way."
                ),
            )
        });
    }
    Ok(())
}

pub async fn produce(
    service: &Service, caller: &Caller, args: ProduceArgs,
) -> Result<Produced, ApiError> {
    let attempt =
        Attempt::of(&args.cluster, Privilege::Produce, &args, &["key", "value", "headers"])
            .with("key_length", length(&args.key))
            .with("value_length", length(&args.value))
            .with("headers", args.headers.given().map_or(0, Vec::len));
    let write = produce_now(service, caller, args);
    service
        .audited(
            caller,
            attempt,
            |p| Some(json!({ "partition": p.partition, "offset": p.offset })),
            write,
        )
        .await
}

/// The length of a key or value as sent (its text, base64 or JSON), for the audit: never its
/// content.
fn length(part: &app::api::Arg<Payload>) -> usize {
    part.given().map_or(0, |p| match &p.data {
        serde_json::Value::String(text) => text.len(),
        other => other.to_string().len(),
    })
}

async fn produce_now(
    service: &Service, caller: &Caller, args: ProduceArgs,
) -> Result<Produced, ApiError> {
    let cluster = args.cluster;
    let (mut granted, topic) =
        service.decide_named_topic(caller, &cluster, Privilege::Produce, &args.topic)?;
    let partition = args.partition.optional("partition")?;
    let key = args.key.optional("key")?;
    let value = args.value.optional("value")?;
    let headers = args.headers.or("headers", Vec::new())?;
    if headers.len() > MAX_HEADERS {
        return Err(ApiError::bad_request(
            "headers",
            format!("A record carries at most {MAX_HEADERS} headers."),
        ));
    }
    let headers: Vec<(String, Option<Vec<u8>>)> = headers
        .into_iter()
        .map(|h| {
            let value = match &h.value {
                Some(p) => payload_bytes(p, "headers")?,
                None => None,
            };
            Ok((h.key, value))
        })
        .collect::<Result<_, ApiError>>()?;
    let dry_run = args.dry_run.or("dry_run", false)?;
    // Plain parts are judged with the other arguments; parts encoded through the registry once
    // the topic is known.
    let key = judge_part(key, "key")?;
    let value = judge_part(value, "value")?;
    let listed = granted.listed_topic(&topic)?;
    let count = listed.partitions.len();
    if let Some(p) = partition {
        if !listed.partitions.iter().any(|q| q.id == p) {
            return Err(ApiError::not_found(format!("Topic \"{topic}\" has no partition {p}.")));
        }
    }
    // The registry is asked only once the arguments it does not judge have been.
    let reader = Reader { service, caller, cluster: &cluster };
    let (key, key_schema) = part_bytes(&reader, &granted, &topic, key, "key").await?;
    let (value, value_schema) = part_bytes(&reader, &granted, &topic, value, "value").await?;
    if let Some(mask) = service.mask(caller, &cluster, &topic) {
        let schemas = service.schemas(&cluster);
        no_hashed_field(&schemas, &mask, &topic, key.as_deref(), value.as_deref()).await?;
    }
    let total = key.as_ref().map_or(0, Vec::len)
        + value.as_ref().map_or(0, Vec::len)
        + headers.iter().map(|(k, v)| k.len() + v.as_ref().map_or(0, Vec::len)).sum::<usize>();
    if total > MAX_PART {
        return Err(ApiError::bad_request(
            "value",
            format!("A record is at most {MAX_PART} bytes of key, value and headers."),
        ));
    }

    let link = granted.link();
    let clients = link.clients().map_err(ApiError::from)?;
    let partitioner = clients.partitioner().to_string();
    let placed = |with: Partitioner, key: &[u8]| {
        with.partition(key, u32::try_from(count).unwrap_or(0)) as i32
    };
    let key_partitions = key.as_deref().map(|k| KeyPlacement {
        murmur2: placed(Partitioner::Murmur2Random, k),
        consistent: placed(Partitioner::ConsistentRandom, k),
    });
    let sizes = (
        key.as_ref().map(|k| k.len() as u64),
        value.as_ref().map(|v| v.len() as u64),
        headers.len() as u64,
    );
    let answer = |partition, offset, timestamp| Produced {
        cluster: cluster.clone(),
        topic: topic.clone(),
        dry_run,
        partition,
        offset,
        timestamp,
        partitioner: partitioner.clone(),
        key_partitions: key_partitions.clone(),
        key_bytes: sizes.0,
        value_bytes: sizes.1,
        headers: sizes.2,
        key_schema: key_schema.clone(),
        value_schema: value_schema.clone(),
    };
    if dry_run {
        // Where the producer would put it: the partition asked for, or the key's.
        let predicted = partition.or_else(|| {
            let known = Partitioner::from_property(Some(&partitioner)).ok()?;
            // librdkafka places an empty key at random under its own partitioner.
            key.as_deref()
                .filter(|k| !(k.is_empty() && known == Partitioner::ConsistentRandom))
                .map(|k| placed(known, k))
        });
        return Ok(answer(predicted, None, None));
    }
    let record =
        Outgoing { topic: topic.clone(), partition, key, value, headers, timestamp: now_ms() };
    service.open(&mut granted.grant).await?;
    let (partition, offset) = write(&granted.grant, &link, &record).await?;
    Ok(answer(Some(partition), Some(offset), Some(record.timestamp)))
}

// The server functions this capability answers.
serves!(app::api::Produce, |s, c, a| produce(&s, &c, a.args));

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(encoding: Encoding, data: serde_json::Value) -> Payload {
        Payload { encoding, data, ..Payload::default() }
    }

    #[test]
    fn payloads_become_the_bytes_they_describe() {
        use serde_json::json;
        assert_eq!(payload_bytes(&payload(Encoding::Null, json!(null)), "v").ok(), Some(None));
        assert_eq!(
            payload_bytes(&payload(Encoding::Text, json!("héllo")), "v").ok(),
            Some(Some("héllo".as_bytes().to_vec()))
        );
        assert_eq!(
            payload_bytes(&payload(Encoding::Json, json!({"a": [1, "x"]})), "v").ok(),
            Some(Some(br#"{"a":[1,"x"]}"#.to_vec()))
        );
        assert_eq!(
            payload_bytes(&payload(Encoding::Base64, json!("/wA=")), "v").ok(),
            Some(Some(vec![0xff, 0x00]))
        );
        for (bad, field) in [
            (payload(Encoding::Base64, json!("not base64!")), "value"),
            (payload(Encoding::Text, json!(5)), "key"),
            (payload(Encoding::Avro, json!({})), "value"),
        ] {
            let e = payload_bytes(&bad, field).expect_err("refused");
            assert_eq!((e.code, e.field.as_deref()), (ErrorCode::BadRequest, Some(field)));
        }
    }
}
