//! Embeds the web assets in the binary when `KLENS_EMBED_SITE` names a folder made by the
//! `bundle` program (`make build` does): its `bundle.txt` and every file under its `pkg`, each
//! with the brotli and gzip copies beside it. Without the variable (tests, `cargo run`) nothing
//! is embedded and klens serves the assets from a folder.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=KLENS_EMBED_SITE");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let code = match std::env::var_os("KLENS_EMBED_SITE") {
        Some(site) if !site.is_empty() => embed(Path::new(&site)),
        _ => "pub const SITE: Option<BuiltIn> = None;\n".to_string(),
    };
    std::fs::write(out.join("embedded_site.rs"), code).expect("write embedded_site.rs");
}

fn embed(site: &Path) -> String {
    let site =
        site.canonicalize().unwrap_or_else(|e| panic!("KLENS_EMBED_SITE={}: {e}", site.display()));
    // A directory here makes cargo look at everything under it for changes.
    println!("cargo:rerun-if-changed={}", site.display());
    let stem_file = site.join("bundle.txt");
    let stem = std::fs::read_to_string(&stem_file).unwrap_or_else(|e| {
        panic!(
            "KLENS_EMBED_SITE: {} ({e}); build the site with the bundle program first",
            stem_file.display()
        )
    });
    let stem = stem.trim();
    let pkg = site.join("pkg");
    // The pages name these three files by the stem: a site without them is not one to ship.
    for kind in ["js", "wasm", "css"] {
        let file = pkg.join(format!("{stem}.{kind}"));
        if !file.is_file() {
            panic!(
                "KLENS_EMBED_SITE: {} names {stem}, but {} is missing",
                stem_file.display(),
                file.display()
            );
        }
    }
    let mut files = Vec::new();
    collect(&pkg, &pkg, &mut files);
    files.sort();
    let mut code = format!(
        "pub const SITE: Option<BuiltIn> = Some(BuiltIn {{ stem: {stem:?}, files: FILES }});\n"
    );
    code.push_str("static FILES: &[server::http::assets::Embedded] = &[\n");
    for relative in files {
        let path = pkg.join(&relative);
        let copy = |suffix: &str| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            let copy = PathBuf::from(name);
            if copy.exists() {
                format!("Some(include_bytes!({:?}))", copy.display().to_string())
            } else {
                "None".to_string()
            }
        };
        let _ = writeln!(
            code,
            "    server::http::assets::Embedded {{ path: {:?}, raw: include_bytes!({:?}), br: {}, gzip: {} }},",
            relative,
            path.display().to_string(),
            copy(".br"),
            copy(".gz")
        );
    }
    code.push_str("];\n");
    code
}

/// Every file under `dir` but the compressed copies, as `/`-separated paths relative to `root`.
fn collect(root: &Path, dir: &Path, files: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("KLENS_EMBED_SITE: {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect(root, &path, files);
        } else if !matches!(path.extension().and_then(|e| e.to_str()), Some("br" | "gz")) {
            let relative = path.strip_prefix(root).expect("under the root");
            let parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push(parts.join("/"));
        }
    }
}
