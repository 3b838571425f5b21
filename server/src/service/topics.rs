//! Topic changes: each decided (writable → internal → privilege), then its arguments judged,
//! then made through the admin room, whose read-back goes into the projection.

use app::api::{Arg, CreateTopicArgs, TopicChanged};
use app::{ApiError, Privilege};

use super::{Granted, Service};
use crate::auth::Caller;
use crate::kafka::admin::{self, check_topic_name, ReadBack, TopicSpec};

pub async fn create_topic(
    service: &Service,
    caller: &Caller,
    args: CreateTopicArgs,
) -> Result<TopicChanged, ApiError> {
    let named = args.topic.given().map(String::as_str);
    let granted = service.decide_topic(caller, &args.cluster, Privilege::CreateTopics, named)?;
    let request = args.parse()?;
    let spec = TopicSpec::new(
        &request.topic,
        request.partitions,
        request.replication_factor,
        &request.configs,
    )?;
    let known = granted.entry.known_brokers_now();
    let read_back = admin::create_topic(&granted.grant, &granted.link(), &known, &spec).await?;
    apply(&granted, &spec.name, read_back);
    Ok(TopicChanged {
        cluster: request.cluster,
        topic: spec.name,
    })
}

pub async fn delete_topic(
    service: &Service,
    caller: &Caller,
    cluster: &str,
    topic: Arg<String>,
) -> Result<TopicChanged, ApiError> {
    let named = topic.given().map(String::as_str);
    let granted = service.decide_topic(caller, cluster, Privilege::DeleteTopics, named)?;
    let topic = topic.required("topic")?;
    check_topic_name(&topic, "topic")?;
    let known = granted.entry.known_brokers_now();
    let read_back = admin::delete_topic(&granted.grant, &granted.link(), &known, &topic).await?;
    apply(&granted, &topic, read_back);
    Ok(TopicChanged {
        cluster: cluster.to_string(),
        topic,
    })
}

fn apply(granted: &Granted, name: &str, read_back: ReadBack) {
    granted
        .entry
        .apply_topic(name, read_back.topic, read_back.watermarks);
}
