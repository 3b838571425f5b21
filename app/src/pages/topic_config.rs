//! `/c/{cluster}/topics/{topic}/configuration`: every config of a topic with where its value
//! comes from (TOPIC_CONFIGS), overrides first. Where the caller may change them (a writable
//! cluster, ALTER_TOPIC_CONFIGS, not an internal topic), Edit configuration turns the rows into
//! fields; the changes are previewed through Kafka's dry run, then applied in one incremental
//! change that leaves every other override as it is.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::topic::{TopicTab, TopicTabs};
use crate::api::{
    alter_topic_configs, topic as topic_detail, topic_configs, AlterTopicConfigsArgs,
    ConfigChangeView, ConfigSource, ConfigsChanged, TopicConfig,
};
use crate::components::access::{allows, identity, NeedsPrivilege};
use crate::components::change::follow_change;
use crate::format::config_hint;
use crate::Privilege;

#[component]
pub fn TopicConfigPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = move || params.read().get("cluster").unwrap_or_default();
    let name = move || params.read().get("topic").unwrap_or_default();
    view! {
        <Title text=move || format!("Configuration of {}", name()) />
        <div class="page-head"><h1 class="mono">{name}</h1></div>
        <TopicTabs cluster=cluster() topic=name() current=TopicTab::Configuration />
        <NeedsPrivilege cluster=cluster() privilege=Privilege::TopicConfigs what="The configuration of a topic">
            <ConfigTab cluster=cluster() topic=name() />
        </NeedsPrivilege>
    }
}

/// A change the page holds before it is applied: `Some(value)` sets, `None` removes.
type Pending = BTreeMap<String, Option<String>>;

#[component]
fn ConfigTab(cluster: String, topic: String) -> impl IntoView {
    let target = StoredValue::new((cluster.clone(), topic.clone()));
    let configs = Resource::new(
        move || target.get_value(),
        |(c, t)| topic_configs(c, t.into()),
    );
    // Whether the topic may be changed here: the privilege on a writable cluster, and Kafka
    // does not mark the topic internal.
    let editable = Resource::new(
        move || target.get_value(),
        |(c, t)| async move {
            let internal = topic_detail(c, t.into())
                .await
                .map(|d| d.internal)
                .unwrap_or(true);
            !internal
        },
    );
    let who = identity();
    let editing = RwSignal::new(false);
    let pending = RwSignal::new(Pending::new());
    let filter = RwSignal::new(String::new());
    let preview = RwSignal::new(None::<ConfigsChanged>);
    let applied = RwSignal::new(None::<ConfigsChanged>);
    let error = RwSignal::new(None::<String>);

    let send = Action::new_local(move |dry_run: &bool| {
        let dry_run = *dry_run;
        let (cluster, topic) = target.get_value();
        let changes = pending.get_untracked();
        let set: BTreeMap<String, String> = changes
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.clone()?)))
            .collect();
        let remove: Vec<String> = changes
            .iter()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| k.clone())
            .collect();
        async move {
            let answer = alter_topic_configs(AlterTopicConfigsArgs {
                cluster,
                topic: topic.into(),
                set: set.into(),
                remove: remove.into(),
                dry_run: dry_run.into(),
            })
            .await;
            (dry_run, answer)
        }
    });
    follow_change(send, preview, error, move |answer: ConfigsChanged| {
        pending.set(Pending::new());
        editing.set(false);
        applied.set(Some(answer));
        configs.refetch();
    });

    view! {
        <Suspense fallback=|| view! { <div class="skeleton-table"></div> }>
            {move || Suspend::new(async move {
                let may_edit = who
                    .await
                    .ok()
                    .is_some_and(|w| allows(w.cluster(&target.get_value().0), Privilege::AlterTopicConfigs))
                    && editable.await;
                match configs.await {
                    Ok(list) => {
                        let rows = StoredValue::new(list.configs);
                        view! {
                            <div class="toolbar">
                                <input type="search" class="filter" placeholder="Filter configs by name"
                                    aria-label="Filter configs by name"
                                    prop:value=move || filter.get()
                                    on:input=move |ev| filter.set(event_target_value(&ev)) />
                                {may_edit.then(|| view! {
                                    <Show when=move || !editing.get() fallback=move || view! {
                                        <button type="button" class="button" on:click=move |_| {
                                            editing.set(false);
                                            pending.set(Pending::new());
                                            preview.set(None);
                                            error.set(None);
                                        }>"Discard changes"</button>
                                    }>
                                        <button type="button" class="button" on:click=move |_| {
                                            editing.set(true);
                                            applied.set(None);
                                        }>"Edit configuration"</button>
                                    </Show>
                                })}
                            </div>
                            {move || applied.get().map(|a| view! {
                                <div class="note" role="status">
                                    <p>{format!("Applied {} change{}.", a.changes.len(), if a.changes.len() == 1 { "" } else { "s" })}</p>
                                    <Changes changes=a.changes.clone() />
                                </div>
                            })}
                            <Show when=move || editing.get() && !pending.get().is_empty()>
                                <div class="panel wide" role="region" aria-label="Pending changes">
                                    <p>{move || {
                                        let n = pending.get().len();
                                        format!("{n} config{} to change. Preview asks Kafka to validate the change without applying it.", if n == 1 { "" } else { "s" })
                                    }}</p>
                                    <div class="panel-actions">
                                        <button type="button" class="button" disabled=move || send.pending().get()
                                            on:click=move |_| { send.dispatch(true); }>"Preview changes"</button>
                                        <button type="button" class="button button-primary"
                                            disabled=move || preview.get().is_none() || send.pending().get()
                                            on:click=move |_| { send.dispatch(false); }>"Apply changes"</button>
                                    </div>
                                    {move || preview.get().map(|p| view! { <Changes changes=p.changes.clone() /> })}
                                    {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                                </div>
                            </Show>
                            <table class="data configs" aria-label="Configs">
                                <thead><tr>
                                    <th scope="col">"Config"</th>
                                    <th scope="col">"Value"</th>
                                    <th scope="col">"Source"</th>
                                </tr></thead>
                                <tbody>
                                    {move || {
                                        let needle = filter.get().trim().to_lowercase();
                                        rows.get_value()
                                            .into_iter()
                                            .filter(|c| needle.is_empty() || c.name.to_lowercase().contains(&needle))
                                            .map(|c| view! { <ConfigRow config=c editing=editing pending=pending preview=preview /> })
                                            .collect_view()
                                    }}
                                </tbody>
                            </table>
                        }.into_any()
                    }
                    Err(e) => view! { <p class="error" role="alert">{e.message}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// One config: its name (with Kafka's description to open), its value (a field while editing,
/// unless Kafka marks it read-only), and where the value comes from.
#[component]
fn ConfigRow(
    config: TopicConfig,
    editing: RwSignal<bool>,
    pending: RwSignal<Pending>,
    preview: RwSignal<Option<ConfigsChanged>>,
) -> impl IntoView {
    let name = StoredValue::new(config.name.clone());
    let current = config.value.clone().unwrap_or_default();
    let overridden = config.is_override();
    let fallback = config.without_override().cloned();
    // Records the value typed, or (with `None`) that the row is as it was.
    let set = move |value: Option<String>| {
        preview.set(None);
        pending.update(|p| {
            let key = name.get_value();
            match value {
                Some(v) => p.insert(key, Some(v)),
                None => p.remove(&key),
            };
        });
    };
    let changed = move || pending.with(|p| p.get(&name.get_value()).cloned());
    let read_only = config.read_only;
    let (sensitive, has_value) = (config.sensitive, config.value.is_some());
    let current_for_input = current.clone();
    view! {
        <tr data-config=config.name.clone() class:overridden=overridden class:changed=move || changed().is_some()>
            <th scope="row">
                <details class="doc">
                    <summary class="mono">{config.name.clone()}</summary>
                    <p>{config.documentation.clone().unwrap_or_else(|| "Kafka gives no description of this config.".into())}</p>
                    {config.kind.clone().map(|k| view! { <p class="muted">{format!("Type: {k}")}</p> })}
                </details>
                {read_only.then(|| view! { " " <span class="badge">"read-only"</span> })}
                {config.sensitive.then(|| view! { " " <span class="badge">"sensitive"</span> })}
            </th>
            <td>
                {move || {
                    if editing.get() && !read_only {
                        let removing = changed() == Some(None);
                        let value = match changed() {
                            Some(Some(v)) => v,
                            _ => current_for_input.clone(),
                        };
                        let original = current_for_input.clone();
                        view! {
                            <input type="text" class="mono" aria-label=format!("Value of {}", name.get_value())
                                disabled=removing
                                prop:value=value
                                on:input=move |ev| {
                                    let typed = event_target_value(&ev);
                                    // Typing the value in force back is no change.
                                    set((typed != original).then_some(typed));
                                } />
                            {overridden.then(|| view! {
                                <label class="inline">
                                    <input type="checkbox" prop:checked=removing
                                        on:change=move |ev| {
                                            preview.set(None);
                                            let on = event_target_checked(&ev);
                                            pending.update(|p| {
                                                if on { p.insert(name.get_value(), None); } else { p.remove(&name.get_value()); }
                                            });
                                        } />
                                    "Remove override"
                                </label>
                            })}
                        }.into_any()
                    } else {
                        shown_value(&name.get_value(), &current, sensitive, has_value)
                    }
                }}
            </td>
            <td>
                <span class=source_class(config.source)>{config.source.label()}</span>
                {fallback.filter(|_| overridden).map(|f| view! {
                    <div class="muted">{format!("without it: {} ({})", f.value.unwrap_or_else(|| "not set".into()), f.source.label())}</div>
                })}
            </td>
        </tr>
    }
}

/// The value as the table shows it outside editing, with what it means in words when that
/// helps (a duration, a size, "no limit").
fn shown_value(name: &str, value: &str, sensitive: bool, set: bool) -> AnyView {
    match (set, sensitive) {
        (_, true) => view! { <span class="muted">"(sensitive)"</span> }.into_any(),
        (true, false) => {
            let hint = config_hint(name, value)
                .map(|h| view! { " " <span class="muted">{format!("({h})")}</span> });
            view! { <span class="mono">{value.to_string()}</span>{hint} }.into_any()
        }
        (false, false) => view! { <span class="muted">"(not set)"</span> }.into_any(),
    }
}

fn source_class(source: ConfigSource) -> &'static str {
    match source {
        ConfigSource::Topic => "badge badge-accent",
        _ => "badge",
    }
}

/// Each config before and after a change.
#[component]
fn Changes(changes: Vec<ConfigChangeView>) -> impl IntoView {
    let value = |v: Option<String>, s: Option<ConfigSource>| match (v, s) {
        (Some(v), Some(s)) => format!("{v} ({})", s.label()),
        (Some(v), None) => v,
        (None, Some(s)) => format!("{}'s value", s.label()),
        (None, None) => "not set".to_string(),
    };
    view! {
        <table class="data compact" aria-label="Config changes">
            <thead><tr>
                <th scope="col">"Config"</th>
                <th scope="col">"Before"</th>
                <th scope="col">"After"</th>
            </tr></thead>
            <tbody>
                {changes.into_iter().map(|c| view! {
                    <tr data-config=c.name.clone()>
                        <th scope="row" class="mono">{c.name.clone()}</th>
                        <td class="mono">{value(c.before.clone(), c.before_source)}</td>
                        <td class="mono">{value(c.after.clone(), c.after_source)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}
