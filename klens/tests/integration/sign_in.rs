//! Sign-in through the dev stack's OpenID Connect provider (127.0.0.1:19000), driven as a
//! browser would: klens's `/auth/*` routes through the router, the provider's login form over
//! HTTP, each side's cookies kept and sent back.

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::{header, HeaderMap, Request, StatusCode};
use tower_sessions::cookie::{Cookie, SameSite};

use crate::support::*;

const PROVIDER: &str = "http://127.0.0.1:19000";
const KLENS: &str = "http://127.0.0.1:8080";

fn auth_config() -> String {
    format!(
        "clusters:\n  - name: quiet\n    bootstrap_servers: 127.0.0.1:1\nauth:\n  oidc:\n    \
         issuer: {PROVIDER}\n    client_id: klens\n    client_secret: klens-secret\n    \
         redirect_uri: {KLENS}/auth/callback\n"
    )
}

/// One browser's cookies, by name (klens and the provider share a host; their names differ).
#[derive(Clone, Default)]
struct Browser {
    cookies: BTreeMap<String, String>,
}

/// An answer: status, where it sends the browser, the cookies it set, its body.
struct Answer {
    status: StatusCode,
    location: Option<String>,
    set_cookies: Vec<Cookie<'static>>,
    body: String,
}

impl Browser {
    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep(&mut self, headers: &HeaderMap) -> Vec<Cookie<'static>> {
        let mut set = Vec::new();
        for value in headers.get_all(header::SET_COOKIE) {
            let text = value.to_str().expect("a Set-Cookie header in ASCII");
            let cookie = Cookie::parse(text.to_string()).expect("a Set-Cookie header");
            let removed = cookie.max_age().is_some_and(|age| age.is_zero())
                || cookie
                    .expires_datetime()
                    .is_some_and(|at| at < tower_sessions::cookie::time::OffsetDateTime::now_utc());
            if removed {
                self.cookies.remove(cookie.name());
            } else {
                self.cookies.insert(cookie.name().to_string(), cookie.value().to_string());
            }
            set.push(cookie);
        }
        set
    }

    /// GETs `path` from klens.
    async fn klens(&mut self, router: &axum::Router, path: &str) -> Answer {
        use http_body_util::BodyExt;
        use tower::ServiceExt;
        let mut request = Request::get(path).header("host", "127.0.0.1:8080");
        if !self.cookies.is_empty() {
            request = request.header(header::COOKIE, self.cookie_header());
        }
        let response = router
            .clone()
            .oneshot(request.body(Body::empty()).expect("request"))
            .await
            .expect("klens answers");
        let status = response.status();
        let location = response
            .headers()
            .get(header::LOCATION)
            .map(|l| l.to_str().expect("a location").to_string());
        let set_cookies = self.keep(response.headers());
        let bytes = response.into_body().collect().await.expect("body").to_bytes();
        Answer { status, location, set_cookies, body: String::from_utf8_lossy(&bytes).into_owned() }
    }

    /// Signs `user` in at the provider, from the URL klens sent the browser to, up to where
    /// the provider sends it back: the callback's path and query at klens.
    async fn at_provider(&mut self, mut url: String, user: &str) -> String {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        for _ in 0..12 {
            if let Some(callback) = url.strip_prefix(KLENS) {
                return callback.to_string();
            }
            assert!(url.starts_with(PROVIDER), "the browser went to {url}");
            let response = client
                .get(&url)
                .header(header::COOKIE, self.cookie_header())
                .send()
                .await
                .expect("the provider answers (is dev/stack running?)");
            self.keep(response.headers());
            let next = match response.headers().get(header::LOCATION) {
                Some(location) => location.to_str().expect("a location").to_string(),
                None => {
                    // The login form: post the user's name and password to its action.
                    let page = response.text().await.expect("the login page");
                    let action = page
                        .split("action=\"")
                        .nth(1)
                        .and_then(|rest| rest.split('"').next())
                        .unwrap_or_else(|| panic!("no login form at {url}: {page}"));
                    let response = client
                        .post(format!("{PROVIDER}{action}"))
                        .header(header::COOKIE, self.cookie_header())
                        .form(&[("username", user), ("password", &format!("{user}-pw"))])
                        .send()
                        .await
                        .expect("the provider takes the form");
                    self.keep(response.headers());
                    response
                        .headers()
                        .get(header::LOCATION)
                        .unwrap_or_else(|| panic!("the login of {user} was refused"))
                        .to_str()
                        .expect("a location")
                        .to_string()
                }
            };
            url = if next.starts_with('/') { format!("{PROVIDER}{next}") } else { next };
        }
        panic!("the provider never sent the browser back to klens");
    }

    /// Starts a sign-in at klens: where it sends the browser.
    async fn start(&mut self, router: &axum::Router) -> String {
        let answer = self.klens(router, "/auth/login?next=/c/quiet").await;
        assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
        let url = answer.location.expect("a redirect to the provider");
        assert!(url.starts_with(PROVIDER), "{url}");
        url
    }

    async fn whoami(&mut self, router: &axum::Router) -> (StatusCode, serde_json::Value) {
        let answer = self.klens(router, "/api/whoami").await;
        let json = serde_json::from_str(&answer.body).unwrap_or(serde_json::Value::Null);
        (answer.status, json)
    }
}

/// Regression (pending sign-ins): klens kept sign-ins under way in a bounded memory, so
/// another client starting sign-ins by the thousand pushed a person's own out before they came
/// back from the provider. The sign-in under way now travels in the browser's own signed
/// cookie, and nobody else's sign-ins can touch it.
#[tokio::test]
async fn a_flood_of_sign_ins_from_another_client_cannot_push_a_pending_one_out() {
    let router = router(&auth_config()).await;
    let mut alice = Browser::default();
    let at_provider = alice.start(&router).await;

    let mut flood = Browser::default();
    for _ in 0..3_000 {
        flood.cookies.clear();
        flood.start(&router).await;
    }

    let callback = alice.at_provider(at_provider, "alice").await;
    let answer = alice.klens(&router, &callback).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    assert_eq!(answer.location.as_deref(), Some("/c/quiet"));
    let (status, who) = alice.whoami(&router).await;
    assert_eq!(status, StatusCode::OK, "{who}");
    assert_eq!(who["user"]["subject"], "alice");
}

/// The sign-in cookie: HttpOnly, SameSite=Lax, only under `/auth`, for ten minutes, not Secure
/// over http; starting a sign-in keeps nothing in a session. A callback is taken once: the
/// same callback with the same cookie again is refused, and so is a cookie that was altered.
#[tokio::test]
async fn the_sign_in_cookie_is_narrow_signed_and_taken_once() {
    let router = router(&auth_config()).await;
    let mut bob = Browser::default();
    let answer = bob.klens(&router, "/auth/login").await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    let [cookie] = answer.set_cookies.as_slice() else {
        panic!("one cookie, the sign-in's: {:?}", answer.set_cookies);
    };
    assert_eq!(cookie.name(), "klens_sign_in");
    assert_eq!(cookie.http_only(), Some(true));
    assert_eq!(cookie.same_site(), Some(SameSite::Lax));
    assert_eq!(cookie.path(), Some("/auth"));
    assert_eq!(cookie.secure(), None);
    assert_eq!(cookie.max_age(), Some(tower_sessions::cookie::time::Duration::minutes(10)));

    // An altered cookie is no sign-in at all.
    let mut forger = bob.clone();
    let value = forger.cookies["klens_sign_in"].clone();
    let last = if value.ends_with('A') { "B" } else { "A" };
    let altered = format!("{}{last}", &value[..value.len() - 1]);
    forger.cookies.insert("klens_sign_in".into(), altered);
    let callback =
        forger.clone().at_provider(answer.location.clone().expect("to the provider"), "bob").await;
    let refused = forger.klens(&router, &callback).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(refused.body.contains("expired or was already used"));

    let mut bob = Browser::default();
    let at_provider = bob.start(&router).await;
    let callback = bob.at_provider(at_provider, "bob").await;
    let before = bob.clone();
    let answer = bob.klens(&router, &callback).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    assert!(!bob.cookies.contains_key("klens_sign_in"), "the callback removes the sign-in cookie");
    assert_eq!(bob.whoami(&router).await.0, StatusCode::OK);

    // The same callback again, with the cookie it came with.
    let mut replay = before;
    let answer = replay.klens(&router, &callback).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.body);
    assert!(answer.body.contains("expired or was already used"));
    assert_eq!(replay.whoami(&router).await.0, StatusCode::UNAUTHORIZED);
}
