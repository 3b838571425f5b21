//! Where a page of records starts: from either end, an offset, a timestamp or a cursor, checked
//! against the partitions' bounds.

use std::collections::BTreeMap;

use app::api::{RecordQuery, DEFAULT_LIMIT, MAX_LIMIT};
use app::ApiError;

use super::cursor::{Bounds, Cursor};

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
    query: &RecordQuery, bounds: &Bounds, at_time: Option<&BTreeMap<i32, i64>>,
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
            return Err(ApiError::not_found(format!(
                "Topic \"{}\" has no partition {p}.",
                query.topic
            )))
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
            return Err(ApiError::bad_request("offset", "An offset needs a partition."));
        }
        if offset < 0 {
            return Err(ApiError::bad_request("offset", "An offset is 0 or more."));
        }
        // Not `clamp`: it panics when a topic recreated between the two watermark reads left
        // low above high.
        Start::Forward(all(&|low, high| offset.max(low).min(high)))
    } else if query.timestamp.is_some() {
        let found = at_time.cloned().unwrap_or_default();
        Start::Forward(
            partitions.iter().map(|p| (*p, found.get(p).copied().unwrap_or(bounds[p].1))).collect(),
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
