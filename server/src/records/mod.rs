//! Reading records live: pages by offset, timestamp, either end, or a cursor; one record; and
//! the spans the export and the tail stream. Every read is bounded by a deadline and a scan
//! budget, and answers what it has with a cursor rather than hanging on a sparse topic.
//!
//! The room is split by job: `plan.rs` (where a page starts), `cursor.rs`, `filter.rs`,
//! `scan.rs` (the one scan loop pages, export and tail share), `page.rs`, `stream.rs`,
//! `reader.rs` (the consumers) and `decode.rs`. Each function here that reads a topic's
//! records takes the grant for RECORDS on that topic and checks it first, except the read of a
//! subject's records for the check of a proposed schema, which takes REGISTER_SCHEMAS on the
//! subject and answers no record's content.

/// The Avro schemas whose datum is written as a `long`: the type and the logical types on it.
/// A pattern, so that the matches over every schema stay exhaustive.
macro_rules! long_schemas {
    () => {
        apache_avro::Schema::Long
            | apache_avro::Schema::TimeMicros
            | apache_avro::Schema::TimestampMillis
            | apache_avro::Schema::TimestampMicros
            | apache_avro::Schema::TimestampNanos
            | apache_avro::Schema::LocalTimestampMillis
            | apache_avro::Schema::LocalTimestampMicros
            | apache_avro::Schema::LocalTimestampNanos
    };
}

mod avro;
mod cursor;
pub mod decode;
pub mod encode;
mod expr;
mod filter;
pub mod lines;
mod page;
mod plan;
pub mod pool;
pub mod proposed;
mod proto;
mod reader;
pub mod redrive;
pub mod scan;
pub mod stream;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::api::{Record, RecordHeader, RecordPage, RecordQuery, TimestampType};
use app::{ApiError, Privilege};
use rdkafka::message::{Headers, Message};

pub use self::cursor::{Bounds, Cursor};
use self::decode::{Loaded, Schemas};
pub use self::filter::{Filter, View};
pub use self::page::{
    backward_page, forward_page, page_answer, read_page, PageRead, PageRequest, PAGE_DEADLINE,
};
pub use self::plan::{plan, Start};
pub use self::scan::{Scan, Span};
use crate::auth::Grant;
use crate::kafka::{KafkaClients, Link, Topic};
use crate::masking::TopicMask;

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

/// The largest key or value buffer a record keeps for the next one copied into it.
const KEPT_BUFFER: usize = 64 * 1024;

impl RawRecord {
    fn from_message<M: Message>(m: &M) -> RawRecord {
        let mut record = RawRecord {
            partition: 0,
            offset: 0,
            timestamp: None,
            timestamp_type: TimestampType::NotAvailable,
            key: None,
            value: None,
            headers: Vec::new(),
        };
        record.copy_from(m);
        record
    }

    /// Becomes the record of `m`, copying its key and value into the buffers it has (up to
    /// [`KEPT_BUFFER`] bytes each) instead of new ones.
    fn copy_from<M: Message>(&mut self, m: &M) {
        fn copy(into: &mut Option<Vec<u8>>, bytes: Option<&[u8]>) {
            match (into.as_mut(), bytes) {
                (Some(kept), Some(bytes)) if kept.capacity() <= KEPT_BUFFER => {
                    kept.clear();
                    kept.extend_from_slice(bytes);
                }
                _ => *into = bytes.map(<[u8]>::to_vec),
            }
        }
        let (timestamp, timestamp_type) = match m.timestamp() {
            rdkafka::Timestamp::CreateTime(t) => (Some(t), TimestampType::CreateTime),
            rdkafka::Timestamp::LogAppendTime(t) => (Some(t), TimestampType::LogAppendTime),
            rdkafka::Timestamp::NotAvailable => (None, TimestampType::NotAvailable),
        };
        let headers = m
            .headers()
            .map(|h| h.iter().map(|h| (h.key.to_string(), h.value.map(<[u8]>::to_vec))).collect())
            .unwrap_or_default();
        self.partition = m.partition();
        self.offset = m.offset();
        self.timestamp = timestamp;
        self.timestamp_type = timestamp_type;
        copy(&mut self.key, m.key());
        copy(&mut self.value, m.payload());
        self.headers = headers;
    }

    /// Bytes of key, value and headers as written.
    pub fn size(&self) -> u64 {
        let len = |b: &Option<Vec<u8>>| b.as_ref().map_or(0, Vec::len) as u64;
        len(&self.key)
            + len(&self.value)
            + self.headers.iter().map(|(k, v)| k.len() as u64 + len(v)).sum::<u64>()
    }

    /// Order across partitions: by timestamp, then partition, then offset.
    fn order(&self) -> (i64, i32, i64) {
        (self.timestamp.unwrap_or(-1), self.partition, self.offset)
    }

    /// Decodes into the shape the API answers.
    pub fn decode(&self, topic: &str, schemas: &Schemas, loaded: &Loaded) -> Record {
        Record {
            topic: topic.to_string(),
            partition: self.partition,
            offset: self.offset,
            timestamp: self.timestamp,
            timestamp_type: self.timestamp_type,
            key: schemas.decode(loaded, self.key.as_deref()),
            value: schemas.decode(loaded, self.value.as_deref()),
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

/// The decoders a batch of records needs, fetched from the registry where not known yet.
pub async fn load_schemas(records: &[RawRecord], schemas: &Schemas) -> Loaded {
    let ids: Vec<u32> = records
        .iter()
        .flat_map(|r| [schemas.wanted(r.key.as_deref()), schemas.wanted(r.value.as_deref())])
        .flatten()
        .collect();
    schemas.load(ids).await
}

/// Fetches the schemas a batch of records needs, then decodes them, masked by `mask` when the
/// caller sees the topic masked.
pub async fn decode_all(
    records: &[RawRecord], topic: &str, schemas: &Schemas, mask: Option<&TopicMask>,
) -> Vec<Record> {
    let loaded = load_schemas(records, schemas).await;
    records
        .iter()
        .map(|r| {
            let mut record = r.decode(topic, schemas, &loaded);
            if let Some(mask) = mask {
                mask.apply(&mut record);
            }
            record
        })
        .collect()
}

/// The partitions of `topic` with their live watermarks, read now (not from the projection),
/// so that a read is bounded by what exists at this moment.
async fn bounds(
    clients: &Arc<KafkaClients>, topic: &Topic, deadline: Instant,
) -> Result<Bounds, ApiError> {
    let (clients, topic) = (Arc::clone(clients), topic.clone());
    let marks = pool::run("reading offsets", move || {
        clients.fetch_watermarks(std::slice::from_ref(&topic), left(deadline))
    })
    .await?;
    Ok(marks.into_iter().map(|((_, partition), marks)| (partition, marks)).collect())
}

/// Per partition of `bounds`, the first offset at or after `timestamp`.
async fn offsets_at(
    clients: &Arc<KafkaClients>, topic: &str, bounds: &Bounds, timestamp: i64, deadline: Instant,
) -> Result<BTreeMap<i32, i64>, ApiError> {
    let (clients, topic) = (Arc::clone(clients), topic.to_string());
    let partitions: Vec<i32> = bounds.keys().copied().collect();
    pool::run("reading offsets", move || {
        clients.offsets_at(&topic, &partitions, timestamp, left(deadline))
    })
    .await
}

/// What is left until `deadline`.
fn left(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

/// One page of records of `topic`, answered within [`PAGE_DEADLINE`] from its start (offset
/// lookups included), with what it found by then. With a `mask`, the records are answered
/// masked and the filter sees them as masked.
pub async fn page(
    grant: &Grant, link: &Link, schemas: &Arc<Schemas>, topic: &Topic, query: &RecordQuery,
    mask: Option<Arc<TopicMask>>,
) -> Result<RecordPage, ApiError> {
    grant.require_topic(Privilege::Records, &topic.name)?;
    let filter = Filter::parse(query.q.as_deref(), query.exact, query.expr.as_deref())?
        .map(|f| View::over(f, &topic.name, schemas, mask.as_ref()));
    let by_key = key_search(query, topic)?;
    let deadline = Instant::now() + PAGE_DEADLINE;
    let clients = link.clients()?;
    let mut bounds = bounds(&clients, topic, deadline).await?;
    let (filter, searched) = match by_key {
        Some((key, partitions)) => {
            bounds.retain(|p, _| partitions.contains(p));
            (Some(Filter::for_key(key, filter)), Some(partitions))
        }
        None => (filter, None),
    };
    let at_time = match query.timestamp {
        Some(ts) => Some(offsets_at(&clients, &topic.name, &bounds, ts, deadline).await?),
        None => None,
    };
    let (start, limit) = plan(query, &bounds, at_time.as_ref())?;
    // A clone shares the count of records the expression could not be evaluated on.
    let judged = filter.clone();
    let request = PageRequest {
        topic: topic.name.clone(),
        start,
        bounds,
        limit,
        filter,
        deadline,
        max_bytes: None,
    };
    let read = read(link, request).await?;
    let mut answer = page_answer(&topic.name, schemas, read, mask.as_deref()).await;
    answer.key_partitions = searched;
    answer.unevaluated = judged.and_then(|f| f.unevaluated());
    Ok(answer)
}

/// A search by key: the key's bytes and the partitions to read.
type KeySearch = (Vec<u8>, Vec<i32>);

/// For a search by key: the key's bytes and the partitions to read, those the key hashes to
/// under the partitioner asked for, or under both (Java clients' and librdkafka's), unless a
/// partition was named. An empty key has no partition of its own under librdkafka's
/// partitioner (it places it at random), so every partition is read.
fn key_search(query: &RecordQuery, topic: &Topic) -> Result<Option<KeySearch>, ApiError> {
    use crate::kafka::partition::Partitioner;
    let Some(key) = &query.key else {
        return Ok(None);
    };
    let bytes = match query.key_encoding.as_deref() {
        None | Some("text") => key.as_bytes().to_vec(),
        Some("base64") => {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .decode(key)
                .map_err(|e| ApiError::bad_request("key", format!("The key is not base64: {e}.")))?
        }
        Some(_) => {
            return Err(ApiError::bad_request(
                "key_encoding",
                "A key is written as text or base64.",
            ))
        }
    };
    let partitioners = match query.partitioner.as_deref() {
        None => vec![Partitioner::Murmur2Random, Partitioner::ConsistentRandom],
        Some(name) => vec![Partitioner::from_property(Some(name))
            .map_err(|e| ApiError::bad_request("partitioner", e))?],
    };
    let count = u32::try_from(topic.partitions.len()).unwrap_or(0);
    let mut partitions: Vec<i32> = match query.partition {
        Some(p) => vec![p],
        None if bytes.is_empty() && partitioners.contains(&Partitioner::ConsistentRandom) => {
            topic.partitions.iter().map(|p| p.id).collect()
        }
        None => partitioners.iter().map(|p| p.partition(&bytes, count) as i32).collect(),
    };
    partitions.sort_unstable();
    partitions.dedup();
    Ok(Some((bytes, partitions)))
}

/// The record at `offset` of `partition` of `topic`, masked by `mask`.
pub async fn one(
    grant: &Grant, link: &Link, schemas: &Schemas, topic: &Topic, at: (i32, i64),
    mask: Option<&TopicMask>,
) -> Result<Record, ApiError> {
    let (partition, offset) = at;
    grant.require_topic(Privilege::Records, &topic.name)?;
    let name = topic.name.as_str();
    let missing = || {
        ApiError::not_found(format!(
            "There is no record at offset {offset} of partition {partition} of \"{name}\"."
        ))
    };
    let deadline = Instant::now() + PAGE_DEADLINE;
    let clients = link.clients()?;
    let bounds = bounds(&clients, topic, deadline).await?;
    let (low, high) = bounds.get(&partition).copied().ok_or_else(missing)?;
    if offset < low || offset >= high {
        return Err(missing());
    }
    let start = Start::Forward([(partition, offset)].into_iter().collect());
    let request = PageRequest {
        topic: name.to_string(),
        start,
        bounds,
        limit: 1,
        filter: None,
        deadline,
        max_bytes: None,
    };
    let raw = read(link, request)
        .await?
        .records
        .into_iter()
        .find(|r| r.offset == offset)
        .ok_or_else(missing)?;
    let mut decoded = decode_all(&[raw], name, schemas, mask).await;
    decoded.pop().ok_or_else(missing)
}

/// The most records the check of a proposed schema reads.
pub const RECHECK_LIMIT: usize = 500;

/// The newest records of `topic` (up to [`RECHECK_LIMIT`], from every partition), read to
/// check a schema proposed for the topic's subject against them, under the grant of RECORDS on
/// the topic. Nothing read is shown: the check answers counts, places and reasons.
pub async fn newest_for_check(
    grant: &Grant, link: &Link, topic: &Topic,
) -> Result<Vec<RawRecord>, ApiError> {
    grant.require_topic(Privilege::Records, &topic.name)?;
    let deadline = Instant::now() + PAGE_DEADLINE;
    let clients = link.clients()?;
    let bounds = bounds(&clients, topic, deadline).await?;
    let query = RecordQuery {
        topic: topic.name.clone(),
        from: Some("latest".into()),
        limit: Some(RECHECK_LIMIT as u32),
        ..RecordQuery::default()
    };
    let (start, limit) = plan(&query, &bounds, None)?;
    let request = PageRequest {
        topic: topic.name.clone(),
        start,
        bounds,
        limit,
        filter: None,
        deadline,
        max_bytes: None,
    };
    Ok(read(link, request).await?.records)
}

/// The newest `limit` records of `topic` (of partition `only`, or of all) of at most
/// `max_bytes` each, raw, for a replication's status or failover: MirrorMaker's own topics
/// (offset syncs, checkpoints), decoded by the caller, and the newest record of a copied
/// partition, of which only the time is used. Read only under the grant of REPLICATIONS or
/// REPLICATION_OFFSETS on `replication`.
pub async fn for_replication(
    grant: &Grant, replication: &app::access::Resource, link: &Link, topic: &Topic,
    only: Option<i32>, limit: usize, max_bytes: u64,
) -> Result<Vec<RawRecord>, ApiError> {
    let privilege = match grant.action().privilege {
        Some(Privilege::ReplicationOffsets) => Privilege::ReplicationOffsets,
        _ => Privilege::Replications,
    };
    if !matches!(replication, app::access::Resource::Replication { .. }) {
        return Err(ApiError::new(app::ErrorCode::Client, "Not a replication's read."));
    }
    grant.require(privilege, replication)?;
    Ok(newest(link, topic, only, limit, max_bytes).await?.0)
}

/// The newest `limit` records of `topic` (at most `max_bytes` each), raw, from which a SQL
/// processor's author is shown the topic's columns, and where a preview of it starts: per
/// partition, `per_partition` records before its end (or its start). Read only under the grant
/// of RECORDS on the topic.
pub async fn for_processor(
    grant: &Grant, link: &Link, topic: &Topic, limit: usize, max_bytes: u64, per_partition: i64,
) -> Result<(Vec<RawRecord>, Vec<(i32, i64)>), ApiError> {
    grant.require_topic(Privilege::Records, &topic.name)?;
    let (records, bounds) = newest(link, topic, None, limit, max_bytes).await?;
    let starts =
        bounds.iter().map(|(p, (low, high))| (*p, (*high - per_partition).max(*low))).collect();
    Ok((records, starts))
}

/// The newest `limit` records of `topic` (of partition `only`, or of all) of at most
/// `max_bytes` each, and the partitions' bounds they were read within. The callers above hold
/// the grant for it.
async fn newest(
    link: &Link, topic: &Topic, only: Option<i32>, limit: usize, max_bytes: u64,
) -> Result<(Vec<RawRecord>, Bounds), ApiError> {
    let deadline = Instant::now() + PAGE_DEADLINE;
    let clients = link.clients()?;
    let mut bounds = bounds(&clients, topic, deadline).await?;
    if let Some(only) = only {
        bounds.retain(|p, _| *p == only);
    }
    let ends = bounds.iter().map(|(p, (_, high))| (*p, *high)).collect();
    let request = PageRequest {
        topic: topic.name.clone(),
        start: Start::Backward(ends),
        bounds: bounds.clone(),
        limit: limit.max(1),
        filter: None,
        deadline,
        max_bytes: Some(max_bytes),
    };
    Ok((read(link, request).await?.records, bounds))
}

async fn read(link: &Link, request: PageRequest) -> Result<PageRead, ApiError> {
    let config = link.reader().clone();
    pool::run("reading records", move || read_page(&config, &request)).await
}

/// Where a stream of `topic` reads, fixed now: from `from` (`earliest`, `latest`, or a
/// timestamp in ms) to each partition's high watermark at this moment.
pub async fn stream_spans(
    grant: &Grant, link: &Link, topic: &Topic, partition: Option<i32>, from: &str,
) -> Result<Vec<Span>, ApiError> {
    grant.require_topic(Privilege::Records, &topic.name)?;
    // The stream's answer (its status and headers) waits for these lookups.
    let deadline = Instant::now() + PAGE_DEADLINE;
    let clients = link.clients()?;
    let mut bounds = bounds(&clients, topic, deadline).await?;
    if let Some(p) = partition {
        bounds.retain(|k, _| *k == p);
        if bounds.is_empty() {
            return Err(ApiError::not_found(format!(
                "Topic \"{}\" has no partition {p}.",
                topic.name
            )));
        }
    }
    let starts: BTreeMap<i32, i64> = match from {
        "earliest" => bounds.iter().map(|(p, (low, _))| (*p, *low)).collect(),
        "latest" => bounds.iter().map(|(p, (_, high))| (*p, *high)).collect(),
        other => {
            let ts: i64 = other.parse().map_err(|_| {
                ApiError::bad_request(
                    "from",
                    "Start at earliest, latest, or a timestamp in ms since the epoch.",
                )
            })?;
            offsets_at(&clients, &topic.name, &bounds, ts, deadline).await?
        }
    };
    Ok(bounds
        .iter()
        .map(|(p, (_, high))| Span {
            partition: *p,
            start: starts.get(p).copied().unwrap_or(*high),
            end: *high,
        })
        .collect())
}

#[cfg(test)]
mod tests;
