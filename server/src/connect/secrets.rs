//! Secrets in connector configs. Connect answers configs in clear; klens masks, in every answer
//! and door, each value whose plugin declares its key `PASSWORD` and each value whose key looks
//! secret. A `${provider:path:key}` reference is not the secret and shows as it is. An update
//! that sends a masked value back keeps the stored one.

use std::collections::{BTreeMap, BTreeSet};

/// What a masked value shows as, and what an edit sends back to keep the stored one.
pub const MASKED: &str = "********";

pub use crate::config::secret_values::{is_reference, looks_secret};

/// Whether the value of `key` is shown masked.
pub fn is_masked(key: &str, value: &str, password_keys: &BTreeSet<String>) -> bool {
    crate::config::secret_values::secret_in_clear(key, value)
        || (password_keys.contains(key) && !is_reference(value))
}

/// The config as every answer shows it: (key, value, masked).
pub fn masked(
    config: &BTreeMap<String, String>, password_keys: &BTreeSet<String>,
) -> Vec<(String, String, bool)> {
    config
        .iter()
        .map(|(k, v)| {
            let hide = is_masked(k, v, password_keys);
            (k.clone(), if hide { MASKED.to_string() } else { v.clone() }, hide)
        })
        .collect()
}

/// An edited config with each masked value sent back replaced by the stored one, so nobody
/// needs to know a secret to change the rest. A masked value for a key that holds no secret
/// now is refused with that key: it would store the mask itself.
pub fn restore(
    edited: BTreeMap<String, String>, stored: &BTreeMap<String, String>,
    password_keys: &BTreeSet<String>,
) -> Result<BTreeMap<String, String>, String> {
    edited
        .into_iter()
        .map(|(k, v)| {
            if v != MASKED {
                return Ok((k, v));
            }
            match stored.get(&k) {
                Some(old) if is_masked(&k, old, password_keys) => Ok((k, old.clone())),
                _ => Err(k),
            }
        })
        .collect()
}
