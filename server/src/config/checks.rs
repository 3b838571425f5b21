//! Small pure parsers and checks, kept apart from the YAML walk so each is tested alone.
//! Nothing here resolves a name or opens a connection.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::time::Duration;

/// The candidate closest to `input`, when it is close enough to be a likely typo.
pub(super) fn nearest<'c>(
    input: &str, candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let input_lower = input.to_lowercase();
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(&input_lower, &candidate.to_lowercase()), candidate))
        .filter(|&(distance, candidate)| {
            let longest = candidate.chars().count().max(input.chars().count());
            distance < candidate.chars().count() && distance <= (longest / 3).max(1)
        })
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous.get(j).copied().unwrap_or(0) + usize::from(ca != *cb);
            let deletion = previous.get(j + 1).copied().unwrap_or(0) + 1;
            let insertion = current.last().copied().unwrap_or(0) + 1;
            current.push(substitution.min(deletion).min(insertion));
        }
        previous = current;
    }
    previous.last().copied().unwrap_or(0)
}

/// `[a-z0-9-_.]+`, and not only dots: `.` and `..` would change the meaning of a URL path.
pub(super) fn is_cluster_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_' || c == '.'
        })
        && !name.chars().all(|c| c == '.')
}

/// The parts of an `http://` or `https://` URL that the rules look at.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct HttpUrl {
    pub https: bool,
    /// Without brackets for IPv6.
    pub host: String,
}

impl HttpUrl {
    /// 127.0.0.0/8, ::1 or localhost.
    pub fn is_loopback(&self) -> bool {
        self.host.eq_ignore_ascii_case("localhost")
            || self.host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
            || self.host.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback())
    }
}

/// Checks an absolute `http://` or `https://` URL. The error says what is wrong and never
/// repeats the URL, which may hold credentials.
pub(super) fn parse_http_url(url: &str) -> Result<HttpUrl, &'static str> {
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("a URL cannot contain spaces");
    }
    let (scheme, rest) =
        url.split_once("://").ok_or("expected a URL starting with http:// or https://")?;
    let https = if scheme.eq_ignore_ascii_case("https") {
        true
    } else if scheme.eq_ignore_ascii_case("http") {
        false
    } else {
        return Err("expected a URL starting with http:// or https://");
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Err("the URL must not carry credentials; use username and password instead");
    }
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        let (ip, after) =
            bracketed.split_once(']').ok_or("the IPv6 address in the URL has no closing \"]\"")?;
        if ip.parse::<Ipv6Addr>().is_err() {
            return Err("the URL's host is not a valid IPv6 address");
        }
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':').ok_or("expected \":port\" after the IPv6 address")?),
        };
        (ip, port)
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err("the URL has no host");
    }
    let host_chars_ok = host.contains(':')
        || host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_');
    if !host_chars_ok {
        return Err("the URL's host may hold only letters, digits, \"-\", \".\" and \"_\"");
    }
    if let Some(port) = port {
        if !port.chars().all(|c| c.is_ascii_digit()) || !matches!(port.parse::<u16>(), Ok(1..)) {
            return Err("the URL's port must be a number from 1 to 65535");
        }
    }
    Ok(HttpUrl { https, host: host.to_string() })
}

/// A duration such as `30s`, `15m`, `8h`, `1d` or `1h30m`: units from largest to smallest,
/// each at most once, and more than zero in total.
pub(super) fn parse_duration(text: &str) -> Option<Duration> {
    const UNITS: [(char, u64); 4] = [('d', 86_400), ('h', 3_600), ('m', 60), ('s', 1)];
    let mut total: u64 = 0;
    let mut next_unit = 0;
    let mut digits = String::new();
    let mut parts = 0;
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let offset = UNITS.iter().skip(next_unit).position(|&(unit, _)| unit == c)?;
        let index = next_unit + offset;
        let (_, seconds) = UNITS.get(index)?;
        if digits.is_empty() {
            return None;
        }
        let count: u64 = digits.parse().ok()?;
        total = total.checked_add(count.checked_mul(*seconds)?)?;
        digits.clear();
        next_unit = index + 1;
        parts += 1;
    }
    if !digits.is_empty() || parts == 0 || total == 0 {
        return None;
    }
    Some(Duration::from_secs(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let cases: &[(&str, Option<u64>)] = &[
            ("30s", Some(30)),
            ("15m", Some(900)),
            ("8h", Some(28_800)),
            ("1d", Some(86_400)),
            ("1h30m", Some(5_400)),
            ("1d2h3m4s", Some(93_784)),
            ("90m", Some(5_400)),
            ("0h30m", Some(1_800)),
            ("", None),
            ("8", None),
            ("h", None),
            ("0s", None),
            ("8H", None),
            ("30m1h", None),
            ("1h1h", None),
            ("1h 30m", None),
            ("-1h", None),
            ("1.5h", None),
            ("1w", None),
            ("99999999999999999999s", None),
            ("999999999999999999d", None),
        ];
        for &(text, seconds) in cases {
            assert_eq!(parse_duration(text), seconds.map(Duration::from_secs), "{text:?}");
        }
    }

    #[test]
    fn urls() {
        let ok = |url: &str, https: bool, host: &str, loopback: bool| {
            let parsed = parse_http_url(url);
            assert_eq!(parsed, Ok(HttpUrl { https, host: host.to_string() }), "{url}");
            assert_eq!(parsed.is_ok_and(|u| u.is_loopback()), loopback, "{url}");
        };
        ok("https://registry.prod:8081", true, "registry.prod", false);
        ok("http://localhost:8081/path?q#f", false, "localhost", true);
        ok("HTTP://LOCALHOST", false, "LOCALHOST", true);
        ok("http://127.10.0.1", false, "127.10.0.1", true);
        ok("http://[::1]:8081", false, "::1", true);
        ok("http://[2001:db8::1]", false, "2001:db8::1", false);
        ok("http://128.0.0.1", false, "128.0.0.1", false);
        ok("http://localhost.example.com", false, "localhost.example.com", false);

        let bad = |url: &str, reason: &str| assert_eq!(parse_http_url(url), Err(reason), "{url}");
        bad("ftp://x", "expected a URL starting with http:// or https://");
        bad("registry:8081", "expected a URL starting with http:// or https://");
        bad("https://", "the URL has no host");
        bad("https://:80", "the URL has no host");
        bad(
            "https://u:p@host",
            "the URL must not carry credentials; use username and password instead",
        );
        bad("https://host:0", "the URL's port must be a number from 1 to 65535");
        bad("https://host:99999", "the URL's port must be a number from 1 to 65535");
        bad("https://host:+80", "the URL's port must be a number from 1 to 65535");
        bad("https://host:", "the URL's port must be a number from 1 to 65535");
        bad("https://ho st", "a URL cannot contain spaces");
        bad("https://[::1", "the IPv6 address in the URL has no closing \"]\"");
        bad("https://[nope]", "the URL's host is not a valid IPv6 address");
        bad("https://a:b:c", "the URL's port must be a number from 1 to 65535");
        bad(
            "https://h%ost",
            "the URL's host may hold only letters, digits, \"-\", \".\" and \"_\"",
        );
    }

    #[test]
    fn cluster_names() {
        for good in ["prod", "a", "eu-west.1_b", "0", "a..b"] {
            assert!(is_cluster_name(good), "{good}");
        }
        for bad in ["", "Prod", "a b", "a/b", ".", "..", "é", "a:b"] {
            assert!(!is_cluster_name(bad), "{bad}");
        }
    }

    #[test]
    fn suggestions() {
        let keys = ["name", "bootstrap_servers", "writable", "sasl", "tls"];
        assert_eq!(nearest("bootstrap_server", keys), Some("bootstrap_servers"));
        assert_eq!(nearest("writeable", keys), Some("writable"));
        assert_eq!(nearest("SASL", keys), Some("sasl"));
        assert_eq!(nearest("ssl", keys), Some("sasl"));
        assert_eq!(nearest("colour", keys), None);
        assert_eq!(nearest("x", ["y"]), None);
        assert_eq!(nearest("record", ["records", "acls"]), Some("records"));
    }
}
