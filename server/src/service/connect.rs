//! Kafka Connect reads (CONNECTORS): the connectors of a cluster's Connect clusters from the
//! catalog, each shown only to a caller who holds CONNECTORS on it (a scope covers a connector
//! whose every topic it covers), configs masked. A connector the caller may not see answers
//! exactly as one that does not exist.

use app::access::{Action, ClusterAccess, Decision, Resource};
use app::api::{
    Arg, ConnectClusterView, ConnectorArgs, ConnectorChanged, ConnectorConfigValue,
    ConnectorDetail, ConnectorList, ConnectorSummary, ConnectorTask,
};
use app::{ApiError, ErrorCode, Privilege};
use reqwest::Method;

use super::Service;
use crate::audit::Attempt;
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
        let served_at = crate::auth::oidc::now_ms();
        Ok(ConnectorList { cluster: cluster.to_string(), connects, served_at })
    };
    let args = serde_json::json!({});
    service.audited_read(caller, cluster, Privilege::Connectors, &args, read).await
}

/// The connector `name` of the Connect cluster `connect` as the catalog last read it, when the
/// caller sees it (CONNECTORS on it), with when it was read; otherwise `NOT_FOUND`, the same
/// whether it is hidden or absent.
fn find_visible(
    service: &Service, access: &ClusterAccess, cluster: &str, connect: &str, name: &str,
) -> Result<(Connector, Option<i64>), ApiError> {
    let entry = service.catalog.get(cluster).ok_or_else(|| ApiError::unknown_cluster(cluster))?;
    let state = entry.state();
    let missing = || {
        ApiError::not_found(format!(
            "There is no connector \"{name}\" on Connect cluster \"{connect}\" of cluster \
             \"{cluster}\"."
        ))
    };
    let part = state.connect.get(connect).ok_or_else(missing)?;
    let all = part.data.as_deref().ok_or_else(|| {
        crate::catalog::not_read_yet(cluster, &format!("connectors of {connect}"))
    })?;
    let found = all.iter().find(|c| c.name == name && !c.is_mirror()).ok_or_else(missing)?;
    if !access.holds(Privilege::Connectors, &found.resource(connect)) {
        return Err(missing());
    }
    Ok((found.clone(), part.refreshed_at))
}

pub async fn connector(
    service: &Service, caller: &Caller, cluster: &str, connect: Arg<String>, name: Arg<String>,
) -> Result<ConnectorDetail, ApiError> {
    let args = serde_json::json!({ "connect": connect, "name": name });
    let read = async {
        let access = connectors_access(service, caller, cluster)?;
        let connect = connect.required("connect")?;
        let name = name.required("name")?;
        let (found, refreshed_at) = find_visible(service, &access, cluster, &connect, &name)?;
        let resource = found.resource(&connect);
        service.decide(caller, cluster, Action::new(Privilege::Connectors, resource))?;
        let found = &found;
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
            refreshed_at,
            served_at: crate::auth::oidc::now_ms(),
        })
    };
    service.audited_read(caller, cluster, Privilege::Connectors, &args, read).await
}

/// A request to Connect: method, the path after the connector's own, and the query.
type Request = (Method, Vec<String>, Vec<(&'static str, &'static str)>);

/// One change to a connector.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Change {
    Pause,
    Resume,
    Stop,
    Restart,
    RestartTask,
    Delete,
}

impl Change {
    fn word(self) -> &'static str {
        match self {
            Change::Pause => "pause",
            Change::Resume => "resume",
            Change::Stop => "stop",
            Change::Restart => "restart",
            Change::RestartTask => "restart_task",
            Change::Delete => "delete",
        }
    }

    /// The request that makes the change on Connect: method, the path after the connector's
    /// own, and the query.
    fn request(self, args: &ConnectorArgs, found: &Connector) -> Result<Request, ApiError> {
        let on = |yes: bool| if yes { "true" } else { "false" };
        Ok(match self {
            Change::Pause | Change::Resume | Change::Stop => {
                (Method::PUT, vec![self.word().to_string()], Vec::new())
            }
            Change::Restart => {
                let include = args.include_tasks.clone().or("include_tasks", false)?;
                let only = args.only_failed.clone().or("only_failed", false)?;
                let query = vec![("includeTasks", on(include)), ("onlyFailed", on(only))];
                (Method::POST, vec!["restart".to_string()], query)
            }
            Change::RestartTask => {
                let id = args.task.clone().required("task")?;
                if !found.tasks.iter().any(|t| t.id == id) {
                    return Err(ApiError::not_found(format!(
                        "Connector \"{}\" has no task {id}.",
                        found.name
                    )));
                }
                (Method::POST, vec!["tasks".into(), id.to_string(), "restart".into()], Vec::new())
            }
            Change::Delete => (Method::DELETE, Vec::new(), Vec::new()),
        })
    }
}

/// A change to one connector, decided writable → MANAGE_CONNECTORS held → the connector
/// visible (else `NOT_FOUND`) → MANAGE_CONNECTORS on it, recorded by the audit before it
/// reaches Connect, then read back into the catalog.
async fn change(
    service: &Service, caller: &Caller, args: ConnectorArgs, change: Change,
) -> Result<ConnectorChanged, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::ManageConnectors, &args, &[]);
    let cluster = args.cluster.clone();
    let write = async {
        let access = service.access(caller, &cluster)?;
        if !access.writable {
            return Err(ApiError::read_only_cluster(&cluster));
        }
        if !access.can(Privilege::ManageConnectors) {
            let refusal =
                Decision::MissingPrivilege(Privilege::ManageConnectors, Resource::Cluster);
            return Err(refusal
                .into_error(&cluster)
                .unwrap_or_else(|| ApiError::unknown_cluster(&cluster)));
        }
        let connect = args.connect.clone().required("connect")?;
        let name = args.name.clone().required("name")?;
        let (found, _) = find_visible(service, &access, &cluster, &connect, &name)?;
        let resource = found.resource(&connect);
        let action = Action::new(Privilege::ManageConnectors, resource.clone());
        let mut granted = service.decide(caller, &cluster, action)?;
        let (method, path, query) = change.request(&args, &found)?;
        let mut segments = vec!["connectors", name.as_str()];
        segments.extend(path.iter().map(String::as_str));
        let client = granted.entry.connect(&connect).ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotConfigured,
                format!("Connect cluster \"{connect}\" could not be set up."),
            )
        })?;
        service.open(&mut granted.grant).await?;
        client.change(&granted.grant, &resource, method, &segments, &query).await?;
        granted.entry.refresh_connect(&connect).await;
        let state = granted.entry.state().connect.get(&connect).and_then(|p| {
            let all = p.data.as_ref()?;
            all.iter().find(|c| c.name == name).map(|c| c.state.clone())
        });
        let action = change.word().to_string();
        Ok(ConnectorChanged { cluster: cluster.clone(), connect, name, action, state })
    };
    service.audited(caller, attempt, |_| None, write).await
}

// The server functions this capability answers.
serves!(app::api::Connectors, |s, c, a| connectors(&s, &c, &a.cluster));
serves!(app::api::Connector, |s, c, a| connector(&s, &c, &a.cluster, a.connect, a.name));
serves!(app::api::PauseConnector, |s, c, a| change(&s, &c, a.args, Change::Pause));
serves!(app::api::ResumeConnector, |s, c, a| change(&s, &c, a.args, Change::Resume));
serves!(app::api::StopConnector, |s, c, a| change(&s, &c, a.args, Change::Stop));
serves!(app::api::RestartConnector, |s, c, a| change(&s, &c, a.args, Change::Restart));
serves!(app::api::RestartTask, |s, c, a| change(&s, &c, a.args, Change::RestartTask));
serves!(app::api::DeleteConnector, |s, c, a| change(&s, &c, a.args, Change::Delete));
