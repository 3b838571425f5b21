//! The HTTP door: the axum router with the Leptos pages, the `/api/*` server functions and the
//! probes. Built by [`app`] so tests can drive it without a socket.

use std::sync::Arc;

use app::api::backend::SharedBackend;
use app::api::HealthStatus;
use app::{shell, ApiError, App, ErrorCode};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::{Json, Router};
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{generate_route_list, LeptosRoutes};
use serde_json::json;

use crate::auth::oidc::Oidc;
use crate::auth::Policy;
use crate::catalog::Catalog;
use crate::config::Config;
use crate::service::Service;
use backend::Door;
use guards::GuardConfig;

pub mod assets;
mod backend;
pub mod guards;
pub mod serve;
mod session;
mod streams;

/// What every handler may reach.
#[derive(Clone)]
pub struct AppState {
    pub leptos: LeptosOptions,
    /// Where `/pkg` comes from: the folder of `leptos.site_root` unless set otherwise.
    pub files: assets::Files,
    pub catalog: Arc<Catalog>,
    pub policy: Arc<Policy>,
    pub service: Arc<Service>,
    pub guards: Arc<GuardConfig>,
    /// Present exactly when sign-in is on.
    pub oidc: Option<Arc<Oidc>>,
}

impl AppState {
    /// The UI door's state over `service`, which `main` builds and hands to the MCP door too.
    pub fn new(
        leptos: LeptosOptions, config: &Config, service: Arc<Service>,
    ) -> Result<Self, String> {
        let policy = Arc::clone(&service.policy);
        let oidc = match &config.auth {
            Some(auth) => Some(Arc::new(Oidc::new(auth)?)),
            None => None,
        };
        Ok(AppState {
            files: assets::Files::Folder(std::path::PathBuf::from(&*leptos.site_root)),
            leptos,
            catalog: Arc::clone(&service.catalog),
            service,
            guards: Arc::new(GuardConfig::new(&config.allowed_hosts, policy.auth_enabled())),
            policy,
            oidc,
        })
    }
}

impl axum::extract::FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}

/// The whole router of the UI port.
pub fn app(state: AppState) -> Router {
    let backend: SharedBackend = Arc::new(Door { service: Arc::clone(&state.service) });
    let guards = Arc::clone(&state.guards);
    let routes = generate_route_list(App);
    let context = move || provide_context(backend.clone());
    let leptos = state.leptos.clone();
    let oidc = state.oidc.clone();
    let router = Router::new()
        .route("/health", get(health))
        .route("/ready", get(ready))
        .route("/metrics", get(metrics))
        // Registers every server function at its own `/api/<name>` path.
        .leptos_routes_with_context(&state, routes, context, move || shell(leptos.clone()))
        .route("/api/export", get(streams::export))
        .route("/api/tail", get(streams::tail))
        // Anything else under /api is not a call klens knows.
        .route("/api/{*name}", any(unknown_api_call))
        .nest("/pkg", assets::router(&state.files))
        // Any other path is a page of the app (its own "not found" page included); no file
        // outside /pkg is served.
        .fallback({
            let state = state.clone();
            let leptos = state.leptos.clone();
            let render = leptos_axum::render_app_to_stream_in_order_with_context(
                move || provide_context(state.clone()),
                move || shell(leptos.clone()),
            );
            move |request: axum::extract::Request| render(request)
        });
    let router = match &oidc {
        Some(oidc) => router.merge(session::routes(Arc::clone(oidc))),
        None => router,
    };
    // Layers run outermost first: session → host → cross-site → JSON body, then the handler.
    let router = router
        .layer(axum::extract::DefaultBodyLimit::disable())
        .layer(axum::middleware::from_fn(guards::body_limits))
        .layer(axum::middleware::from_fn(guards::json_writes))
        .layer(axum::middleware::from_fn(guards::same_origin_writes))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&guards), guards::allowed_hosts));
    let router = match oidc {
        // With sign-in, the session is checked before anything else.
        Some(oidc) => router
            .layer(axum::middleware::from_fn(session::require_session))
            .layer(session::session_layer(&oidc)),
        None => router,
    };
    // Outermost: every answer, refusals included, carries the security headers, and is
    // counted by its route and status; the guards' refusals are audited.
    router
        .layer(axum::middleware::from_fn(retry_after))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state.service),
            guards::record_refusals,
        ))
        .layer(axum::middleware::from_fn_with_state(guards, guards::security_headers))
        .layer(axum::middleware::from_fn(crate::metrics::track))
        .with_state(state)
}

/// Every `429 TOO_MANY_REQUESTS` says when to try again, the server functions' too.
async fn retry_after(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let mut response = next.run(request).await;
    if response.status() == StatusCode::TOO_MANY_REQUESTS {
        response
            .headers_mut()
            .entry(axum::http::header::RETRY_AFTER)
            .or_insert(axum::http::HeaderValue::from(app::RETRY_AFTER_SECONDS));
    }
    response
}

/// `/metrics`: Prometheus's text format. On this port it takes a session when sign-in is on,
/// and shows a cluster, topic or group only to a caller who sees it; `metrics.listen` serves
/// every name on a port of its own for a scraper.
async fn metrics(
    State(state): State<AppState>, user: Option<axum::Extension<crate::auth::oidc::SignedIn>>,
    headers: axum::http::HeaderMap,
) -> Response {
    let user = user.map(|axum::Extension(u)| u);
    let caller = match crate::auth::Caller::of_request(
        &state.policy,
        user.as_ref(),
        backend::door(&headers),
    ) {
        Ok(caller) => caller,
        Err(error) => return error_response(&error),
    };
    let audience = crate::metrics::Audience::Caller(state.policy.visible(&caller.subject()));
    metrics_answer(&state.catalog, state.service.streams.open(), &audience)
}

fn metrics_answer(
    catalog: &Catalog, open_streams: usize, audience: &crate::metrics::Audience,
) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        crate::metrics::render(catalog, open_streams, audience),
    )
        .into_response()
}

/// The router of `metrics.listen`: `/metrics` alone, without a session (keep the port on a
/// network only the scraper reaches).
pub fn metrics_router(service: Arc<Service>) -> Router {
    Router::new().route(
        "/metrics",
        get(move || {
            let service = Arc::clone(&service);
            async move {
                metrics_answer(
                    &service.catalog,
                    service.streams.open(),
                    &crate::metrics::Audience::All,
                )
            }
        }),
    )
}

async fn unknown_api_call() -> Response {
    let error = ApiError::not_found("There is no such API call.");
    error_response(&error)
}

/// An `ApiError` as an HTTP response, outside server functions (whose errors get their status
/// as they are encoded: see `app::error`). The status comes from the same `ApiError::status`.
pub fn error_response(error: &ApiError) -> Response {
    let status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::BAD_GATEWAY);
    let mut response =
        (status, [(axum::http::header::CONTENT_TYPE, "application/json")], error.to_json())
            .into_response();
    if error.code == ErrorCode::TooManyRequests {
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from(app::RETRY_AFTER_SECONDS),
        );
    }
    response
}

/// 200 while the process serves.
async fn health() -> impl IntoResponse {
    Json(json!({ "status": "ok" }))
}

/// 503 until every cluster's first refresh was tried, then 200 with how many clusters are in
/// each state. Probes need no session, so this names no cluster and carries no error text.
async fn ready(State(state): State<AppState>) -> Response {
    if !state.catalog.all_attempted() {
        return (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "status": "starting" })))
            .into_response();
    }
    let (mut ok, mut degraded, mut unreachable) = (0u64, 0u64, 0u64);
    for cluster in state.catalog.clusters() {
        match cluster.state().health().status {
            HealthStatus::Ok => ok += 1,
            HealthStatus::Degraded => degraded += 1,
            HealthStatus::Unreachable => unreachable += 1,
        }
    }
    Json(json!({
        "status": "ready",
        "clusters": {
            "total": ok + degraded + unreachable,
            "ok": ok,
            "degraded": degraded,
            "unreachable": unreachable,
        },
    }))
    .into_response()
}

#[cfg(test)]
mod tests;
