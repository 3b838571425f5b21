//! The catalog: what everyone who sees a cluster may see, with no privilege, answered from the
//! projection without waiting on Kafka.

use std::sync::Arc;

use app::access::{Action, ClusterAccess};
use app::api::{
    Arg, BrokerDetail, BrokerList, ClusterDetail, ClusterSummary, GroupDetail, GroupList,
    SearchHit, SearchResult, SubjectList, TopicDetail, TopicList, WindowArgs, MAX_HITS,
};
use app::{ApiError, ErrorCode};

use super::Service;
use crate::auth::Caller;
use crate::catalog::{not_read_yet, ClusterEntry};
use app::names::TopicName;

/// The longest search query, in characters.
const MAX_QUERY: usize = 200;

/// One cluster the caller sees, reached through the decision's grant, with what they hold on
/// it (which decides what a scoped catalog shows them).
type Seen = (Arc<ClusterEntry>, ClusterAccess);

/// Every cluster the caller sees, in config order.
fn visible(service: &Service, caller: &Caller) -> Vec<Seen> {
    service
        .policy
        .visible(&caller.subject())
        .into_iter()
        .filter_map(|access| {
            service.decide(caller, &access.name, Action::catalog()).ok().map(|g| (g.entry, access))
        })
        .collect()
}

fn entry(service: &Service, caller: &Caller, cluster: &str) -> Result<Seen, ApiError> {
    let entry = service.decide(caller, cluster, Action::catalog())?.entry;
    Ok((entry, service.access(caller, cluster)?))
}

pub async fn clusters(service: &Service, caller: &Caller) -> Result<Vec<ClusterSummary>, ApiError> {
    Ok(visible(service, caller).iter().map(|(c, seen)| c.seen_by(seen).summary()).collect())
}

pub async fn cluster(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<ClusterDetail, ApiError> {
    let (entry, seen) = entry(service, caller, cluster)?;
    Ok(entry.seen_by(&seen).detail())
}

pub async fn topics(
    service: &Service, caller: &Caller, cluster: &str, window: WindowArgs,
) -> Result<TopicList, ApiError> {
    let (entry, seen) = entry(service, caller, cluster)?;
    Ok(entry.seen_by(&seen).topics(&window.parse()?))
}

pub async fn topic(
    service: &Service, caller: &Caller, cluster: &str, topic: Arg<String>,
) -> Result<TopicDetail, ApiError> {
    let (entry, seen) = entry(service, caller, cluster)?;
    let topic = topic.required("topic")?;
    TopicName::check(&topic, "topic")?;
    if entry.state().metadata.is_none() {
        // Before the first good refresh klens cannot tell a missing topic from an unread one.
        return Err(not_read_yet(cluster, "topics"));
    }
    // Under a scoped catalog a topic the caller may not see answers as one that is not there.
    let mut detail = entry.seen_by(&seen).topic(&topic).ok_or_else(|| {
        ApiError::not_found(format!(
            "There is no topic named \"{topic}\" in cluster \"{cluster}\"."
        ))
    })?;
    detail.connectors = super::connect::using_topic(service, caller, cluster, &topic);
    detail.replications = super::replications::touching_topic(service, caller, cluster, &topic);
    Ok(detail)
}

pub async fn groups(
    service: &Service, caller: &Caller, cluster: &str, window: WindowArgs,
) -> Result<GroupList, ApiError> {
    let (entry, seen) = entry(service, caller, cluster)?;
    Ok(entry.seen_by(&seen).groups(&window.parse()?))
}

pub async fn group(
    service: &Service, caller: &Caller, cluster: &str, group: Arg<String>,
) -> Result<GroupDetail, ApiError> {
    let (entry, seen) = entry(service, caller, cluster)?;
    let group = group.required("group")?;
    if group.is_empty() {
        return Err(ApiError::bad_request("group", "A group id cannot be empty."));
    }
    if entry.state().groups.data.is_none() {
        return Err(not_read_yet(cluster, "consumer groups"));
    }
    let mut detail = entry.seen_by(&seen).group(&group).ok_or_else(|| {
        ApiError::not_found(format!(
            "There is no consumer group \"{group}\" in cluster \"{cluster}\"."
        ))
    })?;
    detail.connector = super::connect::committing_as(service, caller, cluster, &group);
    Ok(detail)
}

pub async fn brokers(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<BrokerList, ApiError> {
    let (entry, seen) = entry(service, caller, cluster)?;
    Ok(entry.seen_by(&seen).brokers())
}

pub async fn broker(
    service: &Service, caller: &Caller, cluster: &str, id: Arg<i32>,
) -> Result<BrokerDetail, ApiError> {
    let (entry, seen) = entry(service, caller, cluster)?;
    let id = id.required("id")?;
    if entry.state().metadata.is_none() {
        return Err(not_read_yet(cluster, "brokers"));
    }
    entry.seen_by(&seen).brokers().brokers.into_iter().find(|b| b.id == id).ok_or_else(|| {
        ApiError::not_found(format!("There is no broker {id} in cluster \"{cluster}\"."))
    })
}

pub async fn subjects(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<SubjectList, ApiError> {
    let (entry, seen) = entry(service, caller, cluster)?;
    Ok(entry.seen_by(&seen).subjects())
}

/// Searches every visible cluster, or only `cluster` (which must then be visible).
pub async fn search(
    service: &Service, caller: &Caller, q: Arg<String>, cluster: Arg<String>,
) -> Result<SearchResult, ApiError> {
    let entries = match cluster.optional("cluster")? {
        Some(cluster) => vec![entry(service, caller, &cluster)?],
        None => visible(service, caller),
    };
    let query = q.required("q")?;
    if query.chars().count() > MAX_QUERY {
        return Err(ApiError::bad_request(
            "q",
            format!("A search is at most {MAX_QUERY} characters."),
        ));
    }
    // Scoring every name of large catalogs is CPU work: not on an async worker.
    let hits = tokio::task::spawn_blocking(move || {
        let mut hits: Vec<(u32, SearchHit)> =
            entries.iter().flat_map(|(e, seen)| e.seen_by(seen).search(&query)).collect();
        hits.sort_by(|(a, x), (b, y)| {
            (a, x.kind, &x.cluster, &x.name).cmp(&(b, y.kind, &y.cluster, &y.name))
        });
        hits.truncate(MAX_HITS);
        hits
    })
    .await
    .map_err(|e| ApiError::new(ErrorCode::Client, format!("the search failed: {e}")))?;
    Ok(SearchResult { hits: hits.into_iter().map(|(_, hit)| hit).collect() })
}

// The server functions this capability answers.
serves!(app::api::Brokers, |s, c, a| brokers(&s, &c, &a.cluster));
serves!(app::api::Broker, |s, c, a| broker(&s, &c, &a.cluster, a.id));
serves!(app::api::Clusters, |s, c, _a| clusters(&s, &c));
serves!(app::api::Cluster, |s, c, a| cluster(&s, &c, &a.cluster));
serves!(app::api::Groups, |s, c, a| groups(&s, &c, &a.cluster, a.window));
serves!(app::api::Group, |s, c, a| group(&s, &c, &a.cluster, a.group));
serves!(app::api::Subjects, |s, c, a| subjects(&s, &c, &a.cluster));
serves!(app::api::Search, |s, c, a| search(&s, &c, a.q, a.cluster));
serves!(app::api::Topics, |s, c, a| topics(&s, &c, &a.cluster, a.window));
serves!(app::api::Topic, |s, c, a| topic(&s, &c, &a.cluster, a.topic));
