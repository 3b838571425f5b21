//! The expression filter over real records: Avro values decoded through the registry, JSON
//! and text beside them, on pages, the export and the MCP door.

use axum::http::StatusCode;
use serde_json::{json, Value};

use crate::mcp::{call, mcp_router, SECRET};
use crate::support::*;

const MCP_PORT: &str = "127.0.0.1:18997";

fn yaml() -> String {
    format!(
        "clusters:\n{}    writable: true\n    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n\
         mcp:\n  listen: {MCP_PORT}\n  privileges: [records]\n  secret: {SECRET}\n",
        scram_cluster("rw", "klens-secret"),
    )
}

fn order(id: i64) -> Value {
    json!({"id": id, "qty": id * 2, "customer": {"tier": if id % 2 == 0 { "gold" } else { "basic" }}})
}

/// The ids of the records on `page` (Avro and JSON values), in order.
fn ids(page: &Value) -> Vec<i64> {
    page["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["value"]["data"]["id"].as_i64())
        .collect()
}

#[tokio::test]
async fn an_expression_sees_avro_json_and_text_as_the_page_shows_them() {
    let topic = unique("it-expr");
    create_topic(&topic, 1).await;
    let schema = json!({"type": "record", "name": "Order", "namespace": "it", "fields": [
        {"name": "id", "type": "long"},
        {"name": "qty", "type": "int"},
        {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
            {"name": "tier", "type": "string"}]}}]});
    registry(
        reqwest::Method::POST,
        &format!("subjects/{topic}-value/versions"),
        json!({"schema": schema.to_string()}),
    )
    .await;
    let router = router(&yaml()).await;
    let mut values: Vec<Value> =
        (1..=6).map(|id| json!({"encoding": "avro", "data": order(id)})).collect();
    values.push(
        json!({"encoding": "json", "data": {"id": 100, "qty": 50, "customer": {"tier": "gold"}}}),
    );
    values.push(json!({"encoding": "text", "data": "qty 99"}));
    for (i, value) in values.into_iter().enumerate() {
        let (status, body) = post(
            &router,
            "/api/produce",
            json!({"cluster": "rw", "topic": topic, "partition": 0,
                   "key": {"encoding": "text", "data": format!("order-{i}")},
                   "headers": [{"key": "source", "value": {"encoding": "text", "data": if i % 3 == 0 { "web" } else { "shop" }}}],
                   "value": value}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let page = |expr: &str| {
        let path =
            format!("/api/records?cluster=rw&topic={topic}&from=earliest&expr={}", urlencode(expr));
        let router = router.clone();
        async move {
            let (status, body) = get_raw(&router, &path).await;
            let body: Value = serde_json::from_slice(&body).expect("JSON");
            (status, body)
        }
    };

    // Integers compare as integers, nested records are maps, Avro and JSON alike.
    let (status, found) = page("value.qty > 6").await;
    assert_eq!(status, StatusCode::OK, "{found}");
    assert_eq!(ids(&found), [4, 5, 6, 100]);
    // The text value has no fields: it is counted, not matched.
    assert_eq!(found["unevaluated"]["records"], 1, "{found}");
    let (_, found) = page("has(value.customer) && value.customer.tier == 'gold'").await;
    assert_eq!(ids(&found), [2, 4, 6, 100]);
    let (_, found) = page("headers.source == 'web' && schemaId != null").await;
    assert_eq!(ids(&found), [1, 4], "Avro only: the JSON value has no schema id");
    let (_, found) = page("valueText.contains('qty') && offset >= 6").await;
    assert_eq!(found["records"].as_array().map(Vec::len), Some(2), "{found}");
    assert_eq!(found["records"][1]["value"]["data"], "qty 99");
    let (_, found) = page("key == 'order-2' || keyText.endsWith('-3')").await;
    assert_eq!(ids(&found), [3, 4]);

    // A fault says where, on the field.
    let (status, fault) = page("value.qty >").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{fault}");
    assert_eq!(fault["field"], "expr");
    assert!(fault["message"].as_str().is_some_and(|m| m.starts_with("Column ")), "{fault}");
    let (status, fault) = page("value.items.map(i, i.n).size() > 0").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{fault}");

    // The export keeps the same records.
    let (status, body) = get_raw(
        &router,
        &format!(
            "/api/export?cluster=rw&topic={topic}&expr={}",
            urlencode("value.customer.tier == 'gold'")
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let lines: Vec<Value> = String::from_utf8_lossy(&body)
        .lines()
        .map(|l| serde_json::from_str(l).expect("NDJSON"))
        .collect();
    let exported: Vec<i64> =
        lines.iter().filter_map(|r| r["value"]["data"]["id"].as_i64()).collect();
    assert_eq!(exported, [2, 4, 6, 100]);
    // The text value left out is counted on a last line of its own.
    let last = lines.last().expect("lines");
    assert_eq!(last["unevaluated"]["records"], 1, "{last}");
    assert_eq!(lines.len(), 5, "four records and the count");

    // And so does the MCP tool.
    let (error, result) = call(
        &mcp_router(&yaml()).await,
        "klens_records_read",
        json!({"cluster": "rw", "topic": topic, "from": "earliest", "expr": "value.id == 5"}),
    )
    .await;
    assert!(!error, "{result}");
    assert_eq!(ids(&result), [5]);
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// A tail with an expression says, in a `status` event, how many records the expression could
/// not be evaluated on (left out), as the page and the export do.
#[tokio::test]
async fn the_tail_says_how_many_records_its_expression_could_not_evaluate() {
    use http_body_util::BodyExt as _;
    let topic = unique("it-expr-tail");
    create_topic(&topic, 1).await;
    let router = router(&yaml()).await;
    let path = format!("/api/tail?cluster=rw&topic={topic}&expr={}", urlencode("value.qty > 5"));
    let request = axum::http::Request::get(path)
        .header("host", "127.0.0.1:8080")
        .body(axum::body::Body::empty())
        .expect("request");
    let response = tower::ServiceExt::oneshot(router.clone(), request).await.expect("answers");
    assert_eq!(response.status(), StatusCode::OK);
    for value in [
        json!({"encoding": "json", "data": {"qty": 9}}),
        json!({"encoding": "text", "data": "qty 99"}),
        json!({"encoding": "text", "data": "qty 7"}),
    ] {
        let (status, body) = post(
            &router,
            "/api/produce",
            json!({"cluster": "rw", "topic": topic, "partition": 0, "value": value}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let mut body = response.into_body();
    let mut seen = String::new();
    let told = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(Ok(frame)) = body.frame().await {
            if let Some(data) = frame.data_ref() {
                seen.push_str(&String::from_utf8_lossy(data));
            }
            let last_status = seen
                .split("\n\n")
                .filter_map(|event| event.strip_prefix("event: status\ndata: "))
                .filter_map(|data| serde_json::from_str::<Value>(data).ok())
                .last();
            if let Some(status) = last_status.filter(|s| s["unevaluated"]["records"] == 2) {
                return Some(status);
            }
        }
        None
    })
    .await;
    let status = told.ok().flatten().unwrap_or_else(|| panic!("no status of two: {seen}"));
    assert!(status["unevaluated"]["first"].as_str().is_some_and(|f| !f.is_empty()), "{status}");
    assert_eq!(seen.matches("event: record").count(), 1, "{seen}");
}
