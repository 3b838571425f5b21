//! `/c/{cluster}/topics/{topic}`: the Overview of one topic (facts, the partition-skew picture,
//! partitions) with its changes where the caller may make them (never on an internal topic):
//! Add partitions, Delete records and Delete topic; `/consumers`: the groups that read it; and
//! the tabs every page of a topic shares.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_params_map};

use super::flow::FlowLink;
use super::groups::state_badge;
use super::produce::ProduceRecord;
use super::topic_changes::{AddPartitions, DeleteRecords};
use crate::api::{delete_topic, topic, PartitionDetail, TopicConsumer};
use crate::components::access::allows;
use crate::components::change::ConfirmSheet;
use crate::components::page::{tab_bar, use_changes, CallerAccess, Loaded, Notice};
use crate::components::table::{Col, DataTable, Freshness, LagBar, Sparkline};
use crate::components::use_cluster;
use crate::format::{bytes, or_dash, page_url, query_value, rate, thousands};
use crate::Privilege;

/// The tabs of a topic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopicTab {
    Overview,
    Data,
    Configuration,
    Consumers,
}

/// The tab bar every page of a topic shows.
#[component]
pub fn TopicTabs(cluster: String, topic: String, current: TopicTab) -> impl IntoView {
    let base = format!("/c/{}/topics/{}", query_value(&cluster), query_value(&topic));
    let tabs = [
        (TopicTab::Overview, "", "Overview"),
        (TopicTab::Data, "/data", "Data"),
        (TopicTab::Configuration, "/configuration", "Configuration"),
        (TopicTab::Consumers, "/consumers", "Consumers"),
    ];
    tab_bar("Topic", &base, current, &tabs)
}

#[component]
pub fn TopicPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = use_cluster();
    let name = move || params.read().get("topic").unwrap_or_default();
    let detail = Resource::new(move || (cluster(), name()), |(c, t)| topic(c, t.into()));
    // A change says what it did here, and the topic is read again (its watermarks or
    // partitions moved).
    let (notice, changed) = use_changes(move || detail.refetch());
    view! {
        <Title text=name />
        <Loaded of=detail keep=true named=Signal::derive(name) ok=move |t: crate::api::TopicDetail, access: CallerAccess| {
            let topic = crate::access::Resource::topic(name());
            let may = |privilege| allows(access.get(), privilege, &topic);
            let open = !t.internal;
            let (write, add, cut, delete) = (
                open && may(Privilege::Produce),
                open && may(Privilege::AddPartitions),
                open && may(Privilege::DeleteRecords),
                open && may(Privilege::DeleteTopics),
            );
            let count = t.partitions.len();
            view! {
                <div class="page-head">
                    <h1 class="mono">{t.name.clone()}</h1>
                    {t.internal.then(|| view! { <span class="badge">"Internal"</span> })}
                    <div class="actions">
                        {may(Privilege::Topology).then(|| view! { <FlowLink cluster=cluster() kind="topic" name=t.name.clone() /> })}
                        {write.then(|| view! { <ProduceRecord cluster=cluster() topic=t.name.clone() partitions=Some(count) label="Produce record" /> })}
                        {add.then(|| view! { <AddPartitions cluster=cluster() topic=t.name.clone() current=count on_done=changed /> })}
                        {cut.then(|| view! { <DeleteRecords cluster=cluster() topic=t.name.clone() partitions=count on_done=changed /> })}
                        {delete.then(|| view! { <DeleteTopic cluster=cluster() topic=t.name.clone() /> })}
                    </div>
                </div>
                <TopicTabs cluster=cluster() topic=t.name.clone() current=TopicTab::Overview />
                <Notice notice=notice />
                <dl class="facts">
                    <div><dt>"Partitions"</dt><dd>{count}</dd></div>
                    <div><dt>"Records"</dt><dd>{or_dash(records_of(&t.partitions), thousands)}</dd></div>
                    <div><dt>"Size"</dt><dd data-figure="size">{or_dash(t.size_bytes, bytes)}</dd></div>
                    <div><dt>"Consumer groups"</dt><dd>
                        <a href=format!("/c/{}/topics/{}/consumers", query_value(&cluster()), query_value(&t.name))>{t.consumers.len()}</a>
                    </dd></div>
                    {(!t.connectors.is_empty()).then(|| view! {
                        <div><dt>"Connectors"</dt><dd data-figure="connectors">
                            {t.connectors.iter().map(|c| view! {
                                <a class="mono" href=format!("/c/{}/connectors/{}/{}", query_value(&cluster()), query_value(&c.connect), query_value(&c.name))>{c.name.clone()}</a>
                                {format!(" ({}) ", c.kind)}
                            }).collect_view()}
                        </dd></div>
                    })}
                    {(!t.replications.is_empty()).then(|| view! {
                        <div><dt>"Replication"</dt><dd data-figure="replications">
                            {t.replications.iter().map(|r| view! {
                                <span>{if r.direction == "copied_to" { "copied to " } else { "a copy of " }}</span>
                                <a class="mono" href=page_url(&r.cluster, "topics", &r.topic)>{format!("{} on {}", r.topic, r.cluster)}</a>
                                " by "
                                <a href=format!("/c/{}/replications/{}", query_value(&cluster()), query_value(&r.name))>{r.name.clone()}</a>
                                " "
                            }).collect_view()}
                        </dd></div>
                    })}
                    <div><dt>"Produce rate"</dt><dd>
                        <span class="rate">
                            <Sparkline points=t.produce_trend.clone() label="Produce rate, last ten minutes" />
                            {or_dash(t.produce_rate, rate)}
                        </span>
                    </dd></div>
                </dl>
                <Freshness what="Metadata" at=t.refreshed_at served_at=t.served_at />
                <Skew partitions=t.partitions.clone() />
                <h2>"Partitions"</h2>
                <DataTable label="Partitions" cols=&[Col::Num("Partition"), Col::Num("Leader"), Col::Text("Replicas"), Col::Text("In sync"), Col::Num("Low"), Col::Num("High"), Col::Num("Records"), Col::Num("Size")]>
                    <tbody>
                        {t.partitions.into_iter().map(|p| view! {
                            <tr>
                                <td class="num mono">{p.partition}</td>
                                <td class="num mono">{if p.leader < 0 { "none".to_string() } else { p.leader.to_string() }}</td>
                                <td class="mono">{join(&p.replicas)}</td>
                                <td class="mono">{join(&p.isr)}</td>
                                <td class="num mono">{or_dash(p.low, |v| v.to_string())}</td>
                                <td class="num mono">{or_dash(p.high, |v| v.to_string())}</td>
                                <td class="num">{or_dash(held(&p), thousands)}</td>
                                <td class="num">{or_dash(p.size_bytes, bytes)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </DataTable>
            }.into_any()
        } />
    }
}

/// `/c/{cluster}/topics/{topic}/consumers`: the groups with committed offsets on the topic.
#[component]
pub fn TopicConsumersPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = use_cluster();
    let name = move || params.read().get("topic").unwrap_or_default();
    let detail = Resource::new(move || (cluster(), name()), |(c, t)| topic(c, t.into()));
    view! {
        <Title text=move || format!("Consumers of {}", name()) />
        <div class="page-head"><h1 class="mono">{name}</h1></div>
        <TopicTabs cluster=cluster() topic=name() current=TopicTab::Consumers />
        <Loaded of=detail ok=move |t: crate::api::TopicDetail, _| {
            view! {
                <Freshness what="Groups" at=t.groups_refreshed_at served_at=t.served_at />
                <Consumers cluster=cluster() rows=t.consumers />
            }.into_any()
        } />
    }
}

/// Records a partition holds: high minus low watermark, when both are known.
fn held(p: &PartitionDetail) -> Option<u64> {
    Some(u64::try_from(p.high? - p.low?).unwrap_or(0))
}

fn records_of(partitions: &[PartitionDetail]) -> Option<u64> {
    partitions.iter().map(held).sum()
}

/// Records and bytes per partition as bars, so that a hot or an empty partition stands out:
/// each bar is the partition's share of the largest, with the spread said in words.
#[component]
fn Skew(partitions: Vec<PartitionDetail>) -> impl IntoView {
    if partitions.len() < 2 {
        return ().into_any();
    }
    let rows: Vec<(i32, Option<u64>, Option<u64>)> =
        partitions.iter().map(|p| (p.partition, held(p), p.size_bytes)).collect();
    let strip = |label: &'static str, values: Vec<(i32, Option<u64>)>, show: fn(u64) -> String| {
        let known: Vec<u64> = values.iter().filter_map(|(_, v)| *v).collect();
        let max = known.iter().copied().max().unwrap_or(0);
        let summary = skew_summary(&known, show);
        view! {
            <figure class="skew" aria-label=format!("{label} per partition")>
                <figcaption>{label}" per partition: "{summary}</figcaption>
                <div class="skew-bars">
                    {values.into_iter().map(|(p, v)| {
                        let height = match (v, max) {
                            (Some(v), m) if m > 0 => (v as f64 / m as f64 * 100.0).max(1.0),
                            _ => 0.0,
                        };
                        let title = format!("Partition {p}: {}", or_dash(v, show));
                        view! {
                            <span class="skew-bar" class:skew-empty=v == Some(0) title=title.clone()
                                style=format!("height: {height:.1}%")>
                                <span class="visually-hidden">{title.clone()}</span>
                            </span>
                        }
                    }).collect_view()}
                </div>
            </figure>
        }
    };
    view! {
        <div class="skews">
            {strip("Records", rows.iter().map(|(p, r, _)| (*p, *r)).collect(), thousands)}
            {strip("Bytes", rows.iter().map(|(p, _, b)| (*p, *b)).collect(), bytes)}
        </div>
    }
    .into_any()
}

/// "largest 3× the mean, 2 empty" for the figures of the partitions.
fn skew_summary(values: &[u64], show: fn(u64) -> String) -> String {
    if values.is_empty() {
        return "not known".to_string();
    }
    let max = values.iter().copied().max().unwrap_or(0);
    let min = values.iter().copied().min().unwrap_or(0);
    let mean = values.iter().sum::<u64>() as f64 / values.len() as f64;
    let empty = values.iter().filter(|v| **v == 0).count();
    let mut out = format!("{} to {}", show(min), show(max));
    if mean > 0.0 {
        out.push_str(&format!(", largest {:.1}× the mean", max as f64 / mean));
    }
    if empty > 0 {
        out.push_str(&format!(", {empty} empty"));
    }
    out
}

/// The groups with committed offsets on the topic: each with its lag on the topic, then its
/// committed offset, the end and the lag on every partition, so a stuck partition shows.
#[component]
fn Consumers(cluster: String, rows: Vec<TopicConsumer>) -> impl IntoView {
    if rows.is_empty() {
        return view! { <p class="empty">"No consumer group has committed offsets on this topic."</p> }
            .into_any();
    }
    let max = rows.iter().flat_map(|c| c.offsets.iter().filter_map(|o| o.lag)).max().unwrap_or(0);
    view! {
        <DataTable label="Consumer groups" cols=&[Col::Text("Group"), Col::Text("State"), Col::Num("Partition"), Col::Num("Committed"), Col::Num("End"), Col::Num("Lag")]>
                        {rows.into_iter().map(|c| {
                let total = c.lag;
                view! {
                    <tbody data-group=c.group.clone()>
                        <tr class="group-row">
                            <th scope="row"><a class="mono" href=page_url(&cluster, "groups", &c.group)>{c.group.clone()}</a></th>
                            <td>{state_badge(&c.state)}</td>
                            <td class="num muted">{format!("{} partitions", c.offsets.len())}</td>
                            <td></td>
                            <td></td>
                            <td class="num"><strong class="lag-total">{or_dash(total, thousands)}</strong></td>
                        </tr>
                        {c.offsets.into_iter().map(|o| view! {
                            <tr data-partition=o.partition>
                                <td></td>
                                <td></td>
                                <td class="num mono">{o.partition}</td>
                                <td class="num mono">{o.committed.map_or_else(|| "none".to_string(), |c| c.to_string())}</td>
                                <td class="num mono">{or_dash(o.end, |e| e.to_string())}</td>
                                <td class="num"><LagBar lag=o.lag max=max /></td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                }
            }).collect_view()}
        </DataTable>
    }
    .into_any()
}

fn join(ids: &[i32]) -> String {
    ids.iter().map(i32::to_string).collect::<Vec<_>>().join(", ")
}

/// Delete topic: a button that opens a confirmation asking for the topic's name.
#[component]
fn DeleteTopic(cluster: String, topic: String) -> impl IntoView {
    let open = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let navigate = use_navigate();
    let target = StoredValue::new((cluster, topic.clone()));
    let delete = Action::new_local(move |_: &()| {
        let (cluster, topic) = target.get_value();
        async move { delete_topic(cluster, topic.into()).await }
    });
    Effect::new(move |_| {
        if let Some(result) = delete.value().get() {
            match result {
                Ok(done) => navigate(&format!("/c/{}/topics", done.cluster), Default::default()),
                Err(e) => error.set(Some(e.message)),
            }
        }
    });
    view! {
        <ConfirmSheet open=open error=error button="Delete topic" title="Delete topic"
            field="Topic name" name=topic
            warning="This deletes the topic and all its records.".to_string()
            pending=delete.pending().into() act=Callback::new(move |()| { delete.dispatch(()); }) />
    }
}
