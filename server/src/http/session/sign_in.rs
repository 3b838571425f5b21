//! Sign-ins under way, carried by the browser that started them: the state, nonce and PKCE
//! verifier travel in a cookie signed with a key made at start-up, HttpOnly, SameSite=Lax,
//! Secure under https, sent back to `/auth` only, for ten minutes. klens keeps nothing for a
//! sign-in under way, so no client can push out another's, and starting sign-ins by the
//! thousand costs no memory.
//!
//! What klens does keep is the mark of each finished sign-in, until its cookie would have
//! expired, so that a callback is taken once: the same callback and cookie again are refused.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use axum::http::{header, HeaderMap, HeaderValue};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use tower_sessions::cookie::{time, Cookie, CookieJar, Key, SameSite};

use crate::auth::oidc::PendingSignIn;

/// How long a sign-in may take, from leaving for the provider to coming back.
pub const PENDING_FOR: Duration = Duration::from_secs(10 * 60);

/// The cookie goes back to the `/auth/*` routes only (the callback), never to a page or `/api`.
const PATH: &str = "/auth";

/// The sign-in cookies of one process.
pub struct SignIns {
    key: Key,
    name: &'static str,
    secure: bool,
    /// Finished sign-ins, by a digest of their state, with when their cookie expires.
    finished: Mutex<HashMap<[u8; 32], i64>>,
}

/// What the cookie carries.
#[derive(Serialize, Deserialize)]
struct Carried {
    pending: PendingSignIn,
    expires_at_ms: i64,
}

impl SignIns {
    /// Sign-in cookies with a new key; Secure (and named `__Secure-`) when `secure`.
    pub fn new(secure: bool) -> SignIns {
        SignIns {
            key: Key::generate(),
            name: if secure { "__Secure-klens_sign_in" } else { "klens_sign_in" },
            secure,
            finished: Mutex::new(HashMap::new()),
        }
    }

    fn cookie(&self, value: String) -> Cookie<'static> {
        Cookie::build((self.name, value))
            .path(PATH)
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(self.secure)
            .build()
    }

    /// The `Set-Cookie` value that carries `pending` for [`PENDING_FOR`] from `now_ms`.
    pub fn carry(&self, pending: PendingSignIn, now_ms: i64) -> Option<HeaderValue> {
        let carried = Carried {
            pending,
            expires_at_ms: now_ms.saturating_add(PENDING_FOR.as_millis() as i64),
        };
        let json = serde_json::to_vec(&carried).ok()?;
        let mut cookie = self.cookie(URL_SAFE_NO_PAD.encode(json));
        cookie.set_max_age(time::Duration::seconds(PENDING_FOR.as_secs() as i64));
        let mut jar = CookieJar::new();
        jar.signed_mut(&self.key).add(cookie);
        HeaderValue::from_str(&jar.get(self.name)?.to_string()).ok()
    }

    /// The `Set-Cookie` value that removes the cookie.
    pub fn removal(&self) -> Option<HeaderValue> {
        let mut cookie = self.cookie(String::new());
        cookie.make_removal();
        HeaderValue::from_str(&cookie.to_string()).ok()
    }

    /// The sign-in the request's cookie carries: signed with this process's key, not expired
    /// at `now_ms`, not finished already.
    pub fn read(&self, headers: &HeaderMap, now_ms: i64) -> Option<PendingSignIn> {
        let jar = CookieJar::new();
        let signed = jar.signed(&self.key);
        let carried = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|h| h.to_str().ok())
            .flat_map(|h| Cookie::split_parse(h.to_string()).flatten())
            .filter(|c| c.name() == self.name)
            .filter_map(|c| signed.verify(c.into_owned()))
            .find_map(|c| {
                let json = URL_SAFE_NO_PAD.decode(c.value()).ok()?;
                serde_json::from_slice::<Carried>(&json).ok()
            })?;
        let live = now_ms < carried.expires_at_ms && !self.is_finished(&carried.pending);
        live.then_some(carried.pending)
    }

    fn is_finished(&self, pending: &PendingSignIn) -> bool {
        self.finished.lock().map(|f| f.contains_key(&pending.digest())).unwrap_or(true)
    }

    /// Marks `pending` finished until its cookie would have expired; `false` when it already
    /// was (the same callback twice at once).
    pub fn finish(&self, pending: &PendingSignIn, now_ms: i64) -> bool {
        let Ok(mut finished) = self.finished.lock() else {
            return false;
        };
        finished.retain(|_, expires| *expires > now_ms);
        let expires = now_ms.saturating_add(PENDING_FOR.as_millis() as i64);
        finished.insert(pending.digest(), expires).is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(state: &str) -> PendingSignIn {
        PendingSignIn::new(state, "nonce", "verifier", "/c/local")
    }

    fn request_with(set_cookie: &HeaderValue) -> HeaderMap {
        let cookie =
            Cookie::parse(set_cookie.to_str().expect("ascii").to_string()).expect("cookie");
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_str(&format!("other=1; {}={}", cookie.name(), cookie.value()))
                .expect("header"),
        );
        headers
    }

    #[test]
    fn a_sign_in_is_read_back_until_it_expires_or_is_finished() {
        let sign_ins = SignIns::new(false);
        let now = 1_000_000;
        let set = sign_ins.carry(pending("s1"), now).expect("a cookie");
        let headers = request_with(&set);
        let read = sign_ins.read(&headers, now + 1).expect("read back");
        assert!(read.matches("s1"));
        assert_eq!(read.next, "/c/local");
        let ten_minutes = PENDING_FOR.as_millis() as i64;
        assert!(sign_ins.read(&headers, now + ten_minutes - 1).is_some());
        assert!(sign_ins.read(&headers, now + ten_minutes).is_none(), "expired");
        assert!(sign_ins.finish(&read, now + 2));
        assert!(sign_ins.read(&headers, now + 3).is_none(), "finished");
        assert!(!sign_ins.finish(&read, now + 3), "finished once only");
        // The mark is dropped once the cookie could no longer be used anyway.
        assert!(sign_ins.finish(&pending("s2"), now + 2 * ten_minutes));
        assert_eq!(sign_ins.finished.lock().map(|f| f.len()).ok(), Some(1));
    }

    #[test]
    fn a_cookie_not_signed_by_this_process_is_no_sign_in() {
        let sign_ins = SignIns::new(false);
        let set = sign_ins.carry(pending("s1"), 0).expect("a cookie");
        // Another process (another key), the same cookie.
        assert!(SignIns::new(false).read(&request_with(&set), 1).is_none());
        // The value altered by one character.
        let text = set.to_str().expect("ascii").replacen("klens_sign_in=", "klens_sign_in=x", 1);
        let altered = HeaderValue::from_str(&text).expect("header");
        assert!(sign_ins.read(&request_with(&altered), 1).is_none());
        assert!(sign_ins.read(&HeaderMap::new(), 1).is_none());
    }

    #[test]
    fn the_cookie_is_narrow() {
        for (secure, name) in [(false, "klens_sign_in"), (true, "__Secure-klens_sign_in")] {
            let sign_ins = SignIns::new(secure);
            let set = sign_ins.carry(pending("s"), 0).expect("a cookie");
            let cookie = Cookie::parse(set.to_str().expect("ascii").to_string()).expect("cookie");
            assert_eq!(cookie.name(), name);
            assert_eq!(cookie.path(), Some("/auth"));
            assert_eq!(cookie.http_only(), Some(true));
            assert_eq!(cookie.same_site(), Some(SameSite::Lax));
            assert_eq!(cookie.secure(), secure.then_some(true));
            assert_eq!(cookie.max_age(), Some(time::Duration::minutes(10)));
            let removal = Cookie::parse(
                sign_ins.removal().expect("a removal").to_str().expect("ascii").to_string(),
            )
            .expect("cookie");
            assert_eq!((removal.name(), removal.path()), (name, Some("/auth")));
            assert_eq!(removal.max_age(), Some(time::Duration::ZERO));
        }
    }
}
