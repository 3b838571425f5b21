use super::*;

fn h(name: &str, value: &[u8]) -> (String, Option<Vec<u8>>) {
    (name.to_string(), Some(value.to_vec()))
}

#[test]
fn connect_writes_its_context_as_text() {
    let headers = vec![
        h("trace", b"abc"),
        h("__connect.errors.topic", b"orders"),
        h("__connect.errors.partition", b"2"),
        h("__connect.errors.offset", b"41"),
        h("__connect.errors.connector.name", b"orders-sink"),
        h(
            "__connect.errors.exception.class.name",
            b"org.apache.kafka.connect.errors.DataException",
        ),
        h("__connect.errors.exception.message", b"Converting byte[] to Kafka Connect data failed"),
    ];
    let found = origin(&headers).expect("an origin");
    assert_eq!(
        found,
        Origin {
            framework: Framework::Connect,
            topic: "orders".into(),
            partition: Some(2),
            offset: Some(41)
        }
    );
    let (out, stripped) = copied_headers(&headers, true, ("local", "orders-dlq", 0, 7));
    assert_eq!(
        out,
        vec![h("trace", b"abc"), h(LINEAGE, b"local/orders-dlq/0/7")],
        "only the error headers go; the lineage comes last"
    );
    assert_eq!(stripped.len(), 6);
    assert!(stripped.iter().all(|s| s.starts_with("__connect.errors.")));
}

#[test]
fn spring_writes_its_partition_and_offset_big_endian() {
    // As Spring Kafka's DeadLetterPublishingRecoverer writes them: the topic's UTF-8 bytes,
    // ByteBuffer.allocate(4).putInt(partition) and ByteBuffer.allocate(8).putLong(offset).
    let headers = vec![
        h("kafka_dlt-original-topic", "payments-ü".as_bytes()),
        h("kafka_dlt-original-partition", &5i32.to_be_bytes()),
        h("kafka_dlt-original-offset", &1_234_567_890_123i64.to_be_bytes()),
        h("kafka_dlt-original-timestamp", &1_700_000_000_000i64.to_be_bytes()),
        h("kafka_dlt-exception-fqcn", b"java.lang.IllegalStateException"),
        h("kafka_dlt-exception-message", b"boom"),
        h("kafka_dlt-key-exception-fqcn", b"x"),
    ];
    // "payments-ü" is no topic name: Kafka allows ASCII letters, digits, '.', '_' and '-'.
    assert_eq!(
        origin(&headers),
        Err(NoOrigin::Unreadable(
            "its kafka_dlt-original-topic header names no valid topic".into()
        ))
    );
    let mut headers = headers;
    headers[0] = h("kafka_dlt-original-topic", b"payments");
    let found = origin(&headers).expect("an origin");
    assert_eq!(found.framework, Framework::Spring);
    assert_eq!((found.partition, found.offset), (Some(5), Some(1_234_567_890_123)));
    let (out, stripped) = copied_headers(&headers, true, ("c", "t", 1, 2));
    let names: Vec<&str> = out.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "kafka_dlt-original-topic",
            "kafka_dlt-original-partition",
            "kafka_dlt-original-offset",
            "kafka_dlt-original-timestamp",
            LINEAGE
        ]
    );
    assert_eq!(
        stripped,
        ["kafka_dlt-exception-fqcn", "kafka_dlt-exception-message", "kafka_dlt-key-exception-fqcn"]
    );
}

#[test]
fn spring_cloud_stream_and_repeats_and_nothing() {
    let headers = vec![
        h("x-original-topic", b"first"),
        h("x-exception-message", b"old"),
        h("x-original-topic", b"second"),
        h("x-original-partition", &3i32.to_be_bytes()),
        h("x-original-offset", b"17"),
    ];
    let found = origin(&headers).expect("an origin");
    assert_eq!(found.framework, Framework::SpringCloudStream);
    assert_eq!(found.topic, "second", "the last header counts");
    assert_eq!((found.partition, found.offset), (Some(3), Some(17)));
    assert_eq!(origin(&[h("trace", b"x")]), Err(NoOrigin::Missing));
    assert_eq!(origin(&[]), Err(NoOrigin::Missing));
    // A header with no value, or bytes of another length, gives no number rather than a guess.
    let odd = vec![
        h("__connect.errors.topic", b"t"),
        ("__connect.errors.partition".into(), None),
        h("__connect.errors.offset", &[1, 2, 3]),
    ];
    assert_eq!(origin(&odd).expect("an origin").partition, None);
    assert_eq!(origin(&odd).expect("an origin").offset, None);
    // Connect's context comes first when a record carries two.
    let both =
        vec![h("kafka_dlt-original-topic", b"spring"), h("__connect.errors.topic", b"connect")];
    assert_eq!(origin(&both).expect("an origin").topic, "connect");
}

#[test]
fn a_plain_copy_keeps_every_header_byte_for_byte() {
    let headers = vec![
        h("__connect.errors.topic", b"orders"),
        ("nothing".into(), None),
        h("bin", &[0xff, 0x00]),
        h(LINEAGE, b"a/b/0/1"),
    ];
    let (out, stripped) = copied_headers(&headers, false, ("c", "t", 0, 9));
    assert!(stripped.is_empty());
    assert_eq!(&out[..4], &headers[..], "a copy of a copy keeps the older lineage too");
    assert_eq!(out[4], h(LINEAGE, b"c/t/0/9"));
}
