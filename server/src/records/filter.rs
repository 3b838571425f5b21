//! The server-side filter of pages, exports and the tail: text in a record's key, value or a
//! header. On a topic the caller sees masked, the filter looks at the record as it is shown,
//! masked, never at its bytes: a filter must not tell what the caller may not see.

use std::sync::Arc;

use app::api::Encoded;
use app::ApiError;
use tokio::runtime::Handle;

use super::decode::Schemas;
use super::{decode_all, RawRecord};
use crate::masking::TopicMask;

/// The server-side filter: text in the key, the value, or a header (its key or value).
#[derive(Clone, Debug)]
pub struct Filter {
    /// Empty: no text to look for (a filter by key alone).
    needle: String,
    exact: bool,
    /// Only records with exactly this key.
    key: Option<Vec<u8>>,
    /// The topic is masked for the caller: the text is looked for in what they see.
    masked: Option<MaskedView>,
}

/// What a filter reads of a record on a topic masked for the caller: the record decoded (with
/// the schemas it needs, fetched on the runtime) and masked.
#[derive(Clone)]
pub struct MaskedView {
    topic: String,
    schemas: Arc<Schemas>,
    mask: Arc<TopicMask>,
    handle: Handle,
}

impl std::fmt::Debug for MaskedView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MaskedView").field("topic", &self.topic).finish_non_exhaustive()
    }
}

impl MaskedView {
    /// `filter`, reading records through `mask` when there is one. Called on the runtime,
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
        let masked = mask.map(|mask| MaskedView {
            topic: topic.to_string(),
            schemas: Arc::clone(schemas),
            mask: Arc::clone(mask),
            handle,
        });
        Filter { masked, ..filter }
    }

    /// The key and value of `r` as the caller sees them, as text. Blocks: call it from a
    /// blocking thread, never from a task.
    fn shown(&self, r: &RawRecord) -> (Option<String>, Option<String>) {
        let decoded = self.handle.block_on(decode_all(
            std::slice::from_ref(r),
            &self.topic,
            &self.schemas,
            Some(self.mask.as_ref()),
        ));
        let text = |e: &Encoded| match &e.data {
            serde_json::Value::Null => None,
            serde_json::Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        };
        match decoded.first() {
            Some(record) => (text(&record.key), text(&record.value)),
            None => (None, None),
        }
    }
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
        let needle = if exact { text.to_string() } else { text.to_lowercase() };
        Some(Filter { needle, exact, key: None, masked: None })
    }

    /// Records whose key is exactly `key`, and that `text` (if any) keeps.
    pub fn for_key(key: Vec<u8>, text: Option<Filter>) -> Filter {
        let (needle, exact, masked) =
            text.map_or((String::new(), false, None), |f| (f.needle, f.exact, f.masked));
        Filter { needle, exact, key: Some(key), masked }
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
        if let Some(key) = &self.key {
            if r.key.as_deref() != Some(key.as_slice()) {
                return false;
            }
            if self.needle.is_empty() {
                return true;
            }
        }
        let headers = || {
            r.headers
                .iter()
                .any(|(k, v)| self.hits(k.as_bytes()) || v.as_deref().is_some_and(|v| self.hits(v)))
        };
        if let Some(view) = &self.masked {
            let (key, value) = view.shown(r);
            return key.is_some_and(|k| self.hits(k.as_bytes()))
                || value.is_some_and(|v| self.hits(v.as_bytes()))
                || headers();
        }
        r.key.as_deref().is_some_and(|k| self.hits(k))
            || r.value.as_deref().is_some_and(|v| self.hits(v))
            || headers()
    }
}
