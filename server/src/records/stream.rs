//! The two record streams: the NDJSON export (a fixed range, read once, at the client's pace)
//! and the live tail (new records as they arrive). Each runs one consumer on a blocking thread
//! and hands its output to the HTTP response through a small bounded channel, so memory stays
//! flat whatever the topic's size, a slow client slows the reading, and a client that leaves
//! ends the work.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rdkafka::config::ClientConfig;
use rdkafka::consumer::Consumer;
use rdkafka::error::KafkaError;
use rdkafka::{Offset, TopicPartitionList};
use tokio::runtime::Handle;
use tokio::sync::mpsc::Sender;

use super::decode::Schemas;
use super::{close_later, decode_all, Filter, RawRecord, Reader, ReaderContext, Span};

/// Records decoded and sent together; also the size of a batch of NDJSON lines.
const BATCH: usize = 500;
/// Bytes of NDJSON gathered before they are handed to the response.
const CHUNK_BYTES: usize = 256 * 1024;
/// How long a poll waits before the stream looks at its client and its deadline again.
const POLL: Duration = Duration::from_millis(200);

/// What a stream reads from: the consumer settings, the topic, and how to decode.
pub struct Source {
    pub config: ClientConfig,
    pub topic: String,
    pub schemas: Arc<Schemas>,
    /// The runtime, for fetching schemas from the blocking thread.
    pub handle: Handle,
}

fn consumer(config: &ClientConfig, topic: &str, starts: &[(i32, i64)]) -> Result<Reader, String> {
    let consumer: Reader = config
        .clone()
        .set("enable.partition.eof", "true")
        .create_with_context(ReaderContext)
        .map_err(|e| format!("cannot create a reader: {e}"))?;
    let mut list = TopicPartitionList::new();
    for (partition, offset) in starts {
        list.add_partition_offset(topic, *partition, Offset::Offset(*offset))
            .map_err(|e| e.to_string())?;
    }
    consumer.assign(&list).map_err(|e| e.to_string())?;
    Ok(consumer)
}

/// Decodes a batch (fetching any schemas it needs) and renders it as NDJSON lines.
fn render(records: &[RawRecord], topic: &str, schemas: &Schemas, handle: &Handle) -> Vec<u8> {
    let decoded = handle.block_on(decode_all(records, topic, schemas));
    let mut out = Vec::with_capacity(records.len() * 256);
    for record in decoded {
        if serde_json::to_writer(&mut out, &record).is_ok() {
            out.push(b'\n');
        }
    }
    out
}

/// Streams `spans` of `topic` as NDJSON chunks into `out`, each partition in offset order.
/// Stops at the spans' ends (fixed when the export began), when the client goes away, or on a
/// Kafka error, which ends the stream with a last line `{"error": …}`. Blocks.
pub fn export(
    source: &Source,
    spans: &[Span],
    filter: Option<&Filter>,
    until_timestamp: Option<i64>,
    out: Sender<Vec<u8>>,
) {
    let (config, topic, schemas, handle) = (
        &source.config,
        source.topic.as_str(),
        &source.schemas,
        &source.handle,
    );
    let spans: Vec<Span> = spans.iter().copied().filter(|s| s.start < s.end).collect();
    if spans.is_empty() {
        return;
    }
    let starts: Vec<(i32, i64)> = spans.iter().map(|s| (s.partition, s.start)).collect();
    let consumer = match consumer(config, topic, &starts) {
        Ok(c) => c,
        Err(error) => {
            let _ = out.blocking_send(error_line(&error));
            return;
        }
    };
    let ends: HashMap<i32, i64> = spans.iter().map(|s| (s.partition, s.end)).collect();
    let mut open: Vec<i32> = spans.iter().map(|s| s.partition).collect();
    let mut batch: Vec<RawRecord> = Vec::with_capacity(BATCH);
    let mut chunk: Vec<u8> = Vec::with_capacity(CHUNK_BYTES);
    let close = |partition: i32, open: &mut Vec<i32>| {
        open.retain(|p| *p != partition);
        let mut one = TopicPartitionList::new();
        one.add_partition(topic, partition);
        let _ = consumer.pause(&one);
    };
    while !open.is_empty() {
        if out.is_closed() {
            return;
        }
        let message = match consumer.poll(POLL) {
            None => continue,
            Some(Ok(message)) => message,
            Some(Err(KafkaError::PartitionEOF(partition))) => {
                close(partition, &mut open);
                continue;
            }
            Some(Err(error)) => {
                let _ = out.blocking_send(error_line(&format!("reading {topic}: {error}")));
                return;
            }
        };
        use rdkafka::message::Message;
        let partition = message.partition();
        let end = ends.get(&partition).copied().unwrap_or(0);
        if !open.contains(&partition) {
            continue;
        }
        if message.offset() >= end {
            close(partition, &mut open);
            continue;
        }
        let record = RawRecord::from_message(&message);
        if message.offset() + 1 >= end {
            close(partition, &mut open);
        }
        let late = until_timestamp.is_some_and(|to| record.timestamp.is_some_and(|t| t > to));
        if late {
            close(partition, &mut open);
            continue;
        }
        if filter.is_none_or(|f| f.matches(&record)) {
            batch.push(record);
        }
        if batch.len() >= BATCH {
            chunk.extend(render(&batch, topic, schemas, handle));
            batch.clear();
            if chunk.len() >= CHUNK_BYTES && out.blocking_send(std::mem::take(&mut chunk)).is_err()
            {
                return;
            }
        }
    }
    chunk.extend(render(&batch, topic, schemas, handle));
    if !chunk.is_empty() {
        let _ = out.blocking_send(chunk);
    }
    // The response ends when `out` is dropped, which must not wait for the reader to close.
    drop(out);
    close_later(consumer);
}

fn error_line(message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&serde_json::json!({ "error": message })).unwrap_or_default();
    line.push(b'\n');
    line
}

/// What the tail sends.
pub enum TailEvent {
    /// One record, as JSON.
    Record(String),
    /// The stream ends, and why.
    End(String),
}

/// Follows `topic` from `starts` (the ends of its partitions when the client connected),
/// sending each new record as it arrives. `allowed` is asked every second whether the caller
/// may still read (a session can end while the stream runs). Stops when the client leaves.
/// Blocks.
pub fn tail(
    source: &Source,
    starts: &[(i32, i64)],
    filter: Option<&Filter>,
    allowed: impl Fn() -> Result<(), String>,
    out: Sender<TailEvent>,
) {
    let (config, topic, schemas, handle) = (
        &source.config,
        source.topic.as_str(),
        &source.schemas,
        &source.handle,
    );
    let consumer = match consumer(config, topic, starts) {
        Ok(c) => c,
        Err(error) => {
            let _ = out.blocking_send(TailEvent::End(error));
            return;
        }
    };
    let mut checked = Instant::now();
    loop {
        if out.is_closed() {
            return;
        }
        if checked.elapsed() >= Duration::from_secs(1) {
            checked = Instant::now();
            if let Err(reason) = allowed() {
                let _ = out.blocking_send(TailEvent::End(reason));
                return;
            }
        }
        let message = match consumer.poll(POLL) {
            None | Some(Err(KafkaError::PartitionEOF(_))) => continue,
            Some(Ok(message)) => message,
            Some(Err(error)) => {
                let _ = out.blocking_send(TailEvent::End(format!("reading {topic}: {error}")));
                return;
            }
        };
        let record = RawRecord::from_message(&message);
        if !filter.is_none_or(|f| f.matches(&record)) {
            continue;
        }
        let decoded = handle.block_on(decode_all(std::slice::from_ref(&record), topic, schemas));
        for record in decoded {
            let Ok(json) = serde_json::to_string(&record) else {
                continue;
            };
            if out.blocking_send(TailEvent::Record(json)).is_err() {
                return;
            }
        }
    }
}
