//! The server side of every server function: find the caller, ask the decision, then read the
//! projection (or, later, Kafka) with the grant the decision gave.

use std::sync::Arc;

use app::access::Action;
use app::api::backend::Backend;
use app::api::{ClusterDetail, ClusterSummary, WhoAmI};
use app::{ApiError, ErrorCode};

use crate::auth::{Policy, Subject};
use crate::catalog::Catalog;

pub struct Service {
    pub policy: Arc<Policy>,
    pub catalog: Arc<Catalog>,
}

impl Service {
    /// The caller of the current request.
    fn subject(&self) -> Result<Subject, ApiError> {
        if !self.policy.auth_enabled() {
            return Ok(Subject::Anonymous);
        }
        Err(ApiError::new(
            ErrorCode::Unauthenticated,
            "Sign in to use klens.",
        ))
    }
}

impl Backend for Service {
    fn whoami(&self) -> Result<WhoAmI, ApiError> {
        let subject = self.subject()?;
        Ok(WhoAmI {
            auth: self.policy.auth_enabled(),
            user: None,
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
}
