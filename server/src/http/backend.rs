//! The server side of every server function: find the caller of the current request (the
//! session middleware put the signed-in user into the request's extensions), then call the
//! service. Nothing here decides or checks anything.

use std::sync::Arc;

use app::api::backend::{Backend, Erased, Reply};
use app::{ApiError, ErrorCode};
use axum::http::request::Parts;
use leptos::prelude::use_context;

use crate::auth::oidc::SignedIn;
use crate::auth::Caller;
use crate::service::{self, Service};

/// Which door a request came through: the UI's when it says a page of klens's own origin made
/// it (`Sec-Fetch-Site: same-origin`, which browsers set and pages cannot change), else `/api`.
/// A script can send that header too: the door is what the request claims, never who is asking
/// (docs/security.md).
pub fn door(headers: &axum::http::HeaderMap) -> app::api::Door {
    let same_origin = headers
        .get("sec-fetch-site")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"same-origin"));
    if same_origin {
        app::api::Door::Ui
    } else {
        app::api::Door::Api
    }
}

/// The `Backend` server functions reach.
pub struct Door {
    pub service: Arc<Service>,
}

impl Backend for Door {
    /// Finds the caller of the current request now, while the request is current, and the
    /// service call registered for the type of `call`; the call runs when the reply is awaited.
    fn serve(&self, call: Erased) -> Reply<Erased> {
        let parts = use_context::<Parts>();
        let user = parts.as_ref().and_then(|p| p.extensions.get::<SignedIn>().cloned());
        let door = parts.as_ref().map_or(app::api::Door::Api, |p| door(&p.headers));
        let service = Arc::clone(&self.service);
        let caller = Caller::of_request(&service.policy, user.as_ref(), door);
        // The type of what the box holds, not of the box.
        let Some(handler) = service::handler(call.as_ref().type_id()) else {
            return Box::pin(async {
                Err(ApiError::new(
                    ErrorCode::Client,
                    "klens has no service call for this server function.",
                ))
            });
        };
        Box::pin(async move { (handler.run)(call, service, caller?).await })
    }
}
