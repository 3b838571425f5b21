//! OpenID Connect sign-in: the authorization-code flow with PKCE, state and nonce, against the
//! issuer's discovery document. The ID token's signature, issuer, audience, expiry and nonce are
//! verified by `openidconnect`; the groups come from the configured claim of the verified token.
//!
//! Nothing here logs or returns a token or the client secret.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use std::collections::HashMap;

use openidconnect::core::{
    CoreAuthDisplay, CoreAuthPrompt, CoreAuthenticationFlow, CoreErrorResponseType,
    CoreGenderClaim, CoreJsonWebKey, CoreJweContentEncryptionAlgorithm, CoreJwsSigningAlgorithm,
    CoreProviderMetadata, CoreRevocableToken, CoreRevocationErrorResponse,
    CoreTokenIntrospectionResponse, CoreTokenType,
};
use openidconnect::{
    AdditionalClaims, AuthorizationCode, Client, ClientId, ClientSecret, CsrfToken,
    EmptyExtraTokenFields, EndpointMaybeSet, EndpointNotSet, EndpointSet, IdTokenFields, IssuerUrl,
    Nonce, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope, StandardErrorResponse,
    StandardTokenResponse, TokenResponse,
};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;
use tokio::sync::Mutex;

use crate::config::AuthConfig;

/// The ID token's claims beyond the standard ones, by name: the groups claim's name is
/// configured, so it cannot be a field of a fixed struct.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct OtherClaims(HashMap<String, serde_json::Value>);

impl AdditionalClaims for OtherClaims {}

type IdFields = IdTokenFields<
    OtherClaims,
    EmptyExtraTokenFields,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm,
>;

type ConfiguredClient = Client<
    OtherClaims,
    CoreAuthDisplay,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJsonWebKey,
    CoreAuthPrompt,
    StandardErrorResponse<CoreErrorResponseType>,
    StandardTokenResponse<IdFields, CoreTokenType>,
    CoreTokenIntrospectionResponse,
    CoreRevocableToken,
    CoreRevocationErrorResponse,
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// What the provider told us at discovery.
struct Provider {
    client: ConfiguredClient,
    end_session: Option<String>,
}

/// A sign-in that has left for the provider and not come back yet; carried in the browser's
/// sign-in cookie (`sign_in.rs`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PendingSignIn {
    state: String,
    nonce: String,
    pkce_verifier: String,
    /// The local path to return to.
    pub next: String,
}

impl PendingSignIn {
    /// Whether the callback's `state` is the one this sign-in sent.
    pub fn matches(&self, state: &str) -> bool {
        // Both are random and single-use; compare in constant time all the same.
        bool::from(self.state.as_bytes().ct_eq(state.as_bytes()))
    }

    /// A mark of this sign-in that does not give its state away: the state's digest.
    pub fn digest(&self) -> [u8; 32] {
        use sha2::Digest;
        sha2::Sha256::digest(self.state.as_bytes()).into()
    }

    #[cfg(test)]
    pub(crate) fn new(state: &str, nonce: &str, pkce_verifier: &str, next: &str) -> PendingSignIn {
        PendingSignIn {
            state: state.into(),
            nonce: nonce.into(),
            pkce_verifier: pkce_verifier.into(),
            next: next.into(),
        }
    }
}

/// A signed-in person, kept in the session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedIn {
    pub subject: String,
    pub name: Option<String>,
    pub email: Option<String>,
    pub groups: Vec<String>,
    /// The earlier of the ID token's expiry and sign-in + `max_age`, ms since the epoch.
    pub expires_at_ms: i64,
    /// For the provider's end-session endpoint.
    pub id_token: String,
}

impl SignedIn {
    pub fn is_live(&self, now_ms: i64) -> bool {
        now_ms < self.expires_at_ms
    }

    /// Whether the session is still on at `now_ms`, or the words a person reads when it has
    /// ended: the same at every door and for a running stream.
    pub fn still_on(&self, now_ms: i64) -> Result<(), &'static str> {
        if self.is_live(now_ms) {
            Ok(())
        } else {
            Err("Your session has ended. Sign in again.")
        }
    }
}

/// The sign-in flow for one config.
pub struct Oidc {
    config: AuthConfig,
    http: openidconnect::reqwest::Client,
    provider: Mutex<Option<Arc<Provider>>>,
    /// Sessions signed out before they expired, by a digest of their ID token, with their
    /// expiry: a stream still open for one ends. Past its expiry a session is dead anyway, so
    /// an entry is dropped then.
    signed_out: std::sync::Mutex<HashMap<[u8; 32], i64>>,
}

impl Oidc {
    pub fn new(config: &AuthConfig) -> Result<Oidc, String> {
        let http = openidconnect::reqwest::ClientBuilder::new()
            // The OIDC spec forbids following redirects here (SSRF).
            .redirect(openidconnect::reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(10))
            .build()
            .map_err(|e| format!("auth.oidc: cannot build the HTTP client: {e}"))?;
        Ok(Oidc {
            config: config.clone(),
            http,
            provider: Mutex::new(None),
            signed_out: std::sync::Mutex::new(HashMap::new()),
        })
    }

    /// Remembers that `user` signed out, until their session would have expired.
    pub fn sign_out(&self, user: &SignedIn) {
        if let Ok(mut ended) = self.signed_out.lock() {
            let now = now_ms();
            ended.retain(|_, expires| *expires > now);
            ended.insert(session_digest(user), user.expires_at_ms);
        }
    }

    /// Whether `user`'s session was signed out.
    pub fn is_signed_out(&self, user: &SignedIn) -> bool {
        self.signed_out
            .lock()
            .map(|ended| ended.contains_key(&session_digest(user)))
            .unwrap_or(true)
    }

    /// Whether the session cookie must be Secure.
    pub fn secure_cookies(&self) -> bool {
        self.config.oidc.redirect_is_https
    }

    /// Discovers the provider once; a failure is retried at the next sign-in.
    async fn provider(&self) -> Result<Arc<Provider>, String> {
        let mut cached = self.provider.lock().await;
        if let Some(provider) = cached.as_ref() {
            return Ok(Arc::clone(provider));
        }
        let oidc = &self.config.oidc;
        let issuer = IssuerUrl::new(oidc.issuer.clone())
            .map_err(|e| format!("auth.oidc.issuer is not a URL: {e}"))?;
        let metadata =
            CoreProviderMetadata::discover_async(issuer, &self.http).await.map_err(|e| {
                format!("the identity provider's discovery document could not be read: {e}")
            })?;
        let redirect = RedirectUrl::new(oidc.redirect_uri.clone())
            .map_err(|e| format!("auth.oidc.redirect_uri is not a URL: {e}"))?;
        let end_session = self.end_session_endpoint().await;
        let client = ConfiguredClient::from_provider_metadata(
            metadata,
            ClientId::new(oidc.client_id.clone()),
            Some(ClientSecret::new(oidc.client_secret.expose().to_string())),
        )
        .set_redirect_uri(redirect);
        let provider = Arc::new(Provider { client, end_session });
        *cached = Some(Arc::clone(&provider));
        Ok(provider)
    }

    /// `end_session_endpoint` is not part of the core metadata; read it from the same document.
    async fn end_session_endpoint(&self) -> Option<String> {
        let url = format!(
            "{}/.well-known/openid-configuration",
            self.config.oidc.issuer.trim_end_matches('/')
        );
        let body = self.http.get(url).send().await.ok()?.bytes().await.ok()?;
        let document: serde_json::Value = serde_json::from_slice(&body).ok()?;
        document["end_session_endpoint"].as_str().map(str::to_string)
    }

    /// Starts a sign-in: the provider URL to send the browser to, and what to keep until it
    /// comes back.
    pub async fn begin(&self, next: String) -> Result<(String, PendingSignIn), String> {
        let provider = self.provider().await?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = provider.client.authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        );
        for scope in self.config.oidc.scopes.iter().filter(|s| *s != "openid") {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state, nonce) = request.set_pkce_challenge(challenge).url();
        Ok((
            url.to_string(),
            PendingSignIn {
                state: state.secret().clone(),
                nonce: nonce.secret().clone(),
                pkce_verifier: verifier.secret().clone(),
                next,
            },
        ))
    }

    /// Finishes a sign-in: exchanges the code, verifies the ID token, reads the groups.
    pub async fn finish(&self, pending: PendingSignIn, code: String) -> Result<SignedIn, String> {
        let provider = self.provider().await?;
        let token = provider
            .client
            .exchange_code(AuthorizationCode::new(code))
            .map_err(|e| format!("the identity provider has no token endpoint: {e}"))?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.pkce_verifier))
            .request_async(&self.http)
            .await
            .map_err(|e| format!("the identity provider refused the sign-in code: {e}"))?;
        let id_token = token.id_token().ok_or("the identity provider returned no ID token")?;
        let verifier = provider.client.id_token_verifier();
        let claims = id_token
            .claims(&verifier, &Nonce::new(pending.nonce))
            .map_err(|e| format!("the ID token did not verify: {e}"))?;
        let raw = id_token.to_string();
        let groups = groups_of(claims.additional_claims(), &self.config.claim)?;
        let token_expiry = claims.expiration().timestamp_millis();
        let session_expiry = now_ms().saturating_add(
            i64::try_from(self.config.oidc.max_age.as_millis()).unwrap_or(i64::MAX),
        );
        Ok(SignedIn {
            subject: claims.subject().to_string(),
            name: claims.name().and_then(|n| n.get(None)).map(|n| n.to_string()),
            email: claims.email().map(|e| e.to_string()),
            groups,
            expires_at_ms: token_expiry.min(session_expiry),
            id_token: raw,
        })
    }

    /// Where to send the browser after klens forgot the session, if the provider ends its own.
    pub async fn end_session_url(&self, id_token: &str, return_to: &str) -> Option<String> {
        let provider = self.provider().await.ok()?;
        let endpoint = provider.end_session.as_ref()?;
        let mut url = openidconnect::url::Url::parse(endpoint).ok()?;
        url.query_pairs_mut()
            .append_pair("id_token_hint", id_token)
            .append_pair("client_id", &self.config.oidc.client_id)
            .append_pair("post_logout_redirect_uri", return_to);
        Some(url.to_string())
    }
}

/// The groups in the configured claim of a verified ID token: a list of names, one name, or
/// none when the claim is absent.
pub fn groups_of(claims: &OtherClaims, claim: &str) -> Result<Vec<String>, String> {
    match claims.0.get(claim) {
        None | Some(serde_json::Value::Null) => Ok(Vec::new()),
        Some(serde_json::Value::String(one)) => Ok(vec![one.clone()]),
        Some(serde_json::Value::Array(items)) => {
            Ok(items.iter().filter_map(|g| g.as_str().map(str::to_string)).collect())
        }
        Some(_) => Err(format!("the ID token claim \"{claim}\" is not a list of group names")),
    }
}

/// One sign-in's mark: the digest of its ID token, which is new at every sign-in.
fn session_digest(user: &SignedIn) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(user.id_token.as_bytes()).into()
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The claims, the claim name, and the groups (`Err` for a claim that is not a list).
    type Case<'a> = (&'a str, &'a str, Result<Vec<&'a str>, ()>);

    #[test]
    fn groups_come_from_the_configured_claim() {
        let cases: [Case; 6] = [
            (r#"{"groups":["a","b"]}"#, "groups", Ok(vec!["a", "b"])),
            (r#"{"groups":"solo"}"#, "groups", Ok(vec!["solo"])),
            (r#"{"groups":[]}"#, "groups", Ok(vec![])),
            (r#"{"other":["a"]}"#, "groups", Ok(vec![])),
            (r#"{"roles":["x"],"groups":["y"]}"#, "roles", Ok(vec!["x"])),
            (r#"{"groups":{"a":1}}"#, "groups", Err(())),
        ];
        for (claims, claim, want) in cases {
            let claims: OtherClaims = serde_json::from_str(claims).expect("claims");
            let got = groups_of(&claims, claim).map_err(|_| ());
            let want = want.map(|v| v.into_iter().map(str::to_string).collect::<Vec<_>>());
            assert_eq!(got, want, "{claim}");
        }
    }

    /// Regression (hardening issue): Secure followed a lower-case `https://` prefix, so an
    /// `HTTPS://` redirect URI left the cookie without it.
    #[test]
    fn the_cookie_is_secure_exactly_when_the_redirect_uri_is_https() {
        for (redirect, secure) in [
            ("https://klens.example.com/auth/callback", true),
            ("HTTPS://klens.example.com/auth/callback", true),
            ("http://127.0.0.1:8080/auth/callback", false),
            ("HTTP://localhost:8080/auth/callback", false),
        ] {
            let yaml = format!(
                "clusters:\n  - name: c\n    bootstrap_servers: k:9092\nauth:\n  oidc:\n    \
                 issuer: https://idp.example.com\n    client_id: klens\n    client_secret: s\n    \
                 redirect_uri: {redirect}\n"
            );
            let config =
                crate::config::parse(&yaml, "t.yaml", &|_| None, std::path::Path::new("."))
                    .expect("valid");
            let auth = config.auth.expect("auth");
            let oidc = Oidc::new(&auth).expect("client");
            assert_eq!(oidc.secure_cookies(), secure, "{redirect}");
        }
    }

    #[test]
    fn a_signed_out_session_is_known_until_it_would_have_expired() {
        let yaml = "clusters:\n  - name: c\n    bootstrap_servers: k:9092\nauth:\n  oidc:\n    \
                    issuer: https://idp.example.com\n    client_id: klens\n    client_secret: s\n    \
                    redirect_uri: https://klens.example.com/cb\n";
        let config = crate::config::parse(yaml, "t.yaml", &|_| None, std::path::Path::new("."))
            .expect("valid");
        let oidc = Oidc::new(&config.auth.expect("auth")).expect("client");
        let user = |token: &str, expires_at_ms: i64| SignedIn {
            subject: "s".into(),
            name: None,
            email: None,
            groups: vec![],
            expires_at_ms,
            id_token: token.into(),
        };
        let (alice, again) = (user("t1", i64::MAX), user("t2", i64::MAX));
        assert!(!oidc.is_signed_out(&alice));
        oidc.sign_out(&alice);
        assert!(oidc.is_signed_out(&alice));
        assert!(!oidc.is_signed_out(&again), "a new sign-in is a new session");
        oidc.sign_out(&user("t3", 0));
        let kept = oidc.signed_out.lock().map(|m| m.len()).unwrap_or(0);
        oidc.sign_out(&user("t4", i64::MAX));
        let after = oidc.signed_out.lock().map(|m| m.len()).unwrap_or(0);
        assert_eq!((kept, after), (2, 2), "an expired entry is dropped at the next sign-out");
    }

    #[test]
    fn state_must_match_exactly() {
        let pending = PendingSignIn {
            state: "abc123".into(),
            nonce: String::new(),
            pkce_verifier: String::new(),
            next: "/".into(),
        };
        assert!(pending.matches("abc123"));
        assert!(!pending.matches("abc124"));
        assert!(!pending.matches("abc12"));
        assert!(!pending.matches(""));
    }

    #[test]
    fn a_session_ends_at_its_expiry() {
        let user = SignedIn {
            subject: "s".into(),
            name: None,
            email: None,
            groups: vec![],
            expires_at_ms: 1_000,
            id_token: String::new(),
        };
        assert!(user.is_live(999));
        assert!(!user.is_live(1_000));
    }
}
