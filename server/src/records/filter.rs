//! The server-side filter of pages, exports and the tail: text in a record's key, value or a
//! header.

use app::ApiError;

use super::RawRecord;

/// The server-side filter: text in the key, the value, or a header (its key or value).
#[derive(Clone, Debug)]
pub struct Filter {
    /// Empty: no text to look for (a filter by key alone).
    needle: String,
    exact: bool,
    /// Only records with exactly this key.
    key: Option<Vec<u8>>,
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
        Some(Filter {
            needle,
            exact,
            key: None,
        })
    }

    /// Records whose key is exactly `key`, and that `text` (if any) keeps.
    pub fn for_key(key: Vec<u8>, text: Option<Filter>) -> Filter {
        let (needle, exact) = text.map_or((String::new(), false), |f| (f.needle, f.exact));
        Filter {
            needle,
            exact,
            key: Some(key),
        }
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
        r.key.as_deref().is_some_and(|k| self.hits(k))
            || r.value.as_deref().is_some_and(|v| self.hits(v))
            || r.headers
                .iter()
                .any(|(k, v)| self.hits(k.as_bytes()) || v.as_deref().is_some_and(|v| self.hits(v)))
    }
}
