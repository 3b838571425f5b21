//! The seam between server functions and the `server` crate. The server puts an
//! `Arc<dyn Backend>` into the Leptos context; server functions fetch it with [`current`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use leptos::prelude::use_context;

use super::{
    BrokerDetail, BrokerList, ClusterDetail, ClusterSummary, CreateTopicRequest, GroupDetail,
    GroupList, Record, RecordPage, RecordQuery, SearchResult, SubjectList, TopicChanged,
    TopicDetail, TopicList, WhoAmI, Window,
};
use crate::error::{ApiError, ErrorCode};

/// What server functions may ask of the server. Each method finds the caller of the current
/// request itself and asks the authorization decision before anything else. Catalog reads
/// answer from the in-memory projection and never wait on Kafka, so they are synchronous.
pub trait Backend: Send + Sync + 'static {
    fn whoami(&self) -> Result<WhoAmI, ApiError>;
    fn clusters(&self) -> Result<Vec<ClusterSummary>, ApiError>;
    fn cluster(&self, name: &str) -> Result<ClusterDetail, ApiError>;
    fn topics(&self, cluster: &str, window: &Window) -> Result<TopicList, ApiError>;
    fn topic(&self, cluster: &str, topic: &str) -> Result<TopicDetail, ApiError>;
    fn groups(&self, cluster: &str, window: &Window) -> Result<GroupList, ApiError>;
    fn group(&self, cluster: &str, group: &str) -> Result<GroupDetail, ApiError>;
    fn brokers(&self, cluster: &str) -> Result<BrokerList, ApiError>;
    fn broker(&self, cluster: &str, id: i32) -> Result<BrokerDetail, ApiError>;
    fn subjects(&self, cluster: &str) -> Result<SubjectList, ApiError>;
    /// Searches every visible cluster, or only `cluster` (which must then be visible).
    fn search(&self, query: &str, cluster: Option<&str>) -> Result<SearchResult, ApiError>;
    /// Record reads need RECORDS; they are decided when called and read Kafka in the future.
    fn records(&self, query: RecordQuery) -> Reply<RecordPage>;
    fn record(&self, cluster: String, topic: String, partition: i32, offset: i64) -> Reply<Record>;
    /// Writes are decided when called (while the request is current) and run in the future.
    fn create_topic(&self, request: CreateTopicRequest) -> Reply<TopicChanged>;
    fn delete_topic(&self, cluster: String, topic: String) -> Reply<TopicChanged>;
}

/// The answer of a method that talks to Kafka.
pub type Reply<T> = Pin<Box<dyn Future<Output = Result<T, ApiError>> + Send>>;

pub type SharedBackend = Arc<dyn Backend>;

/// The backend of the current request.
pub fn current() -> Result<SharedBackend, ApiError> {
    use_context::<SharedBackend>().ok_or_else(|| {
        ApiError::new(
            ErrorCode::Client,
            "klens is not ready to answer this request.",
        )
    })
}

/// Sets the HTTP status of the current `/api` response from the error, so that ADMIN and CLIENT
/// answer 409/504 where their flavour says so. (The router maps any other error body too.)
pub fn with_status<T>(result: Result<T, ApiError>) -> Result<T, ApiError> {
    if let Err(error) = &result {
        if let (Some(options), Ok(status)) = (
            use_context::<leptos_axum::ResponseOptions>(),
            http::StatusCode::from_u16(error.status()),
        ) {
            options.set_status(status);
        }
    }
    result
}
