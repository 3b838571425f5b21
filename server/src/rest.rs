//! The HTTP plumbing klens's REST clients share (the Schema Registry, Kafka Connect): one
//! service's base URL and basic-auth credentials, paths built segment by segment, answers
//! bounded in size, and the service's own error answers kept apart from failures to reach it.

use std::time::Duration;

use reqwest::{Method, StatusCode, Url};
use serde::Deserialize;

use crate::config::{RegistryConfig, Secret};

/// Why a REST service did not answer: it refused klens's credentials (`refused`), it answered
/// with an error of its own (`status`, its message in `message`), or it could not be reached or
/// answered something klens does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestError {
    pub refused: bool,
    /// The HTTP status of the service's own error answer (404, 409, 422, ...).
    pub status: Option<u16>,
    pub message: String,
}

impl RestError {
    pub fn new(message: String) -> RestError {
        RestError { refused: false, status: None, message }
    }
}

impl From<RestError> for String {
    fn from(e: RestError) -> String {
        e.message
    }
}

/// A REST service's failure in the error contract: its refusal of klens's credentials is
/// `REFUSED`, its 404 `NOT_FOUND`, its verdict on the request (400, 409, 422) `ADMIN`, and
/// anything else (unreachable, a time-out, a method it refuses) `CLIENT`, the service not doing
/// its part.
pub fn api_error(e: RestError) -> app::ApiError {
    use app::error::Flavor;
    use app::ErrorCode;
    let (code, flavor) = match (e.refused, e.status) {
        (true, _) => (ErrorCode::Refused, Flavor::Plain),
        (false, Some(404)) => (ErrorCode::NotFound, Flavor::Plain),
        (false, Some(409)) => (ErrorCode::Admin, Flavor::ConflictOrTimeout),
        (false, Some(400 | 422)) => (ErrorCode::Admin, Flavor::Plain),
        (false, _) => (ErrorCode::Client, Flavor::Plain),
    };
    let mut error = app::ApiError::new(code, e.message);
    error.flavor = flavor;
    error
}

/// The longest part of a service's error message klens passes on.
const MAX_MESSAGE: usize = 2000;

/// The message of an error answer (`{"error_code": .., "message": ..}`, the shape both the
/// registry and Connect use; of Flink's `{"errors": [..]}` the line of its deepest `Caused by:`
/// that says where in the statement the fault is, else of its deepest one, found deep in a
/// stack trace), else the start of its body, without control characters.
pub fn error_message(body: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Answer {
        message: Option<String>,
        errors: Option<Vec<String>>,
    }
    let text = match serde_json::from_slice::<Answer>(body) {
        Ok(Answer { message: Some(m), .. }) => m,
        Ok(Answer { errors: Some(errors), .. }) => {
            let all = errors.join("\n");
            // The deepest cause that says where in a statement it is, else the deepest one.
            let causes: Vec<&str> =
                all.lines().map(str::trim).filter(|l| l.starts_with("Caused by: ")).collect();
            let placed =
                causes.iter().rev().find(|l| l.contains("line ") && l.contains(", column "));
            placed.or(causes.last()).map_or_else(
                || all.lines().next().unwrap_or_default().to_string(),
                |l| l.to_string(),
            )
        }
        _ => String::from_utf8_lossy(body).into_owned(),
    };
    let mut text: String = text.chars().filter(|c| !c.is_control()).collect();
    if text.len() > MAX_MESSAGE {
        let mut end = MAX_MESSAGE;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// One REST service: where it is, how klens signs in to it, and how much of an answer it reads.
/// A clone shares the HTTP client's connections.
#[derive(Clone)]
pub struct RestClient {
    /// How messages name the service ("registry", "Connect").
    label: &'static str,
    http: reqwest::Client,
    base: Url,
    credentials: Option<(String, Secret)>,
    max_body: usize,
}

impl RestClient {
    pub fn new(
        label: &'static str, config: &RegistryConfig, timeout: Duration, max_body: usize,
    ) -> Result<RestClient, String> {
        let mut base =
            Url::parse(&config.url).map_err(|e| format!("the {label} URL is not valid: {e}"))?;
        // Joining paths below needs the base to end in a slash.
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let http = reqwest::Client::builder()
            .timeout(timeout)
            // A redirect could carry the credentials, or klens's requests, somewhere else.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot create the {label} client: {e}"))?;
        let credentials = match (&config.username, &config.password) {
            (Some(user), Some(password)) => Some((user.clone(), password.clone())),
            _ => None,
        };
        Ok(RestClient { label, http, base, credentials, max_body })
    }

    pub(crate) fn url(&self, segments: &[&str]) -> Result<Url, String> {
        // Callers refuse such names with the argument's name, before any request; this is the
        // last guard against what the URL library itself would rewrite.
        if let Some(bad) = segments.iter().find(|s| rewritten_by_url(s)) {
            return Err(format!("{}: {bad:?} cannot be a part of its URL path", self.label));
        }
        let mut url = self.base.clone();
        {
            let mut path = url
                .path_segments_mut()
                .map_err(|_| format!("the {} URL cannot take a path", self.label))?;
            path.pop_if_empty();
            for segment in segments {
                // Each segment is percent-encoded (`/`, `\`, `%` too), so it stays one segment
                // once `rewritten_by_url` has kept out what the library would drop or join.
                path.push(segment);
            }
        }
        Ok(url)
    }

    /// GETs a JSON document with query arguments; `Ok(None)` for 404.
    pub async fn get_with<T: for<'de> Deserialize<'de>>(
        &self, segments: &[&str], query: &[(&str, &str)],
    ) -> Result<Option<T>, RestError> {
        match self.send(Method::GET, segments, query, None).await {
            Ok(found) => Ok(Some(found)),
            Err(e) if e.status == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Sends one request (with a body of the given content type) and reads its JSON answer; an
    /// empty answer reads as JSON `null`. An error answer of the service comes back with its
    /// status and message.
    pub async fn send<T: for<'de> Deserialize<'de>>(
        &self, method: Method, segments: &[&str], query: &[(&str, &str)],
        body: Option<(&str, Vec<u8>)>,
    ) -> Result<T, RestError> {
        let label = self.label;
        let mut url = self.url(segments).map_err(RestError::new)?;
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        let mut request = self.http.request(method.clone(), url);
        if let Some((user, password)) = &self.credentials {
            request = request.basic_auth(user, Some(password.expose()));
        }
        if let Some((content_type, body)) = body {
            request = request.header(reqwest::header::CONTENT_TYPE, content_type).body(body);
        }
        let what = format!("{method} {}", segments.join("/"));
        let failed =
            |e: reqwest::Error| RestError::new(format!("{label}: {what}: {}", e.without_url()));
        let mut response = request.send().await.map_err(failed)?;
        let status = response.status();
        if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return Err(RestError {
                refused: true,
                status: Some(status.as_u16()),
                message: format!("the {label} refused klens's credentials: {what}: HTTP {status}"),
            });
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            if body.len() + chunk.len() > self.max_body {
                return Err(RestError::new(format!(
                    "{label}: {what}: the answer is over {} MiB",
                    self.max_body / (1024 * 1024)
                )));
            }
            body.extend_from_slice(&chunk);
        }
        if status.is_client_error() {
            return Err(RestError {
                refused: false,
                status: Some(status.as_u16()),
                message: error_message(&body),
            });
        }
        if !status.is_success() {
            // A server error: still CLIENT (the service did not do its part), its status kept
            // for a caller that knows one of the service's passing states (Connect's rebalance).
            return Err(RestError {
                status: Some(status.as_u16()),
                ..RestError::new(format!(
                    "{label}: {what}: HTTP {status}: {}",
                    error_message(&body)
                ))
            });
        }
        let body: &[u8] = if body.iter().all(u8::is_ascii_whitespace) { b"null" } else { &body };
        serde_json::from_slice(body)
            .map_err(|e| RestError::new(format!("{label}: {what}: not the JSON expected: {e}")))
    }
}

/// Whether the URL library would not push `segment` as it is: it skips `.` and `..`, and
/// removes tabs and line breaks before it reads a segment as a dot segment.
pub fn rewritten_by_url(segment: &str) -> bool {
    segment == "." || segment == ".." || segment.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flink_errors_say_the_cause_that_places_the_fault() {
        let body = serde_json::json!({"errors": [
            "Internal server error.",
            "<Exception on server side:\norg.apache.flink.table.gateway.api.utils.SqlGatewayException: x\n\tat a.b(C.java:1)\nCaused by: org.apache.flink.table.api.ValidationException: SQL validation failed. From line 3, column 6 to line 3, column 30: Object 'secret' not found\n\tat d\nCaused by: org.apache.calcite.runtime.CalciteContextException: From line 3, column 6 to line 3, column 30: Object 'secret' not found\n\tat e\nCaused by: org.apache.calcite.sql.validate.SqlValidatorException: Object 'secret' not found\n\tat f\n\nEnd of exception on server side>"
        ]})
        .to_string();
        assert_eq!(
            error_message(body.as_bytes()),
            "Caused by: org.apache.calcite.runtime.CalciteContextException: From line 3, column 6 \
             to line 3, column 30: Object 'secret' not found"
        );
        let unplaced =
            serde_json::json!({"errors": ["x\nCaused by: a.B: first\nCaused by: c.D: last\n\tat"]});
        assert_eq!(error_message(unplaced.to_string().as_bytes()), "Caused by: c.D: last");
        let registry = serde_json::json!({"error_code": 40401, "message": "Subject not found"});
        assert_eq!(error_message(registry.to_string().as_bytes()), "Subject not found");
    }
}
