//! `GET /api/export` (NDJSON) and `GET /api/tail` (server-sent events): record streams, which
//! server functions cannot carry. They ask the same decision as every other call, RECORDS on
//! the topic, before anything reaches Kafka, and answer refusals with the same error bodies.

use std::convert::Infallible;
use std::sync::Arc;

use app::access::{Action, Resource};
use app::api::is_internal_topic;
use app::{ApiError, Privilege};
use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use futures::StreamExt;
use serde::Deserialize;
use tokio::sync::mpsc;

use super::{error_response, AppState};
use crate::auth::oidc::{now_ms, SignedIn};
use crate::auth::{Policy, Subject};
use crate::catalog::ClusterEntry;
use crate::kafka::admin::check_topic_name;
use crate::records::stream::{self, Source, TailEvent};
use crate::records::{Filter, Span};

/// Buffered chunks between the reading thread and the response: the backpressure window.
const WINDOW: usize = 4;

#[derive(Debug, Deserialize)]
pub struct StreamQuery {
    cluster: String,
    topic: String,
    partition: Option<i32>,
    /// `earliest` (default for the export), `latest`, or a timestamp in ms since the epoch.
    from: Option<String>,
    /// The export stops at records newer than this timestamp (ms since the epoch).
    to: Option<i64>,
    q: Option<String>,
    #[serde(default)]
    exact: bool,
}

/// The caller of a request: anonymous without sign-in, else the session's user.
pub fn subject_for(policy: &Policy, user: Option<&SignedIn>) -> Result<Subject, ApiError> {
    if !policy.auth_enabled() {
        return Ok(Subject::Anonymous);
    }
    match user {
        Some(user) => Ok(Subject::User {
            groups: user.groups.clone(),
        }),
        None => Err(ApiError::new(
            app::ErrorCode::Unauthenticated,
            "Sign in to use klens.",
        )),
    }
}

fn records_action(topic: &str) -> Action {
    Action::new(
        Privilege::Records,
        Resource::Topic {
            name: topic.to_string(),
            internal: is_internal_topic(topic),
        },
    )
}

/// A stream request after the checks: caller → decision → arguments, as for every call, then
/// where it reads, fixed now.
struct Prepared {
    subject: Subject,
    entry: Arc<ClusterEntry>,
    query: StreamQuery,
    filter: Option<Filter>,
    spans: Vec<Span>,
}

async fn prepare(
    state: &AppState,
    user: Option<&SignedIn>,
    query: Result<Query<StreamQuery>, QueryRejection>,
    default_from: &str,
) -> Result<Prepared, ApiError> {
    let query = match query {
        Ok(Query(q)) => q,
        Err(rejection) => return Err(ApiError::bad_request("query", rejection.body_text())),
    };
    let subject = subject_for(&state.policy, user)?;
    let grant = state
        .policy
        .decide(&subject, &query.cluster, records_action(&query.topic))?;
    check_topic_name(&query.topic, "topic")?;
    let filter = Filter::parse(query.q.as_deref(), query.exact)?;
    let entry = state
        .catalog
        .entry(&grant)
        .cloned()
        .ok_or_else(|| ApiError::unknown_cluster(&query.cluster))?;
    let from = query.from.as_deref().unwrap_or(default_from);
    let spans = entry
        .stream_spans(&grant, &query.topic, query.partition, from)
        .await?;
    Ok(Prepared {
        subject,
        entry,
        query,
        filter,
        spans,
    })
}

pub async fn export(
    State(state): State<AppState>,
    user: Option<Extension<SignedIn>>,
    query: Result<Query<StreamQuery>, QueryRejection>,
) -> Response {
    let user = user.map(|Extension(u)| u);
    let Prepared {
        entry,
        query,
        filter,
        spans,
        ..
    } = match prepare(&state, user.as_ref(), query, "earliest").await {
        Ok(prepared) => prepared,
        Err(error) => return error_response(&error),
    };
    let total: i64 = spans.iter().map(|s| (s.end - s.start).max(0)).sum();
    let ranges = app::api::ExportSpans(
        spans
            .iter()
            .map(|s| (s.partition, s.start, s.end))
            .collect(),
    )
    .to_string();
    let file = query.topic.clone();
    let (tx, rx) = mpsc::channel::<Vec<u8>>(WINDOW);
    let source = source(&entry, &query.topic);
    tokio::task::spawn_blocking(move || {
        stream::export(&source, &spans, filter.as_ref(), query.to, tx);
    });
    let body = Body::from_stream(tokio_stream_of(rx).map(Ok::<_, Infallible>));
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    // Topic names are letters, digits, '.', '_' and '-' (checked above): safe in a header.
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
    query: Result<Query<StreamQuery>, QueryRejection>,
) -> Response {
    let user = user.map(|Extension(u)| u);
    // The tail always starts at the end, whatever `from` says.
    let query = query.map(|Query(mut q)| {
        q.from = Some("latest".to_string());
        Query(q)
    });
    let Prepared {
        subject,
        entry,
        query,
        filter,
        spans,
    } = match prepare(&state, user.as_ref(), query, "latest").await {
        Ok(prepared) => prepared,
        Err(error) => return error_response(&error),
    };
    let starts: Vec<(i32, i64)> = spans.iter().map(|s| (s.partition, s.start)).collect();
    // Access is asked again while the stream runs: the session may end, and then so does the
    // stream.
    let policy = Arc::clone(&state.policy);
    let (cluster, topic) = (query.cluster.clone(), query.topic.clone());
    let expires = user.as_ref().map(|u| u.expires_at_ms);
    let allowed = move || {
        if expires.is_some_and(|at| now_ms() >= at) {
            return Err("Your session has ended. Sign in again.".to_string());
        }
        policy
            .decide(&subject, &cluster, records_action(&topic))
            .map(|_| ())
            .map_err(|e| e.message)
    };
    let (tx, rx) = mpsc::channel::<TailEvent>(64);
    let source = source(&entry, &query.topic);
    tokio::task::spawn_blocking(move || {
        stream::tail(&source, &starts, filter.as_ref(), allowed, tx);
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

fn source(entry: &ClusterEntry, topic: &str) -> Source {
    Source {
        config: entry.reader().clone(),
        topic: topic.to_string(),
        schemas: entry.schemas(),
        handle: tokio::runtime::Handle::current(),
    }
}

/// A receiver as a stream that ends when the sender is gone.
fn tokio_stream_of<T: Send + 'static>(
    mut rx: mpsc::Receiver<T>,
) -> impl futures::Stream<Item = T> + Send + 'static {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx))
}
