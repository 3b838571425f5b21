//! Apache Flink, where a cluster's SQL processors run: its SQL Gateway (sessions in which
//! klens declares tables and runs statements) and its JobManager's REST API (jobs, savepoints,
//! stop and cancel), and the store of processor definitions in the cluster's own compacted
//! topic ([`store`]). Every call names the grant it runs under; reads of a job need
//! SQL_PROCESSORS or MANAGE_SQL_PROCESSORS on its processor, everything that runs or stops SQL
//! MANAGE_SQL_PROCESSORS. klens never executes SQL itself.

pub mod store;

use std::time::{Duration, Instant};

use app::access::Resource;
use app::{ApiError, ErrorCode, Privilege};
use reqwest::Method;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::Grant;
use crate::config::{ClusterConfig, FlinkConfig, RegistryConfig};
use crate::rest::{RestClient, RestError};

const TIMEOUT: Duration = Duration::from_secs(30);
/// The largest answer klens reads from Flink (a page of rows, a job's details).
const MAX_BODY: usize = 8 * 1024 * 1024;
/// The most rows klens keeps of one statement's result.
pub const MAX_ROWS: usize = 1_000;
/// How long klens waits for a statement's result (a plan, a declaration, a job's id).
const RESULT_WAIT: Duration = Duration::from_secs(60);

/// One cluster's Flink.
pub struct Flink {
    gateway: RestClient,
    rest: RestClient,
    pub config: FlinkConfig,
    /// The processors' definitions, in the cluster's own topic.
    pub store: store::Store,
    /// Held by a change of a processor from the look at its definition to the write of the
    /// new one, so that two changes of this klens never both start a job for one name.
    pub changing: tokio::sync::Mutex<()>,
}

/// A statement's answer: its columns and its rows (as JSON values, Flink's row format).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    /// More rows came than [`MAX_ROWS`], or the wait ended before the last.
    pub partial: bool,
}

impl Rows {
    /// The first value of the first row as text: what `EXPLAIN` (its plan) and an `INSERT`
    /// (its job's id) answer.
    pub fn first_text(&self) -> Option<&str> {
        self.rows.first().and_then(|r| r.first()).and_then(Value::as_str)
    }
}

/// A job as the JobManager reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Job {
    pub jid: String,
    pub name: String,
    /// CREATED, RUNNING, FINISHED, CANCELED, FAILED, RESTARTING, ...
    pub state: String,
    #[serde(rename = "start-time", default)]
    pub start_time: i64,
}

fn client(label: &'static str, url: &str) -> Result<RestClient, String> {
    let config = RegistryConfig { url: url.to_string(), username: None, password: None };
    RestClient::new(label, &config, TIMEOUT, MAX_BODY)
}

/// Flink's error answers carry a stack trace: what a person needs is its last `Caused by:`
/// line (or the first line), without the exception's class.
pub fn flink_error(e: RestError) -> ApiError {
    let message = e
        .message
        .rsplit("Caused by: ")
        .next()
        .map(|tail| tail.lines().next().unwrap_or_default().to_string())
        .unwrap_or_default();
    // "org.apache.flink.table.api.ValidationException: Object 'x' not found" → the words.
    let message = match message.split_once(": ") {
        Some((class, words)) if class.contains('.') && !class.contains(' ') => words.to_string(),
        _ => message,
    };
    let message = if message.trim().is_empty() { e.message.clone() } else { message };
    crate::rest::api_error(RestError { message, ..e })
}

impl Flink {
    pub fn new(config: &FlinkConfig, cluster: &ClusterConfig) -> Result<Flink, String> {
        Ok(Flink {
            gateway: client("Flink SQL Gateway", &config.sql_gateway)?,
            rest: client("Flink REST API", &config.rest)?,
            config: config.clone(),
            store: store::Store::new(cluster)?,
            changing: tokio::sync::Mutex::new(()),
        })
    }

    /// Opens a session of the SQL Gateway to run `processor`'s statements in (MANAGE_SQL_
    /// PROCESSORS on it): the tables declared in it live only as long as it does.
    pub async fn session(
        &self, grant: &Grant, processor: &Resource, properties: Value,
    ) -> Result<Session<'_>, ApiError> {
        grant.require(Privilege::ManageSqlProcessors, processor)?;
        #[derive(Deserialize)]
        struct Opened {
            #[serde(rename = "sessionHandle")]
            handle: String,
        }
        let body = json!({ "properties": properties }).to_string().into_bytes();
        let opened: Opened = self
            .gateway
            .send(Method::POST, &["v3", "sessions"], &[], Some(("application/json", body)))
            .await
            .map_err(flink_error)?;
        Ok(Session { flink: self, handle: opened.handle, closed: false })
    }

    /// A job by id (SQL_PROCESSORS or MANAGE_SQL_PROCESSORS on its processor), `None` when the
    /// JobManager does not know it (any more).
    pub async fn job(
        &self, grant: &Grant, processor: &Resource, id: &str,
    ) -> Result<Option<Job>, ApiError> {
        require_read(grant, processor)?;
        // A job's details carry the same fields as the overview's entries, and more.
        self.rest.get_with(&["jobs", id], &[]).await.map_err(flink_error)
    }

    /// Every job the JobManager knows, for klens's own overview of processors (not a caller's
    /// read: what is shown of them is decided per processor).
    pub async fn jobs(&self) -> Result<Vec<Job>, ApiError> {
        #[derive(Deserialize)]
        struct Overview {
            jobs: Vec<Job>,
        }
        let overview: Overview = self
            .rest
            .send(Method::GET, &["jobs", "overview"], &[], None)
            .await
            .map_err(flink_error)?;
        Ok(overview.jobs)
    }

    /// The newest exception of a job, in words (its first line), if it has one.
    pub async fn last_exception(
        &self, grant: &Grant, processor: &Resource, id: &str,
    ) -> Result<Option<String>, ApiError> {
        require_read(grant, processor)?;
        let answer: Option<Value> = self
            .rest
            .get_with(&["jobs", id, "exceptions"], &[("maxExceptions", "1")])
            .await
            .map_err(flink_error)?;
        let text = answer.as_ref().and_then(|a| {
            a.pointer("/exceptionHistory/entries/0/stacktrace")
                .or_else(|| a.get("root-exception"))
                .and_then(Value::as_str)
        });
        Ok(text.map(|t| {
            let e = flink_error(RestError::new(t.to_string()));
            e.message.chars().take(2000).collect()
        }))
    }

    /// How fast a job reads and writes now (SQL_PROCESSORS or MANAGE_SQL_PROCESSORS on its
    /// processor), from Flink's own meters summed over each vertex's parallel instances;
    /// `None` when the JobManager does not know the job.
    pub async fn throughput(
        &self, grant: &Grant, processor: &Resource, id: &str,
    ) -> Result<Option<Throughput>, ApiError> {
        require_read(grant, processor)?;
        #[derive(Deserialize)]
        struct Vertex {
            id: String,
        }
        #[derive(Deserialize)]
        struct Detail {
            #[serde(default)]
            vertices: Vec<Vertex>,
        }
        #[derive(Deserialize)]
        struct Listed {
            id: String,
        }
        #[derive(Deserialize)]
        struct Summed {
            id: String,
            #[serde(default)]
            sum: f64,
        }
        let detail: Option<Detail> =
            self.rest.get_with(&["jobs", id], &[]).await.map_err(flink_error)?;
        let Some(detail) = detail else { return Ok(None) };
        let mut rates = Throughput::default();
        for vertex in detail.vertices.iter().take(MAX_VERTICES) {
            let path = ["jobs", id, "vertices", vertex.id.as_str(), "metrics"];
            let listed: Option<Vec<Listed>> =
                self.rest.get_with(&path, &[]).await.map_err(flink_error)?;
            let mut wanted: Vec<&str> = listed
                .iter()
                .flatten()
                .map(|m| unindexed(&m.id))
                .filter(|name| Meter::of(name).is_some())
                .collect();
            wanted.sort_unstable();
            wanted.dedup();
            if wanted.is_empty() {
                continue;
            }
            let path = ["jobs", id, "vertices", vertex.id.as_str(), "subtasks", "metrics"];
            let get = wanted.join(",");
            let summed: Option<Vec<Summed>> =
                self.rest.get_with(&path, &[("get", &get)]).await.map_err(flink_error)?;
            for meter in summed.into_iter().flatten() {
                let sum = if meter.sum.is_finite() { meter.sum.max(0.0) } else { 0.0 };
                match Meter::of(&meter.id) {
                    Some(Meter::Read) => rates.read += sum,
                    Some(Meter::Written) => rates.written += sum,
                    None => {}
                }
            }
        }
        Ok(Some(rates))
    }

    /// Stops a job with a savepoint in `directory` (Flink's default when `None`) and waits for
    /// it; answers where the savepoint is (MANAGE_SQL_PROCESSORS on its processor).
    pub async fn stop(
        &self, grant: &Grant, processor: &Resource, id: &str, directory: Option<&str>,
    ) -> Result<String, ApiError> {
        grant.require(Privilege::ManageSqlProcessors, processor)?;
        #[derive(Deserialize)]
        struct Triggered {
            #[serde(rename = "request-id")]
            request: String,
        }
        let mut body = json!({ "drain": false });
        if let Some(directory) = directory {
            body["targetDirectory"] = json!(directory);
        }
        let triggered: Triggered = self
            .rest
            .send(
                Method::POST,
                &["jobs", id, "stop"],
                &[],
                Some(("application/json", body.to_string().into_bytes())),
            )
            .await
            .map_err(flink_error)?;
        let deadline = Instant::now() + RESULT_WAIT;
        loop {
            let status: Value = self
                .rest
                .send(Method::GET, &["jobs", id, "savepoints", &triggered.request], &[], None)
                .await
                .map_err(flink_error)?;
            if status.pointer("/status/id").and_then(Value::as_str) == Some("COMPLETED") {
                if let Some(location) =
                    status.pointer("/operation/location").and_then(Value::as_str)
                {
                    return Ok(location.to_string());
                }
                let cause = status
                    .pointer("/operation/failure-cause/stack-trace")
                    .and_then(Value::as_str)
                    .unwrap_or("Flink gives no reason");
                let e = flink_error(RestError::new(cause.to_string()));
                return Err(ApiError::new(
                    ErrorCode::Client,
                    format!(
                        "Flink could not take the savepoint, so the job runs on: {}",
                        e.message
                    ),
                ));
            }
            if Instant::now() > deadline {
                return Err(ApiError::new(
                    ErrorCode::Client,
                    "Flink did not finish the savepoint within a minute; the job may still stop \
                     with it. Look again in a moment.",
                ));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Cancels a job without a savepoint (MANAGE_SQL_PROCESSORS on its processor).
    pub async fn cancel(
        &self, grant: &Grant, processor: &Resource, id: &str,
    ) -> Result<(), ApiError> {
        grant.require(Privilege::ManageSqlProcessors, processor)?;
        let _: Value = self
            .rest
            .send(Method::PATCH, &["jobs", id], &[("mode", "cancel")], None)
            .await
            .map_err(flink_error)?;
        Ok(())
    }
}

/// Flink's verdict on a statement (a parse or validation error, or a plan it cannot make) is
/// the author's to fix: `BAD_REQUEST` on `sql`; anything else (not reaching Flink, a session
/// gone, a job failing) stays Flink's, `CLIENT`.
fn statement_error(e: RestError) -> ApiError {
    const VERDICTS: &[&str] = &[
        "ValidationException",
        "ParseException",
        "SqlValidatorException",
        "CalciteContextException",
        "TableException",
    ];
    let verdict =
        e.status.is_some() && !e.refused && VERDICTS.iter().any(|v| e.message.contains(v));
    let error = flink_error(e);
    if verdict {
        ApiError::bad_request("sql", error.message)
    } else {
        error
    }
}

/// The most vertices of one job whose meters klens reads.
const MAX_VERTICES: usize = 32;

/// Records per second a job reads from its inputs and writes to its output.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Throughput {
    pub read: f64,
    pub written: f64,
}

/// The meters that make a job's throughput, by their name within a vertex (its operator's
/// name, then the meter): what a source emits, and what a sink's writer takes in to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Meter {
    Read,
    Written,
}

impl Meter {
    fn of(name: &str) -> Option<Meter> {
        if name.starts_with("Source__") && name.ends_with(".numRecordsOutPerSecond") {
            Some(Meter::Read)
        } else if name.ends_with("__Writer.numRecordsInPerSecond") {
            Some(Meter::Written)
        } else {
            None
        }
    }
}

/// A vertex's metric id without the index of its parallel instance (`0.Source__t.x` → `Source__t.x`).
fn unindexed(id: &str) -> &str {
    match id.split_once('.') {
        Some((index, rest)) if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) => {
            rest
        }
        _ => id,
    }
}

fn require_read(grant: &Grant, processor: &Resource) -> Result<(), ApiError> {
    grant
        .require(Privilege::SqlProcessors, processor)
        .or_else(|_| grant.require(Privilege::ManageSqlProcessors, processor))
}

/// A session of the SQL Gateway, closed when dropped (in the background): a request that ends
/// early, by an error or because its client left, leaves no session open on the gateway.
pub struct Session<'f> {
    flink: &'f Flink,
    handle: String,
    /// Whether [`Session::close`] closed it already.
    closed: bool,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (gateway, handle) = (self.flink.gateway.clone(), self.handle.clone());
        runtime.spawn(async move {
            let _: Result<Value, _> =
                gateway.send(Method::DELETE, &["v3", "sessions", &handle], &[], None).await;
        });
    }
}

impl Session<'_> {
    /// The Flink the session is open on.
    pub fn flink(&self) -> &Flink {
        self.flink
    }

    /// Runs one statement and reads its rows (up to [`MAX_ROWS`]), waiting for the first until
    /// [`RESULT_WAIT`]; `limit` stops reading after that many rows and closes the operation
    /// (which stops a preview's job).
    pub async fn run(&self, statement: &str, limit: usize) -> Result<Rows, ApiError> {
        #[derive(Deserialize)]
        struct Submitted {
            #[serde(rename = "operationHandle")]
            operation: String,
        }
        let gateway = &self.flink.gateway;
        let body = json!({ "statement": statement }).to_string().into_bytes();
        let submitted: Submitted = gateway
            .send(
                Method::POST,
                &["v3", "sessions", &self.handle, "statements"],
                &[],
                Some(("application/json", body)),
            )
            .await
            .map_err(statement_error)?;
        let op = submitted.operation;
        let deadline = Instant::now() + RESULT_WAIT;
        let mut rows = Rows::default();
        let mut token = "0".to_string();
        let limit = limit.min(MAX_ROWS);
        loop {
            let page: Value = gateway
                .send(
                    Method::GET,
                    &["v3", "sessions", &self.handle, "operations", &op, "result", &token],
                    &[("rowFormat", "JSON")],
                    None,
                )
                .await
                .map_err(statement_error)?;
            let kind = page.get("resultType").and_then(Value::as_str).unwrap_or_default();
            if let Some(columns) = page.pointer("/results/columns").and_then(Value::as_array) {
                if rows.columns.is_empty() {
                    rows.columns = columns
                        .iter()
                        .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_string))
                        .collect();
                }
            }
            for row in page.pointer("/results/data").and_then(Value::as_array).into_iter().flatten()
            {
                if rows.rows.len() >= limit {
                    rows.partial = true;
                    break;
                }
                let fields =
                    row.get("fields").and_then(Value::as_array).cloned().unwrap_or_default();
                rows.rows.push(fields);
            }
            let next = page.get("nextResultUri").and_then(Value::as_str);
            if kind == "EOS" || next.is_none() || rows.partial {
                break;
            }
            if Instant::now() > deadline {
                rows.partial = true;
                break;
            }
            if let Some(next) = next {
                token = next
                    .rsplit('/')
                    .next()
                    .unwrap_or("0")
                    .split('?')
                    .next()
                    .unwrap_or("0")
                    .to_string();
            }
            if kind == "NOT_READY"
                || page
                    .pointer("/results/data")
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
            {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        if rows.partial {
            // Stops what the statement still runs (a preview's bounded job).
            let _: Result<Value, _> = gateway
                .send(
                    Method::DELETE,
                    &["v3", "sessions", &self.handle, "operations", &op, "close"],
                    &[],
                    None,
                )
                .await;
        }
        Ok(rows)
    }

    /// Closes the session now.
    pub async fn close(mut self) {
        self.closed = true;
        let handle = self.handle.clone();
        let _: Result<Value, _> =
            self.flink.gateway.send(Method::DELETE, &["v3", "sessions", &handle], &[], None).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_reads_from_its_sources_and_writes_through_its_writers() {
        let named = |id: &str| Meter::of(unindexed(id));
        assert_eq!(named("0.Source__orders[10].numRecordsOutPerSecond"), Some(Meter::Read));
        assert_eq!(named("3.big-orders[12]__Writer.numRecordsInPerSecond"), Some(Meter::Written));
        // The same meters of other operators, and other meters of these, are not throughput.
        for other in [
            "0.Calc[11].numRecordsOutPerSecond",
            "0.Source__orders[10].numBytesOutPerSecond",
            "0.big-orders[12]__Committer.numRecordsInPerSecond",
            "0.big-orders[12]__Writer.numRecordsOutPerSecond",
            "0.numRecordsInPerSecond",
        ] {
            assert_eq!(named(other), None, "{other}");
        }
        assert_eq!(unindexed("Source__t.x"), "Source__t.x");
        assert_eq!(unindexed("12.Source__t.x"), "Source__t.x");
        assert_eq!(unindexed(".x"), ".x");
    }

    #[test]
    fn an_error_says_its_last_cause_in_words() {
        let e = flink_error(RestError {
            refused: false,
            status: Some(500),
            message: "Flink SQL Gateway: POST x: HTTP 500: Internal server error. \
                      org.apache.flink.table.gateway.api.utils.SqlGatewayException: failed\n\tat a.b(C.java:1)\n\
                      Caused by: org.apache.flink.table.api.ValidationException: SQL validation failed. x\n\tat d\n\
                      Caused by: org.apache.calcite.runtime.CalciteContextException: From line 1, column 37 to line 1, column 44: Object 'secret' not found\n\tat e"
                .into(),
        });
        assert_eq!(
            e.message,
            "From line 1, column 37 to line 1, column 44: Object 'secret' not found"
        );
        let plain = flink_error(RestError::new("the Flink REST API: GET jobs: timed out".into()));
        assert_eq!(plain.message, "the Flink REST API: GET jobs: timed out");
    }
}
