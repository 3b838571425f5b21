//! `/c/{cluster}/groups/{group}`: members and their assignments, and per partition the committed
//! offset, the end offset and the lag; Reset offsets, Delete offsets and Delete group where the
//! caller may.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_params_map, use_query_map};

use super::flow::FlowLink;
use super::group_changes::{DeleteGroup, DeleteOffsets, ResetOffsets};
use super::groups::state_badge;
use crate::access::{ClusterAccess, Resource as Target};
use crate::api::{group, GroupDetail};
use crate::components::access::allows;
use crate::components::page::{use_changes, CallerAccess, Loaded, Notice};
use crate::components::table::{Col, DataTable, Freshness, LagBar};
use crate::components::use_cluster;
use crate::format::{or_dash, page_url, query_value, thousands};
use crate::Privilege;

/// Which group changes the caller may make here, and on which of its topics (a scoped
/// caller needs each topic covered too).
#[derive(Clone, Default)]
struct May {
    reset: bool,
    delete_offsets: bool,
    delete_group: bool,
    flow: bool,
    reset_topics: Vec<String>,
    delete_topics: Vec<String>,
}

impl May {
    fn of(access: Option<&ClusterAccess>, group: &GroupDetail) -> May {
        let on_group = |p| allows(access, p, &group.resource());
        let mut topics: Vec<String> = group.offsets.iter().map(|o| o.topic.clone()).collect();
        topics.dedup();
        let on_topics = |p| -> Vec<String> {
            topics
                .iter()
                .filter(|t| allows(access, p, &Target::topic(t.as_str())))
                .cloned()
                .collect()
        };
        May {
            reset: on_group(Privilege::ResetOffsets),
            delete_offsets: on_group(Privilege::DeleteOffsets),
            delete_group: on_group(Privilege::DeleteGroups),
            flow: access.is_some_and(|a| a.can(Privilege::Topology)),
            reset_topics: on_topics(Privilege::ResetOffsets),
            delete_topics: on_topics(Privilege::DeleteOffsets),
        }
    }
}

#[component]
pub fn GroupPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = use_cluster();
    let name = move || params.read().get("group").unwrap_or_default();
    // `?delete`: the Remove link of the group's node in a flow, which opens Delete group.
    let asked_delete = use_query_map().read_untracked().get("delete").is_some();
    let detail = Resource::new(move || (cluster(), name()), |(c, g)| group(c, g.into()));
    let (notice, changed) = use_changes(move || detail.refetch());
    let navigate = use_navigate();
    let gone = Callback::new(move |_: String| {
        navigate(&format!("/c/{}/groups", query_value(&cluster())), Default::default());
    });
    view! {
        <Title text=name />
        <Loaded of=detail keep=true named=Signal::derive(name) ok=move |g: GroupDetail, access: CallerAccess| {
            let may = May::of(access.get(), &g);
            view! {
                <GroupView cluster=cluster() group=g may=may changed=changed gone=gone notice=notice asked_delete=asked_delete />
            }.into_any()
        } />
    }
}

#[component]
fn GroupView(
    cluster: String, group: GroupDetail, may: May, changed: Callback<String>,
    gone: Callback<String>, notice: RwSignal<Option<String>>, asked_delete: bool,
) -> impl IntoView {
    let max = group.offsets.iter().filter_map(|o| o.lag).max().unwrap_or(0);
    let members = group.members.len();
    view! {
        <div class="page-head">
            <h1 class="mono">{group.group.clone()}</h1>
            {state_badge(&group.state)}
            <div class="actions">
                {may.flow.then(|| view! { <FlowLink cluster=cluster.clone() kind="group" name=group.group.clone() /> })}
                {may.reset.then(|| view! {
                    <ResetOffsets cluster=cluster.clone() group=group.group.clone() topics=may.reset_topics.clone() on_done=changed />
                })}
                {(may.delete_offsets && !may.delete_topics.is_empty()).then(|| view! {
                    <DeleteOffsets cluster=cluster.clone() group=group.group.clone() topics=may.delete_topics.clone() on_done=changed />
                })}
                {may.delete_group.then(|| view! {
                    <DeleteGroup cluster=cluster.clone() group=group.group.clone() on_done=gone start_open=asked_delete />
                })}
            </div>
        </div>
        <Notice notice=notice />
        <dl class="facts">
            <div><dt>"Members"</dt><dd>{thousands(members as u64)}</dd></div>
            <div><dt>"Total lag"</dt><dd data-figure="lag">{or_dash(group.lag, thousands)}</dd></div>
            <div><dt>"Coordinator"</dt><dd>
                <a href=page_url(&cluster, "brokers", &group.coordinator.to_string())>
                    {format!("broker {}", group.coordinator)}
                </a>
            </dd></div>
            <div><dt>"Protocol"</dt><dd>{if group.protocol_type.is_empty() { "—".to_string() } else { group.protocol_type.clone() }}</dd></div>
            {group.connector.clone().map(|c| view! {
                <div><dt>"Kafka Connect sink"</dt><dd>
                    <a class="mono" href=format!("/c/{}/connectors/{}/{}", query_value(&cluster), query_value(&c.connect), query_value(&c.name))>{c.name.clone()}</a>
                </dd></div>
            })}
        </dl>
        <Freshness what="Offsets" at=group.refreshed_at served_at=group.served_at
            error=group.error.clone().unwrap_or_default() />
        <h2>"Members"</h2>
        {if group.members.is_empty() {
            view! { <p class="empty">"No member is connected; the offsets below are what the group committed last."</p> }.into_any()
        } else {
            view! {
                <DataTable label="Members" cols=&[Col::Text("Member"), Col::Text("Client id"), Col::Text("Host"), Col::Text("Assigned partitions")]>
                    <tbody>
                        {group.members.into_iter().map(|m| {
                            let assigned = m.assignments.iter()
                                .map(|a| format!("{}-{}", a.topic, a.partition))
                                .collect::<Vec<_>>()
                                .join(", ");
                            view! {
                                <tr>
                                    <td class="mono">{m.member_id}</td>
                                    <td class="mono">{m.client_id}</td>
                                    <td class="mono">{m.host}</td>
                                    <td class="mono wrap">{if assigned.is_empty() { "—".to_string() } else { assigned }}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </DataTable>
            }.into_any()
        }}
        <h2>"Offsets"</h2>
        {if group.offsets.is_empty() {
            view! { <p class="empty">"The group has committed no offsets."</p> }.into_any()
        } else {
            view! {
                <DataTable label="Offsets" cols=&[Col::Text("Topic"), Col::Num("Partition"), Col::Num("Committed"), Col::Num("End"), Col::Num("Lag")]>
                    <tbody>
                        {group.offsets.into_iter().map(|o| view! {
                            <tr data-partition=format!("{}-{}", o.topic, o.partition)>
                                <th scope="row"><a class="mono" href=page_url(&cluster, "topics", &o.topic)>{o.topic.clone()}</a></th>
                                <td class="num mono">{o.partition}</td>
                                <td class="num mono">{match o.committed {
                                    Some(c) => thousands(u64::try_from(c).unwrap_or(0)).into_any(),
                                    None => view! { <span class="muted" title="The group has committed nothing on this partition; its lag counts every record the partition holds.">"none"</span> }.into_any(),
                                }}</td>
                                <td class="num mono">{or_dash(o.end, |e| thousands(u64::try_from(e).unwrap_or(0)))}</td>
                                <td class="num"><LagBar lag=o.lag max=max /></td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </DataTable>
            }.into_any()
        }}
    }
}
