//! Cursors: where the next or previous page of records starts, opaque to the client.

use std::collections::BTreeMap;

use app::ApiError;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

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
    pub(super) fn unless_done(
        backward: bool, positions: BTreeMap<i32, i64>, bounds: &Bounds,
    ) -> Option<Cursor> {
        let more = positions.iter().any(|(p, at)| {
            let (low, high) = bounds.get(p).copied().unwrap_or((0, 0));
            if backward {
                *at > low
            } else {
                *at < high
            }
        });
        more.then_some(Cursor { backward, positions })
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
