use super::*;
use kafka_protocol::messages::consumer_protocol_assignment::{
    ConsumerProtocolAssignment, TopicPartition,
};
use kafka_protocol::protocol::Encodable;

#[test]
fn assignments_decode_from_the_consumer_protocol() {
    let assignment = ConsumerProtocolAssignment::default().with_assigned_partitions(vec![
        TopicPartition::default()
            .with_topic(TopicName(StrBytes::from_static_str("b")))
            .with_partitions(vec![2, 0]),
        TopicPartition::default()
            .with_topic(TopicName(StrBytes::from_static_str("a")))
            .with_partitions(vec![1]),
    ]);
    for version in 0..=3i16 {
        let mut bytes = bytes::BytesMut::new();
        bytes.extend_from_slice(&version.to_be_bytes());
        assignment.encode(&mut bytes, version).expect("encodes");
        assert_eq!(
            decode_assignment(bytes.freeze()),
            vec![("a".into(), 1), ("b".into(), 0), ("b".into(), 2)],
            "version {version}"
        );
    }
    assert!(decode_assignment(Bytes::from_static(&[0])).is_empty());
    assert!(decode_assignment(Bytes::from_static(&[0, 1, 0xff, 0xff, 0xff])).is_empty());
    // A topic name cut short, and one that is not UTF-8.
    assert!(decode_assignment(Bytes::from_static(&[0, 0, 0, 0, 0, 1, 0, 5, b'a'])).is_empty());
    assert!(decode_assignment(Bytes::from_static(&[0, 0, 0, 0, 0, 1, 0, 1, 0xff, 0, 0, 0, 0]))
        .is_empty());
}

/// Regression (hardening issue): six bytes that claim 2^31 − 1 topics, or a topic with
/// 2^31 − 1 partitions, made klens reserve tens of gigabytes and abort, on every groups
/// refresh while the group existed. Every count is now held against the bytes that remain.
#[test]
fn a_hostile_assignment_reserves_nothing() {
    let huge: &[u8] = &[0, 0, 0x7f, 0xff, 0xff, 0xff];
    assert!(decode_assignment(Bytes::copy_from_slice(huge)).is_empty());
    let huge_partitions: &[u8] =
        &[0, 0, 0, 0, 0, 1, 0, 1, b't', 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1];
    assert!(decode_assignment(Bytes::copy_from_slice(huge_partitions)).is_empty());
}

/// Arbitrary bytes as an assignment: no panic, no allocation beyond the input, and never
/// more partitions than four bytes each.
#[test]
fn fuzz_group_assignments() {
    let mut inputs = crate::fuzz::Inputs::new(0x5eed_0001, 96);
    for _ in 0..crate::fuzz::cases(20_000) {
        let bytes = inputs.bytes();
        let len = bytes.len();
        let got = decode_assignment(Bytes::from(bytes));
        assert!(got.len() <= len / 4);
    }
}

/// Sending a change takes the grant for its privilege on its resource, checked before the
/// connection is touched.
#[tokio::test]
async fn a_write_request_needs_the_grant_for_what_it_changes() {
    use app::access::{Action, Resource};
    use app::Privilege;
    use kafka_protocol::messages::OffsetDeleteRequest;

    let config = crate::config::parse(
        "clusters:\n  - name: c\n    bootstrap_servers: 127.0.0.1:1\n    writable: true\n",
        "test.yaml",
        &|_| None,
        std::path::Path::new("."),
    )
    .expect("valid");
    let policy = crate::auth::Policy::from_config(&config);
    let anyone = crate::auth::Subject::Anonymous;
    let slot: Slot = Arc::new(AsyncMutex::new(None));
    let mut lease = Lease { label: "test".into(), guard: slot.lock_owned().await };
    let request =
        OffsetDeleteRequest::default().with_group_id(GroupId(StrBytes::from_static_str("g")));
    let group = |g: &str| Resource::group(g.to_string());
    let refused = [
        Action::catalog(),
        Action::new(Privilege::DeleteOffsets, group("other")),
        Action::new(Privilege::DeleteGroups, group("g")),
    ];
    for action in refused {
        let grant = policy.decide(&anyone, "c", action).expect("allowed");
        let e = lease.write(&grant, &request, 0).await.expect_err("the wrong grant");
        assert!(e.to_string().contains("DELETE_OFFSETS"), "{e}");
    }
    let mut grant = policy
        .decide(&anyone, "c", Action::new(Privilege::DeleteOffsets, group("g")))
        .expect("allowed");
    grant.open();
    let e = lease.write(&grant, &request, 0).await.expect_err("there is no connection");
    assert!(matches!(e.root(), WireError::Connection(_)), "{e}");
    assert_eq!(e.to_string(), "test: the connection was closed");
}

#[test]
fn error_codes_read_as_kafka_names() {
    assert_eq!(describe_code(31), "ClusterAuthorizationFailed");
    assert_eq!(describe_code(0), "no error");
}

/// An old broker's refusal is a client error whose message is the error's own text, and its
/// kind survives the broker label for callers that match on it.
#[test]
fn an_unsupported_api_is_a_client_error_in_its_own_words() {
    let missing = WireError::Unsupported { api: 50, broker: None, klens: (0, 0) };
    assert_eq!(missing.to_string(), "the broker does not support API 50");
    let e = app::ApiError::from(missing.clone());
    assert_eq!(e.code, app::ErrorCode::Client);
    assert_eq!(e.code.as_str(), "CLIENT");
    assert_eq!(e.message, "the broker does not support API 50");

    let too_old = WireError::at(
        "broker 1 (a:9092)",
        WireError::Unsupported { api: 15, broker: Some((0, 4)), klens: (5, 6) },
    );
    assert!(matches!(too_old.root(), WireError::Unsupported { api: 15, .. }));
    assert_eq!(
        app::ApiError::from(too_old).message,
        "broker 1 (a:9092): the broker's versions 0..4 of API 15 are not ones klens speaks"
    );
}
