//! One page of records: the scan that fills it (forward, or backward in steps), then the
//! records in time order with the cursors around them.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use app::api::RecordPage;
use rdkafka::config::ClientConfig;

use super::cursor::{Bounds, Cursor};
use super::decode::Schemas;
use super::filter::Filter;
use super::plan::Start;
use super::scan::{scan_page, Scan, Span};
use super::{decode_all, RawRecord};
use crate::kafka::ClientError;
use crate::masking::TopicMask;

/// How long one page (its offset lookups and its scan) may take before it answers with what it
/// has; the same bound holds for one record and for a stream's preparation.
pub const PAGE_DEADLINE: Duration = Duration::from_secs(5);
/// The most records one page may read to fill itself (a filter may skip most of them).
const SCAN_BUDGET: u64 = 200_000;
/// How far back the first step of a backward scan reaches per partition when a filter is set;
/// each step that leaves the page short reaches twice as far as the one before, up to
/// [`BACKWARD_STEP_MOST`]. Every step opens a reader whose fetches run ahead of its span (on a
/// compressed topic a fetch is decompressed whole), so a search deep into a partition pays that
/// once per doubling rather than once per thousand records.
const BACKWARD_STEP: i64 = 1_000;
const BACKWARD_STEP_MOST: i64 = 64 * BACKWARD_STEP;

/// A page's records (oldest first) and the cursors around it, from a forward scan.
pub fn forward_page(
    starts: &BTreeMap<i32, i64>, bounds: &Bounds, scan: Scan, limit: usize,
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
    ends: &BTreeMap<i32, i64>, bounds: &Bounds, mut matched: Vec<RawRecord>,
    reached: &BTreeMap<i32, i64>, limit: usize,
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

/// One page to read: of which topic, where it starts, the partitions' bounds, how many
/// records, which ones, and until when the scan may run.
pub struct PageRequest {
    pub topic: String,
    pub start: Start,
    pub bounds: Bounds,
    pub limit: usize,
    pub filter: Option<Filter>,
    pub deadline: Instant,
    /// Records larger than this (key, value and headers) are passed over, not kept: a read of
    /// many small records stays small whatever a topic's writers put there.
    pub max_bytes: Option<u64>,
}

/// A page as read.
pub struct PageRead {
    /// Oldest first.
    pub records: Vec<RawRecord>,
    /// The cursor after the page, and the one before it.
    pub next: Option<Cursor>,
    pub prev: Option<Cursor>,
    /// Records read to fill it.
    pub scanned: u64,
    /// The deadline or the scan's budget ended it early.
    pub partial: bool,
}

/// Reads one page, scanning until the request's deadline at most. Blocks; call from a blocking
/// task.
pub fn read_page(config: &ClientConfig, request: &PageRequest) -> Result<PageRead, ClientError> {
    let PageRequest { start, bounds, limit, filter, .. } = request;
    let limit = *limit;
    let ((records, next, prev), scanned, partial) = match start {
        Start::Forward(starts) => {
            let spans: Vec<Span> = starts
                .iter()
                .map(|(p, at)| Span {
                    partition: *p,
                    start: (*at).max(bounds[p].0),
                    end: bounds[p].1,
                })
                .collect();
            let found = scan_page(config, request, &spans, limit, SCAN_BUDGET)?;
            let (scanned, partial) = (found.scanned, found.stopped);
            (forward_page(starts, bounds, found, limit), scanned, partial)
        }
        Start::Backward(ends) => {
            let mut step =
                if filter.is_some() { BACKWARD_STEP.max(limit as i64) } else { limit as i64 };
            let mut down: BTreeMap<i32, i64> =
                ends.iter().map(|(p, at)| (*p, (*at).min(bounds[p].1))).collect();
            let mut matched: Vec<RawRecord> = Vec::new();
            let (mut scanned, mut partial) = (0u64, false);
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
                let found = scan_page(config, request, &spans, usize::MAX, SCAN_BUDGET - scanned)?;
                scanned += found.scanned;
                matched.extend(found.records);
                if found.stopped {
                    partial = true;
                    break;
                }
                for s in &spans {
                    down.insert(s.partition, s.start);
                }
                if filter.is_some() {
                    step = (step * 2).min(BACKWARD_STEP_MOST);
                }
            }
            let page = backward_page(ends, bounds, matched, &down, limit);
            (page, scanned, partial)
        }
    };
    Ok(PageRead { records, next, prev, scanned, partial })
}

/// Builds the answer of a page from its raw records.
pub async fn page_answer(
    topic: &str, schemas: &Schemas, read: PageRead, mask: Option<&TopicMask>,
) -> RecordPage {
    RecordPage {
        records: decode_all(&read.records, topic, schemas, mask).await,
        next: read.next.map(|c| c.encode()),
        prev: read.prev.map(|c| c.encode()),
        scanned: read.scanned,
        partial: read.partial,
        key_partitions: None,
        unevaluated: None,
    }
}
