//! `/c/{cluster}/topics/{topic}`: partitions of one topic, and Delete topic where the caller may
//! (never on an internal topic), confirmed by typing the name.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_params_map};

use super::data::TopicTabs;
use super::groups::state_badge;
use crate::api::{delete_topic, topic, TopicConsumer};
use crate::components::access::{allows, identity};
use crate::components::table::{Freshness, LagBar, Sparkline};
use crate::format::{bytes, or_dash, page_url, rate};
use crate::Privilege;

#[component]
pub fn TopicPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = move || params.read().get("cluster").unwrap_or_default();
    let name = move || params.read().get("topic").unwrap_or_default();
    let detail = Resource::new(move || (cluster(), name()), |(c, t)| topic(c, t.into()));
    let who = identity();
    view! {
        <Title text=name />
        <Suspense fallback=|| view! { <div class="skeleton-table"></div> }>
            {move || Suspend::new(async move {
                let may_delete = who
                    .await
                    .ok()
                    .is_some_and(|w| allows(w.cluster(&cluster()), Privilege::DeleteTopics));
                match detail.await {
                    Ok(t) => {
                        let deletable = may_delete && !t.internal;
                        view! {
                            <div class="page-head">
                                <h1 class="mono">{t.name.clone()}</h1>
                                {t.internal.then(|| view! { <span class="badge">"Internal"</span> })}
                                {deletable.then(|| view! { <DeleteTopic cluster=cluster() topic=t.name.clone() /> })}
                            </div>
                            <TopicTabs cluster=cluster() topic=t.name.clone() data=false />
                            <dl class="facts">
                                <div><dt>"Partitions"</dt><dd>{t.partitions.len()}</dd></div>
                                <div><dt>"Size"</dt><dd data-figure="size">{or_dash(t.size_bytes, bytes)}</dd></div>
                                <div><dt>"Consumer groups"</dt><dd>{t.consumers.len()}</dd></div>
                                <div><dt>"Produce rate"</dt><dd>
                                    <span class="rate">
                                        <Sparkline points=t.produce_trend.clone() label="Produce rate, last ten minutes" />
                                        {or_dash(t.produce_rate, rate)}
                                    </span>
                                </dd></div>
                            </dl>
                            <Freshness what="Metadata" at=t.refreshed_at served_at=t.served_at />
                            <h2>"Partitions"</h2>
                            <table class="data" aria-label="Partitions">
                                <thead>
                                    <tr>
                                        <th scope="col" class="num">"Partition"</th>
                                        <th scope="col" class="num">"Leader"</th>
                                        <th scope="col">"Replicas"</th>
                                        <th scope="col">"In sync"</th>
                                        <th scope="col" class="num">"Low"</th>
                                        <th scope="col" class="num">"High"</th>
                                        <th scope="col" class="num">"Size"</th>
                                    </tr>
                                </thead>
                                <tbody>
                                    {t.partitions.into_iter().map(|p| view! {
                                        <tr>
                                            <td class="num mono">{p.partition}</td>
                                            <td class="num mono">{if p.leader < 0 { "none".to_string() } else { p.leader.to_string() }}</td>
                                            <td class="mono">{join(&p.replicas)}</td>
                                            <td class="mono">{join(&p.isr)}</td>
                                            <td class="num mono">{or_dash(p.low, |v| v.to_string())}</td>
                                            <td class="num mono">{or_dash(p.high, |v| v.to_string())}</td>
                                            <td class="num">{or_dash(p.size_bytes, bytes)}</td>
                                        </tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                            <h2>"Consumer groups"</h2>
                            <Freshness what="Groups" at=t.groups_refreshed_at served_at=t.served_at />
                            <Consumers cluster=cluster() rows=t.consumers />
                        }.into_any()
                    }
                    Err(e) => view! {
                        <h1 class="mono">{name()}</h1>
                        <p class="error" role="alert">{e.message}</p>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn Consumers(cluster: String, rows: Vec<TopicConsumer>) -> impl IntoView {
    if rows.is_empty() {
        return view! { <p class="empty">"No consumer group has committed offsets on this topic."</p> }
            .into_any();
    }
    let max = rows.iter().filter_map(|c| c.lag).max().unwrap_or(0);
    view! {
        <table class="data" aria-label="Consumer groups">
            <thead><tr>
                <th scope="col">"Group"</th>
                <th scope="col">"State"</th>
                <th scope="col" class="num">"Lag on this topic"</th>
            </tr></thead>
            <tbody>
                {rows.into_iter().map(|c| view! {
                    <tr data-group=c.group.clone()>
                        <th scope="row"><a class="mono" href=page_url(&cluster, "groups", &c.group)>{c.group.clone()}</a></th>
                        <td>{state_badge(&c.state)}</td>
                        <td class="num"><LagBar lag=c.lag max=max /></td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

fn join(ids: &[i32]) -> String {
    ids.iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Delete topic: a button that opens a confirmation asking for the topic's name.
#[component]
fn DeleteTopic(cluster: String, topic: String) -> impl IntoView {
    let open = RwSignal::new(false);
    let typed = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let navigate = use_navigate();
    let target = StoredValue::new((cluster, topic));
    let confirmed = move || target.with_value(|(_, t)| typed.get() == *t);

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
        <button type="button" class="button button-danger" on:click=move |_| open.update(|o| *o = !*o)>
            "Delete topic"
        </button>
        <Show when=move || open.get()>
            <div class="panel" role="dialog" aria-label="Delete topic">
                <p>
                    "This deletes the topic and all its records. Type "
                    <strong class="mono">{target.with_value(|(_, t)| t.clone())}</strong>
                    " to confirm."
                </p>
                <label>"Topic name"
                    <input type="text" autocomplete="off" prop:value=move || typed.get()
                        on:input=move |ev| typed.set(event_target_value(&ev)) />
                </label>
                <div class="panel-actions">
                    <button type="button" class="button button-danger"
                        disabled=move || !confirmed() || delete.pending().get()
                        on:click=move |_| { delete.dispatch(()); }>
                        "Delete"
                    </button>
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </div>
        </Show>
    }
}
