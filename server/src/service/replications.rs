//! Replications between clusters (replication.md): MirrorMaker 2 connectors on a Connect
//! cluster of the target, found in the catalog's view of every Connect cluster and shown and
//! changed as one. A replication shows on the pages of its source and its target to a caller
//! holding REPLICATIONS on it there; creating or updating one checks, in this order, the target
//! writable, MANAGE_REPLICATIONS on the target for its name, its Connect cluster covered, and
//! REPLICATE_FROM on the source; pausing, resuming and deleting need MANAGE_REPLICATIONS on it,
//! a failover REPLICATION_OFFSETS on it. No topic privilege is asked for what it copies: the
//! credentials of `mirror.properties` bound what MirrorMaker reads and writes.

use std::collections::{BTreeMap, HashMap};

use app::access::{Action, ClusterAccess, Resource};
use app::api::{
    Arg, Checkpoint, ConnectorSummary, FailoverArgs, Naming, OffsetMove, OffsetPlan,
    ReplicatedPartition, ReplicationArgs, ReplicationChanged, ReplicationConfigured,
    ReplicationDetail, ReplicationList, ReplicationName, ReplicationSummary,
};
use app::error::Flavor;
use app::{ApiError, ErrorCode, Privilege};
use futures::stream::{self, StreamExt};
use reqwest::Method;

use super::connect::{connect_client, held, read_back, summary, validate, verdicts};
use super::{Granted, Service};
use crate::audit::Attempt;
use crate::auth::oidc::now_ms;
use crate::auth::{Caller, Grant};
use crate::catalog::ClusterEntry;
use crate::connect::{first_cause, Connector};
use crate::kafka::admin;
use crate::replication::progress::progress;
use crate::replication::records::{self as mirror, OffsetSync};
use crate::replication::{self, Role, Spec};

/// Records of lag past which a replication is `lagging`.
pub const LAG_THRESHOLD: u64 = 10_000;
/// The most of MirrorMaker's own records (offset syncs, checkpoints) one status reads.
const MAX_STATE_RECORDS: usize = 20_000;
/// The largest offset sync or checkpoint kept (MirrorMaker's are tens of bytes; a group or topic
/// name is at most a few hundred): what a list holds stays near a megabyte whatever is written
/// to those topics.
const MAX_STATE_BYTES: u64 = 4096;
/// The most partitions a replication's status lists.
const MAX_PARTITIONS: usize = 10_000;
/// The copied partitions whose newest record's age the replication page reads.
const MAX_AGES: usize = 32;
/// Replications whose status a list reads at once.
const PARALLEL: usize = 4;

/// A replication klens made, as the catalog's view of its target's Connect cluster holds it.
#[derive(Clone)]
struct Found {
    spec: Spec,
    connectors: Vec<(Role, Connector)>,
}

fn resource(name: &str) -> Resource {
    Resource::Replication { name: name.to_string(), connect: None }
}

/// Runs a change of replications one at a time across replicas of klens: under the lease
/// `replications` of the first writable cluster in the config with `mirror.properties` (every
/// replica reads the same config, so all take the same lease), with every Connect cluster's
/// connectors read afresh first, so that names (unique across klens), twins and loops are judged
/// on what Connect holds now, not on a view up to a refresh old.
async fn one_at_a_time<T>(
    service: &Service, change: impl std::future::Future<Output = Result<T, ApiError>>,
) -> Result<T, ApiError> {
    let fresh = async {
        for entry in service.catalog.clusters() {
            for connect in entry.connect_names() {
                entry.refresh_connect(&connect).await;
            }
        }
        change.await
    };
    let host = service.catalog.clusters().iter().find(|e| e.writable && e.mirror.is_some());
    match host {
        Some(host) => host.leases.hold("replications", "replications", fresh).await,
        None => fresh.await,
    }
}

/// Every replication klens made, on any Connect cluster of any cluster.
fn everything(service: &Service) -> Vec<Found> {
    let mut found = Vec::new();
    for entry in service.catalog.clusters() {
        let state = entry.state();
        for (connect, part) in &state.connect {
            let all = part.data.as_deref().map(Vec::as_slice).unwrap_or_default();
            let mut by_name: BTreeMap<String, Vec<(Role, Connector)>> = BTreeMap::new();
            for c in all {
                if let Some((name, role)) = replication::role_of(&c.name, &c.class) {
                    by_name.entry(name).or_default().push((role, c.clone()));
                }
            }
            for (name, mut connectors) in by_name {
                connectors.sort_by_key(|(role, _)| *role);
                let config =
                    |role| connectors.iter().find(|(r, _)| *r == role).map(|(_, c)| &c.config);
                let Some(source) = config(Role::Source) else { continue };
                let checkpoint = config(Role::Checkpoint);
                let Some(mut spec) = Spec::from_configs(&name, connect, source, checkpoint) else {
                    continue;
                };
                // It runs where its Connect cluster is: that cluster is its target.
                spec.target = entry.name.clone();
                found.push(Found { spec, connectors });
            }
        }
    }
    found
}

/// Every replication klens made, with its state (the worst of its connectors'), for the flow
/// of data; who may see each is the caller's to decide.
pub(crate) fn specs_and_states(service: &Service) -> Vec<(Spec, String)> {
    everything(service)
        .into_iter()
        .map(|found| {
            let (state, _, _) = state_of(&found, None);
            (found.spec, state)
        })
        .collect()
}

/// Whether the caller, holding `access` on one end of it, sees the replication.
fn visible(access: &ClusterAccess, found: &Found) -> bool {
    (found.spec.source == access.name || found.spec.target == access.name)
        && access.holds(Privilege::Replications, &resource(&found.spec.name))
}

/// Its state, the worst of its connectors' and tasks', its health and what failed.
fn state_of(found: &Found, lag: Option<u64>) -> (String, String, Option<String>) {
    let all: Vec<&Connector> = found.connectors.iter().map(|(_, c)| c).collect();
    let failed = all.iter().find_map(|c| {
        if c.state == "FAILED" {
            return Some(c.trace.as_deref().map(first_cause).unwrap_or_default());
        }
        c.tasks
            .iter()
            .find(|t| t.state == "FAILED")
            .map(|t| t.trace.as_deref().map(first_cause).unwrap_or_default())
    });
    if let Some(cause) = failed {
        return ("FAILED".into(), "failed".into(), Some(cause));
    }
    let running =
        |c: &&Connector| c.state == "RUNNING" && c.tasks.iter().all(|t| t.state == "RUNNING");
    if all.iter().all(running) {
        let health = if lag.is_some_and(|l| l > LAG_THRESHOLD) { "lagging" } else { "healthy" };
        return ("RUNNING".into(), health.into(), None);
    }
    if let Some(paused) = all.iter().find(|c| c.state == "PAUSED" || c.state == "STOPPED") {
        return (paused.state.clone(), "paused".into(), None);
    }
    let other = all.iter().find(|c| !running(c)).map_or("UNASSIGNED".into(), |c| c.state.clone());
    (other, "starting".into(), None)
}

fn summarize(found: &Found, lag: Option<u64>, partitions: usize) -> ReplicationSummary {
    let (state, health, cause) = state_of(found, lag);
    let spec = &found.spec;
    ReplicationSummary {
        name: spec.name.clone(),
        source: spec.source.clone(),
        target: spec.target.clone(),
        connect: spec.connect.clone(),
        topics: spec.topics.clone(),
        exclude: spec.exclude.clone(),
        naming: spec.naming,
        sync_configs: spec.sync_configs,
        groups: spec.groups.clone(),
        state,
        health,
        cause,
        lag,
        partitions,
    }
}

/// The newest offset sync of each source partition the replication copies, read from
/// MirrorMaker's offset-syncs topic on the source under `grant`.
async fn offset_syncs(
    grant: &Grant, spec: &Spec, source: &ClusterEntry,
) -> Result<HashMap<(String, i32), OffsetSync>, String> {
    let name = replication::offset_syncs_topic(&spec.target);
    let Some(topic) = source.topic_metadata(&name).map_err(|e| e.message)? else {
        return Ok(HashMap::new());
    };
    let read = crate::records::for_replication(
        grant,
        &resource(&spec.name),
        &source.link(),
        &topic,
        None,
        MAX_STATE_RECORDS,
        MAX_STATE_BYTES,
    )
    .await
    .map_err(|e| {
        format!("MirrorMaker's offset syncs ({name} on {}): {}", source.name, e.message)
    })?;
    let mut newest = HashMap::new();
    for r in read {
        let (Some(key), Some(value)) = (&r.key, &r.value) else { continue };
        if let Some(sync) = mirror::offset_sync(key, value).filter(|s| spec.copies(&s.topic)) {
            newest.insert((sync.topic.clone(), sync.partition), sync);
        }
    }
    Ok(newest)
}

/// Every partition the replication copies with how far it has come, and what could not be
/// read. With `ages`, the newest record of the first copies is read for its time.
async fn partitions(
    service: &Service, caller: &Caller, grant: &Grant, spec: &Spec, ages: bool,
) -> (Vec<ReplicatedPartition>, Vec<String>) {
    let mut errors = Vec::new();
    let found = |name: &str| cluster_entry(service, name).map_err(|e| e.message);
    let (source, target) = match (found(&spec.source), found(&spec.target)) {
        (Ok(s), Ok(t)) => (s, t),
        (s, t) => {
            errors.extend(s.err().into_iter().chain(t.err()));
            return (Vec::new(), errors);
        }
    };
    let (at_source, at_target) = (source.state(), target.state());
    let Some(metadata) = at_source.metadata.clone() else {
        errors.push(format!("klens has not read cluster \"{}\" yet", spec.source));
        return (Vec::new(), errors);
    };
    let syncs = offset_syncs(grant, spec, source).await.unwrap_or_else(|e| {
        errors.push(e);
        HashMap::new()
    });
    // A topic is listed only where the caller sees it at both ends, as each cluster's catalog
    // shows it to them: a scoped catalog hides a copied topic here as everywhere.
    let sees = |cluster: &str, topic: &str, internal: bool| {
        service
            .access(caller, cluster)
            .is_ok_and(|a| a.sees(&Resource::Topic { name: topic.to_string(), internal }))
    };
    let mut out = Vec::new();
    for topic in metadata.topics.iter().filter(|t| spec.copies(&t.name)) {
        let copy = spec.target_topic(&topic.name);
        if !sees(&spec.source, &topic.name, topic.internal) || !sees(&spec.target, &copy, false) {
            continue;
        }
        for p in &topic.partitions {
            let marks = at_source.watermarks.get(&(topic.name.clone(), p.id)).copied();
            let target_end = at_target.watermarks.get(&(copy.clone(), p.id)).map(|m| m.1);
            let sync = syncs.get(&(topic.name.clone(), p.id));
            let (replicated_to, lag) = progress(marks, sync, target_end);
            out.push(ReplicatedPartition {
                topic: topic.name.clone(),
                target_topic: copy.clone(),
                partition: p.id,
                source_end: marks.map(|m| m.1),
                replicated_to,
                lag,
                target_end,
                newest_age_ms: None,
            });
            if out.len() >= MAX_PARTITIONS {
                errors.push(format!("only the first {MAX_PARTITIONS} partitions are shown"));
                return (out, errors);
            }
        }
    }
    out.sort_by(|a, b| (&a.topic, a.partition).cmp(&(&b.topic, b.partition)));
    if ages {
        let now = now_ms();
        for p in out.iter_mut().filter(|p| p.target_end.is_some_and(|e| e > 0)).take(MAX_AGES) {
            let Ok(Some(topic)) = target.topic_metadata(&p.target_topic) else { continue };
            let newest = crate::records::for_replication(
                grant,
                &resource(&spec.name),
                &target.link(),
                &topic,
                Some(p.partition),
                1,
                u64::MAX,
            )
            .await;
            p.newest_age_ms = newest
                .ok()
                .and_then(|r| r.last().and_then(|r| r.timestamp))
                .map(|t| now.saturating_sub(t).max(0));
        }
    }
    (out, errors)
}

/// The sum of the partitions' lag, when every one is known; none without a partition (the
/// source's catalog may not list a new topic yet, and a zero would say it is copied).
fn total_lag(partitions: &[ReplicatedPartition]) -> Option<u64> {
    if partitions.is_empty() {
        return None;
    }
    partitions.iter().map(|p| p.lag).sum()
}

/// The newest checkpoint of each group, copy and partition the replication checkpoints, read
/// from MirrorMaker's checkpoints topic on the target under `grant`; `group` narrows to one.
async fn checkpoints(
    grant: &Grant, spec: &Spec, target: &ClusterEntry, group: Option<&str>,
) -> Result<Vec<Checkpoint>, String> {
    let name = replication::checkpoints_topic(&spec.source);
    let Some(topic) = target.topic_metadata(&name).map_err(|e| e.message)? else {
        return Ok(Vec::new());
    };
    let read = crate::records::for_replication(
        grant,
        &resource(&spec.name),
        &target.link(),
        &topic,
        None,
        MAX_STATE_RECORDS,
        MAX_STATE_BYTES,
    )
    .await
    .map_err(|e| format!("MirrorMaker's checkpoints ({name} on {}): {}", target.name, e.message))?;
    let mut newest: BTreeMap<(String, String, i32), Checkpoint> = BTreeMap::new();
    for r in read {
        let (Some(key), Some(value)) = (&r.key, &r.value) else { continue };
        let Some(c) = mirror::checkpoint(key, value) else { continue };
        let ours = spec.checkpoints(&c.group, &c.topic) && group.is_none_or(|g| g == c.group);
        if ours {
            let key = (c.group.clone(), c.topic.clone(), c.partition);
            newest.insert(
                key,
                Checkpoint {
                    group: c.group,
                    topic: c.topic,
                    partition: c.partition,
                    upstream: c.upstream,
                    downstream: c.downstream,
                    at: r.timestamp,
                },
            );
        }
    }
    Ok(newest.into_values().collect())
}

/// The replications the caller sees (REPLICATIONS on them on `cluster`) that copy `topic` of
/// `cluster` elsewhere, or made it as a copy, with the other end of each.
pub fn touching_topic(
    service: &Service, caller: &Caller, cluster: &str, topic: &str,
) -> Vec<app::api::ReplicationRef> {
    let Ok(access) = service.access(caller, cluster) else {
        return Vec::new();
    };
    if !access.can(Privilege::Replications) {
        return Vec::new();
    }
    let mut found = Vec::new();
    for f in everything(service).iter().filter(|f| visible(&access, f)) {
        let spec = &f.spec;
        let at = |direction: &str, cluster: &str, topic: String| app::api::ReplicationRef {
            name: spec.name.clone(),
            direction: direction.to_string(),
            cluster: cluster.to_string(),
            topic,
        };
        if spec.source == cluster && spec.copies(topic) {
            found.push(at("copied_to", &spec.target, spec.target_topic(topic)));
        }
        if spec.target == cluster {
            if let Some(from) = spec.source_topic(topic).filter(|t| spec.copies(t)) {
                found.push(at("copied_from", &spec.source, from.to_string()));
            }
        }
    }
    found
}

/// The caller's access to `cluster`, refused unless REPLICATIONS is held somewhere on it.
fn replications_access(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<ClusterAccess, ApiError> {
    held(service.access(caller, cluster)?, cluster, Privilege::Replications)
}

pub async fn replications(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<ReplicationList, ApiError> {
    let read = async {
        let access = replications_access(service, caller, cluster)?;
        // Reading MirrorMaker's offset syncs is a read of records: it counts against the
        // expensive reads.
        let _running = service.reads.admit(caller)?;
        let seen: Vec<Found> =
            everything(service).into_iter().filter(|f| visible(&access, f)).collect();
        let mut errors = Vec::new();
        let statuses: Vec<_> = stream::iter(seen)
            .map(|found| async move {
                let action = Action::new(Privilege::Replications, resource(&found.spec.name));
                let granted = service.decide(caller, cluster, action)?;
                let (parts, errors) =
                    partitions(service, caller, &granted.grant, &found.spec, false).await;
                Ok::<_, ApiError>((summarize(&found, total_lag(&parts), parts.len()), errors))
            })
            .buffered(PARALLEL)
            .collect()
            .await;
        let mut replications = Vec::new();
        for status in statuses {
            let (summary, more) = status?;
            errors.extend(more.into_iter().map(|e| format!("{}: {e}", summary.name)));
            replications.push(summary);
        }
        // Only the Connect clusters of clusters where the caller may see replications.
        let seen = service.catalog.clusters().iter().filter(|entry| {
            service.access(caller, &entry.name).is_ok_and(|a| a.can(Privilege::Replications))
        });
        for entry in seen {
            for (connect, part) in &entry.state().connect {
                if let Some(error) = &part.error {
                    errors
                        .push(format!("Connect cluster \"{connect}\" of {}: {error}", entry.name));
                }
            }
        }
        Ok(ReplicationList {
            cluster: cluster.to_string(),
            replications,
            lag_threshold: LAG_THRESHOLD,
            errors,
            served_at: now_ms(),
        })
    };
    let args = serde_json::json!({});
    service.audited_read(caller, cluster, Privilege::Replications, &args, read).await
}

/// The replication `name` into `target`, for a change decided on its name there (MANAGE_ or
/// REPLICATION_OFFSETS need no REPLICATIONS besides), else `NOT_FOUND`.
fn find_into(service: &Service, name: &str, target: &str) -> Result<Found, ApiError> {
    everything(service)
        .into_iter()
        .find(|f| f.spec.name == name && f.spec.target == target)
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "There is no replication \"{name}\" into cluster \"{target}\"."
            ))
        })
}

/// The replication `name` into or out of `cluster` that `access` sees, else `NOT_FOUND`, the
/// same whether it is hidden or absent.
fn find(service: &Service, access: &ClusterAccess, name: &str) -> Result<Found, ApiError> {
    everything(service).into_iter().find(|f| f.spec.name == name && visible(access, f)).ok_or_else(
        || {
            ApiError::not_found(format!(
                "There is no replication \"{name}\" into or out of cluster \"{}\".",
                access.name
            ))
        },
    )
}

pub async fn replication(
    service: &Service, caller: &Caller, cluster: &str, name: Arg<String>,
) -> Result<ReplicationDetail, ApiError> {
    let args = serde_json::json!({ "name": name });
    let read = async {
        let access = replications_access(service, caller, cluster)?;
        let named = name.given().cloned().unwrap_or_default();
        let granted = service.decide(
            caller,
            cluster,
            Action::new(Privilege::Replications, resource(&named)),
        )?;
        let name = name.required("name")?;
        let found = find(service, &access, &name)?;
        let spec = &found.spec;
        let _running = service.reads.admit(caller)?;
        let (parts, mut errors) = partitions(service, caller, &granted.grant, spec, true).await;
        let checkpoints = match cluster_entry(service, &spec.target) {
            Ok(target) => checkpoints(&granted.grant, spec, target, None).await,
            Err(e) => Err(e.message),
        }
        .unwrap_or_else(|e| {
            errors.push(e);
            Vec::new()
        });
        // A group's checkpoints only where the caller's view of the target shows the group (by
        // its name, or through the topic it read).
        let target_access = service.access(caller, &spec.target).ok();
        let checkpoints: Vec<Checkpoint> = checkpoints
            .into_iter()
            .filter(|c| {
                let group = Resource::group_on(c.group.clone(), [c.topic.clone()]);
                target_access.as_ref().is_some_and(|a| a.sees(&group))
            })
            .collect();
        // The topics Connect says MirrorMaker's connectors used (it tracks what a source
        // writes: topics of the target), as far as the caller's catalog of the target shows them.
        let sees =
            |topic: &str| target_access.as_ref().is_some_and(|a| a.sees(&Resource::topic(topic)));
        let connectors: Vec<ConnectorSummary> = found
            .connectors
            .iter()
            .map(|(_, c)| {
                let mut shown = summary(&spec.connect, c, true);
                shown.topics.retain(|t| sees(t));
                shown
            })
            .collect();
        Ok(ReplicationDetail {
            cluster: cluster.to_string(),
            replication: summarize(&found, total_lag(&parts), parts.len()),
            partitions: parts,
            checkpoints,
            connectors,
            errors,
            lag_threshold: LAG_THRESHOLD,
            served_at: now_ms(),
        })
    };
    service.audited_read(caller, cluster, Privilege::Replications, &args, read).await
}

fn cluster_entry<'a>(
    service: &'a Service, name: &str,
) -> Result<&'a std::sync::Arc<ClusterEntry>, ApiError> {
    service.catalog.get(name).ok_or_else(|| ApiError::unknown_cluster(name))
}

/// A change to a replication starts on a writable target.
fn writable_access(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<ClusterAccess, ApiError> {
    let access = service.access(caller, cluster)?;
    if !access.writable {
        return Err(ApiError::read_only_cluster(cluster));
    }
    Ok(access)
}

/// The four checks of a create or update, in replication.md's order, each refusal naming what
/// is missing: the target writable; MANAGE_REPLICATIONS on the target for this name; the
/// Connect cluster covered; REPLICATE_FROM on the source. The grant is the third's.
fn four_checks(
    service: &Service, caller: &Caller, args: &ReplicationArgs,
) -> Result<Granted, ApiError> {
    let target = &args.cluster;
    writable_access(service, caller, target)?;
    let name = args.name.given().cloned().unwrap_or_default();
    let manage = |connect: Option<String>| {
        let on = Resource::Replication { name: name.clone(), connect };
        service.decide(caller, target, Action::new(Privilege::ManageReplications, on))
    };
    manage(None)?;
    let granted = manage(Some(args.connect.given().cloned().unwrap_or_default()))?;
    let source = args.source.given().cloned().unwrap_or_default();
    service.decide(caller, &source, Action::new(Privilege::ReplicateFrom, Resource::Cluster))?;
    Ok(granted)
}

/// The replication the arguments describe, judged: its name, the clusters' `mirror`
/// settings, the Connect cluster, the patterns; then beside every other replication.
fn judged(
    service: &Service, args: &ReplicationArgs, creating: bool,
) -> Result<(Spec, replication::Connectors, Option<Found>), ApiError> {
    let name = args.name.clone().required("name")?;
    if let Some(problem) = replication::name_problem(&name) {
        return Err(ApiError::bad_request("name", format!("This name cannot be used: {problem}.")));
    }
    let source = args.source.clone().required("source")?;
    let connect = args.connect.clone().required("connect")?;
    let patterns = |arg: &Arg<Vec<String>>, field: &str| -> Result<Vec<String>, ApiError> {
        let list = arg.clone().optional(field)?.unwrap_or_default();
        if list.len() > replication::MAX_PATTERNS {
            return Err(ApiError::bad_request(
                field,
                format!("Name at most {} patterns.", replication::MAX_PATTERNS),
            ));
        }
        for glob in &list {
            if let Some(problem) = replication::pattern_problem(glob) {
                return Err(ApiError::bad_request(field, format!("\"{glob}\": {problem}.")));
            }
        }
        Ok(list)
    };
    let topics = patterns(&args.topics, "topics")?;
    if topics.is_empty() {
        return Err(ApiError::bad_request("topics", "Name the topics to copy (globs allowed)."));
    }
    let spec = Spec {
        name: name.clone(),
        source: source.clone(),
        target: args.cluster.clone(),
        connect: connect.clone(),
        topics,
        exclude: patterns(&args.exclude, "exclude")?,
        naming: args.naming.clone().optional("naming")?.unwrap_or(Naming::Prefix),
        sync_configs: args.sync_configs.clone().or("sync_configs", true)?,
        groups: patterns(&args.groups, "groups")?,
    };
    let mirror_of = |cluster: &str| {
        cluster_entry(service, cluster)?.mirror.clone().ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotConfigured,
                format!(
                    "Cluster \"{cluster}\" has no mirror.properties in klens's config, so \
                     MirrorMaker cannot reach it."
                ),
            )
        })
    };
    let (from, into) = (mirror_of(&source)?, mirror_of(&args.cluster)?);
    connect_client(service, &args.cluster, &connect)?;
    let all = everything(service);
    let before = all.iter().find(|f| f.spec.name == name).cloned();
    match (&before, creating) {
        (Some(_), true) => {
            return Err(ApiError {
                flavor: Flavor::ConflictOrTimeout,
                ..ApiError::new(
                    ErrorCode::Admin,
                    format!(
                        "A replication named \"{name}\" exists already; names are unique across \
                         klens."
                    ),
                )
            })
        }
        (None, false) => {
            return Err(ApiError::not_found(format!(
                "There is no replication \"{name}\" into cluster \"{}\".",
                args.cluster
            )))
        }
        (Some(f), false) if f.spec.target != args.cluster => {
            return Err(ApiError::not_found(format!(
                "There is no replication \"{name}\" into cluster \"{}\".",
                args.cluster
            )))
        }
        (Some(f), false) if f.spec.source != source || f.spec.connect != connect => {
            return Err(ApiError::bad_request(
                "source",
                "A replication keeps its source and its Connect cluster; create another for a \
                 new pair.",
            ))
        }
        _ => {}
    }
    let others: Vec<Spec> = all.into_iter().map(|f| f.spec).collect();
    if let Some((field, problem)) = spec.problem(&others) {
        return Err(ApiError::bad_request(field, problem));
    }
    let connectors = spec.connectors(&from, &into);
    Ok((spec, connectors, before))
}

/// Refused unless every topic of the source the replication copies now, that is masked for
/// the caller, lands in a copy masked the same way on the target (`TopicMask::hides_as`, the
/// rule a copy of records follows): MirrorMaker copies bytes, so a replication would otherwise
/// carry a masked topic's values out unmasked. The source's topics are read from its catalog;
/// a topic made later under the same patterns is masked by the operator's rules or not at all.
fn masks_kept(service: &Service, caller: &Caller, spec: &Spec) -> Result<(), ApiError> {
    let Some(entry) = service.catalog.get(&spec.source) else {
        return Ok(());
    };
    let state = entry.state();
    let topics = state.metadata.iter().flat_map(|m| m.topics.iter().map(|t| t.name.clone()));
    for topic in topics.filter(|t| spec.copies(t)) {
        let Some(mask) = service.mask(caller, &spec.source, &topic) else {
            continue;
        };
        let copy = spec.target_topic(&topic);
        let alike =
            service.mask(caller, &spec.target, &copy).is_some_and(|there| there.hides_as(&mask));
        if !alike {
            return Err(ApiError {
                privilege: Some(Privilege::Unmask),
                field: Some("topics".into()),
                ..ApiError::new(
                    ErrorCode::MissingPrivilege,
                    format!(
                        "Topic \"{topic}\" of cluster \"{}\" is masked for you, and its copy \
                         \"{copy}\" would not hide its records the same way: replicating it \
                         needs the UNMASK privilege on \"{topic}\", or exclude it.",
                        spec.source
                    ),
                )
            });
        }
    }
    Ok(())
}

/// Creates a replication (`creating`) or replaces what an existing one copies and how. The
/// four checks come first ([`four_checks`]), then the arguments; Connect validates every
/// connector's config before any is created or changed.
async fn configure(
    service: &Service, caller: &Caller, args: ReplicationArgs, creating: bool,
) -> Result<ReplicationConfigured, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::ManageReplications, &args, &[]);
    let write = async {
        let mut granted = four_checks(service, caller, &args)?;
        // Judged and made one at a time across replicas, on what Connect holds now.
        let configured = async {
            let (spec, connectors, before) = judged(service, &args, creating)?;
            masks_kept(service, caller, &spec)?;
            let dry_run = args.dry_run.clone().or("dry_run", false)?;
            let client = connect_client(service, &spec.target, &spec.connect)?;
            let on = Resource::Replication {
                name: spec.name.clone(),
                connect: Some(spec.connect.clone()),
            };
            // A name Connect has already, not as this replication's: never taken over.
            let own: Vec<&str> = before
                .iter()
                .flat_map(|f| f.connectors.iter().map(|(_, c)| c.name.as_str()))
                .collect();
            for (connector, _) in connectors.iter().filter(|(n, _)| !own.contains(&n.as_str())) {
                if client.connector(connector).await.map_err(crate::rest::api_error)?.is_some() {
                    return Err(ApiError {
                        flavor: Flavor::ConflictOrTimeout,
                        ..ApiError::new(
                            ErrorCode::Admin,
                            format!(
                            "Connect cluster \"{}\" has a connector named \"{connector}\" already; \
                             choose another replication name.",
                            spec.connect
                        ),
                        )
                    });
                }
            }
            // A dry run is a write attempt too: recorded before Connect sees the configs.
            service.open(&mut granted.grant).await?;
            let (mut error_count, mut all_verdicts) = (0, Vec::new());
            for (connector, config) in &connectors {
                let mut body = config.clone();
                body.insert("name".into(), connector.clone());
                let body = serde_json::to_value(&body).unwrap_or_default();
                let class = config.get("connector.class").cloned().unwrap_or_default();
                let validation = validate(&client, &granted.grant, &on, &class, &body).await?;
                error_count += validation.error_count;
                all_verdicts.extend(
                    verdicts(validation).into_iter().filter(|v| !v.errors.is_empty()).map(
                        |mut v| {
                            v.name = format!("{connector}: {}", v.name);
                            v
                        },
                    ),
                );
            }
            let mut answer = ReplicationConfigured {
                cluster: spec.target.clone(),
                name: spec.name.clone(),
                dry_run,
                connectors: connectors.iter().map(|(n, _)| n.clone()).collect(),
                error_count,
                verdicts: all_verdicts,
                applied: false,
            };
            if dry_run {
                return Ok(answer);
            }
            if error_count > 0 {
                let said: Vec<String> = answer
                    .verdicts
                    .iter()
                    .take(3)
                    .map(|v| format!("{}: {}", v.name, v.errors.join(" ")))
                    .collect();
                return Err(ApiError::bad_request(
                    "topics",
                    format!(
                        "Connect finds {error_count} errors in MirrorMaker's configs, so nothing \
                     changed: {}",
                        said.join("; ")
                    ),
                ));
            }
            for (connector, config) in &connectors {
                let body = serde_json::to_value(config).unwrap_or_default();
                let _: serde_json::Value = client
                    .send_json(
                        &granted.grant,
                        &on,
                        Method::PUT,
                        &["connectors", connector, "config"],
                        &[],
                        Some(&body),
                    )
                    .await?;
            }
            // Groups no longer named: the checkpoint connector goes.
            let kept: Vec<&String> = connectors.iter().map(|(n, _)| n).collect();
            let dropped: Vec<String> = before
                .iter()
                .flat_map(|f| f.connectors.iter().map(|(_, c)| c.name.clone()))
                .filter(|n| !kept.contains(&n))
                .collect();
            for connector in &dropped {
                let _: serde_json::Value = client
                    .send_json(
                        &granted.grant,
                        &on,
                        Method::DELETE,
                        &["connectors", connector],
                        &[],
                        None,
                    )
                    .await?;
                granted.entry.apply_connector(&spec.connect, connector, None);
            }
            for connector in kept {
                read_back(&client, &granted.entry, &spec.connect, connector).await;
            }
            answer.applied = true;
            Ok(answer)
        };
        one_at_a_time(service, configured).await
    };
    service.audited(caller, attempt, |_| None, write).await
}

/// One change to a whole replication.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Change {
    Pause,
    Resume,
    Delete,
}

/// Pauses, resumes or deletes every connector of a replication into `args.cluster`: decided
/// writable → MANAGE_REPLICATIONS on it, then found (else `NOT_FOUND`), recorded before Connect
/// sees it, then read back into the catalog.
async fn change(
    service: &Service, caller: &Caller, args: ReplicationName, change: Change,
) -> Result<ReplicationChanged, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::ManageReplications, &args, &[]);
    let cluster = args.cluster.clone();
    let write = async {
        writable_access(service, caller, &cluster)?;
        let named = args.name.given().cloned().unwrap_or_default();
        let action = Action::new(Privilege::ManageReplications, resource(&named));
        let mut granted = service.decide(caller, &cluster, action)?;
        let changed = async {
            let name = args.name.clone().required("name")?;
            let found = find_into(service, &name, &cluster)?;
            let connect = found.spec.connect.clone();
            let client = connect_client(service, &cluster, &connect)?;
            let on = resource(&name);
            service.open(&mut granted.grant).await?;
            for (_, c) in &found.connectors {
                let (method, path): (Method, Vec<&str>) = match change {
                    Change::Pause => (Method::PUT, vec!["connectors", &c.name, "pause"]),
                    Change::Resume => (Method::PUT, vec!["connectors", &c.name, "resume"]),
                    Change::Delete => (Method::DELETE, vec!["connectors", &c.name]),
                };
                client.change(&granted.grant, &on, method, &path, &[]).await?;
            }
            let mut states = Vec::new();
            for (_, c) in &found.connectors {
                let fresh = match change {
                    Change::Delete => Ok(None),
                    _ => client.connector(&c.name).await,
                };
                if let Ok(fresh) = fresh {
                    states.extend(fresh.as_ref().map(|f| f.state.clone()));
                    granted.entry.apply_connector(&connect, &c.name, fresh);
                }
            }
            let action = match change {
                Change::Pause => "pause",
                Change::Resume => "resume",
                Change::Delete => "delete",
            };
            // Right after a pause or resume Connect may still say the old state of one connector.
            let state = states.first().cloned();
            Ok(ReplicationChanged { cluster: cluster.clone(), name, action: action.into(), state })
        };
        one_at_a_time(service, changed).await
    };
    service.audited(caller, attempt, |_| None, write).await
}

/// Fails a group over into the target: its offsets there moved to where the checkpoints
/// translate its offsets on the source. Decided writable → REPLICATION_OFFSETS on the
/// replication, then found, the group judged (one the replication checkpoints), the plan made
/// from the newest checkpoints and the group as its coordinator describes it now; applied only
/// from a plan sent back that is still current, while the group has no members.
pub async fn failover(
    service: &Service, caller: &Caller, args: FailoverArgs,
) -> Result<OffsetPlan, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::ReplicationOffsets, &args, &["plan"]);
    let outcome = |p: &OffsetPlan| {
        Some(
            serde_json::json!({ "applied": p.applied, "stale": p.stale, "partitions": p.partitions.len() }),
        )
    };
    let cluster = args.cluster.clone();
    let write = async {
        writable_access(service, caller, &cluster)?;
        let named = args.name.given().cloned().unwrap_or_default();
        let action = Action::new(Privilege::ReplicationOffsets, resource(&named));
        let mut granted = service.decide(caller, &cluster, action)?;
        let name = args.name.clone().required("name")?;
        let group = args.group.clone().required("group")?;
        let dry_run = args.dry_run.clone().or("dry_run", false)?;
        let sent = args.plan.clone().optional("plan")?;
        if !dry_run && sent.is_none() {
            return Err(ApiError::bad_request(
                "plan",
                "To fail a group over, send the plan its dry run answered; klens applies exactly \
                 that plan.",
            ));
        }
        let found = find_into(service, &name, &cluster)?;
        let spec = &found.spec;
        if group.is_empty() || group.len() > 255 {
            return Err(ApiError::bad_request("group", "A group id is 1 to 255 characters."));
        }
        if !spec.groups.iter().any(|g| app::access::glob_matches(g, &group)) {
            return Err(ApiError::bad_request(
                "group",
                format!("Replication \"{name}\" does not checkpoint group \"{group}\"."),
            ));
        }
        // The plan reads MirrorMaker's checkpoints under this grant: a dry run is an attempt
        // too, recorded before anything is read.
        service.open(&mut granted.grant).await?;
        let entry = std::sync::Arc::clone(&granted.entry);
        let translated = checkpoints(&granted.grant, spec, &entry, Some(&group))
            .await
            .map_err(|e| ApiError::new(ErrorCode::Client, e))?;
        if translated.is_empty() {
            return Err(ApiError::not_found(format!(
                "MirrorMaker has no checkpoint of group \"{group}\" yet: it writes them once the \
                 group has committed offsets on copied topics."
            )));
        }
        let known = entry.known_brokers_now();
        let kind = entry
            .state()
            .groups
            .data
            .as_ref()
            .and_then(|g| g.iter().find(|g| g.id == group).map(|g| g.kind.clone()))
            .unwrap_or_else(|| "classic".into());
        let (now, coordinator) =
            admin::groups::group_now_or_new(&entry.link(), &known, &group, &kind).await?;
        admin::groups::refuse_members(&now, "fail it over")?;
        let plan = failover_plan(&entry, &now, &translated).await?;
        let answer = |applied, stale, partitions| {
            OffsetPlan::of(&cluster, &group, applied, stale, partitions)
        };
        let Some(sent) = sent.filter(|_| !dry_run) else {
            return Ok(answer(false, false, plan));
        };
        // Applied only as planned: the same partitions, each from the offset it starts from now
        // and to the offset the newest checkpoints give now. Anything else is a stale plan.
        if !replication::plan_holds(&sent, &plan) {
            return Ok(answer(false, true, plan));
        }
        let commit = granted.grant.for_failover(&group)?;
        admin::groups::commit_plan(&commit, &entry.link(), &coordinator, &group, &sent).await?;
        let fresh = admin::groups::group_at(&entry.link(), &coordinator, &group, &kind).await;
        entry.apply_group(&group, fresh.ok());
        Ok(answer(true, false, plan))
    };
    service.audited(caller, attempt, outcome, write).await
}

/// Each checkpointed partition's move: from the group's committed offset on the target now to
/// the translated one, held within the partition's records.
async fn failover_plan(
    entry: &ClusterEntry, group: &crate::kafka::wire::Group, translated: &[Checkpoint],
) -> Result<Vec<OffsetMove>, ApiError> {
    let mut topics: Vec<crate::kafka::Topic> = Vec::new();
    for c in translated {
        if topics.iter().any(|t| t.name == c.topic) {
            continue;
        }
        if let Some(topic) = entry.topic_metadata(&c.topic)? {
            topics.push(topic);
        }
    }
    let clients = entry.link().clients()?;
    let marks = crate::kafka::blocking("reading offsets", move || {
        clients.fetch_watermarks(&topics, crate::kafka::WATERMARK_TIMEOUT)
    })
    .await
    .map_err(ApiError::from)?;
    let committed: HashMap<(&str, i32), i64> =
        group.offsets.iter().map(|(t, p, o)| ((t.as_str(), *p), *o)).collect();
    let mut plan = Vec::new();
    for c in translated {
        let Some(&(low, end)) = marks.get(&(c.topic.clone(), c.partition)) else { continue };
        let from = committed.get(&(c.topic.as_str(), c.partition)).copied();
        let to = c.downstream.clamp(low.min(end), end);
        plan.push(admin::groups::movement(&c.topic, c.partition, from, to, low, end));
    }
    Ok(plan)
}

// The server functions this capability answers.
serves!(app::api::Replications, |s, c, a| replications(&s, &c, &a.cluster));
serves!(app::api::Replication, |s, c, a| replication(&s, &c, &a.cluster, a.name));
serves!(app::api::CreateReplication, |s, c, a| configure(&s, &c, a.args, true));
serves!(app::api::UpdateReplication, |s, c, a| configure(&s, &c, a.args, false));
serves!(app::api::PauseReplication, |s, c, a| change(&s, &c, a.args, Change::Pause));
serves!(app::api::ResumeReplication, |s, c, a| change(&s, &c, a.args, Change::Resume));
serves!(app::api::DeleteReplication, |s, c, a| change(&s, &c, a.args, Change::Delete));
serves!(app::api::FailoverGroup, |s, c, a| failover(&s, &c, a.args));
