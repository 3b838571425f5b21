//! Secrets in connector configs. Connect answers configs in clear; klens masks, in every answer
//! and door, each value whose plugin declares its key `PASSWORD` and each value whose key looks
//! secret. A `${provider:path:key}` reference is not the secret and shows as it is. An update
//! that sends a masked value back keeps the stored one.

use std::collections::{BTreeMap, BTreeSet};

/// What a masked value shows as, and what an edit sends back to keep the stored one.
pub const MASKED: &str = "********";

/// Whether a key's name says its value is a secret.
pub fn looks_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let words = ["password", "secret", "token", "credentials", "passphrase", "apikey", "api.key"];
    words.iter().any(|w| key.contains(w))
        || key == "basic.auth.user.info"
        || key.ends_with(".basic.auth.user.info")
        || ((key.starts_with("ssl.") || key.contains(".ssl.")) && key.ends_with(".key"))
        || key.contains("sasl.jaas.config")
}

/// Whether `value` is a config provider reference (`${file:/path:key}`), which names where
/// the secret is and is not itself one.
pub fn is_reference(value: &str) -> bool {
    let v = value.trim();
    v.starts_with("${") && v.ends_with('}') && v[2..].contains(':')
}

/// A URI with a password in it (`scheme://user:pass@host`).
fn has_user_info(value: &str) -> bool {
    let Some((_, rest)) = value.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    authority.rsplit_once('@').is_some_and(|(info, _)| info.contains(':'))
}

/// Whether the value of `key` is shown masked.
pub fn is_masked(key: &str, value: &str, password_keys: &BTreeSet<String>) -> bool {
    !is_reference(value)
        && (password_keys.contains(key) || looks_secret(key) || has_user_info(value))
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
