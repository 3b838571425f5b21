//! A Kafka Connect cluster through its REST API: what the catalog keeps of its connectors
//! (state, tasks, topics, config), read in one refresh so that pages never wait on Connect.
//! Connector configs are held in clear here and masked in every answer (`secrets.rs`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;
use std::time::Duration;

use app::access::Resource;
use app::api::ConnectorOffset;
use app::Privilege;
use futures::stream::{self, StreamExt};
use reqwest::Method;
use serde::Deserialize;

use app::ApiError;

use crate::auth::Grant;
use crate::config::ConnectConfig;
use crate::rest::{RestClient, RestError};

pub mod effects;
pub mod secrets;
mod topics;

pub use topics::{targets, topics_of, CONNECTOR_CLASS};

const TIMEOUT: Duration = Duration::from_secs(10);
/// The largest answer klens reads from Connect: the list of a thousand connectors with their
/// configs and traces fits well within it.
const MAX_BODY: usize = 32 * 1024 * 1024;
/// Requests to one Connect cluster at the same time during a refresh.
const PARALLEL: usize = 8;
/// The most connectors klens keeps of one Connect cluster.
pub const MAX_CONNECTORS: usize = 10_000;
/// The most offsets klens reads or sends for one connector.
pub const MAX_OFFSETS: usize = 10_000;

/// One Connect cluster: its name in klens and how to reach it.
pub struct Connect {
    pub name: String,
    /// What a config may hold beyond what klens decides itself ([`effects`]).
    pub allow: crate::config::ConnectAllow,
    rest: RestClient,
    /// Per connector class, the config keys its plugin declares `PASSWORD`, read once.
    password_keys: Mutex<HashMap<String, BTreeSet<String>>>,
}

/// A connector as the last refresh read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connector {
    pub name: String,
    /// `source`, `sink`, or what Connect says when it cannot tell.
    pub kind: String,
    pub class: String,
    /// RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED, RESTARTING.
    pub state: String,
    pub worker: Option<String>,
    pub trace: Option<String>,
    pub tasks: Vec<Task>,
    /// The config in clear: never answered as it is (see [`secrets`]).
    pub config: BTreeMap<String, String>,
    /// The topics Connect says the connector has used.
    pub active_topics: Vec<String>,
    /// The config keys its plugin declares `PASSWORD`.
    pub password_keys: BTreeSet<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    pub id: i32,
    pub state: String,
    pub worker: Option<String>,
    pub trace: Option<String>,
}

impl Connector {
    /// The topics it uses as far as they are knowable ([`topics_of`]), `None` otherwise.
    pub fn topics(&self) -> Option<Vec<String>> {
        topics_of(&self.kind, &self.config, &self.active_topics)
    }

    /// The topics it uses: the knowable ones, else those Connect says it used so far.
    pub fn used_topics(&self) -> Vec<String> {
        self.topics().unwrap_or_else(|| self.active_topics.clone())
    }

    /// The connector as the decision sees it: its Connect cluster and the topics it uses, or
    /// `None` for topics its config does not make knowable.
    pub fn resource(&self, connect: &str) -> Resource {
        Resource::Connector {
            connect: connect.to_string(),
            name: self.name.clone(),
            topics: self.topics(),
        }
    }

    /// The topic a sink writes the records it could not take to, when its config names one.
    pub fn dead_letter(&self) -> Option<&str> {
        self.config.get(effects::DEAD_LETTER).map(|t| t.trim()).filter(|t| !t.is_empty())
    }

    /// A MirrorMaker 2 connector: part of a replication, never managed as a loose connector.
    pub fn is_mirror(&self) -> bool {
        is_mirror_class(&self.class)
    }

    /// The consumer group a sink commits its offsets under.
    pub fn group(&self) -> Option<String> {
        (self.kind == "sink").then(|| {
            self.config
                .get("consumer.override.group.id")
                .cloned()
                .unwrap_or_else(|| format!("connect-{}", self.name))
        })
    }
}

/// Whether `class` is one of MirrorMaker 2's connectors, which belong to replications, in any
/// spelling Connect accepts (full name, simple name, without `Connector`).
pub fn is_mirror_class(class: &str) -> bool {
    crate::config::engine_classes::is_mirror(class)
}

/// A connector from Connect's info and status of it; one just created may have no status yet
/// and shows as UNASSIGNED. Its topics and `PASSWORD` keys are filled in afterwards.
fn connector_of(name: String, e: Expanded) -> Option<Connector> {
    let info = e.info?;
    let (state, worker, trace, tasks, status_kind) = match e.status {
        Some(s) => (s.connector.state, s.connector.worker_id, s.connector.trace, s.tasks, s.kind),
        None => ("UNASSIGNED".to_string(), None, None, Vec::new(), None),
    };
    let kind = info.kind.or(status_kind).unwrap_or_else(|| "unknown".into());
    Some(Connector {
        class: info.config.get(CONNECTOR_CLASS).cloned().unwrap_or_default(),
        name,
        kind,
        state,
        worker,
        trace,
        tasks: tasks
            .into_iter()
            .map(|t| Task { id: t.id, state: t.state, worker: t.worker_id, trace: t.trace })
            .collect(),
        config: info.config,
        active_topics: Vec::new(),
        password_keys: BTreeSet::new(),
    })
}

/// The first `Caused by:` line of a Java stack trace (the root cause is often the last one,
/// but the first names what the connector itself hit), else the trace's first line.
pub fn first_cause(trace: &str) -> String {
    let line = trace
        .lines()
        .find_map(|l| l.trim().strip_prefix("Caused by: "))
        .or_else(|| trace.lines().next())
        .unwrap_or_default();
    line.chars().take(500).collect()
}

#[derive(Deserialize)]
struct Expanded {
    info: Option<Info>,
    status: Option<Status>,
}

#[derive(Deserialize)]
struct Info {
    #[serde(default)]
    config: BTreeMap<String, String>,
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

#[derive(Deserialize)]
struct Status {
    connector: StateOf,
    #[serde(default)]
    tasks: Vec<TaskStatus>,
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

#[derive(Deserialize)]
struct StateOf {
    state: String,
    worker_id: Option<String>,
    trace: Option<String>,
}

#[derive(Deserialize)]
struct TaskStatus {
    id: i32,
    state: String,
    worker_id: Option<String>,
    trace: Option<String>,
}

#[derive(Deserialize)]
struct TopicsOf {
    #[serde(default)]
    topics: Vec<String>,
}

#[derive(Deserialize)]
struct ConfigKey {
    definition: Option<Definition>,
}

#[derive(Deserialize)]
struct Definition {
    name: String,
    #[serde(rename = "type")]
    kind: String,
}

impl Connect {
    pub fn new(config: &ConnectConfig) -> Result<Connect, String> {
        Ok(Connect {
            name: config.name.clone(),
            allow: config.allow.clone(),
            rest: RestClient::new("Connect", &config.rest, TIMEOUT, MAX_BODY)?,
            password_keys: Mutex::new(HashMap::new()),
        })
    }

    /// Every connector with its state, tasks, config and topics, by name.
    pub async fn connectors(&self) -> Result<Vec<Connector>, RestError> {
        let query = [("expand", "status"), ("expand", "info")];
        let listed: BTreeMap<String, Expanded> =
            self.rest.get_with(&["connectors"], &query).await?.unwrap_or_default();
        if listed.len() > MAX_CONNECTORS {
            return Err(RestError::new(format!(
                "Connect lists {} connectors; klens reads at most {MAX_CONNECTORS}",
                listed.len()
            )));
        }
        let mut connectors: Vec<Connector> =
            listed.into_iter().filter_map(|(name, e)| connector_of(name, e)).collect();
        // Connect answers the topics of one connector at a time.
        let names: Vec<String> = connectors.iter().map(|c| c.name.clone()).collect();
        let topics: Vec<Vec<String>> = stream::iter(names)
            .map(|name| async move { self.active_topics(&name).await })
            .buffered(PARALLEL)
            .collect()
            .await;
        for (connector, topics) in connectors.iter_mut().zip(topics) {
            connector.active_topics = topics;
        }
        let classes: BTreeSet<String> = connectors.iter().map(|c| c.class.clone()).collect();
        for class in classes {
            let keys = self.password_keys_of(&class).await;
            for c in connectors.iter_mut().filter(|c| c.class == class) {
                c.password_keys = keys.clone();
            }
        }
        Ok(connectors)
    }

    /// The topics Connect says connector `name` has used, sorted; none when it does not say.
    async fn active_topics(&self, name: &str) -> Vec<String> {
        let answer: Option<BTreeMap<String, TopicsOf>> =
            self.rest.get_with(&["connectors", name, "topics"], &[]).await.ok().flatten();
        let mut topics =
            answer.and_then(|mut a| a.remove(name)).map(|t| t.topics).unwrap_or_default();
        topics.sort();
        topics
    }

    /// One connector read afresh, as the refresh reads each: `None` when Connect does not have
    /// it (yet, after a create).
    pub async fn connector(&self, name: &str) -> Result<Option<Connector>, RestError> {
        let Some(info) = self.rest.get_with::<Info>(&["connectors", name], &[]).await? else {
            return Ok(None);
        };
        let status = self.rest.get_with::<Status>(&["connectors", name, "status"], &[]).await?;
        let Some(mut connector) =
            connector_of(name.to_string(), Expanded { info: Some(info), status })
        else {
            return Ok(None);
        };
        connector.active_topics = self.active_topics(name).await;
        connector.password_keys = self.password_keys_of(&connector.class).await;
        Ok(Some(connector))
    }

    /// Connector `name`'s config as Connect holds it now, with the keys its plugin declares
    /// `PASSWORD`; `None` when Connect has no such connector. Read again a few times while the
    /// workers rebalance (as they do right after a connector is made), as a change is.
    pub async fn config_now(
        &self, name: &str,
    ) -> Result<Option<(BTreeMap<String, String>, BTreeSet<String>)>, RestError> {
        let mut tries = 0;
        let info = loop {
            tries += 1;
            match self.rest.get_with::<Info>(&["connectors", name], &[]).await {
                Err(e) if rebalancing(&e) && tries < REBALANCE_TRIES => {
                    tokio::time::sleep(REBALANCE_PAUSE).await;
                }
                read => break read?,
            }
        };
        let Some(info) = info else {
            return Ok(None);
        };
        let class = info.config.get(CONNECTOR_CLASS).cloned().unwrap_or_default();
        let password_keys = self.password_keys_of(&class).await;
        Ok(Some((info.config, password_keys)))
    }

    /// Connector `name`'s state as Connect says it now (its status alone); `None` when Connect
    /// has no status for it.
    pub async fn state(&self, name: &str) -> Result<Option<String>, RestError> {
        let status = self.rest.get_with::<Status>(&["connectors", name, "status"], &[]).await?;
        Ok(status.map(|s| s.connector.state))
    }

    /// The connector plugins installed on the workers: (class, `source` or `sink`, version).
    pub async fn plugins(&self) -> Result<Vec<(String, String, Option<String>)>, RestError> {
        #[derive(Deserialize)]
        struct Plugin {
            class: String,
            #[serde(rename = "type")]
            kind: String,
            version: Option<String>,
        }
        let plugins: Vec<Plugin> =
            self.rest.get_with(&["connector-plugins"], &[]).await?.unwrap_or_default();
        Ok(plugins.into_iter().map(|p| (p.class, p.kind, p.version)).collect())
    }

    /// The keys the plugin of `class` declares `PASSWORD`, asked once per class; none when the
    /// plugin is not installed or Connect does not answer (the names still mask the usual ones).
    async fn password_keys_of(&self, class: &str) -> BTreeSet<String> {
        if let Some(known) = self.password_keys.lock().ok().and_then(|m| m.get(class).cloned()) {
            return known;
        }
        if class.is_empty() {
            return BTreeSet::new();
        }
        let answer: Result<Option<Vec<ConfigKey>>, RestError> =
            self.rest.get_with(&["connector-plugins", class, "config"], &[]).await;
        let Ok(answer) = answer else {
            return BTreeSet::new();
        };
        let keys: BTreeSet<String> = answer
            .unwrap_or_default()
            .into_iter()
            .filter_map(|k| k.definition)
            .filter(|d| d.kind == "PASSWORD")
            .map(|d| d.name)
            .collect();
        if let Ok(mut known) = self.password_keys.lock() {
            known.insert(class.to_string(), keys.clone());
        }
        keys
    }

    /// Connector `name`'s offsets as Connect holds them now (KIP-875), under `grant`: CONNECTORS
    /// or MANAGE_CONNECTORS on `resource`, the connector. `NOT_FOUND` when Connect does not
    /// have it; more than [`MAX_OFFSETS`] entries are refused rather than cut.
    pub async fn offsets(
        &self, grant: &Grant, resource: &Resource, name: &str,
    ) -> Result<Vec<ConnectorOffset>, ApiError> {
        let privilege = match grant.action().privilege {
            Some(Privilege::ManageConnectors) => Privilege::ManageConnectors,
            _ => Privilege::Connectors,
        };
        grant.require(privilege, resource)?;
        #[derive(Deserialize)]
        struct Offsets {
            #[serde(default)]
            offsets: Vec<ConnectorOffset>,
        }
        let answer: Option<Offsets> = self
            .rest
            .get_with(&["connectors", name, "offsets"], &[])
            .await
            .map_err(crate::rest::api_error)?;
        let offsets = answer
            .ok_or_else(|| {
                ApiError::not_found(format!(
                    "Connect cluster \"{}\" has no connector \"{name}\".",
                    self.name
                ))
            })?
            .offsets;
        if offsets.len() > MAX_OFFSETS {
            return Err(ApiError::new(
                app::ErrorCode::Client,
                format!(
                    "Connector \"{name}\" has {} offsets; klens reads at most {MAX_OFFSETS}.",
                    offsets.len()
                ),
            ));
        }
        Ok(offsets)
    }

    /// Sends one change to Connect under `grant`, which must be MANAGE_CONNECTORS on `resource`
    /// (the connector it changes) or MANAGE_REPLICATIONS on the replication whose MirrorMaker
    /// connectors it names ([`require_change`]), and reads its JSON answer (`null` when empty).
    /// Connect answers 409 while its workers rebalance: the change is tried again a few times,
    /// half a second apart, before klens says so.
    pub async fn change(
        &self, grant: &Grant, resource: &Resource, method: Method, segments: &[&str],
        query: &[(&str, &str)],
    ) -> Result<serde_json::Value, ApiError> {
        self.send_json(grant, resource, method, segments, query, None).await
    }

    /// [`Connect::change`] with a JSON body.
    pub async fn send_json<T: for<'de> Deserialize<'de>>(
        &self, grant: &Grant, resource: &Resource, method: Method, segments: &[&str],
        query: &[(&str, &str)], body: Option<&serde_json::Value>,
    ) -> Result<T, ApiError> {
        require_change(grant, resource, segments)?;
        let body = body.map(|b| b.to_string().into_bytes());
        let mut tries = 0;
        loop {
            tries += 1;
            let body = body.clone().map(|b| ("application/json", b));
            match self.rest.send(method.clone(), segments, query, body).await {
                Err(e) if rebalancing(&e) && tries < REBALANCE_TRIES => {
                    tokio::time::sleep(REBALANCE_PAUSE).await;
                }
                Err(e) if rebalancing(&e) => {
                    return Err(crate::rest::api_error(RestError {
                        message: format!(
                            "Connect cluster \"{}\" is rebalancing its workers and refused the \
                             change {tries} times; try again in a moment. ({})",
                            self.name, e.message
                        ),
                        ..e
                    }))
                }
                answer => return answer.map_err(crate::rest::api_error),
            }
        }
    }
}

/// What a change sent to Connect needs: MANAGE_CONNECTORS on the connector, or, for a
/// replication, MANAGE_REPLICATIONS on it and a request that names one of its own MirrorMaker
/// connectors (or validates a MirrorMaker config).
fn require_change(grant: &Grant, resource: &Resource, segments: &[&str]) -> Result<(), ApiError> {
    let Resource::Replication { name, .. } = resource else {
        return grant.require(Privilege::ManageConnectors, resource);
    };
    grant.require(Privilege::ManageReplications, resource)?;
    let own = match segments {
        ["connectors", connector, ..] => crate::replication::is_part(name, connector),
        ["connector-plugins", class, "config", "validate"] => is_mirror_class(class),
        _ => false,
    };
    if own {
        return Ok(());
    }
    // A caller never sees this: klens itself sent a replication's grant elsewhere.
    tracing::error!(replication = %name, ?segments, "a replication's grant was used on another connector");
    Err(ApiError::new(
        app::ErrorCode::MissingPrivilege,
        format!("This needs the MANAGE_CONNECTORS privilege, not replication \"{name}\"'s."),
    ))
}

/// Whether Connect's answer means its workers are rebalancing: 409, or a 500 whose message says
/// a rebalance is expected (what a worker answers when the leader changed under a request).
fn rebalancing(e: &RestError) -> bool {
    e.status == Some(409) || (e.status == Some(500) && e.message.contains("rebalance"))
}

/// How often a change is sent while Connect rebalances, and the pause between.
const REBALANCE_TRIES: usize = 4;
const REBALANCE_PAUSE: Duration = Duration::from_millis(500);

#[cfg(test)]
mod tests;
