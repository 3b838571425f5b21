//! The web assets under `/pkg`: the WASM bundle, its JavaScript and the stylesheet, as the
//! `bundle` program makes them. Each file is named after a hash of the whole set (the stem in
//! `bundle.txt`, `klens.<hash>`), so a browser keeps them for a year and asks again only for a
//! new build's; each has a brotli and a gzip copy, sent to browsers that accept one.
//!
//! A release binary carries the files inside it (the `klens` package's `build.rs` hands them
//! over as a [`BuiltIn`]); `--site-root` or `KLENS_SITE_ROOT` names a folder to serve instead,
//! as does a build without them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use leptos::config::LeptosOptions;
use tower_http::services::ServeDir;

/// How long a browser keeps an asset: its name changes with its content.
const FOR_A_YEAR: &str = "public, max-age=31536000, immutable";

/// One file built into the binary, with its compressed copies.
#[derive(Debug)]
pub struct Embedded {
    /// Relative to `/pkg`, `/`-separated.
    pub path: &'static str,
    pub raw: &'static [u8],
    pub br: Option<&'static [u8]>,
    pub gzip: Option<&'static [u8]>,
}

/// The site a binary carries: its files' stem and the files.
#[derive(Clone, Copy, Debug)]
pub struct BuiltIn {
    pub stem: &'static str,
    pub files: &'static [Embedded],
}

/// Where the files come from.
#[derive(Clone, Debug)]
pub enum Files {
    /// Built into this binary.
    Embedded(&'static [Embedded]),
    /// A site folder: `pkg/` and `bundle.txt` inside it.
    Folder(PathBuf),
}

/// The web assets klens serves: their names' stem and where they are.
#[derive(Clone, Debug)]
pub struct Site {
    pub stem: String,
    pub files: Files,
}

/// The stem of the assets this process serves, for pages made outside the application.
static STEM: OnceLock<String> = OnceLock::new();

/// The folder a development build serves when nothing else is named.
const DEVELOPMENT_SITE: &str = "target/site";

impl Site {
    /// The folder `root` when one is named (`--site-root`, `KLENS_SITE_ROOT`; refused when it
    /// holds no site), else the files built into the binary, else the development build's
    /// `target/site`, or no site at all with a warning.
    pub fn locate(root: Option<PathBuf>, built_in: Option<BuiltIn>) -> Result<Site, String> {
        let site = match (root, built_in) {
            (Some(root), _) => Site::folder(&root)?,
            (None, Some(site)) => {
                Site { stem: site.stem.to_string(), files: Files::Embedded(site.files) }
            }
            // A development build (tests, `cargo run`) still serves the API and the pages
            // without a site; the browser then has no script or style to load.
            (None, None) => Site::folder(Path::new(DEVELOPMENT_SITE)).unwrap_or_else(|e| {
                tracing::warn!(
                    "{e}: this klens was built without its web assets and pages will not \
                     hydrate; build it with `make build`, or name a site folder with --site-root"
                );
                Site {
                    stem: "klens".to_string(),
                    files: Files::Folder(PathBuf::from(DEVELOPMENT_SITE)),
                }
            }),
        };
        let _ = STEM.set(site.stem.clone());
        Ok(site)
    }

    /// The site in `root`, named by its `bundle.txt`.
    pub fn folder(root: &Path) -> Result<Site, String> {
        let stem_file = root.join("bundle.txt");
        let stem = std::fs::read_to_string(&stem_file)
            .map_err(|e| format!("web assets: cannot read {} ({e})", stem_file.display()))?;
        let stem = stem.trim();
        let name_like = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if stem.is_empty() || !stem.chars().all(name_like) || stem.starts_with('.') {
            return Err(format!("web assets: {} does not name the files", stem_file.display()));
        }
        Ok(Site { stem: stem.to_string(), files: Files::Folder(root.to_path_buf()) })
    }

    /// Leptos's view of the site: the stem is the output name, so the pages' script and
    /// stylesheet tags name the hashed files.
    pub fn leptos_options(&self, address: std::net::SocketAddr) -> LeptosOptions {
        let root = match &self.files {
            Files::Folder(root) => root.to_string_lossy().into_owned(),
            Files::Embedded(_) => String::new(),
        };
        LeptosOptions::builder()
            .output_name(self.stem.as_str())
            .site_root(root)
            .site_pkg_dir("pkg")
            .hash_files(false)
            .site_addr(address)
            .build()
    }
}

/// Where the stylesheet is, for pages made outside the application (the sign-in failures).
pub fn css_href() -> String {
    format!("/pkg/{}.css", STEM.get().map_or("klens", String::as_str))
}

/// The router of `/pkg`.
pub fn router<S: Clone + Send + Sync + 'static>(files: &Files) -> Router<S> {
    let router = match files {
        &Files::Embedded(files) => Router::new()
            .route("/{*path}", get(move |uri, headers| embedded_file(files, uri, headers)))
            .fallback(|| async { StatusCode::NOT_FOUND }),
        Files::Folder(root) => Router::new().fallback_service(
            ServeDir::new(root.join("pkg")).precompressed_br().precompressed_gzip(),
        ),
    };
    router.layer(axum::middleware::from_fn(caching))
}

async fn embedded_file(files: &'static [Embedded], uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path().trim_start_matches('/');
    let Some(file) = files.iter().find(|file| file.path == path) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let accepts = Accepts::from(&headers);
    let (body, encoding) = match (file.br, file.gzip) {
        (Some(br), _) if accepts.br => (br, Some("br")),
        (_, Some(gzip)) if accepts.gzip => (gzip, Some("gzip")),
        _ => (file.raw, None),
    };
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type(path)));
    if let Some(encoding) = encoding {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
    }
    response
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, extension)| extension) {
        Some("js") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The compressed forms a request's `Accept-Encoding` allows (a `q=0` refuses one).
#[derive(Debug, Default, PartialEq, Eq)]
struct Accepts {
    br: bool,
    gzip: bool,
}

impl Accepts {
    fn from(headers: &HeaderMap) -> Accepts {
        let mut accepts = Accepts::default();
        for value in headers.get_all(header::ACCEPT_ENCODING) {
            let Ok(value) = value.to_str() else { continue };
            for item in value.split(',') {
                let mut parts = item.split(';');
                let coding = parts.next().unwrap_or_default().trim();
                let refused = parts.any(|p| {
                    let p = p.trim().to_ascii_lowercase();
                    p.strip_prefix("q=")
                        .and_then(|q| q.trim().parse::<f32>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                match coding.to_ascii_lowercase().as_str() {
                    "br" => accepts.br = !refused,
                    "gzip" | "x-gzip" => accepts.gzip = !refused,
                    _ => {}
                }
            }
        }
        accepts
    }
}

async fn caching(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    if response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED {
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(FOR_A_YEAR));
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts(values: &[&str]) -> Accepts {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::ACCEPT_ENCODING, HeaderValue::from_str(value).expect("value"));
        }
        Accepts::from(&headers)
    }

    #[test]
    fn accept_encoding_allows_what_it_names_without_a_zero_weight() {
        assert_eq!(accepts(&["gzip, deflate, br, zstd"]), Accepts { br: true, gzip: true });
        assert_eq!(accepts(&["gzip;q=0.5, br;q=0"]), Accepts { br: false, gzip: true });
        assert_eq!(accepts(&["BR", "x-gzip ; Q=0.0"]), Accepts { br: true, gzip: false });
        assert_eq!(accepts(&[]), Accepts::default());
        assert_eq!(accepts(&["identity, *;q=0"]), Accepts::default());
    }

    #[test]
    fn a_site_folder_is_named_by_its_bundle_file() {
        let root = std::env::temp_dir().join(format!("klens-site-{}", std::process::id()));
        std::fs::create_dir_all(&root).expect("dir");
        assert!(Site::folder(&root).err().is_some_and(|e| e.contains("bundle.txt")));
        std::fs::write(root.join("bundle.txt"), "../etc\n").expect("write");
        assert!(Site::folder(&root).is_err(), "a stem is a name, not a path");
        std::fs::write(root.join("bundle.txt"), "klens\"><script>\n").expect("write");
        assert!(Site::folder(&root).is_err(), "a stem goes into pages: names only");
        std::fs::write(root.join("bundle.txt"), "klens.0123abcd\n").expect("write");
        let site = Site::folder(&root).expect("site");
        assert_eq!(site.stem, "klens.0123abcd");
        let options = site.leptos_options(([127, 0, 0, 1], 8080).into());
        assert_eq!(&*options.output_name, "klens.0123abcd");
        assert!(!options.hash_files);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn content_types_let_browsers_run_the_files() {
        assert_eq!(content_type("klens.ab.wasm"), "application/wasm");
        assert_eq!(content_type("klens.ab.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("snippets/x/inline0.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("klens.ab.css"), "text/css; charset=utf-8");
        assert_eq!(content_type("README"), "application/octet-stream");
    }
}
