//! Answers made of several operations, each part decided on its own, for a door that shows
//! them together (the MCP tools today; `/api` can offer the same): a topic or a broker with
//! its configs, a group with findings about it.

use app::api::{Arg, BrokerConfigList, BrokerDetail, GroupDetail, TopicConfigList, TopicDetail};
use app::ApiError;

use super::{brokers, catalog, findings, topics, Service};
use crate::auth::Caller;

/// A detail and a part of it that needs a privilege of its own: the part, or the refusal
/// that left it out (the detail stands either way).
pub struct WithPart<T, P> {
    pub detail: T,
    pub part: Result<P, ApiError>,
}

/// A topic's partitions, and its configs when the caller may read them.
pub async fn topic_with_configs(
    service: &Service, caller: &Caller, cluster: &str, topic: Arg<String>,
) -> Result<WithPart<TopicDetail, TopicConfigList>, ApiError> {
    let detail = catalog::topic(service, caller, cluster, topic.clone()).await?;
    let part = topics::topic_configs(service, caller, cluster, topic).await;
    Ok(WithPart { detail, part })
}

/// A broker, and its configs when the caller may read them.
pub async fn broker_with_configs(
    service: &Service, caller: &Caller, cluster: &str, broker: i32,
) -> Result<WithPart<BrokerDetail, BrokerConfigList>, ApiError> {
    let detail = catalog::broker(service, caller, cluster, Arg::Given(broker)).await?;
    let part = brokers::broker_configs(service, caller, cluster, Arg::Given(broker)).await;
    Ok(WithPart { detail, part })
}

/// A group and plain findings about it, one of them whether its lag grew since the group was
/// last described this way (by any caller: the lag is the group's, not the caller's).
pub async fn group_with_findings(
    service: &Service, caller: &Caller, cluster: &str, group: Arg<String>,
) -> Result<(GroupDetail, Vec<String>), ApiError> {
    let detail = catalog::group(service, caller, cluster, group).await?;
    let key = (cluster.to_string(), detail.group.clone());
    let now = detail.lag.map(|lag| (detail.served_at, lag));
    let earlier = service.lags.lock().ok().and_then(|mut m| m.swap(key, now));
    let found = findings::findings(&detail, earlier);
    Ok((detail, found))
}
