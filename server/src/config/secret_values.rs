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

/// The names of URL and connection-string parameters that carry a secret, as JDBC drivers
/// (`?password=`, `;password=`) and HTTP APIs (`?token=`, `&api_key=`) take them.
const SECRET_PARAMETERS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "access_token",
    "apikey",
    "api_key",
    "api-key",
    "key",
    "sig",
    "signature",
    "client_secret",
    "credential",
    "credentials",
    "sessiontoken",
];

/// A connection string with a secret among its parameters (`jdbc:mysql://h/db?user=u&password=p`,
/// `jdbc:sqlserver://h;user=u;password=p`, `https://api/x?token=t`), or an Oracle
/// `user/password@` before its host.
pub fn has_secret_parameter(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    // The first piece is the address itself; parameters follow a '?', '&' or ';'.
    for parameter in lower.split(['?', '&', ';']).skip(1) {
        let Some((name, value)) = parameter.split_once('=') else {
            continue;
        };
        let name = name.trim();
        let named = SECRET_PARAMETERS.contains(&name)
            || name.ends_with("password")
            || name.ends_with("secret")
            || name.ends_with("token");
        if named && !value.trim().is_empty() {
            return true;
        }
    }
    // jdbc:oracle:thin:user/password@host..., jdbc:oracle:oci:user/password@tns
    for driver in ["jdbc:oracle:thin:", "jdbc:oracle:oci:", "jdbc:oracle:oci8:"] {
        if let Some(rest) = lower.strip_prefix(driver) {
            if let Some((login, _)) = rest.split_once('@') {
                return login.contains('/');
            }
        }
    }
    false
}

/// Whether the value of `key` holds a secret in clear: not a reference, and secret by its
/// key's name, by a password in a URI, or by a secret among a connection string's parameters.
pub fn secret_in_clear(key: &str, value: &str) -> bool {
    !is_reference(value)
        && (looks_secret(key) || has_user_info(value) || has_secret_parameter(value))
}
