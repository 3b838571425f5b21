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

const QUIET: &str = "clusters:\n  - name: quiet\n    bootstrap_servers: 127.0.0.1:1\n";

/// A router over one cluster that nothing listens for; no request below reaches Kafka.
fn router() -> axum::Router {
    router_for(QUIET)
}

fn router_for(yaml: &str) -> axum::Router {
    let config = crate::config::parse(yaml, "test.yaml", &|_| None, Path::new("."))
        .expect("test config is valid");
    let leptos = LeptosOptions::builder().output_name("klens").build();
    let catalog = Arc::new(Catalog::new(&config));
    app(AppState::new(
        leptos,
        &config,
        std::sync::Arc::new(
            crate::service::Service::from_config(&config, catalog).expect("service"),
        ),
    )
    .expect("state"))
}

async fn get(uri: &str) -> (StatusCode, String) {
    send(Request::get(uri).header("host", "127.0.0.1:8080").body(Body::empty()).expect("request"))
        .await
}

async fn send(request: Request<Body>) -> (StatusCode, String) {
    send_to(router(), request).await
}

async fn send_to(router: axum::Router, request: Request<Body>) -> (StatusCode, String) {
    let response = router.oneshot(request).await.expect("router answers");
    let status = response.status();
    (status, body_text(response).await)
}

async fn body_text(response: axum::response::Response) -> String {
    let body = response.into_body().collect().await.expect("body").to_bytes();
    String::from_utf8_lossy(&body).into_owned()
}

#[tokio::test]
async fn health_answers_while_the_process_serves() {
    assert_eq!(get("/health").await, (StatusCode::OK, r#"{"status":"ok"}"#.into()));
}

#[tokio::test]
async fn ready_is_503_before_the_first_refresh() {
    assert_eq!(
        get("/ready").await,
        (StatusCode::SERVICE_UNAVAILABLE, r#"{"status":"starting"}"#.into())
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

/// Answers are plain JSON for scripts, whatever the browser's reader does with them: the
/// content type of Leptos's own JSON encoding, and a body another JSON parser reads.
#[tokio::test]
async fn a_server_function_answers_application_json() {
    for uri in ["/api/clusters", "/api/whoami"] {
        let response = router()
            .oneshot(
                Request::get(uri)
                    .header("host", "127.0.0.1:8080")
                    .body(Body::empty())
                    .expect("request"),
            )
            .await
            .expect("router answers");
        assert_eq!(response.status(), StatusCode::OK, "{uri}");
        assert_eq!(
            response.headers().get("content-type").and_then(|v| v.to_str().ok()),
            Some("application/json"),
            "{uri}"
        );
        serde_json::from_str::<serde_json::Value>(&body_text(response).await).expect("a JSON body");
    }
}

#[tokio::test]
async fn whoami_without_auth_holds_every_privilege_on_every_cluster() {
    let (status, body) = get("/api/whoami").await;
    assert_eq!(status, StatusCode::OK);
    let json: serde_json::Value = serde_json::from_str(&body).expect("json");
    let wire: Vec<String> = app::Privilege::ALL.iter().map(|p| p.wire_name().to_string()).collect();
    assert_eq!(
        json,
        serde_json::json!({
            "auth": false,
            "user": null,
            "clusters": [{ "name": "quiet", "writable": false, "privileges": wire, "scopes": [], "scoped_catalog": false }]
        })
    );
}

/// `/ready` needs no session, so it names no cluster and carries no error text: counts only.
#[tokio::test]
async fn ready_counts_clusters_without_naming_them() {
    let catalog_yaml = "clusters:\n  - name: secret-name\n    bootstrap_servers: 127.0.0.1:1\n";
    let config =
        crate::config::parse(catalog_yaml, "test.yaml", &|_| None, Path::new(".")).expect("valid");
    let catalog = Arc::new(Catalog::new(&config));
    for entry in catalog.clusters() {
        entry.refresh().await;
    }
    let leptos = LeptosOptions::builder().output_name("klens").build();
    let router = app(AppState::new(
        leptos,
        &config,
        std::sync::Arc::new(
            crate::service::Service::from_config(&config, catalog).expect("service"),
        ),
    )
    .expect("state"));
    let request = Request::get("/ready").body(Body::empty()).expect("request");
    let (status, body) = send_to(router, request).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        r#"{"status":"ready","clusters":{"total":1,"ok":0,"degraded":0,"unreachable":1}}"#
    );
}

#[tokio::test]
async fn a_topic_of_a_cluster_not_read_yet_is_not_called_missing() {
    let (status, body) = get("/api/topic?cluster=quiet&topic=orders").await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert!(body.contains("has not read the topics of cluster"), "{body}");
}

/// docs/api.md lists every call: each server function the binary serves has its heading
/// there, as do the two streams.
#[test]
fn the_api_page_lists_every_server_function() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("run by cargo");
    let page = std::fs::read_to_string(Path::new(&manifest).join("../docs/api.md"))
        .expect("docs/api.md is readable");
    let served: Vec<String> = leptos::server_fn::axum::server_fn_paths()
        .map(|(path, _)| path.trim_start_matches("/api/").to_string())
        .collect();
    // The registry is filled at start-up; an empty one would make this test pass vacuously.
    for known in ["records", "create_topic", "topic_configs"] {
        assert!(served.iter().any(|p| p == known), "{known} in {served:?}");
    }
    let streams = ["export".to_string(), "tail".to_string()];
    let missing: Vec<&String> = served
        .iter()
        .chain(&streams)
        .filter(|name| !page.contains(&format!("### `{name}`")))
        .collect();
    assert!(missing.is_empty(), "docs/api.md does not list {missing:?}");
}

/// Every server function reaches a service call registered beside its service function
/// (`serves!`): as many handlers as server functions, no arguments type registered twice.
#[test]
fn every_server_function_has_one_service_call() {
    let functions = leptos::server_fn::axum::server_fn_paths().count();
    let handlers: Vec<&crate::service::Handler> = crate::service::handlers().collect();
    let types: std::collections::HashSet<std::any::TypeId> =
        handlers.iter().map(|h| (h.call)()).collect();
    let names: Vec<&str> = handlers.iter().map(|h| h.name).collect();
    assert!(functions >= 39, "{functions} server functions registered");
    assert_eq!(types.len(), handlers.len(), "a call registered twice: {names:?}");
    assert_eq!(handlers.len(), functions, "{names:?}");
}

/// A read-only and a writable cluster that nothing listens for.
const TWO: &str = "clusters:
  - name: ro
    bootstrap_servers: 127.0.0.1:1
  - name: rw
    bootstrap_servers: 127.0.0.1:1
    writable: true
";

mod decisions;
mod guards;
