//! Records (RECORDS on the topic): a page, one record, and the export and the tail: prepared
//! (decided, judged, placed among the open streams), then started and watched here, the door
//! only carrying what they send.

use std::sync::Arc;

use app::api::{Arg, Record, RecordArgs, RecordAtArgs, RecordPage};
use app::{ApiError, Privilege};
use tokio::sync::mpsc;

use super::limits::StreamPermit;
use super::Service;
use crate::auth::Caller;
use crate::kafka::Link;
use crate::masking::TopicMask;
use crate::records::decode::Schemas;
use crate::records::stream::TailEvent;
use crate::records::{self, Filter, Span, View};

pub async fn records(
    service: &Service, caller: &Caller, args: RecordArgs,
) -> Result<RecordPage, ApiError> {
    let read = records_read(service, caller, args.clone());
    service.audited_read(caller, &args.cluster, Privilege::Records, &args, read).await
}

async fn records_read(
    service: &Service, caller: &Caller, args: RecordArgs,
) -> Result<RecordPage, ApiError> {
    let cluster = args.cluster.clone();
    let (granted, name) =
        service.decide_named_topic(caller, &cluster, Privilege::Records, &args.topic)?;
    let query = args.parse()?;
    let topic = granted.listed_topic(&name)?;
    let schemas = service.schemas(&cluster);
    let mask = service.mask(caller, &cluster, &name);
    if query.key.is_some() && mask.as_ref().is_some_and(|m| m.masks_keys()) {
        // Finding a key by its bytes would tell a masked key from others: that is UNMASK's.
        service.decide_topic(caller, &cluster, Privilege::Unmask, Some(&name))?;
    }
    // A page (find by key too) holds a reader for up to its deadline: a bounded number run.
    let _running = service.reads.admit(caller)?;
    records::page(&granted.grant, &granted.link(), &schemas, &topic, &query, mask).await
}

pub async fn record(
    service: &Service, caller: &Caller, args: RecordAtArgs,
) -> Result<Record, ApiError> {
    let read = record_read(service, caller, args.clone());
    service.audited_read(caller, &args.cluster, Privilege::Records, &args, read).await
}

async fn record_read(
    service: &Service, caller: &Caller, args: RecordAtArgs,
) -> Result<Record, ApiError> {
    let (granted, name) =
        service.decide_named_topic(caller, &args.cluster, Privilege::Records, &args.topic)?;
    let partition = args.partition.required("partition")?;
    let offset = args.offset.required("offset")?;
    let topic = granted.listed_topic(&name)?;
    let schemas = service.schemas(&args.cluster);
    let mask = service.mask(caller, &args.cluster, &name);
    let _running = service.reads.admit(caller)?;
    records::one(
        &granted.grant,
        &granted.link(),
        &schemas,
        &topic,
        (partition, offset),
        mask.as_deref(),
    )
    .await
}

/// What a stream asks for, as sent (the query of `/api/export` and `/api/tail`).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct StreamArgs {
    pub cluster: String,
    #[serde(default)]
    pub topic: Arg<String>,
    #[serde(default)]
    pub partition: Arg<i32>,
    /// `earliest`, `latest`, or a timestamp in ms since the epoch.
    #[serde(default)]
    pub from: Arg<String>,
    /// The export stops at records newer than this timestamp (ms since the epoch).
    #[serde(default)]
    pub to: Arg<i64>,
    #[serde(default)]
    pub q: Arg<String>,
    #[serde(default)]
    pub exact: Arg<bool>,
    /// A CEL expression each record must pass, as on pages.
    #[serde(default)]
    pub expr: Arg<String>,
}

/// A stream after the decision and the checks: where it reads, fixed now, and how. It holds
/// its place among the open streams until it is dropped.
pub struct Stream {
    pub permit: StreamPermit,
    pub cluster: String,
    pub link: Arc<Link>,
    pub schemas: Arc<Schemas>,
    pub topic: String,
    pub filter: Option<Filter>,
    pub spans: Vec<Span>,
    pub to: Option<i64>,
    /// The masking of the topic's records for the caller, if any.
    pub mask: Option<Arc<TopicMask>>,
}

impl Stream {
    /// What the stream's blocking reader reads from: its consumer settings, topic, schemas
    /// (fetched on this runtime) and the caller's masking. Called on the runtime.
    pub fn source(&self) -> crate::records::stream::Source {
        crate::records::stream::Source {
            config: self.link.reader().clone(),
            topic: self.topic.clone(),
            schemas: Arc::clone(&self.schemas),
            handle: tokio::runtime::Handle::current(),
            mask: self.mask.clone(),
        }
    }
}

/// Prepares the export (from `earliest` unless told) or the tail (always from `latest`).
pub async fn stream(
    service: &Service, caller: &Caller, args: StreamArgs, default_from: &str,
) -> Result<Stream, ApiError> {
    let read = stream_read(service, caller, args.clone(), default_from);
    service.audited_read(caller, &args.cluster, Privilege::Records, &args, read).await
}

async fn stream_read(
    service: &Service, caller: &Caller, args: StreamArgs, default_from: &str,
) -> Result<Stream, ApiError> {
    let (granted, name) =
        service.decide_named_topic(caller, &args.cluster, Privilege::Records, &args.topic)?;
    let partition = args.partition.optional("partition")?;
    let from = args.from.or("from", default_from.to_string())?;
    let to = args.to.optional("to")?;
    let filter = Filter::parse(
        args.q.optional("q")?.as_deref(),
        args.exact.or("exact", false)?,
        args.expr.optional("expr")?.as_deref(),
    )?;
    let topic = granted.listed_topic(&name)?;
    let permit = service.streams.admit(caller)?;
    let link = granted.link();
    let spans = records::stream_spans(&granted.grant, &link, &topic, partition, &from).await?;
    let schemas = service.schemas(&args.cluster);
    let mask = service.mask(caller, &args.cluster, &name);
    let filter = filter.map(|f| View::over(f, &name, &schemas, mask.as_ref()));
    Ok(Stream {
        permit,
        cluster: args.cluster.clone(),
        link,
        schemas,
        topic: name,
        filter,
        spans,
        to,
        mask,
    })
}

/// Whether `caller` may still read `topic` of `cluster`: asked again while a tail runs.
fn still_allowed(
    service: &Service, caller: &Caller, cluster: &str, topic: &str,
) -> Result<(), ApiError> {
    service.decide_topic(caller, cluster, Privilege::Records, Some(topic)).map(|_| ())
}

/// Chunks of an export between its reading thread and the door: the backpressure window.
const EXPORT_WINDOW: usize = 4;
/// Events of a tail between its reading thread and the door.
const TAIL_WINDOW: usize = 64;

/// An export under way: its NDJSON in chunks as they are read, and what a client needs to
/// show progress.
pub struct Export {
    pub topic: String,
    /// An upper bound of the records to come.
    pub records: i64,
    /// Where each partition starts and ends.
    pub spans: app::api::ExportSpans,
    pub chunks: mpsc::Receiver<Vec<u8>>,
}

/// Starts reading `stream` as NDJSON on the blocking pool. Every second the reading asks
/// whether the caller is `signed_in` still and may still read the topic; a no ends it with a
/// last line saying why. A client that stops reading slows it; one that leaves ends it.
pub fn start_export(
    service: &Arc<Service>, caller: Caller, stream: Stream,
    signed_in: impl Fn() -> Result<(), String> + Send + Sync + 'static,
) -> Export {
    let allowed = watch(service, caller, &stream, signed_in);
    let records = stream.spans.iter().map(|s| (s.end - s.start).max(0)).sum();
    let spans =
        app::api::ExportSpans(stream.spans.iter().map(|s| (s.partition, s.start, s.end)).collect());
    let topic = stream.topic.clone();
    let (tx, chunks) = mpsc::channel::<Vec<u8>>(EXPORT_WINDOW);
    let source = stream.source();
    // Streams stay on tokio's blocking pool: see `records::pool` for why.
    tokio::task::spawn_blocking(move || {
        // The stream keeps its place among the open ones until the reading ends.
        let _permit = stream.permit;
        records::stream::export(
            &source,
            &stream.spans,
            stream.filter.as_ref(),
            stream.to,
            allowed,
            tx,
        );
    });
    Export { topic, records, spans, chunks }
}

/// Starts the tail of `stream` on the blocking pool: its records as they arrive, watched as
/// an export is.
pub fn start_tail(
    service: &Arc<Service>, caller: Caller, stream: Stream,
    signed_in: impl Fn() -> Result<(), String> + Send + Sync + 'static,
) -> mpsc::Receiver<TailEvent> {
    let starts: Vec<(i32, i64)> = stream.spans.iter().map(|s| (s.partition, s.start)).collect();
    let allowed = watch(service, caller, &stream, signed_in);
    let (tx, events) = mpsc::channel::<TailEvent>(TAIL_WINDOW);
    let source = stream.source();
    tokio::task::spawn_blocking(move || {
        let _permit = stream.permit;
        records::stream::tail(&source, &starts, stream.filter.as_ref(), allowed, tx);
    });
    events
}

/// What a running stream asks every second: the caller is signed in still, and may still
/// read the topic.
fn watch(
    service: &Arc<Service>, caller: Caller, stream: &Stream,
    signed_in: impl Fn() -> Result<(), String> + Send + Sync + 'static,
) -> impl Fn() -> Result<(), String> + Send + Sync + 'static {
    let service = Arc::clone(service);
    let (cluster, topic) = (stream.cluster.clone(), stream.topic.clone());
    move || {
        signed_in()?;
        still_allowed(&service, &caller, &cluster, &topic).map_err(|e| e.message)
    }
}

// The server functions this capability answers.
serves!(app::api::Records, |s, c, a| records(&s, &c, a.args));
serves!(app::api::GetRecord, |s, c, a| record(&s, &c, a.args));
