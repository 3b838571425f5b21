//! Reading records live: pages by offset, timestamp, either end, or a cursor; one record; and
//! the spans the export and the tail stream. Every read is bounded by a deadline and a scan
//! budget, and answers what it has with a cursor rather than hanging on a sparse topic.

pub mod decode;
pub mod stream;

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use app::api::{
    Record, RecordHeader, RecordPage, RecordQuery, TimestampType, DEFAULT_LIMIT, MAX_LIMIT,
};
use app::{ApiError, ErrorCode};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::message::{Headers, Message};
use rdkafka::{Offset, TopicPartitionList};
use serde::{Deserialize, Serialize};

use self::decode::Schemas;

/// How long one page may scan before it answers with what it has.
const PAGE_DEADLINE: Duration = Duration::from_secs(5);
/// The most records one page may read to fill itself (a filter may skip most of them).
const SCAN_BUDGET: u64 = 200_000;
/// How far back each step of a backward scan reaches per partition when a filter is set.
const BACKWARD_STEP: i64 = 1_000;
/// How long a poll waits before the deadline is looked at again.
const POLL: Duration = Duration::from_millis(100);

/// The context of the consumers that read records. Their failures reach the request that
/// reads (and its answer); what librdkafka says besides (the end of a partition, which is how
/// every read ends, or a connection cut while a short-lived reader closes) is only debug.
pub struct ReaderContext;

impl rdkafka::client::ClientContext for ReaderContext {
    fn log(&self, _level: rdkafka::config::RDKafkaLogLevel, facility: &str, message: &str) {
        tracing::debug!(facility, "record reader: {message}");
    }

    fn error(&self, error: KafkaError, reason: &str) {
        tracing::debug!(%error, "record reader: {reason}");
    }
}

impl rdkafka::consumer::ConsumerContext for ReaderContext {}

/// A consumer that reads records.
pub type Reader = BaseConsumer<ReaderContext>;

/// Closes a reader away from the answer: closing waits for librdkafka to leave cleanly, which
/// takes up to a poll interval and would otherwise delay every response.
pub fn close_later(reader: Reader) {
    std::thread::spawn(move || drop(reader));
}

/// A record as read, before decoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawRecord {
    pub partition: i32,
    pub offset: i64,
    pub timestamp: Option<i64>,
    pub timestamp_type: TimestampType,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    /// In order, repeats kept; a value may be null.
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

impl RawRecord {
    fn from_message<M: Message>(m: &M) -> RawRecord {
        let (timestamp, timestamp_type) = match m.timestamp() {
            rdkafka::Timestamp::CreateTime(t) => (Some(t), TimestampType::CreateTime),
            rdkafka::Timestamp::LogAppendTime(t) => (Some(t), TimestampType::LogAppendTime),
            rdkafka::Timestamp::NotAvailable => (None, TimestampType::NotAvailable),
        };
        let headers = m
            .headers()
            .map(|h| {
                h.iter()
                    .map(|h| (h.key.to_string(), h.value.map(<[u8]>::to_vec)))
                    .collect()
            })
            .unwrap_or_default();
        RawRecord {
            partition: m.partition(),
            offset: m.offset(),
            timestamp,
            timestamp_type,
            key: m.key().map(<[u8]>::to_vec),
            value: m.payload().map(<[u8]>::to_vec),
            headers,
        }
    }

    /// Bytes of key, value and headers as written.
    pub fn size(&self) -> u64 {
        let len = |b: &Option<Vec<u8>>| b.as_ref().map_or(0, Vec::len) as u64;
        len(&self.key)
            + len(&self.value)
            + self
                .headers
                .iter()
                .map(|(k, v)| k.len() as u64 + len(v))
                .sum::<u64>()
    }

    /// Order across partitions: by timestamp, then partition, then offset.
    fn order(&self) -> (i64, i32, i64) {
        (self.timestamp.unwrap_or(-1), self.partition, self.offset)
    }

    /// Decodes into the shape the API answers.
    pub fn decode(&self, topic: &str, schemas: &Schemas) -> Record {
        Record {
            topic: topic.to_string(),
            partition: self.partition,
            offset: self.offset,
            timestamp: self.timestamp,
            timestamp_type: self.timestamp_type,
            key: schemas.decode(self.key.as_deref()),
            value: schemas.decode(self.value.as_deref()),
            headers: self
                .headers
                .iter()
                .map(|(key, value)| RecordHeader {
                    key: key.clone(),
                    value: decode::plain(value.as_deref()),
                })
                .collect(),
            size: self.size(),
        }
    }
}

/// Fetches the schemas a batch of records needs, then decodes them.
pub async fn decode_all(records: &[RawRecord], topic: &str, schemas: &Schemas) -> Vec<Record> {
    let ids: Vec<u32> = records
        .iter()
        .flat_map(|r| {
            [
                schemas.wanted(r.key.as_deref()),
                schemas.wanted(r.value.as_deref()),
            ]
        })
        .flatten()
        .collect();
    schemas.load(ids).await;
    records.iter().map(|r| r.decode(topic, schemas)).collect()
}

/// The server-side filter: text in the key, the value, or a header (its key or value).
#[derive(Clone, Debug)]
pub struct Filter {
    needle: String,
    exact: bool,
}

/// The longest filter text, in characters.
const MAX_FILTER: usize = 500;

impl Filter {
    /// The filter of a request's `q` and `exact`, if any; BAD_REQUEST for an overlong one.
    pub fn parse(q: Option<&str>, exact: bool) -> Result<Option<Filter>, ApiError> {
        match q {
            Some(q) if q.chars().count() > MAX_FILTER => Err(ApiError::bad_request(
                "q",
                format!("A filter is at most {MAX_FILTER} characters."),
            )),
            Some(q) => Ok(Filter::new(q, exact)),
            None => Ok(None),
        }
    }

    pub fn new(text: &str, exact: bool) -> Option<Filter> {
        if text.is_empty() {
            return None;
        }
        let needle = if exact {
            text.to_string()
        } else {
            text.to_lowercase()
        };
        Some(Filter { needle, exact })
    }

    fn hits(&self, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        if self.exact {
            text == self.needle
        } else {
            text.to_lowercase().contains(&self.needle)
        }
    }

    pub fn matches(&self, r: &RawRecord) -> bool {
        r.key.as_deref().is_some_and(|k| self.hits(k))
            || r.value.as_deref().is_some_and(|v| self.hits(v))
            || r.headers
                .iter()
                .any(|(k, v)| self.hits(k.as_bytes()) || v.as_deref().is_some_and(|v| self.hits(v)))
    }
}

/// One partition's range to read: `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub partition: i32,
    pub start: i64,
    pub end: i64,
}

/// What a scan of spans found.
#[derive(Debug, Default)]
pub struct Scan {
    /// Matching records, per partition in offset order.
    pub records: Vec<RawRecord>,
    /// Per partition, the first offset not examined yet.
    pub reached: HashMap<i32, i64>,
    pub scanned: u64,
    /// The deadline or the budget ended the scan early.
    pub stopped: bool,
}

/// Reads `spans` of `topic` forward with a consumer that joins no group, keeping records that
/// pass `filter`, at most `per_partition` of them per partition. Blocks; call from a blocking
/// task.
pub fn scan(
    config: &ClientConfig,
    topic: &str,
    spans: &[Span],
    per_partition: usize,
    filter: Option<&Filter>,
    deadline: Instant,
    budget: u64,
) -> Result<Scan, String> {
    let mut out = Scan::default();
    let spans: Vec<Span> = spans.iter().copied().filter(|s| s.start < s.end).collect();
    for s in &spans {
        out.reached.insert(s.partition, s.start);
    }
    if spans.is_empty() {
        return Ok(out);
    }
    let consumer: Reader = config
        .clone()
        .set("enable.partition.eof", "true")
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "error")
        // A page shows few records: fetch a little per partition at a time, not a megabyte
        // (a record larger than this still comes, alone).
        .set("max.partition.fetch.bytes", "262144")
        .create_with_context(ReaderContext)
        .map_err(|e| format!("cannot create a reader: {e}"))?;
    let mut list = TopicPartitionList::new();
    for s in &spans {
        list.add_partition_offset(topic, s.partition, Offset::Offset(s.start))
            .map_err(|e| e.to_string())?;
    }
    consumer.assign(&list).map_err(|e| e.to_string())?;
    let ends: HashMap<i32, i64> = spans.iter().map(|s| (s.partition, s.end)).collect();
    let mut kept: HashMap<i32, usize> = HashMap::new();
    let mut open: Vec<i32> = spans.iter().map(|s| s.partition).collect();
    let close = |partition: i32, open: &mut Vec<i32>| {
        open.retain(|p| *p != partition);
        let mut one = TopicPartitionList::new();
        one.add_partition(topic, partition);
        // A finished partition stops fetching; the others go on.
        let _ = consumer.pause(&one);
    };
    while !open.is_empty() {
        if Instant::now() >= deadline || out.scanned >= budget {
            out.stopped = true;
            break;
        }
        let Some(polled) = consumer.poll(POLL) else {
            continue;
        };
        let message = match polled {
            Ok(message) => message,
            Err(KafkaError::PartitionEOF(partition)) => {
                close(partition, &mut open);
                continue;
            }
            Err(error) => return Err(format!("reading {topic}: {error}")),
        };
        let partition = message.partition();
        if !open.contains(&partition) {
            continue;
        }
        let end = ends.get(&partition).copied().unwrap_or(0);
        if message.offset() >= end {
            close(partition, &mut open);
            continue;
        }
        out.scanned += 1;
        out.reached.insert(partition, message.offset() + 1);
        let record = RawRecord::from_message(&message);
        if filter.is_none_or(|f| f.matches(&record)) {
            out.records.push(record);
            let count = kept.entry(partition).or_default();
            *count += 1;
            if *count >= per_partition {
                close(partition, &mut open);
                continue;
            }
        }
        if message.offset() + 1 >= end {
            close(partition, &mut open);
        }
    }
    close_later(consumer);
    Ok(out)
}

/// Where the next or previous page starts: per partition, the first offset to read going
/// forward, or the offset to stop before going backward.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    #[serde(rename = "d")]
    pub backward: bool,
    #[serde(rename = "p")]
    pub positions: BTreeMap<i32, i64>,
}

impl Cursor {
    /// A cursor to `positions`, or `None` when there is nothing that way: forward, every
    /// partition is at its high watermark; backward, every one is at its low watermark.
    fn unless_done(
        backward: bool,
        positions: BTreeMap<i32, i64>,
        bounds: &Bounds,
    ) -> Option<Cursor> {
        let more = positions.iter().any(|(p, at)| {
            let (low, high) = bounds.get(p).copied().unwrap_or((0, 0));
            if backward {
                *at > low
            } else {
                *at < high
            }
        });
        more.then_some(Cursor {
            backward,
            positions,
        })
    }

    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).unwrap_or_default())
    }

    pub fn decode(text: &str) -> Result<Cursor, ApiError> {
        URL_SAFE_NO_PAD
            .decode(text)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or_else(|| ApiError::bad_request("cursor", "This cursor is not one klens gave."))
    }
}

/// Each partition's low and high watermark, read at the start of a request.
pub type Bounds = BTreeMap<i32, (i64, i64)>;

/// Where a page begins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// Forward from these offsets.
    Forward(BTreeMap<i32, i64>),
    /// The newest records before these offsets.
    Backward(BTreeMap<i32, i64>),
}

/// Checks a records query and says where it starts, given the partitions' bounds and, for a
/// timestamp, the offsets Kafka found for it.
pub fn plan(
    query: &RecordQuery,
    bounds: &Bounds,
    at_time: Option<&BTreeMap<i32, i64>>,
) -> Result<(Start, usize), ApiError> {
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(ApiError::bad_request(
            "limit",
            format!("A page holds 1 to {MAX_LIMIT} records."),
        ));
    }
    let partitions: Vec<i32> = match query.partition {
        Some(p) if bounds.contains_key(&p) => vec![p],
        Some(p) => {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("Topic \"{}\" has no partition {p}.", query.topic),
            ))
        }
        None => bounds.keys().copied().collect(),
    };
    let all = |pick: &dyn Fn(i64, i64) -> i64| -> BTreeMap<i32, i64> {
        partitions
            .iter()
            .map(|p| {
                let (low, high) = bounds[p];
                (*p, pick(low, high))
            })
            .collect()
    };
    let starts = [
        query.cursor.is_some(),
        query.offset.is_some(),
        query.timestamp.is_some(),
        query.from.is_some(),
    ];
    if starts.iter().filter(|s| **s).count() > 1 {
        return Err(ApiError::bad_request(
            "from",
            "Give one start: cursor, offset, timestamp or from.",
        ));
    }
    let start = if let Some(cursor) = &query.cursor {
        let cursor = Cursor::decode(cursor)?;
        if cursor.positions.keys().any(|p| !bounds.contains_key(p)) {
            return Err(ApiError::bad_request(
                "cursor",
                "The cursor names a partition this topic lacks.",
            ));
        }
        if cursor.backward {
            Start::Backward(cursor.positions)
        } else {
            Start::Forward(cursor.positions)
        }
    } else if let Some(offset) = query.offset {
        if query.partition.is_none() {
            return Err(ApiError::bad_request(
                "offset",
                "An offset needs a partition.",
            ));
        }
        if offset < 0 {
            return Err(ApiError::bad_request("offset", "An offset is 0 or more."));
        }
        Start::Forward(all(&|low, high| offset.clamp(low, high)))
    } else if query.timestamp.is_some() {
        let found = at_time.cloned().unwrap_or_default();
        Start::Forward(
            partitions
                .iter()
                .map(|p| (*p, found.get(p).copied().unwrap_or(bounds[p].1)))
                .collect(),
        )
    } else {
        match query.from.as_deref() {
            None | Some("latest") => Start::Backward(all(&|_, high| high)),
            Some("earliest") => Start::Forward(all(&|low, _| low)),
            Some(other) => {
                return Err(ApiError::bad_request(
                    "from",
                    format!("\"{other}\" is not a start; use earliest or latest."),
                ))
            }
        }
    };
    Ok((start, limit as usize))
}

/// A page's records (oldest first) and the cursors around it, from a forward scan.
pub fn forward_page(
    starts: &BTreeMap<i32, i64>,
    bounds: &Bounds,
    scan: Scan,
    limit: usize,
) -> (Vec<RawRecord>, Option<Cursor>, Option<Cursor>) {
    let mut records = scan.records;
    records.sort_by_key(RawRecord::order);
    let cut: Vec<RawRecord> = records.split_off(records.len().min(limit));
    let next: BTreeMap<i32, i64> = starts
        .keys()
        .map(|p| {
            let last = records.iter().rev().find(|r| r.partition == *p);
            let first_cut = cut.iter().find(|r| r.partition == *p);
            let at = match (last, first_cut) {
                (_, Some(c)) => c.offset,
                (Some(r), None) => scan.reached.get(p).copied().unwrap_or(r.offset + 1),
                (None, None) => scan.reached.get(p).copied().unwrap_or(starts[p]),
            };
            (*p, at)
        })
        .collect();
    let prev: BTreeMap<i32, i64> = starts
        .keys()
        .map(|p| {
            let first = records.iter().find(|r| r.partition == *p);
            (*p, first.map_or(starts[p], |r| r.offset))
        })
        .collect();
    let next = Cursor::unless_done(false, next, bounds);
    let prev = Cursor::unless_done(true, prev, bounds);
    (records, next, prev)
}

/// A page's records (oldest first) and the cursors around it, from the matches of a backward
/// scan that reached down to `reached` in each partition.
pub fn backward_page(
    ends: &BTreeMap<i32, i64>,
    bounds: &Bounds,
    mut matched: Vec<RawRecord>,
    reached: &BTreeMap<i32, i64>,
    limit: usize,
) -> (Vec<RawRecord>, Option<Cursor>, Option<Cursor>) {
    matched.sort_by_key(RawRecord::order);
    let records = matched.split_off(matched.len().saturating_sub(limit));
    let cut = matched;
    let prev: BTreeMap<i32, i64> = ends
        .keys()
        .map(|p| {
            let first = records.iter().find(|r| r.partition == *p);
            let last_cut = cut.iter().rev().find(|r| r.partition == *p);
            let at = match (first, last_cut) {
                (_, Some(c)) => c.offset + 1,
                (Some(r), None) => reached.get(p).copied().unwrap_or(r.offset),
                (None, None) => reached.get(p).copied().unwrap_or(ends[p]),
            };
            (*p, at)
        })
        .collect();
    let next: BTreeMap<i32, i64> = ends
        .keys()
        .map(|p| {
            let last = records.iter().rev().find(|r| r.partition == *p);
            (*p, last.map_or(ends[p], |r| r.offset + 1))
        })
        .collect();
    let prev = Cursor::unless_done(true, prev, bounds);
    let next = Cursor::unless_done(false, next, bounds);
    (records, next, prev)
}

/// A page as read: its records, the cursors after and before it, how many records were
/// scanned, and whether the scan stopped early.
pub type PageRead = (Vec<RawRecord>, Option<Cursor>, Option<Cursor>, u64, bool);

/// Reads one page. Blocks; call from a blocking task.
pub fn read_page(
    config: &ClientConfig,
    topic: &str,
    start: &Start,
    bounds: &Bounds,
    limit: usize,
    filter: Option<&Filter>,
) -> Result<PageRead, String> {
    let deadline = Instant::now() + PAGE_DEADLINE;
    match start {
        Start::Forward(starts) => {
            let spans: Vec<Span> = starts
                .iter()
                .map(|(p, at)| Span {
                    partition: *p,
                    start: (*at).max(bounds[p].0),
                    end: bounds[p].1,
                })
                .collect();
            let found = scan(config, topic, &spans, limit, filter, deadline, SCAN_BUDGET)?;
            let (scanned, stopped) = (found.scanned, found.stopped);
            let (records, next, prev) = forward_page(starts, bounds, found, limit);
            Ok((records, next, prev, scanned, stopped))
        }
        Start::Backward(ends) => {
            let step = if filter.is_some() {
                BACKWARD_STEP.max(limit as i64)
            } else {
                limit as i64
            };
            let mut down: BTreeMap<i32, i64> = ends
                .iter()
                .map(|(p, at)| (*p, (*at).min(bounds[p].1)))
                .collect();
            let mut matched: Vec<RawRecord> = Vec::new();
            let (mut scanned, mut stopped) = (0u64, false);
            loop {
                let spans: Vec<Span> = down
                    .iter()
                    .filter(|(p, at)| {
                        **at > bounds[*p].0
                            && matched.iter().filter(|r| r.partition == **p).count() < limit
                    })
                    .map(|(p, at)| Span {
                        partition: *p,
                        start: (at - step).max(bounds[p].0),
                        end: *at,
                    })
                    .collect();
                if spans.is_empty() {
                    break;
                }
                let found = scan(
                    config,
                    topic,
                    &spans,
                    usize::MAX,
                    filter,
                    deadline,
                    SCAN_BUDGET - scanned,
                )?;
                scanned += found.scanned;
                matched.extend(found.records);
                if found.stopped {
                    stopped = true;
                    break;
                }
                for s in &spans {
                    down.insert(s.partition, s.start);
                }
            }
            let (records, next, prev) = backward_page(ends, bounds, matched, &down, limit);
            Ok((records, next, prev, scanned, stopped))
        }
    }
}

/// Builds the answer of a page from its raw records.
pub async fn page_answer(topic: &str, schemas: &Schemas, read: PageRead) -> RecordPage {
    let (records, next, prev, scanned, partial) = read;
    RecordPage {
        records: decode_all(&records, topic, schemas).await,
        next: next.map(|c| c.encode()),
        prev: prev.map(|c| c.encode()),
        scanned,
        partial,
    }
}

#[cfg(test)]
mod tests;
