//! Kafka Connect reads (CONNECTORS): the connectors of a cluster's Connect clusters from the
//! catalog, each shown only to a caller who holds CONNECTORS on it (a scope covers a connector
//! whose every topic it covers), configs masked. A connector the caller may not see answers
//! exactly as one that does not exist.

use app::access::{Action, ClusterAccess, Decision, Resource};
use app::api::{
    Arg, ConfigVerdict, ConnectClusterView, ConnectorArgs, ConnectorChanged, ConnectorConfigArgs,
    ConnectorConfigValue, ConnectorConfigured, ConnectorDetail, ConnectorList, ConnectorPlugin,
    ConnectorPluginList, ConnectorRef, ConnectorSummary, ConnectorTask,
};
use app::{ApiError, ErrorCode, Privilege};
use reqwest::Method;

use super::{Granted, Service};
use crate::audit::Attempt;
use crate::auth::Caller;
use crate::connect::{first_cause, secrets, Connector, CONNECTOR_CLASS};

mod effects;
mod offsets;

/// The connectors of `cluster` the caller sees (CONNECTORS on each) that `pick` chooses, for
/// the pages that link to them; none for a caller without CONNECTORS.
fn seen_connectors(
    service: &Service, caller: &Caller, cluster: &str, pick: impl Fn(&Connector) -> bool,
) -> Vec<ConnectorRef> {
    let (Ok(access), Some(entry)) = (service.access(caller, cluster), service.catalog.get(cluster))
    else {
        return Vec::new();
    };
    if !access.can(Privilege::Connectors) {
        return Vec::new();
    }
    let state = entry.state();
    let mut found = Vec::new();
    for (connect, part) in &state.connect {
        let all = part.data.as_deref().map(Vec::as_slice).unwrap_or_default();
        for c in all.iter().filter(|c| !c.is_mirror() && pick(c)) {
            if access.holds(Privilege::Connectors, &c.resource(connect)) {
                found.push(ConnectorRef {
                    connect: connect.clone(),
                    name: c.name.clone(),
                    kind: c.kind.clone(),
                });
            }
        }
    }
    found
}

/// The connectors the caller sees that write or read `topic`.
pub fn using_topic(
    service: &Service, caller: &Caller, cluster: &str, topic: &str,
) -> Vec<ConnectorRef> {
    seen_connectors(service, caller, cluster, |c| c.used_topics().iter().any(|t| t == topic))
}

/// The sink the caller sees that commits under `group`.
pub fn committing_as(
    service: &Service, caller: &Caller, cluster: &str, group: &str,
) -> Option<ConnectorRef> {
    seen_connectors(service, caller, cluster, |c| c.group().as_deref() == Some(group))
        .into_iter()
        .next()
}

/// The caller's access to `cluster` for a change: refused on a read-only cluster, then unless
/// MANAGE_CONNECTORS is held somewhere on it.
fn manage_access(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<ClusterAccess, ApiError> {
    let access = service.access(caller, cluster)?;
    if !access.writable {
        return Err(ApiError::read_only_cluster(cluster));
    }
    held(access, cluster, Privilege::ManageConnectors)
}

/// `access`, unless `privilege` is held nowhere on `cluster`: then its refusal.
pub(super) fn held(
    access: ClusterAccess, cluster: &str, privilege: Privilege,
) -> Result<ClusterAccess, ApiError> {
    if access.can(privilege) {
        return Ok(access);
    }
    Err(lacks(cluster, privilege))
}

/// The refusal for `privilege`, held nowhere on `cluster` that it is needed.
pub(super) fn lacks(cluster: &str, privilege: Privilege) -> ApiError {
    let refusal = Decision::MissingPrivilege(privilege, Resource::Cluster);
    refusal.into_error(cluster).unwrap_or_else(|| ApiError::unknown_cluster(cluster))
}

/// The caller's access to `cluster`, refused unless CONNECTORS is held somewhere on it.
fn connectors_access(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<ClusterAccess, ApiError> {
    held(service.access(caller, cluster)?, cluster, Privilege::Connectors)
}

pub(super) fn summary(connect: &str, c: &Connector, traces: bool) -> ConnectorSummary {
    let topics = c.topics();
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

/// The connector `name` the caller sees (else `NOT_FOUND`), decided for `privilege` on it: the
/// connector as the catalog last read it, when that was, the resource it is and the grant.
fn decide_on(
    service: &Service, caller: &Caller, access: &ClusterAccess, cluster: &str, connect: &str,
    name: &str, privilege: Privilege,
) -> Result<(Connector, Option<i64>, Resource, Granted), ApiError> {
    let (found, refreshed_at) = find_visible(service, access, cluster, connect, name)?;
    let resource = found.resource(connect);
    let granted = service.decide(caller, cluster, Action::new(privilege, resource.clone()))?;
    Ok((found, refreshed_at, resource, granted))
}

pub async fn connector(
    service: &Service, caller: &Caller, cluster: &str, connect: Arg<String>, name: Arg<String>,
) -> Result<ConnectorDetail, ApiError> {
    let args = serde_json::json!({ "connect": connect, "name": name });
    let read = async {
        let access = connectors_access(service, caller, cluster)?;
        let connect = connect.required("connect")?;
        let name = name.required("name")?;
        let (found, refreshed_at, resource, granted) =
            decide_on(service, caller, &access, cluster, &connect, &name, Privilege::Connectors)?;
        let (offsets, offsets_error) =
            offsets::on_page(service, &granted.grant, cluster, &connect, &resource).await;
        let found = &found;
        // A sink's lag, from the catalog, when its group is one the caller may see.
        let group_lag = found.group().and_then(|group| {
            let entry = service.catalog.get(cluster)?;
            entry.seen_by(&access).group(&group)?.lag
        });
        let config = secrets::masked(&found.config, &found.password_keys)
            .into_iter()
            .map(|(name, value, masked)| ConnectorConfigValue { name, value, masked })
            .collect();
        Ok(ConnectorDetail {
            cluster: cluster.to_string(),
            connector: summary(&connect, found, true),
            config,
            group: found.group(),
            group_lag,
            offsets,
            offsets_error,
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
    fn request(self, args: &ConnectorArgs) -> Result<Request, ApiError> {
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
                // Connect answers a task it does not have with 404: the projection's list may
                // be a moment behind a restart.
                let id = args.task.clone().required("task")?;
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
        let access = manage_access(service, caller, &cluster)?;
        let connect = args.connect.clone().required("connect")?;
        let name = args.name.clone().required("name")?;
        let manage = Privilege::ManageConnectors;
        let (_, _, resource, mut granted) =
            decide_on(service, caller, &access, &cluster, &connect, &name, manage)?;
        let (method, path, query) = change.request(&args)?;
        let entry = std::sync::Arc::clone(&granted.entry);
        let (key, what) = (format!("connector/{connect}/{name}"), format!("connector \"{name}\""));
        let changed = async {
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
            // Read back into the catalog: this connector only, not the whole Connect cluster.
            // A read that fails leaves the catalog as it was, for the next refresh to correct.
            let fresh = match change {
                Change::Delete => Ok(None),
                _ => client.connector(&name).await,
            };
            let state = fresh.as_ref().ok().and_then(|c| c.as_ref()).map(|c| c.state.clone());
            if let Ok(fresh) = fresh {
                granted.entry.apply_connector(&connect, &name, fresh);
            }
            let action = change.word().to_string();
            Ok(ConnectorChanged { cluster: cluster.clone(), connect, name, action, state })
        };
        entry.leases.hold(&key, &what, changed).await
    };
    service.audited(caller, attempt, |_| None, write).await
}

/// The plugins of one Connect cluster (CONNECTORS) that a connector made through klens may
/// run: those the operator allows (`allow.classes`), never FileStream's or MirrorMaker's.
pub async fn plugins(
    service: &Service, caller: &Caller, cluster: &str, connect: Arg<String>,
) -> Result<ConnectorPluginList, ApiError> {
    let args = serde_json::json!({ "connect": connect });
    let read = async {
        connectors_access(service, caller, cluster)?;
        let connect = connect.required("connect")?;
        let client = connect_client(service, cluster, &connect)?;
        let plugins = client
            .plugins()
            .await
            .map_err(crate::rest::api_error)?
            .into_iter()
            .filter(|(class, _, _)| {
                crate::config::engine_classes::never_loose(class).is_none()
                    && crate::connect::effects::allowed(&client.allow.classes, class)
            })
            .map(|(class, kind, version)| ConnectorPlugin { class, kind, version })
            .collect();
        Ok(ConnectorPluginList { cluster: cluster.to_string(), connect, plugins })
    };
    service.audited_read(caller, cluster, Privilege::Connectors, &args, read).await
}

/// The longest connector name klens sends.
const MAX_NAME: usize = 249;
/// The most keys a validation answer lists.
const MAX_VERDICTS: usize = 500;

/// The Connect cluster `connect` of `cluster`, or `NOT_FOUND`.
pub(super) fn connect_client(
    service: &Service, cluster: &str, connect: &str,
) -> Result<std::sync::Arc<crate::connect::Connect>, ApiError> {
    let entry = service.catalog.get(cluster).ok_or_else(|| ApiError::unknown_cluster(cluster))?;
    entry.connect(connect).ok_or_else(|| {
        ApiError::not_found(format!("Cluster \"{cluster}\" has no Connect cluster \"{connect}\"."))
    })
}

#[derive(serde::Deserialize)]
pub(super) struct Validation {
    pub(super) error_count: usize,
    #[serde(default)]
    configs: Vec<Validated>,
}

#[derive(serde::Deserialize)]
struct Validated {
    definition: Option<Definition>,
    value: Option<Value>,
}

#[derive(serde::Deserialize)]
struct Definition {
    name: String,
    #[serde(default)]
    required: bool,
    documentation: Option<String>,
}

#[derive(serde::Deserialize)]
struct Value {
    name: String,
    #[serde(default)]
    errors: Vec<String>,
}

/// Connect's validation of `body` for the plugin `class`, sent under `grant` for `resource`
/// (the connector, or the replication whose connector it is).
pub(super) async fn validate(
    client: &crate::connect::Connect, grant: &crate::auth::Grant, resource: &Resource, class: &str,
    body: &serde_json::Value,
) -> Result<Validation, ApiError> {
    let path = ["connector-plugins", class, "config", "validate"];
    client.send_json(grant, resource, Method::PUT, &path, &[], Some(body)).await
}

/// Reads connector `name` of Connect cluster `connect` back into the catalog after a create or
/// update: Connect has a new connector a moment after it answers, so it is asked a few times,
/// a quarter of a second apart. A read that never comes leaves the next refresh to find it.
pub(super) async fn read_back(
    client: &crate::connect::Connect, entry: &crate::catalog::ClusterEntry, connect: &str,
    name: &str,
) {
    for _ in 0..20 {
        if let Ok(Some(fresh)) = client.connector(name).await {
            entry.apply_connector(connect, name, Some(fresh));
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}

/// Connect's validation, key by key: the keys with errors first, then those the plugin
/// requires.
pub(super) fn verdicts(validation: Validation) -> Vec<ConfigVerdict> {
    let mut all: Vec<ConfigVerdict> = validation
        .configs
        .into_iter()
        .filter_map(|v| {
            let (definition, value) = (v.definition, v.value);
            let name = value
                .as_ref()
                .map(|v| v.name.clone())
                .or(definition.as_ref().map(|d| d.name.clone()))?;
            Some(ConfigVerdict {
                name,
                errors: value.map(|v| v.errors).unwrap_or_default(),
                required: definition.as_ref().is_some_and(|d| d.required),
                documentation: definition.and_then(|d| d.documentation),
            })
        })
        .filter(|v| !v.errors.is_empty() || v.required)
        .collect();
    all.sort_by_key(|v| v.errors.is_empty());
    all.truncate(MAX_VERDICTS);
    all
}

/// Whether the catalog's last read of Connect cluster `connect` has a connector `name`, seen
/// by the caller or not (MirrorMaker's included).
fn taken(entry: &crate::catalog::ClusterEntry, connect: &str, name: &str) -> bool {
    let state = entry.state();
    let all = state.connect.get(connect).and_then(|p| p.data.as_deref());
    all.is_some_and(|all| all.iter().any(|c| c.name == name))
}

/// Whether `spelling` names the plugin `class` as Connect finds plugins: by its full name, its
/// simple name, or its simple name without `Connector`.
fn is_spelling_of(class: &str, spelling: &str) -> bool {
    let simple = class.rsplit('.').next().unwrap_or(class);
    class == spelling || simple == spelling || simple.strip_suffix("Connector") == Some(spelling)
}

/// Creates a connector (`creating`) or replaces the config of one the caller sees. Decided
/// writable → MANAGE_CONNECTORS held → (for an update) the connector visible and manageable, a
/// masked secret kept only while its class and destination stay → the class neither FileStream
/// nor MirrorMaker in any spelling, a plugin Connect has → every effect of the config
/// (`connect::effects`: the operator's allow-list, then the topics it reads and writes and the
/// group it commits in, each decided for the caller) → MANAGE_CONNECTORS on the connector with
/// every topic it uses. Connect validates the config first; nothing is created or changed
/// unless it validates.
async fn configure(
    service: &Service, caller: &Caller, args: ConnectorConfigArgs, creating: bool,
) -> Result<ConnectorConfigured, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::ManageConnectors, &args, &["config"]);
    let cluster = args.cluster.clone();
    let write = async {
        let access = manage_access(service, caller, &cluster)?;
        let connect = args.connect.clone().required("connect")?;
        let name = args.name.clone().required("name")?;
        if name.trim().is_empty() || name.len() > MAX_NAME {
            return Err(ApiError::bad_request(
                "name",
                format!("A connector name is 1 to {MAX_NAME} bytes."),
            ));
        }
        if crate::replication::is_reserved(&name) {
            return Err(ApiError::bad_request(
                "name",
                "Names ending in .mirror-source, .mirror-checkpoint or .mirror-heartbeat are \
                 kept for replications' connectors.",
            ));
        }
        if let Some(problem) = crate::registry::segment_problem(&name) {
            return Err(ApiError::bad_request(
                "name",
                format!("This connector name cannot be used: {problem}."),
            ));
        }
        let mut config = args.config.clone().required("config")?;
        let dry_run = args.dry_run.clone().or("dry_run", false)?;
        let client = connect_client(service, &cluster, &connect)?;
        let entry =
            std::sync::Arc::clone(&service.decide(caller, &cluster, Action::catalog())?.entry);
        let (key, what) = (format!("connector/{connect}/{name}"), format!("connector \"{name}\""));
        let configured = async {
            if !creating {
                let (found, _) = find_visible(service, &access, &cluster, &connect, &name)?;
                let now = Action::new(Privilege::ManageConnectors, found.resource(&connect));
                service.decide(caller, &cluster, now)?;
                // As Connect holds it now, under the lease: a connector another replica deleted
                // since is not made again by this change, and secrets another changed are kept.
                let (live, password_keys) =
                    client.config_now(&name).await.map_err(crate::rest::api_error)?.ok_or_else(
                        || {
                            ApiError::not_found(format!(
                                "There is no connector \"{name}\" on Connect cluster \
                                 \"{connect}\" of cluster \"{cluster}\"."
                            ))
                        },
                    )?;
                // Decided again on the connector as Connect holds it: another replica may have
                // moved it to topics this caller may not manage.
                let as_now = Connector { config: live.clone(), ..found.clone() };
                let now = Action::new(Privilege::ManageConnectors, as_now.resource(&connect));
                service.decide(caller, &cluster, now)?;
                config = secrets::restore(config, &live, &password_keys)
                    .map_err(|n| effects::refused(&n.key, &n.reason))?;
            }
            config.insert("name".into(), name.clone());
            let given = config.get(CONNECTOR_CLASS).cloned().unwrap_or_default();
            if given.trim().is_empty() {
                return Err(ApiError::bad_request("config", "Name the plugin as connector.class."));
            }
            if let Some(engine) = crate::config::engine_classes::never_loose(&given) {
                return Err(effects::refused(
                    CONNECTOR_CLASS,
                    &format!("{given} is {engine}; klens never creates it as a loose connector."),
                ));
            }
            let plugins = client.plugins().await.map_err(crate::rest::api_error)?;
            let (class, kind) = plugins
                .iter()
                .find(|(c, _, _)| is_spelling_of(c, given.trim()))
                .map(|(c, k, _)| (c.clone(), k.clone()))
                .ok_or_else(|| {
                    ApiError::bad_request(
                        "config",
                        format!("Connect cluster \"{connect}\" has no plugin {given}."),
                    )
                })?;
            let effects = crate::connect::effects::effects(
                &connect,
                &kind,
                &name,
                &class,
                &config,
                &client.allow,
            )
            .map_err(|r| effects::refused(&r.key, &r.reason))?;
            effects::decide(service, caller, &access, &cluster, &name, &effects).await?;
            let resource = Resource::Connector {
                connect: connect.clone(),
                name: name.clone(),
                topics: effects.topics(),
            };
            let action = Action::new(Privilege::ManageConnectors, resource.clone());
            let mut granted = service.decide(caller, &cluster, action)?;
            if creating && taken(&granted.entry, &connect, &name) {
                // The same words whether the caller sees the connector of that name or not.
                return Err(ApiError {
                    flavor: app::error::Flavor::ConflictOrTimeout,
                    ..ApiError::new(
                        ErrorCode::Admin,
                        format!(
                            "Connect cluster \"{connect}\" has a connector named \"{name}\" \
                         already; choose another name."
                        ),
                    )
                });
            }
            let body = serde_json::to_value(&config).unwrap_or_default();
            // A dry run is a write attempt too: recorded before Connect sees the config.
            service.open(&mut granted.grant).await?;
            let validation = validate(&client, &granted.grant, &resource, &class, &body).await?;
            let error_count = validation.error_count;
            let verdicts = verdicts(validation);
            let mut answer = ConnectorConfigured {
                cluster: cluster.clone(),
                connect: connect.clone(),
                name: name.clone(),
                dry_run,
                error_count,
                verdicts,
                applied: false,
            };
            if dry_run {
                return Ok(answer);
            }
            if error_count > 0 {
                let said: Vec<String> = answer
                    .verdicts
                    .iter()
                    .filter(|v| !v.errors.is_empty())
                    .take(3)
                    .map(|v| format!("{}: {}", v.name, v.errors.join(" ")))
                    .collect();
                return Err(ApiError::bad_request(
                    "config",
                    format!(
                        "Connect finds {error_count} errors in this config, so nothing changed: {}",
                        said.join("; ")
                    ),
                ));
            }
            if creating {
                let body = serde_json::json!({ "name": name, "config": config });
                let _: serde_json::Value = client
                    .send_json(
                        &granted.grant,
                        &resource,
                        Method::POST,
                        &["connectors"],
                        &[],
                        Some(&body),
                    )
                    .await?;
            } else {
                let _: serde_json::Value = client
                    .send_json(
                        &granted.grant,
                        &resource,
                        Method::PUT,
                        &["connectors", &name, "config"],
                        &[],
                        Some(&body),
                    )
                    .await?;
            }
            read_back(&client, &granted.entry, &connect, &name).await;
            answer.applied = true;
            Ok(answer)
        };
        // One change of a connector at a time across replicas (a dry run changes nothing).
        if dry_run {
            configured.await
        } else {
            entry.leases.hold(&key, &what, configured).await
        }
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
serves!(app::api::ConnectorPlugins, |s, c, a| plugins(&s, &c, &a.cluster, a.connect));
serves!(app::api::CreateConnector, |s, c, a| configure(&s, &c, a.args, true));
serves!(app::api::UpdateConnector, |s, c, a| configure(&s, &c, a.args, false));
serves!(app::api::DeleteConnector, |s, c, a| change(&s, &c, a.args, Change::Delete));
