//! Which configuration values are secrets, judged by key and value alone: for connector configs
//! (masked in every answer) and for the client properties MirrorMaker is given (refused in clear,
//! since they would be stored in Connect's config topic).

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
pub fn has_user_info(value: &str) -> bool {
    let Some((_, rest)) = value.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    authority.rsplit_once('@').is_some_and(|(info, _)| info.contains(':'))
}

/// Whether the value of `key` holds a secret in clear: not a reference, and secret by its
/// key's name or by a password in a URI.
pub fn secret_in_clear(key: &str, value: &str) -> bool {
    !is_reference(value) && (looks_secret(key) || has_user_info(value))
}
