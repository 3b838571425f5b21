//! Kafka Connect (CONNECTORS to read): the connectors of a cluster's Connect clusters as the
//! catalog last read them, and one connector with its tasks, topics and config, secrets masked.

use super::Answer;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::Arg;

/// One task of a connector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectorTask {
    pub id: i32,
    pub state: String,
    pub worker: Option<String>,
    /// For a failed task, the first `Caused by:` line of its trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// The whole trace (the connector page only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
}

/// A connector as lists show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectorSummary {
    /// The Connect cluster it runs on.
    pub connect: String,
    pub name: String,
    /// `source` or `sink`.
    pub kind: String,
    pub class: String,
    /// RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED or RESTARTING.
    pub state: String,
    pub tasks: Vec<ConnectorTask>,
    /// The topics it uses, as far as its config and Connect say.
    pub topics: Vec<String>,
    /// False when its config does not make its topics knowable (a pattern).
    pub topics_known: bool,
    /// For a failed connector, the first `Caused by:` line of its trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
}

impl ConnectorSummary {
    /// Tasks in the FAILED state.
    pub fn failed_tasks(&self) -> usize {
        self.tasks.iter().filter(|t| t.state == "FAILED").count()
    }
}

/// One Connect cluster in a list: how fresh its view is and what the caller sees of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectClusterView {
    pub name: String,
    /// When its connectors were last read, ms since the epoch; `null` before the first read.
    pub refreshed_at: Option<i64>,
    /// Why the last read failed (the connectors shown are from the read before).
    pub error: Option<String>,
    pub connectors: Vec<ConnectorSummary>,
    /// MirrorMaker 2 connectors, which belong to replications and are not listed here.
    pub mirror_connectors: usize,
}

/// `GET /api/connectors`: the connectors of every Connect cluster of a cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectorList {
    pub cluster: String,
    pub connects: Vec<ConnectClusterView>,
    /// When klens answered, ms since the epoch: how old each view is, said without the
    /// browser's clock.
    pub served_at: i64,
}

/// A connector named from another page (a topic it uses, the group a sink commits under).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectorRef {
    pub connect: String,
    pub name: String,
    /// `source` or `sink`.
    pub kind: String,
}

/// One config value of a connector; a secret shows as `********` with `masked`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectorConfigValue {
    pub name: String,
    pub value: String,
    pub masked: bool,
}

/// `GET /api/connector`: one connector.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConnectorDetail {
    pub cluster: String,
    pub connector: ConnectorSummary,
    pub config: Vec<ConnectorConfigValue>,
    /// A sink's consumer group.
    pub group: Option<String>,
    /// That group's lag, when the caller may see the group and the catalog has read it.
    #[serde(default)]
    pub group_lag: Option<u64>,
    /// Its offsets as Connect held them when the page was read (`connector_offsets`), `null`
    /// when Connect did not say; then `offsets_error` says why.
    #[serde(default)]
    pub offsets: Option<Vec<ConnectorOffset>>,
    #[serde(default)]
    pub offsets_error: Option<String>,
    /// The connector's own trace when it failed.
    pub trace: Option<String>,
    pub worker: Option<String>,
    pub refreshed_at: Option<i64>,
    pub served_at: i64,
}

serve! {
    /// The connectors of every Connect cluster of `cluster` the caller may see (CONNECTORS).
    GetUrl "connectors" fn connectors(cluster: String) -> ConnectorList as Connectors;

    /// One connector with its tasks, topics and config, secrets masked (CONNECTORS).
    GetUrl "connector" fn connector(
        cluster: String,
        connect: Arg<String>,
        name: Arg<String>,
    ) -> ConnectorDetail as Connector;
}

impl ConnectorSummary {
    /// The connector as the decision sees it: its Connect cluster and, when known, its topics.
    pub fn resource(&self) -> crate::access::Resource {
        crate::access::Resource::Connector {
            connect: self.connect.clone(),
            name: self.name.clone(),
            topics: self.topics_known.then(|| self.topics.clone()),
        }
    }
}

/// The arguments of the changes to one connector as sent: the cluster, its Connect cluster and
/// its name; for a restart, what to restart.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConnectorArgs {
    pub cluster: String,
    pub connect: Arg<String>,
    pub name: Arg<String>,
    /// `restart_connector`: also restart its tasks (default false).
    pub include_tasks: Arg<bool>,
    /// `restart_connector`: only what has failed (default false).
    pub only_failed: Arg<bool>,
    /// `restart_task`: the task.
    pub task: Arg<i32>,
}

/// The answer of a change to a connector: what was done, and its state as Connect says it
/// right after (`null` once deleted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectorChanged {
    pub cluster: String,
    pub connect: String,
    pub name: String,
    /// `pause`, `resume`, `stop`, `restart`, `restart_task` or `delete`.
    pub action: String,
    pub state: Option<String>,
}

serve! {
    /// Pauses a connector and its tasks (MANAGE_CONNECTORS on it, writable cluster).
    Json "pause_connector" fn pause_connector(
        #[server(flatten)] args: ConnectorArgs
    ) -> ConnectorChanged as PauseConnector;

    /// Resumes a paused or stopped connector (MANAGE_CONNECTORS on it, writable cluster).
    Json "resume_connector" fn resume_connector(
        #[server(flatten)] args: ConnectorArgs
    ) -> ConnectorChanged as ResumeConnector;

    /// Stops a connector: its tasks shut down and its config stays (MANAGE_CONNECTORS on it).
    Json "stop_connector" fn stop_connector(
        #[server(flatten)] args: ConnectorArgs
    ) -> ConnectorChanged as StopConnector;

    /// Restarts a connector, with its tasks or only what has failed (MANAGE_CONNECTORS on it).
    Json "restart_connector" fn restart_connector(
        #[server(flatten)] args: ConnectorArgs
    ) -> ConnectorChanged as RestartConnector;

    /// Restarts one task of a connector (MANAGE_CONNECTORS on it).
    Json "restart_task" fn restart_task(
        #[server(flatten)] args: ConnectorArgs
    ) -> ConnectorChanged as RestartTask;

    /// Deletes a connector (MANAGE_CONNECTORS on it).
    Json "delete_connector" fn delete_connector(
        #[server(flatten)] args: ConnectorArgs
    ) -> ConnectorChanged as DeleteConnector;
}

/// One connector plugin a Connect cluster has installed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectorPlugin {
    pub class: String,
    /// `source` or `sink`.
    pub kind: String,
    pub version: Option<String>,
}

/// `GET /api/connector_plugins`: the plugins of one Connect cluster, MirrorMaker's left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectorPluginList {
    pub cluster: String,
    pub connect: String,
    pub plugins: Vec<ConnectorPlugin>,
}

/// The arguments of `create_connector` and `update_connector` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConnectorConfigArgs {
    pub cluster: String,
    pub connect: Arg<String>,
    pub name: Arg<String>,
    /// The whole config, `connector.class` included. In an update, a value sent back as
    /// `********` keeps the stored secret.
    pub config: Arg<std::collections::BTreeMap<String, String>>,
    /// `true`: Connect validates the config and nothing is created or changed.
    pub dry_run: Arg<bool>,
}

/// What Connect says of one config key in a validation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigVerdict {
    pub name: String,
    pub errors: Vec<String>,
    /// Whether the plugin requires it.
    pub required: bool,
    /// The plugin's words on it.
    pub documentation: Option<String>,
}

/// The answer of `create_connector` and `update_connector`: Connect's validation, key by key
/// (the keys with errors, then the required ones), and whether the change was made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectorConfigured {
    pub cluster: String,
    pub connect: String,
    pub name: String,
    pub dry_run: bool,
    pub error_count: usize,
    pub verdicts: Vec<ConfigVerdict>,
    /// True when the connector was created or its config replaced.
    pub applied: bool,
}

serve! {
    /// The connector plugins of a Connect cluster (CONNECTORS).
    GetUrl "connector_plugins" fn connector_plugins(
        cluster: String, connect: Arg<String>
    ) -> ConnectorPluginList as ConnectorPlugins;

    /// Creates a connector after Connect validates its config (MANAGE_CONNECTORS, and PRODUCE on
    /// each topic a source writes or RECORDS on each a sink reads).
    Json "create_connector" fn create_connector(
        #[server(flatten)] args: ConnectorConfigArgs
    ) -> ConnectorConfigured as CreateConnector;

    /// Replaces a connector's config after Connect validates it, masked values kept (as for
    /// `create_connector`, on the connector and the topics of its new config).
    Json "update_connector" fn update_connector(
        #[server(flatten)] args: ConnectorConfigArgs
    ) -> ConnectorConfigured as UpdateConnector;
}

/// A JSON object as Connect keys offsets with.
pub type OffsetMap = serde_json::Map<String, serde_json::Value>;

/// One entry of a connector's offsets as Connect keys them (KIP-875): a sink's `partition` is
/// `{kafka_topic, kafka_partition}` and its `offset` `{kafka_offset}`; a source's are maps of
/// its plugin's own. In a change, `offset: null` removes the partition's offset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConnectorOffset {
    pub partition: OffsetMap,
    #[serde(default)]
    pub offset: Option<OffsetMap>,
}

/// `GET /api/connector_offsets`: a connector's offsets as Connect holds them now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConnectorOffsetList {
    pub cluster: String,
    pub connect: String,
    pub name: String,
    /// The connector's state as Connect says it now; offsets change only when STOPPED.
    pub state: String,
    pub offsets: Vec<ConnectorOffset>,
}

/// The arguments of `reset_connector_offsets` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConnectorOffsetsArgs {
    pub cluster: String,
    pub connect: Arg<String>,
    pub name: Arg<String>,
    /// The partitions to set (`offset: null` removes one); absent: every offset is removed.
    pub offsets: Arg<Vec<ConnectorOffset>>,
    /// `true`: the plan only, nothing changes.
    pub dry_run: Arg<bool>,
}

/// The answer of `reset_connector_offsets`: the offsets before and as they would be (or are)
/// after, and whether Connect changed them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConnectorOffsetsPlan {
    pub cluster: String,
    pub connect: String,
    pub name: String,
    pub dry_run: bool,
    /// The connector's state now: Connect changes the offsets of a STOPPED connector only.
    pub state: String,
    pub before: Vec<ConnectorOffset>,
    pub after: Vec<ConnectorOffset>,
    pub applied: bool,
}

serve! {
    /// A connector's offsets as Connect holds them now (CONNECTORS on the connector).
    GetUrl "connector_offsets" fn connector_offsets(
        cluster: String,
        connect: Arg<String>,
        name: Arg<String>,
    ) -> ConnectorOffsetList as ConnectorOffsets;

    /// Removes or sets a stopped connector's offsets, after a dry run shows the plan
    /// (MANAGE_CONNECTORS on the connector).
    Json "reset_connector_offsets" fn reset_connector_offsets(
        #[server(flatten)] args: ConnectorOffsetsArgs
    ) -> ConnectorOffsetsPlan as ResetConnectorOffsets;
}
