use super::*;
use app::api::{DEFAULT_LIMIT, MAX_LIMIT};
use app::ErrorCode;

fn record(partition: i32, offset: i64, timestamp: i64) -> RawRecord {
    RawRecord {
        partition,
        offset,
        timestamp: Some(timestamp),
        timestamp_type: TimestampType::CreateTime,
        key: None,
        value: Some(format!("{partition}/{offset}").into_bytes()),
        headers: Vec::new(),
    }
}

fn bounds() -> Bounds {
    // Partition 0 holds offsets 0..10, partition 1 holds 5..8.
    [(0, (0, 10)), (1, (5, 8))].into_iter().collect()
}

fn query() -> RecordQuery {
    RecordQuery { cluster: "c".into(), topic: "t".into(), ..RecordQuery::default() }
}

fn ids(records: &[RawRecord]) -> Vec<(i32, i64)> {
    records.iter().map(|r| (r.partition, r.offset)).collect()
}

#[test]
fn the_default_start_is_the_newest_page() {
    let (start, limit) = plan(&query(), &bounds(), None).expect("plan");
    assert_eq!(limit, DEFAULT_LIMIT as usize);
    assert_eq!(start, Start::Backward([(0, 10), (1, 8)].into_iter().collect()));
    let earliest = RecordQuery { from: Some("earliest".into()), partition: Some(1), ..query() };
    let (start, _) = plan(&earliest, &bounds(), None).expect("plan");
    assert_eq!(start, Start::Forward([(1, 5)].into_iter().collect()));
}

#[test]
fn bad_queries_name_the_field() {
    let cases = [
        (RecordQuery { limit: Some(0), ..query() }, "limit"),
        (RecordQuery { limit: Some(MAX_LIMIT + 1), ..query() }, "limit"),
        (RecordQuery { offset: Some(3), ..query() }, "offset"),
        (RecordQuery { offset: Some(-1), partition: Some(0), ..query() }, "offset"),
        (RecordQuery { from: Some("middle".into()), ..query() }, "from"),
        (
            RecordQuery {
                from: Some("earliest".into()),
                offset: Some(1),
                partition: Some(0),
                ..query()
            },
            "from",
        ),
        (RecordQuery { cursor: Some("not-a-cursor".into()), ..query() }, "cursor"),
    ];
    for (q, field) in cases {
        let error = plan(&q, &bounds(), None).expect_err("refused");
        assert_eq!(error.code, ErrorCode::BadRequest, "{q:?}");
        assert_eq!(error.field.as_deref(), Some(field), "{q:?}");
    }
    let missing = RecordQuery { partition: Some(7), ..query() };
    let error = plan(&missing, &bounds(), None).expect_err("refused");
    assert_eq!(error.code, ErrorCode::NotFound);
}

#[test]
fn an_offset_outside_the_partition_is_clamped_and_a_cursor_round_trips() {
    let q = RecordQuery { offset: Some(99), partition: Some(0), ..query() };
    let (start, _) = plan(&q, &bounds(), None).expect("plan");
    assert_eq!(start, Start::Forward([(0, 10)].into_iter().collect()));
    let cursor = Cursor { backward: true, positions: [(0, 4), (1, 6)].into_iter().collect() };
    let q = RecordQuery { cursor: Some(cursor.encode()), ..query() };
    let (start, _) = plan(&q, &bounds(), None).expect("plan");
    assert_eq!(start, Start::Backward(cursor.positions));
}

#[test]
fn a_forward_page_is_ordered_by_time_and_continues_where_it_cut() {
    let starts: BTreeMap<i32, i64> = [(0, 0), (1, 5)].into_iter().collect();
    // Interleaved in time: p0 at t=0,2,4…, p1 at t=1,3,5.
    let mut records: Vec<RawRecord> = (0..3).map(|o| record(0, o, o * 2)).collect();
    records.extend((5..8).map(|o| record(1, o, (o - 5) * 2 + 1)));
    let scan = Scan {
        records,
        reached: [(0, 3), (1, 8)].into_iter().collect(),
        scanned: 6,
        stopped: false,
    };
    let (page, next, prev) = forward_page(&starts, &bounds(), scan, 4);
    assert_eq!(ids(&page), [(0, 0), (1, 5), (0, 1), (1, 6)]);
    let next = next.expect("more to read");
    assert_eq!(next.positions, [(0, 2), (1, 7)].into_iter().collect());
    assert!(!next.backward);
    assert!(prev.is_none(), "the page starts at the beginning of both partitions");
}

#[test]
fn a_backward_page_keeps_the_newest_and_points_both_ways() {
    let ends: BTreeMap<i32, i64> = [(0, 10), (1, 8)].into_iter().collect();
    let matched: Vec<RawRecord> = vec![
        record(0, 7, 70),
        record(0, 8, 80),
        record(0, 9, 90),
        record(1, 5, 75),
        record(1, 6, 85),
        record(1, 7, 95),
    ];
    let reached: BTreeMap<i32, i64> = [(0, 7), (1, 5)].into_iter().collect();
    let (page, next, prev) = backward_page(&ends, &bounds(), matched, &reached, 3);
    assert_eq!(ids(&page), [(1, 6), (0, 9), (1, 7)]);
    assert!(next.is_none(), "both partitions are shown to their end");
    let prev = prev.expect("older records remain");
    assert!(prev.backward);
    assert_eq!(prev.positions, [(0, 9), (1, 6)].into_iter().collect());
}

#[test]
fn the_filter_looks_at_key_value_and_headers() {
    let mut r = record(0, 0, 0);
    r.key = Some(b"Order-17".to_vec());
    r.headers = vec![("trace".into(), Some(b"abc".to_vec())), ("trace".into(), None)];
    assert!(Filter::new("order", false).expect("filter").matches(&r));
    assert!(!Filter::new("order", true).expect("filter").matches(&r));
    assert!(Filter::new("Order-17", true).expect("filter").matches(&r));
    assert!(Filter::new("ABC", false).expect("filter").matches(&r));
    assert!(Filter::new("trace", true).expect("filter").matches(&r));
    assert!(!Filter::new("zzz", false).expect("filter").matches(&r));
    assert!(Filter::new("", false).is_none());
}

#[test]
fn a_filter_by_key_wants_exactly_that_key() {
    let mut r = record(0, 0, 0);
    r.key = Some(b"Order-17".to_vec());
    r.value = Some(b"paid".to_vec());
    assert!(Filter::for_key(b"Order-17".to_vec(), None).matches(&r));
    assert!(!Filter::for_key(b"order-17".to_vec(), None).matches(&r));
    assert!(!Filter::for_key(b"Order-1".to_vec(), None).matches(&r));
    // With text as well, both must hold.
    assert!(Filter::for_key(b"Order-17".to_vec(), Filter::new("paid", false)).matches(&r));
    assert!(!Filter::for_key(b"Order-17".to_vec(), Filter::new("open", false)).matches(&r));
    r.key = None;
    assert!(!Filter::for_key(Vec::new(), None).matches(&r), "no key is not the empty key");
}

#[test]
fn an_expression_filter_decodes_once_and_counts_what_it_could_not_evaluate() {
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    let schemas = Arc::new(Schemas::new(None));
    let filter = |q: Option<&str>, expr: &str| {
        let f = Filter::parse(q, false, Some(expr)).expect("compiles").expect("a filter");
        View::with_handle(f, "t", &schemas, None, runtime.handle().clone())
    };
    let mut big = record(0, 1, 0);
    big.value = Some(br#"{"qty": 7, "note": "rush"}"#.to_vec());
    let mut small = record(0, 2, 0);
    small.value = Some(br#"{"qty": 2}"#.to_vec());
    let text = record(0, 3, 0);
    let f = filter(None, "value.qty > 5");
    assert!(f.matches(&big));
    assert!(!f.matches(&small));
    assert!(f.unevaluated().is_none(), "a false answer is not a failure");
    assert!(!f.matches(&text), "a string has no fields");
    let missed = f.unevaluated().expect("one record failed");
    assert_eq!(missed.records, 1);
    assert!(!missed.first.is_empty());
    // Text and expression together: both must hold.
    assert!(filter(Some("RUSH"), "value.qty > 5").matches(&big));
    assert!(!filter(Some("slow"), "value.qty > 5").matches(&big));
    // By key, then the expression.
    big.key = Some(b"k".to_vec());
    let by_key = Filter::for_key(b"k".to_vec(), Some(filter(None, "offset == 1")));
    assert!(by_key.matches(&big));
    assert!(!Filter::for_key(b"j".to_vec(), Some(filter(None, "offset == 1"))).matches(&big));
    let fault = Filter::parse(None, false, Some("value.qty >")).expect_err("does not parse");
    assert_eq!(fault.code, ErrorCode::BadRequest);
    assert_eq!(fault.field.as_deref(), Some("expr"));
    assert!(fault.message.starts_with("Column "), "{}", fault.message);
}

/// Regression (hardening issue): bounds with the low watermark above the high one (a topic
/// recreated between the two reads) panicked a request in `clamp`.
#[test]
fn bounds_out_of_order_do_not_panic_a_request() {
    let bounds: Bounds = [(0, (10, 5))].into_iter().collect();
    for offset in [0, 7, 20] {
        let q = RecordQuery { partition: Some(0), offset: Some(offset), ..query() };
        let (start, _) = plan(&q, &bounds, None).expect("a plan");
        assert!(matches!(start, Start::Forward(_)), "{start:?}");
    }
}

/// A record copied into one kept from before is the record as read afresh, whatever the kept
/// one held: a longer or shorter value, none at all, other headers; a value past
/// [`KEPT_BUFFER`] gets a buffer of its own, which is not kept for the next.
#[test]
fn a_record_copied_into_a_kept_one_is_the_record() {
    use rdkafka::message::{Header, OwnedHeaders, OwnedMessage};
    let message = |key: Option<&[u8]>, value: Option<Vec<u8>>, header: Option<&str>| {
        let headers = header
            .map(|h| OwnedHeaders::new().insert(Header { key: h, value: Some(b"v".as_slice()) }));
        OwnedMessage::new(
            value,
            key.map(<[u8]>::to_vec),
            "t".into(),
            rdkafka::Timestamp::CreateTime(7),
            2,
            40,
            headers,
        )
    };
    let messages = [
        message(Some(b"key"), Some(vec![b'a'; 900]), Some("h1")),
        message(Some(b"k"), Some(b"short".to_vec()), None),
        message(None, None, Some("h2")),
        message(Some(b"again"), Some(vec![b'b'; 300]), None),
        message(Some(b"big"), Some(vec![b'c'; KEPT_BUFFER + 1]), None),
        message(Some(b"after"), Some(b"small".to_vec()), None),
    ];
    let mut kept = RawRecord::from_message(&messages[0]);
    for m in &messages {
        kept.copy_from(m);
        assert_eq!(kept, RawRecord::from_message(m));
    }
    // The 900-byte buffer served "short" too; the oversized one was let go.
    let mut again = RawRecord::from_message(&messages[0]);
    let buffer = again.value.as_ref().map(Vec::as_ptr);
    again.copy_from(&messages[1]);
    assert_eq!(again.value.as_ref().map(Vec::as_ptr), buffer);
    let mut big = RawRecord::from_message(&messages[4]);
    big.copy_from(&messages[5]);
    assert!(big.value.as_ref().is_some_and(|v| v.capacity() < KEPT_BUFFER));
}
