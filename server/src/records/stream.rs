//! The two record streams: the NDJSON export (a fixed range, read once, at the client's pace)
//! and the live tail (new records as they arrive). Each runs the one scan loop on a blocking
//! thread and hands its output to the HTTP response through a small bounded channel, so memory
//! stays flat whatever the topic's size, a slow client slows the reading, and a client that
//! leaves ends the work.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rdkafka::config::ClientConfig;
use tokio::runtime::Handle;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::mpsc::Sender;

use super::decode::{Loaded, Schemas};
use super::filter::Filter;
use super::lines::{self, Scratch};
use super::reader::{self, close_later, Kind};
use super::scan::{self, Flow, Seen, Span};
use super::{decode_all, load_schemas, RawRecord};
use crate::masking::TopicMask;
use app::api::Unevaluated;

/// Records decoded together (their schemas fetched at once) before the chunk is looked at.
const BATCH: usize = 500;
/// Bytes of NDJSON gathered before they are handed to the response.
const CHUNK_BYTES: usize = 256 * 1024;
/// Room made for a chunk: its size and a batch of ordinary records past it, so that a chunk
/// is not moved while it fills (pages not written to take no memory).
const CHUNK_CAPACITY: usize = 4 * CHUNK_BYTES;
/// How long a poll waits before the stream looks at its client and its deadline again.
const POLL: Duration = Duration::from_millis(200);
/// How often the tail asks whether its caller may still read.
const RECHECK: Duration = Duration::from_secs(1);

/// How long a stream waits for a client that reads nothing before it gives up, so that a
/// client that stops reading (without leaving) holds no thread and no reader for ever.
const STALLED_FOR: Duration = Duration::from_secs(60);
/// How often a full channel is tried again meanwhile: after 1 ms first (a client reading
/// at full speed empties the channel in about that), then twice as long each time, up to this.
const RETRY_SEND: Duration = Duration::from_millis(50);

/// Sends `item`, waiting while the client reads, until `patience` has passed without room.
/// `false` when the client left or stalled: the stream ends.
fn send_patiently<T>(out: &Sender<T>, item: T, patience: Duration) -> bool {
    let started = Instant::now();
    let mut item = item;
    let mut wait = Duration::from_millis(1);
    loop {
        match out.try_send(item) {
            Ok(()) => return true,
            Err(TrySendError::Closed(_)) => return false,
            Err(TrySendError::Full(back)) => {
                if started.elapsed() >= patience {
                    tracing::debug!("a stream's client stopped reading; the stream ends");
                    return false;
                }
                item = back;
                std::thread::sleep(wait);
                wait = (wait * 2).min(RETRY_SEND);
            }
        }
    }
}

/// Asks a stream's access question at most once every [`RECHECK`].
struct Recheck<F> {
    allowed: F,
    checked: Instant,
}

impl<F: Fn() -> Result<(), String>> Recheck<F> {
    fn new(allowed: F) -> Self {
        Recheck { allowed, checked: Instant::now() }
    }

    /// Why the stream must end, if it is time to ask and the answer is no.
    fn refusal(&mut self) -> Option<String> {
        if self.checked.elapsed() < RECHECK {
            return None;
        }
        self.checked = Instant::now();
        (self.allowed)().err()
    }
}

/// What a stream reads from: the consumer settings, the topic, and how to decode.
pub struct Source {
    pub config: ClientConfig,
    pub topic: String,
    pub schemas: Arc<Schemas>,
    /// The runtime, for fetching schemas from the blocking thread.
    pub handle: Handle,
    /// The masking of the topic's records for the caller, if any.
    pub mask: Option<Arc<TopicMask>>,
}

impl Source {
    /// Decodes a batch (fetching any schemas it needs) and appends its NDJSON lines to `out`.
    fn render(&self, records: &[RawRecord], out: &mut Vec<u8>, scratch: &mut Scratch) {
        if let Some(mask) = self.mask.as_deref() {
            // A masked topic: the pages' decoding, then the caller's masks over it.
            let decoded =
                self.handle.block_on(decode_all(records, &self.topic, &self.schemas, Some(mask)));
            for record in decoded {
                if serde_json::to_writer(&mut *out, &record).is_ok() {
                    out.push(b'\n');
                }
            }
            return;
        }
        let loaded = if records.iter().any(|r| {
            self.schemas.wanted(r.value.as_deref()).is_some()
                || self.schemas.wanted(r.key.as_deref()).is_some()
        }) {
            self.handle.block_on(load_schemas(records, &self.schemas))
        } else {
            Loaded::default()
        };
        for record in records {
            lines::write_record(out, &self.topic, record, &self.schemas, &loaded, scratch);
        }
    }
}

/// Readers an export runs side by side, each over its share of the partitions. librdkafka
/// keeps one fetch in flight per broker and client, and decompresses on that broker's thread:
/// one reader waits on its fetches about half the time, and its lines are written on one core.
/// Two readers fetch, decompress and write lines at once (dev/bench-records).
const READERS: usize = 2;

/// Splits `spans` into at most `readers` shares of about as many records each, the longest
/// spans placed first, each on the share with the fewest records so far. No share is empty.
fn shares(spans: &[Span], readers: usize) -> Vec<Vec<Span>> {
    let mut spans: Vec<Span> = spans.iter().copied().filter(|s| s.start < s.end).collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.end.saturating_sub(s.start)));
    let mut shares: Vec<(i64, Vec<Span>)> = Vec::new();
    for span in spans {
        let records = span.end.saturating_sub(span.start);
        if shares.len() < readers.max(1) {
            shares.push((records, vec![span]));
            continue;
        }
        if let Some(lightest) = shares.iter_mut().min_by_key(|(total, _)| *total) {
            lightest.0 = lightest.0.saturating_add(records);
            lightest.1.push(span);
        }
    }
    shares.into_iter().map(|(_, share)| share).collect()
}

/// What the readers of one export share: whether to stop, and the first reason the export
/// failed (which becomes its last line once every reader has finished).
#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    failure: Mutex<Option<String>>,
}

impl Shared {
    fn fail(&self, reason: String) {
        self.stop.store(true, Ordering::Relaxed);
        if let Ok(mut failure) = self.failure.lock() {
            failure.get_or_insert(reason);
        }
    }
}

/// Streams `spans` as NDJSON chunks into `out`, each partition in offset order (the readers'
/// chunks interleave, each made of whole lines). Stops at the spans' ends (fixed when the
/// export began), when the client goes away, when `allowed` (asked every second) says the
/// caller may no longer read, or on a Kafka error; the last two end the stream with a last
/// line `{"error": …}`, sent once every reader has stopped. Blocks.
pub fn export(
    source: &Source, spans: &[Span], filter: Option<&Filter>, until_timestamp: Option<i64>,
    allowed: impl Fn() -> Result<(), String> + Sync, out: Sender<Vec<u8>>,
) {
    let shares = shares(spans, READERS);
    let Some((first, others)) = shares.split_first() else {
        return;
    };
    let shared = Shared::default();
    let read = |share: &[Span]| {
        read_share(source, share, filter, until_timestamp, &allowed, &out, &shared);
    };
    std::thread::scope(|scope| {
        for share in others {
            let read = &read;
            scope.spawn(move || read(share));
        }
        read(first);
    });
    // Records the expression could not be evaluated on were left out: said in a line of their
    // own, before an error line (which stays last).
    if let Some(unevaluated) = filter.and_then(Filter::unevaluated) {
        send_patiently(&out, unevaluated_line(&unevaluated), STALLED_FOR);
    }
    // A client that left takes no error line: sending to a closed channel returns at once.
    if let Some(error) = shared.failure.into_inner().ok().flatten() {
        send_patiently(&out, error_line(&error), STALLED_FOR);
    }
}

/// One reader of an export: reads `spans` and sends their lines until they end or `shared`
/// says to stop. A refusal or a Kafka error stops every reader of the export.
fn read_share(
    source: &Source, spans: &[Span], filter: Option<&Filter>, until_timestamp: Option<i64>,
    allowed: &(impl Fn() -> Result<(), String> + Sync), out: &Sender<Vec<u8>>, shared: &Shared,
) {
    let topic = source.topic.as_str();
    let starts: Vec<(i32, i64)> = spans.iter().map(|s| (s.partition, s.start)).collect();
    let consumer = match reader::open(&source.config, topic, &starts, Kind::Export) {
        Ok(c) => c,
        Err(error) => {
            shared.fail(error.to_string());
            return;
        }
    };
    // The records to render are `batch[..used]`; those after are buffers kept from earlier
    // batches, which the next records are copied into.
    let mut batch: Vec<RawRecord> = Vec::with_capacity(BATCH);
    let mut used = 0;
    let mut chunk: Vec<u8> = Vec::with_capacity(CHUNK_CAPACITY);
    let mut scratch = Scratch::default();
    let mut recheck = Recheck::new(allowed);
    let mut sent = true;
    let result = scan::run(&consumer, topic, spans, POLL, |seen| match seen {
        Seen::Tick if out.is_closed() || shared.stop.load(Ordering::Relaxed) => Flow::Stop,
        Seen::Tick => match recheck.refusal() {
            Some(reason) => {
                shared.fail(reason);
                Flow::Stop
            }
            None => Flow::Go,
        },
        Seen::Record(incoming) => {
            match batch.get_mut(used) {
                Some(kept) => incoming.copy_into(kept),
                None => batch.push(incoming.record()),
            }
            let record = &batch[used];
            if until_timestamp.is_some_and(|to| record.timestamp.is_some_and(|t| t > to)) {
                return Flow::Close;
            }
            if filter.is_none_or(|f| f.matches(record)) {
                used += 1;
            }
            if used >= BATCH {
                source.render(&batch[..used], &mut chunk, &mut scratch);
                used = 0;
                if chunk.len() >= CHUNK_BYTES {
                    let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK_CAPACITY));
                    if !send_patiently(out, full, STALLED_FOR) {
                        // The client left or stalled: no reader of the export goes on.
                        sent = false;
                        shared.stop.store(true, Ordering::Relaxed);
                        return Flow::Stop;
                    }
                }
            }
            Flow::Go
        }
    });
    if let Err(error) = result {
        shared.fail(error.to_string());
    }
    // The records read before a stop are sent too.
    if sent {
        source.render(&batch[..used], &mut chunk, &mut scratch);
        if !chunk.is_empty() {
            send_patiently(out, chunk, STALLED_FOR);
        }
    }
    close_later(consumer);
}

fn unevaluated_line(unevaluated: &Unevaluated) -> Vec<u8> {
    let mut line =
        serde_json::to_vec(&serde_json::json!({ "unevaluated": unevaluated })).unwrap_or_default();
    line.push(b'\n');
    line
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
    /// How many records the expression could not be evaluated on so far (and why the first
    /// failed), as JSON `{"unevaluated": …}`: sent each time the count grows, at most once a
    /// poll.
    Status(String),
    /// The stream ends, and why.
    End(String),
}

/// Follows the topic from `starts` (the ends of its partitions when the client connected),
/// sending each new record as it arrives. `allowed` is asked every second whether the caller
/// may still read (a session can end while the stream runs). Stops when the client leaves.
/// Blocks.
pub fn tail(
    source: &Source, starts: &[(i32, i64)], filter: Option<&Filter>,
    allowed: impl Fn() -> Result<(), String>, out: Sender<TailEvent>,
) {
    let topic = source.topic.as_str();
    let consumer = match reader::open(&source.config, topic, starts, Kind::Tail) {
        Ok(c) => c,
        Err(error) => {
            send_patiently(&out, TailEvent::End(error.to_string()), STALLED_FOR);
            return;
        }
    };
    // A tail has no end: each span runs to the last offset there could be.
    let spans: Vec<Span> =
        starts.iter().map(|&(partition, start)| Span { partition, start, end: i64::MAX }).collect();
    let mut recheck = Recheck::new(allowed);
    let mut told = 0;
    let result = scan::run(&consumer, topic, &spans, POLL, |seen| match seen {
        Seen::Tick if out.is_closed() => Flow::Stop,
        Seen::Tick => match recheck.refusal() {
            Some(reason) => {
                send_patiently(&out, TailEvent::End(reason), STALLED_FOR);
                Flow::Stop
            }
            None => match filter.and_then(Filter::unevaluated).filter(|u| u.records > told) {
                Some(unevaluated) => {
                    told = unevaluated.records;
                    let status = serde_json::json!({ "unevaluated": unevaluated });
                    let sent =
                        send_patiently(&out, TailEvent::Status(status.to_string()), STALLED_FOR);
                    if sent {
                        Flow::Go
                    } else {
                        Flow::Stop
                    }
                }
                None => Flow::Go,
            },
        },
        Seen::Record(incoming) => {
            let record = incoming.record();
            if !filter.is_none_or(|f| f.matches(&record)) {
                return Flow::Go;
            }
            let decoded = source.handle.block_on(decode_all(
                std::slice::from_ref(&record),
                topic,
                &source.schemas,
                source.mask.as_deref(),
            ));
            for record in decoded {
                let Ok(json) = serde_json::to_string(&record) else {
                    continue;
                };
                if !send_patiently(&out, TailEvent::Record(json), STALLED_FOR) {
                    return Flow::Stop;
                }
            }
            Flow::Go
        }
    });
    if let Err(error) = result {
        send_patiently(&out, TailEvent::End(error.to_string()), STALLED_FOR);
    }
    close_later(consumer);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(partition: i32, records: i64) -> Span {
        Span { partition, start: 10, end: 10 + records }
    }

    /// Each partition goes to exactly one reader, none is left out, empty spans are skipped,
    /// and the readers get about as many records each.
    #[test]
    fn the_readers_share_the_partitions_evenly() {
        let spans =
            [span(0, 100), span(1, 700), span(2, 0), span(3, 300), span(4, 250), span(5, 100)];
        let split = shares(&spans, 2);
        assert_eq!(split.len(), 2);
        let mut seen: Vec<i32> = split.iter().flatten().map(|s| s.partition).collect();
        seen.sort_unstable();
        assert_eq!(seen, [0, 1, 3, 4, 5], "every partition with records, once");
        let mut totals: Vec<i64> =
            split.iter().map(|share| share.iter().map(|s| s.end - s.start).sum()).collect();
        totals.sort_unstable();
        assert_eq!(totals, [700, 750]);

        assert_eq!(shares_of(&[span(7, 5)], 2), vec![vec![7]], "one partition, one reader");
        assert!(shares(&[span(0, 0)], 2).is_empty(), "nothing to read, no reader");
        assert_eq!(
            shares_of(&[span(0, 1), span(1, 1)], 0),
            vec![vec![0, 1]],
            "at least one reader"
        );
    }

    fn shares_of(spans: &[Span], readers: usize) -> Vec<Vec<i32>> {
        shares(spans, readers)
            .iter()
            .map(|share| share.iter().map(|s| s.partition).collect())
            .collect()
    }

    /// Regression (hardening issue): a client that stopped reading without leaving held the
    /// stream's thread and reader for ever in `blocking_send`.
    #[test]
    fn a_client_that_stops_reading_ends_the_stream() {
        let (out, mut rx) = tokio::sync::mpsc::channel::<u32>(1);
        assert!(send_patiently(&out, 1, Duration::from_millis(100)));
        let started = Instant::now();
        assert!(!send_patiently(&out, 2, Duration::from_millis(200)), "no room, ever");
        assert!(started.elapsed() >= Duration::from_millis(200));
        assert_eq!(rx.try_recv().ok(), Some(1));
        assert!(send_patiently(&out, 3, Duration::from_millis(100)), "room again");
        drop(rx);
        assert!(!send_patiently(&out, 4, Duration::from_secs(60)), "a client that left");
    }
}
