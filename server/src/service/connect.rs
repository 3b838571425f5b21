//! Kafka Connect reads (CONNECTORS): the connectors of a cluster's Connect clusters from the
//! catalog, each shown only to a caller who holds CONNECTORS on it (a scope covers a connector
//! whose every topic it covers), configs masked. A connector the caller may not see answers
//! exactly as one that does not exist.

use app::access::{Action, ClusterAccess, Decision, Resource};
use app::api::{
    Arg, ConnectClusterView, ConnectorConfigValue, ConnectorDetail, ConnectorList,
    ConnectorSummary, ConnectorTask,
};
use app::{ApiError, Privilege};

use super::Service;
use crate::auth::Caller;
use crate::connect::{first_cause, secrets, Connector};

/// The caller's access to `cluster`, refused unless CONNECTORS is held somewhere on it.
fn connectors_access(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<ClusterAccess, ApiError> {
    let access = service.access(caller, cluster)?;
    if !access.can(Privilege::Connectors) {
        let refusal = Decision::MissingPrivilege(Privilege::Connectors, Resource::Cluster);
        return Err(refusal
            .into_error(cluster)
            .unwrap_or_else(|| ApiError::unknown_cluster(cluster)));
    }
    Ok(access)
}

fn summary(connect: &str, c: &Connector, traces: bool) -> ConnectorSummary {
    let topics = crate::connect::topics_of(&c.kind, &c.config, &c.active_topics);
    let failed = |state: &str, trace: &Option<String>| {
        (state == "FAILED").then(|| trace.as_deref().map(first_cause)).flatten()
    };
    ConnectorSummary {
        connect: connect.to_string(),
        name: c.name.clone(),
        kind: c.kind.clone(),
        class: c.class.clone(),
        state: c.state.clone(),
        tasks: c
            .tasks
            .iter()
            .map(|t| ConnectorTask {
                id: t.id,
                state: t.state.clone(),
                worker: t.worker.clone(),
                cause: failed(&t.state, &t.trace),
                trace: if traces { t.trace.clone() } else { None },
            })
            .collect(),
        topics_known: topics.is_some(),
        topics: topics.unwrap_or_else(|| c.active_topics.clone()),
        cause: failed(&c.state, &c.trace),
    }
}

pub async fn connectors(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<ConnectorList, ApiError> {
    let read = async {
        let access = connectors_access(service, caller, cluster)?;
        let entry =
            service.catalog.get(cluster).ok_or_else(|| ApiError::unknown_cluster(cluster))?;
        let state = entry.state();
        let connects = entry
            .connect_names()
            .into_iter()
            .map(|name| {
                let part = state.connect.get(&name).cloned().unwrap_or_default();
                let all = part.data.as_deref().map(Vec::as_slice).unwrap_or_default();
                let connectors = all
                    .iter()
                    .filter(|c| !c.is_mirror())
                    .filter(|c| access.holds(Privilege::Connectors, &c.resource(&name)))
                    .map(|c| summary(&name, c, false))
                    .collect();
                ConnectClusterView {
                    mirror_connectors: all.iter().filter(|c| c.is_mirror()).count(),
                    refreshed_at: part.refreshed_at,
                    error: part.error.clone(),
                    connectors,
                    name,
                }
            })
            .collect();
        Ok(ConnectorList { cluster: cluster.to_string(), connects })
    };
    let args = serde_json::json!({});
    service.audited_read(caller, cluster, Privilege::Connectors, &args, read).await
}

pub async fn connector(
    service: &Service, caller: &Caller, cluster: &str, connect: Arg<String>, name: Arg<String>,
) -> Result<ConnectorDetail, ApiError> {
    let args = serde_json::json!({ "connect": connect, "name": name });
    let read = async {
        let access = connectors_access(service, caller, cluster)?;
        let connect = connect.required("connect")?;
        let name = name.required("name")?;
        let entry =
            service.catalog.get(cluster).ok_or_else(|| ApiError::unknown_cluster(cluster))?;
        let state = entry.state();
        let missing = || {
            ApiError::not_found(format!(
                "There is no connector \"{name}\" on Connect cluster \"{connect}\" of cluster \
                 \"{cluster}\"."
            ))
        };
        let part = state.connect.get(&connect).ok_or_else(missing)?;
        let all = part.data.as_deref().ok_or_else(|| {
            crate::catalog::not_read_yet(cluster, &format!("connectors of {connect}"))
        })?;
        let found = all.iter().find(|c| c.name == name && !c.is_mirror()).ok_or_else(missing)?;
        let resource = found.resource(&connect);
        if !access.holds(Privilege::Connectors, &resource) {
            return Err(missing());
        }
        service.decide(caller, cluster, Action::new(Privilege::Connectors, resource))?;
        let config = secrets::masked(&found.config, &found.password_keys)
            .into_iter()
            .map(|(name, value, masked)| ConnectorConfigValue { name, value, masked })
            .collect();
        Ok(ConnectorDetail {
            cluster: cluster.to_string(),
            connector: summary(&connect, found, true),
            config,
            group: found.group(),
            trace: found.trace.clone(),
            worker: found.worker.clone(),
            refreshed_at: part.refreshed_at,
        })
    };
    service.audited_read(caller, cluster, Privilege::Connectors, &args, read).await
}

// The server functions this capability answers.
serves!(app::api::Connectors, |s, c, a| connectors(&s, &c, &a.cluster));
serves!(app::api::Connector, |s, c, a| connector(&s, &c, &a.cluster, a.connect, a.name));
