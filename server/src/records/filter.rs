//! The server-side filter of pages, exports and the tail: text in a record's key, value or a
//! header, and a CEL expression over the record (`expr.rs`). On a topic the caller sees
//! masked, both look at the record as it is shown, masked, never at its bytes: a filter must
//! not tell what the caller may not see.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use app::api::{Encoded, Encoding, Record, Unevaluated};
use app::ApiError;
use tokio::runtime::Handle;

use super::decode::looks_structured;
use super::decode::{Loaded, Schemas};
use super::expr::{reached_json, Expression, Reach};
use super::RawRecord;
use crate::masking::TopicMask;

/// The server-side filter: text in the key, the value, or a header (its key or value), and
/// an expression; a record passes when it passes all that is set.
#[derive(Clone, Debug)]
pub struct Filter {
    /// Empty: no text to look for (a filter by key or expression alone).
    needle: String,
    exact: bool,
    /// Only records with exactly this key.
    key: Option<Vec<u8>>,
    expression: Option<Arc<Expression>>,
    /// How the record is decoded (and masked) for the caller, when the text is looked for in
    /// what they see or the expression reads decoded parts.
    view: Option<View>,
    /// Records the expression could not be evaluated on (shared by the filter's clones).
    misses: Arc<Misses>,
}

/// Records an expression failed on: how many, and the first reason.
#[derive(Debug, Default)]
struct Misses {
    count: AtomicU64,
    first: Mutex<Option<String>>,
}

/// How a filter sees a record: decoded with the schemas it needs (fetched on the runtime the
/// first time one is met), and masked when the caller sees the topic masked.
#[derive(Clone)]
pub struct View {
    topic: String,
    schemas: Arc<Schemas>,
    mask: Option<Arc<TopicMask>>,
    handle: Handle,
    /// The decoders met so far, so that a scan asks the runtime only for new schema ids.
    loaded: Arc<Mutex<Loaded>>,
}

/// The parts of a record a filter reads decoded.
#[derive(Clone, Copy, Debug)]
struct Parts {
    key: bool,
    value: bool,
}

/// The most decoders one filter keeps; past it, it starts again from none.
const VIEW_SCHEMAS: usize = 256;

impl std::fmt::Debug for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View").field("topic", &self.topic).finish_non_exhaustive()
    }
}

impl View {
    /// `filter`, seeing records through `mask` when there is one. Called on the runtime,
    /// whose handle the blocking scan uses to fetch schemas.
    pub fn over(
        filter: Filter, topic: &str, schemas: &Arc<Schemas>, mask: Option<&Arc<TopicMask>>,
    ) -> Filter {
        Self::with_handle(filter, topic, schemas, mask, Handle::current())
    }

    pub fn with_handle(
        filter: Filter, topic: &str, schemas: &Arc<Schemas>, mask: Option<&Arc<TopicMask>>,
        handle: Handle,
    ) -> Filter {
        let decodes = filter.expression.as_ref().is_some_and(|e| e.uses().decoded());
        let view = (mask.is_some() || decodes).then(|| View {
            topic: topic.to_string(),
            schemas: Arc::clone(schemas),
            mask: mask.map(Arc::clone),
            handle,
            loaded: Arc::default(),
        });
        Filter { view, ..filter }
    }

    /// The parts `parts` names of `r`, decoded (data only) and masked as the caller sees them;
    /// the others empty. Blocks when a schema must be fetched: call it from a blocking thread,
    /// never from a task.
    fn decoded(&self, r: &RawRecord, parts: Parts, reach: Option<&Reach>) -> Record {
        let key = r.key.as_deref().filter(|_| parts.key);
        let value = r.value.as_deref().filter(|_| parts.value);
        let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        let missing: Vec<u32> = [self.schemas.wanted(key), self.schemas.wanted(value)]
            .into_iter()
            .flatten()
            .filter(|id| !loaded.0.contains_key(id))
            .collect();
        if !missing.is_empty() {
            let more = self.handle.block_on(self.schemas.load(missing));
            if loaded.0.len() + more.0.len() > VIEW_SCHEMAS {
                loaded.0.clear();
            }
            loaded.0.extend(more.0);
        }
        let mut record = Record {
            topic: String::new(),
            partition: r.partition,
            offset: r.offset,
            timestamp: r.timestamp,
            timestamp_type: r.timestamp_type,
            key: self.schemas.decode_data(&loaded, key),
            // Plain JSON is read only as far as the expression reaches; anything else whole.
            value: reach
                .filter(|_| self.schemas.wanted(value).is_none())
                .and_then(|reach| {
                    let text = std::str::from_utf8(value?).ok().filter(|t| looks_structured(t))?;
                    reached_json(text, reach)
                })
                .map(|data| Encoded {
                    encoding: Encoding::Json,
                    data,
                    schema_id: None,
                    raw: None,
                    error: None,
                    masked: false,
                })
                .unwrap_or_else(|| self.schemas.decode_data(&loaded, value)),
            headers: Vec::new(),
            size: r.size(),
        };
        drop(loaded);
        if let Some(mask) = &self.mask {
            mask.apply(&mut record);
        }
        record
    }
}

/// The longest filter text, in characters.
const MAX_FILTER: usize = 500;

impl Filter {
    /// The filter of a request's `q`, `exact` and `expr`, if any; BAD_REQUEST for an
    /// overlong text or an expression that does not compile (saying where).
    pub fn parse(
        q: Option<&str>, exact: bool, expr: Option<&str>,
    ) -> Result<Option<Filter>, ApiError> {
        if q.is_some_and(|q| q.chars().count() > MAX_FILTER) {
            return Err(ApiError::bad_request(
                "q",
                format!("A filter is at most {MAX_FILTER} characters."),
            ));
        }
        let expression = match expr {
            Some(e) => Some(Arc::new(
                Expression::compile(e).map_err(|f| ApiError::bad_request("expr", f.sentence()))?,
            )),
            None => None,
        };
        let text = q.and_then(|q| Filter::new(q, exact));
        Ok(match (text, expression) {
            (text, None) => text,
            (Some(text), Some(expression)) => Some(Filter { expression: Some(expression), ..text }),
            (None, Some(expression)) => {
                Some(Filter { expression: Some(expression), ..Filter::blank() })
            }
        })
    }

    fn blank() -> Filter {
        Filter {
            needle: String::new(),
            exact: false,
            key: None,
            expression: None,
            view: None,
            misses: Arc::default(),
        }
    }

    pub fn new(text: &str, exact: bool) -> Option<Filter> {
        if text.is_empty() {
            return None;
        }
        let needle = if exact { text.to_string() } else { text.to_lowercase() };
        Some(Filter { needle, exact, ..Filter::blank() })
    }

    /// Records whose key is exactly `key`, and that `rest` (if any) keeps.
    pub fn for_key(key: Vec<u8>, rest: Option<Filter>) -> Filter {
        Filter { key: Some(key), ..rest.unwrap_or_else(Filter::blank) }
    }

    fn hits(&self, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        if self.exact {
            text == self.needle
        } else {
            text.to_lowercase().contains(&self.needle)
        }
    }

    /// Whether `r` passes. Blocks when a schema must be fetched (see [`View`]).
    pub fn matches(&self, r: &RawRecord) -> bool {
        if let Some(key) = &self.key {
            if r.key.as_deref() != Some(key.as_slice()) {
                return false;
            }
        }
        // Decoded at most once, and only when the text or the expression needs it.
        let mut shown: Option<Record> = None;
        if !self.needle.is_empty() {
            let headers = || {
                r.headers.iter().any(|(k, v)| {
                    self.hits(k.as_bytes()) || v.as_deref().is_some_and(|v| self.hits(v))
                })
            };
            let found = match self.view.as_ref().filter(|v| v.mask.is_some()) {
                Some(view) => {
                    let record =
                        shown.insert(view.decoded(r, Parts { key: true, value: true }, None));
                    let text = |e: &Encoded| match &e.data {
                        serde_json::Value::Null => None,
                        serde_json::Value::String(s) => Some(s.clone()),
                        other => Some(other.to_string()),
                    };
                    text(&record.key).is_some_and(|k| self.hits(k.as_bytes()))
                        || text(&record.value).is_some_and(|v| self.hits(v.as_bytes()))
                        || headers()
                }
                None => {
                    r.key.as_deref().is_some_and(|k| self.hits(k))
                        || r.value.as_deref().is_some_and(|v| self.hits(v))
                        || headers()
                }
            };
            if !found {
                return false;
            }
        }
        let Some(expression) = &self.expression else {
            return true;
        };
        let uses = expression.uses();
        if uses.decoded() && shown.is_none() {
            let parts = Parts {
                key: uses.key || uses.key_text,
                value: uses.value || uses.value_text || uses.schema_id,
            };
            // valueText of a masked value is written from its data: it needs all of it.
            let reach = Some(expression.value_reach())
                .filter(|reach| !reach.is_whole() && !uses.value_text);
            shown = self.view.as_ref().map(|view| view.decoded(r, parts, reach));
        }
        match expression.test(r, shown.as_ref()) {
            Ok(pass) => pass,
            Err(reason) => {
                if self.misses.count.fetch_add(1, Ordering::Relaxed) == 0 {
                    *self.misses.first.lock().unwrap_or_else(PoisonError::into_inner) =
                        Some(reason);
                }
                false
            }
        }
    }

    /// The records the expression could not be evaluated on so far, if any.
    pub fn unevaluated(&self) -> Option<Unevaluated> {
        let records = self.misses.count.load(Ordering::Relaxed);
        let first = self.misses.first.lock().unwrap_or_else(PoisonError::into_inner).clone();
        (records > 0).then(|| Unevaluated { records, first: first.unwrap_or_default() })
    }
}
