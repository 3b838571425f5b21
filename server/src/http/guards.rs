//! Checks that run before any handler: the allowed-hosts guard against DNS rebinding (auth off
//! only), the cross-site guard on requests that change something (`/auth/logout` included), and
//! the JSON-only guard on `/api` writes, and the body limit of each `/api` write. Each answers
//! with the contract's error body (marked as a guard's refusal, which the audit records) and
//! lets nothing else run.

use std::sync::Arc;

use app::{ApiError, ErrorCode};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;

use super::error_response;
use crate::auth::oidc::SignedIn;
use crate::auth::Caller;
use crate::service::Service;

/// A guard's refusal, carried on its answer so that [`record_refusals`] can audit it.
#[derive(Clone, Debug)]
pub struct GuardRefusal(pub ApiError);

/// A guard's answer: the contract's error body, marked for the audit.
pub fn refusal(error: ApiError) -> Response {
    let mut response = error_response(&error);
    response.extensions_mut().insert(GuardRefusal(error));
    response
}

/// Records in the audit every answer a guard refused (rate-limited per caller like every
/// refusal), with the door the request came through and the path it asked for.
pub async fn record_refusals(
    State(service): State<Arc<Service>>, request: Request, next: Next,
) -> Response {
    let door = super::backend::door(request.headers());
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    if let Some(GuardRefusal(error)) = response.extensions().get::<GuardRefusal>() {
        // Named when the session was known before the guard refused (it sits inside the
        // session check), else unknown.
        let event = match response.extensions().get::<SignedIn>() {
            Some(user) => {
                crate::audit::guard_refusal_by(&Caller::User(user.clone(), door), &path, error)
            }
            None => crate::audit::guard_refusal(door, "unknown", &path, error),
        };
        service.audit().record_refusal(event).await;
    }
    response
}

/// The largest body each `/api` write takes, in bytes: what its arguments can need at most (a
/// record of 8 MiB as base64, a schema of 1 MiB as JSON text, a reset plan of many
/// partitions), and 64 KiB for every other call.
pub fn body_limit(path: &str) -> usize {
    const KIB: usize = 1024;
    match path.strip_prefix("/api/").unwrap_or_default() {
        "produce" => 12 * KIB * KIB,
        "register_schema" => 3 * KIB * KIB,
        "reset_offsets" => 8 * KIB * KIB,
        "alter_topic_configs" | "alter_broker_config" => KIB * KIB,
        _ => 64 * KIB,
    }
}

/// Refuses a request whose body is over its call's [`body_limit`], before anything reads it
/// as arguments: a body that big can only be a mistake or a flood. This is the one body limit
/// of the UI port (axum's default one is switched off, so it does not cut produce's records).
pub async fn body_limits(request: Request, next: Next) -> Response {
    if is_safe(request.method()) {
        return next.run(request).await;
    }
    let limit = body_limit(request.uri().path());
    let too_big = || {
        refusal(ApiError::bad_request(
            "body",
            format!("This call takes a body of at most {limit} bytes."),
        ))
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return too_big();
    }
    let (parts, body) = request.into_parts();
    match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => next.run(Request::from_parts(parts, axum::body::Body::from(bytes))).await,
        Err(_) => too_big(),
    }
}

/// What the guards need from the config.
#[derive(Clone, Debug)]
pub struct GuardConfig {
    /// Lower-case host names (IPv6 without brackets), checked only when `auth` is false.
    pub allowed_hosts: Vec<String>,
    pub auth: bool,
}

impl GuardConfig {
    pub fn new(allowed_hosts: &[String], auth: bool) -> Self {
        GuardConfig {
            allowed_hosts: allowed_hosts.iter().map(|h| normalise_host(h)).collect(),
            auth,
        }
    }
}

/// Paths that probes and load balancers reach by IP address.
fn exempt_from_host_check(path: &str) -> bool {
    path == "/health" || path == "/ready"
}

/// Refuses, with auth off, any request whose `Host` (port ignored) is not allowed.
pub async fn allowed_hosts(
    State(guards): State<Arc<GuardConfig>>, request: Request, next: Next,
) -> Response {
    if guards.auth || exempt_from_host_check(request.uri().path()) {
        return next.run(request).await;
    }
    let host = request_host(&request);
    let allowed =
        host.as_deref().map(host_without_port).is_some_and(|h| guards.allowed_hosts.contains(&h));
    if allowed {
        return next.run(request).await;
    }
    tracing::warn!(
        host = host.as_deref().unwrap_or("-"),
        "refused a request for a host not in allowed_hosts"
    );
    refusal(ApiError::new(
        ErrorCode::HostNotAllowed,
        "This host name is not in allowed_hosts of the klens config.",
    ))
}

/// Refuses a state-changing request that a browser marks as coming from another site, or whose
/// `Origin` differs from the `Host` it was sent to.
pub async fn same_origin_writes(request: Request, next: Next) -> Response {
    if is_safe(request.method()) {
        return next.run(request).await;
    }
    let host = request_host(&request);
    if let Some(reason) = cross_site_reason(request.headers(), host.as_deref()) {
        tracing::warn!(reason, path = request.uri().path(), "refused a cross-site write");
        return refusal(ApiError::new(
            ErrorCode::CrossSite,
            "klens accepts changes only from its own pages, not from another site.",
        ));
    }
    next.run(request).await
}

/// Refuses an `/api` write whose body is not JSON. A page on another site can send a form or
/// `text/plain` body without asking the browser's permission first; a JSON body it cannot.
pub async fn json_writes(request: Request, next: Next) -> Response {
    if is_safe(request.method()) || !request.uri().path().starts_with("/api/") {
        return next.run(request).await;
    }
    if !is_json(request.headers()) {
        return refusal(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "A change takes a JSON body: send Content-Type: application/json.",
        ));
    }
    next.run(request).await
}

/// The policy of every answer that is not a page (pages set their own, with a nonce): no inline
/// script at all.
const DEFAULT_POLICY: &str =
    "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// Security headers on every answer: a Content-Security-Policy, no framing, no content-type
/// sniffing, referrers only to klens itself (URLs carry record filters; `no-referrer` would
/// also make browsers send `Origin: null` on klens's own form posts, which the cross-site
/// guard refuses), and, with sign-in on, no caching of `/api` answers.
pub async fn security_headers(
    State(guards): State<Arc<GuardConfig>>, request: Request, next: Next,
) -> Response {
    let is_api = request.uri().path().starts_with("/api/");
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(DEFAULT_POLICY));
    }
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    if guards.auth && is_api {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// `application/json`, with or without parameters such as a charset.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Why a write looks cross-site, or `None` when it does not.
fn cross_site_reason(headers: &HeaderMap, host: Option<&str>) -> Option<&'static str> {
    if let Some(site) = headers.get("sec-fetch-site") {
        match site.to_str().map(str::to_ascii_lowercase).as_deref() {
            Ok("same-origin") | Ok("none") => {}
            Ok("cross-site") | Ok("same-site") => return Some("Sec-Fetch-Site"),
            _ => return Some("unreadable Sec-Fetch-Site"),
        }
    }
    let origin = headers.get(header::ORIGIN)?;
    let Ok(origin) = origin.to_str() else {
        return Some("unreadable Origin");
    };
    let Some(origin_authority) =
        origin.split_once("://").map(|(_, rest)| rest.trim_end_matches('/'))
    else {
        return Some("opaque Origin");
    };
    match host {
        Some(host) if origin_authority.eq_ignore_ascii_case(host) => None,
        _ => Some("Origin differs from Host"),
    }
}

/// The host the client addressed: the `Host` header, or the URI authority (HTTP/2).
fn request_host(request: &Request) -> Option<String> {
    request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .or_else(|| request.uri().authority().map(|a| a.to_string()))
}

/// `Example.com:8080` → `example.com`; `[::1]:8080` → `::1`.
fn host_without_port(authority: &str) -> String {
    let authority = authority.trim();
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        authority.split(':').next().unwrap_or_default()
    };
    host.to_ascii_lowercase()
}

fn normalise_host(host: &str) -> String {
    host.trim().trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn hosts_lose_their_port_and_case() {
        let cases = [
            ("localhost:8080", "localhost"),
            ("LOCALHOST", "localhost"),
            ("127.0.0.1:1", "127.0.0.1"),
            ("[::1]:8080", "::1"),
            ("[::1]", "::1"),
            ("klens.example.com", "klens.example.com"),
            ("", ""),
        ];
        for (authority, want) in cases {
            assert_eq!(host_without_port(authority), want, "{authority}");
        }
        assert_eq!(normalise_host("[::1]"), "::1");
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn cross_site_writes_are_recognised() {
        let host = Some("127.0.0.1:8080");
        let cases: [(&[(&str, &str)], bool); 9] = [
            (&[], false),
            (&[("sec-fetch-site", "same-origin")], false),
            (&[("sec-fetch-site", "none")], false),
            (&[("sec-fetch-site", "cross-site")], true),
            (&[("sec-fetch-site", "same-site")], true),
            (&[("origin", "http://127.0.0.1:8080")], false),
            (&[("origin", "http://evil.example:8080")], true),
            (&[("origin", "http://127.0.0.1:9999")], true),
            (&[("origin", "null")], true),
        ];
        for (pairs, refused) in cases {
            assert_eq!(cross_site_reason(&headers(pairs), host).is_some(), refused, "{pairs:?}");
        }
        assert!(cross_site_reason(&headers(&[("origin", "http://a")]), None).is_some());
    }
}
