//! Records (RECORDS on the topic): a page, one record, and the preparation of the export and
//! the tail, whose bytes the streaming routes then carry.

use std::sync::Arc;

use app::api::{Arg, Record, RecordArgs, RecordAtArgs, RecordPage};
use app::{ApiError, Privilege};

use super::limits::StreamPermit;
use super::Service;
use crate::auth::Caller;
use crate::kafka::Link;
use crate::records::decode::Schemas;
use crate::records::{self, Filter, Span};

pub async fn records(
    service: &Service,
    caller: &Caller,
    args: RecordArgs,
) -> Result<RecordPage, ApiError> {
    let cluster = args.cluster.clone();
    let (granted, name) =
        service.decide_named_topic(caller, &cluster, Privilege::Records, &args.topic)?;
    let query = args.parse()?;
    let topic = granted.listed_topic(&name)?;
    let schemas = service.schemas(&cluster);
    records::page(&granted.grant, &granted.link(), &schemas, &topic, &query).await
}

pub async fn record(
    service: &Service,
    caller: &Caller,
    args: RecordAtArgs,
) -> Result<Record, ApiError> {
    let (granted, name) =
        service.decide_named_topic(caller, &args.cluster, Privilege::Records, &args.topic)?;
    let partition = args.partition.required("partition")?;
    let offset = args.offset.required("offset")?;
    let topic = granted.listed_topic(&name)?;
    let schemas = service.schemas(&args.cluster);
    records::one(
        &granted.grant,
        &granted.link(),
        &schemas,
        &topic,
        partition,
        offset,
    )
    .await
}

/// What a stream asks for, as sent (the query of `/api/export` and `/api/tail`).
#[derive(Clone, Debug, Default, serde::Deserialize)]
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
}

/// Prepares the export (from `earliest` unless told) or the tail (always from `latest`).
pub async fn stream(
    service: &Service,
    caller: &Caller,
    args: StreamArgs,
    default_from: &str,
) -> Result<Stream, ApiError> {
    let (granted, name) =
        service.decide_named_topic(caller, &args.cluster, Privilege::Records, &args.topic)?;
    let partition = args.partition.optional("partition")?;
    let from = args.from.or("from", default_from.to_string())?;
    let to = args.to.optional("to")?;
    let filter = Filter::parse(
        args.q.optional("q")?.as_deref(),
        args.exact.or("exact", false)?,
    )?;
    let topic = granted.listed_topic(&name)?;
    let permit = service.streams.admit(caller)?;
    let link = granted.link();
    let spans = records::stream_spans(&granted.grant, &link, &topic, partition, &from).await?;
    Ok(Stream {
        permit,
        cluster: args.cluster.clone(),
        link,
        schemas: service.schemas(&args.cluster),
        topic: name,
        filter,
        spans,
        to,
    })
}

/// Whether `caller` may still read `topic` of `cluster`: asked again while a tail runs.
pub fn still_allowed(
    service: &Service,
    caller: &Caller,
    cluster: &str,
    topic: &str,
) -> Result<(), ApiError> {
    service
        .decide_topic(caller, cluster, Privilege::Records, Some(topic))
        .map(|_| ())
}
