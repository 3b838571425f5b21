//! The catalog's tools: clusters, topics, groups, brokers, subjects and search. They need no
//! privilege, but a topic's or a broker's configs come only when the ceiling holds theirs.

use app::api::{Arg, WindowArgs};
use app::{ApiError, ErrorCode, Privilege};
use serde::Deserialize;
use serde_json::{json, Value};

use super::fit::{fit, fit_topic, query_value};
use super::{cluster_only, listed, object, parse, to_json, Answer, ClusterArgs, ToolSpec};
use crate::auth::Caller;
use crate::service::views::WithPart;
use crate::service::{catalog, views, Service};

/// A page of a list (topics, groups): the default and the hard maximum.
const LIST_DEFAULT: u64 = 100;
const LIST_MAX: u64 = 500;

pub(super) const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "klens_clusters_list",
        privilege: None,
        write: false,
        idempotent: true,
        description: "The clusters this MCP listener may reach, with health, whether each is writable, and counts of brokers, topics and partitions. Needs no privilege.",
        schema: || object(json!({}), &[]),
        run: clusters_list,
    },
    ToolSpec {
        name: "klens_topics_list",
        privilege: None,
        write: false,
        idempotent: true,
        description: "Topics of a cluster with partitions, replication, record counts, sizes and produce rates; filter by a substring, page with offset and limit. Needs no privilege.",
        schema: list_schema,
        run: topics_list,
    },
    ToolSpec {
        name: "klens_topic_describe",
        privilege: None,
        write: false,
        idempotent: true,
        description: "One topic: each partition's leader, replicas, in-sync replicas, watermarks and size; and its configs when the ceiling holds TOPIC_CONFIGS. Needs no privilege for the partitions.",
        schema: || object(json!({"cluster": {"type": "string"}, "topic": {"type": "string"}}), &["cluster", "topic"]),
        run: topic_describe,
    },
    ToolSpec {
        name: "klens_groups_list",
        privilege: None,
        write: false,
        idempotent: true,
        description: "Consumer groups of a cluster with state, members, topics and total lag; filter and page as for topics. Needs no privilege.",
        schema: list_schema,
        run: groups_list,
    },
    ToolSpec {
        name: "klens_group_describe",
        privilege: None,
        write: false,
        idempotent: true,
        description: "One consumer group: members and their assignments, each partition's committed offset, end offset and lag, and plain findings (no members, rebalancing, more members than partitions, unassigned partitions, lag on one member, lag grown since the last call). Needs no privilege.",
        schema: || object(json!({"cluster": {"type": "string"}, "group": {"type": "string"}}), &["cluster", "group"]),
        run: group_describe,
    },
    ToolSpec {
        name: "klens_brokers_list",
        privilege: None,
        write: false,
        idempotent: true,
        description: "Brokers of a cluster with racks, the controller and log dirs. With `broker`, that broker alone and, when the ceiling holds BROKER_CONFIGS, its configs. Needs no privilege for the list.",
        schema: || object(json!({"cluster": {"type": "string"}, "broker": {"type": "integer", "description": "One broker's id."}}), &["cluster"]),
        run: brokers_list,
    },
    ToolSpec {
        name: "klens_subjects_list",
        privilege: None,
        write: false,
        idempotent: true,
        description: "Schema Registry subjects of a cluster with versions, latest id and type, and compatibility. Needs no privilege.",
        schema: cluster_only,
        run: subjects_list,
    },
    ToolSpec {
        name: "klens_search",
        privilege: None,
        write: false,
        idempotent: true,
        description: "Topics, groups, brokers and subjects whose names match `q`, in one cluster or every one this listener may reach. Needs no privilege.",
        schema: || object(json!({"q": {"type": "string"}, "cluster": {"type": "string"}}), &["q"]),
        run: search,
    },
];

fn list_schema() -> Value {
    object(
        json!({
            "cluster": {"type": "string"},
            "filter": {"type": "string", "description": "Only names containing this text."},
            "offset": {"type": "integer", "minimum": 0, "description": "Skip this many of the matches (for the next page)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": LIST_MAX, "description": "At most this many (default 100)."}
        }),
        &["cluster"],
    )
}

#[derive(Deserialize)]
struct ListArgs {
    cluster: String,
    #[serde(default)]
    filter: Arg<String>,
    #[serde(default)]
    offset: Arg<u64>,
    #[serde(default)]
    limit: Arg<u64>,
}

impl ListArgs {
    /// The window of the list `/api` would answer, the limit held to the tool's maximum.
    fn window(self) -> Result<(String, WindowArgs), ApiError> {
        let limit = self.limit.or("limit", LIST_DEFAULT)?.clamp(1, LIST_MAX);
        let window = WindowArgs {
            q: self.filter,
            offset: self.offset,
            limit: Arg::Given(limit),
            ..WindowArgs::default()
        };
        Ok((self.cluster, window))
    }
}

#[derive(Deserialize)]
struct TopicArgs {
    cluster: String,
    #[serde(default)]
    topic: Arg<String>,
}

#[derive(Deserialize)]
struct GroupArgs {
    cluster: String,
    #[serde(default)]
    group: Arg<String>,
}

#[derive(Deserialize)]
struct BrokerArgs {
    cluster: String,
    #[serde(default)]
    broker: Arg<i32>,
}

#[derive(Deserialize)]
struct SearchArgs {
    #[serde(default)]
    q: Arg<String>,
    #[serde(default)]
    cluster: Arg<String>,
}

/// Where a paged list goes on.
const LIST_ON: &str = "ask again with a larger offset, or a filter";

fn clusters_list<'a>(s: &'a Service, c: &'a Caller, _: Value) -> Answer<'a> {
    Box::pin(async move { to_json(catalog::clusters(s, c).await?) })
}

fn topics_list<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let (cluster, window) = parse::<ListArgs>(arguments)?.window()?;
        listed(catalog::topics(s, c, &cluster, window).await?, "topics", LIST_ON)
    })
}

fn groups_list<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let (cluster, window) = parse::<ListArgs>(arguments)?.window()?;
        listed(catalog::groups(s, c, &cluster, window).await?, "groups", LIST_ON)
    })
}

fn topic_describe<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: TopicArgs = parse(arguments)?;
        let whole = format!(
            "GET /api/topic?cluster={}&topic={} lists every partition, and GET /api/topic_configs with the same arguments every config with its documentation",
            query_value(&a.cluster),
            query_value(a.topic.given().map_or("", String::as_str)),
        );
        let both = views::topic_with_configs(s, c, &a.cluster, a.topic).await?;
        let detail = with_part(both, "configs", |l| l.configs, Privilege::TopicConfigs)?;
        Ok(fit_topic(detail, &whole))
    })
}

fn group_describe<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: GroupArgs = parse(arguments)?;
        let (detail, found) = views::group_with_findings(s, c, &a.cluster, a.group).await?;
        let mut value = to_json(detail)?;
        if let Value::Object(map) = &mut value {
            map.insert("findings".into(), json!(found));
        }
        Ok(fit(value, "offsets", "the group's page in the UI lists every partition"))
    })
}

fn brokers_list<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: BrokerArgs = parse(arguments)?;
        let Some(id) = a.broker.optional("broker")? else {
            return to_json(catalog::brokers(s, c, &a.cluster).await?);
        };
        let both = views::broker_with_configs(s, c, &a.cluster, id).await?;
        let detail = with_part(both, "configs", |l| l.configs, Privilege::BrokerConfigs)?;
        Ok(fit(detail, "configs", "the broker's Configuration tab lists every config"))
    })
}

fn subjects_list<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: ClusterArgs = parse(arguments)?;
        let subjects = catalog::subjects(s, c, &a.cluster).await?;
        listed(subjects, "subjects", "ask klens_search for a name")
    })
}

fn search<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: SearchArgs = parse(arguments)?;
        let hits = catalog::search(s, c, a.q, a.cluster).await?;
        listed(hits, "hits", "ask with a longer query")
    })
}

/// A detail with its privileged part under `field`: the part, or, when the ceiling lacks its
/// privilege, a note saying so instead, or the part's own error.
fn with_part<T: serde::Serialize, P, Q: serde::Serialize>(
    both: WithPart<T, P>, field: &str, shown: impl FnOnce(P) -> Q, privilege: Privilege,
) -> Result<Value, ApiError> {
    let mut value = to_json(both.detail)?;
    let Value::Object(map) = &mut value else {
        return Ok(value);
    };
    match both.part {
        Ok(part) => {
            map.insert(field.into(), to_json(shown(part))?);
        }
        Err(e) if e.code == ErrorCode::MissingPrivilege => {
            map.insert(
                format!("{field}_left_out"),
                json!(format!(
                    "{} needs {}, which mcp.privileges does not hold here.",
                    field,
                    privilege.wire_name()
                )),
            );
        }
        Err(e) => {
            map.insert(format!("{field}_error"), to_json(e)?);
        }
    }
    Ok(value)
}
