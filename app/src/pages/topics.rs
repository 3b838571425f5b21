//! `/c/{cluster}/topics`: the topics of a cluster, and Create topic where the caller may.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_params_map};

use crate::api::{create_topic, topics, TopicSummary};
use crate::components::access::{allows, identity};
use crate::format::{or_dash, rate, thousands};
use crate::Privilege;

#[component]
pub fn TopicsPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = move || params.read().get("cluster").unwrap_or_default();
    let list = Resource::new(cluster, topics);
    let who = identity();
    view! {
        <Title text=move || format!("Topics of {}", cluster()) />
        <div class="page-head">
            <h1>"Topics"</h1>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    let may_create = who
                        .await
                        .ok()
                        .is_some_and(|w| allows(w.cluster(&cluster()), Privilege::CreateTopics));
                    may_create.then(|| view! { <CreateTopic cluster=cluster() /> })
                })}
            </Suspense>
        </div>
        <Suspense fallback=|| view! { <div class="skeleton-table"></div> }>
            {move || Suspend::new(async move {
                match list.await {
                    Ok(list) if list.topics.is_empty() => view! {
                        <p class="empty">"This cluster has no topics yet."</p>
                    }.into_any(),
                    Ok(list) => view! { <TopicTable cluster=cluster() rows=list.topics /> }.into_any(),
                    Err(e) => view! { <p class="error" role="alert">{e.message}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn TopicTable(cluster: String, rows: Vec<TopicSummary>) -> impl IntoView {
    view! {
        <table class="data" aria-label="Topics">
            <thead>
                <tr>
                    <th scope="col">"Topic"</th>
                    <th scope="col" class="num">"Partitions"</th>
                    <th scope="col" class="num">"Replicas"</th>
                    <th scope="col" class="num" title="High minus low watermark, summed: an upper bound on compacted topics">"Records"</th>
                    <th scope="col" class="num">"Produce rate"</th>
                    <th scope="col" class="num">"Under-replicated"</th>
                </tr>
            </thead>
            <tbody>
                {rows
                    .into_iter()
                    .map(|t| {
                        let href = format!("/c/{cluster}/topics/{}", t.name);
                        view! {
                            <tr data-topic=t.name.clone()>
                                <th scope="row">
                                    <a class="mono" href=href>{t.name.clone()}</a>
                                    {t.internal.then(|| view! { " " <span class="badge">"Internal"</span> })}
                                </th>
                                <td class="num">{thousands(t.partitions)}</td>
                                <td class="num">{thousands(t.replication_factor)}</td>
                                <td class="num">{or_dash(t.records, thousands)}</td>
                                <td class="num">{or_dash(t.produce_rate, rate)}</td>
                                <td class="num">{thousands(t.under_replicated)}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
}

/// The Create topic button and its form.
#[component]
fn CreateTopic(cluster: String) -> impl IntoView {
    let open = RwSignal::new(false);
    let name = RwSignal::new(String::new());
    let partitions = RwSignal::new("1".to_string());
    let replication = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let navigate = use_navigate();
    let cluster = StoredValue::new(cluster);

    let submit = Action::new_local(
        move |(topic, partitions, replication): &(String, i32, Option<i32>)| {
            let (topic, partitions, replication) = (topic.clone(), *partitions, *replication);
            let cluster = cluster.get_value();
            async move { create_topic(cluster, topic, partitions, replication, BTreeMap::new()).await }
        },
    );
    Effect::new(move |_| {
        if let Some(result) = submit.value().get() {
            match result {
                Ok(done) => {
                    error.set(None);
                    navigate(
                        &format!("/c/{}/topics/{}", done.cluster, done.topic),
                        Default::default(),
                    );
                }
                Err(e) => error.set(Some(e.message)),
            }
        }
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Ok(count) = partitions.get_untracked().trim().parse::<i32>() else {
            error.set(Some("Partitions must be a whole number.".into()));
            return;
        };
        let replication = replication.get_untracked();
        let replication = match replication.trim() {
            "" => None,
            text => match text.parse::<i32>() {
                Ok(n) => Some(n),
                Err(_) => {
                    error.set(Some(
                        "Replication factor must be a whole number, or empty.".into(),
                    ));
                    return;
                }
            },
        };
        submit.dispatch((name.get_untracked().trim().to_string(), count, replication));
    };

    view! {
        <button type="button" class="button button-primary" on:click=move |_| open.update(|o| *o = !*o)>
            "Create topic"
        </button>
        <Show when=move || open.get()>
            <form class="panel" aria-label="Create topic" on:submit=on_submit>
                <label>"Topic name"
                    <input type="text" required autocomplete="off" prop:value=move || name.get()
                        on:input=move |ev| name.set(event_target_value(&ev)) />
                </label>
                <label>"Partitions"
                    <input type="number" min="1" required prop:value=move || partitions.get()
                        on:input=move |ev| partitions.set(event_target_value(&ev)) />
                </label>
                <label>"Replication factor"
                    <input type="number" min="1" placeholder="broker default" prop:value=move || replication.get()
                        on:input=move |ev| replication.set(event_target_value(&ev)) />
                </label>
                <div class="panel-actions">
                    <button type="submit" class="button button-primary" disabled=move || submit.pending().get()>
                        "Create"
                    </button>
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </form>
        </Show>
    }
}
