//! A connector config's effects decided against the caller, before Connect sees the config:
//! RECORDS (and UNMASK where a mask hides fields) on every topic a sink reads, by name or by
//! its pattern matched against the catalog; PRODUCE on every topic it writes (a source's, a
//! dead-letter topic, a source's own offsets topic) and CREATE_TOPICS on those the worker would
//! make; RESET_OFFSETS on a consumer group the sink would join that is not its own already.
//! Every refusal names the key that caused it.

use app::access::{Action, ClusterAccess, Decision, Resource};
use app::{ApiError, ErrorCode, Privilege};

use super::super::Service;
use crate::auth::Caller;
use crate::connect::effects::Effects;

/// The longest `topics.regex` klens compiles.
const MAX_PATTERN: usize = 4096;

/// `error` with the config key that led to it in front of its message.
fn naming(key: &str, error: ApiError) -> ApiError {
    ApiError { message: format!("{key}: {}", error.message), ..error }
}

/// Decides every effect of a config of connector `name` for `caller` on `cluster`.
pub(super) async fn decide(
    service: &Service, caller: &Caller, access: &ClusterAccess, cluster: &str, name: &str,
    effects: &Effects,
) -> Result<(), ApiError> {
    let entry = service.catalog.get(cluster).ok_or_else(|| ApiError::unknown_cluster(cluster))?;
    let state = entry.state();
    let listed: Vec<String> = state
        .metadata
        .as_ref()
        .map(|m| m.topics.iter().map(|t| t.name.clone()).collect())
        .unwrap_or_default();

    let mut read = effects.reads.clone();
    if let Some(pattern) = &effects.pattern {
        let key = "topics.regex";
        // Connect matches the whole name, now and for every topic made later: only a caller
        // who reads the whole cluster may subscribe by pattern.
        if !access.privileges.contains(&Privilege::Records) {
            return Err(naming(key, super::lacks(cluster, Privilege::Records)));
        }
        let compiled = (pattern.len() <= MAX_PATTERN)
            .then(|| {
                regex::RegexBuilder::new(&format!("^(?:{pattern})$"))
                    .size_limit(1 << 20)
                    .build()
                    .ok()
            })
            .flatten()
            .ok_or_else(|| {
                ApiError::bad_request(
                    "config",
                    format!(
                        "{key}: klens cannot read this pattern, so it cannot tell which topics \
                         it reaches; write it with plain classes, groups and repetitions \
                         (at most {MAX_PATTERN} bytes)."
                    ),
                )
            })?;
        // A protected topic the pattern would take, whether it exists yet or not: a name as
        // it is, a glob as MirrorMaker fills it for every cluster klens knows (its offset
        // syncs, checkpoints and dedicated-mode topics carry a cluster's alias).
        let aliases: Vec<String> =
            service.catalog.clusters().iter().map(|c| c.name.clone()).collect();
        let fillers: Vec<String> = ["x".to_string()]
            .into_iter()
            .chain(aliases.iter().flat_map(|c| {
                ["", "-offset-syncs.", "-configs.", "-offsets.", "-status."]
                    .map(|part| format!("{part}{c}"))
            }))
            .collect();
        for protected in &access.protected_topics {
            for filler in &fillers {
                let probe = protected.replace('*', filler).replace('?', "x");
                if compiled.is_match(&probe) {
                    service
                        .check_topic(caller, cluster, Privilege::Records, &probe)
                        .map_err(|e| naming(key, e))?;
                }
                if !protected.contains(['*', '?']) {
                    break;
                }
            }
        }
        read.extend(listed.iter().filter(|t| compiled.is_match(t)).cloned());
    }
    let read_key = if effects.pattern.is_some() { "topics.regex" } else { "topics" };
    for topic in &read {
        let key = if effects.reads.contains(topic) { "topics" } else { read_key };
        service
            .decide_topic(caller, cluster, Privilege::Records, Some(topic))
            .map_err(|e| naming(key, e))?;
        if service.mask(caller, cluster, topic).is_some() {
            let refusal = Decision::MissingPrivilege(Privilege::Unmask, Resource::topic(topic));
            let error =
                refusal.into_error(cluster).unwrap_or_else(|| ApiError::unknown_cluster(cluster));
            return Err(naming(
                key,
                ApiError {
                    message: format!(
                        "topic \"{topic}\" is masked for you, and a sink would carry its records \
                         out unmasked. {}",
                        error.message
                    ),
                    ..error
                },
            ));
        }
    }
    for (topic, key) in &effects.writes {
        service
            .decide_topic(caller, cluster, Privilege::Produce, Some(topic))
            .map_err(|e| naming(key, e))?;
        if effects.creates_topics && !listed.contains(topic) {
            service
                .decide_topic(caller, cluster, Privilege::CreateTopics, Some(topic))
                .map_err(|e| naming("topic.creation", e))?;
        }
    }
    if let Some(group) = &effects.group {
        let key =
            if *group == format!("connect-{name}") { "name" } else { "consumer.override.group.id" };
        // The group as its coordinator describes it now: the catalog's view may be seconds
        // older than an application that has just joined it.
        let kind = state
            .groups
            .data
            .as_deref()
            .and_then(|g| g.iter().find(|g| g.id == *group))
            .map_or_else(|| "classic".to_string(), |g| g.kind.clone());
        let known = entry.known_brokers_now();
        let (found, _) =
            crate::kafka::admin::groups::group_now_or_new(&entry.link(), &known, group, &kind)
                .await
                .map_err(|e| naming(key, e))?;
        if found.state != "Dead" {
            let own_members = format!("connector-consumer-{name}-");
            let members_own = found.members.iter().all(|m| m.client_id.starts_with(&own_members));
            let offsets_own = found.offsets.iter().all(|(t, _, _)| read.contains(t));
            if !(members_own && offsets_own) {
                let action = Action::new(Privilege::ResetOffsets, found.resource());
                service.decide(caller, cluster, action).map_err(|e| {
                    naming(
                        key,
                        ApiError {
                            message: format!(
                                "the sink would commit in group \"{group}\", which another \
                                 application uses. {}",
                                e.message
                            ),
                            ..e
                        },
                    )
                })?;
            }
        }
    }
    Ok(())
}

/// The refusal of a config for `key`, in the contract's shape.
pub(super) fn refused(key: &str, reason: &str) -> ApiError {
    ApiError {
        field: Some("config".into()),
        ..ApiError::new(ErrorCode::BadRequest, format!("{key}: {reason}"))
    }
}
