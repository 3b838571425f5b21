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
    app(AppState::new(leptos, &config, catalog).expect("state"))
}

async fn get(uri: &str) -> (StatusCode, String) {
    send(
        Request::get(uri)
            .header("host", "127.0.0.1:8080")
            .body(Body::empty())
            .expect("request"),
    )
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
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    String::from_utf8_lossy(&body).into_owned()
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
            response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
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
    let wire: Vec<String> = app::Privilege::ALL
        .iter()
        .map(|p| p.wire_name().to_string())
        .collect();
    assert_eq!(
        json,
        serde_json::json!({
            "auth": false,
            "user": null,
            "clusters": [{ "name": "quiet", "writable": false, "privileges": wire, "scopes": [], "scoped_catalog": false }]
        })
    );
}

const HOST_NOT_ALLOWED: &str = r#"{"code":"HOST_NOT_ALLOWED","message":"This host name is not in allowed_hosts of the klens config."}"#;

#[tokio::test]
async fn a_host_outside_allowed_hosts_is_refused_everywhere_but_the_probes() {
    for uri in [
        "/",
        "/api/clusters",
        "/api/whoami",
        "/c/quiet",
        "/pkg/klens.js",
    ] {
        let request = Request::get(uri)
            .header("host", "rebound.example:8080")
            .body(Body::empty())
            .expect("request");
        assert_eq!(
            send(request).await,
            (StatusCode::FORBIDDEN, HOST_NOT_ALLOWED.to_string()),
            "{uri}"
        );
    }
    let missing_host = Request::get("/api/clusters")
        .body(Body::empty())
        .expect("request");
    assert_eq!(send(missing_host).await.0, StatusCode::FORBIDDEN);
    for uri in ["/health", "/ready"] {
        let request = Request::get(uri)
            .header("host", "10.1.2.3")
            .body(Body::empty())
            .expect("request");
        assert_ne!(send(request).await.0, StatusCode::FORBIDDEN, "{uri}");
    }
    // The port does not matter, and neither does the case of the name.
    let request = Request::get("/api/clusters")
        .header("host", "LOCALHOST:1234")
        .body(Body::empty())
        .expect("request");
    assert_eq!(send(request).await.0, StatusCode::OK);
}

#[tokio::test]
async fn cross_site_posts_are_refused_before_anything_runs() {
    let cases = [
        ("origin", "http://evil.example"),
        ("sec-fetch-site", "cross-site"),
        ("sec-fetch-site", "same-site"),
    ];
    for (name, value) in cases {
        let request = Request::post("/api/clusters")
            .header("host", "127.0.0.1:8080")
            .header(name, value)
            .body(Body::empty())
            .expect("request");
        let (status, body) = send(request).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{name}: {value}");
        assert!(body.contains("\"CROSS_SITE\""), "{body}");
    }
    // The same POST from klens's own page passes the guard (and reaches the API).
    let request = Request::post("/api/no_such_call")
        .header("host", "127.0.0.1:8080")
        .header("origin", "http://127.0.0.1:8080")
        .header("sec-fetch-site", "same-origin")
        .header("content-type", "application/json")
        .body(Body::empty())
        .expect("request");
    assert_eq!(send(request).await.0, StatusCode::NOT_FOUND);
}

/// Regression (hardening issue): a `text/plain` body, which a page on another site may send
/// without asking, created the topic. Writes take JSON only.
#[tokio::test]
async fn writes_without_a_json_body_are_refused_before_anything_runs() {
    let router = router_for(TWO);
    let body = r#"{"cluster":"rw","topic":"t","partitions":1}"#;
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("application/jsonx"),
        None,
    ] {
        let mut request = Request::post("/api/create_topic").header("host", "127.0.0.1:8080");
        if let Some(t) = content_type {
            request = request.header("content-type", t);
        }
        let request = request.body(Body::from(body)).expect("request");
        let (status, text) = send_to(router.clone(), request).await;
        assert_eq!(
            status,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{content_type:?}: {text}"
        );
        let error: app::ApiError = serde_json::from_str(&text).expect("an ApiError body");
        assert_eq!(error.code, app::ErrorCode::UnsupportedMediaType);
    }
    // JSON with a charset is JSON; the write then fails only because no broker listens.
    let request = Request::post("/api/create_topic")
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json; charset=utf-8")
        .body(Body::from(r#"{"cluster":"ro","topic":"t","partitions":1}"#))
        .expect("request");
    let (status, text) = send_to(router, request).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{text}");
    assert!(text.contains("READ_ONLY_CLUSTER"), "{text}");
}

/// Regression (hardening issue): a cross-site POST to `/auth/logout` signed the user out.
#[tokio::test]
async fn a_cross_site_logout_is_refused() {
    let yaml = format!(
        "{QUIET}auth:\n  oidc:\n    issuer: http://127.0.0.1:9\n    client_id: klens\n    client_secret: s\n    redirect_uri: http://127.0.0.1:8080/auth/callback\n"
    );
    let request = Request::post("/auth/logout")
        .header("host", "127.0.0.1:8080")
        .header("origin", "https://evil.example")
        .header("sec-fetch-site", "cross-site")
        .body(Body::empty())
        .expect("request");
    let (status, body) = send_to(router_for(&yaml), request).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.contains("\"CROSS_SITE\""), "{body}");
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
    let router = app(AppState::new(leptos, &config, catalog).expect("state"));
    let request = Request::get("/ready").body(Body::empty()).expect("request");
    let (status, body) = send_to(router, request).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        r#"{"status":"ready","clusters":{"total":1,"ok":0,"degraded":0,"unreachable":1}}"#
    );
}

/// With sign-in on, the session comes first and allowed_hosts is not consulted; no request here
/// reaches the identity provider.
#[tokio::test]
async fn with_auth_the_session_is_checked_and_hosts_are_not() {
    let yaml = format!(
        "{QUIET}auth:\n  oidc:\n    issuer: http://127.0.0.1:9\n    client_id: klens\n    client_secret: s\n    redirect_uri: http://127.0.0.1:8080/auth/callback\n"
    );
    let request = |uri: &str| {
        Request::get(uri)
            .header("host", "rebound.example")
            .body(Body::empty())
            .expect("request")
    };
    let (status, body) = send_to(router_for(&yaml), request("/api/whoami")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(body.contains("UNAUTHENTICATED"), "{body}");
    let (status, _) = send_to(router_for(&yaml), request("/health")).await;
    assert_eq!(status, StatusCode::OK);
    let response = router_for(&yaml)
        .oneshot(request("/c/quiet/topics?sort=name"))
        .await
        .expect("router answers");
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        response
            .headers()
            .get("location")
            .and_then(|l| l.to_str().ok()),
        Some("/auth/login?next=%2Fc%2Fquiet%2Ftopics%3Fsort%3Dname")
    );
}

#[tokio::test]
async fn a_topic_of_a_cluster_not_read_yet_is_not_called_missing() {
    let (status, body) = get("/api/topic?cluster=quiet&topic=orders").await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert!(
        body.contains("has not read the topics of cluster"),
        "{body}"
    );
}

/// A read-only and a writable cluster that nothing listens for.
const TWO: &str = "clusters:
  - name: ro
    bootstrap_servers: 127.0.0.1:1
  - name: rw
    bootstrap_servers: 127.0.0.1:1
    writable: true
";

async fn call(router: &axum::Router, method: &str, uri: &str, body: &str) -> app::ApiError {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("request");
    let (status, text) = send_to(router.clone(), request).await;
    let error: app::ApiError = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("{method} {uri} {body}: not an ApiError: {status} {text}"));
    assert_eq!(status.as_u16(), error.status(), "{method} {uri} {body}");
    error
}

/// Every server function, with one argument of the wrong type: the first bad argument is named
/// with BAD_REQUEST on a cluster the caller sees, and an unknown cluster answers
/// UNKNOWN_CLUSTER whatever the arguments are (the decision comes first). Regression for the
/// re-cut issue: a write with a mistyped argument used to answer 502 CLIENT.
#[tokio::test]
async fn every_server_function_decides_before_it_judges_its_arguments() {
    let router = router_for(TWO);
    // (method, endpoint, query or body with `{c}` for the cluster, the bad field)
    let cases: &[(&str, &str, &str, &str)] = &[
        ("GET", "topics", "cluster={c}&limit=many", "limit"),
        ("GET", "topics", "cluster={c}&desc=maybe", "desc"),
        ("GET", "groups", "cluster={c}&offset=-1", "offset"),
        ("GET", "topic", "cluster={c}", "topic"),
        ("GET", "group", "cluster={c}", "group"),
        ("GET", "broker", "cluster={c}&id=first", "id"),
        ("GET", "search", "cluster={c}", "q"),
        (
            "GET",
            "records",
            "cluster={c}&topic=t&partition=x",
            "partition",
        ),
        ("GET", "records", "cluster={c}&topic=t&limit=0.5", "limit"),
        ("GET", "records", "cluster={c}&topic=bad%20name", "topic"),
        ("GET", "record", "cluster={c}&topic=t&partition=0", "offset"),
        (
            "GET",
            "record",
            "cluster={c}&topic=t&partition=zero&offset=1",
            "partition",
        ),
        (
            "GET",
            "export",
            "cluster={c}&topic=t&partition=x",
            "partition",
        ),
        ("GET", "tail", "cluster={c}&topic=t&exact=perhaps", "exact"),
        (
            "POST",
            "create_topic",
            r#"{"cluster":"{c}","topic":"t","partitions":"three"}"#,
            "partitions",
        ),
        (
            "POST",
            "create_topic",
            r#"{"cluster":"{c}","partitions":3}"#,
            "topic",
        ),
        (
            "POST",
            "create_topic",
            r#"{"cluster":"{c}","topic":"t"}"#,
            "partitions",
        ),
        (
            "POST",
            "create_topic",
            r#"{"cluster":"{c}","topic":"t","partitions":1,"configs":[1]}"#,
            "configs",
        ),
        (
            "POST",
            "delete_topic",
            r#"{"cluster":"{c}","topic":7}"#,
            "topic",
        ),
        ("POST", "delete_topic", r#"{"cluster":"{c}"}"#, "topic"),
        ("GET", "topic_configs", "cluster={c}", "topic"),
        ("GET", "topic_configs", "cluster={c}&topic=a%2Fb", "topic"),
        ("GET", "subject", "cluster={c}", "subject"),
        ("GET", "schema", "cluster={c}", "subject"),
        (
            "GET",
            "schema",
            "cluster={c}&subject=s&version=first",
            "version",
        ),
        (
            "GET",
            "schema",
            "cluster={c}&subject=s&version=0",
            "version",
        ),
        (
            "POST",
            "alter_topic_configs",
            r#"{"cluster":"{c}","topic":"t","set":[1]}"#,
            "set",
        ),
        (
            "POST",
            "alter_topic_configs",
            r#"{"cluster":"{c}","topic":"t","remove":"retention.ms"}"#,
            "remove",
        ),
        (
            "POST",
            "alter_topic_configs",
            r#"{"cluster":"{c}","topic":"t","set":{"a":"1"},"dry_run":"maybe"}"#,
            "dry_run",
        ),
        (
            "POST",
            "alter_topic_configs",
            r#"{"cluster":"{c}","topic":"t"}"#,
            "set",
        ),
        (
            "POST",
            "add_partitions",
            r#"{"cluster":"{c}","topic":"t","count":"many"}"#,
            "count",
        ),
        (
            "POST",
            "add_partitions",
            r#"{"cluster":"{c}","count":3}"#,
            "topic",
        ),
        (
            "POST",
            "add_partitions",
            r#"{"cluster":"{c}","topic":"t","count":0}"#,
            "count",
        ),
        (
            "POST",
            "delete_records",
            r#"{"cluster":"{c}","topic":"t","partition":0,"offset":"x"}"#,
            "offset",
        ),
        (
            "POST",
            "delete_records",
            r#"{"cluster":"{c}","topic":"t","partition":"p","all":true}"#,
            "partition",
        ),
        (
            "POST",
            "delete_records",
            r#"{"cluster":"{c}","topic":"t","offset":3}"#,
            "partition",
        ),
        (
            "POST",
            "reset_offsets",
            r#"{"cluster":"{c}","to":"earliest"}"#,
            "group",
        ),
        (
            "POST",
            "reset_offsets",
            r#"{"cluster":"{c}","group":"g","to":"sideways"}"#,
            "to",
        ),
        (
            "POST",
            "reset_offsets",
            r#"{"cluster":"{c}","group":"g","to":"offset","dry_run":true}"#,
            "value",
        ),
        (
            "POST",
            "reset_offsets",
            r#"{"cluster":"{c}","group":"g","to":"latest"}"#,
            "plan",
        ),
        (
            "POST",
            "reset_offsets",
            r#"{"cluster":"{c}","group":"g","to":"latest","plan":{"a":1}}"#,
            "plan",
        ),
        (
            "POST",
            "delete_offsets",
            r#"{"cluster":"{c}","group":"g"}"#,
            "topic",
        ),
        (
            "POST",
            "delete_offsets",
            r#"{"cluster":"{c}","topic":"t"}"#,
            "group",
        ),
        (
            "POST",
            "delete_group",
            r#"{"cluster":"{c}","group":""}"#,
            "group",
        ),
        (
            "POST",
            "set_scram_credential",
            r#"{"cluster":"{c}","password":"p"}"#,
            "user",
        ),
        (
            "POST",
            "set_scram_credential",
            r#"{"cluster":"{c}","user":"u","mechanism":"SCRAM-SHA-1","password":"p"}"#,
            "mechanism",
        ),
        (
            "POST",
            "set_scram_credential",
            r#"{"cluster":"{c}","user":"u","iterations":1000,"password":"p"}"#,
            "iterations",
        ),
        (
            "POST",
            "set_scram_credential",
            r#"{"cluster":"{c}","user":"u"}"#,
            "password",
        ),
        (
            "POST",
            "delete_scram_credential",
            r#"{"cluster":"{c}","user":""}"#,
            "user",
        ),
        (
            "POST",
            "set_scram_credential",
            r#"{"cluster":"{c}","user":" u","password":"p"}"#,
            "user",
        ),
        (
            "POST",
            "create_acl",
            r#"{"cluster":"{c}","principal":"User:bob ","resource_type":"topic","resource_name":"t","operation":"read"}"#,
            "principal",
        ),
        (
            "POST",
            "create_acl",
            r#"{"cluster":"{c}","principal":"bob","resource_type":"topic","resource_name":"t","operation":"read"}"#,
            "principal",
        ),
        (
            "POST",
            "create_acl",
            r#"{"cluster":"{c}","principal":"User:bob","host":"everywhere","resource_type":"topic","resource_name":"t","operation":"read"}"#,
            "host",
        ),
        (
            "POST",
            "create_acl",
            r#"{"cluster":"{c}","principal":"User:bob","resource_type":"table","resource_name":"t","operation":"read"}"#,
            "resource_type",
        ),
        (
            "POST",
            "create_acl",
            r#"{"cluster":"{c}","principal":"User:bob","resource_type":"topic","operation":"read"}"#,
            "resource_name",
        ),
        (
            "POST",
            "create_acl",
            r#"{"cluster":"{c}","principal":"User:bob","resource_type":"topic","resource_name":"t","operation":"any"}"#,
            "operation",
        ),
        (
            "POST",
            "delete_acl",
            r#"{"cluster":"{c}","principal":"User:bob","resource_type":"topic","resource_name":"t","operation":"read","pattern_type":"match"}"#,
            "pattern_type",
        ),
        (
            "POST",
            "delete_acl",
            r#"{"cluster":"{c}","principal":"User:bob","resource_type":"topic","resource_name":"t","operation":"read","permission":"any"}"#,
            "permission",
        ),
        (
            "POST",
            "register_schema",
            r#"{"cluster":"{c}","schema":"{}"}"#,
            "subject",
        ),
        (
            "POST",
            "register_schema",
            r#"{"cluster":"{c}","subject":"s"}"#,
            "schema",
        ),
        (
            "POST",
            "register_schema",
            r#"{"cluster":"{c}","subject":"s","schema":"{}","type":"XML"}"#,
            "type",
        ),
        (
            "POST",
            "register_schema",
            r#"{"cluster":"{c}","subject":"s","schema":"{}","references":[{"name":"r","subject":"t","version":0}]}"#,
            "references/0",
        ),
        (
            "POST",
            "register_schema",
            r#"{"cluster":"{c}","subject":"s","schema":"{}","references":"r"}"#,
            "references",
        ),
        (
            "POST",
            "set_compatibility",
            r#"{"cluster":"{c}","subject":"s"}"#,
            "compatibility",
        ),
        (
            "POST",
            "set_compatibility",
            r#"{"cluster":"{c}","subject":"s","compatibility":"SIDEWAYS"}"#,
            "compatibility",
        ),
        (
            "POST",
            "set_compatibility",
            r#"{"cluster":"{c}","compatibility":"FULL"}"#,
            "subject",
        ),
        (
            "POST",
            "delete_schema",
            r#"{"cluster":"{c}","subject":"s","version":0}"#,
            "version",
        ),
        (
            "POST",
            "delete_schema",
            r#"{"cluster":"{c}","subject":"s","permanent":"yes"}"#,
            "permanent",
        ),
        (
            "POST",
            "delete_schema",
            r#"{"cluster":"{c}","subject":""}"#,
            "subject",
        ),
        (
            "POST",
            "produce",
            r#"{"cluster":"{c}","value":{"encoding":"text","data":"x"}}"#,
            "topic",
        ),
        (
            "POST",
            "produce",
            r#"{"cluster":"{c}","topic":"t","value":{"encoding":"base64","data":"@"}}"#,
            "value",
        ),
        (
            "POST",
            "produce",
            r#"{"cluster":"{c}","topic":"t","key":{"encoding":"pictures"}}"#,
            "key",
        ),
        (
            "POST",
            "produce",
            r#"{"cluster":"{c}","topic":"t","partition":"first"}"#,
            "partition",
        ),
        (
            "POST",
            "produce",
            r#"{"cluster":"{c}","topic":"t","headers":[{"key":"h","value":{"encoding":"text","data":1}}]}"#,
            "headers",
        ),
    ];
    for (method, endpoint, args, field) in cases {
        let request = |cluster: &str| -> (String, String) {
            let args = args.replace("{c}", cluster);
            if *method == "GET" {
                (format!("/api/{endpoint}?{args}"), String::new())
            } else {
                (format!("/api/{endpoint}"), args)
            }
        };
        let (uri, body) = request("rw");
        let e = call(&router, method, &uri, &body).await;
        assert_eq!(
            (e.code, e.field.as_deref()),
            (app::ErrorCode::BadRequest, Some(*field)),
            "{method} {uri} {body}: {}",
            e.message
        );
        let (uri, body) = request("hidden");
        let e = call(&router, method, &uri, &body).await;
        assert_eq!(
            e,
            app::ApiError::unknown_cluster("hidden"),
            "{method} {uri} {body}"
        );
    }
}

/// A password sent as something other than a string is refused without repeating it.
#[tokio::test]
async fn a_password_of_the_wrong_type_is_not_repeated() {
    let router = router_for(TWO);
    let e = call(
        &router,
        "POST",
        "/api/set_scram_credential",
        r#"{"cluster":"rw","user":"u","password":987654321}"#,
    )
    .await;
    assert_eq!(e.field.as_deref(), Some("password"));
    assert!(!e.message.contains("987654321"), "{}", e.message);
}

/// The calls whose only argument is the cluster: without it, BAD_REQUEST names it; with an
/// unknown one, UNKNOWN_CLUSTER.
#[tokio::test]
async fn calls_of_a_cluster_name_the_missing_cluster() {
    let router = router_for(TWO);
    for endpoint in [
        "cluster",
        "brokers",
        "acls",
        "scram_users",
        "subjects",
        "subject",
        "schema",
        "topics",
        "groups",
        "records",
        "topic_configs",
        "export",
        "tail",
    ] {
        let e = call(&router, "GET", &format!("/api/{endpoint}"), "").await;
        assert_eq!(
            (e.code, e.field.as_deref()),
            (app::ErrorCode::BadRequest, Some("cluster")),
            "{endpoint}: {}",
            e.message
        );
        let e = call(
            &router,
            "GET",
            &format!("/api/{endpoint}?cluster=hidden"),
            "",
        )
        .await;
        assert_eq!(e, app::ApiError::unknown_cluster("hidden"), "{endpoint}");
    }
    for endpoint in [
        "create_topic",
        "delete_topic",
        "alter_topic_configs",
        "add_partitions",
        "delete_records",
        "reset_offsets",
        "delete_offsets",
        "delete_group",
        "produce",
        "register_schema",
        "set_compatibility",
        "delete_schema",
        "create_acl",
        "delete_acl",
        "set_scram_credential",
        "delete_scram_credential",
    ] {
        let e = call(
            &router,
            "POST",
            &format!("/api/{endpoint}"),
            r#"{"topic":"t"}"#,
        )
        .await;
        assert_eq!(
            (e.code, e.field.as_deref()),
            (app::ErrorCode::BadRequest, Some("cluster")),
            "{endpoint}: {}",
            e.message
        );
    }
}

/// A write with bad arguments on a read-only cluster is refused for the cluster, not for the
/// arguments; a body that is not JSON at all names no cluster and is a BAD_REQUEST.
#[tokio::test]
async fn a_write_on_a_read_only_cluster_is_refused_before_its_arguments() {
    let router = router_for(TWO);
    for (endpoint, body) in [
        (
            "create_topic",
            r#"{"cluster":"ro","topic":"t","partitions":"three"}"#,
        ),
        ("create_topic", r#"{"cluster":"ro"}"#),
        ("delete_topic", r#"{"cluster":"ro","topic":["x"]}"#),
        (
            "alter_topic_configs",
            r#"{"cluster":"ro","topic":"t","set":"x"}"#,
        ),
        ("add_partitions", r#"{"cluster":"ro","count":"many"}"#),
        (
            "delete_records",
            r#"{"cluster":"ro","topic":"t","offset":[]}"#,
        ),
        (
            "reset_offsets",
            r#"{"cluster":"ro","group":"g","to":"nowhere"}"#,
        ),
        ("delete_offsets", r#"{"cluster":"ro","group":5}"#),
        ("delete_group", r#"{"cluster":"ro"}"#),
        ("produce", r#"{"cluster":"ro","topic":"t","value":7}"#),
        ("register_schema", r#"{"cluster":"ro","schema":5}"#),
        (
            "set_compatibility",
            r#"{"cluster":"ro","subject":"s","compatibility":"SIDEWAYS"}"#,
        ),
        ("delete_schema", r#"{"cluster":"ro","version":"one"}"#),
        ("create_acl", r#"{"cluster":"ro","principal":5}"#),
        ("delete_acl", r#"{"cluster":"ro","operation":"sideways"}"#),
        (
            "set_scram_credential",
            r#"{"cluster":"ro","iterations":"many"}"#,
        ),
        ("delete_scram_credential", r#"{"cluster":"ro","user":7}"#),
    ] {
        let e = call(&router, "POST", &format!("/api/{endpoint}"), body).await;
        assert_eq!(
            e,
            app::ApiError::read_only_cluster("ro"),
            "{endpoint} {body}"
        );
    }
    for body in ["not json", "[]", r#"{"topic":"t"}"#] {
        let e = call(&router, "POST", "/api/create_topic", body).await;
        assert_eq!(e.code, app::ErrorCode::BadRequest, "{body}: {}", e.message);
    }
}

/// Regression (hardening issue): answers carried no security headers. Every answer, a refusal
/// included, now forbids framing, sniffing and referrers to other sites, and carries a policy
/// with no inline script; with sign-in on, `/api` answers are not cached.
#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let auth = format!(
        "{QUIET}auth:\n  oidc:\n    issuer: http://127.0.0.1:9\n    client_id: klens\n    client_secret: s\n    redirect_uri: http://127.0.0.1:8080/auth/callback\n"
    );
    for (yaml, uri, no_store) in [
        (QUIET.to_string(), "/api/clusters", false),
        (QUIET.to_string(), "/health", false),
        (QUIET.to_string(), "/api/cluster?cluster=nope", false),
        (auth.clone(), "/api/whoami", true),
        (auth, "/health", false),
    ] {
        let request = Request::get(uri)
            .header("host", "127.0.0.1:8080")
            .body(Body::empty())
            .expect("request");
        let response = router_for(&yaml).oneshot(request).await.expect("answers");
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let policy = header("content-security-policy").unwrap_or_default();
        assert!(policy.contains("frame-ancestors 'none'"), "{uri}: {policy}");
        assert!(policy.contains("object-src 'none'"), "{uri}: {policy}");
        assert!(policy.contains("base-uri 'none'"), "{uri}: {policy}");
        assert!(!policy.contains("unsafe-inline"), "{uri}: {policy}");
        assert_eq!(header("x-frame-options").as_deref(), Some("DENY"), "{uri}");
        assert_eq!(header("x-content-type-options").as_deref(), Some("nosniff"));
        assert_eq!(header("referrer-policy").as_deref(), Some("same-origin"));
        assert_eq!(
            header("cache-control").as_deref() == Some("no-store"),
            no_store,
            "{uri}"
        );
    }
}

/// Too many streams answer 429 with the time to try again.
#[test]
fn too_many_requests_says_when_to_try_again() {
    let e = app::ApiError::new(app::ErrorCode::TooManyRequests, "busy");
    let response = super::error_response(&e);
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("5")
    );
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
