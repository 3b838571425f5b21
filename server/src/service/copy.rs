//! Moving records: `copy_records` copies a selection of a topic's records (partitions, an
//! offset or time range, the filters of a page, a limit) to another topic on the same cluster
//! or another, or redrives dead-letter records to the topics their headers name
//! (`records::redrive`). Keys, values and headers travel byte for byte (a redrive takes the
//! error headers off), a lineage header is added, timestamps are kept on request, and a
//! record keeps its partition when the counts match (a redrive: the partition its headers
//! name), else the producer places it by key.
//!
//! A dry run reads the selection (up to a budget) and says what would go where, what would be
//! left out and why, and what would be taken off. The copy itself is a job: decided and its
//! attempt recorded before the answer, then read up to the ends fixed when it started and
//! written with many records in flight, at most `rate` per second, until it ends or its owner
//! cancels it. Its outcome, with the counts, is recorded when it ends.
//!
//! Access: RECORDS on the source; PRODUCE on each target (a redrive decides each topic it
//! meets on its own, and leaves out the records of a refused one), on a writable cluster; from
//! a topic masked for the caller only into one that hides the same fields the same way.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use app::api::{
    Arg, CopyAnswer, CopyArgs, CopyJob, CopyJobList, CopyPlan, CopySample, CopySkipped, CopyState,
    CopyTarget,
};
use app::{ApiError, ErrorCode, Privilege};
use futures::stream::{FuturesUnordered, StreamExt};
use futures::FutureExt;
use serde_json::json;

use super::{Granted, Service};
use crate::audit::Attempt;
use crate::auth::oidc::now_ms;
use crate::auth::Caller;
use crate::kafka::admin::produce::{delivered, queue, NotQueued, Outgoing};
use crate::kafka::Link;
use crate::masking::TopicMask;
use crate::records::redrive::{self, NoOrigin};
use crate::records::scan::{read_selection, Flow, Selected};
use crate::records::{self, Filter, RawRecord, Span, View};

/// The most records a dry run reads, and for how long.
const PLAN_BUDGET: u64 = 200_000;
const PLAN_DEADLINE: Duration = Duration::from_secs(10);
/// Records of the dry run's sample.
const SAMPLE: usize = 10;
/// Records a job has queued for Kafka and not seen delivered, at most: enough to keep the
/// producer's batches full while earlier ones wait for the brokers (a window of a thousand
/// held a copy to about 40,000 records a second, one window per linger and round trip), few
/// enough to hold some 20 MB of 1 KB records.
const IN_FLIGHT: usize = 20_000;
/// Batches of records read and not yet written, at most, and records in a batch: the reader
/// hands records over a batch at a time, so that the writer is not woken for each.
const READ_AHEAD: usize = 8;
const BATCH: usize = 256;
/// Ended jobs kept for their owners to look at.
const KEPT_ENDED: usize = 50;

/// Copies, or with `dry_run` plans, a selection of records.
pub async fn copy_records(
    service: &Arc<Service>, caller: &Caller, args: CopyArgs,
) -> Result<CopyAnswer, ApiError> {
    let dry_run = args.dry_run.clone().or("dry_run", false)?;
    let attempt = attempt(&args, dry_run);
    if dry_run {
        let plan = plan(service, caller, args);
        let plan = service.audited(caller, attempt, |_| None, plan).await?;
        return Ok(CopyAnswer { dry_run, plan: Some(plan), job: None });
    }
    let (started, answer) = tokio::sync::oneshot::channel();
    let (inner, who) = (Arc::clone(service), caller.clone());
    let outer = Arc::clone(service);
    tokio::spawn(async move {
        let noted = |job: &CopyJob| Some(summary(job));
        let _ = outer.audited(&who.clone(), attempt, noted, run(inner, who, args, started)).await;
    });
    match answer.await {
        Ok(Ok(job)) => Ok(CopyAnswer { dry_run, plan: None, job: Some(job) }),
        Ok(Err(refused)) => Err(refused),
        Err(_) => Err(ApiError::new(ErrorCode::Client, "The copy ended before it started.")),
    }
}

/// The attempt: PRODUCE on the target topic of a copy (on its cluster), or on the source topic
/// of a redrive (whose targets it finds as it reads). The filters stay out of the summary, as
/// a page's do: they may be what someone searched records for.
fn attempt(args: &CopyArgs, dry_run: bool) -> Attempt {
    let mut attempt = Attempt::of(&args.cluster, Privilege::Produce, args, &["q", "expr"]);
    attempt.dry_run = dry_run;
    if let Some(target) = args.target_topic.given() {
        attempt.cluster = args.target_cluster.given().cloned().unwrap_or(args.cluster.clone());
        attempt.resource = app::access::Resource::topic(target.clone());
    }
    attempt
}

fn summary(job: &CopyJob) -> serde_json::Value {
    json!({
        "job": job.id,
        "state": job.state,
        "scanned": job.scanned,
        "copied": job.copied,
        "skipped": job.skipped,
        "failed": job.failed,
        "targets": job.targets,
    })
}

/// The caller's copy jobs on `cluster`, newest first: those this replica runs, and those every
/// other replica keeps records of (`crate::jobs`), the last [`KEPT_ENDED`] ended ones.
pub async fn jobs(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<CopyJobList, ApiError> {
    service.access(caller, cluster)?;
    let owner = super::limits::caller_key(caller);
    let mut listed: Vec<CopyJob> = service
        .copies
        .all()
        .iter()
        .filter(|j| j.owner == owner && j.cluster == cluster)
        .map(|j| j.view())
        .collect();
    for (_, held) in super::copy_jobs::everywhere(service).await {
        for kept in held.jobs.into_values() {
            let mine = kept.owner == owner && kept.job.cluster == cluster;
            if mine && !listed.iter().any(|j| j.id == kept.job.id) {
                listed.push(kept.job);
            }
        }
    }
    listed.sort_by(|a, b| b.started.cmp(&a.started).then_with(|| b.id.cmp(&a.id)));
    let mut ended = 0;
    listed.retain(|j| {
        ended += usize::from(j.state != CopyState::Running);
        j.state == CopyState::Running || ended <= KEPT_ENDED
    });
    Ok(CopyJobList { jobs: listed })
}

/// Stops a job, on whichever replica runs it: the caller's own, or one writing where the caller
/// may write (PRODUCE where its attempt names); any other is as one that does not exist.
pub async fn cancel(
    service: &Service, caller: &Caller, cluster: &str, id: Arg<String>,
) -> Result<CopyJob, ApiError> {
    service.access(caller, cluster)?;
    let id = id.required("id")?;
    let owner = super::limits::caller_key(caller);
    let may_stop = |job_owner: &str, on: (&str, &str)| {
        job_owner == owner
            || service
                .decide(
                    caller,
                    on.0,
                    app::access::Action::new(
                        Privilege::Produce,
                        app::access::Resource::topic(on.1),
                    ),
                )
                .is_ok()
    };
    let missing = || ApiError::not_found(format!("You have no copy job \"{id}\" here."));
    if let Some(job) = service.copies.all().into_iter().find(|j| j.id == id && j.cluster == cluster)
    {
        if !may_stop(&job.owner, (&job.on.0, &job.on.1)) {
            return Err(missing());
        }
        job.cancel.store(true, Ordering::SeqCst);
        return Ok(job.view());
    }
    for (entry, held) in super::copy_jobs::everywhere(service).await {
        let Some(kept) = held.jobs.get(&id).filter(|k| k.job.cluster == cluster) else {
            continue;
        };
        if !may_stop(&kept.owner, (&kept.on_cluster, &kept.on_topic)) {
            return Err(missing());
        }
        if kept.job.state == CopyState::Running {
            entry.copy_jobs.ask_stop(&id).await.map_err(|error| {
                tracing::error!(%error, "a copy job's stop");
                ApiError::new(
                    ErrorCode::Client,
                    "klens could not ask the replica running this job to stop it; its log says why.",
                )
            })?;
        }
        return Ok(kept.job.clone());
    }
    Err(missing())
}

/// The jobs of every caller, those running and the last [`KEPT_ENDED`] ended ones.
#[derive(Default)]
pub struct Jobs {
    jobs: Mutex<Vec<Arc<Job>>>,
}

impl Jobs {
    fn add(&self, job: Arc<Job>) {
        let mut jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
        jobs.push(job);
        let ended = jobs.iter().filter(|j| j.ended().is_some()).count();
        if ended > KEPT_ENDED {
            let mut drop = ended - KEPT_ENDED;
            jobs.retain(|j| {
                let gone = drop > 0 && j.ended().is_some();
                drop -= usize::from(gone);
                !gone
            });
        }
    }

    fn all(&self) -> Vec<Arc<Job>> {
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// One copy, as it goes.
pub struct Job {
    id: String,
    owner: String,
    /// Where it writes, as its attempt names it (cluster, topic).
    on: (String, String),
    cluster: String,
    topic: String,
    target: String,
    started: i64,
    total: u64,
    scanned: AtomicU64,
    copied: AtomicU64,
    skipped: AtomicU64,
    failed: AtomicU64,
    cancel: AtomicBool,
    per_target: Mutex<BTreeMap<String, u64>>,
    error: Mutex<Option<String>>,
    end: Mutex<Option<(CopyState, i64)>>,
}

impl Job {
    fn ended(&self) -> Option<(CopyState, i64)> {
        *self.end.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn note_error(&self, error: String) {
        let mut first = self.error.lock().unwrap_or_else(PoisonError::into_inner);
        first.get_or_insert(error);
    }

    fn delivered(&self, (target, outcome): (String, Result<(i32, i64), ApiError>)) {
        match outcome {
            Ok(_) => {
                self.copied.fetch_add(1, Ordering::Relaxed);
                *self
                    .per_target
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry(target)
                    .or_default() += 1;
            }
            Err(refused) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                self.note_error(format!("{target}: {}", refused.message));
            }
        }
    }

    fn view(&self) -> CopyJob {
        let (state, ended) = match self.ended() {
            Some((state, at)) => (state, Some(at)),
            None => (CopyState::Running, None),
        };
        CopyJob {
            id: self.id.clone(),
            cluster: self.cluster.clone(),
            topic: self.topic.clone(),
            target: self.target.clone(),
            state,
            started: self.started,
            ended,
            total: self.total,
            scanned: self.scanned.load(Ordering::Relaxed),
            copied: self.copied.load(Ordering::Relaxed),
            skipped: self.skipped.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            targets: self
                .per_target
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
            error: self.error.lock().unwrap_or_else(PoisonError::into_inner).clone(),
        }
    }
}

/// Where a copy's records go.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Mode {
    /// Every record to one topic.
    Copy { cluster: String, topic: String },
    /// Each record to the topic its dead-letter headers name, on the source's cluster.
    Redrive,
}

/// One target topic as decided for the caller.
struct Verdict {
    cluster: String,
    topic: String,
    /// The grant, with the cluster's link, when the caller may write there.
    granted: Result<(Granted, Arc<Link>), ApiError>,
    partitions: usize,
    /// Records routed here that the producer places by key (a redrive's whose headers name a
    /// partition the target lacks, or none).
    by_key: u64,
    /// Its grant was opened (the attempt recorded before).
    opened: bool,
}

/// Where one record goes, or why it does not.
enum Routed {
    To { target: String, record: Outgoing, stripped: Vec<String> },
    Skip(String),
}

/// Decides where records go, each target topic once.
struct Router {
    service: Arc<Service>,
    caller: Caller,
    cluster: String,
    topic: String,
    partitions: usize,
    mask: Option<Arc<TopicMask>>,
    mode: Mode,
    keep_timestamps: bool,
    verdicts: HashMap<String, Verdict>,
}

impl Router {
    /// The verdict on `cluster`'s `topic`, decided the first time; `key` is `cluster/topic`.
    fn verdict(&mut self, key: &str, cluster: &str, topic: &str) -> &mut Verdict {
        if !self.verdicts.contains_key(key) {
            let verdict = self.decide(cluster, topic);
            self.verdicts.insert(key.to_string(), verdict);
        }
        self.verdicts.get_mut(key).expect("inserted above")
    }

    fn decide(&self, cluster: &str, topic: &str) -> Verdict {
        let decided = (|| {
            let granted = self.service.decide_topic(
                &self.caller,
                cluster,
                Privilege::Produce,
                Some(topic),
            )?;
            let listed = granted.listed_topic(topic)?;
            if let Some(source) = &self.mask {
                let same = self
                    .service
                    .mask(&self.caller, cluster, topic)
                    .is_some_and(|target| target.hides_as(source));
                if !same {
                    return Err(ApiError {
                        privilege: Some(Privilege::Unmask),
                        ..ApiError::new(
                            ErrorCode::MissingPrivilege,
                            format!(
                                "Topic \"{}\" is masked for you and \"{topic}\" would not hide its \
                                 records the same way: copying them there needs the UNMASK \
                                 privilege on \"{}\".",
                                self.topic, self.topic
                            ),
                        )
                    });
                }
            }
            let link = granted.link();
            Ok((granted, link, listed.partitions.len()))
        })();
        let (granted, partitions) = match decided {
            Ok((granted, link, partitions)) => (Ok((granted, link)), partitions),
            Err(refused) => (Err(refused), 0),
        };
        Verdict {
            cluster: cluster.to_string(),
            topic: topic.to_string(),
            granted,
            partitions,
            by_key: 0,
            opened: false,
        }
    }

    fn route(&mut self, r: RawRecord, now: i64) -> Routed {
        let redrive = self.mode == Mode::Redrive;
        let (cluster, topic, named_partition) = match &self.mode {
            Mode::Copy { cluster, topic } => (cluster.clone(), topic.clone(), None),
            Mode::Redrive => match redrive::origin(&r.headers) {
                Ok(origin) => (self.cluster.clone(), origin.topic, origin.partition),
                Err(NoOrigin::Missing) => {
                    return Routed::Skip("no dead-letter header names its topic".into())
                }
                Err(NoOrigin::Unreadable(why)) => return Routed::Skip(why),
            },
        };
        let source_partitions = self.partitions;
        let target = format!("{cluster}/{topic}");
        let verdict = self.verdict(&target, &cluster, &topic);
        if let Err(refused) = &verdict.granted {
            return Routed::Skip(format!("{target}: {}", refused.message));
        }
        let count = verdict.partitions;
        let partition = match named_partition {
            Some(p) if p >= 0 && (p as usize) < count => Some(p),
            Some(_) => None,
            None if !redrive && count == source_partitions => Some(r.partition),
            None => None,
        };
        verdict.by_key += u64::from(partition.is_none());
        let (headers, stripped) = redrive::copied_headers(
            &r.headers,
            redrive,
            (&self.cluster, &self.topic, r.partition, r.offset),
        );
        let timestamp = if self.keep_timestamps { r.timestamp.unwrap_or(now) } else { now };
        Routed::To {
            target,
            record: Outgoing { topic, partition, key: r.key, value: r.value, headers, timestamp },
            stripped,
        }
    }

    /// How a target's records are placed: a redrive's are kept only when every one routed there
    /// so far keeps the partition its headers name.
    fn placement(&self, verdict: &Verdict) -> &'static str {
        match self.mode {
            Mode::Copy { .. } if verdict.partitions == self.partitions => "kept",
            Mode::Copy { .. } => "by_key",
            Mode::Redrive if verdict.by_key > 0 => "by_key",
            Mode::Redrive => "kept",
        }
    }
}

/// A selection, decided and judged: what to read and where it goes.
struct Selection {
    source: Granted,
    topic: String,
    spans: Vec<Span>,
    filter: Option<Filter>,
    until: Option<i64>,
    limit: Option<u64>,
    rate: Option<u32>,
    router: Router,
}

async fn select(
    service: &Arc<Service>, caller: &Caller, args: CopyArgs,
) -> Result<Selection, ApiError> {
    let cluster = args.cluster.clone();
    // A copy's one target is decided first: its refusal names PRODUCE, the privilege the copy
    // is offered by, whatever the caller holds on the source.
    if let Some(target) = args.target_topic.given() {
        let target_cluster = args.target_cluster.given().unwrap_or(&cluster);
        service.decide_topic(caller, target_cluster, Privilege::Produce, Some(target))?;
    }
    let (source, topic) =
        service.decide_named_topic(caller, &cluster, Privilege::Records, &args.topic)?;
    let partition = args.partition.optional("partition")?;
    let offset = args.offset.optional("offset")?;
    let until_offset = args.until_offset.optional("until_offset")?;
    if partition.is_none() && (offset.is_some() || until_offset.is_some()) {
        return Err(ApiError::bad_request("partition", "An offset range names its partition."));
    }
    let from = args.from.or("from", "earliest".to_string())?;
    if from == "latest" {
        return Err(ApiError::bad_request(
            "from",
            "A copy starts at earliest or at a time (ms since the epoch); from latest there is \
             nothing to copy.",
        ));
    }
    let until = args.to.optional("to")?;
    let filter = Filter::parse(
        args.q.optional("q")?.as_deref(),
        args.exact.or("exact", false)?,
        args.expr.optional("expr")?.as_deref(),
    )?;
    let limit = args.limit.optional("limit")?;
    let rate = args.rate.optional("rate")?;
    if limit == Some(0) || rate == Some(0) {
        let field = if limit == Some(0) { "limit" } else { "rate" };
        return Err(ApiError::bad_request(field, format!("`{field}` is at least 1.")));
    }
    let keep_timestamps = args.keep_timestamps.or("keep_timestamps", false)?;
    let mode =
        match (
            args.target_cluster.optional("target_cluster")?,
            args.target_topic.optional("target_topic")?,
        ) {
            (target_cluster, Some(target)) => {
                app::names::TopicName::check(&target, "target_topic")?;
                let target_cluster = target_cluster.unwrap_or_else(|| cluster.clone());
                if target_cluster == cluster && target == topic {
                    return Err(ApiError::bad_request(
                        "target_topic",
                        "A topic is not copied into itself.",
                    ));
                }
                Mode::Copy { cluster: target_cluster, topic: target }
            }
            (Some(_), None) => return Err(ApiError::bad_request(
                "target_topic",
                "A copy to another cluster names its topic; without a target topic, records are \
                 redriven on their own cluster.",
            )),
            (None, None) => Mode::Redrive,
        };
    let listed = source.listed_topic(&topic)?;
    let mask = service.mask(caller, &cluster, &topic);
    let mut router = Router {
        service: Arc::clone(service),
        caller: caller.clone(),
        cluster: cluster.clone(),
        topic: topic.clone(),
        partitions: listed.partitions.len(),
        mask: mask.clone(),
        mode: mode.clone(),
        keep_timestamps,
        verdicts: HashMap::new(),
    };
    // One target: refused, the whole copy is.
    if let Mode::Copy { cluster: target_cluster, topic: target } = &mode {
        let key = format!("{target_cluster}/{target}");
        if let Err(refused) = &router.verdict(&key, target_cluster, target).granted {
            return Err(refused.clone());
        }
    }
    let link = source.link();
    let mut spans = records::stream_spans(&source.grant, &link, &listed, partition, &from).await?;
    for span in &mut spans {
        if let Some(first) = offset {
            span.start = span.start.max(first).min(span.end);
        }
        if let Some(stop) = until_offset {
            span.end = span.end.min(stop).max(span.start);
        }
    }
    let schemas = service.schemas(&cluster);
    let filter = filter.map(|f| View::over(f, &topic, &schemas, mask.as_ref()));
    Ok(Selection { source, topic, spans, filter, until, limit, rate, router })
}

/// The dry run: the selection read up to [`PLAN_BUDGET`] records or [`PLAN_DEADLINE`], each
/// record routed, nothing written.
async fn plan(
    service: &Arc<Service>, caller: &Caller, args: CopyArgs,
) -> Result<CopyPlan, ApiError> {
    let selection = select(service, caller, args).await?;
    // A dry run reads records like a page: it counts against the expensive reads.
    let _running = service.reads.admit(caller)?;
    let Selection { source, topic, spans, filter, until, limit, mut router, .. } = selection;
    let config = source.link().reader().clone();
    let redrive = router.mode == Mode::Redrive;
    let cluster = router.cluster.clone();
    records::pool::run("planning a copy", move || {
        let scanned = AtomicU64::new(0);
        let deadline = Instant::now() + PLAN_DEADLINE;
        let mut matched = 0u64;
        let mut per_target: BTreeMap<String, u64> = BTreeMap::new();
        let mut skipped: BTreeMap<String, u64> = BTreeMap::new();
        let mut stripped: Vec<String> = Vec::new();
        let mut sample: Vec<CopySample> = Vec::new();
        let now = now_ms();
        // Whether the budget or the deadline ended the read before the selection's end.
        let stopped = AtomicBool::new(false);
        let stop = || {
            let over = Instant::now() >= deadline || scanned.load(Ordering::Relaxed) >= PLAN_BUDGET;
            stopped.fetch_or(over, Ordering::Relaxed);
            over
        };
        let selected = Selected {
            topic: &topic,
            spans: &spans,
            filter: filter.as_ref(),
            until_timestamp: until,
        };
        read_selection(&config, &selected, &scanned, stop, |r| {
            matched += 1;
            let (partition, offset) = (r.partition, r.offset);
            match router.route(r, now) {
                Routed::Skip(reason) => *skipped.entry(reason).or_default() += 1,
                Routed::To { target, record, stripped: off } => {
                    *per_target.entry(target.clone()).or_default() += 1;
                    for name in &off {
                        if !stripped.contains(name) {
                            stripped.push(name.clone());
                        }
                    }
                    if sample.len() < SAMPLE {
                        sample.push(CopySample {
                            partition,
                            offset,
                            target,
                            target_partition: record.partition,
                            stripped: off,
                        });
                    }
                }
            }
            if limit.is_some_and(|most| matched >= most) {
                Flow::Stop
            } else {
                Flow::Go
            }
        })?;
        let scanned = scanned.load(Ordering::Relaxed);
        let partial = stopped.load(Ordering::Relaxed);
        let targets = router
            .verdicts
            .values()
            .map(|v| CopyTarget {
                cluster: v.cluster.clone(),
                topic: v.topic.clone(),
                records: per_target
                    .get(&format!("{}/{}", v.cluster, v.topic))
                    .copied()
                    .unwrap_or(0),
                refused: v.granted.as_ref().err().map(|e| e.message.clone()),
                placement: router.placement(v).to_string(),
            })
            .collect();
        Ok(CopyPlan {
            cluster,
            topic,
            redrive,
            spans: spans.iter().map(|s| (s.partition, s.start, s.end)).collect(),
            scanned,
            matched,
            partial,
            targets,
            skipped: skipped
                .into_iter()
                .map(|(reason, records)| CopySkipped { reason, records })
                .collect(),
            stripped,
            sample,
        })
    })
    .await
}

/// The copy job: decided, its attempt recorded, then run to its end. Says on `started` that it
/// started (or why not) before it reads anything.
async fn run(
    service: Arc<Service>, caller: Caller, args: CopyArgs,
    started: tokio::sync::oneshot::Sender<Result<CopyJob, ApiError>>,
) -> Result<CopyJob, ApiError> {
    let target = match args.target_topic.given() {
        Some(topic) => format!(
            "{}/{topic}",
            args.target_cluster.given().cloned().unwrap_or(args.cluster.clone())
        ),
        None => "redrive".to_string(),
    };
    // Where it writes, as its attempt names it: a copy's target, a redrive's own topic.
    let on = match args.target_topic.given() {
        Some(topic) => {
            (args.target_cluster.given().cloned().unwrap_or(args.cluster.clone()), topic.clone())
        }
        None => (args.cluster.clone(), args.topic.given().cloned().unwrap_or_default()),
    };
    let prepared = async {
        let permit = service.streams.admit(&caller)?;
        let mut selection = select(&service, &caller, args).await?;
        // The attempt is recorded before anything is read or written.
        service.open(&mut selection.source.grant).await?;
        Ok::<_, ApiError>((permit, selection))
    }
    .await;
    let (permit, selection) = match prepared {
        Ok(prepared) => prepared,
        Err(refused) => {
            let _ = started.send(Err(refused.clone()));
            return Err(refused);
        }
    };
    let job = Arc::new(Job {
        id: format!("copy-{:016x}", rand::random::<u64>()),
        owner: super::limits::caller_key(&caller),
        on: on.clone(),
        cluster: selection.router.cluster.clone(),
        topic: selection.topic.clone(),
        target,
        started: now_ms(),
        total: selection.spans.iter().map(|s| (s.end - s.start).max(0) as u64).sum(),
        scanned: AtomicU64::new(0),
        copied: AtomicU64::new(0),
        skipped: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        cancel: AtomicBool::new(false),
        per_target: Mutex::new(BTreeMap::new()),
        error: Mutex::new(None),
        end: Mutex::new(None),
    });
    // Its record, which every replica reads, is written before it starts: a job whose record
    // cannot be kept does not run.
    let kept = Kept::of(&service, &job);
    if let Some(kept) = &kept {
        if let Err(error) = kept.write(&job).await {
            tracing::error!(%error, "a copy job's record");
            let refused = ApiError::new(
                ErrorCode::Client,
                "klens could not keep this job's record, so it did not start it; its log says why.",
            );
            let _ = started.send(Err(refused.clone()));
            return Err(refused);
        }
    }
    service.copies.add(Arc::clone(&job));
    let _ = started.send(Ok(job.view()));
    let elsewhere = Arc::new(AtomicBool::new(false));
    // Stopped with the job, however `copy` ends (a panic included).
    let _beat = kept.clone().map(|kept| {
        AbortOnDrop(tokio::spawn(beat(kept, Arc::clone(&job), Arc::clone(&elsewhere))))
    });
    let outcome = copy(&service, selection, &job).await;
    drop(permit);
    let state = match outcome {
        Err(error) => {
            job.note_error(error.message);
            CopyState::Failed
        }
        Ok(()) if job.cancel.load(Ordering::SeqCst) => CopyState::Cancelled,
        Ok(()) => CopyState::Done,
    };
    *job.end.lock().unwrap_or_else(PoisonError::into_inner) = Some((state, now_ms()));
    drop(_beat);
    // Its last record, unless another replica already ended it (took it for lost).
    if let Some(kept) = kept.filter(|_| !elsewhere.load(Ordering::SeqCst)) {
        for tries in 1..=3 {
            match kept.write(&job).await {
                Ok(()) => break,
                Err(error) if tries == 3 => {
                    tracing::error!(job = %job.id, %error, "a copy job's last record")
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(500)).await,
            }
        }
    }
    Ok(job.view())
}

/// A task that ends when this is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Where a job's record is kept, and what it says besides the job's own view.
#[derive(Clone)]
struct Kept {
    entry: Arc<crate::catalog::ClusterEntry>,
    owner: String,
    on: (String, String),
    attempt: Option<app::api::AuditEvent>,
    /// One write of the record at a time, so that the last (the job ended) is last.
    writing: Arc<tokio::sync::Mutex<()>>,
}

impl Kept {
    /// On the cluster the job writes to, when klens may write there (else the job is this
    /// replica's alone).
    fn of(service: &Service, job: &Job) -> Option<Kept> {
        let entry = service.catalog.get(&job.on.0).filter(|e| e.writable)?;
        Some(Kept {
            entry: Arc::clone(entry),
            owner: job.owner.clone(),
            on: job.on.clone(),
            attempt: service.attempt_under_way(),
            writing: Arc::new(tokio::sync::Mutex::new(())),
        })
    }

    /// Writes the job as it is now; once it has ended, a beat writes nothing more.
    async fn write(&self, job: &Job) -> Result<(), String> {
        let _one = self.writing.lock().await;
        self.put(job).await
    }

    async fn beat_write(&self, job: &Job) -> Result<(), String> {
        let _one = self.writing.lock().await;
        if job.ended().is_some() {
            return Ok(());
        }
        self.put(job).await
    }

    async fn put(&self, job: &Job) -> Result<(), String> {
        let record = crate::jobs::kept_now(
            job.view(),
            &self.owner,
            (&self.on.0, &self.on.1),
            self.attempt.as_ref(),
        );
        self.entry.copy_jobs.put(&record).await
    }
}

/// While a job runs: a stop asked on another replica read, and its record written every beat.
/// A job another replica ended (it took this one for lost) stops here too, and writes nothing
/// more over that end (`elsewhere`).
async fn beat(kept: Kept, job: Arc<Job>, elsewhere: Arc<AtomicBool>) {
    loop {
        tokio::time::sleep(crate::jobs::BEAT).await;
        if job.ended().is_some() {
            return;
        }
        match kept.entry.copy_jobs.held().await {
            Ok(held) => {
                if held.stops.contains(&job.id) {
                    job.cancel.store(true, Ordering::SeqCst);
                }
                let ended_there = held.jobs.get(&job.id).is_some_and(|k| {
                    k.job.state != CopyState::Running || k.holder != crate::jobs::replica()
                });
                if ended_there {
                    tracing::warn!(job = %job.id, "a copy job was ended by another replica");
                    elsewhere.store(true, Ordering::SeqCst);
                    job.cancel.store(true, Ordering::SeqCst);
                    return;
                }
            }
            Err(error) => tracing::warn!(job = %job.id, %error, "a copy job's stop requests"),
        }
        if let Err(error) = kept.beat_write(&job).await {
            tracing::warn!(job = %job.id, %error, "a copy job's record");
        }
    }
}

/// Reads the selection on a blocking thread and writes what it routes, many records in flight.
async fn copy(service: &Service, selection: Selection, job: &Arc<Job>) -> Result<(), ApiError> {
    let Selection { source, topic, spans, filter, until, limit, rate, mut router } = selection;
    let config = source.link().reader().clone();
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<RawRecord>>(READ_AHEAD);
    let reader_job = Arc::clone(job);
    let reading = tokio::task::spawn_blocking(move || {
        let mut matched = 0u64;
        let job = reader_job;
        let selected = Selected {
            topic: &topic,
            spans: &spans,
            filter: filter.as_ref(),
            until_timestamp: until,
        };
        let mut batch = Vec::with_capacity(BATCH);
        let read = read_selection(
            &config,
            &selected,
            &job.scanned,
            || job.cancel.load(Ordering::Relaxed),
            |record| {
                matched += 1;
                batch.push(record);
                if batch.len() >= BATCH
                    && tx
                        .blocking_send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)))
                        .is_err()
                {
                    return Flow::Stop;
                }
                if limit.is_some_and(|most| matched >= most) {
                    Flow::Stop
                } else {
                    Flow::Go
                }
            },
        );
        if !batch.is_empty() {
            let _ = tx.blocking_send(batch);
        }
        read
    });
    let mut in_flight = FuturesUnordered::new();
    let began = Instant::now();
    let mut sent = 0u64;
    'batches: while let Some(batch) = rx.recv().await {
        for record in batch {
            if job.cancel.load(Ordering::Relaxed) {
                break 'batches;
            }
            let (target, outgoing) = match router.route(record, now_ms()) {
                Routed::Skip(_) => {
                    job.skipped.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                Routed::To { target, record, .. } => (target, record),
            };
            let verdict = router.verdicts.get_mut(&target).expect("routed to a decided target");
            let Ok((granted, link)) = &mut verdict.granted else {
                job.skipped.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            if !verdict.opened {
                service.open(&mut granted.grant).await?;
                verdict.opened = true;
            }
            if let Some(rate) = rate {
                let due = began + Duration::from_secs_f64(sent as f64 / f64::from(rate));
                tokio::time::sleep_until(due.into()).await;
            }
            loop {
                match queue(&granted.grant, link, &outgoing) {
                    Ok(delivery) => {
                        let (target, topic) = (target.clone(), outgoing.topic.clone());
                        in_flight.push(async move { (target, delivered(&topic, delivery.await)) });
                        break;
                    }
                    Err(NotQueued::Full) => match in_flight.next().await {
                        Some(done) => job.delivered(done),
                        None => tokio::time::sleep(Duration::from_millis(10)).await,
                    },
                    Err(NotQueued::Refused(refused)) => {
                        job.delivered((target.clone(), Err(refused)));
                        break;
                    }
                }
            }
            sent += 1;
            while in_flight.len() >= IN_FLIGHT {
                if let Some(done) = in_flight.next().await {
                    job.delivered(done);
                }
            }
            while let Some(Some(done)) = in_flight.next().now_or_never() {
                job.delivered(done);
            }
        }
    }
    // The reader stops at its next record once nobody takes them.
    drop(rx);
    while let Some(done) = in_flight.next().await {
        job.delivered(done);
    }
    match reading.await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(error.into()),
        Err(_) => Err(ApiError::new(ErrorCode::Client, "The copy's reader stopped unexpectedly.")),
    }
}

serves!(app::api::CopyRecords, |s, c, a| copy_records(&s, &c, a.args));
serves!(app::api::CopyJobs, |s, c, a| jobs(&s, &c, &a.cluster));
serves!(app::api::CancelCopy, |s, c, a| cancel(&s, &c, &a.cluster, a.id));
