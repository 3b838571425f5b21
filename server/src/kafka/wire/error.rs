//! What can go wrong in the protocol client, by kind, so callers can tell an old broker from a
//! lost connection without reading the message. Each kind's text is the message users see.

use std::fmt;

use app::{ApiError, ErrorCode};

use super::describe_code;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Reaching a broker or keeping the link to it: no broker to ask, DNS, TCP, TLS, a closed
    /// connection, or no answer in time.
    Connection(String),
    /// SASL: the broker refused the mechanism or the credentials, or the SCRAM exchange failed.
    Authentication(String),
    /// The broker lacks an API klens needs, or speaks none of the versions klens can use.
    Unsupported {
        /// Kafka's API key.
        api: i16,
        /// The versions the broker accepts; `None` when it lacks the API.
        broker: Option<(i16, i16)>,
        /// The versions klens could use: the lowest the request needs, the highest klens speaks.
        klens: (i16, i16),
    },
    /// Kafka answered the whole request with an error code.
    Kafka {
        /// What the message puts before Kafka's error name ("Metadata"), if anything.
        context: Option<&'static str>,
        code: i16,
    },
    /// An answer klens cannot decode, or one that breaks the protocol.
    Protocol(String),
    /// The cluster's TLS settings: a CA, certificate or key klens cannot use.
    Setup(String),
    /// A request klens stops before sending: no grant covers it, or what it was asked to send
    /// has no form in Kafka's protocol. Callers check both first, so this is a second lock.
    Withheld(String),
    /// A fault on klens's side: a request it cannot encode, a lost task, a poisoned lock.
    Internal(String),
    /// Any of the above at one broker, labelled as "broker 1 (host:9092)".
    Broker { label: String, error: Box<WireError> },
}

impl WireError {
    /// `error` as it happened at the broker `label` names.
    pub fn at(label: &str, error: WireError) -> WireError {
        WireError::Broker { label: label.to_string(), error: Box::new(error) }
    }

    /// The failure itself, under any broker label, for callers that match on its kind.
    pub fn root(&self) -> &WireError {
        match self {
            WireError::Broker { error, .. } => error.root(),
            other => other,
        }
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Connection(m)
            | WireError::Authentication(m)
            | WireError::Protocol(m)
            | WireError::Setup(m)
            | WireError::Withheld(m)
            | WireError::Internal(m) => f.write_str(m),
            WireError::Unsupported { api, broker: None, .. } => {
                write!(f, "the broker does not support API {api}")
            }
            WireError::Unsupported { api, broker: Some((min, max)), .. } => write!(
                f,
                "the broker's versions {min}..{max} of API {api} are not ones klens speaks"
            ),
            WireError::Kafka { context: Some(context), code } => {
                write!(f, "{context}: {}", describe_code(*code))
            }
            WireError::Kafka { context: None, code } => f.write_str(&describe_code(*code)),
            WireError::Broker { label, error } => write!(f, "{label}: {error}"),
        }
    }
}

impl std::error::Error for WireError {}

/// Every protocol client failure reaches the API as a client error, in the client's words.
impl From<WireError> for ApiError {
    fn from(error: WireError) -> ApiError {
        ApiError::new(ErrorCode::Client, error.to_string())
    }
}
