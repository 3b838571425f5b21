//! The web assets under `/pkg`: the WASM bundle, its JavaScript and the stylesheet. A release
//! build names each after a hash of its content (cargo-leptos writes the hashes to `hash.txt`
//! beside the binary, where Leptos reads them too), so a browser keeps them for a year and asks
//! again only for a new build's. A release build also lays brotli and gzip copies beside each
//! file, sent to browsers that accept them.

use std::path::Path;
use std::sync::OnceLock;

use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use tower_http::services::ServeDir;

/// How long a browser keeps an asset whose name carries its hash.
const FOR_A_YEAR: &str = "public, max-age=31536000, immutable";
/// An asset without a hash in its name may change under the same name: ask each time
/// (a `304` when it did not).
const ASK_AGAIN: &str = "no-cache";

/// The content hashes of this build's assets (`js`, `wasm`, `css`), read once from
/// `hash.txt` beside the running binary; `None` for a build without them.
fn hashes() -> Option<&'static Vec<(String, String)>> {
    static HASHES: OnceLock<Option<Vec<(String, String)>>> = OnceLock::new();
    HASHES
        .get_or_init(|| {
            let exe = std::env::current_exe().ok()?;
            let text = std::fs::read_to_string(exe.parent()?.join("hash.txt")).ok()?;
            Some(parse(&text))
        })
        .as_ref()
}

/// The lines `kind: hash` of a hash file.
fn parse(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(kind, hash)| (kind.trim().to_string(), hash.trim().to_string()))
        .filter(|(kind, hash)| !kind.is_empty() && !hash.is_empty())
        .collect()
}

/// Whether this build's assets carry their hash in their names.
pub fn hashed() -> bool {
    hashes().is_some()
}

/// Where the stylesheet is, for pages made outside the application (the sign-in failures).
pub fn css_href() -> String {
    href(hashes().map(Vec::as_slice), "klens", "css")
}

fn href(hashes: Option<&[(String, String)]>, output: &str, kind: &str) -> String {
    match hashes.and_then(|h| h.iter().find(|(k, _)| k == kind)) {
        Some((_, hash)) => format!("/pkg/{output}.{hash}.{kind}"),
        None => format!("/pkg/{output}.{kind}"),
    }
}

/// The router of `/pkg`: files of `site_root/pkg`, their brotli or gzip copy when the browser
/// accepts one, with the caching their names allow.
pub fn router<S: Clone + Send + Sync + 'static>(site_root: &str) -> Router<S> {
    let files = ServeDir::new(Path::new(site_root).join("pkg"))
        .precompressed_br()
        .precompressed_gzip();
    Router::new()
        .fallback_service(files)
        .layer(axum::middleware::from_fn(caching))
}

async fn caching(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let policy = if hashed() { FOR_A_YEAR } else { ASK_AGAIN };
    if response.status().is_success() || response.status().as_u16() == 304 {
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_file_names_each_asset() {
        let hashes = parse("js: abc123\nwasm: def456\ncss: 0f0f\n\nbroken line\n");
        assert_eq!(href(Some(&hashes), "klens", "css"), "/pkg/klens.0f0f.css");
        assert_eq!(
            href(Some(&hashes), "klens", "wasm"),
            "/pkg/klens.def456.wasm"
        );
        assert_eq!(href(None, "klens", "css"), "/pkg/klens.css");
        assert_eq!(href(Some(&[]), "klens", "css"), "/pkg/klens.css");
    }
}
