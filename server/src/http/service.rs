//! The server side of every server function: find the caller, ask the decision, then read the
//! projection (or, later, Kafka) with the grant the decision gave.

use std::sync::Arc;

use app::access::{Action, Resource};
use app::api::backend::{Backend, Reply};
use app::api::{
    is_internal_topic, ClusterDetail, ClusterSummary, CreateTopicRequest, TopicChanged,
    TopicDetail, TopicList, User, WhoAmI,
};
use app::{ApiError, ErrorCode, Privilege};
use axum::http::request::Parts;
use leptos::prelude::use_context;

use crate::auth::oidc::SignedIn;
use crate::auth::{Policy, Subject};
use crate::catalog::{Catalog, ClusterEntry};
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
        if !self.policy.auth_enabled() {
            return Ok(Subject::Anonymous);
        }
        match self.signed_in() {
            Some(user) => Ok(Subject::User {
                groups: user.groups,
            }),
            None => Err(ApiError::new(
                ErrorCode::Unauthenticated,
                "Sign in to use klens.",
            )),
        }
    }
}

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
                self.catalog.entry(&grant).map(|c| c.summary())
            })
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

    fn topics(&self, cluster: &str) -> Result<TopicList, ApiError> {
        let (entry, _grant) = self.decide(cluster, Action::catalog())?;
        Ok(entry.topics())
    }

    fn topic(&self, cluster: &str, topic: &str) -> Result<TopicDetail, ApiError> {
        let (entry, _grant) = self.decide(cluster, Action::catalog())?;
        check_topic_name(topic, "topic")?;
        if entry.state().metadata.is_none() {
            // Before the first good refresh klens cannot tell a missing topic from an unread one.
            return Err(ApiError::new(
                ErrorCode::Client,
                format!("klens has not read cluster \"{cluster}\" yet; try again in a moment."),
            ));
        }
        entry.topic(topic).ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotFound,
                format!("There is no topic named \"{topic}\" in cluster \"{cluster}\"."),
            )
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
