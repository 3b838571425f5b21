//! SQL processors on the cluster's Apache Flink (processors.md). A processor is shown to a
//! caller holding SQL_PROCESSORS on it (a scope covers it when it covers every topic it reads
//! and writes); every change needs MANAGE_SQL_PROCESSORS on it and, at the time of the change,
//! RECORDS on each topic it reads and PRODUCE on the one it writes.
//!
//! Topics become tables only as the caller may use them: klens declares, in a fresh gateway
//! session, exactly the statement's names the caller holds RECORDS on (inputs) and PRODUCE on
//! (the output); any other name stays undeclared, and Flink answers that it does not know it,
//! as it does for a topic that does not exist. Flink's own plan (`EXPLAIN`) then names the
//! tables the statement reads and writes, which are decided again before anything runs.

use std::sync::Arc;

use app::access::{Action, Resource};
use app::api::{
    JobEnd, ProcessorArgs, ProcessorChanged, ProcessorColumns, ProcessorCreated, ProcessorDetail,
    ProcessorList, ProcessorName, ProcessorSummary,
};
use app::{ApiError, ErrorCode, Privilege};

use super::{Granted, Service};
use crate::audit::Attempt;
use crate::auth::Caller;
use crate::flink::{Flink, Job, Session};
use crate::processor::ddl::{self, Reading};
use crate::processor::{self as model, sql, Definition};

/// How many of a topic's newest records show its columns.
const SAMPLE: usize = 50;
/// The largest record sampled.
const SAMPLE_BYTES: u64 = 256 * 1024;
/// How many of each partition's newest records a preview reads, and the rows it shows.
const PREVIEW_PER_PARTITION: i64 = 200;
const PREVIEW_ROWS: usize = 20;
/// How often a processor's job checkpoints.
const CHECKPOINTS: &str = "10 s";
/// The view a statement's query is declared as, to learn its columns.
const QUERY_VIEW: &str = "klens_query";

fn now_ms() -> i64 {
    crate::auth::oidc::now_ms()
}

/// The state shown for a definition and the job Flink knows of it.
fn state_of(definition: &Definition, job: Option<&Job>) -> String {
    match (definition.desired.as_str(), job) {
        ("stopped", _) => "STOPPED".into(),
        (_, Some(job)) => job.state.clone(),
        (_, None) => "UNKNOWN".into(),
    }
}

fn summary(
    entry: &crate::catalog::ClusterEntry, d: &Definition, job: Option<&Job>,
) -> ProcessorSummary {
    ProcessorSummary {
        name: d.name.clone(),
        inputs: d.inputs.clone(),
        output: d.output.clone(),
        state: state_of(d, job),
        desired: d.desired.clone(),
        parallelism: d.parallelism,
        job: d.job.clone(),
        lag: entry.group(&model::group_of(&d.name)).and_then(|g| g.lag),
        read_per_second: None,
        written_per_second: None,
        cause: None,
    }
}

/// What Flink says of a processor's job besides its state: how fast a running job reads and
/// writes, why a failing one fails. Left out when Flink does not answer.
async fn from_flink(
    flink: &Flink, granted: &Granted, resource: &Resource, p: &mut ProcessorSummary,
) {
    let Some(id) = p.job.clone() else { return };
    match p.state.as_str() {
        "RUNNING" => {
            if let Ok(Some(rates)) = flink.throughput(&granted.grant, resource, &id).await {
                p.read_per_second = Some(rates.read);
                p.written_per_second = Some(rates.written);
            }
        }
        "FAILED" | "FAILING" | "RESTARTING" => {
            p.cause = flink.last_exception(&granted.grant, resource, &id).await.ok().flatten();
        }
        _ => {}
    }
}

/// Refuses a caller holding `privilege` on no processor of `cluster`, naming it.
fn held_somewhere(
    service: &Service, caller: &Caller, cluster: &str, privilege: Privilege,
) -> Result<(), ApiError> {
    let access = service.access(caller, cluster)?;
    if !access.can(privilege) {
        return Err(access
            .decide(&Action::new(privilege, Resource::Cluster))
            .into_error(cluster)
            .unwrap_or_else(|| ApiError::unknown_cluster(cluster)));
    }
    Ok(())
}

/// The processors of `cluster` the caller may see, with their jobs' states.
pub async fn processors(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<ProcessorList, ApiError> {
    held_somewhere(service, caller, cluster, Privilege::SqlProcessors)?;
    let granted = service.decide(caller, cluster, Action::catalog())?;
    let entry = granted.entry;
    if !entry.has_flink() {
        return Ok(ProcessorList {
            cluster: cluster.into(),
            configured: false,
            error: None,
            processors: Vec::new(),
        });
    }
    let flink = entry.flink()?;
    let definitions = flink.store.all().await?;
    let (jobs, error) = match flink.jobs().await {
        Ok(jobs) => (jobs, None),
        Err(e) => (Vec::new(), Some(e.message)),
    };
    let shown = definitions.values().filter_map(|d| {
        let resource = d.resource();
        let action = Action::new(Privilege::SqlProcessors, resource.clone());
        let granted = service.decide(caller, cluster, action).ok()?;
        let job = d.job.as_ref().and_then(|id| jobs.iter().find(|j| &j.jid == id));
        Some((granted, resource, summary(&entry, d, job)))
    });
    // A running job's throughput and a failing one's cause, from Flink, all at once.
    let processors = futures::future::join_all(shown.map(|(granted, resource, mut p)| {
        let flink = &flink;
        async move {
            from_flink(flink, &granted, &resource, &mut p).await;
            p
        }
    }))
    .await;
    Ok(ProcessorList { cluster: cluster.into(), configured: true, error, processors })
}

/// A read-only cluster (for a change), or a caller holding `privilege` on no processor at
/// all, refused before any processor or Flink is looked up.
fn refused_early(
    service: &Service, caller: &Caller, cluster: &str, name: &str, privilege: Privilege,
) -> Result<(), ApiError> {
    let access = service.access(caller, cluster)?;
    if privilege.is_write() && !access.writable || !access.can(privilege) {
        let unnamed = Resource::Processor { name: name.to_string(), topics: Vec::new() };
        if let Some(refused) = access.decide(&Action::new(privilege, unnamed)).into_error(cluster) {
            return Err(refused);
        }
    }
    Ok(())
}

/// A processor the caller may see (SQL_PROCESSORS on it), else `NOT_FOUND` as for one that
/// does not exist; [`refused_early`] comes first.
async fn find(
    service: &Service, caller: &Caller, cluster: &str, name: &str, privilege: Privilege,
    flink: &Flink,
) -> Result<(Granted, Definition), ApiError> {
    let access = service.access(caller, cluster)?;
    let definition = flink.store.all().await?.remove(name).ok_or_else(|| missing(cluster, name))?;
    // One the caller holds nothing on is one that does not exist; one they see but may not
    // change is refused for the privilege.
    let resource = definition.resource();
    if !access.holds(Privilege::SqlProcessors, &resource)
        && !access.holds(Privilege::ManageSqlProcessors, &resource)
    {
        return Err(missing(cluster, name));
    }
    let granted = service.decide(caller, cluster, Action::new(privilege, definition.resource()))?;
    Ok((granted, definition))
}

/// The Flink of a cluster the caller sees.
fn flink_of(service: &Service, caller: &Caller, cluster: &str) -> Result<Arc<Flink>, ApiError> {
    service.decide(caller, cluster, Action::catalog())?.entry.flink()
}

pub async fn processor(
    service: &Service, caller: &Caller, cluster: &str, name: app::api::Arg<String>,
) -> Result<ProcessorDetail, ApiError> {
    let name = name.required("name")?;
    refused_early(service, caller, cluster, &name, Privilege::SqlProcessors)?;
    let flink = flink_of(service, caller, cluster)?;
    let (granted, d) =
        find(service, caller, cluster, &name, Privilege::SqlProcessors, &flink).await?;
    let resource = d.resource();
    let job = match &d.job {
        Some(id) => flink.job(&granted.grant, &resource, id).await.ok().flatten(),
        None => None,
    };
    let mut processor = summary(&granted.entry, &d, job.as_ref());
    from_flink(&flink, &granted, &resource, &mut processor).await;
    // A failing job's cause is its newest exception, read already.
    let last_exception = match (&d.job, d.desired.as_str()) {
        _ if processor.cause.is_some() => processor.cause.clone(),
        (Some(id), "running") => {
            flink.last_exception(&granted.grant, &resource, id).await.ok().flatten()
        }
        _ => None,
    };
    Ok(ProcessorDetail {
        cluster: cluster.into(),
        processor,
        sql: d.sql.clone(),
        savepoint: d.savepoint.clone(),
        last_exception,
        plan: d.plan.clone(),
        group: model::group_of(&d.name),
        created_by: d.created_by.clone(),
        created_at: d.created_at,
        changed_at: d.changed_at,
    })
}

/// Who the audit would name, for the definition.
fn author(caller: &Caller) -> Option<String> {
    caller
        .user()
        .map(|u| u.name.clone().or_else(|| u.email.clone()).unwrap_or_else(|| u.subject.clone()))
}

/// Refuses a topic masked for the caller as an input: a query can move a masked field into one
/// no rule names, so such a topic is an input only for a caller holding UNMASK on it. They read
/// its records, so saying so tells them nothing new.
fn unmasked(
    service: &Service, caller: &Caller, cluster: &str, topic: &str,
) -> Result<(), ApiError> {
    if service.mask(caller, cluster, topic).is_none() {
        return Ok(());
    }
    Err(ApiError::bad_request(
        "sql",
        format!(
            "Topic \"{topic}\" is masked for you (the masking rules name it): a processor reads it \
             only for a caller holding UNMASK on it, since a query could copy a masked field into \
             one no rule masks."
        ),
    ))
}

/// A topic the caller may read, as an input sees it: its value's columns (from its newest
/// records, see [`ddl::value_columns`]) and where each partition's newest records a preview
/// reads start.
async fn sampled(
    service: &Service, caller: &Caller, cluster: &str, granted: &Granted,
    topic: &crate::kafka::Topic,
) -> Result<Sample, ApiError> {
    unmasked(service, caller, cluster, &topic.name)?;
    // Sampling reads records like a page: it counts against the expensive reads.
    let _running = service.reads.admit(caller)?;
    let (records, starts) = crate::records::for_processor(
        &granted.grant,
        &granted.link(),
        topic,
        SAMPLE,
        SAMPLE_BYTES,
        PREVIEW_PER_PARTITION,
    )
    .await?;
    let values: Vec<&[u8]> = records.iter().filter_map(|r| r.value.as_deref()).collect();
    Ok(Sample {
        value: ddl::value_columns(ddl::infer(values.iter().copied())),
        starts,
        framed: !values.is_empty() && values.iter().all(|v| registry_framed(v)),
    })
}

/// What a topic's newest records show of it as an input.
struct Sample {
    /// Its value's columns ([`ddl::value_columns`]).
    value: Vec<(String, String)>,
    /// Where each partition's newest records a preview reads start.
    starts: Vec<(i32, i64)>,
    /// Every value sampled is in the registry's wire format (a zero byte and a schema id first).
    framed: bool,
}

/// Whether a value starts as the registry's serializers frame it: a zero byte, then a
/// four-byte schema id.
fn registry_framed(value: &[u8]) -> bool {
    value.len() > 5 && value[0] == 0
}

/// The columns a processor reading `topic` would have: for the editor, to a caller who may
/// write processors (MANAGE_SQL_PROCESSORS somewhere on the cluster) and read the topic
/// (RECORDS); read from its newest records, so recorded as a read of them.
pub async fn table(
    service: &Service, caller: &Caller, cluster: &str, topic: app::api::Arg<String>,
) -> Result<ProcessorColumns, ApiError> {
    let name = topic.required("topic")?;
    held_somewhere(service, caller, cluster, Privilege::ManageSqlProcessors)?;
    let args = serde_json::json!({ "cluster": cluster, "topic": name });
    let read = async {
        let granted = service.decide_topic(caller, cluster, Privilege::Records, Some(&name))?;
        let topic = granted.listed_topic(&name)?;
        let sample = sampled(service, caller, cluster, &granted, &topic).await?;
        Ok(ProcessorColumns {
            cluster: cluster.into(),
            topic: name.clone(),
            columns: ddl::input_columns(&sample.value),
            note: sample.framed.then(|| {
                "Its values are in the schema registry's format (Avro, Protobuf or JSON Schema \
                 behind a schema id), which the Flink here cannot decode: a processor reads them \
                 as bytes (kafka_value)."
                    .to_string()
            }),
        })
    };
    service.audited_read(caller, cluster, Privilege::Records, &args, read).await
}

/// The statement's tables declared in `session` as the caller may use them: each input the
/// caller holds RECORDS on (an existing topic; its value's columns as `kept` has them, else
/// from its newest records), the output if they hold PRODUCE on it (its columns from the
/// query). Answers the inputs declared, with their value's columns. A name left out is simply
/// unknown to Flink.
async fn declare(
    service: &Service, caller: &Caller, cluster: &str, session: &Session<'_>,
    statement: &sql::Statement, reading: impl Fn(&[(i32, i64)]) -> Reading, kept: &Columns,
) -> Result<Vec<(String, Vec<(String, String)>)>, ApiError> {
    let flink = session.flink();
    let mut declared = Vec::new();
    for input in &statement.inputs {
        let Ok(granted) = service.decide_topic(caller, cluster, Privilege::Records, Some(input))
        else {
            continue;
        };
        let Ok(Some(topic)) = granted.entry.topic_metadata(input) else {
            continue;
        };
        let (value, starts) = match kept.get(input) {
            Some(value) => {
                unmasked(service, caller, cluster, input)?;
                (value.clone(), Vec::new())
            }
            None => {
                let sample = sampled(service, caller, cluster, &granted, &topic).await?;
                (sample.value, sample.starts)
            }
        };
        let ddl = ddl::input_table(input, &value, &flink.config.properties, &reading(&starts))
            .map_err(|e| {
                ApiError::new(ErrorCode::Client, format!("The columns kept for {input}: {e}"))
            })?;
        session.run(&ddl, 1).await?;
        declared.push((input.clone(), value));
    }
    let output_usable = service
        .decide_topic(caller, cluster, Privilege::Produce, Some(&statement.output))
        .ok()
        .and_then(|g| g.entry.topic_metadata(&statement.output).ok().flatten())
        .is_some();
    if output_usable {
        // The query's own columns, as Flink types them, are the output's.
        let prefix = format!("CREATE TEMPORARY VIEW {QUERY_VIEW} AS ");
        session.run(&format!("{prefix}{}", statement.query), 1).await.map_err(|e| ApiError {
            message: sql::placed_in_statement(&e.message, &prefix, statement),
            ..e
        })?;
        let described =
            session.run(&format!("DESCRIBE {QUERY_VIEW}"), crate::flink::MAX_ROWS).await?;
        let mut columns: Vec<(String, String)> = Vec::new();
        for row in &described.rows {
            let (Some(name), Some(printed)) =
                (row.first().and_then(|v| v.as_str()), row.get(1).and_then(|v| v.as_str()))
            else {
                continue;
            };
            let declared =
                ddl::column_type(printed).map_err(|e| ApiError::bad_request("sql", e))?;
            columns.push((name.to_string(), declared));
        }
        let ddl = ddl::output_table(&statement.output, &columns, &flink.config.properties);
        session.run(&ddl, 1).await?;
    }
    Ok(declared)
}

/// The value's columns of each input of a processor, as its definition keeps them.
type Columns = std::collections::BTreeMap<String, Vec<(String, String)>>;

/// Runs `EXPLAIN PLAN FOR` the statement and answers the plan and the tables it reads and
/// writes, which must all be declared ones (they are: Flink knows no other).
async fn plan(
    session: &Session<'_>, sql: &str,
) -> Result<(String, Vec<String>, Vec<String>), ApiError> {
    let explained = session.run(&format!("EXPLAIN PLAN FOR {sql}"), 1).await?;
    let plan = explained.first_text().unwrap_or_default().to_string();
    let (reads, writes) = sql::plan_tables(&plan).map_err(|e| ApiError::bad_request("sql", e))?;
    Ok((plan, reads, writes))
}

/// The grants a change needs at its time, besides MANAGE_SQL_PROCESSORS: RECORDS on each
/// input, PRODUCE on the output.
fn topics_allowed(
    service: &Service, caller: &Caller, cluster: &str, inputs: &[String], output: &str,
) -> Result<(), ApiError> {
    for input in inputs {
        service.decide_topic(caller, cluster, Privilege::Records, Some(input))?;
    }
    service.decide_topic(caller, cluster, Privilege::Produce, Some(output))?;
    Ok(())
}

/// Opens a session that runs jobs under `job_name` at `parallelism`, from `savepoint` if given.
async fn job_session<'f>(
    flink: &'f Flink, granted: &Granted, resource: &Resource, job_name: &str, parallelism: u32,
    savepoint: Option<&str>,
) -> Result<Session<'f>, ApiError> {
    let mut properties = serde_json::json!({
        // No hint may change a declared table's options (its topic, its client properties):
        // the statement is refused with one anyway, and Flink refuses one besides.
        "table.dynamic-table-options.enabled": "false",
        "pipeline.name": job_name,
        "parallelism.default": parallelism.to_string(),
    });
    if let Some(savepoint) = savepoint {
        properties["execution.savepoint.path"] = serde_json::json!(savepoint);
    }
    // Checkpoints commit the group's offsets (its lag) and let a failed job resume; a
    // cluster's own interval, when it sets one, is overridden for processors.
    properties["execution.checkpointing.interval"] = serde_json::json!(CHECKPOINTS);
    flink.session(&granted.grant, resource, properties).await
}

/// The id of the job an `INSERT` started: the one value of its answer.
fn job_of(inserted: crate::flink::Rows) -> Result<String, ApiError> {
    inserted
        .first_text()
        .map(str::to_string)
        .ok_or_else(|| ApiError::new(ErrorCode::Client, "Flink started no job for the statement."))
}

/// A parallelism as sent, `default` when not: 1 to [`model::MAX_PARALLELISM`].
fn parallelism_of(sent: app::api::Arg<u32>, default: Option<u32>) -> Result<u32, ApiError> {
    let p = match default {
        Some(default) => sent.or("parallelism", default)?,
        None => sent.required("parallelism")?,
    };
    if !(1..=model::MAX_PARALLELISM).contains(&p) {
        return Err(ApiError::bad_request(
            "parallelism",
            format!("The parallelism is 1 to {}.", model::MAX_PARALLELISM),
        ));
    }
    Ok(p)
}

/// The answer for a processor that does not exist, or that the caller may not see.
fn missing(cluster: &str, name: &str) -> ApiError {
    ApiError::not_found(format!("There is no processor named \"{name}\" in cluster \"{cluster}\"."))
}

/// Starts `definition`'s statement as a job in a fresh session, its tables declared as the
/// caller may use them now; answers the job's id.
async fn start(
    service: &Service, caller: &Caller, cluster: &str, flink: &Flink, granted: &Granted,
    definition: &Definition, savepoint: Option<&str>,
) -> Result<String, ApiError> {
    let statement = sql::parse(&definition.sql).map_err(|e| ApiError::bad_request("sql", e))?;
    let resource = definition.resource();
    let job_name = model::job_name(&definition.name);
    let session =
        job_session(flink, granted, &resource, &job_name, definition.parallelism, savepoint)
            .await?;
    let group = model::group_of(&definition.name);
    let run = async {
        let reading = |_: &[(i32, i64)]| Reading::Group(group.clone());
        declare(service, caller, cluster, &session, &statement, reading, &definition.columns)
            .await?;
        job_of(session.run(&definition.sql, 1).await?)
    };
    let answer = run.await;
    session.close().await;
    answer
}

/// Creates a processor after its preview, or answers the preview alone (`dry_run`). Decided
/// writable → MANAGE_SQL_PROCESSORS on the processor and its output, then the statement judged
/// and declared as the caller may use its topics, then Flink's plan decided again (its inputs
/// and output), then recorded, then started.
async fn create(
    service: &Service, caller: &Caller, args: ProcessorArgs,
) -> Result<ProcessorCreated, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::ManageSqlProcessors, &args, &[]);
    let cluster = args.cluster.clone();
    let write = async {
        let name = args.name.clone().required("name")?;
        let text = args.sql.clone().required("sql")?;
        let statement = sql::parse(&text).map_err(|e| ApiError::bad_request("sql", e))?;
        let at_first =
            Resource::Processor { name: name.clone(), topics: vec![statement.output.clone()] };
        let mut granted = service.decide(
            caller,
            &cluster,
            Action::new(Privilege::ManageSqlProcessors, at_first.clone()),
        )?;
        if !model::is_name(&name) {
            return Err(ApiError::bad_request(
                "name",
                "A processor's name is 1 to 100 of a-z, 0-9, -, _ and . (it names its job and group).",
            ));
        }
        let parallelism = parallelism_of(args.parallelism.clone(), Some(1))?;
        let dry_run = args.dry_run.clone().or("dry_run", false)?;
        let flink = granted.entry.flink()?;
        let entry = Arc::clone(&granted.entry);
        let (key, what) = (format!("processor/{name}"), format!("processor \"{name}\""));
        let create = async move {
            // Until its definition is written (or the preview answered): a second create of the
            // name waits, then finds it.
            let _changing = flink.changing.lock().await;
            if flink.store.all().await?.contains_key(&name) {
                return Err(ApiError::new(
                    ErrorCode::Admin,
                    format!("Cluster \"{cluster}\" has a processor named \"{name}\" already."),
                ));
            }
            // A preview is a write attempt too: recorded before Flink sees the statement.
            service.open(&mut granted.grant).await?;
            // A preview's bounded job is named apart from the processor's own.
            let job_name =
                if dry_run { format!("klens-preview-{name}") } else { model::job_name(&name) };
            let session =
                job_session(&flink, &granted, &at_first, &job_name, parallelism, None).await?;
            let preview = async {
                let reading = |starts: &[(i32, i64)]| {
                    if dry_run {
                        Reading::Newest(starts.to_vec())
                    } else {
                        Reading::Group(model::group_of(&name))
                    }
                };
                let tables = declare(
                    service,
                    caller,
                    &cluster,
                    &session,
                    &statement,
                    reading,
                    &Columns::new(),
                )
                .await?;
                let declared: Vec<String> = tables.iter().map(|(topic, _)| topic.clone()).collect();
                let (plan, reads, writes) = plan(&session, &text).await?;
                let [written] = writes.as_slice() else {
                    return Err(ApiError::bad_request(
                        "sql",
                        "A processor writes exactly one topic.",
                    ));
                };
                // Flink knows no table klens did not declare; a plan that says otherwise (a name
                // printed into it) is not taken.
                if written != &statement.output || reads.iter().any(|r| !declared.contains(r)) {
                    return Err(ApiError::bad_request(
                        "sql",
                        "Flink's plan names tables klens did not declare; rename what the \
                     statement calls its columns and values, or write it plainer.",
                    ));
                }
                // Decided again on what it may read (every input declared, whether the plan shows
                // it or not) and what it writes.
                let resource = Resource::Processor {
                    name: name.clone(),
                    topics: declared.iter().cloned().chain([written.clone()]).collect(),
                };
                service.decide(
                    caller,
                    &cluster,
                    Action::new(Privilege::ManageSqlProcessors, resource),
                )?;
                topics_allowed(service, caller, &cluster, &declared, written)?;
                Ok((plan, tables, written.clone()))
            };
            let (plan, tables, writes) = match preview.await {
                Ok(p) => p,
                Err(e) => {
                    session.close().await;
                    return Err(e);
                }
            };
            let mut answer = ProcessorCreated {
                cluster: cluster.clone(),
                name: name.clone(),
                dry_run,
                plan,
                reads: tables.iter().map(|(topic, _)| topic.clone()).collect(),
                writes: writes.clone(),
                tables: tables
                    .iter()
                    .map(|(topic, value)| ProcessorColumns {
                        cluster: cluster.clone(),
                        topic: topic.clone(),
                        columns: ddl::input_columns(value),
                        note: None,
                    })
                    .collect(),
                columns: Vec::new(),
                rows: Vec::new(),
                job: None,
            };
            if dry_run {
                let rows = session.run(&statement.query, PREVIEW_ROWS).await;
                session.close().await;
                let rows = rows?;
                answer.columns = rows.columns;
                answer.rows = rows.rows;
                return Ok(answer);
            }
            let inserted = session.run(&text, 1).await;
            session.close().await;
            let job = job_of(inserted?)?;
            let now = now_ms();
            let definition = Definition {
                name: name.clone(),
                sql: text.clone(),
                parallelism,
                inputs: answer.reads.clone(),
                output: writes,
                columns: tables.into_iter().collect(),
                desired: "running".into(),
                job: Some(job.clone()),
                savepoint: None,
                created_by: author(caller),
                plan: Some(answer.plan.chars().take(model::MAX_PLAN).collect()),
                created_at: now,
                changed_at: now,
            };
            if let Err(e) = flink.store.put(&definition).await {
                // Not kept, so not left running either.
                let _ = flink.cancel(&granted.grant, &definition.resource(), &job).await;
                return Err(e);
            }
            answer.job = Some(job);
            Ok(answer)
        };
        // Across replicas too: one change of a processor at a time (a preview starts no job
        // of its own name and needs no lease).
        if dry_run {
            create.await
        } else {
            entry.leases.hold(&key, &what, create).await
        }
    };
    service.audited(caller, attempt, |_| None, write).await
}

/// One change to a processor.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Change {
    Stop,
    Resume,
    Scale,
    Delete,
}

impl Change {
    fn word(self) -> &'static str {
        match self {
            Change::Stop => "stop",
            Change::Resume => "resume",
            Change::Scale => "scale",
            Change::Delete => "delete",
        }
    }
}

/// Stops, resumes, scales or deletes a processor: decided writable → MANAGE_SQL_PROCESSORS on
/// it (else, unseen, `NOT_FOUND`), RECORDS on its inputs and PRODUCE on its output now, then
/// recorded, then done on Flink and kept in its definition.
async fn change(
    service: &Service, caller: &Caller, args: ProcessorName, change: Change,
) -> Result<ProcessorChanged, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::ManageSqlProcessors, &args, &[]);
    let cluster = args.cluster.clone();
    let write = async {
        let name = args.name.clone().required("name")?;
        refused_early(service, caller, &cluster, &name, Privilege::ManageSqlProcessors)?;
        let flink = flink_of(service, caller, &cluster)?;
        let entry = Arc::clone(&service.decide(caller, &cluster, Action::catalog())?.entry);
        let (key, what) = (format!("processor/{name}"), format!("processor \"{name}\""));
        // One change of a processor at a time, across replicas too: its definition is read and
        // decided on under the lease, as it stands now.
        let changed = async move {
            // One change of a processor at a time: its definition is read and decided on under
            // the lock, as it stands now.
            let _changing = flink.changing.lock().await;
            let (mut granted, mut d) =
                find(service, caller, &cluster, &name, Privilege::ManageSqlProcessors, &flink)
                    .await?;
            topics_allowed(service, caller, &cluster, &d.inputs, &d.output)?;
            let parallelism = match change {
                Change::Scale => parallelism_of(args.parallelism.clone(), None)?,
                _ => d.parallelism,
            };
            let running = d.desired == "running";
            match change {
                Change::Stop if !running => {
                    return Err(ApiError::new(
                        ErrorCode::Admin,
                        format!("Processor \"{name}\" is stopped already."),
                    ))
                }
                _ => {}
            }
            service.open(&mut granted.grant).await?;
            let resource = d.resource();
            if change == Change::Resume && running {
                // Kept running: resumed only when Flink runs no job for it any more (the job
                // ended or failed for good, or Flink forgot it in a restart). Its savepoint is
                // older than what its group has committed since: it starts from the offsets.
                let job = match d.job.clone() {
                    Some(id) => flink.job(&granted.grant, &resource, &id).await?,
                    None => None,
                };
                if job.is_some_and(|j| !app::api::job_ended(&j.state)) {
                    return Err(ApiError::new(
                        ErrorCode::Admin,
                        format!("Processor \"{name}\" runs already."),
                    ));
                }
                d.savepoint = None;
            }
            let directory = flink.config.savepoints.clone();
            let mut answer = ProcessorChanged {
                cluster: cluster.clone(),
                name: name.clone(),
                action: change.word().into(),
                savepoint: None,
                job: None,
            };
            // A job that may still write is ended: with a savepoint when it runs (a delete
            // cancels it), cancelled when it cannot take one (failing, cancelling). Stop and
            // Resume agree on every state (`app::api::job_end`).
            if running && change != Change::Resume {
                if let Some(job) = d.job.clone() {
                    let state = flink.job(&granted.grant, &resource, &job).await?.map(|j| j.state);
                    match (app::api::job_end(state.as_deref()), change) {
                        (JobEnd::Nothing, _) => {}
                        (_, Change::Delete) | (JobEnd::Cancel, _) => {
                            flink.cancel(&granted.grant, &resource, &job).await?;
                        }
                        (JobEnd::Savepoint, _) => {
                            let savepoint = flink
                                .stop(&granted.grant, &resource, &job, directory.as_deref())
                                .await?;
                            d.savepoint = Some(savepoint.clone());
                            answer.savepoint = Some(savepoint);
                        }
                    }
                    if answer.savepoint.is_none() {
                        // Ended without a savepoint: an older one would replay what its group
                        // has committed since; it starts from the group's offsets.
                        d.savepoint = None;
                    }
                }
            }
            if change == Change::Delete {
                flink.store.remove(&name).await?;
                return Ok(answer);
            }
            d.changed_at = now_ms();
            // Kept stopped with its savepoint first: a scale whose start then fails loses neither.
            if change != Change::Resume {
                d.desired = "stopped".into();
                flink.store.put(&d).await?;
            }
            if change == Change::Stop {
                return Ok(answer);
            }
            d.parallelism = parallelism;
            let savepoint = d.savepoint.clone();
            let job = start(service, caller, &cluster, &flink, &granted, &d, savepoint.as_deref())
                .await?;
            d.desired = "running".into();
            d.job = Some(job.clone());
            flink.store.put(&d).await?;
            answer.job = Some(job);
            Ok(answer)
        };
        entry.leases.hold(&key, &what, changed).await
    };
    service.audited(caller, attempt, |_| None, write).await
}

serves!(app::api::Processors, |s, c, a| processors(&s, &c, &a.cluster));
serves!(app::api::Processor, |s, c, a| processor(&s, &c, &a.cluster, a.name));
serves!(app::api::ProcessorTable, |s, c, a| table(&s, &c, &a.cluster, a.topic));
serves!(app::api::CreateProcessor, |s, c, a| create(&s, &c, a.args));
serves!(app::api::StopProcessor, |s, c, a| change(&s, &c, a.args, Change::Stop));
serves!(app::api::ResumeProcessor, |s, c, a| change(&s, &c, a.args, Change::Resume));
serves!(app::api::ScaleProcessor, |s, c, a| change(&s, &c, a.args, Change::Scale));
serves!(app::api::DeleteProcessor, |s, c, a| change(&s, &c, a.args, Change::Delete));
