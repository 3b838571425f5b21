//! The web assets of a site folder under `/pkg`: a brotli or gzip copy for a browser that takes
//! one, the file itself for the rest, a year's caching (the names carry a hash), and no file
//! outside `/pkg`. The assets built into a release binary are checked by the browser suite.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use server::catalog::Catalog;
use server::http::assets::Site;
use server::http::{app, AppState};

use crate::support::*;

async fn get(
    router: &axum::Router, path: &str, encoding: Option<&str>,
) -> axum::response::Response {
    use tower::ServiceExt;
    let mut request = Request::get(path).header("host", "127.0.0.1:8080");
    if let Some(encoding) = encoding {
        request = request.header("accept-encoding", encoding);
    }
    router.clone().oneshot(request.body(Body::empty()).expect("request")).await.expect("an answer")
}

async fn body(response: axum::response::Response) -> Vec<u8> {
    use http_body_util::BodyExt;
    response.into_body().collect().await.expect("body").to_bytes().to_vec()
}

#[tokio::test]
async fn assets_go_compressed_to_browsers_that_take_it_with_their_caching() {
    let site = std::env::temp_dir().join(unique("klens-site"));
    std::fs::create_dir_all(site.join("pkg")).expect("site");
    std::fs::write(site.join("bundle.txt"), "klens.0a1b2c\n").expect("stem");
    std::fs::write(site.join("pkg/klens.0a1b2c.css"), "body { color: red }").expect("css");
    std::fs::write(site.join("pkg/klens.0a1b2c.css.br"), b"brotli bytes").expect("br");
    std::fs::write(site.join("pkg/klens.0a1b2c.css.gz"), b"gzip bytes").expect("gz");
    std::fs::write(site.join("secret.yaml"), "password: hunter2").expect("other file");
    let config = config("clusters:\n  - name: quiet\n    bootstrap_servers: 127.0.0.1:1\n");
    let assets = Site::folder(&site).expect("a site folder");
    let leptos = assets.leptos_options(config.listen);
    let router = app(AppState::new(
        leptos,
        &config,
        std::sync::Arc::new(
            server::service::Service::from_config(&config, Arc::new(Catalog::new(&config)))
                .expect("service"),
        ),
    )
    .expect("state"));

    for (accepts, encoding, bytes) in [
        (Some("gzip, deflate, br"), Some("br"), &b"brotli bytes"[..]),
        (Some("gzip"), Some("gzip"), &b"gzip bytes"[..]),
        (Some("br;q=0, gzip"), Some("gzip"), &b"gzip bytes"[..]),
        (None, None, &b"body { color: red }"[..]),
    ] {
        let response = get(&router, "/pkg/klens.0a1b2c.css", accepts).await;
        assert_eq!(response.status(), StatusCode::OK, "{accepts:?}");
        let headers = response.headers().clone();
        assert_eq!(
            headers.get("content-encoding").and_then(|v| v.to_str().ok()),
            encoding,
            "{accepts:?}"
        );
        assert_eq!(
            headers["cache-control"], "public, max-age=31536000, immutable",
            "the names change with the content"
        );
        assert_eq!(headers["vary"], "accept-encoding");
        assert_eq!(headers["x-content-type-options"], "nosniff", "the security headers stay");
        assert_eq!(body(response).await, bytes, "{accepts:?}");
    }
    let missing = get(&router, "/pkg/nothing.js", Some("br")).await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert!(missing.headers().get("cache-control").is_none());

    // The pages name the files by the stem; nothing outside /pkg is served as a file.
    let page = get(&router, "/", None).await;
    let html = String::from_utf8(body(page).await).expect("utf-8");
    for name in ["/pkg/klens.0a1b2c.css", "/pkg/klens.0a1b2c.js", "/pkg/klens.0a1b2c.wasm"] {
        assert!(html.contains(name), "{name} in the page");
    }
    for path in ["/secret.yaml", "/bundle.txt"] {
        let other = get(&router, path, None).await;
        assert_eq!(other.status(), StatusCode::NOT_FOUND, "{path}");
        let text = String::from_utf8(body(other).await).expect("utf-8");
        assert!(!text.contains("hunter2") && !text.contains("0a1b2c\n"), "{path}");
    }
    let _ = std::fs::remove_dir_all(&site);
}
