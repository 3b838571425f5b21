//! The one scan loop: every read of records (a page, the export, the tail) runs [`run`] over a
//! reader, and says after each step whether to go on. Pages add a deadline and a budget, the
//! export a client that may leave, the tail a caller whose access may end.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rdkafka::consumer::Consumer;
use rdkafka::error::KafkaError;
use rdkafka::message::{BorrowedMessage, Message};
use rdkafka::TopicPartitionList;

use super::reader::{self, close_later, Kind, Reader};
use super::{PageRequest, RawRecord};
use crate::kafka::ClientError;
use rdkafka::config::ClientConfig;

/// How long a page's poll waits before the deadline is looked at again.
const PAGE_POLL: Duration = Duration::from_millis(100);

/// One partition's range to read: `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub partition: i32,
    pub start: i64,
    pub end: i64,
}

/// A record the reader holds until the next poll, to copy out.
pub struct Incoming<'m>(&'m BorrowedMessage<'m>);

impl Incoming<'_> {
    /// The record, in buffers of its own.
    pub fn record(&self) -> RawRecord {
        RawRecord::from_message(self.0)
    }

    /// Copies the record into `into`, reusing its buffers: a visitor that keeps few of the
    /// records it sees allocates nothing for the others.
    pub fn copy_into(&self, into: &mut RawRecord) {
        into.copy_from(self.0);
    }
}

/// What the loop hands its visitor.
pub enum Seen<'m> {
    /// Before a poll: the moment to look at deadlines and clients. It comes before every
    /// poll that follows one without a record, and at least every [`RECORDS_PER_TICK`]
    /// records, so that a fast read does not ask the clock once per record.
    Tick,
    /// A record inside its partition's span.
    Record(Incoming<'m>),
}

/// The most records read between two [`Seen::Tick`]s.
pub const RECORDS_PER_TICK: usize = 64;

/// What the visitor says back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Go,
    /// This record's partition is done; the others go on.
    Close,
    /// The whole scan is done.
    Stop,
}

/// Reads `spans` of `topic` with `reader`, each partition in offset order, until every
/// partition has reached the end of its span, the end of the partition, or the visitor stops
/// it. A Kafka error ends the loop with its message. Blocks.
pub fn run(
    reader: &Reader, topic: &str, spans: &[Span], poll: Duration,
    mut visit: impl FnMut(Seen<'_>) -> Flow,
) -> Result<(), ClientError> {
    let ends: HashMap<i32, i64> =
        spans.iter().filter(|s| s.start < s.end).map(|s| (s.partition, s.end)).collect();
    let mut open: Vec<i32> = ends.keys().copied().collect();
    let close = |partition: i32, open: &mut Vec<i32>| {
        open.retain(|p| *p != partition);
        let mut one = TopicPartitionList::new();
        one.add_partition(topic, partition);
        // A finished partition stops fetching; the others go on.
        let _ = reader.pause(&one);
    };
    // Records since the last tick; the first poll has one before it.
    let mut since_tick = RECORDS_PER_TICK;
    while !open.is_empty() {
        if since_tick >= RECORDS_PER_TICK {
            if visit(Seen::Tick) == Flow::Stop {
                return Ok(());
            }
            since_tick = 0;
        }
        // A poll without a record (an empty wait, a partition's end) is followed by a tick.
        let message = match reader.poll(poll) {
            None => {
                since_tick = RECORDS_PER_TICK;
                continue;
            }
            Some(Ok(message)) => message,
            Some(Err(KafkaError::PartitionEOF(partition))) => {
                close(partition, &mut open);
                since_tick = RECORDS_PER_TICK;
                continue;
            }
            Some(Err(error)) => return Err(ClientError::while_("reading records")(error)),
        };
        since_tick += 1;
        let partition = message.partition();
        let Some(end) = ends.get(&partition).copied() else {
            continue;
        };
        if !open.contains(&partition) {
            continue;
        }
        if message.offset() >= end {
            close(partition, &mut open);
            continue;
        }
        let last = message.offset().saturating_add(1) >= end;
        match visit(Seen::Record(Incoming(&message))) {
            Flow::Stop => return Ok(()),
            Flow::Close => close(partition, &mut open),
            Flow::Go if last => close(partition, &mut open),
            Flow::Go => {}
        }
    }
    Ok(())
}

/// Reads `spans` of `topic` to their ends, handing each record to `visit`, until `deadline`;
/// whether every span was read to its end. For reads that are not record views (the audit
/// log's read-back of its topic). Blocks.
pub fn read_spans(
    config: &ClientConfig, topic: &str, spans: &[Span], deadline: Instant,
    mut visit: impl FnMut(RawRecord),
) -> Result<bool, ClientError> {
    let selected = Selected { topic, spans, filter: None, until_timestamp: None };
    let stopped = std::cell::Cell::new(false);
    let stop = || {
        stopped.set(Instant::now() >= deadline);
        stopped.get()
    };
    read_selection(config, &selected, &std::sync::atomic::AtomicU64::new(0), stop, |record| {
        visit(record);
        Flow::Go
    })?;
    Ok(!stopped.get())
}

/// What a page's scan found.
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

/// Reads `spans` of the page's topic, keeping records that pass its filter, at most
/// `per_partition` of them per partition, until its deadline or `budget` records read. Blocks.
pub fn scan_page(
    config: &ClientConfig, page: &PageRequest, spans: &[Span], per_partition: usize, budget: u64,
) -> Result<Scan, ClientError> {
    let (topic, filter, deadline) = (page.topic.as_str(), page.filter.as_ref(), page.deadline);
    let mut out = Scan::default();
    let spans: Vec<Span> = spans.iter().copied().filter(|s| s.start < s.end).collect();
    for s in &spans {
        out.reached.insert(s.partition, s.start);
    }
    if spans.is_empty() {
        return Ok(out);
    }
    let starts: Vec<(i32, i64)> = spans.iter().map(|s| (s.partition, s.start)).collect();
    let consumer = reader::open(config, topic, &starts, Kind::Page)?;
    let mut kept: HashMap<i32, usize> = HashMap::new();
    // Each record is copied here first; only one that passes the filter is kept.
    let mut spare: Option<RawRecord> = None;
    let result = run(&consumer, topic, &spans, PAGE_POLL, |seen| match seen {
        Seen::Tick if Instant::now() >= deadline || out.scanned >= budget => {
            out.stopped = true;
            Flow::Stop
        }
        Seen::Tick => Flow::Go,
        // Ticks come every few records; the budget is kept to the record.
        Seen::Record(_) if out.scanned >= budget => {
            out.stopped = true;
            Flow::Stop
        }
        Seen::Record(incoming) => {
            out.scanned += 1;
            let record = match spare {
                Some(ref mut kept) => {
                    incoming.copy_into(kept);
                    kept
                }
                None => spare.insert(incoming.record()),
            };
            out.reached.insert(record.partition, record.offset.saturating_add(1));
            if !filter.is_none_or(|f| f.matches(record))
                || page.max_bytes.is_some_and(|most| record.size() > most)
            {
                return Flow::Go;
            }
            let Some(record) = spare.take() else {
                return Flow::Go;
            };
            let count = kept.entry(record.partition).or_default();
            *count += 1;
            out.records.push(record);
            if *count >= per_partition {
                Flow::Close
            } else {
                Flow::Go
            }
        }
    });
    close_later(consumer);
    result.map(|()| out)
}

/// What a job that moves records reads: ranges of one topic, the filter a record must pass,
/// and the time a partition stops at (its first record newer than it).
pub struct Selected<'a> {
    pub topic: &'a str,
    pub spans: &'a [Span],
    pub filter: Option<&'a super::Filter>,
    pub until_timestamp: Option<i64>,
}

/// Reads `selected` once, each partition in offset order: each record that belongs to it goes
/// to `visit`, which says whether to go on. `stop` is asked at every tick; every record read
/// is counted in `scanned`. Blocks.
pub fn read_selection(
    config: &ClientConfig, selected: &Selected<'_>, scanned: &std::sync::atomic::AtomicU64,
    stop: impl Fn() -> bool, mut visit: impl FnMut(RawRecord) -> Flow,
) -> Result<(), ClientError> {
    let Selected { topic, spans, filter, until_timestamp } = *selected;
    let spans: Vec<Span> = spans.iter().copied().filter(|s| s.start < s.end).collect();
    if spans.is_empty() {
        return Ok(());
    }
    let starts: Vec<(i32, i64)> = spans.iter().map(|s| (s.partition, s.start)).collect();
    let consumer = reader::open(config, topic, &starts, Kind::Export)?;
    let result = run(&consumer, topic, &spans, PAGE_POLL, |seen| match seen {
        Seen::Tick if stop() => Flow::Stop,
        Seen::Tick => Flow::Go,
        Seen::Record(incoming) => {
            scanned.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let record = incoming.record();
            if until_timestamp.is_some_and(|to| record.timestamp.is_some_and(|t| t > to)) {
                return Flow::Close;
            }
            if filter.is_some_and(|f| !f.matches(&record)) {
                return Flow::Go;
            }
            visit(record)
        }
    });
    close_later(consumer);
    result
}
