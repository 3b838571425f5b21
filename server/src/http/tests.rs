//! The router driven in memory: contract statuses and bodies that need no Kafka.

use std::path::Path;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use leptos::config::LeptosOptions;
use tower::ServiceExt;

use super::{app, AppState};
use crate::catalog::Catalog;

/// A router over one cluster that nothing listens for; no request below reaches Kafka.
fn router() -> axum::Router {
    let yaml = "clusters:\n  - name: quiet\n    bootstrap_servers: 127.0.0.1:1\n";
    let config = crate::config::parse(yaml, "test.yaml", &|_| None, Path::new("."))
        .expect("test config is valid");
    let state = AppState {
        leptos: LeptosOptions::builder().output_name("klens").build(),
        catalog: Arc::new(Catalog::new(&config)),
    };
    app(state)
}

async fn get(uri: &str) -> (StatusCode, String) {
    let response = router()
        .oneshot(Request::get(uri).body(Body::empty()).expect("request"))
        .await
        .expect("router answers");
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn health_answers_while_the_process_serves() {
    assert_eq!(
        get("/health").await,
        (StatusCode::OK, r#"{"status":"ok"}"#.into())
    );
}

#[tokio::test]
async fn ready_is_503_before_the_first_refresh() {
    assert_eq!(
        get("/ready").await,
        (
            StatusCode::SERVICE_UNAVAILABLE,
            r#"{"status":"starting"}"#.into()
        )
    );
}

#[tokio::test]
async fn unknown_cluster_is_404_with_the_contract_body() {
    assert_eq!(
        get("/api/cluster?cluster=nope").await,
        (
            StatusCode::NOT_FOUND,
            r#"{"code":"UNKNOWN_CLUSTER","message":"There is no cluster named \"nope\"."}"#.into()
        )
    );
}

#[tokio::test]
async fn a_missing_argument_is_400_naming_the_field() {
    let (status, body) = get("/api/cluster").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let error: app::ApiError = serde_json::from_str(&body).expect("an ApiError body");
    assert_eq!(error.code, app::ErrorCode::BadRequest);
    assert_eq!(error.field.as_deref(), Some("cluster"));
}

#[tokio::test]
async fn an_unknown_api_call_is_404_not_found() {
    let (status, body) = get("/api/no_such_call").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let error: app::ApiError = serde_json::from_str(&body).expect("an ApiError body");
    assert_eq!(error.code, app::ErrorCode::NotFound);
}

#[tokio::test]
async fn clusters_lists_the_configured_cluster_before_any_refresh() {
    let (status, body) = get("/api/clusters").await;
    assert_eq!(status, StatusCode::OK);
    let clusters: serde_json::Value = serde_json::from_str(&body).expect("json");
    assert_eq!(clusters[0]["name"], "quiet");
    assert_eq!(clusters[0]["health"]["status"], "unreachable");
    assert_eq!(clusters[0]["topics"], serde_json::Value::Null);
}
