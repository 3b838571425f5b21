use super::*;
use app::api::TimestampType;

/// Strings of every byte below 0x80 and of UTF-8 beyond it, at every offset from the eight
/// bytes looked at together, are escaped as serde_json escapes them; bytes that are not
/// UTF-8 are said to be.
#[test]
fn fuzz_strings_are_escaped_as_serde_json_escapes_them() {
    let mut inputs = crate::fuzz::Inputs::new(0x57_21_9a, 40);
    let pieces = ["a", "\"", "\\", "\n", "\u{1}", "\u{1f}", "\u{7f}", " ", "é", "€", "😀", "/"];
    let mut ascii_bytes: Vec<u8> = (0u8..0x80).collect();
    ascii_bytes.extend_from_slice(b"0123456789abcdef");
    let mut cases: Vec<Vec<u8>> = vec![ascii_bytes, Vec::new()];
    for _ in 0..crate::fuzz::cases(3000) {
        cases.push(inputs.text(&pieces).into_bytes());
        cases.push(inputs.bytes());
    }
    for bytes in cases {
        let mut out = b"[".to_vec();
        let utf8 = write_str(&mut out, &bytes);
        match std::str::from_utf8(&bytes) {
            Ok(text) => {
                assert!(utf8, "{bytes:?}");
                let want = serde_json::to_vec(text).expect("a string");
                assert_eq!(out[1..], want[..], "{text:?}");
            }
            Err(_) => assert!(!utf8, "{bytes:?}"),
        }
    }
}

fn record(key: Option<&[u8]>, value: Option<&[u8]>) -> RawRecord {
    RawRecord {
        partition: 3,
        offset: 1234,
        timestamp: Some(1_700_000_000_000),
        timestamp_type: TimestampType::CreateTime,
        key: key.map(<[u8]>::to_vec),
        value: value.map(<[u8]>::to_vec),
        headers: vec![("h\"1".into(), Some(b"{\"a\":1}".to_vec())), ("h2".into(), None)],
    }
}

/// Writes `value` both ways and compares the lines parsed: the same JSON values, `raw` and
/// all (a compacted value keeps the producer's escapes and number forms, so its bytes may
/// differ); each line is one line; a value already in serde_json's form is copied byte for
/// byte.
fn same_both_ways(value: &[u8]) {
    let schemas = Schemas::new(None);
    let loaded = Loaded::default();
    let record = record(Some(b"k\xff"), Some(value));
    let mut fast = Vec::new();
    write_record(&mut fast, "orders.\u{e9}", &record, &schemas, &loaded, &mut Scratch::default());
    let slow = reference_line("orders.\u{e9}", &record, &schemas, &loaded);
    let shown = || String::from_utf8_lossy(value).into_owned();
    let parsed = |line: &[u8]| {
        serde_json::from_slice::<Value>(line).unwrap_or_else(|e| {
            panic!("{e}: {} (value {:?})", String::from_utf8_lossy(line), shown())
        })
    };
    assert_eq!(parsed(&fast), parsed(&slow), "value {:?}", shown());
    assert_eq!(fast.iter().filter(|&&b| b == b'\n').count(), 1, "value {:?}", shown());
    if is_canonical(value, &mut Scratch::default()) {
        assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&slow));
    }
}

/// The forms producers write JSON in besides serde_json's, each compacted into a line that
/// parses to what the pages show, with the bytes beside it.
#[test]
fn every_shape_of_json_reads_as_the_pages_read_it() {
    let python = br#"{"id": 17, "name": "Ann", "tags": ["a", "b"], "price": 12.5, "ok": true, "none": null}"#;
    let pretty = b"{\n  \"id\": 17,\n  \"lines\": [\n    {\n      \"sku\": \"x\",\n      \"qty\": 2\n    }\n  ],\r\n\t\"empty\": { },\n  \"none\": [ ]\n}\n";
    let escaped = r#"{"city": "M\u00fcnchen", "emoji": "\ud83d\ude00", "said": "\"hi\"\n", "path": "a\/b", "raw": "Zürich"}"#;
    let reordered = br#"{"z": 1, "a": {"y": 2, "b": 3}, "m": [3, 2, 1]}"#;
    let numbers = br#"[1e2, 1.50, -0, 12345678901234567890, 1E-7, 0.1 ]"#;
    let repeated = br#"{"a": 1, "a": 2}"#;
    // Compact, but escaped where serde_json writes the character itself.
    let unescaped = br#"{"a\u0062":1,"ab":2,"c":"\u00e9"}"#;
    for value in [&python[..], pretty, escaped.as_bytes(), reordered, numbers, repeated, unescaped]
    {
        same_both_ways(value);
        let mut out = Vec::new();
        let exact = compact(value, &mut out, &mut Scratch::default());
        assert_eq!(exact, Some(false), "{}", String::from_utf8_lossy(value));
        assert!(!out.iter().any(|b| b"\n\r\t".contains(b)), "{}", String::from_utf8_lossy(&out));
        let back: Value = serde_json::from_slice(&out).expect("the copy is JSON");
        let original: Value = serde_json::from_slice(value).expect("the value is JSON");
        assert_eq!(back, original, "{}", String::from_utf8_lossy(value));
    }
    // Whitespace inside strings stays; between tokens it goes.
    let mut out = Vec::new();
    assert_eq!(compact(br#"{ "a b" : " c\td " }"#, &mut out, &mut Scratch::default()), Some(false));
    assert_eq!(out, br#"{"a b":" c\td "}"#);
    // Already serde_json's form: copied as it is.
    let mut out = Vec::new();
    assert_eq!(compact(br#"{"a":[1,2.5,"x"]}"#, &mut out, &mut Scratch::default()), Some(true));
    assert_eq!(out, br#"{"a":[1,2.5,"x"]}"#);
    // What one pass cannot vouch for is left to the parser, and `out` is as it was.
    for doubtful in [
        &br#"{"a\"":1,"b":2}"#[..],
        br#"["\ud800"]"#,
        br#"[1e400]"#,
        br#"[NaN]"#,
        br#"{"a":1} x"#,
        br#"{"a":"tab	in"}"#,
        br#"[1,]"#,
    ] {
        let mut out = b"kept".to_vec();
        assert_eq!(
            compact(doubtful, &mut out, &mut Scratch::default()),
            None,
            "{}",
            String::from_utf8_lossy(doubtful)
        );
        assert_eq!(out, b"kept");
        same_both_ways(doubtful);
    }
}

#[test]
fn a_line_is_the_record_the_pages_show() {
    let cases: &[&[u8]] = &[
        br#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
        br#"{"a": 1}"#,
        br#" {"a":1}"#,
        br#"{"a":1} "#,
        br#"{"a":1,"a":2}"#,
        br#"{"b":1,"a":2}"#,
        br#"{"a\u0062":1,"ab":2}"#,
        r#"["\u00e9","é","\/","\n","\u001f","\u001F","\u000a","\ud83d\ude00","\ud800"]"#.as_bytes(),
        br#"[0,-0,1,-1,123456789012345678,1234567890123456789,18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809]"#,
        br#"[1.0,1.5,19.99,0.1,1e5,1E5,1e21,1.5e-7,100000000000000000000.0,1e400,-0.0,0.30000000000000004,2.5e+30,12.50]"#,
        br#"[01]"#,
        br#"[1.]"#,
        br#"{"a":}"#,
        br#"{}"#,
        br#"[]"#,
        br#"[{}]"#,
        b"[\"a\tb\"]",
        br#"{"k":"v"}x"#,
        br#"{"#,
        b"\xc2\xa0{\"a\":1}",
        b"plain text",
        b"",
        b"\xff\xfe",
        b"42",
        br#""quoted""#,
        br#"{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
    ];
    for value in cases {
        same_both_ways(value);
    }
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    same_both_ways(deep.as_bytes());
    let wide: String = format!(
        "{{{}}}",
        (0..40).map(|i| format!("\"k{}\":{i}", 40 - i)).collect::<Vec<_>>().join(",")
    );
    same_both_ways(wide.as_bytes());
    same_both_ways(wide.replace("\"k7\"", "\"k9\"").as_bytes());
}

/// A small generator of JSON-ish documents: canonical ones, and ones bent in the ways
/// producers bend them (spaces, escapes, number forms, repeated keys, damage).
struct Random(crate::fuzz::Inputs);

impl Random {
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len() as u64) as usize]
    }

    fn value(&mut self, out: &mut String, depth: u32) {
        let kind = if depth > 4 { self.below(5) } else { self.below(8) };
        match kind {
            0 => out.push_str(self.pick(&["true", "false", "null"])),
            1 => out.push_str(self.pick(&[
                "0",
                "-0",
                "7",
                "-12",
                "19.99",
                "1e5",
                "2.5E-3",
                "0.1",
                "1.0",
                "-0.0",
                "123456789012345678901",
                "3.141592653589793",
                "1e308",
                "5e-324",
                "100",
                "1.50",
                "9007199254740993",
            ])),
            2 => {
                let n = self.next() as i64 >> self.below(60);
                out.push_str(&n.to_string());
            }
            3 => {
                let f =
                    f64::from_bits(self.next() >> 2) * if self.below(2) == 0 { 1.0 } else { -1.0 };
                if f.is_finite() {
                    out.push_str(&serde_json::to_string(&f).expect("float"));
                } else {
                    out.push('1');
                }
            }
            4 => self.string(out),
            5 | 6 => {
                out.push('{');
                let n = self.below(12);
                for i in 0..n {
                    if i > 0 {
                        out.push_str(self.pick(&[",", ",", ",", ", "]));
                    }
                    self.string(out);
                    out.push_str(self.pick(&[":", ":", ":", ": "]));
                    self.value(out, depth + 1);
                }
                out.push('}');
            }
            _ => {
                out.push('[');
                let n = self.below(6);
                for i in 0..n {
                    if i > 0 {
                        out.push(',');
                    }
                    self.value(out, depth + 1);
                }
                out.push(']');
            }
        }
    }

    fn string(&mut self, out: &mut String) {
        out.push('"');
        for _ in 0..self.below(6) {
            out.push_str(self.pick(&[
                "a",
                "b",
                "k",
                "id",
                "é",
                "😀",
                "\\n",
                "\\\"",
                "\\\\",
                "\\/",
                "\\u00e9",
                "\\u001f",
                "\\u000A",
                "\\t",
                "\\b",
                "\\ud83d\\ude00",
                " ",
                "\u{7f}",
            ]));
        }
        out.push('"');
    }
}

/// Random documents, and every one of them cut short and with a byte changed: the line
/// is always the one the pages' decoding gives.
#[test]
fn random_documents_give_the_pages_line() {
    let mut random = Random(crate::fuzz::Inputs::new(0x6b6c_656e_736a_736e, 0));
    let mut canonical = 0;
    let mut scratch = Scratch::default();
    for _ in 0..crate::fuzz::cases(4000) {
        let mut doc = String::new();
        if random.below(2) == 0 {
            random.value(&mut doc, 0);
        } else {
            doc.push('{');
            random.string(&mut doc);
            doc.push(':');
            random.value(&mut doc, 1);
            doc.push('}');
        }
        if is_canonical(doc.as_bytes(), &mut scratch) {
            canonical += 1;
        }
        same_both_ways(doc.as_bytes());
        let bytes = doc.as_bytes();
        let cut = random.below(bytes.len() as u64 + 1) as usize;
        same_both_ways(&bytes[..cut]);
        let mut bent = bytes.to_vec();
        if !bent.is_empty() {
            let at = random.below(bent.len() as u64) as usize;
            bent[at] = *b"{}[],:\"\\ 0e.-a".get(random.below(15) as usize).unwrap_or(&b'x');
            same_both_ways(&bent);
        }
    }
    assert!(canonical > 300, "the generator makes canonical documents too ({canonical})");
}

/// The quick way of writing a price gives serde_json's digits: for quotients and products of
/// whole numbers and powers of ten (what prices are made of, and the sums that miss them, like
/// 0.1 + 0.2), for floats widened from 32 bits, for random bit patterns, and at the edges of
/// the range the quick way takes.
#[test]
fn write_f64_as_serde_json_does() {
    fn check(f: f64) {
        if !f.is_finite() {
            return;
        }
        let mut quick = Vec::new();
        write_f64(&mut quick, f);
        let want = serde_json::to_string(&f).expect("a finite float");
        assert_eq!(String::from_utf8_lossy(&quick), want, "{f:e} ({:#x})", f.to_bits());
    }
    let mut checked = 0u64;
    for i in 0..40_000u32 {
        for k in 0..=8 {
            let scale = 10f64.powi(k);
            for f in
                [f64::from(i) / scale, f64::from(i) * (1.0 / scale), f64::from(i) * 1_000.0 / scale]
            {
                check(f);
                check(-f);
                checked += 2;
            }
        }
        check(f64::from(i) * 0.1 + 0.2);
        check(f64::from(f32::from_bits(i.wrapping_mul(2_654_435_761))));
    }
    // Random bit patterns, and random ones narrowed to the range the quick way takes.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..300_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        check(f64::from_bits(state));
        check((state >> 11) as f64 / (1u64 << 53) as f64 * 1e9);
        check((state % 1_000_000_000_000) as f64 / 1e6);
        checked += 3;
    }
    for edge in [1e-4, 1e9, 0.0, -0.0, 5e-324, f64::MAX, 999_999_999.999_999] {
        for f in [edge, edge.next_down(), edge.next_up()] {
            check(f);
            check(-f);
        }
    }
    assert!(checked > 2_000_000);
}

#[test]
fn timestamp_types_are_written_as_serde_json_writes_them() {
    for kind in
        [TimestampType::CreateTime, TimestampType::LogAppendTime, TimestampType::NotAvailable]
    {
        let want = serde_json::to_string(&kind).expect("a unit variant");
        assert_eq!(String::from_utf8_lossy(timestamp_type(kind)), want);
    }
}
