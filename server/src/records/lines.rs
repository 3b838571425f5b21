//! The export's NDJSON lines, written straight from a record's bytes into the output.
//!
//! A line reads as serialising the decoded [`Record`](app::api::Record) would (the pages'
//! shape), but most of a line is written without building it first. A plain JSON value is
//! read once, byte by byte, and copied: as it is when it is already in the form serde_json
//! writes (compact, keys once, numbers and escapes as serde_json prints them), else without
//! the whitespace between its tokens (Python's `json.dumps` with its spaces, pretty-printed
//! values over several lines) and with its bytes beside it in `raw`, since the copy is not
//! them. Such a copy parses to the value the pages show, though its escapes and number forms
//! stay the producer's. What the one pass cannot vouch for (a key with escapes in an
//! otherwise exact document, deep nesting, invalid JSON) and values decoded through the
//! registry go through the same decoding the pages use; the unit tests below compare the lines
//! parsed both ways on every kind of input.

use app::api::TimestampType;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;

use super::decode::{self, Loaded, Schemas};
use super::RawRecord;

/// Buffers one export reuses from record to record.
#[derive(Default)]
pub struct Scratch {
    /// The keys of the objects being checked, as byte ranges of the document.
    keys: Vec<(usize, usize)>,
    /// A float as serde_json prints it.
    number: Vec<u8>,
}

/// Appends the NDJSON line of `record` (read from `topic`, unmasked) to `out`.
pub fn write_record(
    out: &mut Vec<u8>, topic: &str, record: &RawRecord, schemas: &Schemas, loaded: &Loaded,
    scratch: &mut Scratch,
) {
    out.extend_from_slice(b"{\"topic\":");
    write_str(out, topic.as_bytes());
    out.extend_from_slice(b",\"partition\":");
    out.extend_from_slice(itoa::Buffer::new().format(record.partition).as_bytes());
    out.extend_from_slice(b",\"offset\":");
    out.extend_from_slice(itoa::Buffer::new().format(record.offset).as_bytes());
    out.extend_from_slice(b",\"timestamp\":");
    match record.timestamp {
        Some(t) => out.extend_from_slice(itoa::Buffer::new().format(t).as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"timestamp_type\":");
    out.extend_from_slice(timestamp_type(record.timestamp_type));
    out.extend_from_slice(b",\"key\":");
    write_part(out, record.key.as_deref(), schemas, loaded, scratch);
    out.extend_from_slice(b",\"value\":");
    write_part(out, record.value.as_deref(), schemas, loaded, scratch);
    out.extend_from_slice(b",\"headers\":[");
    for (i, (key, value)) in record.headers.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"key\":");
        write_json(out, key);
        out.extend_from_slice(b",\"value\":");
        write_plain(out, value.as_deref(), scratch);
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"size\":");
    out.extend_from_slice(itoa::Buffer::new().format(record.size()).as_bytes());
    out.extend_from_slice(b"}\n");
}

/// A timestamp's type as serde_json writes it.
fn timestamp_type(kind: TimestampType) -> &'static [u8] {
    match kind {
        TimestampType::CreateTime => b"\"create_time\"",
        TimestampType::LogAppendTime => b"\"log_append_time\"",
        TimestampType::NotAvailable => b"\"not_available\"",
    }
}

/// A key or value: through its schema when the registry frames it, else as plain bytes.
fn write_part(
    out: &mut Vec<u8>, bytes: Option<&[u8]>, schemas: &Schemas, loaded: &Loaded,
    scratch: &mut Scratch,
) {
    let (Some(raw), Some(id)) = (bytes, schemas.wanted(bytes)) else {
        write_plain(out, bytes, scratch);
        return;
    };
    if let (Some(decoder), Some((_, payload))) = (loaded.decoder(id), decode::confluent_frame(raw))
    {
        let start = out.len();
        out.extend_from_slice(b"{\"encoding\":");
        write_json(out, &decoder.encoding());
        out.extend_from_slice(b",\"data\":");
        if let Some(told) = decoder.write_data(payload, out) {
            out.extend_from_slice(b",\"schema_id\":");
            out.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
            // The bytes go too unless the data and the schema give them back (the frame's
            // five bytes are the magic byte and the schema id).
            if !told {
                out.extend_from_slice(b",\"raw\":\"");
                write_base64(out, raw);
                out.push(b'"');
            }
            out.push(b'}');
            return;
        }
        out.truncate(start);
    }
    // Anything else framed (JSON Schema, a datum the walk refuses, a schema that
    // could not be fetched) as the pages decode it.
    write_json(out, &schemas.decode(loaded, bytes));
}

/// Bytes without a schema, as [`super::decode::plain`] shows them.
fn write_plain(out: &mut Vec<u8>, bytes: Option<&[u8]>, scratch: &mut Scratch) {
    let Some(bytes) = bytes else {
        out.extend_from_slice(b"{\"encoding\":\"null\",\"data\":null}");
        return;
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        out.extend_from_slice(b"{\"encoding\":\"base64\",\"data\":\"");
        write_base64(out, bytes);
        out.extend_from_slice(b"\"}");
        return;
    };
    if !decode::looks_structured(text) {
        write_text(out, text);
        return;
    }
    let opened = out.len();
    out.extend_from_slice(b"{\"encoding\":\"json\",\"data\":");
    match compact(bytes, out, scratch) {
        // The bytes themselves, in serde_json's form.
        Some(true) => {
            out.push(b'}');
            return;
        }
        // Compacted, so not the bytes: they go too.
        Some(false) => {
            out.extend_from_slice(b",\"raw\":\"");
            write_base64(out, bytes);
            out.extend_from_slice(b"\"}");
            return;
        }
        None => out.truncate(opened),
    }
    // What one pass cannot vouch for (or not JSON at all): parsed as the pages parse it,
    // written out once, and compared with the bytes to know whether they must go too.
    let Ok(json) = serde_json::from_str::<Value>(text) else {
        write_text(out, text);
        return;
    };
    out.extend_from_slice(b"{\"encoding\":\"json\",\"data\":");
    let start = out.len();
    write_json(out, &json);
    if out[start..] != *bytes {
        out.extend_from_slice(b",\"raw\":\"");
        write_base64(out, bytes);
        out.push(b'"');
    }
    out.push(b'}');
}

fn write_text(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(b"{\"encoding\":\"text\",\"data\":");
    write_str(out, text.as_bytes());
    out.push(b'}');
}

/// Serialising into a `Vec` fails only for values JSON cannot hold (a map with keys that are
/// not strings), which no part of a line has.
fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Writes `bytes` as a JSON string, escaped as serde_json escapes one, and says whether they
/// were UTF-8 (when not, `out` holds a string the caller discards). One pass looks at eight
/// bytes at a time (the last few padded) for what needs escaping and for any byte beyond
/// ASCII; only then are the bytes checked as UTF-8.
pub(crate) fn write_str(out: &mut Vec<u8>, bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut seen = 0u64;
    // Bytes from `copied` on are still to be copied.
    let mut copied = 0;
    for (n, chunk) in bytes.chunks(8).enumerate() {
        let w = match <[u8; 8]>::try_from(chunk) {
            Ok(eight) => u64::from_le_bytes(eight),
            // The last few, in the low bytes, the rest a letter (which needs no escape): from
            // the string's last eight bytes when it has them (one load, not a copy that the
            // load must wait for), else one by one.
            Err(_) => match bytes.len().checked_sub(8) {
                Some(from) => {
                    let last = u64::from_le_bytes(
                        <[u8; 8]>::try_from(&bytes[from..]).unwrap_or([b'a'; 8]),
                    );
                    let shift = 8 * (8 - chunk.len() as u32);
                    last >> shift | (ONES * u64::from(b'a')) << (64 - shift)
                }
                None => chunk
                    .iter()
                    .rev()
                    .fold(ONES * u64::from(b'a'), |w, &byte| w << 8 | u64::from(byte)),
            },
        };
        seen |= w;
        let quote = w ^ (ONES * u64::from(b'"'));
        let backslash = w ^ (ONES * u64::from(b'\\'));
        // A byte below 0x20, a quote or a backslash sets its high bit here (other bytes may
        // too, through borrows: the eight are then looked at one by one).
        let special = (w.wrapping_sub(ONES * 0x20) & !w)
            | (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash);
        if special & HIGH == 0 {
            continue;
        }
        for (j, &byte) in chunk.iter().enumerate() {
            let short: &[u8] = match byte {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0..=0x1f => b"",
                _ => continue,
            };
            let at = n * 8 + j;
            out.extend_from_slice(&bytes[copied..at]);
            if short.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(byte >> 4)]);
                out.push(HEX[usize::from(byte & 0xf)]);
            } else {
                out.extend_from_slice(short);
            }
            copied = at + 1;
        }
    }
    out.extend_from_slice(&bytes[copied..]);
    out.push(b'"');
    seen & HIGH == 0 || std::str::from_utf8(bytes).is_ok()
}

/// Writes a finite `f64` as serde_json writes it: the fewest digits that read back as the same
/// number. Most numbers in records are prices and measures, a whole number of hundredths or
/// thousandths: between 1e-4 and 1e9 (where serde_json writes no exponent), a value that is the
/// double nearest to an integer over 10^k (k up to 6) is written as that integer with a point
/// k places from its right, without the general algorithm. Only one integer can be that near
/// at each k (the doubles there are closer together than 0.12 / 10^k), and the smallest k that
/// works gives the fewest digits, so the two ways agree; `write_f64_as_serde_json_does` checks
/// them against each other.
pub(crate) fn write_f64(out: &mut Vec<u8>, f: f64) {
    const SCALES: [f64; 7] = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6];
    let size = f.abs();
    if (1e-4..1e9).contains(&size) {
        for (k, scale) in SCALES.iter().enumerate() {
            // The nearest integer (a tie never reads back, so which way it goes is moot);
            // adding a half is exact below 2^52, and the cast truncates.
            let whole = (size * scale + 0.5) as u64;
            if whole as f64 / scale != size {
                continue;
            }
            if f < 0.0 {
                out.push(b'-');
            }
            let mut buffer = itoa::Buffer::new();
            let digits = buffer.format(whole).as_bytes();
            if k == 0 {
                out.extend_from_slice(digits);
                out.extend_from_slice(b".0");
            } else if digits.len() > k {
                let (int, frac) = digits.split_at(digits.len() - k);
                out.extend_from_slice(int);
                out.push(b'.');
                out.extend_from_slice(frac);
            } else {
                out.extend_from_slice(b"0.");
                out.extend(std::iter::repeat_n(b'0', k - digits.len()));
                out.extend_from_slice(digits);
            }
            return;
        }
    }
    write_json(out, &f);
}

pub(crate) fn write_base64(out: &mut Vec<u8>, bytes: &[u8]) {
    let start = out.len();
    out.resize(start + base64::encoded_len(bytes.len(), true).unwrap_or(0), 0);
    let written = STANDARD.encode_slice(bytes, &mut out[start..]).unwrap_or(0);
    out.truncate(start + written);
}

/// The deepest nesting the one-pass check follows; deeper documents take the parser's way,
/// which has its own limit.
const MAX_DEPTH: usize = 64;
/// Integers of at most this many digits fit both `i64` and `u64`, so serde_json prints them
/// back as they are; longer ones are parsed to know.
const EXACT_DIGITS: usize = 18;

/// Whether `bytes` is a JSON object or array exactly as serde_json (with its `preserve_order`
/// feature) would write the value it parses to: no whitespace, every key once, strings with
/// only the escapes serde_json writes, numbers printed as serde_json prints them. A `true`
/// is certain; a `false` only sends the document the slower way, which decides for itself.
pub fn is_canonical(bytes: &[u8], scratch: &mut Scratch) -> bool {
    scratch.keys.clear();
    let mut check = Check::new(bytes, scratch, None);
    matches!(bytes.first(), Some(b'{' | b'['))
        && check.value(0).is_some()
        && check.at == bytes.len()
}

/// Appends the JSON object or array `bytes` to `out` without the whitespace between its
/// tokens, in one pass that checks it is JSON: `Some(true)` when the bytes were already what
/// serde_json writes (so `out` got them as they are), `Some(false)` when what `out` got parses
/// to the same value as the bytes but is not them. `None`, with `out` as it was, for what the
/// pass cannot vouch for: not JSON, nested deeper than it follows, a number serde_json would
/// refuse, a lone surrogate, or a key with escapes while the document is still exact.
pub fn compact(bytes: &[u8], out: &mut Vec<u8>, scratch: &mut Scratch) -> Option<bool> {
    scratch.keys.clear();
    let start = out.len();
    let mut check = Check::new(bytes, scratch, Some(&mut *out));
    let read = (|| {
        check.space()?;
        if !matches!(check.peek()?, b'{' | b'[') {
            return None;
        }
        check.value(0)?;
        check.space()?;
        (check.at == bytes.len()).then_some(())
    })();
    let (exact, copied) = (check.exact, check.copied);
    if read.is_none() {
        out.truncate(start);
        return None;
    }
    out.extend_from_slice(&bytes[copied..]);
    Some(exact)
}

/// One pass over a document; each step answers `None` as soon as the document is not JSON, or
/// not canonical when only checking.
struct Check<'a> {
    bytes: &'a [u8],
    at: usize,
    keys: &'a mut Vec<(usize, usize)>,
    number: &'a mut Vec<u8>,
    /// Where the compacted document goes; `None` for the canonical check alone.
    out: Option<&'a mut Vec<u8>>,
    /// Bytes from here on are still to be copied to `out`.
    copied: usize,
    /// Whether the document so far is exactly what serde_json writes.
    exact: bool,
}

impl<'a> Check<'a> {
    fn new(bytes: &'a [u8], scratch: &'a mut Scratch, out: Option<&'a mut Vec<u8>>) -> Self {
        Check {
            bytes,
            at: 0,
            keys: &mut scratch.keys,
            number: &mut scratch.number,
            out,
            copied: 0,
            exact: true,
        }
    }

    /// The document is valid here but not in serde_json's form: the end of a canonical check,
    /// and only a note while compacting (the caller then keeps the bytes beside the copy).
    fn inexact(&mut self) -> Option<()> {
        self.exact = false;
        self.out.is_some().then_some(())
    }

    /// Whitespace between tokens, left out of the copy.
    fn space(&mut self) -> Option<()> {
        if !matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            return Some(());
        }
        self.inexact()?;
        let start = self.at;
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
        }
        if let Some(out) = self.out.as_deref_mut() {
            out.extend_from_slice(&self.bytes[self.copied..start]);
        }
        self.copied = self.at;
        Some(())
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(|_| ()),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at.checked_add(word.len())?;
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.eat(b'[')?;
        self.space()?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.value(depth)?;
            self.space()?;
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    self.space()?;
                }
                b']' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.eat(b'{')?;
        self.space()?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        let first_key = self.keys.len();
        loop {
            let key = self.string()?;
            if self.exact {
                // A key with escapes could equal another written differently: while the
                // document may still be exact, the parser decides.
                if self.bytes[key.0..key.1].contains(&b'\\') {
                    return None;
                }
                self.keys.push(key);
            }
            self.space()?;
            self.eat(b':')?;
            self.space()?;
            self.value(depth)?;
            self.space()?;
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    self.space()?;
                }
                b'}' => {
                    self.at += 1;
                    break;
                }
                _ => return None,
            }
        }
        // A key written twice parses to one entry, so the document reads otherwise than its
        // bytes. Once it is not exact anyway, that changes nothing: its copy parses the same.
        if !self.exact {
            self.keys.truncate(first_key);
            return Some(());
        }
        let bytes = self.bytes;
        let keys = &mut self.keys[first_key..];
        let text = |(start, end): (usize, usize)| &bytes[start..end];
        let repeated = if keys.len() <= 8 {
            keys.iter().enumerate().any(|(i, a)| keys[i + 1..].iter().any(|b| text(*a) == text(*b)))
        } else {
            keys.sort_unstable_by(|a, b| text(*a).cmp(text(*b)));
            keys.windows(2).any(|w| text(w[0]) == text(w[1]))
        };
        self.keys.truncate(first_key);
        if repeated {
            self.inexact()?;
        }
        Some(())
    }

    /// A JSON string, noting escapes serde_json would write otherwise; the range of its
    /// contents.
    fn string(&mut self) -> Option<(usize, usize)> {
        self.eat(b'"')?;
        let start = self.at;
        loop {
            // Plain bytes up to the next quote or backslash, taken at once; none of them may be a
            // control character, which JSON writes escaped.
            let rest = self.bytes.get(self.at..)?;
            let plain = memchr::memchr2(b'"', b'\\', rest)?;
            let controls = rest[..plain].iter().fold(false, |seen, &b| seen | (b < 0x20));
            if controls {
                return None;
            }
            self.at += plain;
            let byte = self.peek()?;
            match byte {
                b'"' => {
                    let end = self.at;
                    self.at += 1;
                    return Some((start, end));
                }
                b'\\' => {
                    let escaped = *self.bytes.get(self.at + 1)?;
                    match escaped {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 2,
                        b'/' => {
                            self.inexact()?;
                            self.at += 2;
                        }
                        b'u' => {
                            let code = self.hex4(self.at + 2)?;
                            self.at += 6;
                            match code {
                                // A surrogate pair is one character; a half alone is not one,
                                // and the parser refuses it.
                                0xd800..=0xdbff => {
                                    let low = match self.bytes.get(self.at..self.at + 2) {
                                        Some(b"\\u") => self.hex4(self.at + 2)?,
                                        _ => return None,
                                    };
                                    if !(0xdc00..=0xdfff).contains(&low) {
                                        return None;
                                    }
                                    self.at += 6;
                                    self.inexact()?;
                                }
                                0xdc00..=0xdfff => return None,
                                // serde_json writes `\u00xx`, lower-case, only for the
                                // control characters that have no short escape.
                                0x00..=0x1f if ![0x08, 0x09, 0x0a, 0x0c, 0x0d].contains(&code) => {
                                    let hex = self.bytes.get(self.at - 4..self.at)?;
                                    if hex.iter().any(u8::is_ascii_uppercase) {
                                        self.inexact()?;
                                    }
                                }
                                _ => self.inexact()?,
                            }
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
    }

    /// The four hex digits at `at`, as a number.
    fn hex4(&self, at: usize) -> Option<u16> {
        let digits = self.bytes.get(at..at.checked_add(4)?)?;
        digits.iter().try_fold(0u16, |code, &d| {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return None,
            };
            Some(code << 4 | u16::from(v))
        })
    }

    /// A number; exact when serde_json prints it back as it is: an integer of at most
    /// [`EXACT_DIGITS`] digits (not `-0`, which reads as a float), or a float in the shortest
    /// form that reads back as the same `f64`. One serde_json would refuse (too large for an
    /// `f64`) is not vouched for.
    fn number(&mut self) -> Option<()> {
        let start = self.at;
        let negative = self.eat(b'-').is_some();
        let digits_start = self.at;
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => {
                while matches!(self.peek(), Some(b'0'..=b'9')) {
                    self.at += 1;
                }
            }
            _ => return None,
        }
        let int_digits = self.at - digits_start;
        let mut float = false;
        let mut exponent = false;
        if self.eat(b'.').is_some() {
            float = true;
            let from = self.at;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.at += 1;
            }
            if self.at == from {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            float = true;
            exponent = true;
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            let from = self.at;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.at += 1;
            }
            if self.at == from {
                return None;
            }
        }
        let token = &self.bytes[start..self.at];
        // Only an exponent or some three hundred digits reach past an f64, which the parser
        // refuses.
        if (exponent || int_digits > 300)
            && !std::str::from_utf8(token).ok()?.parse::<f64>().ok()?.is_finite()
        {
            return None;
        }
        if !self.exact {
            return Some(());
        }
        if !float {
            let zero = int_digits == 1 && self.bytes[digits_start] == b'0';
            // Past EXACT_DIGITS, serde_json keeps an integer that fits an i64 or a u64 and
            // writes any other as a float.
            let fits = int_digits <= EXACT_DIGITS || {
                let text = std::str::from_utf8(token).ok()?;
                if negative {
                    text.parse::<i64>().is_ok()
                } else {
                    text.parse::<u64>().is_ok()
                }
            };
            if !fits || (negative && zero) {
                self.inexact()?;
            }
            return Some(());
        }
        // A float: canonical when it is what serde_json prints of the number it reads (the
        // shortest digits that read back the same, with its own exponent form). Long tokens
        // are not.
        if token.len() > 24 {
            return self.inexact();
        }
        let text = std::str::from_utf8(token).ok()?;
        let parsed: f64 = text.parse().ok()?;
        if !parsed.is_finite() {
            return None;
        }
        self.number.clear();
        serde_json::to_writer(&mut *self.number, &parsed).ok()?;
        if self.number.as_slice() != token {
            self.inexact()?;
        }
        Some(())
    }
}

/// The line the pages' decoding gives, for comparison in tests.
#[cfg(test)]
fn reference_line(topic: &str, record: &RawRecord, schemas: &Schemas, loaded: &Loaded) -> Vec<u8> {
    let mut line = serde_json::to_vec(&record.decode(topic, schemas, loaded)).expect("serialises");
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests;
