//! The one error type that crosses the wire. Every `/api/*` failure is `{"code", "message"}` plus
//! optional fields, with the HTTP status that the code implies. Details that would help an
//! attacker or leak a secret stay in the server log; the message says what to try.

use std::fmt;

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

use crate::Privilege;

/// What a `TOO_MANY_REQUESTS` answer's `Retry-After` says, in seconds.
pub const RETRY_AFTER_SECONDS: u64 = 5;

/// The stable error codes of the HTTP contract. A program branches on these, never on messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    Unauthenticated,
    HostNotAllowed,
    CrossSite,
    UnsupportedMediaType,
    AuditUnavailable,
    TooManyRequests,
    UnknownCluster,
    ReadOnlyCluster,
    InternalTopic,
    ProtectedTopic,
    MissingPrivilege,
    NotFound,
    BadRequest,
    Refused,
    Admin,
    Client,
    NotConfigured,
}

impl ErrorCode {
    /// The wire spelling, e.g. `UNKNOWN_CLUSTER`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Unauthenticated => "UNAUTHENTICATED",
            ErrorCode::HostNotAllowed => "HOST_NOT_ALLOWED",
            ErrorCode::CrossSite => "CROSS_SITE",
            ErrorCode::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            ErrorCode::AuditUnavailable => "AUDIT_UNAVAILABLE",
            ErrorCode::TooManyRequests => "TOO_MANY_REQUESTS",
            ErrorCode::UnknownCluster => "UNKNOWN_CLUSTER",
            ErrorCode::ReadOnlyCluster => "READ_ONLY_CLUSTER",
            ErrorCode::InternalTopic => "INTERNAL_TOPIC",
            ErrorCode::ProtectedTopic => "PROTECTED_TOPIC",
            ErrorCode::MissingPrivilege => "MISSING_PRIVILEGE",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::BadRequest => "BAD_REQUEST",
            ErrorCode::Refused => "REFUSED",
            ErrorCode::Admin => "ADMIN",
            ErrorCode::Client => "CLIENT",
            ErrorCode::NotConfigured => "NOT_CONFIGURED",
        }
    }
}

/// How a server-side failure maps onto an HTTP status where one code allows two.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Flavor {
    #[default]
    Plain,
    /// ADMIN for a conflict (409 instead of 422), CLIENT for a time-out (504 instead of 502).
    ConflictOrTimeout,
}

/// An error answered by `/api/*` and shown by the UI.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privilege: Option<Privilege>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kafka_error: Option<String>,
    #[serde(skip)]
    pub flavor: Flavor,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
            privilege: None,
            field: None,
            kafka_error: None,
            flavor: Flavor::Plain,
        }
    }

    /// The one answer for a cluster that is not configured or not visible to the caller: both
    /// must be byte-identical so nobody can probe for cluster names.
    pub fn unknown_cluster(name: &str) -> Self {
        ApiError::new(ErrorCode::UnknownCluster, format!("There is no cluster named \"{name}\"."))
    }

    /// A write on a cluster without `writable: true`.
    pub fn read_only_cluster(name: &str) -> Self {
        ApiError::new(
            ErrorCode::ReadOnlyCluster,
            format!("Cluster \"{name}\" is read-only: klens makes no changes to it."),
        )
    }

    /// `NOT_FOUND`: what the caller named is not there (or not visible to them).
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::NotFound, message)
    }

    pub fn bad_request(field: &str, message: impl Into<String>) -> Self {
        ApiError { field: Some(field.to_string()), ..ApiError::new(ErrorCode::BadRequest, message) }
    }

    /// The HTTP status of this error, as fixed by the contract.
    pub fn status(&self) -> u16 {
        match (self.code, self.flavor) {
            (ErrorCode::Unauthenticated, _) => 401,
            (ErrorCode::HostNotAllowed, _)
            | (ErrorCode::CrossSite, _)
            | (ErrorCode::ReadOnlyCluster, _)
            | (ErrorCode::InternalTopic, _)
            | (ErrorCode::ProtectedTopic, _)
            | (ErrorCode::MissingPrivilege, _)
            | (ErrorCode::Refused, _) => 403,
            (ErrorCode::UnknownCluster, _)
            | (ErrorCode::NotFound, _)
            | (ErrorCode::NotConfigured, _) => 404,
            (ErrorCode::BadRequest, _) => 400,
            (ErrorCode::UnsupportedMediaType, _) => 415,
            (ErrorCode::TooManyRequests, _) => 429,
            (ErrorCode::AuditUnavailable, _) => 503,
            (ErrorCode::Admin, Flavor::ConflictOrTimeout) => 409,
            (ErrorCode::Admin, Flavor::Plain) => 422,
            (ErrorCode::Client, Flavor::ConflictOrTimeout) => 504,
            (ErrorCode::Client, Flavor::Plain) => 502,
        }
    }

    /// The JSON body, as sent on the wire.
    pub fn to_json(&self) -> String {
        // Serializing a struct of strings and enums cannot fail; keep a valid body regardless.
        serde_json::to_string(self)
            .unwrap_or_else(|_| format!(r#"{{"code":"{}","message":""}}"#, self.code.as_str()))
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiError {}

impl FromServerFnError for ApiError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            // What a request's arguments could not be read as: the query string, or a body
            // that is not the JSON object a write takes. (Arguments that are read but wrong
            // are judged by the server after the decision; see `api::Arg`.)
            ServerFnErrorErr::Args(m)
            | ServerFnErrorErr::MissingArg(m)
            | ServerFnErrorErr::Deserialization(m) => ApiError {
                field: Some(first_field(&m)),
                ..ApiError::new(ErrorCode::BadRequest, format!("Invalid arguments: {m}"))
            },
            ServerFnErrorErr::Registration(_) => ApiError::not_found("There is no such API call."),
            ServerFnErrorErr::Request(m) => {
                ApiError::new(ErrorCode::Client, format!("klens could not be reached: {m}"))
            }
            other => ApiError::new(ErrorCode::Client, other.to_string()),
        }
    }

    /// Encodes the error as the body of a server function's answer and, on the server, gives
    /// that answer the status the code implies. Every server-function error passes through
    /// here, so this is the one place where `/api` errors get their status.
    fn ser(&self) -> leptos::server_fn::Bytes {
        #[cfg(feature = "ssr")]
        if let (Some(options), Ok(status)) = (
            leptos::prelude::use_context::<leptos_axum::ResponseOptions>(),
            http::StatusCode::from_u16(self.status()),
        ) {
            options.set_status(status);
        }
        leptos::server_fn::Bytes::from(self.to_json())
    }
}

/// The field a serde message names in backticks (`missing field \`cluster\``), else
/// `arguments`.
pub fn first_field(message: &str) -> String {
    message
        .split('`')
        .nth(1)
        .filter(|s| !s.is_empty() && s.len() < 64)
        .unwrap_or("arguments")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_the_contract() {
        let cases = [
            (ErrorCode::Unauthenticated, Flavor::Plain, 401),
            (ErrorCode::HostNotAllowed, Flavor::Plain, 403),
            (ErrorCode::CrossSite, Flavor::Plain, 403),
            (ErrorCode::UnsupportedMediaType, Flavor::Plain, 415),
            (ErrorCode::AuditUnavailable, Flavor::Plain, 503),
            (ErrorCode::TooManyRequests, Flavor::Plain, 429),
            (ErrorCode::UnknownCluster, Flavor::Plain, 404),
            (ErrorCode::ReadOnlyCluster, Flavor::Plain, 403),
            (ErrorCode::InternalTopic, Flavor::Plain, 403),
            (ErrorCode::ProtectedTopic, Flavor::Plain, 403),
            (ErrorCode::MissingPrivilege, Flavor::Plain, 403),
            (ErrorCode::NotFound, Flavor::Plain, 404),
            (ErrorCode::BadRequest, Flavor::Plain, 400),
            (ErrorCode::Refused, Flavor::Plain, 403),
            (ErrorCode::Admin, Flavor::Plain, 422),
            (ErrorCode::Admin, Flavor::ConflictOrTimeout, 409),
            (ErrorCode::Client, Flavor::Plain, 502),
            (ErrorCode::Client, Flavor::ConflictOrTimeout, 504),
            (ErrorCode::NotConfigured, Flavor::Plain, 404),
        ];
        for (code, flavor, status) in cases {
            let e = ApiError { flavor, ..ApiError::new(code, "m") };
            assert_eq!(e.status(), status, "{code:?} {flavor:?}");
        }
    }

    #[test]
    fn body_has_code_and_message_and_only_set_extras() {
        let mut e = ApiError::new(ErrorCode::MissingPrivilege, "You need RECORDS.");
        e.privilege = Some(Privilege::Records);
        assert_eq!(
            e.to_json(),
            r#"{"code":"MISSING_PRIVILEGE","message":"You need RECORDS.","privilege":"RECORDS"}"#
        );
    }

    #[test]
    fn unknown_cluster_body_depends_only_on_the_name() {
        assert_eq!(
            ApiError::unknown_cluster("prod").to_json(),
            r#"{"code":"UNKNOWN_CLUSTER","message":"There is no cluster named \"prod\"."}"#
        );
    }

    #[test]
    fn argument_errors_become_bad_request_naming_the_field() {
        let e = ApiError::from_server_fn_error(ServerFnErrorErr::Args(
            "missing field `cluster`".into(),
        ));
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert_eq!(e.field.as_deref(), Some("cluster"));
        assert_eq!(e.status(), 400);
    }
}
