//! Moving a record: where a dead-letter record came from, read off the headers its framework
//! wrote, and the headers its copy carries (error headers taken off on a redrive, a lineage
//! header added).
//!
//! The frameworks' layouts:
//! - Kafka Connect (`errors.deadletterqueue.context.headers.enable`): `__connect.errors.topic`,
//!   `__connect.errors.partition` and `__connect.errors.offset`, all UTF-8 text, beside the
//!   error's class, message and stack trace under the same prefix.
//! - Spring Kafka's `DeadLetterPublishingRecoverer`: `kafka_dlt-original-topic` (UTF-8),
//!   `kafka_dlt-original-partition` (a 4-byte big-endian int) and `kafka_dlt-original-offset`
//!   (an 8-byte big-endian long), with `kafka_dlt-exception-*` (and `kafka_dlt-key-exception-*`
//!   for a key that did not deserialize).
//! - Spring Cloud Stream: `x-original-topic`, with `x-original-partition` and
//!   `x-original-offset` in Spring's binary form, and `x-exception-*`.
//!
//! Of a header repeated, the last one counts: a record that failed twice carries the newest
//! context last.

/// The header a copy adds: `cluster/topic/partition/offset` of the record it copies.
pub const LINEAGE: &str = "klens-copied-from";

/// Who wrote a dead-letter record's context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framework {
    Connect,
    Spring,
    SpringCloudStream,
}

/// Where a dead-letter record came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub framework: Framework,
    pub topic: String,
    pub partition: Option<i32>,
    pub offset: Option<i64>,
}

/// Why a record cannot be redriven.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoOrigin {
    /// No framework's origin header.
    Missing,
    /// A header that should name the topic does not hold a topic name.
    Unreadable(String),
}

type Headers = [(String, Option<Vec<u8>>)];

/// Headers as a record carries them, in order.
pub type HeaderList = Vec<(String, Option<Vec<u8>>)>;

fn last<'a>(headers: &'a Headers, name: &str) -> Option<&'a [u8]> {
    headers.iter().rev().find(|(k, _)| k == name).and_then(|(_, v)| v.as_deref())
}

/// Spring's binary int, or the same number as text.
fn int(bytes: &[u8]) -> Option<i32> {
    match <[u8; 4]>::try_from(bytes) {
        Ok(b) => Some(i32::from_be_bytes(b)),
        Err(_) => std::str::from_utf8(bytes).ok()?.trim().parse().ok(),
    }
}

/// Spring's binary long, or the same number as text.
fn long(bytes: &[u8]) -> Option<i64> {
    match <[u8; 8]>::try_from(bytes) {
        Ok(b) => Some(i64::from_be_bytes(b)),
        Err(_) => std::str::from_utf8(bytes).ok()?.trim().parse().ok(),
    }
}

fn text_number<T: std::str::FromStr>(bytes: Option<&[u8]>) -> Option<T> {
    std::str::from_utf8(bytes?).ok()?.trim().parse().ok()
}

/// Where the record with `headers` came from, by the first framework whose topic header it
/// carries (Connect, then Spring Kafka, then Spring Cloud Stream).
pub fn origin(headers: &Headers) -> Result<Origin, NoOrigin> {
    let named = |framework: Framework, topic: &[u8]| -> Result<String, NoOrigin> {
        let topic = std::str::from_utf8(topic)
            .ok()
            .filter(|t| app::names::TopicName::check(t, "topic").is_ok())
            .ok_or_else(|| {
                NoOrigin::Unreadable(format!(
                    "its {} header names no valid topic",
                    match framework {
                        Framework::Connect => "__connect.errors.topic",
                        Framework::Spring => "kafka_dlt-original-topic",
                        Framework::SpringCloudStream => "x-original-topic",
                    }
                ))
            })?;
        Ok(topic.to_string())
    };
    if let Some(topic) = last(headers, "__connect.errors.topic") {
        return Ok(Origin {
            framework: Framework::Connect,
            topic: named(Framework::Connect, topic)?,
            partition: text_number(last(headers, "__connect.errors.partition")),
            offset: text_number(last(headers, "__connect.errors.offset")),
        });
    }
    for (framework, prefix) in
        [(Framework::Spring, "kafka_dlt-original-"), (Framework::SpringCloudStream, "x-original-")]
    {
        if let Some(topic) = last(headers, &format!("{prefix}topic")) {
            return Ok(Origin {
                framework,
                topic: named(framework, topic)?,
                partition: last(headers, &format!("{prefix}partition")).and_then(int),
                offset: last(headers, &format!("{prefix}offset")).and_then(long),
            });
        }
    }
    Err(NoOrigin::Missing)
}

/// Whether a header holds a failure's context, which a redrive takes off so that a record
/// that fails again carries only the new one.
pub fn is_error_header(name: &str) -> bool {
    ["__connect.errors.", "kafka_dlt-exception-", "kafka_dlt-key-exception-", "x-exception-"]
        .iter()
        .any(|prefix| name.starts_with(prefix))
}

/// The headers of a record's copy, in order: for a redrive without the error headers, then the
/// lineage header naming the record copied. The names taken off are returned too, each once.
pub fn copied_headers(
    headers: &Headers, redrive: bool, from: (&str, &str, i32, i64),
) -> (HeaderList, Vec<String>) {
    let mut stripped: Vec<String> = Vec::new();
    let mut out: HeaderList = Vec::with_capacity(headers.len() + 1);
    for (name, value) in headers {
        if redrive && is_error_header(name) {
            if !stripped.contains(name) {
                stripped.push(name.clone());
            }
            continue;
        }
        out.push((name.clone(), value.clone()));
    }
    let (cluster, topic, partition, offset) = from;
    out.push((LINEAGE.to_string(), Some(format!("{cluster}/{topic}/{partition}/{offset}").into())));
    (out, stripped)
}

#[cfg(test)]
mod tests;
