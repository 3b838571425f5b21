//! `GET /api/export` (NDJSON) and `GET /api/tail` (server-sent events): record streams, which
//! server functions cannot carry. They find the caller and hand the query to the same service
//! as every other call (RECORDS on the topic, decided before anything reaches Kafka), then
//! carry the bytes; refusals have the same error bodies.

use std::convert::Infallible;
use std::sync::Arc;

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
use crate::auth::oidc::{now_ms, SignedIn};
use crate::auth::Caller;
use crate::records::stream::{self as records_stream, TailEvent};
use crate::service::records::{self, Stream, StreamArgs};

/// Buffered chunks between the reading thread and the response: the backpressure window.
const WINDOW: usize = 4;

/// The caller and the prepared stream, or the error response.
async fn prepare(
    state: &AppState,
    user: Option<&SignedIn>,
    door: app::api::Door,
    query: Result<Query<StreamArgs>, QueryRejection>,
    default_from: &str,
) -> Result<(Caller, Stream), Response> {
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
        let caller = Caller::of_request(&state.policy, user, door)?;
        let stream = records::stream(&state.service, &caller, query, default_from).await?;
        Ok::<_, ApiError>((caller, stream))
    };
    run.await.map_err(|e| error_response(&e))
}

pub async fn export(
    State(state): State<AppState>,
    user: Option<Extension<SignedIn>>,
    headers: axum::http::HeaderMap,
    query: Result<Query<StreamArgs>, QueryRejection>,
) -> Response {
    let user = user.map(|Extension(u)| u);
    let (caller, stream) = match prepare(
        &state,
        user.as_ref(),
        super::backend::door(&headers),
        query,
        "earliest",
    )
    .await
    {
        Ok(prepared) => prepared,
        Err(response) => return response,
    };
    let allowed = recheck(&state, caller, &stream);
    let total: i64 = stream.spans.iter().map(|s| (s.end - s.start).max(0)).sum();
    let ranges = app::api::ExportSpans(
        stream
            .spans
            .iter()
            .map(|s| (s.partition, s.start, s.end))
            .collect(),
    )
    .to_string();
    let file = stream.topic.clone();
    let (tx, rx) = mpsc::channel::<Vec<u8>>(WINDOW);
    let source = stream.source();
    // Streams stay on tokio's blocking pool: see `records::pool` for why.
    tokio::task::spawn_blocking(move || {
        // The stream keeps its place among the open ones until the reading ends.
        let _permit = stream.permit;
        records_stream::export(
            &source,
            &stream.spans,
            stream.filter.as_ref(),
            stream.to,
            allowed,
            tx,
        );
    });
    let body = Body::from_stream(tokio_stream_of(rx).map(Ok::<_, Infallible>));
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    // Topic names are letters, digits, '.', '_' and '-' (checked by the service): safe here.
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{file}.ndjson\"")) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    if let Ok(value) = HeaderValue::from_str(&total.to_string()) {
        // An upper bound of the records to come, for progress.
        headers.insert("x-klens-records", value);
    }
    if let Ok(value) = HeaderValue::from_str(&ranges) {
        // Where each partition starts and ends, so a client can show progress by offset even
        // when a filter leaves out most records.
        headers.insert(app::api::EXPORT_SPANS_HEADER, value);
    }
    response
}

pub async fn tail(
    State(state): State<AppState>,
    user: Option<Extension<SignedIn>>,
    headers: axum::http::HeaderMap,
    query: Result<Query<StreamArgs>, QueryRejection>,
) -> Response {
    let user = user.map(|Extension(u)| u);
    // The tail always starts at the end, whatever `from` says.
    let query = query.map(|Query(mut q)| {
        q.from = Arg::Given("latest".to_string());
        Query(q)
    });
    let (caller, stream) = match prepare(
        &state,
        user.as_ref(),
        super::backend::door(&headers),
        query,
        "latest",
    )
    .await
    {
        Ok(prepared) => prepared,
        Err(response) => return response,
    };
    let starts: Vec<(i32, i64)> = stream
        .spans
        .iter()
        .map(|s| (s.partition, s.start))
        .collect();
    let allowed = recheck(&state, caller, &stream);
    let (tx, rx) = mpsc::channel::<TailEvent>(64);
    let source = stream.source();
    tokio::task::spawn_blocking(move || {
        let _permit = stream.permit;
        records_stream::tail(&source, &starts, stream.filter.as_ref(), allowed, tx);
    });
    let events = tokio_stream_of(rx).map(|event| {
        Ok::<_, Infallible>(match event {
            TailEvent::Record(json) => Event::default().event("record").data(json),
            TailEvent::End(reason) => Event::default().event("end").data(reason),
        })
    });
    Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// What a running stream asks every second: the caller may still read this topic, and their
/// session has neither expired nor been signed out. When it says no, the stream ends.
fn recheck(
    state: &AppState,
    caller: Caller,
    stream: &Stream,
) -> impl Fn() -> Result<(), String> + Send + Sync + 'static {
    let service = Arc::clone(&state.service);
    let oidc = state.oidc.clone();
    let (cluster, topic) = (stream.cluster.clone(), stream.topic.clone());
    move || {
        if let Some(user) = caller.user() {
            if now_ms() >= user.expires_at_ms {
                return Err("Your session has ended. Sign in again.".to_string());
            }
            if oidc.as_ref().is_some_and(|o| o.is_signed_out(user)) {
                return Err("You signed out.".to_string());
            }
        }
        records::still_allowed(&service, &caller, &cluster, &topic).map_err(|e| e.message)
    }
}

/// A receiver as a stream that ends when the sender is gone.
fn tokio_stream_of<T: Send + 'static>(
    mut rx: mpsc::Receiver<T>,
) -> impl futures::Stream<Item = T> + Send + 'static {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx))
}
