//! The seam between server functions and the `server` crate. The server puts an
//! `Arc<dyn Backend>` into the Leptos context; server functions fetch it with [`current`] and
//! hand it their arguments as sent. The server's side finds the caller of the request and calls
//! its service, which asks the authorization decision before it judges any argument.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use leptos::prelude::use_context;

use super::{
    AclArgs, AclChanged, AclList, AddPartitionsArgs, AlterBrokerConfigArgs, AlterQuotaArgs,
    AlterTopicConfigsArgs, Arg, AuditArgs, AuditList, BrokerConfigList, BrokerConfigsChanged,
    BrokerDetail, BrokerList, ClusterDetail, ClusterSummary, CompatibilitySet, ConfigsChanged,
    CreateTopicArgs, DeleteRecordsArgs, DeleteSchemaArgs, DeleteScramArgs, GroupChanged,
    GroupDetail, GroupList, OffsetPlan, PartitionsAdded, ProduceArgs, Produced, QuotaChanged,
    QuotaList, Record, RecordArgs, RecordAtArgs, RecordPage, RecordsDeleted, RegisterSchemaArgs,
    ResetOffsetsArgs, SchemaDeleted, SchemaDetail, SchemaRegistered, ScramChanged, ScramUserList,
    SearchResult, SetCompatibilityArgs, SetScramArgs, SubjectDetail, SubjectList, TopicChanged,
    TopicConfigList, TopicDetail, TopicList, WhoAmI, WindowArgs,
};
use crate::error::{ApiError, ErrorCode};

/// What server functions may ask of the server: one method per server function, taking its
/// arguments as sent.
pub trait Backend: Send + Sync + 'static {
    fn whoami(&self) -> Reply<WhoAmI>;
    fn clusters(&self) -> Reply<Vec<ClusterSummary>>;
    fn cluster(&self, cluster: String) -> Reply<ClusterDetail>;
    fn topics(&self, cluster: String, window: WindowArgs) -> Reply<TopicList>;
    fn topic(&self, cluster: String, topic: Arg<String>) -> Reply<TopicDetail>;
    fn groups(&self, cluster: String, window: WindowArgs) -> Reply<GroupList>;
    fn group(&self, cluster: String, group: Arg<String>) -> Reply<GroupDetail>;
    fn brokers(&self, cluster: String) -> Reply<BrokerList>;
    fn broker(&self, cluster: String, id: Arg<i32>) -> Reply<BrokerDetail>;
    fn subjects(&self, cluster: String) -> Reply<SubjectList>;
    fn subject(&self, cluster: String, subject: Arg<String>) -> Reply<SubjectDetail>;
    fn schema(
        &self,
        cluster: String,
        subject: Arg<String>,
        version: Arg<i32>,
    ) -> Reply<SchemaDetail>;
    /// Searches every visible cluster, or only `cluster` (which must then be visible).
    fn search(&self, q: Arg<String>, cluster: Arg<String>) -> Reply<SearchResult>;
    fn records(&self, args: RecordArgs) -> Reply<RecordPage>;
    fn record(&self, args: RecordAtArgs) -> Reply<Record>;
    fn create_topic(&self, args: CreateTopicArgs) -> Reply<TopicChanged>;
    fn delete_topic(&self, cluster: String, topic: Arg<String>) -> Reply<TopicChanged>;
    fn topic_configs(&self, cluster: String, topic: Arg<String>) -> Reply<TopicConfigList>;
    fn alter_topic_configs(&self, args: AlterTopicConfigsArgs) -> Reply<ConfigsChanged>;
    fn add_partitions(&self, args: AddPartitionsArgs) -> Reply<PartitionsAdded>;
    fn delete_records(&self, args: DeleteRecordsArgs) -> Reply<RecordsDeleted>;
    fn reset_offsets(&self, args: ResetOffsetsArgs) -> Reply<OffsetPlan>;
    fn delete_offsets(
        &self,
        cluster: String,
        group: Arg<String>,
        topic: Arg<String>,
    ) -> Reply<GroupChanged>;
    fn delete_group(&self, cluster: String, group: Arg<String>) -> Reply<GroupChanged>;
    fn produce(&self, args: ProduceArgs) -> Reply<Produced>;
    fn register_schema(&self, args: RegisterSchemaArgs) -> Reply<SchemaRegistered>;
    fn set_compatibility(&self, args: SetCompatibilityArgs) -> Reply<CompatibilitySet>;
    fn delete_schema(&self, args: DeleteSchemaArgs) -> Reply<SchemaDeleted>;
    fn acls(&self, cluster: String) -> Reply<AclList>;
    fn create_acl(&self, args: AclArgs) -> Reply<AclChanged>;
    fn delete_acl(&self, args: AclArgs) -> Reply<AclChanged>;
    fn scram_users(&self, cluster: String) -> Reply<ScramUserList>;
    fn set_scram_credential(&self, args: SetScramArgs) -> Reply<ScramChanged>;
    fn delete_scram_credential(&self, args: DeleteScramArgs) -> Reply<ScramChanged>;
    fn broker_configs(&self, cluster: String, broker: Arg<i32>) -> Reply<BrokerConfigList>;
    fn alter_broker_config(&self, args: AlterBrokerConfigArgs) -> Reply<BrokerConfigsChanged>;
    fn quotas(&self, cluster: String) -> Reply<QuotaList>;
    fn alter_quota(&self, args: AlterQuotaArgs) -> Reply<QuotaChanged>;
    fn audit(&self, cluster: String, args: AuditArgs) -> Reply<AuditList>;
}

/// The answer of a backend method.
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
