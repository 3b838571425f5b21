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

/// Bytes in decimal units: `1234` → `1.2 kB`, `999` → `999 B`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["kB", "MB", "GB", "TB", "PB", "EB"];
    if n < 1000 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1000.0;
    let mut unit = 0;
    while value >= 999.95 && unit + 1 < UNITS.len() {
        value /= 1000.0;
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

/// Percent-encodes a value for a URL path segment or query value: names of groups and subjects
/// may hold `/`, `?`, `#`, `&` or spaces.
pub fn query_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The page of a thing in a cluster: `/c/{cluster}/{section}/{name}`, with the name encoded.
pub fn page_url(cluster: &str, section: &str, name: &str) -> String {
    format!(
        "/c/{}/{section}/{}",
        query_value(cluster),
        query_value(name)
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_as_utc() {
        assert_eq!(utc_timestamp(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(
            utc_timestamp(951_782_400_000),
            "2000-02-29 00:00:00.000 UTC"
        );
        assert_eq!(
            utc_timestamp(1_700_000_000_123),
            "2023-11-14 22:13:20.123 UTC"
        );
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
    fn bytes_uses_decimal_units() {
        let cases = [
            (0, "0 B"),
            (999, "999 B"),
            (1000, "1.0 kB"),
            (1234, "1.2 kB"),
            (999_949, "999.9 kB"),
            (999_950, "1.0 MB"),
            (1_200_000_000, "1.2 GB"),
            (u64::MAX, "18.4 EB"),
        ];
        for (n, want) in cases {
            assert_eq!(bytes(n), want, "{n}");
        }
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
