//! Sessions and the `/auth/*` routes. With auth on, every page and `/api` call needs a live
//! session; `/health`, `/ready`, `/auth/*` and the static assets do not. Sessions live in
//! process memory (`store.rs`: bounded, evicting, signed-in people only), in cookies signed with
//! a key made at start-up; a sign-in under way lives in the browser's own cookie (`sign_in.rs`).

mod sign_in;
mod store;

use std::sync::Arc;

use app::{ApiError, ErrorCode};
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use tower_sessions::cookie::{Key, SameSite};
use tower_sessions::{Expiry, Session, SessionManagerLayer};

use self::sign_in::SignIns;
use self::store::BoundedStore;
use crate::auth::oidc::{now_ms, Oidc, PendingSignIn, SignedIn};
use crate::http::guards::GuardRefusal;

const USER_KEY: &str = "user";

/// The session cookie's settings: HttpOnly, SameSite=Lax, Secure when the redirect URI is https,
/// signed with a key that exists only in this process.
pub fn session_layer(
    oidc: &Oidc,
) -> SessionManagerLayer<BoundedStore, tower_sessions::service::SignedCookie> {
    // A `__Host-` cookie is only ever sent back to this exact origin over https, and no other
    // site on a sibling domain can set or shadow it.
    let name = if oidc.secure_cookies() { "__Host-klens_session" } else { "klens_session" };
    SessionManagerLayer::new(BoundedStore::new(USER_KEY))
        .with_name(name)
        .with_http_only(true)
        .with_same_site(SameSite::Lax)
        .with_secure(oidc.secure_cookies())
        .with_path("/")
        .with_expiry(Expiry::OnSessionEnd)
        .with_signed(Key::generate())
}

/// What the `/auth` routes share: the flow, and the cookies of sign-ins under way.
struct Auth {
    oidc: Arc<Oidc>,
    sign_ins: SignIns,
}

/// The routes under `/auth`.
pub fn routes<S: Clone + Send + Sync + 'static>(oidc: Arc<Oidc>) -> Router<S> {
    let sign_ins = SignIns::new(oidc.secure_cookies());
    Router::new()
        .route("/auth/login", get(login))
        .route("/auth/callback", get(callback))
        .route("/auth/logout", post(logout))
        .with_state(Arc::new(Auth { oidc, sign_ins }))
}

/// Paths that need no session.
fn is_public(path: &str) -> bool {
    path == "/health" || path == "/ready" || path.starts_with("/auth/") || path.starts_with("/pkg/")
}

/// Lets a request through only with a live session, and hands the signed-in user to what runs
/// next through the request's extensions.
pub async fn require_session(session: Session, mut request: Request, next: Next) -> Response {
    let path = request.uri().path().to_string();
    if is_public(&path) {
        return next.run(request).await;
    }
    match session.get::<SignedIn>(USER_KEY).await {
        Ok(Some(user)) => match user.still_on(now_ms()) {
            Ok(()) => {
                request.extensions_mut().insert(user.clone());
                let mut response = next.run(request).await;
                // A guard that refuses after this point refuses someone known: the audit names
                // them (`guards::record_refusals`).
                if response.extensions().get::<GuardRefusal>().is_some() {
                    response.extensions_mut().insert(user);
                }
                response
            }
            Err(ended) => {
                // Expired: forget it, then treat the request as anonymous.
                let _ = session.flush().await;
                unauthenticated(&request, ended)
            }
        },
        _ => unauthenticated(&request, "Sign in to use klens."),
    }
}

fn unauthenticated(request: &Request, message: &str) -> Response {
    if request.uri().path().starts_with("/api/") {
        return crate::http::guards::refusal(ApiError::new(ErrorCode::Unauthenticated, message));
    }
    let next = request
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "/".into());
    let mut url = openidconnect::url::Url::parse("http://klens/auth/login").ok();
    if let Some(url) = url.as_mut() {
        url.query_pairs_mut().append_pair("next", &next);
    }
    let target = url
        .map(|u| format!("/auth/login?{}", u.query().unwrap_or_default()))
        .unwrap_or_else(|| "/auth/login".into());
    Redirect::to(&target).into_response()
}

/// Only a local absolute path may be a return target (no `//host`, no scheme).
/// What the page says when the provider ends a sign-in with an error: a fixed sentence per
/// OAuth error code, never the provider's own text.
fn provider_refusal(code: &str) -> &'static str {
    match code {
        "access_denied" => {
            "The identity provider did not sign you in: access was denied. Sign in with an \
             account that may use klens, or ask its administrator."
        }
        "login_required"
        | "interaction_required"
        | "consent_required"
        | "account_selection_required" => {
            "The identity provider did not sign you in: it needs you to sign in or consent \
             there first."
        }
        "temporarily_unavailable" | "server_error" => {
            "The identity provider did not sign you in: it is not available right now. Try \
             again in a moment."
        }
        _ => {
            "The identity provider did not sign you in: it refused the request. The server log \
             has its error code."
        }
    }
}

/// The longest return path kept after sign-in.
const MAX_NEXT: usize = 2048;

/// Where to go after sign-in: a local path, or `/`. Nothing that a browser could read as
/// another site survives: `//host`, a scheme, a backslash (browsers read `/\\host` as `//host`),
/// control characters or an over-long value.
fn safe_next(next: Option<String>) -> String {
    match next {
        Some(n)
            if n.starts_with('/')
                && !n.starts_with("//")
                && n.len() <= MAX_NEXT
                && !n.chars().any(|c| c == '\\' || c.is_control()) =>
        {
            n
        }
        _ => "/".into(),
    }
}

#[derive(Deserialize)]
struct LoginQuery {
    next: Option<String>,
}

/// Starts a sign-in: what comes back to the callback travels in the browser's sign-in cookie,
/// and nothing is kept here.
async fn login(State(auth): State<Arc<Auth>>, Query(q): Query<LoginQuery>) -> Response {
    match auth.oidc.begin(safe_next(q.next)).await {
        Ok((url, pending)) => {
            let Some(cookie) = auth.sign_ins.carry(pending, now_ms()) else {
                tracing::error!("cannot write the sign-in cookie");
                return failure(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "klens could not start the sign-in.",
                );
            };
            let mut response = Redirect::to(&url).into_response();
            response.headers_mut().append(header::SET_COOKIE, cookie);
            response
        }
        Err(reason) => {
            tracing::warn!(reason = ?reason, "sign-in could not start");
            failure(
                StatusCode::BAD_GATEWAY,
                "The sign-in could not start: klens could not reach the identity provider. \
                 The server log says why.",
            )
        }
    }
}

#[derive(Deserialize)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

async fn callback(
    State(auth): State<Arc<Auth>>, session: Session, headers: HeaderMap,
    Query(q): Query<CallbackQuery>,
) -> Response {
    let now = now_ms();
    let pending = auth.sign_ins.read(&headers, now);
    let mut response = finish_sign_in(&auth, session, pending, q, now).await;
    // A sign-in cookie is used once, whatever happens next.
    if let Some(removal) = auth.sign_ins.removal() {
        response.headers_mut().append(header::SET_COOKIE, removal);
    }
    response
}

async fn finish_sign_in(
    auth: &Auth, session: Session, pending: Option<PendingSignIn>, q: CallbackQuery, now: i64,
) -> Response {
    if let Some(error) = q.error {
        // Debug formatting escapes what the query carries, so it cannot forge log lines.
        tracing::warn!(error = ?error, detail = ?q.error_description, "the identity provider ended the sign-in with an error");
        return failure(StatusCode::BAD_REQUEST, provider_refusal(&error));
    }
    let Some(pending) = pending else {
        return failure(
            StatusCode::BAD_REQUEST,
            "This sign-in link has expired or was already used.",
        );
    };
    let (Some(code), Some(state)) = (q.code, q.state) else {
        return failure(StatusCode::BAD_REQUEST, "The identity provider's answer was incomplete.");
    };
    if !pending.matches(&state) {
        tracing::warn!("sign-in callback with a state that does not match");
        return failure(
            StatusCode::BAD_REQUEST,
            "The sign-in answer does not belong to this browser session.",
        );
    }
    let next = pending.next.clone();
    let finished = pending.clone();
    let user = match auth.oidc.finish(pending, code).await {
        Ok(user) => user,
        Err(reason) => {
            tracing::warn!(reason = ?reason, "sign-in failed");
            return failure(
                StatusCode::BAD_REQUEST,
                "The sign-in failed: the identity provider's answer could not be verified. \
                 The server log says why.",
            );
        }
    };
    // The same callback twice at once: the second is refused here, even should the provider
    // have taken its code twice.
    if !auth.sign_ins.finish(&finished, now) {
        return failure(
            StatusCode::BAD_REQUEST,
            "This sign-in link has expired or was already used.",
        );
    }
    // A new session id at sign-in, so an id planted before cannot ride on the new identity.
    if let Err(e) = session.cycle_id().await {
        tracing::error!(error = %e, "cannot rotate the session id");
        return failure(StatusCode::INTERNAL_SERVER_ERROR, "klens could not start your session.");
    }
    tracing::info!(subject = ?user.subject, groups = ?user.groups, "signed in");
    if let Err(e) = session.insert(USER_KEY, user).await {
        tracing::error!(error = %e, "cannot store the session");
        return failure(StatusCode::INTERNAL_SERVER_ERROR, "klens could not start your session.");
    }
    Redirect::to(&safe_next(Some(next))).into_response()
}

async fn logout(State(auth): State<Arc<Auth>>, session: Session, request: Request) -> Response {
    let oidc = &auth.oidc;
    let user = session.get::<SignedIn>(USER_KEY).await.ok().flatten();
    let _ = session.flush().await;
    if let Some(user) = &user {
        // A stream still open for this session ends at its next check.
        oidc.sign_out(user);
    }
    let host = request
        .headers()
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let scheme = if oidc.secure_cookies() { "https" } else { "http" };
    let return_to = format!("{scheme}://{host}/");
    if let Some(user) = user {
        if let Some(url) = oidc.end_session_url(&user.id_token, &return_to).await {
            return Redirect::to(&url).into_response();
        }
    }
    Redirect::to("/").into_response()
}

/// A clear page for a sign-in that did not work, with a way to try again.
fn failure(status: StatusCode, message: &str) -> Response {
    let body = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sign-in failed · klens</title>\
         <link rel=\"stylesheet\" href=\"{}\"></head><body><main class=\"content\">\
         <h1>Sign-in failed</h1><p role=\"alert\">{}</p><p><a href=\"/auth/login\">Try again</a></p>\
         </main></body></html>",
        crate::http::assets::css_href(),
        app::format::escape_html(message)
    );
    (status, Html(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_return_targets() {
        let cases = [
            (Some("/c/local/topics?x=1"), "/c/local/topics?x=1"),
            (Some("/"), "/"),
            (Some("//evil.example/"), "/"),
            (Some("/\\evil.example"), "/"),
            (Some("https://evil.example/"), "/"),
            (Some(""), "/"),
            (None, "/"),
            // Regression (hardening issue): each of these used to survive.
            (Some("/a\\b"), "/"),
            (Some("/\t/evil.example"), "/"),
            (Some("/x\r\nSet-Cookie: a=b"), "/"),
            (Some("/\u{7f}"), "/"),
        ];
        for (next, want) in cases {
            assert_eq!(safe_next(next.map(str::to_string)), want, "{next:?}");
        }
        let long = format!("/{}", "a".repeat(MAX_NEXT));
        assert_eq!(safe_next(Some(long)), "/");
        let longest = format!("/{}", "a".repeat(MAX_NEXT - 1));
        assert_eq!(safe_next(Some(longest.clone())), longest);
    }

    /// Regression (hardening issue): the page used to show the provider's own text.
    #[test]
    fn a_failed_callback_never_shows_the_providers_text() {
        for code in ["access_denied", "server_error", "<script>alert(1)</script>", "x\ny"] {
            let shown = provider_refusal(code);
            assert!(shown.starts_with("The identity provider did not sign you in"));
            assert!(!shown.contains(code), "{code}");
        }
    }

    #[test]
    fn public_paths_need_no_session() {
        for path in ["/health", "/ready", "/auth/login", "/auth/callback", "/pkg/klens.wasm"] {
            assert!(is_public(path), "{path}");
        }
        for path in ["/", "/api/whoami", "/c/local", "/authx", "/healthz"] {
            assert!(!is_public(path), "{path}");
        }
    }

    #[test]
    fn failure_pages_escape_what_they_show() {
        assert_eq!(
            app::format::escape_html("<b>\"x\" & y</b>"),
            "&lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt;"
        );
    }
}
