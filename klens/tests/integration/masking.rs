//! Masking against the dev stack: a caller without UNMASK (here the MCP ceiling) never gets a
//! masked field's bytes in a page, a record, an export, a tail or an MCP result, and a filter
//! on the real value finds nothing; a caller holding UNMASK (sign-in off, or a ceiling with
//! it) reads the records as Kafka holds them, which kcat confirms.

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use hmac::Mac;
use serde_json::{json, Value};
use server::auth::Caller;
use server::catalog::Catalog;
use server::masking::Masking;
use server::records::stream::{self as records_stream, TailEvent};
use server::service::{self, Service};

use crate::mcp::{call, SECRET};
use crate::support::*;

const CARD: &str = "4111111111111111";
const EMAIL: &str = "ann@example.com";
const MASKING_KEY: &str = "it-masking-key-of-32-bytes-long!";

/// One writable cluster with the registry, an MCP ceiling holding `privileges`, and two rules
/// on `it-mask-*`: the card number's last four, and the customer's email hashed, keys too.
fn yaml(privileges: &str) -> String {
    format!(
        "clusters:\n{}    writable: true\n    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n\
         mcp:\n  listen: 127.0.0.1:18998\n  privileges: [{privileges}]\n  secret: {SECRET}\n\
         masking:\n\
         \x20 - topics: [\"it-mask-*\"]\n    fields: [card.number]\n    strategy: last4\n\
         \x20 - topics: [\"it-mask-*\"]\n    fields: [customer.email]\n    keys: true\n    strategy: hash\n\
         masking_key: {MASKING_KEY}\n",
        scram_cluster("rw", "klens-secret"),
    )
}

/// The service and the MCP router over `yaml`, masking as configured.
async fn service_and_mcp(yaml: &str) -> (Arc<Service>, axum::Router) {
    let config = config(yaml);
    let catalog = Arc::new(Catalog::new(&config));
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    let policy = Arc::new(server::auth::Policy::from_config(&config));
    let service = Arc::new(
        Service::new(policy, catalog)
            .with_masking(Masking::new(config.masking.clone(), config.masking_key.clone())),
    );
    let mcp = server::mcp::router(Arc::clone(&service), config.mcp.as_ref().expect("an mcp block"));
    (service, mcp)
}

fn hmac(text: &str) -> String {
    let mut mac =
        hmac::Hmac::<sha2::Sha256>::new_from_slice(MASKING_KEY.as_bytes()).expect("any key");
    mac.update(text.as_bytes());
    mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

fn payment(id: u32) -> Value {
    json!({"id": id, "card": {"number": CARD, "expiry": "12/30"}, "customer": {"email": EMAIL}})
}

/// No masked value, and no bytes that could hold one, in `text`.
fn assert_hidden(what: &str, text: &str) {
    for secret in [CARD, EMAIL] {
        assert!(!text.contains(secret), "{what} shows {secret}: {text}");
    }
    assert!(!text.contains("\"raw\""), "{what} carries raw bytes: {text}");
}

fn payment_avro() -> Value {
    json!({"type": "record", "name": "Payment", "namespace": "it", "fields": [
        {"name": "id", "type": "int"},
        {"name": "card", "type": {"type": "record", "name": "Card", "fields": [
            {"name": "number", "type": "string"}, {"name": "expiry", "type": "string"}]}},
        {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
            {"name": "email", "type": "string"}]}}]})
}

/// A topic holding, in order: a JSON payment, a text value with the card in it, and an Avro
/// payment through the registry; each keyed by a customer id.
async fn masked_topic() -> String {
    let topic = unique("it-mask");
    create_topic(&topic, 1).await;
    let avro = payment_avro();
    registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-value/versions"),
        json!({"schema": avro.to_string()}),
    )
    .await;
    // Written as a client with every privilege (sign-in is off on this router).
    let router = router(&yaml("records")).await;
    for value in [
        json!({"encoding": "json", "data": payment(1)}),
        json!({"encoding": "text", "data": format!("paid with {CARD}")}),
        json!({"encoding": "avro", "data": payment(3)}),
    ] {
        let (status, body) = post(
            &router,
            "/api/produce",
            json!({"cluster": "rw", "topic": topic, "partition": 0,
                   "key": {"encoding": "text", "data": "customer-7"}, "value": value}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    // Another client sees the values as written: there is something to hide.
    let out = std::process::Command::new("kcat")
        .args(["-b", OPEN_PORT, "-C", "-t", &topic, "-e", "-f", "%s\n"])
        .output()
        .expect("kcat runs");
    let seen = String::from_utf8_lossy(&out.stdout);
    assert_eq!(seen.matches(CARD).count(), 3, "{seen}");
    topic
}

fn args<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("arguments")
}

#[tokio::test]
async fn a_caller_without_unmask_never_gets_a_masked_value_by_any_form() {
    let topic = masked_topic().await;
    let (service, mcp) = service_and_mcp(&yaml("records")).await;
    let caller = Caller::Mcp(None);

    // A page: every value masked, the JSON and Avro ones field by field, the text one whole.
    let page = service::records::records(
        &service,
        &caller,
        args(json!({"cluster": "rw", "topic": topic, "from": "earliest"})),
    )
    .await
    .expect("a page");
    let text = serde_json::to_string(&page).expect("JSON");
    assert_hidden("a page", &text);
    assert_eq!(page.records.len(), 3);
    let (json_value, text_value, avro_value) =
        (&page.records[0].value, &page.records[1].value, &page.records[2].value);
    assert_eq!(json_value.data["card"]["number"], json!("************1111"));
    assert_eq!(json_value.data["card"]["expiry"], json!("12/30"));
    assert_eq!(json_value.data["customer"]["email"], json!(hmac(EMAIL)));
    assert_eq!(avro_value.data["card"]["number"], json!("************1111"));
    assert_eq!(avro_value.data["customer"]["email"], json!(hmac(EMAIL)));
    assert_eq!(text_value.data, json!("****"), "text has no fields: masked whole");
    for r in &page.records {
        assert!(r.value.masked && r.key.masked, "{r:?}");
        assert_eq!(r.key.data, json!("****"), "a text key is masked whole");
    }

    // One record.
    let one = service::records::record(
        &service,
        &caller,
        args(json!({"cluster": "rw", "topic": topic, "partition": 0, "offset": 2})),
    )
    .await
    .expect("a record");
    assert_hidden("a record", &serde_json::to_string(&one).expect("JSON"));

    // The filter sees what the caller sees: the real value finds nothing, the masked one finds.
    for (q, found) in [
        (CARD, 0),
        (EMAIL, 0),
        ("customer-7", 0),
        ("************1111", 2),
        (hmac(EMAIL).as_str(), 2),
        ("12/30", 2),
    ] {
        let page = service::records::records(
            &service,
            &caller,
            args(json!({"cluster": "rw", "topic": topic, "from": "earliest", "q": q})),
        )
        .await
        .expect("a page");
        assert_eq!(page.records.len(), found, "filter {q:?}");
    }

    // So does an expression: on the real value it finds nothing, on the shown one it finds.
    for (expr, found) in [
        (format!("valueText.contains('{CARD}')"), 0),
        (format!("has(value.card) && value.card.number == '{CARD}'"), 0),
        (format!("has(value.customer) && value.customer.email == '{EMAIL}'"), 0),
        ("keyText == 'customer-7' || key == 'customer-7'".to_string(), 0),
        ("has(value.card) && value.card.number.endsWith('1111')".to_string(), 2),
        ("value == '****'".to_string(), 1),
    ] {
        let page = service::records::records(
            &service,
            &caller,
            args(json!({"cluster": "rw", "topic": topic, "from": "earliest", "expr": expr})),
        )
        .await
        .expect("a page");
        assert_eq!(page.records.len(), found, "expression {expr:?}");
        assert_hidden("a page by expression", &serde_json::to_string(&page).expect("JSON"));
    }

    // A search by key would tell the masked key apart: it needs UNMASK.
    let refused = service::records::records(
        &service,
        &caller,
        args(json!({"cluster": "rw", "topic": topic, "key": "customer-7"})),
    )
    .await
    .expect_err("refused");
    assert_eq!(refused.code.as_str(), "MISSING_PRIVILEGE", "{}", refused.message);
    assert!(refused.message.contains("UNMASK"), "{}", refused.message);

    // The export, whole and filtered on the real value.
    let exported = export(&service, &caller, &topic, None).await;
    assert_hidden("the export", &exported);
    assert_eq!(exported.lines().count(), 3, "{exported}");
    assert_eq!(export(&service, &caller, &topic, Some(("q", CARD))).await, "");
    let on_card = format!("valueText.contains('{CARD}')");
    assert_eq!(export(&service, &caller, &topic, Some(("expr", &on_card))).await, "");
    let shown =
        export(&service, &caller, &topic, Some(("expr", "valueText.contains('1111')"))).await;
    assert_eq!(shown.lines().count(), 2, "{shown}");

    // The tail, with a record written after it starts.
    let tailed = tail_one(&service, &caller, &topic).await;
    assert_hidden("the tail", &tailed);
    assert!(tailed.contains("************1111"), "{tailed}");

    // MCP: a page and one record.
    let (error, result) = call(
        &mcp,
        "klens_records_read",
        json!({"cluster": "rw", "topic": topic, "from": "earliest"}),
    )
    .await;
    assert!(!error, "{result}");
    assert_hidden("an MCP page", &result.to_string());
    // The three written first, and the one the tail saw.
    assert_eq!(result["records"].as_array().map(Vec::len), Some(4), "{result}");
    let (error, result) = call(
        &mcp,
        "klens_record_get",
        json!({"cluster": "rw", "topic": topic, "partition": 0, "offset": 0}),
    )
    .await;
    assert!(!error, "{result}");
    assert_hidden("an MCP record", &result.to_string());
}

/// A proposed schema's constraints would tell masked values piece by piece from how many
/// records fit: on a topic masked for the caller, the records check does not run.
#[tokio::test]
async fn the_schema_check_never_reads_masked_records() {
    let topic = masked_topic().await;
    let check = records_check(&topic, "records, register_schemas").await;
    assert_eq!((check.read, check.fit, check.failed), (0, 0, 0));
    assert!(check.first_failure.is_none() && check.first_unchecked.is_none());
    assert!(check.skipped.as_deref().is_some_and(|e| e.contains("UNMASK")), "{check:?}");
    // With UNMASK the check reads the records.
    let check = records_check(&topic, "records, unmask, register_schemas").await;
    assert_eq!(check.read, 3, "{check:?}");
}

/// The records check of a dry-run registration on `topic`'s value subject, for an MCP ceiling
/// holding `privileges`. Any proposal would do: here the registered schema itself.
async fn records_check(topic: &str, privileges: &str) -> app::api::RecordsCheck {
    let (service, _) = service_and_mcp(&yaml(privileges)).await;
    service::schemas::register_schema(
        &service,
        &Caller::Mcp(None),
        args(json!({"cluster": "rw", "subject": format!("{topic}-value"),
                    "schema": payment_avro().to_string(), "dry_run": true})),
    )
    .await
    .map(|a| a.records)
    .expect("a dry run")
    .expect("a check")
}

#[tokio::test]
async fn unmask_shows_the_records_as_kafka_holds_them() {
    let topic = masked_topic().await;
    // Through the MCP ceiling that holds UNMASK.
    let (service, mcp) = service_and_mcp(&yaml("records, unmask")).await;
    let (error, result) = call(
        &mcp,
        "klens_records_read",
        json!({"cluster": "rw", "topic": topic, "from": "earliest"}),
    )
    .await;
    assert!(!error, "{result}");
    let records = result["records"].as_array().expect("records");
    assert_eq!(records[0]["value"]["data"], payment(1));
    assert_eq!(records[1]["value"]["data"], json!(format!("paid with {CARD}")));
    assert_eq!(records[2]["value"]["data"], payment(3));
    assert_eq!(records[0]["key"]["data"], json!("customer-7"));
    assert!(records.iter().all(|r| r["value"].get("masked").is_none()));
    let found = service::records::records(
        &service,
        &Caller::Mcp(None),
        args(json!({"cluster": "rw", "topic": topic, "key": "customer-7"})),
    )
    .await
    .expect("a search by key");
    assert_eq!(found.records.len(), 3);

    // Through /api with sign-in off, where the anonymous caller holds every privilege.
    let router = router(&yaml("records")).await;
    let (status, bytes) =
        get_raw(&router, &format!("/api/records?cluster=rw&topic={topic}&from=earliest&q={CARD}"))
            .await;
    assert_eq!(status, StatusCode::OK);
    let page: Value = serde_json::from_slice(&bytes).expect("JSON");
    assert_eq!(page["records"].as_array().map(Vec::len), Some(3), "{page}");

    // Topics no rule names are never masked, even for a caller without UNMASK.
    let plain = unique("it-plain");
    create_topic(&plain, 1).await;
    produce_values(&plain, &[(0, Some(payment(9).to_string().into_bytes()))]);
    let (service, _) = service_and_mcp(&yaml("records")).await;
    let page = service::records::records(
        &service,
        &Caller::Mcp(None),
        args(json!({"cluster": "rw", "topic": plain, "from": "earliest"})),
    )
    .await
    .expect("a page");
    assert_eq!(page.records[0].value.data, payment(9));
    assert!(!page.records[0].value.masked);
}

/// The NDJSON export of `topic` for `caller`, filtered by `filter` (`q` or `expr`, and its
/// text), as text.
async fn export(
    service: &Service, caller: &Caller, topic: &str, filter: Option<(&str, &str)>,
) -> String {
    let mut query = json!({"cluster": "rw", "topic": topic});
    if let Some((name, text)) = filter {
        query[name] = json!(text);
    }
    let stream = service::records::stream(service, caller, args(query), "earliest")
        .await
        .expect("an export");
    let source = stream.source();
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let reading = tokio::task::spawn_blocking(move || {
        records_stream::export(
            &source,
            &stream.spans,
            stream.filter.as_ref(),
            stream.to,
            || Ok(()),
            tx,
        )
    });
    let mut out = Vec::new();
    while let Some(chunk) = rx.recv().await {
        out.extend(chunk);
    }
    reading.await.expect("the export ends");
    String::from_utf8(out).expect("UTF-8")
}

/// The first record the tail of `topic` sends once a payment is written after it started.
async fn tail_one(service: &Service, caller: &Caller, topic: &str) -> String {
    let stream = service::records::stream(
        service,
        caller,
        args(json!({"cluster": "rw", "topic": topic})),
        "latest",
    )
    .await
    .expect("a tail");
    let source = stream.source();
    let starts: Vec<(i32, i64)> = stream.spans.iter().map(|s| (s.partition, s.end)).collect();
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let following = tokio::task::spawn_blocking(move || {
        records_stream::tail(&source, &starts, None, || Ok(()), tx)
    });
    tokio::time::sleep(Duration::from_secs(2)).await;
    produce_values(topic, &[(0, Some(payment(4).to_string().into_bytes()))]);
    let event = tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a record within 20 s")
        .expect("an event");
    drop(rx);
    following.await.expect("the tail ends once its client leaves");
    match event {
        TailEvent::Record(json) => json,
        TailEvent::End(why) => panic!("the tail ended: {why}"),
        TailEvent::Status(status) => panic!("no filter, yet a status: {status}"),
    }
}

/// `hash` masks are HMACs under one key: a caller who could write a field a hash rule masks and
/// read its hash back could confirm guesses of every value hidden that way. Without UNMASK,
/// produce refuses such a record (a preview too) however it is encoded: JSON, text that is JSON,
/// Avro through the registry, or framed bytes as Duplicate sends them; a key too where the rule
/// masks keys. Nothing reaches Kafka. Other records go through, and with UNMASK this one does.
#[tokio::test]
async fn a_field_masked_by_hash_is_written_only_with_unmask() {
    let topic = masked_topic().await;
    let id =
        registry(reqwest::Method::GET, &format!("subjects/{topic}-value/versions/1"), Value::Null)
            .await["id"]
            .as_u64()
            .expect("id") as u32;
    let guess = json!({"id": 9, "card": {"number": "1", "expiry": "1"},
                       "customer": {"email": "g@x"}});
    // The guess framed as Confluent's Avro serializer writes it: 9, "1", "1", "g@x".
    let mut framed = vec![0];
    framed.extend_from_slice(&id.to_be_bytes());
    framed.extend_from_slice(&[0x12, 0x02, b'1', 0x02, b'1', 0x06, b'g', b'@', b'x']);
    let framed = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, framed);
    let produce = |service: Arc<Service>, key: Value, value: Value, dry_run: bool| {
        let topic = topic.clone();
        async move {
            service::produce::produce(
                &service,
                &Caller::Mcp(None),
                args(json!({"cluster": "rw", "topic": topic, "key": key, "value": value,
                            "dry_run": dry_run})),
            )
            .await
        }
    };
    let none = json!({"encoding": "null"});
    let (masked, _) = service_and_mcp(&yaml("records, produce, schema_text")).await;
    let refused = [
        (none.clone(), json!({"encoding": "json", "data": guess}), false),
        (none.clone(), json!({"encoding": "json", "data": guess}), true),
        (none.clone(), json!({"encoding": "text", "data": guess.to_string()}), false),
        (none.clone(), json!({"encoding": "avro", "data": guess}), false),
        (none.clone(), json!({"encoding": "base64", "data": framed}), false),
        (json!({"encoding": "json", "data": {"customer": {"email": "g@x"}}}), none.clone(), false),
    ];
    for (key, value, dry_run) in refused {
        let e = produce(Arc::clone(&masked), key.clone(), value.clone(), dry_run)
            .await
            .expect_err("refused");
        assert_eq!(
            (e.code.as_str(), e.privilege),
            ("MISSING_PRIVILEGE", Some(app::Privilege::Unmask)),
            "{key} {value}: {}",
            e.message
        );
        assert!(
            e.message.contains("UNMASK") && e.message.contains("customer.email"),
            "{}",
            e.message
        );
    }
    assert_eq!(watermarks(&topic, 1), vec![(0, 3)], "nothing was written");

    // The card is masked by its last four, not by hash, and a text key is not a field.
    produce(
        Arc::clone(&masked),
        json!({"encoding": "text", "data": "customer-8"}),
        json!({"encoding": "json", "data": {"id": 10, "card": {"number": "4"}}}),
        false,
    )
    .await
    .expect("written");
    let (unmasked, _) = service_and_mcp(&yaml("records, produce, unmask")).await;
    produce(unmasked, none, json!({"encoding": "json", "data": guess}), false)
        .await
        .expect("written with UNMASK");
    assert_eq!(watermarks(&topic, 1), vec![(0, 5)]);
}
