//! The server side of every server function: find the caller of the current request (the
//! session middleware put the signed-in user into the request's extensions), then call the
//! service. Nothing here decides or checks anything.

use std::future::Future;
use std::sync::Arc;

use app::api::backend::{Backend, Reply};
use app::api::{
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
use app::ApiError;
use axum::http::request::Parts;
use leptos::prelude::use_context;

use crate::auth::oidc::SignedIn;
use crate::auth::Caller;
use crate::service::{self, Service};

/// Which door a request came through: the UI's when it says a page of klens's own origin made
/// it (`Sec-Fetch-Site: same-origin`, which browsers set and pages cannot change), else `/api`.
/// A script can send that header too: the door is what the request claims, never who is asking
/// (docs/security.md).
pub fn door(headers: &axum::http::HeaderMap) -> app::api::Door {
    let same_origin = headers
        .get("sec-fetch-site")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"same-origin"));
    if same_origin {
        app::api::Door::Ui
    } else {
        app::api::Door::Api
    }
}

/// The `Backend` server functions reach.
pub struct Door {
    pub service: Arc<Service>,
}

impl Door {
    /// Runs `call` for the caller of the current request. The caller is found now, while the
    /// request is current; the call runs when the reply is awaited.
    fn run<T, F, Fut>(&self, call: F) -> Reply<T>
    where
        T: Send + 'static,
        F: FnOnce(Arc<Service>, Caller) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, ApiError>> + Send + 'static,
    {
        let parts = use_context::<Parts>();
        let user = parts
            .as_ref()
            .and_then(|p| p.extensions.get::<SignedIn>().cloned());
        let door = parts
            .as_ref()
            .map_or(app::api::Door::Api, |p| door(&p.headers));
        let service = Arc::clone(&self.service);
        let caller = Caller::of_request(&service.policy, user.as_ref(), door);
        Box::pin(async move { call(service, caller?).await })
    }
}

impl Backend for Door {
    fn whoami(&self) -> Reply<WhoAmI> {
        self.run(|s, c| async move { service::identity::whoami(&s, &c).await })
    }

    fn clusters(&self) -> Reply<Vec<ClusterSummary>> {
        self.run(|s, c| async move { service::catalog::clusters(&s, &c).await })
    }

    fn cluster(&self, cluster: String) -> Reply<ClusterDetail> {
        self.run(|s, c| async move { service::catalog::cluster(&s, &c, &cluster).await })
    }

    fn topics(&self, cluster: String, window: WindowArgs) -> Reply<TopicList> {
        self.run(|s, c| async move { service::catalog::topics(&s, &c, &cluster, window).await })
    }

    fn topic(&self, cluster: String, topic: Arg<String>) -> Reply<TopicDetail> {
        self.run(|s, c| async move { service::catalog::topic(&s, &c, &cluster, topic).await })
    }

    fn groups(&self, cluster: String, window: WindowArgs) -> Reply<GroupList> {
        self.run(|s, c| async move { service::catalog::groups(&s, &c, &cluster, window).await })
    }

    fn group(&self, cluster: String, group: Arg<String>) -> Reply<GroupDetail> {
        self.run(|s, c| async move { service::catalog::group(&s, &c, &cluster, group).await })
    }

    fn brokers(&self, cluster: String) -> Reply<BrokerList> {
        self.run(|s, c| async move { service::catalog::brokers(&s, &c, &cluster).await })
    }

    fn broker(&self, cluster: String, id: Arg<i32>) -> Reply<BrokerDetail> {
        self.run(|s, c| async move { service::catalog::broker(&s, &c, &cluster, id).await })
    }

    fn subjects(&self, cluster: String) -> Reply<SubjectList> {
        self.run(|s, c| async move { service::catalog::subjects(&s, &c, &cluster).await })
    }

    fn subject(&self, cluster: String, subject: Arg<String>) -> Reply<SubjectDetail> {
        self.run(|s, c| async move { service::schemas::subject(&s, &c, &cluster, subject).await })
    }

    fn schema(
        &self,
        cluster: String,
        subject: Arg<String>,
        version: Arg<i32>,
    ) -> Reply<SchemaDetail> {
        self.run(|s, c| async move {
            service::schemas::schema(&s, &c, &cluster, subject, version).await
        })
    }

    fn search(&self, q: Arg<String>, cluster: Arg<String>) -> Reply<SearchResult> {
        self.run(|s, c| async move { service::catalog::search(&s, &c, q, cluster).await })
    }

    fn records(&self, args: RecordArgs) -> Reply<RecordPage> {
        self.run(|s, c| async move { service::records::records(&s, &c, args).await })
    }

    fn record(&self, args: RecordAtArgs) -> Reply<Record> {
        self.run(|s, c| async move { service::records::record(&s, &c, args).await })
    }

    fn create_topic(&self, args: CreateTopicArgs) -> Reply<TopicChanged> {
        self.run(|s, c| async move { service::topics::create_topic(&s, &c, args).await })
    }

    fn delete_topic(&self, cluster: String, topic: Arg<String>) -> Reply<TopicChanged> {
        self.run(|s, c| async move { service::topics::delete_topic(&s, &c, &cluster, topic).await })
    }

    fn topic_configs(&self, cluster: String, topic: Arg<String>) -> Reply<TopicConfigList> {
        self.run(
            |s, c| async move { service::topics::topic_configs(&s, &c, &cluster, topic).await },
        )
    }

    fn alter_topic_configs(&self, args: AlterTopicConfigsArgs) -> Reply<ConfigsChanged> {
        self.run(|s, c| async move { service::topics::alter_topic_configs(&s, &c, args).await })
    }

    fn add_partitions(&self, args: AddPartitionsArgs) -> Reply<PartitionsAdded> {
        self.run(|s, c| async move { service::topics::add_partitions(&s, &c, args).await })
    }

    fn delete_records(&self, args: DeleteRecordsArgs) -> Reply<RecordsDeleted> {
        self.run(|s, c| async move { service::topics::delete_records(&s, &c, args).await })
    }

    fn reset_offsets(&self, args: ResetOffsetsArgs) -> Reply<OffsetPlan> {
        self.run(|s, c| async move { service::groups::reset_offsets(&s, &c, args).await })
    }

    fn delete_offsets(
        &self,
        cluster: String,
        group: Arg<String>,
        topic: Arg<String>,
    ) -> Reply<GroupChanged> {
        self.run(|s, c| async move {
            service::groups::delete_offsets(&s, &c, &cluster, group, topic).await
        })
    }

    fn delete_group(&self, cluster: String, group: Arg<String>) -> Reply<GroupChanged> {
        self.run(|s, c| async move { service::groups::delete_group(&s, &c, &cluster, group).await })
    }

    fn produce(&self, args: ProduceArgs) -> Reply<Produced> {
        self.run(|s, c| async move { service::produce::produce(&s, &c, args).await })
    }

    fn register_schema(&self, args: RegisterSchemaArgs) -> Reply<SchemaRegistered> {
        self.run(|s, c| async move { service::schemas::register_schema(&s, &c, args).await })
    }

    fn set_compatibility(&self, args: SetCompatibilityArgs) -> Reply<CompatibilitySet> {
        self.run(|s, c| async move { service::schemas::set_compatibility(&s, &c, args).await })
    }

    fn delete_schema(&self, args: DeleteSchemaArgs) -> Reply<SchemaDeleted> {
        self.run(|s, c| async move { service::schemas::delete_schema(&s, &c, args).await })
    }

    fn acls(&self, cluster: String) -> Reply<AclList> {
        self.run(|s, c| async move { service::acls::acls(&s, &c, &cluster).await })
    }

    fn create_acl(&self, args: AclArgs) -> Reply<AclChanged> {
        self.run(|s, c| async move { service::acls::create_acl(&s, &c, args).await })
    }

    fn delete_acl(&self, args: AclArgs) -> Reply<AclChanged> {
        self.run(|s, c| async move { service::acls::delete_acl(&s, &c, args).await })
    }

    fn scram_users(&self, cluster: String) -> Reply<ScramUserList> {
        self.run(|s, c| async move { service::users::scram_users(&s, &c, &cluster).await })
    }

    fn set_scram_credential(&self, args: SetScramArgs) -> Reply<ScramChanged> {
        self.run(|s, c| async move { service::users::set_scram_credential(&s, &c, args).await })
    }

    fn delete_scram_credential(&self, args: DeleteScramArgs) -> Reply<ScramChanged> {
        self.run(|s, c| async move { service::users::delete_scram_credential(&s, &c, args).await })
    }

    fn broker_configs(&self, cluster: String, broker: Arg<i32>) -> Reply<BrokerConfigList> {
        self.run(
            |s, c| async move { service::brokers::broker_configs(&s, &c, &cluster, broker).await },
        )
    }

    fn alter_broker_config(&self, args: AlterBrokerConfigArgs) -> Reply<BrokerConfigsChanged> {
        self.run(|s, c| async move { service::brokers::alter_broker_config(&s, &c, args).await })
    }

    fn quotas(&self, cluster: String) -> Reply<QuotaList> {
        self.run(|s, c| async move { service::quotas::quotas(&s, &c, &cluster).await })
    }

    fn alter_quota(&self, args: AlterQuotaArgs) -> Reply<QuotaChanged> {
        self.run(|s, c| async move { service::quotas::alter_quota(&s, &c, args).await })
    }

    fn audit(&self, cluster: String, args: AuditArgs) -> Reply<AuditList> {
        self.run(|s, c| async move { service::audit::list(&s, &c, &cluster, args).await })
    }
}
