use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::StatusCode;
use rdkafka::ClientConfig;

use crate::support::*;

/// The exact bytes an encoded key, value or header value stands for.
fn bytes_of(encoded: &serde_json::Value) -> Option<Vec<u8>> {
    use base64::Engine;
    let b64 = |s: &serde_json::Value| {
        base64::engine::general_purpose::STANDARD
            .decode(s.as_str().expect("base64 text"))
            .expect("valid base64")
    };
    if let Some(raw) = encoded.get("raw") {
        return Some(b64(raw));
    }
    match encoded["encoding"].as_str().expect("encoding") {
        "null" => None,
        "base64" => Some(b64(&encoded["data"])),
        "text" => Some(encoded["data"].as_str().expect("text").as_bytes().to_vec()),
        "json" => Some(serde_json::to_vec(&encoded["data"]).expect("json")),
        other => panic!("{other} without raw bytes: {encoded}"),
    }
}

/// One record as produced: partition, key, value, headers, timestamp.
type Produced = (i32, Option<Vec<u8>>, Option<Vec<u8>>, Vec<(String, Option<Vec<u8>>)>, i64);

/// Checks one record of klens's answer against what was produced.
fn assert_same(got: &serde_json::Value, want: &Produced, what: &str) {
    let (partition, key, value, headers, timestamp) = want;
    assert_eq!(got["partition"], *partition, "{what}: {got}");
    assert_eq!(got["timestamp"], *timestamp, "{what}: {got}");
    assert_eq!(got["timestamp_type"], "create_time", "{what}");
    assert_eq!(bytes_of(&got["key"]), *key, "{what}: key of {got}");
    assert_eq!(bytes_of(&got["value"]), *value, "{what}: value of {got}");
    let got_headers: Vec<(String, Option<Vec<u8>>)> = got["headers"]
        .as_array()
        .expect("headers")
        .iter()
        .map(|h| (h["key"].as_str().expect("key").to_string(), bytes_of(&h["value"])))
        .collect();
    assert_eq!(&got_headers, headers, "{what}: headers of {got}");
}

#[tokio::test]
async fn records_record_and_export_give_back_every_byte() {
    use rdkafka::message::{Header, OwnedHeaders};
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

    let topic = unique("it-fidelity");
    create_topic(&topic, 3).await;
    // An Avro schema registered for the topic's values, and one value framed with its id.
    let registered = registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-value/versions"),
        serde_json::json!({"schema": r#"{"type":"record","name":"F","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"}]}"#}),
    )
    .await;
    let schema_id = registered["id"].as_u64().expect("schema id") as u32;
    // id = 42 (zig-zag 84), name = "x" (length 1 → 2).
    let mut framed = vec![0u8];
    framed.extend_from_slice(&schema_id.to_be_bytes());
    framed.extend_from_slice(&[84, 2, b'x']);
    // A Protobuf schema and a JSON Schema under subjects of their own (the frame names the
    // schema by id, whatever the subject).
    let proto_id = registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-proto/versions"),
        serde_json::json!({
            "schemaType": "PROTOBUF",
            "schema": "syntax = \"proto3\";\nmessage P {\n  int32 id = 1;\n  string name = 2;\n}\n",
        }),
    )
    .await["id"]
        .as_u64()
        .expect("Protobuf schema id") as u32;
    let json_id = registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-json/versions"),
        serde_json::json!({
            "schemaType": "JSON",
            "schema": r#"{"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array"}}}"#,
        }),
    )
    .await["id"]
        .as_u64()
        .expect("JSON Schema id") as u32;
    // Magic byte, id, message index [0] as the single byte 0, then P{id: 7, name: "p"} written
    // out by hand: field 1 varint 7, field 2 length 1 "p".
    let mut proto = vec![0u8];
    proto.extend_from_slice(&proto_id.to_be_bytes());
    proto.extend_from_slice(&[0, 0x08, 7, 0x12, 1, b'p']);
    let mut json_framed = vec![0u8];
    json_framed.extend_from_slice(&json_id.to_be_bytes());
    json_framed.extend_from_slice(br#"{"n": 5, "tags": ["a", "b"]}"#);

    // Explicit timestamps, recent enough that retention leaves them alone.
    let t0 =
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
            - 60_000;
    let binary: Vec<u8> = (0..=255u8).rev().collect();
    let produced: Vec<Produced> = vec![
        (
            0,
            Some(b"k1".to_vec()),
            Some(b"plain text".to_vec()),
            vec![
                ("h".into(), Some(b"1".to_vec())),
                ("h".into(), Some(b"2".to_vec())),
                ("nothing".into(), None),
            ],
            t0,
        ),
        (0, None, None, Vec::new(), t0 + 1),
        (1, Some(Vec::new()), Some(Vec::new()), Vec::new(), t0 + 2),
        (
            1,
            Some(vec![0xff, 0x00, 0xfe]),
            Some(binary),
            vec![("bin".into(), Some(vec![0xc3, 0x28]))],
            t0 + 3,
        ),
        (
            2,
            Some(b"json".to_vec()),
            Some(br#"{"a": 1,  "b": [true]}"#.to_vec()),
            Vec::new(),
            t0 + 4,
        ),
        (2, Some(b"avro".to_vec()), Some(framed), Vec::new(), t0 + 5),
        (0, Some(b"proto".to_vec()), Some(proto), Vec::new(), t0 + 6),
        (1, Some(b"json".to_vec()), Some(json_framed), Vec::new(), t0 + 7),
    ];
    let producer: BaseProducer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("producer");
    for (partition, key, value, headers, timestamp) in &produced {
        let mut h = OwnedHeaders::new();
        for (k, v) in headers {
            h = h.insert(Header { key: k.as_str(), value: v.as_deref() });
        }
        let mut record = BaseRecord::<[u8], [u8]>::to(&topic)
            .partition(*partition)
            .timestamp(*timestamp)
            .headers(h);
        if let Some(k) = key {
            record = record.key(k.as_slice());
        }
        if let Some(v) = value {
            record = record.payload(v.as_slice());
        }
        producer.send(record).unwrap_or_else(|(e, _)| panic!("send: {e}"));
        producer.flush(Duration::from_secs(10)).expect("flush");
    }

    let router = router(&format!(
        "clusters:\n{}    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n",
        scram_cluster("local", "klens-secret")
    ))
    .await;

    // A page of every record, oldest first across partitions.
    let (status, body) = get_raw(
        &router,
        &format!("/api/records?cluster=local&topic={topic}&from=earliest&limit=500"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let page: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    let records = page["records"].as_array().expect("records");
    assert_eq!(records.len(), produced.len(), "{page}");
    for (got, want) in records.iter().zip(&produced) {
        assert_same(got, want, "records");
    }
    assert_eq!(page["next"], serde_json::Value::Null, "all read");
    let avro = &records[5]["value"];
    assert_eq!(avro["encoding"], "avro");
    assert_eq!(avro["schema_id"], schema_id);
    assert_eq!(avro["data"], serde_json::json!({"id": 42, "name": "x"}));
    let proto = &records[6]["value"];
    assert_eq!(proto["encoding"], "protobuf", "{proto}");
    assert_eq!(proto["schema_id"], proto_id);
    assert_eq!(proto["data"], serde_json::json!({"id": 7, "name": "p"}));
    let json = &records[7]["value"];
    assert_eq!(json["encoding"], "json_schema", "{json}");
    assert_eq!(json["schema_id"], json_id);
    assert_eq!(json["data"], serde_json::json!({"n": 5, "tags": ["a", "b"]}));
    assert_eq!(records[1]["key"]["encoding"], "null");
    assert_eq!(records[1]["value"]["encoding"], "null");
    assert_eq!(records[3]["value"]["encoding"], "base64");

    // Each record alone.
    for (got, want) in records.iter().zip(&produced) {
        let path = format!(
            "/api/record?cluster=local&topic={topic}&partition={}&offset={}",
            got["partition"], got["offset"]
        );
        let (status, body) = get_raw(&router, &path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        let one: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_same(&one, want, "record");
    }

    // The export: one line per record, each partition in offset order.
    let (status, body) =
        get_raw(&router, &format!("/api/export?cluster=local&topic={topic}")).await;
    assert_eq!(status, StatusCode::OK);
    let mut lines: Vec<serde_json::Value> = body
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("NDJSON line"))
        .collect();
    lines.sort_by_key(|l| l["timestamp"].as_i64());
    assert_eq!(lines.len(), produced.len());
    for (got, want) in lines.iter_mut().zip(&produced) {
        // The export leaves out the bytes of an Avro value that its data and schema give
        // back: F's id (a long, zig-zag) and name (a length, then UTF-8), after the frame.
        // So does it with a Protobuf value: P's id (field 1, a varint) and name (field 2, a
        // length and UTF-8), after the frame and the message index [0].
        let value = &mut got["value"];
        let (id, name) = (value["data"]["id"].as_i64(), value["data"]["name"].as_str());
        let again = match value["encoding"].as_str() {
            Some("avro") => {
                let (id, name) = (id.expect("id"), name.expect("name"));
                let mut again = vec![0u8];
                again.extend_from_slice(&schema_id.to_be_bytes());
                again.push(u8::try_from(id << 1).expect("a small id"));
                again.push(u8::try_from(name.len() << 1).expect("a short name"));
                again.extend_from_slice(name.as_bytes());
                Some(again)
            }
            Some("protobuf") => {
                let (id, name) = (id.expect("id"), name.expect("name"));
                let mut again = vec![0u8];
                again.extend_from_slice(&proto_id.to_be_bytes());
                again.extend_from_slice(&[0, 0x08, u8::try_from(id).expect("a small id")]);
                again.extend_from_slice(&[0x12, u8::try_from(name.len()).expect("short")]);
                again.extend_from_slice(name.as_bytes());
                Some(again)
            }
            _ => None,
        };
        if let Some(again) = again {
            assert!(value.get("raw").is_none(), "{value}");
            value["raw"] =
                base64::Engine::encode(&base64::engine::general_purpose::STANDARD, again).into();
        }
        assert_same(got, want, "export");
    }

    // From a timestamp: the first records at or after it, per partition.
    let (_, body) =
        get_raw(&router, &format!("/api/records?cluster=local&topic={topic}&timestamp={}", t0 + 3))
            .await;
    let page: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    let stamps: Vec<i64> = page["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["timestamp"].as_i64())
        .collect();
    assert_eq!(stamps, [t0 + 3, t0 + 4, t0 + 5, t0 + 6, t0 + 7]);

    // A filter, and a refused missing record.
    let (_, body) = get_raw(
        &router,
        &format!("/api/records?cluster=local&topic={topic}&from=earliest&q=PLAIN"),
    )
    .await;
    let page: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(page["records"].as_array().map(Vec::len), Some(1), "{page}");
    let (status, _) =
        get_raw(&router, &format!("/api/record?cluster=local&topic={topic}&partition=0&offset=99"))
            .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// A record stream holds its place among the open streams for as long as it runs, and gives
/// it back when its client leaves (the limits themselves are unit-tested in
/// `service::limits`).
#[tokio::test]
async fn a_stream_holds_its_place_until_its_client_leaves() {
    let topic = unique("it-streams");
    create_topic(&topic, 1).await;
    let config =
        config(&format!("clusters:\n  - name: local\n    bootstrap_servers: {OPEN_PORT}\n"));
    let catalog = std::sync::Arc::new(server::catalog::Catalog::new(&config));
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    let state = state_over(&config, catalog);
    let service = std::sync::Arc::clone(&state.service);
    let router = server::http::app(state);
    let tail = axum::http::Request::get(format!("/api/tail?cluster=local&topic={topic}"))
        .header("host", "127.0.0.1:8080")
        .body(axum::body::Body::empty())
        .expect("request");
    let response = tower::ServiceExt::oneshot(router, tail).await.expect("answers");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(service.streams.open(), 1);
    drop(response);
    let mut freed = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if service.streams.open() == 0 {
            freed = true;
            break;
        }
    }
    assert!(freed, "the place of a closed stream was not given back");
}

/// One signed-in caller runs at most 4 pages of records at once: the others answer 429
/// `TOO_MANY_REQUESTS` with `Retry-After` at once, instead of waiting; the places come back
/// when the pages end.
#[tokio::test]
async fn a_caller_runs_a_bounded_number_of_pages_at_once() {
    let topic = unique("it-busy-pages");
    create_topic(&topic, 1).await;
    // Enough records that a page looking for text none has scans for a while.
    produce(&topic, &[(0, 60_000)]);
    let yaml = format!(
        "clusters:\n{}{}",
        scram_cluster("rw", "klens-secret"),
        auth_block(
            "  roles:\n    reader: [records]\n  bindings:\n    - groups: [payments-team]\n      role: reader\n"
        ),
    );
    let router = router(&yaml).await;
    let erin = sign_in(&router, "erin").await;
    let path =
        format!("/api/records?cluster=rw&topic={topic}&from=earliest&limit=10&q=none-has-this");
    let pages = (0..8).map(|_| {
        let (router, erin, path) = (router.clone(), erin.clone(), path.clone());
        async move {
            let request = axum::http::Request::get(&path)
                .header("host", "127.0.0.1:8080")
                .header("cookie", &erin)
                .body(axum::body::Body::empty())
                .expect("request");
            let response =
                tower::ServiceExt::oneshot(router, request).await.expect("router answers");
            let retry = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let status = response.status();
            let body = http_body_util::BodyExt::collect(response.into_body())
                .await
                .expect("body")
                .to_bytes();
            let body: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
            (status, retry, body)
        }
    });
    let answers = futures::future::join_all(pages).await;
    let refused: Vec<_> =
        answers.iter().filter(|(status, _, _)| *status == StatusCode::TOO_MANY_REQUESTS).collect();
    let read = answers.iter().filter(|(status, _, _)| *status == StatusCode::OK).count();
    assert_eq!(
        (read, refused.len()),
        (4, 4),
        "{:?}",
        answers.iter().map(|(s, _, b)| (s, b.to_string())).collect::<Vec<_>>()
    );
    for (_, retry, body) in refused {
        assert_eq!(body["code"], "TOO_MANY_REQUESTS", "{body}");
        assert_eq!(retry.as_deref(), Some("5"));
    }
    // The places came back with the pages.
    let (status, body) = get_as(&router, &erin, &path).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
}

/// Values as producers write them, in lz4, zstd and gzip batches: JSON in serde_json's own
/// form (copied as it is by the export), JSON in other forms, Avro with nested records, maps
/// of several entries and unions, and Protobuf. The export gives back every byte, its lines
/// say what the pages say, and kcat (a separate librdkafka) reads the same payloads.
#[tokio::test]
async fn compressed_exports_give_back_every_byte_and_read_as_the_pages() {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

    let topic = unique("it-compressed");
    create_topic(&topic, 3).await;
    let avro_id = registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-value/versions"),
        serde_json::json!({"schema": r#"{"type":"record","name":"Order","namespace":"shop","fields":[
            {"name":"id","type":"long"},
            {"name":"customer","type":{"type":"record","name":"Customer","fields":[
                {"name":"name","type":"string"},{"name":"vip","type":"boolean"}]}},
            {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
                {"name":"sku","type":"string"},{"name":"price","type":"double"},
                {"name":"discount","type":["null","double"]}]}}},
            {"name":"state","type":{"type":"enum","name":"State","symbols":["NEW","PAID","SENT"]}},
            {"name":"attributes","type":{"type":"map","values":"string"}},
            {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}}]}"#}),
    )
    .await["id"]
        .as_u64()
        .expect("Avro schema id") as u32;
    let proto_id = registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-proto/versions"),
        serde_json::json!({
            "schemaType": "PROTOBUF",
            "schema": "syntax = \"proto3\";\nmessage Order {\n  int64 id = 1;\n  Customer customer = 2;\n  repeated string tags = 3;\n  double total = 4;\n}\nmessage Customer {\n  string name = 1;\n}\n",
        }),
    )
    .await["id"]
        .as_u64()
        .expect("Protobuf schema id") as u32;

    fn long(n: i64, out: &mut Vec<u8>) {
        let mut z = ((n << 1) ^ (n >> 63)) as u64;
        while z > 0x7f {
            out.push(0x80 | (z & 0x7f) as u8);
            z >>= 7;
        }
        out.push(z as u8);
    }
    fn string(s: &str, out: &mut Vec<u8>) {
        long(s.len() as i64, out);
        out.extend_from_slice(s.as_bytes());
    }
    let avro = |i: i64| {
        let mut out = vec![0u8];
        out.extend_from_slice(&avro_id.to_be_bytes());
        long(i, &mut out);
        string(&format!("Müller {i}"), &mut out);
        out.push((i % 2) as u8);
        long(2, &mut out);
        for line in 0..2 {
            string(&format!("sku-{line}"), &mut out);
            out.extend_from_slice(&(19.99 + line as f64).to_le_bytes());
            if line == 0 {
                long(0, &mut out);
            } else {
                long(1, &mut out);
                out.extend_from_slice(&0.5f64.to_le_bytes());
            }
        }
        out.push(0);
        long(i % 3, &mut out);
        long(4, &mut out);
        for (k, v) in [("zone", "eu"), ("a", "1"), ("channel", "web"), ("m", "São Paulo")] {
            string(k, &mut out);
            string(v, &mut out);
        }
        out.push(0);
        long(1_700_000_000_000 + i, &mut out);
        out
    };
    let proto = |i: u8| {
        let mut out = vec![0u8];
        out.extend_from_slice(&proto_id.to_be_bytes());
        out.push(0);
        out.extend_from_slice(&[0x08, i]);
        out.extend_from_slice(&[0x12, 5, 0x0a, 3, b'A', b'n', b'a']);
        out.extend_from_slice(&[0x1a, 1, b'x', 0x1a, 2, b'y', b'z']);
        out.push(0x21);
        out.extend_from_slice(&12.5f64.to_le_bytes());
        out
    };
    // The bytes of an Avro value from its data and the schema alone, as docs/api.md says a
    // client gives them back when the export leaves `raw` out: each field in order, the
    // union's branch by the kind of its JSON, arrays and maps in one block.
    let avro_again = |data: &serde_json::Value| {
        let mut out = vec![0u8];
        out.extend_from_slice(&avro_id.to_be_bytes());
        long(data["id"].as_i64().expect("id"), &mut out);
        string(data["customer"]["name"].as_str().expect("name"), &mut out);
        out.push(u8::from(data["customer"]["vip"].as_bool().expect("vip")));
        let lines = data["lines"].as_array().expect("lines");
        if !lines.is_empty() {
            long(lines.len() as i64, &mut out);
        }
        for line in lines {
            string(line["sku"].as_str().expect("sku"), &mut out);
            out.extend_from_slice(&line["price"].as_f64().expect("price").to_le_bytes());
            match line["discount"].as_f64() {
                None => long(0, &mut out),
                Some(d) => {
                    long(1, &mut out);
                    out.extend_from_slice(&d.to_le_bytes());
                }
            }
        }
        out.push(0);
        let state = ["NEW", "PAID", "SENT"].iter().position(|s| data["state"] == *s);
        long(state.expect("a symbol") as i64, &mut out);
        let attributes = data["attributes"].as_object().expect("attributes");
        if !attributes.is_empty() {
            long(attributes.len() as i64, &mut out);
        }
        for (k, v) in attributes {
            string(k, &mut out);
            string(v.as_str().expect("text"), &mut out);
        }
        out.push(0);
        long(data["at"].as_i64().expect("at"), &mut out);
        out
    };
    // And of a Protobuf value, as serialisers write Order: fields in number order, those at
    // zero left out, after the frame and the message index [0].
    let proto_again = |data: &serde_json::Value| {
        let mut out = vec![0u8];
        out.extend_from_slice(&proto_id.to_be_bytes());
        out.push(0);
        let id: u8 = data["id"].as_str().and_then(|id| id.parse().ok()).expect("id");
        if id != 0 {
            out.extend_from_slice(&[0x08, id]);
        }
        if let Some(name) = data["customer"]["name"].as_str() {
            out.extend_from_slice(&[0x12, name.len() as u8 + 2, 0x0a, name.len() as u8]);
            out.extend_from_slice(name.as_bytes());
        }
        for tag in data["tags"].as_array().into_iter().flatten() {
            let tag = tag.as_str().expect("a tag");
            out.extend_from_slice(&[0x1a, tag.len() as u8]);
            out.extend_from_slice(tag.as_bytes());
        }
        if let Some(total) = data["total"].as_f64() {
            out.push(0x21);
            out.extend_from_slice(&total.to_le_bytes());
        }
        out
    };
    let export_bytes = |encoded: &serde_json::Value| {
        if encoded.get("raw").is_none() {
            match encoded["encoding"].as_str() {
                Some("avro") => return Some(avro_again(&encoded["data"])),
                Some("protobuf") => return Some(proto_again(&encoded["data"])),
                _ => {}
            }
        }
        bytes_of(encoded)
    };
    let mut values: Vec<Vec<u8>> = Vec::new();
    for i in 0..40i64 {
        values.push(
            format!(r#"{{"id":{i},"name":"Zoë {i}","price":{}.99,"tags":["a","b"],"ok":true,"none":null,"nested":{{"x":[1,2,{{"y":{neg}}}]}}}}"#, i, neg = -(i + 1))
                .into_bytes(),
        );
        values.push(format!(r#"{{"id": {i}, "price": 1e2, "name": "\u00e9"}}"#).into_bytes());
        values.push(format!(r#"{{"id":{i},"id":{}}}"#, i + 1).into_bytes());
        values.push(avro(i));
        values.push(proto(i as u8));
        values.push(format!("plain text {i}").into_bytes());
    }
    for (partition, compression) in [(0, "lz4"), (1, "zstd"), (2, "gzip")] {
        let producer: BaseProducer = ClientConfig::new()
            .set("bootstrap.servers", OPEN_PORT)
            .set("compression.type", compression)
            .set("linger.ms", "50")
            .create()
            .expect("producer");
        for (i, value) in values.iter().enumerate() {
            let key = format!("k{i}");
            producer
                .send(
                    BaseRecord::<[u8], [u8]>::to(&topic)
                        .partition(partition)
                        .key(key.as_bytes())
                        .payload(value.as_slice()),
                )
                .unwrap_or_else(|(e, _)| panic!("send: {e}"));
        }
        producer.flush(Duration::from_secs(30)).expect("flush");
    }

    let router = router(&format!(
        "clusters:\n{}    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n",
        scram_cluster("local", "klens-secret")
    ))
    .await;
    let (status, body) =
        get_raw(&router, &format!("/api/export?cluster=local&topic={topic}")).await;
    assert_eq!(status, StatusCode::OK);
    let lines: Vec<serde_json::Value> = body
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("NDJSON line"))
        .collect();
    assert_eq!(lines.len(), values.len() * 3);

    // Every byte comes back, in the encoding each value has, each partition in offset order
    // (the export's readers share the partitions; their lines interleave, a partition's not).
    let mut by_place = std::collections::BTreeMap::new();
    let mut next = std::collections::HashMap::new();
    for line in &lines {
        let partition = line["partition"].as_i64().expect("partition");
        let offset = line["offset"].as_i64().expect("offset") as usize;
        let expected = next.entry(partition).or_insert(0usize);
        assert_eq!(offset, *expected, "{line}");
        *expected += 1;
        let value = &values[offset % values.len()];
        assert_eq!(export_bytes(&line["value"]).as_ref(), Some(value), "{line}");
        let want = match offset % 6 {
            0..=2 => "json",
            3 => "avro",
            4 => "protobuf",
            _ => "text",
        };
        assert_eq!(line["value"]["encoding"], want, "{line}");
        by_place.insert((partition, offset as i64), line.clone());
    }
    // Compact JSON travels without its bytes; the other forms and the repeated key with them.
    let first = &by_place[&(0, 0)]["value"];
    assert!(first.get("raw").is_none(), "{first}");
    assert_eq!(first["data"]["price"], 0.99);
    assert!(by_place[&(1, 1)]["value"].get("raw").is_some());
    assert_eq!(by_place[&(2, 2)]["value"]["data"]["id"], 1);
    let order = &by_place[&(0, 3)]["value"]["data"];
    assert_eq!(order["attributes"]["m"], "São Paulo", "{order}");
    assert_eq!(order["lines"][1]["discount"], 0.5);
    assert_eq!(order["state"], "NEW");
    // Its data and schema give the Avro and Protobuf values back, so their bytes are left
    // out; but for a Protobuf id 0 on the wire, which the JSON leaves out.
    assert!(by_place[&(0, 3)]["value"].get("raw").is_none());
    assert!(by_place[&(0, 4)]["value"].get("raw").is_some());
    assert!(by_place[&(0, 10)]["value"].get("raw").is_none());

    // The pages say the same of every record.
    for partition in 0..3 {
        let (status, body) = get_raw(
            &router,
            &format!(
                "/api/records?cluster=local&topic={topic}&partition={partition}&offset=0&limit=500"
            ),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let page: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        let records = page["records"].as_array().expect("records");
        assert_eq!(records.len(), values.len(), "partition {partition}");
        for record in records {
            let place = (
                record["partition"].as_i64().expect("partition"),
                record["offset"].as_i64().expect("offset"),
            );
            // The pages carry the bytes of every value decoded through a schema, for the
            // page's hex view and for producing the record again.
            let mut record = record.clone();
            if by_place[&place]["value"].get("raw").is_none() {
                let raw = record["value"].as_object_mut().and_then(|value| value.remove("raw"));
                let encoding = &record["value"]["encoding"];
                assert!(encoding == "avro" || encoding == "protobuf" || raw.is_none());
            }
            assert_eq!(record, by_place[&place], "the page and the export differ");
        }
    }

    // kcat reads the same payloads and keys.
    let out = std::process::Command::new("kcat")
        .args(["-b", OPEN_PORT, "-C", "-t", &topic, "-e", "-q", "-f", "%p %o %k|%R%s"])
        .output()
        .expect("kcat runs (is it installed?)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut rest = out.stdout.as_slice();
    let mut read = 0;
    while !rest.is_empty() {
        // "<partition> <offset> <key>|" then the payload's length (4 bytes, big-endian) and
        // the payload itself, so that binary payloads are read exactly.
        let bar = rest.iter().position(|b| *b == b'|').expect("a header");
        let head = String::from_utf8_lossy(&rest[..bar]).to_string();
        let mut parts = head.splitn(3, ' ');
        let partition: i64 = parts.next().and_then(|p| p.parse().ok()).expect("partition");
        let offset: i64 = parts.next().and_then(|p| p.parse().ok()).expect("offset");
        let len = u32::from_be_bytes(rest[bar + 1..bar + 5].try_into().expect("length")) as usize;
        let payload = &rest[bar + 5..bar + 5 + len];
        rest = &rest[bar + 5 + len..];
        let line = &by_place[&(partition, offset)];
        assert_eq!(export_bytes(&line["value"]).as_deref(), Some(payload), "{line}");
        assert_eq!(line["key"]["data"], parts.next().expect("key"), "{line}");
        read += 1;
    }
    assert_eq!(read, lines.len());
}

/// A filtered page from the newest record back reaches deep into a partition in growing steps,
/// and still answers exactly the newest matches, each page's `prev` going on where it stopped:
/// one in every 700 of 5,000 records matches, so the steps of 1,000 then 2,000 then 4,000
/// records find more than a page holds and must cut it at the right place.
#[tokio::test]
async fn a_filtered_page_backwards_holds_the_newest_matches_and_pages_on() {
    let topic = unique("it-back-filter");
    create_topic(&topic, 1).await;
    let values: Vec<(i32, Option<Vec<u8>>)> = (0..5_000)
        .map(|i| {
            let value = if i % 700 == 0 { format!("hit {i}") } else { format!("miss {i}") };
            (0, Some(value.into_bytes()))
        })
        .collect();
    produce_values(&topic, &values);
    let router =
        router(&format!("clusters:\n  - name: local\n    bootstrap_servers: {OPEN_PORT}\n")).await;
    let mut query = format!("/api/records?cluster=local&topic={topic}&q=hit&limit=3");
    let mut pages: Vec<Vec<String>> = Vec::new();
    for _ in 0..5 {
        let (status, page) = get_json(&router, &query).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(page["partial"], false, "{page}");
        pages.push(
            page["records"]
                .as_array()
                .expect("records")
                .iter()
                .map(|r| r["value"]["data"].as_str().unwrap_or_default().to_string())
                .collect(),
        );
        let Some(prev) = page["prev"].as_str() else {
            break;
        };
        query = format!("/api/records?cluster=local&topic={topic}&q=hit&limit=3&cursor={prev}");
    }
    let want: Vec<Vec<String>> = [
        vec!["hit 3500", "hit 4200", "hit 4900"],
        vec!["hit 1400", "hit 2100", "hit 2800"],
        vec!["hit 0", "hit 700"],
    ]
    .iter()
    .map(|page| page.iter().map(|v| v.to_string()).collect())
    .collect();
    assert_eq!(pages, want);
}

/// Every path that reads records counts against the expensive reads, not only pages: with every
/// place taken, a record by its offset, a copy's dry run, the replications (MirrorMaker's offset
/// syncs) and the audit log (its topic) answer 429 `TOO_MANY_REQUESTS` before reading anything,
/// and read again once the places come back.
#[tokio::test]
async fn every_record_reading_path_waits_behind_the_expensive_reads() {
    let topic = unique("it-busy-paths");
    create_topic(&topic, 1).await;
    produce(&topic, &[(0, 3)]);
    let target = format!("{topic}-copy");
    create_topic(&target, 1).await;
    let audit_topic = unique("it-busy-audit");
    create_topic(&audit_topic, 1).await;
    let yaml = format!(
        "clusters:\n{}    writable: true\n    mirror:\n      properties:\n        bootstrap.servers: {OPEN_PORT}\naudit:\n  topic: {{ cluster: rw, name: {audit_topic} }}\n",
        scram_cluster("rw", "klens-secret"),
    );
    let config = config(&yaml);
    let catalog = std::sync::Arc::new(server::catalog::Catalog::new(&config));
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    let state = state_over(&config, catalog);
    let service = std::sync::Arc::clone(&state.service);
    let router = server::http::app(state);
    let calls = [
        format!("/api/record?cluster=rw&topic={topic}&partition=0&offset=1"),
        "/api/replications?cluster=rw".to_string(),
        "/api/audit?cluster=rw".to_string(),
    ];
    let dry_run = serde_json::json!({"cluster": "rw", "topic": topic, "target_topic": target, "dry_run": true});
    // Without sign-in everyone is one caller: the bound in all applies.
    let anyone = server::auth::Caller::Anonymous(app::api::Door::Api);
    let held: Vec<_> = (0..server::service::limits::MAX_READS)
        .map(|_| service.reads.admit(&anyone).expect("a place"))
        .collect();
    for path in &calls {
        let (status, body) = get_raw(&router, path).await;
        assert_eq!(
            status,
            StatusCode::TOO_MANY_REQUESTS,
            "{path}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    let (status, body) = post(&router, "/api/copy_records", dry_run.clone()).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    drop(held);
    for path in &calls {
        let (status, body) = get_raw(&router, path).await;
        assert_eq!(status, StatusCode::OK, "{path}: {}", String::from_utf8_lossy(&body));
    }
    let (status, body) = post(&router, "/api/copy_records", dry_run).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}
