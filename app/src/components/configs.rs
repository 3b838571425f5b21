//! The table of configs a topic, a broker and the cluster-wide broker default share: every
//! config with where its value comes from, values set at this level first. Where the caller
//! may change them (the privilege on a writable cluster; for a topic, not an internal one),
//! Edit configuration turns the rows that can change here into fields; the changes are
//! previewed through Kafka's dry run, then applied in one incremental change that leaves every
//! other value as it is.

use std::collections::BTreeMap;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::api::{
    alter_broker_config, alter_topic_configs, broker_configs, topic as topic_detail, topic_configs,
    AlterBrokerConfigArgs, AlterTopicConfigsArgs, ConfigChangeView, ConfigSource, TopicConfig,
    UpdateMode,
};
use crate::components::access::{allows, identity};
use crate::components::change::follow_change;
use crate::components::table::{Col, DataTable};
use crate::components::ErrorAlert;
use crate::error::ApiError;
use crate::format::config_hint;
use crate::Privilege;

/// Whose configs a table shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConfigTarget {
    Topic {
        cluster: String,
        topic: String,
    },
    /// One broker, or (`None`) the cluster-wide default.
    Broker {
        cluster: String,
        broker: Option<i32>,
    },
}

/// The configs as a table lists them, and for the cluster-wide default the broker whose
/// list and fallback values it shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigListing {
    pub configs: Vec<TopicConfig>,
    pub read_from: Option<i32>,
}

impl ConfigTarget {
    fn cluster(&self) -> &str {
        match self {
            ConfigTarget::Topic { cluster, .. } | ConfigTarget::Broker { cluster, .. } => cluster,
        }
    }

    /// The level this table's changes set values at.
    fn level(&self) -> ConfigSource {
        match self {
            ConfigTarget::Topic { .. } => ConfigSource::Topic,
            ConfigTarget::Broker { broker: Some(_), .. } => ConfigSource::DynamicBroker,
            ConfigTarget::Broker { broker: None, .. } => ConfigSource::DynamicDefaultBroker,
        }
    }

    /// What the decision looks at for a change here.
    fn resource(&self) -> crate::access::Resource {
        match self {
            ConfigTarget::Topic { topic, .. } => crate::access::Resource::topic(topic.as_str()),
            ConfigTarget::Broker { .. } => crate::access::Resource::Cluster,
        }
    }

    fn privilege(&self) -> Privilege {
        match self {
            ConfigTarget::Topic { .. } => Privilege::AlterTopicConfigs,
            ConfigTarget::Broker { .. } => Privilege::AlterBrokerConfigs,
        }
    }

    /// Whether `config` can change at this level while brokers run.
    fn changeable(&self, config: &TopicConfig) -> bool {
        if config.read_only {
            return false;
        }
        match self {
            ConfigTarget::Topic { .. } => true,
            ConfigTarget::Broker { broker: Some(_), .. } => {
                config.update_mode != Some(UpdateMode::ReadOnly)
            }
            ConfigTarget::Broker { broker: None, .. } => {
                config.update_mode == Some(UpdateMode::ClusterWide)
            }
        }
    }

    /// What the box that removes this level's value says.
    fn remove_label(&self) -> &'static str {
        match self {
            ConfigTarget::Topic { .. } => "Remove override",
            ConfigTarget::Broker { broker: Some(_), .. } => "Remove this broker's value",
            ConfigTarget::Broker { broker: None, .. } => "Remove the default",
        }
    }

    async fn load(self) -> Result<ConfigListing, ApiError> {
        match self {
            ConfigTarget::Topic { cluster, topic } => topic_configs(cluster, topic.into())
                .await
                .map(|l| ConfigListing { configs: l.configs, read_from: None }),
            ConfigTarget::Broker { cluster, broker } => broker_configs(cluster, broker.into())
                .await
                .map(|l| ConfigListing { configs: l.configs, read_from: l.read_from }),
        }
    }

    /// Whether a change may be offered at all: for a topic, not when Kafka marks it internal.
    async fn open(self) -> bool {
        match self {
            ConfigTarget::Topic { cluster, topic } => {
                topic_detail(cluster, topic.into()).await.map(|d| !d.internal).unwrap_or(false)
            }
            ConfigTarget::Broker { .. } => true,
        }
    }

    async fn apply(
        self, set: BTreeMap<String, String>, remove: Vec<String>, dry_run: bool,
    ) -> Result<Vec<ConfigChangeView>, ApiError> {
        match self {
            ConfigTarget::Topic { cluster, topic } => alter_topic_configs(AlterTopicConfigsArgs {
                cluster,
                topic: topic.into(),
                set: set.into(),
                remove: remove.into(),
                dry_run: dry_run.into(),
            })
            .await
            .map(|a| a.changes),
            ConfigTarget::Broker { cluster, broker } => {
                alter_broker_config(AlterBrokerConfigArgs {
                    cluster,
                    broker: broker.into(),
                    set: set.into(),
                    remove: remove.into(),
                    dry_run: dry_run.into(),
                })
                .await
                .map(|a| a.changes)
            }
        }
    }
}

/// A change the table holds before it is applied: `Some(value)` sets, `None` removes.
type Pending = BTreeMap<String, Option<String>>;

#[component]
pub fn ConfigTable(target: ConfigTarget) -> impl IntoView {
    let target = StoredValue::new(target);
    // Made here, once, outside every suspense.
    let configs = Resource::new(move || target.get_value(), ConfigTarget::load);
    let open = Resource::new(move || target.get_value(), ConfigTarget::open);
    let who = identity();
    let editing = RwSignal::new(false);
    let pending = RwSignal::new(Pending::new());
    let filter = RwSignal::new(String::new());
    let preview = RwSignal::new(None::<Vec<ConfigChangeView>>);
    let applied = RwSignal::new(None::<Vec<ConfigChangeView>>);
    let error = RwSignal::new(None::<String>);

    let send = Action::new_local(move |dry_run: &bool| {
        let dry_run = *dry_run;
        let changes = pending.get_untracked();
        let set: BTreeMap<String, String> =
            changes.iter().filter_map(|(k, v)| Some((k.clone(), v.clone()?))).collect();
        let remove: Vec<String> =
            changes.iter().filter(|(_, v)| v.is_none()).map(|(k, _)| k.clone()).collect();
        let target = target.get_value();
        async move { (dry_run, target.apply(set, remove, dry_run).await) }
    });
    follow_change(send, preview, error, move |answer: Vec<ConfigChangeView>| {
        pending.set(Pending::new());
        editing.set(false);
        applied.set(Some(answer));
        configs.refetch();
    });

    view! {
        <Suspense fallback=|| view! { <div class="skeleton-table"></div> }>
            {move || Suspend::new(async move {
                let privilege = target.with_value(ConfigTarget::privilege);
                let may_edit = who
                    .await
                    .ok()
                    .is_some_and(|w| target.with_value(|t| allows(w.cluster(t.cluster()), privilege, &t.resource())))
                    && open.await;
                match configs.await {
                    Ok(listing) => {
                        let rows = StoredValue::new(listing.configs);
                        let source_note = listing.read_from.map(|id| view! {
                            <p class="muted">{format!(
                                "Configs that may have a cluster-wide default. Where none is set, the value shown is broker {id}'s; read-only and per-broker configs are on each broker's Configuration tab."
                            )}</p>
                        });
                        view! {
                            {source_note}
                            <div class="toolbar">
                                <input type="search" class="filter" placeholder="Filter configs by name"
                                    aria-label="Filter configs by name"
                                    bind:value=filter />
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
                                    <p>{format!("Applied {} change{}.", a.len(), if a.len() == 1 { "" } else { "s" })}</p>
                                    <Changes changes=a.clone() />
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
                                    {move || preview.get().map(|p| view! { <Changes changes=p.clone() /> })}
                                    {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                                </div>
                            </Show>
                            <DataTable label="Configs" class="configs" cols=&[Col::Text("Config"), Col::Text("Value"), Col::Text("Source")]>
                                <tbody>
                                    {move || {
                                        let needle = filter.get().trim().to_lowercase();
                                        rows.get_value()
                                            .into_iter()
                                            .filter(|c| needle.is_empty() || c.name.to_lowercase().contains(&needle))
                                            .map(|c| {
                                                let changeable = target.with_value(|t| t.changeable(&c));
                                                view! { <ConfigRow config=c target=target changeable=changeable editing=editing pending=pending preview=preview /> }
                                            })
                                            .collect_view()
                                    }}
                                </tbody>
                            </DataTable>
                        }.into_any()
                    }
                    Err(e) => view! { <ErrorAlert error=e /> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// One config: its name (with Kafka's description to open), its value (a field while editing,
/// where it can change here), and where the value comes from.
#[component]
fn ConfigRow(
    config: TopicConfig, target: StoredValue<ConfigTarget>, changeable: bool,
    editing: RwSignal<bool>, pending: RwSignal<Pending>,
    preview: RwSignal<Option<Vec<ConfigChangeView>>>,
) -> impl IntoView {
    let level = target.with_value(ConfigTarget::level);
    let name = StoredValue::new(config.name.clone());
    let current = config.value.clone().unwrap_or_default();
    let set_here = config.is_set_at(level);
    let fallback = config.without(level).cloned();
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
    let (sensitive, has_value) = (config.sensitive, config.value.is_some());
    let current_for_input = current.clone();
    let remove_label = target.with_value(ConfigTarget::remove_label);
    // A broker's modes are worth a badge where they limit what can change.
    let mode = config.update_mode.filter(|m| *m != UpdateMode::ClusterWide);
    let choices = crate::format::config_choices(&config.name, config.kind.as_deref());
    view! {
        <tr data-config=config.name.clone() class:overridden=set_here class:changed=move || changed().is_some()>
            <th scope="row">
                <details class="doc">
                    <summary class="mono">{config.name.clone()}</summary>
                    <p>{config.documentation.as_deref().map(crate::format::doc_text).unwrap_or_else(|| "Kafka gives no description of this config.".into())}</p>
                    {config.kind.clone().map(|k| view! { <p class="muted">{format!("Type: {k}")}</p> })}
                    {(mode == Some(UpdateMode::ReadOnly)).then(|| view! {
                        <p class="muted">"Read from server.properties at start-up: changing it takes a restart."</p>
                    })}
                </details>
                {match mode {
                    Some(m) => view! { " " <span class="badge">{m.label()}</span> }.into_any(),
                    None if config.read_only => view! { " " <span class="badge">"read-only"</span> }.into_any(),
                    None => ().into_any(),
                }}
                {config.sensitive.then(|| view! { " " <span class="badge">"sensitive"</span> })}
            </th>
            <td>
                {move || {
                    if editing.get() && changeable {
                        let removing = changed() == Some(None);
                        let value = match changed() {
                            Some(Some(v)) => v,
                            _ => current_for_input.clone(),
                        };
                        let original = current_for_input.clone();
                        let field = match choices {
                            // A config with known values is chosen, not typed; a value Kafka
                            // holds outside the list stays offered as it is.
                            Some(options) => {
                                let mut options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
                                if !value.is_empty() && !options.contains(&value) {
                                    options.insert(0, value.clone());
                                }
                                view! {
                                    <select class="mono" aria-label=format!("Value of {}", name.get_value())
                                        disabled=removing
                                        on:change=move |ev| {
                                            let chosen = event_target_value(&ev);
                                            set((chosen != original).then_some(chosen));
                                        }>
                                        {options.into_iter().map(|o| {
                                            let selected = o == value;
                                            view! { <option value=o.clone() selected=selected>{o.clone()}</option> }
                                        }).collect_view()}
                                    </select>
                                }.into_any()
                            }
                            None => view! {
                                <input type=if sensitive { "password" } else { "text" } autocomplete="off" class="mono"
                                    aria-label=format!("Value of {}", name.get_value())
                                    disabled=removing
                                    prop:value=value
                                    on:input=move |ev| {
                                        let typed = event_target_value(&ev);
                                        // Typing the value in force back is no change.
                                        set((typed != original).then_some(typed));
                                    } />
                            }.into_any(),
                        };
                        view! {
                            {field}
                            {set_here.then(|| view! {
                                <label class="inline">
                                    <input type="checkbox" prop:checked=removing
                                        on:change=move |ev| {
                                            preview.set(None);
                                            let on = event_target_checked(&ev);
                                            pending.update(|p| {
                                                if on { p.insert(name.get_value(), None); } else { p.remove(&name.get_value()); }
                                            });
                                        } />
                                    {remove_label}
                                </label>
                            })}
                        }.into_any()
                    } else {
                        shown_value(&name.get_value(), &current, sensitive, has_value)
                    }
                }}
            </td>
            <td>
                <span class=if set_here { "badge badge-accent" } else { "badge" }>{config.source.label()}</span>
                {fallback.filter(|_| set_here).map(|f| view! {
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
        <DataTable label="Config changes" class="compact" cols=&[Col::Text("Config"), Col::Text("Before"), Col::Text("After")]>
            <tbody>
                {changes.into_iter().map(|c| view! {
                    <tr data-config=c.name.clone()>
                        <th scope="row" class="mono">{c.name.clone()}</th>
                        <td class="mono">{value(c.before.clone(), c.before_source)}</td>
                        <td class="mono">{value(c.after.clone(), c.after_source)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </DataTable>
    }
}
