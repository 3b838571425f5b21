//! The guards in front of every route: allowed hosts, cross-site writes, JSON-only writes,
//! sessions, security headers and the answer to too many requests.

use super::*;

const HOST_NOT_ALLOWED: &str = r#"{"code":"HOST_NOT_ALLOWED","message":"This host name is not in allowed_hosts of the klens config."}"#;

#[tokio::test]
async fn a_host_outside_allowed_hosts_is_refused_everywhere_but_the_probes() {
    for uri in ["/", "/api/clusters", "/api/whoami", "/c/quiet", "/pkg/klens.js"] {
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
    let missing_host = Request::get("/api/clusters").body(Body::empty()).expect("request");
    assert_eq!(send(missing_host).await.0, StatusCode::FORBIDDEN);
    for uri in ["/health", "/ready"] {
        let request =
            Request::get(uri).header("host", "10.1.2.3").body(Body::empty()).expect("request");
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
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{content_type:?}: {text}");
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

/// With sign-in on, the session comes first and allowed_hosts is not consulted; no request here
/// reaches the identity provider.
#[tokio::test]
async fn with_auth_the_session_is_checked_and_hosts_are_not() {
    let yaml = format!(
        "{QUIET}auth:\n  oidc:\n    issuer: http://127.0.0.1:9\n    client_id: klens\n    client_secret: s\n    redirect_uri: http://127.0.0.1:8080/auth/callback\n"
    );
    let request = |uri: &str| {
        Request::get(uri).header("host", "rebound.example").body(Body::empty()).expect("request")
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
        response.headers().get("location").and_then(|l| l.to_str().ok()),
        Some("/auth/login?next=%2Fc%2Fquiet%2Ftopics%3Fsort%3Dname")
    );
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
            response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
        };
        let policy = header("content-security-policy").unwrap_or_default();
        assert!(policy.contains("frame-ancestors 'none'"), "{uri}: {policy}");
        assert!(policy.contains("object-src 'none'"), "{uri}: {policy}");
        assert!(policy.contains("base-uri 'none'"), "{uri}: {policy}");
        assert!(!policy.contains("unsafe-inline"), "{uri}: {policy}");
        assert_eq!(header("x-frame-options").as_deref(), Some("DENY"), "{uri}");
        assert_eq!(header("x-content-type-options").as_deref(), Some("nosniff"));
        assert_eq!(header("referrer-policy").as_deref(), Some("same-origin"));
        assert_eq!(header("cache-control").as_deref() == Some("no-store"), no_store, "{uri}");
    }
}

/// Too many streams answer 429 with the time to try again.
#[test]
fn too_many_requests_says_when_to_try_again() {
    let e = app::ApiError::new(app::ErrorCode::TooManyRequests, "busy");
    let response = crate::http::error_response(&e);
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(response.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("5"));
}
