//! `klens --config config.yaml`: load and check the config, start one refresh loop per cluster,
//! serve the UI, `/api` and the probes.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// The web assets `build.rs` built in, when `KLENS_EMBED_SITE` named them.
mod built_in {
    use server::http::assets::BuiltIn;
    include!(concat!(env!("OUT_DIR"), "/embedded_site.rs"));
}

const USAGE: &str = "usage: klens [--config FILE] [--check-config] [--site-root DIR]

  --config FILE     the configuration file (default: ./config.yaml)
  --check-config    validate the configuration and exit 0 (valid) or 1, without connecting
  --site-root DIR   serve the web assets of DIR (made by `make site`) instead of the built-in ones
  --help            show this help
  --version         show the version

Environment: KLENS_SITE_ROOT is the same as --site-root; RUST_LOG sets the log filter
(default: info).";

struct Args {
    config: PathBuf,
    check_only: bool,
    site_root: Option<PathBuf>,
}

/// Reads the arguments as the OS gives them: a config path need not be UTF-8.
fn parse_args(arguments: impl IntoIterator<Item = OsString>) -> Result<Option<Args>, String> {
    let mut args =
        Args { config: PathBuf::from("config.yaml"), check_only: false, site_root: None };
    let mut iter = arguments.into_iter();
    while let Some(arg) = iter.next() {
        if let Some(path) = arg.as_bytes().strip_prefix(b"--config=") {
            args.config = PathBuf::from(OsStr::from_bytes(path));
            continue;
        }
        if let Some(path) = arg.as_bytes().strip_prefix(b"--site-root=") {
            args.site_root = Some(PathBuf::from(OsStr::from_bytes(path)));
            continue;
        }
        match arg.to_str() {
            Some("--config" | "-c") => {
                let value = iter.next().ok_or_else(|| "--config needs a file path".to_string())?;
                args.config = PathBuf::from(value);
            }
            Some("--site-root") => {
                let value = iter.next().ok_or_else(|| "--site-root needs a folder".to_string())?;
                args.site_root = Some(PathBuf::from(value));
            }
            Some("--check-config") => args.check_only = true,
            Some("--help" | "-h") => {
                println!("{USAGE}");
                return Ok(None);
            }
            Some("--version" | "-V") => {
                println!("klens {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            _ => return Err(format!("unknown argument `{}`; try --help", arg.to_string_lossy())),
        }
    }
    Ok(Some(args))
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args_os().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => return ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("klens: {message}");
            return ExitCode::from(2);
        }
    };
    let config = match server::config::load(&args.config) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("klens: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.check_only {
        println!(
            "{}: valid ({} cluster{})",
            args.config.display(),
            config.clusters.len(),
            if config.clusters.len() == 1 { "" } else { "s" }
        );
        return ExitCode::SUCCESS;
    }
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    match config.log_format {
        server::config::LogFormat::Text => tracing_subscriber::fmt().with_env_filter(filter).init(),
        // The same fields as the text lines, one JSON object a line.
        server::config::LogFormat::Json => {
            tracing_subscriber::fmt().json().with_current_span(false).with_env_filter(filter).init()
        }
    }
    let site_root =
        args.site_root.or_else(|| std::env::var_os("KLENS_SITE_ROOT").map(PathBuf::from));
    let site = match server::http::assets::Site::locate(site_root, built_in::SITE) {
        Ok(site) => site,
        Err(e) => {
            eprintln!("klens: {e}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("klens: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(config, site)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("klens: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(
    config: server::config::Config, site: server::http::assets::Site,
) -> Result<(), String> {
    let catalog = Arc::new(server::catalog::Catalog::new(&config));
    catalog.spawn_refreshers();
    // The one service, handed to the doors side by side.
    let service = Arc::new(server::service::Service::from_config(&config, catalog)?);
    // Copy jobs whose replica stopped mid-way are ended by whichever replica finds them.
    server::service::copy_jobs::sweep_forever(Arc::clone(&service));
    let mut state = server::http::AppState::new(
        site.leptos_options(config.listen),
        &config,
        Arc::clone(&service),
    )?;
    state.files = site.files;
    let mcp = match &config.mcp {
        Some(mcp) => {
            let listener = tokio::net::TcpListener::bind(mcp.listen)
                .await
                .map_err(|e| format!("cannot listen on {} (mcp.listen): {e}", mcp.listen))?;
            Some((listener, server::mcp::router(Arc::clone(&service), mcp)))
        }
        None => None,
    };
    server::metrics::install();
    let metrics = match config.metrics_listen {
        Some(address) => {
            let listener = tokio::net::TcpListener::bind(address)
                .await
                .map_err(|e| format!("cannot listen on {address} (metrics.listen): {e}"))?;
            Some((listener, server::http::metrics_router(Arc::clone(&service))))
        }
        None => None,
    };
    let router = server::http::app(state);
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("cannot listen on {} (listen): {e}", config.listen))?;
    tracing::info!("klens listens on http://{}", config.listen);
    // Without sign-in, or with sign-in but no roles, everyone holds every privilege.
    if !config.masking.is_empty() && config.auth.as_ref().is_none_or(|a| a.roles.is_empty()) {
        tracing::warn!(
            "masking is configured but everyone on the web UI and /api holds UNMASK (sign-in is \
             off, or no roles are configured) and reads records unmasked; only MCP calls \
             without it see them masked"
        );
    }
    for (what, side) in [("/metrics", metrics), ("the MCP listener", mcp)] {
        if let Some((listener, router)) = side {
            spawn_side_listener(what, listener, router)?;
        }
    }
    server::http::serve::serve(
        listener,
        router,
        server::http::serve::HEADER_READ_TIMEOUT,
        shutdown_signal(),
    )
    .await;
    Ok(())
}

/// Serves `router` on `listener` beside the UI's port until shutdown.
fn spawn_side_listener(
    what: &str, listener: tokio::net::TcpListener, router: axum::Router,
) -> Result<(), String> {
    tracing::info!(
        "{what} answers on http://{}",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    tokio::spawn(server::http::serve::serve(
        listener,
        router,
        server::http::serve::HEADER_READ_TIMEOUT,
        shutdown_signal(),
    ));
    Ok(())
}

/// Ends on Ctrl-C or SIGTERM, so `kill` and service managers stop klens cleanly.
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate => {}
    }
    tracing::info!("shutting down");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStringExt;

    fn parsed(args: &[&[u8]]) -> Result<Option<Args>, String> {
        parse_args(args.iter().map(|a| OsString::from_vec(a.to_vec())))
    }

    /// Regression: arguments that are not UTF-8 used to panic in `std::env::args`.
    #[test]
    fn arguments_need_not_be_utf8() {
        let path: &[u8] = b"/etc/kl\xffens.yaml";
        for args in [&[b"--config".as_slice(), path][..], &[b"--config=/etc/kl\xffens.yaml"]] {
            let got = parsed(args).expect("parsed").expect("arguments");
            assert_eq!(got.config.as_os_str().as_bytes(), path);
        }
        let e = parsed(&[b"--b\xffd"]).err().expect("refused");
        assert!(e.starts_with("unknown argument `--b"), "{e}");
        assert!(parsed(&[b"--config"]).is_err());
        let got = parsed(&[b"--check-config"]).expect("parsed").expect("arguments");
        assert!(got.check_only);
    }

    #[test]
    fn a_site_folder_can_be_named_either_way() {
        for args in [&[b"--site-root".as_slice(), b"/srv/site"][..], &[b"--site-root=/srv/site"]] {
            let got = parsed(args).expect("parsed").expect("arguments");
            assert_eq!(got.site_root, Some(PathBuf::from("/srv/site")));
        }
        assert!(parsed(&[b"--site-root"])
            .err()
            .is_some_and(|e| e.contains("--site-root needs a folder")));
        let none = parsed(&[]).expect("parsed").expect("arguments");
        assert_eq!(none.site_root, None, "the built-in assets by default");
    }
}
