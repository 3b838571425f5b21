//! The MCP listener: `/mcp` on `mcp.listen`, streamable HTTP through the official SDK
//! (`rmcp`), stateless and answering JSON. In front of it, one guard: with `mcp.secret` every
//! request carries `Authorization: Bearer <secret>` (compared in constant time) or gets 401,
//! and a request with an `Origin` header (a browser) is refused with 403 unless it carries the
//! secret. With the secret, a gateway may name the person it signed in with
//! [`FORWARDED_USER`]; the audit records that name as forwarded (it is never trusted without the
//! secret, and it grants nothing: every call holds the ceiling). The guard's refusals are
//! recorded in the audit too. The tools (`tools.rs`) call the same service as `/api`, as the
//! ceiling.

mod boundary;
pub mod tools;

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::config::{McpConfig, Secret};
use crate::service::Service;

/// The largest request body the listener reads.
pub const MAX_BODY: usize = 64 * 1024;

/// The header in which a gateway holding the secret names the person it forwards a call for.
pub const FORWARDED_USER: &str = "x-klens-user";
/// The longest forwarded name kept, in bytes.
const MAX_FORWARDED: usize = 256;

/// The name a gateway forwarded with the secret, put into the request for the tools.
#[derive(Clone, Debug)]
pub struct ForwardedUser(pub String);

struct Guard {
    secret: Option<Secret>,
    service: Arc<Service>,
}

/// The forwarded name, when the header holds printable text of a sane length.
fn forwarded_user(headers: &axum::http::HeaderMap) -> Option<String> {
    let name = headers.get(FORWARDED_USER)?.to_str().ok()?.trim();
    let printable = name.chars().all(|c| !c.is_control());
    (!name.is_empty() && name.len() <= MAX_FORWARDED && printable).then(|| name.to_string())
}

/// Whether `given` is `secret`, in time that depends on neither (both are hashed first, so
/// not even their lengths show).
fn same_secret(given: &str, secret: &Secret) -> bool {
    let a = Sha256::digest(given.as_bytes());
    let b = Sha256::digest(secret.expose().as_bytes());
    bool::from(a.as_slice().ct_eq(b.as_slice()))
}

/// A guard's refusal as `/api` answers one: the error's own status and JSON, and for a missing
/// secret the scheme to send it with.
fn refuse(error: &app::ApiError) -> Response {
    let status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::FORBIDDEN);
    let mut response = (status, error.to_json()).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

async fn guard(State(guard): State<Arc<Guard>>, mut request: Request, next: Next) -> Response {
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        // The scheme's name is case-insensitive (RFC 9110).
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token);
    let carries_secret = match (&guard.secret, bearer) {
        (Some(secret), Some(given)) => same_secret(given, secret),
        _ => false,
    };
    let refusal = if guard.secret.is_some() && !carries_secret {
        Some(app::ApiError::new(
            app::ErrorCode::Unauthenticated,
            "This MCP listener needs `Authorization: Bearer <mcp.secret>`.",
        ))
    } else if request.headers().contains_key(header::ORIGIN) && !carries_secret {
        Some(app::ApiError::new(
            app::ErrorCode::CrossSite,
            "A request from a browser page reaches this MCP listener only with its secret.",
        ))
    } else {
        None
    };
    if let Some(error) = refusal {
        let event =
            crate::audit::guard_refusal(app::api::Door::Mcp, "mcp", request.uri().path(), &error);
        guard.service.audit().record_refusal(event).await;
        return refuse(&error);
    }
    if carries_secret {
        if let Some(name) = forwarded_user(request.headers()) {
            request.extensions_mut().insert(ForwardedUser(name));
        }
    }
    next.run(request).await
}

/// The router of the MCP port: `/mcp` and nothing else.
pub fn router(service: Arc<Service>, config: &McpConfig) -> axum::Router {
    let handlers = Arc::clone(&service);
    let mcp = StreamableHttpService::new(
        move || Ok(tools::Klens::new(Arc::clone(&handlers))),
        Arc::new(NeverSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None)
            // The guard stands in for a host check: see the module's words.
            .disable_allowed_hosts()
            .with_max_request_body_bytes(MAX_BODY),
    );
    let guard_state = Arc::new(Guard { secret: config.secret.clone(), service });
    axum::Router::new()
        .nest_service("/mcp", mcp)
        .layer(axum::middleware::from_fn_with_state(guard_state, guard))
        .layer(DefaultBodyLimit::max(MAX_BODY))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_matches_only_itself() {
        let secret = Secret::new("s3cret-value".to_string());
        assert!(same_secret("s3cret-value", &secret));
        for other in ["", "s3cret-valu", "s3cret-value ", "S3cret-value", "s3cret-value-longer"] {
            assert!(!same_secret(other, &secret), "{other:?}");
        }
    }
}
