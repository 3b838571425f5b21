//! The contract of `GET /api/export` beyond its NDJSON lines: the header that tells where each
//! partition's part starts and ends, and the progress a client reads off the lines as they
//! arrive (the browser's download keeps count with it; the server writes the header).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Response header: `partition:start-end` for each partition of the export, comma separated;
/// `end` is exclusive (the high watermark when the export began).
pub const EXPORT_SPANS_HEADER: &str = "x-klens-spans";

/// The value of [`EXPORT_SPANS_HEADER`]: (partition, first offset, end offset).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportSpans(pub Vec<(i32, i64, i64)>);

impl fmt::Display for ExportSpans {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (partition, start, end)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{partition}:{start}-{end}")?;
        }
        Ok(())
    }
}

impl FromStr for ExportSpans {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let one = |part: &str| -> Option<(i32, i64, i64)> {
            let (partition, range) = part.trim().split_once(':')?;
            let (start, end) = range.split_once('-')?;
            Some((partition.parse().ok()?, start.parse().ok()?, end.parse().ok()?))
        };
        text.split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| one(p).ok_or_else(|| format!("not a partition span: {p:?}")))
            .collect::<Result<Vec<_>, _>>()
            .map(ExportSpans)
    }
}

/// The longest start of a line kept across chunks: enough for the topic, partition and offset
/// that open every record line, and for an error line's message.
const KEPT_PREFIX: usize = 4096;

/// Counts an export as its bytes arrive, in chunks cut anywhere: lines, bytes, how far each
/// partition has been read, and the error line the server writes when it has to stop.
#[derive(Clone, Debug, Default)]
pub struct ExportProgress {
    spans: ExportSpans,
    /// The next offset to read per partition, from the last record line seen.
    reached: BTreeMap<i32, i64>,
    /// The start of the line not yet ended.
    line: Vec<u8>,
    pub records: u64,
    pub bytes: u64,
    /// The server's reason, when it ended the export early with an error line.
    pub error: Option<String>,
    /// The records the expression could not be evaluated on (left out), when the server said.
    pub unevaluated: Option<super::Unevaluated>,
}

impl ExportProgress {
    pub fn new(spans: ExportSpans) -> Self {
        Self { spans, ..Self::default() }
    }

    /// Takes the next chunk of the body.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len() as u64;
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|b| *b == b'\n') {
            self.keep(&rest[..end]);
            let line = std::mem::take(&mut self.line);
            self.end_line(&line);
            rest = &rest[end + 1..];
        }
        self.keep(rest);
    }

    fn keep(&mut self, part: &[u8]) {
        let room = KEPT_PREFIX.saturating_sub(self.line.len());
        self.line.extend_from_slice(&part[..part.len().min(room)]);
    }

    fn end_line(&mut self, line: &[u8]) {
        if line.is_empty() {
            return;
        }
        if line.starts_with(br#"{"error":"#) {
            #[derive(serde::Deserialize)]
            struct ErrorLine {
                error: String,
            }
            self.error = Some(
                serde_json::from_slice::<ErrorLine>(line)
                    .map(|e| e.error)
                    .unwrap_or_else(|_| "the export stopped early".to_string()),
            );
            return;
        }
        if line.starts_with(br#"{"unevaluated":"#) {
            #[derive(serde::Deserialize)]
            struct UnevaluatedLine {
                unevaluated: super::Unevaluated,
            }
            self.unevaluated =
                serde_json::from_slice::<UnevaluatedLine>(line).ok().map(|l| l.unevaluated);
            return;
        }
        self.records += 1;
        if let Some((partition, offset)) = position(line) {
            self.reached.insert(partition, offset + 1);
        }
    }

    /// Offsets read out of offsets to read, over every partition of the export.
    pub fn offsets(&self) -> (i64, i64) {
        self.spans.0.iter().fold((0, 0), |(done, total), (partition, start, end)| {
            let size = (end - start).max(0);
            let at = self.reached.get(partition).map_or(0, |next| (next - start).clamp(0, size));
            (done + at, total + size)
        })
    }

    /// The share read, 0.0 to 1.0; `None` when the spans are unknown or empty. The records of
    /// a partition are counted as read when a later one has been seen, so with a filter the
    /// share moves with each match.
    pub fn fraction(&self) -> Option<f64> {
        let (done, total) = self.offsets();
        (total > 0).then(|| done as f64 / total as f64)
    }
}

/// The partition and offset at the start of a record line:
/// `{"topic":"…","partition":P,"offset":O,…`. Topic names cannot hold quotes.
fn position(line: &[u8]) -> Option<(i32, i64)> {
    // The first 512 bytes, less any character the cut splits.
    let head = &line[..line.len().min(512)];
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    let number = |name: &str| -> Option<i64> {
        let at = text.find(name)? + name.len();
        let digits: String =
            text[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
        digits.parse().ok()
    };
    Some((i32::try_from(number(r#""partition":"#)?).ok()?, number(r#""offset":"#)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(partition: i32, offset: i64, value: &str) -> String {
        serde_json::json!({
            "topic": "t",
            "partition": partition,
            "offset": offset,
            "timestamp": 1,
            "value": {"encoding": "text", "data": value},
        })
        .to_string()
            + "\n"
    }

    #[test]
    fn spans_go_through_the_header_and_back() {
        let spans = ExportSpans(vec![(0, 0, 10), (2, 5, 7)]);
        assert_eq!(spans.to_string(), "0:0-10,2:5-7");
        assert_eq!("0:0-10,2:5-7".parse::<ExportSpans>(), Ok(spans));
        assert_eq!("".parse::<ExportSpans>(), Ok(ExportSpans::default()));
        assert!("0:0".parse::<ExportSpans>().is_err());
        assert!("x:1-2".parse::<ExportSpans>().is_err());
    }

    #[test]
    fn progress_counts_lines_cut_anywhere() {
        let body = [line(0, 0, "a"), line(1, 3, "b\\nc"), line(0, 4, "d")].concat();
        for cut in 1..body.len() {
            let mut p = ExportProgress::new(ExportSpans(vec![(0, 0, 10), (1, 3, 5)]));
            let (a, b) = body.as_bytes().split_at(cut);
            p.feed(a);
            p.feed(b);
            assert_eq!(p.records, 3, "cut at {cut}");
            assert_eq!(p.bytes, body.len() as u64);
            // Partition 0 read to offset 4 of 0..10, partition 1 to 3 of 3..5.
            assert_eq!(p.offsets(), (5 + 1, 12), "cut at {cut}");
            assert_eq!(p.error, None);
        }
    }

    #[test]
    fn an_unfinished_line_is_not_counted_and_long_lines_stay_bounded() {
        let long = line(0, 7, &"x".repeat(100_000));
        let mut p = ExportProgress::new(ExportSpans(vec![(0, 0, 8)]));
        p.feed(&long.as_bytes()[..50_000]);
        assert_eq!(p.records, 0);
        assert!(p.line.len() <= KEPT_PREFIX);
        p.feed(&long.as_bytes()[50_000..]);
        assert_eq!(p.records, 1);
        assert_eq!(p.fraction(), Some(1.0));
    }

    #[test]
    fn a_character_cut_at_the_start_of_a_long_line_still_leaves_its_position() {
        // Multibyte text early enough that the 512-byte head ends inside a character.
        let value = "é".repeat(600);
        let long = line(1, 4, &value);
        assert!(std::str::from_utf8(&long.as_bytes()[..512]).is_err());
        let mut p = ExportProgress::new(ExportSpans(vec![(1, 0, 10)]));
        p.feed(long.as_bytes());
        assert_eq!(p.offsets(), (5, 10));
    }

    #[test]
    fn the_error_line_is_read_as_the_reason() {
        let mut p = ExportProgress::new(ExportSpans(vec![(0, 0, 8)]));
        p.feed(line(0, 0, "a").as_bytes());
        p.feed(b"{\"error\":\"reading t: broker down\"}\n");
        assert_eq!(p.records, 1);
        assert_eq!(p.error.as_deref(), Some("reading t: broker down"));
        assert_eq!(p.offsets(), (1, 8));
    }

    #[test]
    fn the_unevaluated_line_is_a_count_not_a_record() {
        let mut p = ExportProgress::new(ExportSpans(vec![(0, 0, 8)]));
        p.feed(line(0, 0, "a").as_bytes());
        p.feed(b"{\"unevaluated\":{\"records\":3,\"first\":\"no field qty\"}}\n");
        assert_eq!(p.records, 1);
        let told = p.unevaluated.as_ref().map(|u| (u.records, u.first.as_str()));
        assert_eq!(told, Some((3, "no field qty")));
        assert_eq!(p.error, None);
    }

    #[test]
    fn no_spans_means_no_fraction() {
        let mut p = ExportProgress::new(ExportSpans::default());
        p.feed(line(0, 0, "a").as_bytes());
        assert_eq!(p.fraction(), None);
        assert_eq!(p.records, 1);
    }
}
