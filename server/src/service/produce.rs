//! Producing one record: decided (writable → not internal → PRODUCE on the topic), then each
//! part of the record judged and made into bytes, then written, or (dry run) described.

use app::api::{Encoding, KeyPlacement, Payload, ProduceArgs, Produced};
use app::{ApiError, ErrorCode, Privilege};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::Service;
use crate::auth::oidc::now_ms;
use crate::auth::Caller;
use crate::kafka::admin::produce::{produce as write, Outgoing};
use crate::kafka::partition::Partitioner;

/// The most bytes of key, value and headers one record may carry (Kafka's own default limit
/// for a whole record is 1 MiB; the broker says so when a record is too large).
const MAX_PART: usize = 8 * 1024 * 1024;
/// The most headers one record may carry.
const MAX_HEADERS: usize = 1000;

/// The bytes `payload` describes; `field` names it in a refusal.
pub fn payload_bytes(payload: &Payload, field: &str) -> Result<Option<Vec<u8>>, ApiError> {
    let text = || {
        payload.data.as_str().ok_or_else(|| {
            ApiError::bad_request(
                field,
                format!("`{field}.data` is a string for this encoding."),
            )
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
                "Write schema-framed bytes as base64 (the record page's Duplicate does); encoding JSON through the registry is not offered yet.",
            ))
        }
    };
    if bytes.len() > MAX_PART {
        return Err(ApiError::bad_request(
            field,
            format!("`{field}` is over {MAX_PART} bytes."),
        ));
    }
    Ok(Some(bytes))
}

pub async fn produce(
    service: &Service,
    caller: &Caller,
    args: ProduceArgs,
) -> Result<Produced, ApiError> {
    let cluster = args.cluster;
    let (granted, topic) =
        service.decide_named_topic(caller, &cluster, Privilege::Produce, &args.topic)?;
    let partition = args.partition.optional("partition")?;
    let key = match args.key.optional("key")? {
        Some(p) => payload_bytes(&p, "key")?,
        None => None,
    };
    let value = match args.value.optional("value")? {
        Some(p) => payload_bytes(&p, "value")?,
        None => None,
    };
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
    let total = key.as_ref().map_or(0, Vec::len)
        + value.as_ref().map_or(0, Vec::len)
        + headers
            .iter()
            .map(|(k, v)| k.len() + v.as_ref().map_or(0, Vec::len))
            .sum::<usize>();
    if total > MAX_PART {
        return Err(ApiError::bad_request(
            "value",
            format!("A record is at most {MAX_PART} bytes of key, value and headers."),
        ));
    }

    let listed = granted.listed_topic(&topic)?;
    let count = listed.partitions.len();
    if let Some(p) = partition {
        if !listed.partitions.iter().any(|q| q.id == p) {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("Topic \"{topic}\" has no partition {p}."),
            ));
        }
    }
    let link = granted.link();
    let clients = link
        .clients()
        .map_err(|e| ApiError::new(ErrorCode::Client, e))?;
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
    let record = Outgoing {
        topic: topic.clone(),
        partition,
        key,
        value,
        headers,
        timestamp: now_ms(),
    };
    let (partition, offset) = write(&granted.grant, &link, &record).await?;
    Ok(answer(
        Some(partition),
        Some(offset),
        Some(record.timestamp),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(encoding: Encoding, data: serde_json::Value) -> Payload {
        Payload { encoding, data }
    }

    #[test]
    fn payloads_become_the_bytes_they_describe() {
        use serde_json::json;
        assert_eq!(
            payload_bytes(&payload(Encoding::Null, json!(null)), "v").ok(),
            Some(None)
        );
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
            assert_eq!(
                (e.code, e.field.as_deref()),
                (ErrorCode::BadRequest, Some(field))
            );
        }
    }
}
