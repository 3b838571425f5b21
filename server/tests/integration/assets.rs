//! The web assets under `/pkg`: a brotli or gzip copy for a browser that takes one, the file
//! itself for the rest, and the caching the names allow (a debug build's names carry no hash:
//! ask again each time).

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use server::catalog::Catalog;
use server::http::{app, AppState};

use crate::support::*;

async fn get(
    router: &axum::Router,
    path: &str,
    encoding: Option<&str>,
) -> axum::response::Response {
    use tower::ServiceExt;
    let mut request = Request::get(path).header("host", "127.0.0.1:8080");
    if let Some(encoding) = encoding {
        request = request.header("accept-encoding", encoding);
    }
    router
        .clone()
        .oneshot(request.body(Body::empty()).expect("request"))
        .await
        .expect("an answer")
}

async fn body(response: axum::response::Response) -> Vec<u8> {
    use http_body_util::BodyExt;
    response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .to_vec()
}

#[tokio::test]
async fn assets_go_compressed_to_browsers_that_take_it_with_their_caching() {
    let site = std::env::temp_dir().join(unique("klens-site"));
    std::fs::create_dir_all(site.join("pkg")).expect("site");
    std::fs::write(site.join("pkg/klens.css"), "body { color: red }").expect("css");
    std::fs::write(site.join("pkg/klens.css.br"), b"brotli bytes").expect("br");
    std::fs::write(site.join("pkg/klens.css.gz"), b"gzip bytes").expect("gz");
    let config = config("clusters:\n  - name: quiet\n    bootstrap_servers: 127.0.0.1:1\n");
    let leptos = leptos::config::LeptosOptions::builder()
        .output_name("klens")
        .site_root(site.to_string_lossy().to_string())
        .build();
    let router =
        app(AppState::new(leptos, &config, Arc::new(Catalog::new(&config))).expect("state"));

    for (accepts, encoding, bytes) in [
        (Some("gzip, deflate, br"), Some("br"), &b"brotli bytes"[..]),
        (Some("gzip"), Some("gzip"), &b"gzip bytes"[..]),
        (None, None, &b"body { color: red }"[..]),
    ] {
        let response = get(&router, "/pkg/klens.css", accepts).await;
        assert_eq!(response.status(), StatusCode::OK, "{accepts:?}");
        let headers = response.headers().clone();
        assert_eq!(
            headers
                .get("content-encoding")
                .and_then(|v| v.to_str().ok()),
            encoding,
            "{accepts:?}"
        );
        assert_eq!(
            headers["cache-control"], "no-cache",
            "a debug build's names carry no hash"
        );
        assert_eq!(headers["vary"], "accept-encoding");
        assert_eq!(
            headers["x-content-type-options"], "nosniff",
            "the security headers stay"
        );
        assert_eq!(body(response).await, bytes, "{accepts:?}");
    }
    let missing = get(&router, "/pkg/nothing.js", Some("br")).await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert!(missing.headers().get("cache-control").is_none());
    let _ = std::fs::remove_dir_all(&site);
}
