//! The server side of every server function: find the caller, ask the decision, then read the
//! projection (or, later, Kafka) with the grant the decision gave.

use std::sync::Arc;

use app::access::{Action, Resource};
use app::api::backend::{Backend, Reply};
use app::api::{
    is_internal_topic, BrokerDetail, BrokerList, ClusterDetail, ClusterSummary, CreateTopicRequest,
    GroupDetail, GroupList, Record, RecordPage, RecordQuery, SearchHit, SearchResult, SubjectList,
    TopicChanged, TopicDetail, TopicList, User, WhoAmI, Window, MAX_HITS,
};
use app::{ApiError, ErrorCode, Privilege};
use axum::http::request::Parts;
use leptos::prelude::use_context;

use crate::auth::oidc::SignedIn;
use crate::auth::{Policy, Subject};
use crate::catalog::{not_read_yet, Catalog, ClusterEntry};
use crate::kafka::admin::{check_topic_name, TopicSpec};

pub struct Service {
    pub policy: Arc<Policy>,
    pub catalog: Arc<Catalog>,
}

impl Service {
    /// The signed-in user of the current request, put there by the session check.
    fn signed_in(&self) -> Option<SignedIn> {
        use_context::<Parts>().and_then(|parts| parts.extensions.get::<SignedIn>().cloned())
    }

    /// The caller of the current request.
    fn subject(&self) -> Result<Subject, ApiError> {
        super::streams::subject_for(&self.policy, self.signed_in().as_ref())
    }
}

/// The longest search query, in characters.
const MAX_QUERY: usize = 200;

/// The order of checks: caller → visible → writable → internal → privilege (all in `decide`),
/// then the arguments, then Kafka.
fn topic_action(privilege: Privilege, topic: &str) -> Action {
    Action::new(
        privilege,
        Resource::Topic {
            name: topic.to_string(),
            internal: is_internal_topic(topic),
        },
    )
}

impl Service {
    /// Every cluster the current caller sees, in config order, each reached through the
    /// decision's grant.
    fn visible_entries(&self) -> Result<Vec<Arc<ClusterEntry>>, ApiError> {
        let subject = self.subject()?;
        Ok(self
            .policy
            .visible(&subject)
            .iter()
            .filter_map(|access| {
                let grant = self
                    .policy
                    .decide(&subject, &access.name, Action::catalog())
                    .ok()?;
                self.catalog.entry(&grant).cloned()
            })
            .collect())
    }

    /// Decides `action` for the current caller and finds the cluster it was granted on.
    fn decide(
        &self,
        cluster: &str,
        action: Action,
    ) -> Result<(Arc<ClusterEntry>, crate::auth::Grant), ApiError> {
        let subject = self.subject()?;
        let grant = self.policy.decide(&subject, cluster, action)?;
        let entry = self
            .catalog
            .entry(&grant)
            .cloned()
            .ok_or_else(|| ApiError::unknown_cluster(cluster))?;
        Ok((entry, grant))
    }
}

impl Backend for Service {
    fn whoami(&self) -> Result<WhoAmI, ApiError> {
        let subject = self.subject()?;
        Ok(WhoAmI {
            auth: self.policy.auth_enabled(),
            user: self.signed_in().map(|u| User {
                subject: u.subject,
                name: u.name,
                email: u.email,
                groups: u.groups,
            }),
            clusters: self.policy.visible(&subject),
        })
    }

    fn clusters(&self) -> Result<Vec<ClusterSummary>, ApiError> {
        Ok(self
            .visible_entries()?
            .iter()
            .map(|c| c.summary())
            .collect())
    }

    fn cluster(&self, name: &str) -> Result<ClusterDetail, ApiError> {
        let subject = self.subject()?;
        let grant = self.policy.decide(&subject, name, Action::catalog())?;
        self.catalog
            .entry(&grant)
            .map(|c| c.detail())
            .ok_or_else(|| ApiError::unknown_cluster(name))
    }

    fn topics(&self, cluster: &str, window: &Window) -> Result<TopicList, ApiError> {
        let (entry, _grant) = self.decide(cluster, Action::catalog())?;
        Ok(entry.topics(window))
    }

    fn topic(&self, cluster: &str, topic: &str) -> Result<TopicDetail, ApiError> {
        let (entry, _grant) = self.decide(cluster, Action::catalog())?;
        check_topic_name(topic, "topic")?;
        if entry.state().metadata.is_none() {
            // Before the first good refresh klens cannot tell a missing topic from an unread one.
            return Err(not_read_yet(cluster, "topics"));
        }
        entry.topic(topic).ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotFound,
                format!("There is no topic named \"{topic}\" in cluster \"{cluster}\"."),
            )
        })
    }

    fn groups(&self, cluster: &str, window: &Window) -> Result<GroupList, ApiError> {
        let (entry, _grant) = self.decide(cluster, Action::catalog())?;
        Ok(entry.groups(window))
    }

    fn group(&self, cluster: &str, group: &str) -> Result<GroupDetail, ApiError> {
        let (entry, _grant) = self.decide(cluster, Action::catalog())?;
        if group.is_empty() {
            return Err(ApiError::bad_request(
                "group",
                "A group id cannot be empty.",
            ));
        }
        if entry.state().groups.data.is_none() {
            return Err(not_read_yet(cluster, "consumer groups"));
        }
        entry.group(group).ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotFound,
                format!("There is no consumer group \"{group}\" in cluster \"{cluster}\"."),
            )
        })
    }

    fn brokers(&self, cluster: &str) -> Result<BrokerList, ApiError> {
        let (entry, _grant) = self.decide(cluster, Action::catalog())?;
        Ok(entry.brokers())
    }

    fn broker(&self, cluster: &str, id: i32) -> Result<BrokerDetail, ApiError> {
        let (entry, _grant) = self.decide(cluster, Action::catalog())?;
        if entry.state().metadata.is_none() {
            return Err(not_read_yet(cluster, "brokers"));
        }
        entry
            .brokers()
            .brokers
            .into_iter()
            .find(|b| b.id == id)
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::NotFound,
                    format!("There is no broker {id} in cluster \"{cluster}\"."),
                )
            })
    }

    fn subjects(&self, cluster: &str) -> Result<SubjectList, ApiError> {
        let (entry, _grant) = self.decide(cluster, Action::catalog())?;
        Ok(entry.subjects())
    }

    fn search(&self, query: &str, cluster: Option<&str>) -> Result<SearchResult, ApiError> {
        if query.chars().count() > MAX_QUERY {
            return Err(ApiError::bad_request(
                "q",
                format!("A search is at most {MAX_QUERY} characters."),
            ));
        }
        let entries: Vec<Arc<ClusterEntry>> = match cluster {
            Some(cluster) => vec![self.decide(cluster, Action::catalog())?.0],
            None => self.visible_entries()?,
        };
        let mut hits: Vec<(u32, SearchHit)> =
            entries.iter().flat_map(|e| e.search(query)).collect();
        hits.sort_by(|(a, x), (b, y)| {
            (a, x.kind, &x.cluster, &x.name).cmp(&(b, y.kind, &y.cluster, &y.name))
        });
        hits.truncate(MAX_HITS);
        Ok(SearchResult {
            hits: hits.into_iter().map(|(_, hit)| hit).collect(),
        })
    }

    fn records(&self, query: RecordQuery) -> Reply<RecordPage> {
        let prepared = check_topic_name(&query.topic, "topic").and_then(|()| {
            self.decide(
                &query.cluster,
                topic_action(Privilege::Records, &query.topic),
            )
        });
        Box::pin(async move {
            let (entry, grant) = prepared?;
            entry.records(&grant, &query).await
        })
    }

    fn record(&self, cluster: String, topic: String, partition: i32, offset: i64) -> Reply<Record> {
        let prepared = check_topic_name(&topic, "topic")
            .and_then(|()| self.decide(&cluster, topic_action(Privilege::Records, &topic)));
        Box::pin(async move {
            let (entry, grant) = prepared?;
            entry.record(&grant, &topic, partition, offset).await
        })
    }

    fn create_topic(&self, request: CreateTopicRequest) -> Reply<TopicChanged> {
        let action = topic_action(Privilege::CreateTopics, &request.topic);
        let prepared = self
            .decide(&request.cluster, action)
            .and_then(|(entry, grant)| {
                let spec = TopicSpec::new(
                    &request.topic,
                    request.partitions,
                    request.replication_factor,
                    &request.configs,
                )?;
                Ok((entry, grant, spec))
            });
        Box::pin(async move {
            let (entry, grant, spec) = prepared?;
            entry.create_topic(&grant, &spec).await?;
            Ok(TopicChanged {
                cluster: request.cluster,
                topic: spec.name,
            })
        })
    }

    fn delete_topic(&self, cluster: String, topic: String) -> Reply<TopicChanged> {
        let action = topic_action(Privilege::DeleteTopics, &topic);
        let prepared = self
            .decide(&cluster, action)
            .and_then(|decided| check_topic_name(&topic, "topic").map(|()| decided));
        Box::pin(async move {
            let (entry, grant) = prepared?;
            entry.delete_topic(&grant, &topic).await?;
            Ok(TopicChanged { cluster, topic })
        })
    }
}
