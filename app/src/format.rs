//! Numbers for people: thousands separators and human units, the same on server and browser.

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes in binary units, as Kafka people read sizes: `1048576` → `1.0 MiB`, `1536` →
/// `1.5 KiB`, `999` → `999 B`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1023.95 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Records per second: `0.25` → `0.2 rec/s`, `3400.0` → `3.4k rec/s`.
pub fn rate(per_second: f64) -> String {
    if per_second >= 999_950.0 {
        format!("{:.1}M rec/s", per_second / 1_000_000.0)
    } else if per_second >= 999.95 {
        format!("{:.1}k rec/s", per_second / 1000.0)
    } else if per_second == 0.0 {
        "0 rec/s".to_string()
    } else {
        format!("{per_second:.1} rec/s")
    }
}

/// An optional figure, with an em dash where klens could not read it.
pub fn or_dash<T>(value: Option<T>, format: impl FnOnce(T) -> String) -> String {
    value.map(format).unwrap_or_else(|| "—".to_string())
}

/// `text` as HTML text or a quoted attribute value holds it.
#[cfg(feature = "ssr")]
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Percent-encodes a value for a URL path segment or query value: names of groups and subjects
/// may hold `/`, `?`, `#`, `&` or spaces.
pub fn query_value(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, UNRESERVED_ONLY).to_string()
}

/// Everything but RFC 3986's unreserved characters is encoded.
const UNRESERVED_ONLY: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

/// The page of a thing in a cluster: `/c/{cluster}/{section}/{name}`, with the name encoded.
pub fn page_url(cluster: &str, section: &str, name: &str) -> String {
    format!("/c/{}/{section}/{}", query_value(cluster), query_value(name))
}

/// A time in ms since the epoch as `2026-11-30 08:57:00.123 UTC`: the same on the server and
/// in the browser (the record page offers the browser's own zone besides).
pub fn utc_timestamp(ms: i64) -> String {
    let (days, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:03} UTC",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000
    )
}

/// Days since 1970-01-01 of a civil date (the inverse of the algorithm in [`utc_timestamp`]).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A point in time typed by a person, as ms since the epoch: either those ms themselves, or a
/// date and time `2026-11-30 08:57[:00[.123]]` (`T` or a space between) with an optional zone
/// `Z`, `UTC` or `+01:00`; without a zone, UTC. What [`utc_timestamp`] prints reads back.
pub fn parse_instant(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let refuse = || {
        format!("{text:?} is not a time: give ms since 1970 or a date and time like 2026-11-30 08:57:00 (UTC unless a zone such as +01:00 follows)")
    };
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().map_err(|_| refuse());
    }
    let number = |s: &str| -> Option<i64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
    };
    // The zone, from the end.
    let (rest, offset_minutes) = if let Some(rest) = text
        .strip_suffix("UTC")
        .or_else(|| text.strip_suffix('Z'))
        .or_else(|| text.strip_suffix('z'))
    {
        (rest.trim_end(), 0)
    } else {
        match text.rfind(['+', '-']).filter(|at| *at > 10) {
            Some(at) => {
                let zone = text[at + 1..].replace(':', "");
                let (h, m) = (zone.get(..2).and_then(number), zone.get(2..).and_then(number));
                match (h, m, zone.len()) {
                    (Some(h), Some(m), 4) if h <= 23 && m <= 59 => {
                        let sign = if text.as_bytes()[at] == b'-' { -1 } else { 1 };
                        (text[..at].trim_end(), sign * (h * 60 + m))
                    }
                    _ => return Err(refuse()),
                }
            }
            None => (text, 0),
        }
    };
    let (date, time) = match rest.split_once(['T', 't', ' ']) {
        Some((d, t)) => (d, t.trim()),
        None => (rest, ""),
    };
    let mut ymd = date.splitn(3, '-');
    let (Some(year), Some(month), Some(day)) =
        (ymd.next().and_then(number), ymd.next().and_then(number), ymd.next().and_then(number))
    else {
        return Err(refuse());
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&month) || day < 1 || day > month_days[(month - 1) as usize] {
        return Err(refuse());
    }
    let (clock, fraction) = match time.split_once('.') {
        Some((c, f)) => (c, Some(f)),
        None => (time, None),
    };
    let mut hms = clock.split(':');
    let mut part = |max: i64| -> Result<i64, String> {
        match hms.next() {
            None | Some("") => Ok(0),
            Some(p) => number(p).filter(|v| *v <= max).ok_or_else(refuse),
        }
    };
    let (h, m, sec) = (part(23)?, part(59)?, part(59)?);
    if hms.next().is_some() {
        return Err(refuse());
    }
    let ms = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 3 && number(f).is_some() => {
            number(&format!("{f:0<3}")).unwrap_or(0)
        }
        Some(_) => return Err(refuse()),
    };
    let day_ms = ((h * 60 + m) * 60 + sec) * 1000 + ms;
    Ok(days_from_civil(year, month, day) * 86_400_000 + day_ms - offset_minutes * 60_000)
}

/// A config value in words, for figures a person reads slowly: the duration of a `.ms` config,
/// the size of a `.bytes` config, Kafka's "no limit" values (-1 for a time or a size, the
/// largest int, long or double), and the -2 of tiered storage's local retention.
pub fn config_hint(name: &str, value: &str) -> Option<String> {
    let value = value.trim();
    let timed = name.ends_with(".ms");
    let sized = name.ends_with(".bytes");
    if value == "1.7976931348623157E308" {
        return Some("no limit".to_string());
    }
    let n: i64 = value.parse().ok()?;
    if n == i64::MAX || n == i64::from(i32::MAX) || ((timed || sized) && n == -1) {
        return Some("no limit".to_string());
    }
    if n == -2 && name.starts_with("local.retention.") {
        let whole = name.trim_start_matches("local.");
        return Some(format!("as {whole}"));
    }
    let n = u64::try_from(n).ok()?;
    if timed && n >= 1000 {
        return Some(duration(n));
    }
    if sized && n >= 1024 {
        return Some(bytes(n));
    }
    None
}

/// The values a config takes when Kafka knows them all: the booleans, and the enumerations of
/// topic and broker configs. `None` for a config typed freely.
pub fn config_choices(name: &str, kind: Option<&str>) -> Option<&'static [&'static str]> {
    if kind == Some("boolean") {
        return Some(&["true", "false"]);
    }
    let bare = name.strip_prefix("log.").unwrap_or(name);
    match bare {
        "cleanup.policy" => Some(&["delete", "compact", "compact,delete"]),
        "compression.type" => Some(&["producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"]),
        "message.timestamp.type" => Some(&["CreateTime", "LogAppendTime"]),
        _ => None,
    }
}

/// Kafka's documentation of a config as plain text: its HTML tags dropped (a link keeps its
/// words) and the few entities it uses read back.
pub fn doc_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

/// `n` ms in its two largest units: "7 d", "2 h 30 min", "1.5 s".
fn duration(ms: u64) -> String {
    const UNITS: [(u64, &str); 4] =
        [(86_400_000, "d"), (3_600_000, "h"), (60_000, "min"), (1000, "s")];
    let mut parts = Vec::new();
    let mut left = ms;
    for (size, unit) in UNITS {
        if left >= size {
            parts.push(format!("{} {unit}", left / size));
            left %= size;
        } else if !parts.is_empty() {
            // Two units at most, and only neighbours: "1 d 2 h", not "1 d 5 s".
            break;
        }
        if parts.len() == 2 {
            break;
        }
    }
    if parts.is_empty() {
        return format!("{ms} ms");
    }
    parts.join(" ")
}

/// A duration as typed: ms, or a number with a unit (`ms`, `s`, `m`/`min`, `h`, `d`), several
/// in a row (`1h30m`). In ms.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let refuse =
        || format!("{text:?} is not a duration: give ms, or e.g. 30s, 15m, 2h, 1d or 1h30m");
    if let Ok(ms) = text.parse::<i64>() {
        return if ms >= 0 { Ok(ms) } else { Err(refuse()) };
    }
    let mut total: i64 = 0;
    let mut rest = text;
    if rest.is_empty() {
        return Err(refuse());
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        if digits == 0 {
            return Err(refuse());
        }
        let n: i64 = rest[..digits].parse().map_err(|_| refuse())?;
        rest = rest[digits..].trim_start();
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == ' ').unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ms" => 1,
            "s" => 1000,
            "m" | "min" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            _ => return Err(refuse()),
        };
        total = n.checked_mul(scale).and_then(|v| total.checked_add(v)).ok_or_else(refuse)?;
        rest = rest[unit_len..].trim_start();
    }
    Ok(total)
}

#[cfg(test)]
mod tests {

    #[test]
    fn durations_as_typed() {
        use super::parse_duration;
        assert_eq!(parse_duration("1500"), Ok(1500));
        assert_eq!(parse_duration("30s"), Ok(30_000));
        assert_eq!(parse_duration("15m"), Ok(900_000));
        assert_eq!(parse_duration("15min"), Ok(900_000));
        assert_eq!(parse_duration("2h"), Ok(7_200_000));
        assert_eq!(parse_duration("1d"), Ok(86_400_000));
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000));
        assert_eq!(parse_duration(" 1h 30m "), Ok(5_400_000));
        for bad in ["", "-5", "h", "3 weeks", "1x", "99999999999999999999d"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn config_values_in_words() {
        use super::config_hint;
        assert_eq!(config_hint("retention.ms", "604800000").as_deref(), Some("7 d"));
        assert_eq!(config_hint("segment.ms", "9000000").as_deref(), Some("2 h 30 min"));
        assert_eq!(config_hint("x.ms", "90061000").as_deref(), Some("1 d 1 h"));
        assert_eq!(config_hint("x.ms", "1500").as_deref(), Some("1 s"));
        assert_eq!(config_hint("x.ms", "500"), None);
        assert_eq!(config_hint("retention.ms", "-1").as_deref(), Some("no limit"));
        assert_eq!(
            config_hint("flush.messages", "9223372036854775807").as_deref(),
            Some("no limit")
        );
        assert_eq!(config_hint("segment.bytes", "1048576").as_deref(), Some("1.0 MiB"));
        assert_eq!(config_hint("segment.bytes", "1073741824").as_deref(), Some("1.0 GiB"));
        assert_eq!(config_hint("max.connections", "2147483647").as_deref(), Some("no limit"));
        assert_eq!(
            config_hint("leader.replication.throttled.rate", "1.7976931348623157E308").as_deref(),
            Some("no limit")
        );
        assert_eq!(config_hint("local.retention.ms", "-2").as_deref(), Some("as retention.ms"));
        assert_eq!(
            config_hint("local.retention.bytes", "-2").as_deref(),
            Some("as retention.bytes")
        );
        assert_eq!(config_hint("retention.bytes", "-1").as_deref(), Some("no limit"));
        assert_eq!(config_hint("min.insync.replicas", "2"), None);
        assert_eq!(config_hint("cleanup.policy", "delete"), None);
        assert_eq!(config_hint("segment.jitter.ms", "-2"), None);
    }

    use super::*;

    #[test]
    fn instants_read_as_typed() {
        assert_eq!(parse_instant("1700000000123"), Ok(1_700_000_000_123));
        assert_eq!(parse_instant(" 0 "), Ok(0));
        assert_eq!(parse_instant("2023-11-14 22:13:20.123 UTC"), Ok(1_700_000_000_123));
        assert_eq!(parse_instant("2023-11-14T22:13:20.123Z"), Ok(1_700_000_000_123));
        assert_eq!(parse_instant("2023-11-14T22:13:20.1"), Ok(1_700_000_000_100));
        assert_eq!(parse_instant("2023-11-14 23:13:20+01:00"), Ok(1_700_000_000_000));
        assert_eq!(parse_instant("2023-11-14T17:13:20-0500"), Ok(1_700_000_000_000));
        assert_eq!(parse_instant("2023-11-14 22:13"), Ok(1_699_999_980_000));
        assert_eq!(parse_instant("2000-02-29"), Ok(951_782_400_000));
        assert_eq!(parse_instant("1970-01-01"), Ok(0));
        for bad in [
            "",
            "yesterday",
            "2023-02-29",
            "2023-13-01",
            "2023-11-14 24:00",
            "2023-11-14 10:61",
            "2023-11-14 10:00:00:00",
            "2023-11-14 10:00+25:00",
            "2023-11-14 10:00.1234",
            "-5",
        ] {
            let error = parse_instant(bad).expect_err(bad);
            assert!(error.contains("not a time"), "{bad}: {error}");
        }
    }

    #[test]
    fn printed_times_read_back() {
        for ms in [0, 1, 951_782_400_000, 1_700_000_000_123, 4_102_444_800_999] {
            assert_eq!(parse_instant(&utc_timestamp(ms)), Ok(ms));
        }
    }

    #[test]
    fn timestamps_read_as_utc() {
        assert_eq!(utc_timestamp(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(utc_timestamp(951_782_400_000), "2000-02-29 00:00:00.000 UTC");
        assert_eq!(utc_timestamp(1_700_000_000_123), "2023-11-14 22:13:20.123 UTC");
        assert_eq!(utc_timestamp(-1), "1969-12-31 23:59:59.999 UTC");
    }

    #[test]
    fn names_are_encoded_in_urls() {
        assert_eq!(query_value("a b/c?d#e&f"), "a%20b%2Fc%3Fd%23e%26f");
        assert_eq!(page_url("prod", "groups", "x/y"), "/c/prod/groups/x%2Fy");
    }

    #[test]
    fn thousands_groups_by_three() {
        let cases = [
            (0, "0"),
            (7, "7"),
            (999, "999"),
            (1000, "1,000"),
            (12345, "12,345"),
            (1234567, "1,234,567"),
            (u64::MAX, "18,446,744,073,709,551,615"),
        ];
        for (n, want) in cases {
            assert_eq!(thousands(n), want, "{n}");
        }
    }

    #[test]
    fn bytes_use_binary_units() {
        let cases = [
            (0, "0 B"),
            (1023, "1023 B"),
            (1024, "1.0 KiB"),
            (1536, "1.5 KiB"),
            (1_048_523, "1023.9 KiB"),
            (1_048_525, "1.0 MiB"),
            (1_048_576, "1.0 MiB"),
            (1_073_741_824, "1.0 GiB"),
            (u64::MAX, "16.0 EiB"),
        ];
        for (n, want) in cases {
            assert_eq!(bytes(n), want, "{n}");
        }
    }

    #[test]
    fn known_configs_offer_their_values() {
        assert_eq!(
            config_choices("unclean.leader.election.enable", Some("boolean")),
            Some(&["true", "false"][..])
        );
        assert_eq!(config_choices("log.cleanup.policy", Some("list")).map(<[_]>::len), Some(3));
        assert!(
            config_choices("compression.type", Some("string")).is_some_and(|c| c.contains(&"zstd"))
        );
        assert_eq!(config_choices("retention.ms", Some("long")), None);
    }

    #[test]
    fn kafka_documentation_reads_as_text() {
        assert_eq!(
            doc_text(
                r##"See <a href="#compaction">log compaction</a> &amp; <code>retention.ms</code>."##
            ),
            "See log compaction & retention.ms."
        );
        assert_eq!(doc_text("a &lt;b&gt; c"), "a <b> c");
        assert_eq!(doc_text("no tags"), "no tags");
    }

    #[test]
    fn rates_use_k_and_m() {
        let cases = [
            (0.0, "0 rec/s"),
            (0.25, "0.2 rec/s"),
            (12.0, "12.0 rec/s"),
            (999.94, "999.9 rec/s"),
            (3400.0, "3.4k rec/s"),
            (2_500_000.0, "2.5M rec/s"),
        ];
        for (n, want) in cases {
            assert_eq!(rate(n), want, "{n}");
        }
    }

    #[test]
    fn missing_figures_show_a_dash() {
        assert_eq!(or_dash(None, thousands), "—");
        assert_eq!(or_dash(Some(1000), thousands), "1,000");
    }
}
