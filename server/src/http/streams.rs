//! `GET /api/export` (NDJSON) and `GET /api/tail` (server-sent events): record streams, which
//! server functions cannot carry. They find the caller and hand the query to the same service
//! as every other call (RECORDS on the topic, decided before anything reaches Kafka), which
//! starts and watches the stream; the door carries its bytes. Refusals have the same error
//! bodies.

use std::convert::Infallible;

use app::api::Arg;
use app::ApiError;
use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use futures::StreamExt;
use tokio::sync::mpsc;

use super::{error_response, AppState};
use crate::auth::oidc::SignedIn;
use crate::auth::Caller;
use crate::records::stream::TailEvent;
use crate::service::records::{self, Stream, StreamArgs};

/// The caller and the prepared stream, or the error response.
async fn prepare(
    state: &AppState, user: Option<Extension<SignedIn>>, headers: &axum::http::HeaderMap,
    query: Result<Query<StreamArgs>, QueryRejection>, default_from: &str,
) -> Result<(Caller, Stream), Response> {
    let user = user.map(|Extension(u)| u);
    let door = super::backend::door(headers);
    let query = match query {
        Ok(Query(q)) => q,
        Err(rejection) => {
            // Every argument but `cluster` is taken as sent, so this names `cluster`.
            let text = rejection.body_text();
            return Err(error_response(&ApiError::bad_request(
                &app::error::first_field(&text),
                text,
            )));
        }
    };
    let run = async {
        let caller = Caller::of_request(&state.policy, user.as_ref(), door)?;
        let stream = records::stream(&state.service, &caller, query, default_from).await?;
        Ok::<_, ApiError>((caller, stream))
    };
    run.await.map_err(|e| error_response(&e))
}

pub async fn export(
    State(state): State<AppState>, user: Option<Extension<SignedIn>>,
    headers: axum::http::HeaderMap, query: Result<Query<StreamArgs>, QueryRejection>,
) -> Response {
    let (caller, stream) = match prepare(&state, user, &headers, query, "earliest").await {
        Ok(prepared) => prepared,
        Err(response) => return response,
    };
    let signed_in = signed_in(&state, &caller);
    let export = records::start_export(&state.service, caller, stream, signed_in);
    let body = Body::from_stream(tokio_stream_of(export.chunks).map(Ok::<_, Infallible>));
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/x-ndjson"));
    // Topic names are letters, digits, '.', '_' and '-' (checked by the service): safe here.
    let file = &export.topic;
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{file}.ndjson\"")) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    if let Ok(value) = HeaderValue::from_str(&export.records.to_string()) {
        // An upper bound of the records to come, for progress.
        headers.insert("x-klens-records", value);
    }
    if let Ok(value) = HeaderValue::from_str(&export.spans.to_string()) {
        // Where each partition starts and ends, so a client can show progress by offset even
        // when a filter leaves out most records.
        headers.insert(app::api::EXPORT_SPANS_HEADER, value);
    }
    response
}

pub async fn tail(
    State(state): State<AppState>, user: Option<Extension<SignedIn>>,
    headers: axum::http::HeaderMap, query: Result<Query<StreamArgs>, QueryRejection>,
) -> Response {
    // The tail always starts at the end, whatever `from` says.
    let query = query.map(|Query(mut q)| {
        q.from = Arg::Given("latest".to_string());
        Query(q)
    });
    let (caller, stream) = match prepare(&state, user, &headers, query, "latest").await {
        Ok(prepared) => prepared,
        Err(response) => return response,
    };
    let signed_in = signed_in(&state, &caller);
    let events = records::start_tail(&state.service, caller, stream, signed_in);
    let events = tokio_stream_of(events).map(|event| {
        Ok::<_, Infallible>(match event {
            TailEvent::Record(json) => Event::default().event("record").data(json),
            TailEvent::Status(json) => Event::default().event("status").data(json),
            TailEvent::End(reason) => Event::default().event("end").data(reason),
        })
    });
    Sse::new(events).keep_alive(KeepAlive::default()).into_response()
}

/// Auth's answer to whether `caller` is still signed in, for a stream to ask every second.
fn signed_in(state: &AppState, caller: &Caller) -> impl Fn() -> Result<(), String> + Send + Sync {
    let (caller, oidc) = (caller.clone(), state.oidc.clone());
    move || caller.still_signed_in(oidc.as_deref())
}

/// A receiver as a stream that ends when the sender is gone.
fn tokio_stream_of<T: Send + 'static>(
    mut rx: mpsc::Receiver<T>,
) -> impl futures::Stream<Item = T> + Send + 'static {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx))
}
