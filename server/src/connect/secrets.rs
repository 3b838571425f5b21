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

/// Words in a key's name that say it names where a connector connects, reads or writes: a
/// URL, a host, a server, a database, a bucket. A stored secret follows none of them to a new
/// value.
const DESTINATION_WORDS: &[&str] = &[
    "url",
    "urls",
    "uri",
    "uris",
    "host",
    "hosts",
    "hostname",
    "server",
    "servers",
    "endpoint",
    "endpoints",
    "address",
    "addresses",
    "port",
    "database",
    "db",
    "dsn",
    "bucket",
    "region",
    "domain",
    "account",
    "tenant",
    "instance",
    "cluster",
    "user",
    "username",
    "path",
    "file",
    "location",
    "proxy",
    "jdbc",
];

/// Whether `key` names a destination: any of its dot- or dash-separated words is one of
/// [`DESTINATION_WORDS`] or contains `url`/`host` (`connection.url`, `schema.registry.url`,
/// `mongodb.hosts`, `http.api.url`, `connection.user`).
pub fn names_destination(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.split(['.', '-', '_']).any(|word| {
        DESTINATION_WORDS.contains(&word)
            || word.ends_with("url")
            || word.ends_with("urls")
            || word.ends_with("uri")
            || word.ends_with("host")
            || word.ends_with("hosts")
    })
}

/// Why a masked value sent back cannot be kept, with the key at fault.
#[derive(Debug, PartialEq, Eq)]
pub struct NotKept {
    pub key: String,
    pub reason: String,
}

/// An edited config with each masked value sent back replaced by the stored one, so nobody
/// needs to know a secret to change the rest. Refused, with the key: a masked value for a key
/// that holds no secret now (it would store the mask itself), and any masked value at all when
/// the same edit changes the class or where the connector connects (a key that
/// [`names_destination`] added, removed or changed), since the stored secret would then go
/// somewhere its owner never sent it.
pub fn restore(
    edited: BTreeMap<String, String>, stored: &BTreeMap<String, String>,
    password_keys: &BTreeSet<String>,
) -> Result<BTreeMap<String, String>, NotKept> {
    let Some(first) = edited.iter().find(|(_, v)| *v == MASKED).map(|(k, _)| k.clone()) else {
        return Ok(edited);
    };
    let class = super::CONNECTOR_CLASS;
    let moved = if edited.get(class) != stored.get(class) {
        Some(class.to_string())
    } else {
        edited
            .keys()
            .chain(stored.keys())
            .filter(|k| names_destination(k))
            .find(|k| edited.get(*k) != stored.get(*k))
            .cloned()
    };
    if let Some(moved) = moved {
        return Err(NotKept {
            reason: format!(
                "{first} is sent as {MASKED}, but this edit also changes {moved}: a stored secret \
                 never follows a connector to a new class or destination, so give its value \
                 again."
            ),
            key: first,
        });
    }
    edited
        .into_iter()
        .map(|(k, v)| {
            if v != MASKED {
                return Ok((k, v));
            }
            match stored.get(&k) {
                Some(old) if is_masked(&k, old, password_keys) => Ok((k, old.clone())),
                _ => Err(NotKept {
                    reason: format!(
                        "{k} is sent as {MASKED} but holds no secret now: give its value."
                    ),
                    key: k,
                }),
            }
        })
        .collect()
}
