//! Producing through `/api/produce` against the real Kafka: every byte read back by a consumer
//! of the test's own, and keys placed where Java-partitioned and librdkafka-partitioned
//! producers of the test's own put them.

use std::time::Duration;

use axum::http::StatusCode;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Offset, TopicPartitionList};

use crate::support::*;

fn clusters() -> String {
    format!(
        "clusters:\n{}    writable: true\n{}  - name: weak\n    bootstrap_servers: {SCRAM_PORT}\n    writable: true\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: reporting\n      password: reporting-secret\n",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("ro", "klens-secret"),
    )
}

/// One record as a consumer of the test's own reads it: key, value and headers, as bytes.
type Read = (Option<Vec<u8>>, Option<Vec<u8>>, Vec<(String, Option<Vec<u8>>)>);

fn read_at(topic: &str, partition: i32, offset: i64) -> Read {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("group.id", "it-produce-reader")
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
    let mut list = TopicPartitionList::new();
    list.add_partition_offset(topic, partition, Offset::Offset(offset)).expect("partition");
    consumer.assign(&list).expect("assign");
    for _ in 0..50 {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            let headers = m
                .headers()
                .map(|h| {
                    h.iter().map(|h| (h.key.to_string(), h.value.map(<[u8]>::to_vec))).collect()
                })
                .unwrap_or_default();
            return (m.key().map(<[u8]>::to_vec), m.payload().map(<[u8]>::to_vec), headers);
        }
    }
    panic!("no record at {topic}/{partition}/{offset}");
}

/// Where a librdkafka producer of the test's own with `partitioner` puts `key`.
async fn placed_by(partitioner: &str, topic: &str, key: &str) -> i32 {
    let producer: FutureProducer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("partitioner", partitioner)
        .create()
        .expect("producer");
    let delivery = producer
        .send(
            FutureRecord::<str, str>::to(topic).key(key).payload("oracle"),
            Duration::from_secs(10),
        )
        .await
        .unwrap_or_else(|(e, _)| panic!("send: {e}"));
    delivery.partition
}

fn code(status: StatusCode, body: &serde_json::Value) -> (u16, String) {
    (status.as_u16(), body["code"].as_str().unwrap_or("(none)").to_string())
}

#[tokio::test]
async fn a_produced_record_is_read_back_byte_for_byte() {
    let topic = unique("it-produce");
    create_topic(&topic, 3).await;
    let router = router(&clusters()).await;

    let (status, body) = post(
        &router,
        "/api/produce",
        serde_json::json!({
            "cluster": "rw", "topic": topic, "partition": 1,
            "key": { "encoding": "base64", "data": "/wBrZXk=" },
            "value": { "encoding": "json", "data": { "id": 7, "name": "séance", "tags": ["a"] } },
            "headers": [
                { "key": "trace", "value": { "encoding": "text", "data": "t-1" } },
                { "key": "trace", "value": { "encoding": "text", "data": "t-2" } },
                { "key": "empty" },
                { "key": "bin", "value": { "encoding": "base64", "data": "AAEC" } }
            ]
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["partition"], 1);
    let offset = body["offset"].as_i64().expect("an offset");
    assert!(body["timestamp"].as_i64().is_some_and(|t| t > 0));
    let (key, value, headers) = read_at(&topic, 1, offset);
    assert_eq!(key.as_deref(), Some(&b"\xff\x00key"[..]));
    assert_eq!(value.as_deref(), Some(r#"{"id":7,"name":"séance","tags":["a"]}"#.as_bytes()));
    assert_eq!(
        headers,
        [
            ("trace".to_string(), Some(b"t-1".to_vec())),
            ("trace".to_string(), Some(b"t-2".to_vec())),
            ("empty".to_string(), None),
            ("bin".to_string(), Some(vec![0, 1, 2])),
        ]
    );

    // A tombstone: a key and no value.
    let (status, body) = post(
        &router,
        "/api/produce",
        serde_json::json!({
            "cluster": "rw", "topic": topic, "partition": 0,
            "key": { "encoding": "text", "data": "gone" },
            "value": { "encoding": "null" }
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (key, value, _) = read_at(&topic, 0, body["offset"].as_i64().expect("offset"));
    assert_eq!((key.as_deref(), value), (Some(&b"gone"[..]), None));

    // The contract's refusals, and nothing written.
    let value = serde_json::json!({ "encoding": "text", "data": "x" });
    for (body, want) in [
        (
            serde_json::json!({ "cluster": "ro", "topic": topic, "value": value }),
            (403, "READ_ONLY_CLUSTER"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "topic": "__consumer_offsets", "value": value }),
            (403, "INTERNAL_TOPIC"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "topic": topic, "partition": 9, "value": value }),
            (404, "NOT_FOUND"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "topic": unique("it-none"), "value": value }),
            (404, "NOT_FOUND"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "topic": topic, "value": { "encoding": "base64", "data": "@@" } }),
            (400, "BAD_REQUEST"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "topic": topic, "value": { "encoding": "text", "data": 5 } }),
            (400, "BAD_REQUEST"),
        ),
    ] {
        let (status, answer) = post(&router, "/api/produce", body.clone()).await;
        assert_eq!(code(status, &answer), (want.0, want.1.to_string()), "{body}: {answer}");
    }
    let counts: Vec<_> = kafka_topics().into_iter().filter(|(t, _)| *t == topic).collect();
    assert_eq!(counts.len(), 1);
}

#[tokio::test]
async fn keys_land_where_java_and_librdkafka_producers_put_them() {
    let topic = unique("it-produce-keys");
    create_topic(&topic, 6).await;
    let router = router(&clusters()).await;
    for key in ["order-1", "order-2", "customer-42", "ü-key", "a", "zzzzzzzzzzzzzzzzzzzz"] {
        let java = placed_by("murmur2_random", &topic, key).await;
        let librdkafka = placed_by("consistent_random", &topic, key).await;
        let payload = serde_json::json!({
            "cluster": "rw", "topic": topic,
            "key": { "encoding": "text", "data": key },
            "value": { "encoding": "text", "data": "from klens" }
        });
        let mut dry = payload.clone();
        dry["dry_run"] = true.into();
        let (status, preview) = post(&router, "/api/produce", dry).await;
        assert_eq!(status, StatusCode::OK, "{preview}");
        assert_eq!(preview["offset"], serde_json::Value::Null, "a dry run writes nothing");
        assert_eq!(preview["partition"], java, "{key}: {preview}");
        assert_eq!(preview["key_partitions"]["murmur2"], java, "{key}");
        assert_eq!(preview["key_partitions"]["consistent"], librdkafka, "{key}");
        let (status, written) = post(&router, "/api/produce", payload).await;
        assert_eq!(status, StatusCode::OK, "{written}");
        assert_eq!(written["partition"], java, "{key}: {written}");
        assert_eq!(written["partitioner"], "murmur2_random");
    }
}

#[tokio::test]
async fn klens_own_kafka_user_without_write_is_refused() {
    let topic = unique("click-it-produce");
    create_topic(&topic, 1).await;
    let router = router(&clusters()).await;
    let (status, body) = post(
        &router,
        "/api/produce",
        serde_json::json!({ "cluster": "weak", "topic": topic, "value": { "encoding": "text", "data": "x" } }),
    )
    .await;
    assert_eq!(code(status, &body), (403, "REFUSED".into()), "{body}");
}

#[tokio::test]
async fn find_by_key_reads_only_the_keys_partitions() {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
    let topic = unique("it-find-key");
    create_topic(&topic, 6).await;
    // Noise in every partition, then three versions of one key from a Java-partitioned
    // producer, and one of another key from a librdkafka-partitioned one.
    let noise: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    for p in 0..6 {
        for i in 0..50 {
            noise
                .send(BaseRecord::to(&topic).partition(p).key(&format!("noise-{i}")).payload("n"))
                .unwrap_or_else(|(e, _)| panic!("send: {e}"));
        }
    }
    noise.flush(Duration::from_secs(10)).expect("flush");
    let mut java_partition = -1;
    for version in ["v1", "v2", "v3"] {
        let producer: FutureProducer = ClientConfig::new()
            .set("bootstrap.servers", OPEN_PORT)
            .set("partitioner", "murmur2_random")
            .create()
            .expect("producer");
        java_partition = producer
            .send(
                FutureRecord::<str, str>::to(&topic).key("customer-7").payload(version),
                Duration::from_secs(10),
            )
            .await
            .unwrap_or_else(|(e, _)| panic!("send: {e}"))
            .partition;
    }
    let crc_partition = placed_by("consistent_random", &topic, "legacy-9").await;
    let router = router(&clusters()).await;

    let page = |query: String| {
        let router = router.clone();
        let path = format!("/api/records?cluster=rw&topic={topic}&{query}");
        async move {
            let (status, body) = get_raw(&router, &path).await;
            assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
            serde_json::from_slice::<serde_json::Value>(&body).expect("JSON")
        }
    };
    let found = page("key=customer-7".into()).await;
    let values: Vec<&str> = found["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["value"]["data"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(values, ["v1", "v2", "v3"], "{found}");
    assert!(found["records"]
        .as_array()
        .expect("records")
        .iter()
        .all(|r| r["key"]["data"] == "customer-7" && r["partition"] == java_partition));
    let searched = found["key_partitions"].as_array().expect("the partitions read");
    assert!(searched.iter().any(|p| *p == java_partition), "{found}");
    assert!(searched.len() <= 2);
    // At most two partitions of 50 + a few records were read, not the topic's 300 and more.
    assert!(found["scanned"].as_u64().is_some_and(|n| n <= 2 * 54), "{found}");

    let latest = page("key=customer-7&limit=1".into()).await;
    assert_eq!(latest["records"].as_array().map(Vec::len), Some(1));
    assert_eq!(latest["records"][0]["value"]["data"], "v3");

    // A key written by a librdkafka-partitioned client is found too.
    let legacy = page("key=legacy-9".into()).await;
    assert_eq!(legacy["records"][0]["partition"], crc_partition, "{legacy}");
    let only_java = page("key=legacy-9&partitioner=murmur2_random".into()).await;
    let java_for_legacy = only_java["key_partitions"][0].as_i64();
    if java_for_legacy != Some(i64::from(crc_partition)) {
        assert_eq!(only_java["records"].as_array().map(Vec::len), Some(0), "{only_java}");
    }
    let (status, _) = get_raw(
        &router,
        &format!("/api/records?cluster=rw&topic={topic}&key=x&partitioner=random"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// Decodes a Confluent-framed record with decoders of the test's own: fastavro for Avro (with
/// the schema the frame's id names, fetched from the registry's REST API), a raw wire reader
/// for Protobuf (field number → values), `json` for JSON Schema. Prints `[id, indexes, value]`.
const ORACLE: &str = r#"
import base64, io, json, struct, sys, urllib.request
import fastavro
kind, data = sys.argv[1], base64.b64decode(sys.argv[2])
assert data[0] == 0, "magic byte"
sid = struct.unpack(">i", data[1:5])[0]
rest = data[5:]
def varint(b, i):
    shift = value = 0
    while True:
        byte = b[i]; i += 1
        value |= (byte & 0x7f) << shift; shift += 7
        if byte < 0x80:
            return value, i
def raw(b):
    out, i = {}, 0
    while i < len(b):
        tag, i = varint(b, i)
        if tag & 7 == 0:
            v, i = varint(b, i)
        elif tag & 7 == 2:
            n, i = varint(b, i); v = b[i:i + n]; i += n
            try:
                v = raw(v) if v and v[0] in (0x0a, 0x12, 0x1a) and not v.decode().isprintable() else v.decode()
            except Exception:
                v = raw(v)
        else:
            raise ValueError("wire type %d" % (tag & 7))
        out.setdefault(str(tag >> 3), []).append(v)
    return out
indexes = None
if kind == "avro":
    url = "http://127.0.0.1:18081/apis/ccompat/v7/schemas/ids/%d" % sid
    schema = fastavro.parse_schema(json.loads(json.load(urllib.request.urlopen(url))["schema"]))
    value = fastavro.schemaless_reader(io.BytesIO(rest), schema)
elif kind == "protobuf":
    count, i = varint(rest, 0)
    indexes = []
    for _ in range(count // 2):
        n, i = varint(rest, i); indexes.append(n // 2)
    value = raw(rest[i:])
else:
    value = json.loads(rest)
print(json.dumps([sid, indexes, value]))
"#;

fn oracle(kind: &str, bytes: &[u8]) -> serde_json::Value {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    serde_json::from_str(&dev_python(ORACLE, &[kind, &encoded])).expect("oracle JSON")
}

#[tokio::test]
async fn json_encoded_through_each_schema_type_is_read_back_by_other_decoders() {
    let topic = unique("it-produce-schema");
    create_topic(&topic, 1).await;
    let avro = serde_json::json!({"type": "record", "name": "Pay", "namespace": "it", "fields": [
        {"name": "id", "type": "string"},
        {"name": "cents", "type": "long"},
        {"name": "note", "type": ["null", "string"], "default": null}]});
    let avro_id = registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-value/versions"),
        serde_json::json!({"schema": avro.to_string()}),
    )
    .await["id"]
        .as_u64()
        .expect("id");
    let proto = "syntax = \"proto3\";\npackage it;\nmessage A { string x = 1; }\nmessage User { string id = 1; int32 age = 4; repeated string roles = 5; }\n";
    let proto_subject = unique("it-proto");
    let proto_id = registry(
        reqwest::Method::POST,
        &format!("subjects/{proto_subject}/versions"),
        serde_json::json!({"schema": proto, "schemaType": "PROTOBUF"}),
    )
    .await["id"]
        .as_u64()
        .expect("id");
    let json_subject = unique("it-json");
    let json_id = registry(
        reqwest::Method::POST,
        &format!("subjects/{json_subject}/versions"),
        serde_json::json!({"schemaType": "JSON", "schema": serde_json::json!({
            "type": "object", "properties": {"id": {"type": "string"}, "n": {"type": "integer", "minimum": 0}},
            "required": ["id"], "additionalProperties": false}).to_string()}),
    )
    .await["id"]
        .as_u64()
        .expect("id");
    let yaml = format!(
        "clusters:\n{}    writable: true\n    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n{}    writable: true\n",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("bare", "klens-secret"),
    );
    let router = router(&yaml).await;
    let produce = |value: serde_json::Value, dry_run: bool| {
        let body = serde_json::json!({"cluster": "rw", "topic": topic, "partition": 0,
            "value": value, "dry_run": dry_run});
        let router = router.clone();
        async move { post(&router, "/api/produce", body).await }
    };

    // Avro, by the default subject: the dry run names the schema, then fastavro reads it back.
    let value = serde_json::json!({"encoding": "avro", "data": {"id": "p-1", "cents": 250}});
    let (status, dry) = produce(value.clone(), true).await;
    assert_eq!(status, StatusCode::OK, "{dry}");
    assert_eq!(dry["value_schema"]["id"].as_u64(), Some(avro_id));
    assert_eq!(dry["value_schema"]["subject"].as_str(), Some(&*format!("{topic}-value")));
    assert_eq!(dry["value_schema"]["type"], "AVRO");
    assert_eq!(kafka_end_offset(&topic), 0, "a dry run writes nothing");
    let (status, body) = produce(value, false).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, bytes, _) = read_at(&topic, 0, body["offset"].as_i64().expect("offset"));
    let bytes = bytes.expect("a value");
    assert_eq!(dry["value_bytes"].as_u64(), Some(bytes.len() as u64));
    assert_eq!(
        oracle("avro", &bytes),
        serde_json::json!([avro_id, null, {"id": "p-1", "cents": 250, "note": null}])
    );

    // Protobuf, by subject and message: the frame's indexes say the second message.
    let (status, body) = produce(
        serde_json::json!({"encoding": "protobuf", "subject": proto_subject, "version": 1,
            "message": "it.User", "data": {"id": "u-1", "age": 41, "roles": ["a", "b"]}}),
        false,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, bytes, _) = read_at(&topic, 0, body["offset"].as_i64().expect("offset"));
    assert_eq!(
        oracle("protobuf", &bytes.expect("a value")),
        serde_json::json!([proto_id, [1], {"1": ["u-1"], "4": [41], "5": ["a", "b"]}])
    );

    // JSON Schema, by id.
    let (status, body) = produce(
        serde_json::json!({"encoding": "json_schema", "schema_id": json_id, "data": {"id": "s-1", "n": 3}}),
        false,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, bytes, _) = read_at(&topic, 0, body["offset"].as_i64().expect("offset"));
    assert_eq!(
        oracle("json_schema", &bytes.expect("a value")),
        serde_json::json!([json_id, null, {"id": "s-1", "n": 3}])
    );

    // Refusals, each before anything is sent: the first bad field by its path, the schema type
    // that does not match, a subject or version the registry lacks, a cluster with no registry.
    let before = kafka_end_offset(&topic);
    for (value, want, field) in [
        (
            serde_json::json!({"encoding": "avro", "data": {"id": "p", "cents": "many"}}),
            (400, "BAD_REQUEST"),
            Some("value.data/cents"),
        ),
        (
            serde_json::json!({"encoding": "protobuf", "subject": proto_subject, "message": "it.User", "data": {"roles": ["ok", 1]}}),
            (400, "BAD_REQUEST"),
            Some("value.data/roles/1"),
        ),
        (
            serde_json::json!({"encoding": "json_schema", "schema_id": json_id, "data": {"id": "s", "n": -1}}),
            (400, "BAD_REQUEST"),
            Some("value.data/n"),
        ),
        (
            serde_json::json!({"encoding": "protobuf", "data": {}}),
            (400, "BAD_REQUEST"),
            Some("value"),
        ),
        (
            serde_json::json!({"encoding": "avro", "subject": unique("it-none"), "data": {}}),
            (404, "NOT_FOUND"),
            None,
        ),
        (
            serde_json::json!({"encoding": "avro", "version": 9, "data": {}}),
            (404, "NOT_FOUND"),
            None,
        ),
    ] {
        let (status, answer) = produce(value.clone(), false).await;
        assert_eq!(code(status, &answer), (want.0, want.1.to_string()), "{value}: {answer}");
        assert_eq!(answer["field"].as_str(), field, "{value}: {answer}");
    }
    let bare = serde_json::json!({"cluster": "bare", "topic": topic,
        "value": {"encoding": "avro", "data": {}}});
    let (status, answer) = post(&router, "/api/produce", bare).await;
    assert_eq!(code(status, &answer), (404, "NOT_CONFIGURED".to_string()), "{answer}");
    assert_eq!(kafka_end_offset(&topic), before, "no refused record was written");
}

/// The high watermark of partition 0 of `topic`, read by a client of the test's own.
fn kafka_end_offset(topic: &str) -> i64 {
    watermarks(topic, 1)[0].1
}

/// Encoding through the registry reads a subject's schema: a caller without SCHEMA_TEXT on it
/// (or whose scoped catalog hides it) gets exactly the answer of a subject or schema id the
/// registry does not have, by subject, by version and by id, and nothing reaches Kafka; with
/// SCHEMA_TEXT the same record is encoded.
#[tokio::test]
async fn encoding_through_a_subject_needs_schema_text_on_it() {
    let topic = unique("it-produce-text");
    create_topic(&topic, 1).await;
    let subject = format!("{topic}-value");
    let other = format!("{topic}-other");
    let name = topic.replace('-', "_");
    let schema = serde_json::json!({"type": "record", "name": name, "namespace": "it",
        "fields": [{"name": "a", "type": "int"}]})
    .to_string();
    let mut ids = Vec::new();
    for held in [&subject, &other] {
        let id = registry(
            reqwest::Method::POST,
            &format!("subjects/{held}/versions"),
            serde_json::json!({ "schema": schema }),
        )
        .await["id"]
            .as_u64()
            .expect("id") as u32;
        ids.push(id);
    }
    let id = ids[0];
    let produce = |service: std::sync::Arc<server::service::Service>, value: serde_json::Value| {
        let topic = topic.clone();
        async move {
            let args = serde_json::from_value(serde_json::json!({"cluster": "local",
                "topic": topic, "value": value}))
            .expect("arguments");
            server::service::produce::produce(&service, &server::auth::Caller::Mcp(None), args)
                .await
        }
    };
    let avro = |extra: serde_json::Value| {
        let mut value = serde_json::json!({"encoding": "avro", "data": {"a": 1}});
        value
            .as_object_mut()
            .expect("an object")
            .extend(extra.as_object().cloned().unwrap_or_default());
        value
    };
    let missing = format!("{topic}-missing");
    // (what is asked, the same asked of what the registry lacks), as the value's extra fields.
    let pairs = [
        (serde_json::json!({}), serde_json::json!({"subject": missing})),
        (
            serde_json::json!({"subject": subject, "version": 1}),
            serde_json::json!({"subject": missing, "version": 1}),
        ),
        (serde_json::json!({"schema_id": id}), serde_json::json!({"schema_id": 999_999_999})),
    ];
    let without = ceiling_service(&registry_ceiling_yaml("produce", "")).await;
    let hidden = ceiling_service(
        &registry_ceiling_yaml(
            "produce, schema_text",
            &format!("  resources:\n    topics: [\"{topic}\"]\n"),
        )
        .replace("    writable: true\n", "    writable: true\n    catalog: scoped\n"),
    )
    .await;
    for (service, cases) in [
        (&without, pairs.to_vec()),
        // The topic's own subject is covered; another subject is not, and by id only the
        // covered one holds it.
        (
            &hidden,
            vec![(serde_json::json!({"subject": other}), serde_json::json!({"subject": missing}))],
        ),
    ] {
        for (asked, unknown) in cases {
            let refused = produce(std::sync::Arc::clone(service), avro(asked.clone()))
                .await
                .expect_err("refused");
            let lacking = produce(std::sync::Arc::clone(service), avro(unknown.clone()))
                .await
                .expect_err("not found");
            let same = |e: &app::ApiError| {
                (
                    e.code,
                    e.message
                        .replace(&subject, "S")
                        .replace(&other, "S")
                        .replace(&missing, "S")
                        .replace("999999999", "N")
                        .replace(&id.to_string(), "N"),
                    e.field.clone(),
                    e.privilege,
                )
            };
            assert_eq!(same(&refused), same(&lacking), "{asked} and {unknown}");
            assert_eq!(refused.code.as_str(), "NOT_FOUND", "{}", refused.message);
        }
    }
    assert_eq!(watermarks(&topic, 1), vec![(0, 0)], "nothing was written");

    let allowed = ceiling_service(&registry_ceiling_yaml("produce, schema_text", "")).await;
    for asked in [serde_json::json!({}), serde_json::json!({"schema_id": id})] {
        let done = produce(std::sync::Arc::clone(&allowed), avro(asked)).await.expect("produced");
        assert_eq!(done.value_schema.map(|s| s.id), Some(id));
    }
    assert_eq!(watermarks(&topic, 1), vec![(0, 2)]);
}
