//! `/c/{cluster}/connectors` (and `/c/{cluster}/connectors/{connect}` for one Connect cluster):
//! the connectors of the cluster's Connect clusters the caller may see (CONNECTORS), with state
//! counts, filters by state, type and name, and a failed task's cause at a glance.
//! `/c/{cluster}/connectors/{connect}/{name}`: one connector with its tasks (worker, state, the
//! whole trace of a failed one on demand), its topics and consumer group (with its lag) linked,
//! its offsets (`connector_offsets.rs`) and its config with secrets masked.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::connector_offsets::ConnectorOffsets;
use super::flow::FlowLink;
use crate::api::{
    connector, connector_plugins, connectors, create_connector, delete_connector, pause_connector,
    restart_connector, restart_task, resume_connector, stop_connector, update_connector,
    ConnectClusterView, ConnectorArgs, ConnectorChanged, ConnectorConfigArgs, ConnectorConfigured,
    ConnectorDetail, ConnectorSummary, ConnectorTask,
};
use crate::components::access::{allows, identity, offers};
use crate::components::change::{follow_change, object_changes, ConfirmSheet, DryRunButtons};
use crate::components::page::{use_changes, CallerAccess, ListHead, Loaded, Notice};
use crate::components::table::{Col, DataTable, Freshness};
use crate::components::{use_cluster, ErrorAlert};
use crate::error::ApiError;
use crate::format::{page_url, query_value};
use crate::Privilege;

/// The states Connect gives a connector or a task, in the order counts show them.
const STATES: [&str; 6] = ["RUNNING", "FAILED", "PAUSED", "STOPPED", "UNASSIGNED", "RESTARTING"];

pub fn connector_state(state: &str) -> impl IntoView {
    let class = match state {
        "RUNNING" => "badge badge-ok",
        "FAILED" => "badge badge-bad",
        "PAUSED" | "STOPPED" | "UNASSIGNED" | "RESTARTING" => "badge badge-warn",
        _ => "badge",
    };
    view! { <span class=class>{state.to_string()}</span> }
}

/// The last part of a class name: `FileStreamSinkConnector`.
fn short_class(class: &str) -> String {
    class.rsplit('.').next().unwrap_or(class).to_string()
}

fn connector_url(cluster: &str, connect: &str, name: &str) -> String {
    format!("/c/{}/connectors/{}/{}", query_value(cluster), query_value(connect), query_value(name))
}

/// Each of `topics` as a link to its page.
pub(super) fn topic_links(cluster: &str, topics: &[String]) -> impl IntoView {
    topics
        .iter()
        .map(|t| view! { <a class="mono" href=page_url(cluster, "topics", t)>{t.clone()}</a>" " })
        .collect_view()
}

#[component]
pub fn ConnectorsPage() -> impl IntoView {
    let cluster = use_cluster();
    let params = use_params_map();
    let only = move || params.read().get("connect");
    let list = Resource::new(cluster, connectors);
    let who = identity();
    let (notice, changed) = use_changes(move || list.refetch());
    let state = RwSignal::new(String::new());
    let kind = RwSignal::new(String::new());
    let name = RwSignal::new(String::new());
    view! {
        <ListHead title="Connectors" notice=notice>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    let may = who.await.ok().is_some_and(|w| offers(w.cluster(&cluster()), Privilege::ManageConnectors));
                    let connects: Vec<String> = list.await.map(|l| l.connects.into_iter().map(|c| c.name).collect()).unwrap_or_default();
                    (may && !connects.is_empty()).then(|| view! {
                        <ConnectorForm cluster=cluster() connects=connects initial="tasks.max=1\n".to_string() on_done=changed />
                    })
                })}
            </Suspense>
        </ListHead>
        <div class="header-row" role="search" aria-label="Filter connectors">
            <input type="search" placeholder="Name or class" aria-label="Name or class"
                bind:value=name />
            <select aria-label="State" on:change=move |ev| state.set(event_target_value(&ev))>
                <option value="">"Any state"</option>
                {STATES.iter().map(|s| view! { <option value=*s>{*s}</option> }).collect_view()}
            </select>
            <select aria-label="Type" on:change=move |ev| kind.set(event_target_value(&ev))>
                <option value="">"Sources and sinks"</option>
                <option value="source">"Sources"</option>
                <option value="sink">"Sinks"</option>
            </select>
        </div>
        <Loaded of=list ok=move |value: crate::api::ConnectorList, _| {
            match value {
                list if list.connects.is_empty() => view! {
                    <p class="empty">"No Kafka Connect cluster is configured for this cluster."</p>
                }.into_any(),
                list => {
                    let served_at = list.served_at;
                    let shown: Vec<ConnectClusterView> = list
                        .connects
                        .into_iter()
                        .filter(|c| only().is_none_or(|o| o == c.name))
                        .collect();
                    shown.into_iter().map(|c| {
                        let filter = move |s: &ConnectorSummary| {
                            let (st, k, n) = (state.get(), kind.get(), name.get().to_lowercase());
                            (st.is_empty() || s.state == st || s.tasks.iter().any(|t| t.state == st))
                                && (k.is_empty() || s.kind == k)
                                && (s.name.to_lowercase().contains(&n) || s.class.to_lowercase().contains(&n))
                        };
                        view! { <ConnectSection cluster=cluster() view=c served_at=served_at filter=filter /> }
                    }).collect_view().into_any()
                }
            }
        } />
    }
}

#[component]
fn ConnectSection(
    cluster: String, view: ConnectClusterView, served_at: i64,
    filter: impl Fn(&ConnectorSummary) -> bool + Send + Sync + Copy + 'static,
) -> impl IntoView {
    let counts: Vec<(&str, usize)> = STATES
        .iter()
        .map(|s| (*s, view.connectors.iter().filter(|c| c.state == *s).count()))
        .filter(|(_, n)| *n > 0)
        .collect();
    let failed_tasks: usize = view.connectors.iter().map(ConnectorSummary::failed_tasks).sum();
    let all = StoredValue::new(view.connectors);
    let connect = view.name.clone();
    let base = format!("/c/{}/connectors/{}", query_value(&cluster), query_value(&connect));
    let total = all.with_value(Vec::len);
    let rows = move || all.get_value().into_iter().filter(|c| filter(c)).collect::<Vec<_>>();
    let cluster = StoredValue::new(cluster);
    view! {
        <section class="connect" data-connect=connect.clone()>
            <h2><a href=base>{connect.clone()}</a></h2>
            <Freshness what="Connectors" at=view.refreshed_at served_at=served_at
                error=view.error.clone().unwrap_or_default() />
            <p class="counts" data-figure="states">
                {format!("{total} connectors")}
                {counts.into_iter().map(|(s, n)| view! { " · " {connector_state(s)} " " {n} }).collect_view()}
                {(failed_tasks > 0).then(|| view! { " · " <span class="badge badge-bad">{format!("{failed_tasks} failed tasks")}</span> })}
            </p>
            {(view.mirror_connectors > 0).then(|| view! {
                <p class="muted">{format!("{} MirrorMaker connectors belong to replications and are not listed here.", view.mirror_connectors)}</p>
            })}
            {if total == 0 {
                view! { <p class="empty">"No connectors you may see on this Connect cluster."</p> }.into_any()
            } else {
                view! {
                    <DataTable label="Connectors" cols=&[Col::Text("Connector"), Col::Text("Type"), Col::Text("Class"), Col::Text("State"), Col::Num("Tasks"), Col::Text("Topics")]>
                        <tbody>
                            <For each=rows key=|c| format!("{}\u{0}{}\u{0}{:?}", c.name, c.state, c.tasks) let:c>
                                <ConnectorRow cluster=cluster.get_value() c=c />
                            </For>
                        </tbody>
                    </DataTable>
                }.into_any()
            }}
        </section>
    }
}

#[component]
fn ConnectorRow(cluster: String, c: ConnectorSummary) -> impl IntoView {
    let running = c.tasks.iter().filter(|t| t.state == "RUNNING").count();
    let failed = c.failed_tasks();
    let cause = c.cause.clone().or_else(|| c.tasks.iter().find_map(|t| t.cause.clone()));
    let href = connector_url(&cluster, &c.connect, &c.name);
    let failing = failed > 0 || c.state == "FAILED";
    view! {
        <tr data-connector=c.name.clone() class:failed=failing>
            <th scope="row" class="mono">
                <a class="cut" href=href title=c.name.clone()>{c.name.clone()}</a>
                {cause.map(|cause| view! { <div class="cause error-text cut" title=cause.clone()>{cause.clone()}</div> })}
            </th>
            <td>{c.kind.clone()}</td>
            <td><span class="cut" title=c.class.clone()>{short_class(&c.class)}</span></td>
            <td>{connector_state(&c.state)}</td>
            <td class="num">
                {format!("{running}/{}", c.tasks.len())}
                {(failed > 0).then(|| view! { " " <span class="badge badge-bad">{format!("{failed} failed")}</span> })}
            </td>
            <td>
                {topic_links(&cluster, &c.topics)}
                {(!c.topics_known).then(|| view! { <span class="muted" title="Its config names its topics by a pattern or lets the plugin pick them.">"(by pattern)"</span> })}
            </td>
        </tr>
    }
}

#[component]
pub fn ConnectorPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = use_cluster();
    let connect = move || params.read().get("connect").unwrap_or_default();
    let name = move || params.read().get("name").unwrap_or_default();
    let detail = Resource::new(
        move || (cluster(), connect(), name()),
        |(c, k, n)| connector(c, k.into(), n.into()),
    );
    let (notice, changed) = use_changes(move || detail.refetch());
    view! {
        <Title text=move || format!("{} · connectors of {}", name(), cluster()) />
        <Notice notice=notice />
        <Loaded of=detail named=Signal::derive(name) ok=move |d: ConnectorDetail, access: CallerAccess| {
            let may = allows(access.on(&d.cluster), Privilege::ManageConnectors, &d.connector.resource());
            let flow = access.on(&d.cluster).is_some_and(|a| a.can(Privilege::Topology));
            view! { <ConnectorView d=d may=may flow=flow changed=changed /> }.into_any()
        } />
    }
}

#[component]
fn ConnectorView(
    d: ConnectorDetail, may: bool, flow: bool, changed: Callback<String>,
) -> impl IntoView {
    let c = d.connector.clone();
    let cluster = d.cluster.clone();
    let group = d.group.clone();
    let send = change_action(changed);
    let target = StoredValue::new(args_for(&cluster, &c));
    view! {
        <div class="page-head">
            <h1 class="cut" title=c.name.clone()>{c.name.clone()} " " {connector_state(&c.state)}</h1>
            <div class="actions">
                {flow.then(|| view! { <FlowLink cluster=cluster.clone() kind="connector" name=format!("{}/{}", c.connect, c.name) /> })}
                {may.then(|| {
                    let initial = config_text(d.config.iter().filter(|v| v.name != "name").map(|v| (v.name.as_str(), v.value.as_str())));
                    view! {
                        <ConnectorForm cluster=cluster.clone() connects=vec![c.connect.clone()]
                            editing=(c.connect.clone(), c.name.clone()) initial=initial on_done=changed />
                        <ConnectorActions c=c.clone() target=target send=send />
                    }
                })}
            </div>
        </div>
        {move || send.value().get().and_then(|r| r.err()).map(|e| view! { <ErrorAlert error=e /> })}
        <Freshness what="Connector" at=d.refreshed_at served_at=d.served_at />
        <dl class="facts">
            <dt>"Connect cluster"</dt><dd>{c.connect.clone()}</dd>
            <dt>"Type"</dt><dd>{c.kind.clone()}</dd>
            <dt>"Class"</dt><dd class="mono">{c.class.clone()}</dd>
            <dt>"Worker"</dt><dd class="mono">{d.worker.clone().unwrap_or_else(|| "—".into())}</dd>
            <dt>"Topics"</dt>
            <dd>
                {topic_links(&cluster, &c.topics)}
                {(!c.topics_known).then(|| view! { <span class="muted">"(named by a pattern, or picked by the plugin)"</span> })}
            </dd>
            {group.map(|g| view! {
                <dt>"Consumer group"</dt>
                <dd><a class="mono" href=page_url(&cluster, "groups", &g)>{g.clone()}</a></dd>
                <dt>"Lag"</dt>
                <dd data-figure="lag">{crate::format::or_dash(d.group_lag, crate::format::thousands)}</dd>
            })}
        </dl>
        {d.trace.clone().filter(|_| c.state == "FAILED").map(|trace| view! {
            <div class="error" role="alert">
                <p>{c.cause.clone().unwrap_or_default()}</p>
                <details><summary>"Whole trace"</summary><pre class="trace">{trace}</pre></details>
            </div>
        })}
        <h2>"Tasks"</h2>
        {if c.tasks.is_empty() {
            view! { <p class="empty">"No tasks yet."</p> }.into_any()
        } else {
            view! {
                <DataTable label="Tasks" cols=&[Col::Num("Task"), Col::Text("State"), Col::Text("Worker"), Col::Text("Cause")]>
                    <tbody>
                        {c.tasks.clone().into_iter().map(|t| view! { <TaskRow t=t may=may target=target send=send /> }).collect_view()}
                    </tbody>
                </DataTable>
            }.into_any()
        }}
        <ConnectorOffsets cluster=cluster.clone() connect=c.connect.clone() name=c.name.clone()
            offsets=d.offsets.clone() error=d.offsets_error.clone() may=may changed=changed />
        <h2>"Configuration"</h2>
        <DataTable label="Configuration">
            <thead><tr><th scope="col">"Key"</th><th scope="col">"Value"</th></tr></thead>
            <tbody>
                {d.config.into_iter().map(|v| view! {
                    <tr data-config=v.name.clone()>
                        <th scope="row" class="mono">{v.name.clone()}</th>
                        <td class="mono">
                            {v.value.clone()}
                            {v.masked.then(|| view! { " " <span class="badge" title="A secret: klens never shows it.">"masked"</span> })}
                        </td>
                    </tr>
                }).collect_view()}
            </tbody>
        </DataTable>
    }
}

#[component]
fn TaskRow(
    t: ConnectorTask, may: bool, target: StoredValue<ConnectorArgs>, send: Changes,
) -> impl IntoView {
    let id = t.id;
    view! {
        <tr data-task=t.id>
            <td class="num">
                {t.id}
                {may.then(|| view! {
                    " " <button type="button" class="button" disabled=move || send.pending().get()
                        on:click=move |_| {
                            let args = ConnectorArgs { task: id.into(), ..target.get_value() };
                            send.dispatch((Act::RestartTask, args));
                        }>{format!("Restart task {id}")}</button>
                })}
            </td>
            <td>{connector_state(&t.state)}</td>
            <td class="mono">{t.worker.clone().unwrap_or_else(|| "—".into())}</td>
            <td>
                {t.cause.clone().map(|cause| view! { <span class="error-text">{cause}</span> })}
                {t.trace.clone().map(|trace| view! {
                    <details><summary>"Whole trace"</summary><pre class="trace">{trace}</pre></details>
                })}
            </td>
        </tr>
    }
}

/// The changes the connector page offers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Act {
    Pause,
    Resume,
    Stop,
    Restart,
    RestartTask,
    Delete,
}

type Changes = Action<(Act, ConnectorArgs), Result<ConnectorChanged, ApiError>>;

fn args_for(cluster: &str, c: &ConnectorSummary) -> ConnectorArgs {
    ConnectorArgs {
        cluster: cluster.to_string(),
        connect: c.connect.clone().into(),
        name: c.name.clone().into(),
        ..ConnectorArgs::default()
    }
}

/// The one action every change of the page goes through.
fn change_action(changed: Callback<String>) -> Changes {
    let send = |(act, args): &(Act, ConnectorArgs)| {
        let (act, args) = (*act, args.clone());
        async move {
            match act {
                Act::Pause => pause_connector(args).await,
                Act::Resume => resume_connector(args).await,
                Act::Stop => stop_connector(args).await,
                Act::Restart => restart_connector(args).await,
                Act::RestartTask => restart_task(args).await,
                Act::Delete => delete_connector(args).await,
            }
        }
    };
    let said = |done: &ConnectorChanged| match done.action.as_str() {
        "restart_task" => format!("Restarted a task of {}.", done.name),
        other => format!(
            "{}: {other} sent; Connect now says {}.",
            done.name,
            done.state.clone().unwrap_or_else(|| "nothing yet".into())
        ),
    };
    object_changes(send, "connectors", said, changed)
}

#[component]
fn ConnectorActions(
    c: ConnectorSummary, target: StoredValue<ConnectorArgs>, send: Changes,
) -> impl IntoView {
    let state = c.state.clone();
    let failed = c.failed_tasks() > 0 || c.state == "FAILED";
    let go = move |act: Act, include: bool, only: bool| {
        let args = ConnectorArgs {
            include_tasks: include.into(),
            only_failed: only.into(),
            ..target.get_value()
        };
        send.dispatch((act, args));
    };
    let busy = move || send.pending().get();
    let deleting = RwSignal::new(false);
    let name = c.name.clone();
    view! {
        <button type="button" class="button" disabled=move || busy() || state == "PAUSED"
            on:click=move |_| go(Act::Pause, false, false)>"Pause"</button>
        <button type="button" class="button" disabled=busy
            on:click=move |_| go(Act::Resume, false, false)>"Resume"</button>
        <button type="button" class="button" disabled=busy
            on:click=move |_| go(Act::Stop, false, false)>"Stop"</button>
        <button type="button" class="button" disabled=busy
            on:click=move |_| go(Act::Restart, false, false)>"Restart"</button>
        <button type="button" class="button" disabled=busy
            on:click=move |_| go(Act::Restart, true, false)>"Restart with tasks"</button>
        {failed.then(|| view! {
            <button type="button" class="button" disabled=busy
                on:click=move |_| go(Act::Restart, true, true)>"Restart failed tasks"</button>
        })}
        <ConfirmSheet open=deleting button="Delete connector" title="Delete connector"
            field="Connector name" name=name
            warning="Connect stops the connector and forgets its config.".to_string()
            pending=send.pending().into() act=Callback::new(move |()| go(Act::Delete, false, false)) />
    }
}

/// A config as the form's text shows it: one `key=value` a line, in key order.
pub fn config_text<'a>(config: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    config.into_iter().map(|(k, v)| format!("{k}={v}\n")).collect()
}

/// The form's text with `key` set to `value`: its line replaced where it has one, else added
/// at the end; other lines kept as they are.
pub fn with_key(text: &str, key: &str, value: &str) -> String {
    let mut found = false;
    let mut out: String = text
        .lines()
        .map(|line| match line.split_once('=') {
            Some((k, _)) if k.trim() == key && !found => {
                found = true;
                format!("{key}={value}\n")
            }
            _ => format!("{line}\n"),
        })
        .collect();
    if !found {
        out.push_str(&format!("{key}={value}\n"));
    }
    out
}

/// The form's text read back: `key=value` lines, split at the first `=`; blank lines and lines
/// starting with `#` left out, keys and values trimmed; a line without `=` is named.
pub fn config_of(text: &str) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut config = std::collections::BTreeMap::new();
    for (at, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(format!("Line {} is not key=value: {line}", at + 1));
        };
        config.insert(key.trim().to_string(), value.trim().to_string());
    }
    Ok(config)
}

/// Create a connector (with `connects` to choose from) or edit the config of `editing`
/// (its Connect cluster and name): a sheet with the plugin, the name and the config as text,
/// validated by Connect first, each key's errors listed by it.
#[component]
pub fn ConnectorForm(
    cluster: String, connects: Vec<String>, #[prop(optional)] editing: Option<(String, String)>,
    initial: String, on_done: Callback<String>,
) -> impl IntoView {
    let creating = editing.is_none();
    let label = if creating { "Create connector" } else { "Edit config" };
    let open = RwSignal::new(false);
    let (first_connect, first_name) = editing
        .clone()
        .unwrap_or_else(|| (connects.first().cloned().unwrap_or_default(), String::new()));
    let connect = RwSignal::new(first_connect);
    let name = RwSignal::new(first_name);
    let text = RwSignal::new(initial);
    let preview = RwSignal::new(None::<ConnectorConfigured>);
    let error = RwSignal::new(None::<String>);
    let cluster = StoredValue::new(cluster);
    let plugins = Resource::new(
        move || (cluster.get_value(), connect.get(), open.get() && creating),
        |(c, k, wanted)| async move {
            if wanted {
                connector_plugins(c, k.into()).await.map(|l| l.plugins).unwrap_or_default()
            } else {
                Vec::new()
            }
        },
    );
    let send = Action::new_local(move |dry_run: &bool| {
        let dry_run = *dry_run;
        let config = config_of(&text.get_untracked());
        let args = config.map(|config| ConnectorConfigArgs {
            cluster: cluster.get_value(),
            connect: connect.get_untracked().into(),
            name: name.get_untracked().into(),
            config: config.into(),
            dry_run: dry_run.into(),
        });
        async move {
            let answer = match args {
                Err(said) => Err(ApiError::bad_request("config", said)),
                Ok(args) if creating => create_connector(args).await,
                Ok(args) => update_connector(args).await,
            };
            (dry_run, answer)
        }
    });
    follow_change(send, preview, error, move |done: ConnectorConfigured| {
        open.set(false);
        let did = if creating { "Created" } else { "Saved the config of" };
        on_done.run(format!("{did} connector {}.", done.name));
    });
    let choose = move |class: String| {
        let rest: String = text
            .get_untracked()
            .lines()
            .filter(|l| !l.trim_start().starts_with("connector.class"))
            .map(|l| format!("{l}\n"))
            .collect();
        text.set(format!("connector.class={class}\n{rest}"));
    };
    let connects = StoredValue::new(connects);
    view! {
        <button type="button" class="button" on:click=move |_| open.update(|o| *o = !*o)>{label}</button>
        <Show when=move || open.get()>
            <div class="panel" role="dialog" aria-label=label>
                <h2>{label}</h2>
                {creating.then(|| view! {
                    <label>"Connect cluster"
                        <select on:change=move |ev| connect.set(event_target_value(&ev))>
                            {connects.get_value().into_iter().map(|k| view! { <option value=k.clone()>{k.clone()}</option> }).collect_view()}
                        </select>
                    </label>
                    <Suspense fallback=|| view! { <p class="muted">"Reading the plugins…"</p> }>
                        {move || Suspend::new(async move {
                            let options = plugins.await.into_iter().map(|p| view! {
                                <option value=p.class.clone()>{format!("{} ({})", short_class(&p.class), p.kind)}</option>
                            }).collect_view();
                            view! {
                                <label>"Plugin"
                                    <select on:change=move |ev| choose(event_target_value(&ev))>
                                        <option value="">"Choose a plugin"</option>
                                        {options}
                                    </select>
                                </label>
                            }
                        })}
                    </Suspense>
                    <label>"Name"
                        <input type="text" autocomplete="off" bind:value=name />
                    </label>
                })}
                <label>"Config (key=value, one a line; a masked value kept as ********)"
                    <textarea rows="12" class="mono" bind:value=text></textarea>
                </label>
                <DryRunButtons check="Validate" apply=if creating { "Create" } else { "Save" } open=open
                    pending=send.pending().into() dispatch=Callback::new(move |dry| { send.dispatch(dry); })
                    blocked=Signal::derive(move || preview.get().is_none_or(|p| p.error_count > 0)) />
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                {move || preview.get().map(|p| view! {
                    <p role="status" data-figure="validation">{if p.error_count == 0 { "Connect finds no error in this config.".to_string() } else { format!("Connect finds {} errors:", p.error_count) }}</p>
                    // The plugin's required keys and those in error, each a field of its own
                    // (what it holds in the text above), Connect's errors beside it.
                    <div class="verdicts">
                        {p.verdicts.into_iter().map(|v| {
                            let key = v.name.clone();
                            let value = config_of(&text.get_untracked()).ok().and_then(|c| c.get(&key).cloned()).unwrap_or_default();
                            view! {
                                <label data-key=v.name.clone() title=v.documentation.clone().unwrap_or_default()>
                                    <span class="mono">{v.name.clone()}{v.required.then_some(" (required)")}</span>
                                    <input type="text" class="mono" autocomplete="off" value=value
                                        on:change=move |ev| text.update(|t| *t = with_key(t, &key, &event_target_value(&ev))) />
                                    {(!v.errors.is_empty()).then(|| view! { <span class="error-text">{v.errors.join(" ")}</span> })}
                                </label>
                            }
                        }).collect_view()}
                    </div>
                })}
            </div>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_text_reads_back_as_it_was_written() {
        let text = config_text([("topics", "a,b"), ("file", "/tmp/x=y")]);
        let back = config_of(&format!("# a comment\n\n{text}")).expect("config");
        assert_eq!(back.get("file").map(String::as_str), Some("/tmp/x=y"));
        assert_eq!(back.get("topics").map(String::as_str), Some("a,b"));
        assert_eq!(config_of("topics a"), Err("Line 1 is not key=value: topics a".into()));
    }

    #[test]
    fn a_field_sets_its_own_line_or_adds_one() {
        let text = "# note\ntopics=a\nfile=/tmp/x\n";
        assert_eq!(with_key(text, "topics", "a,b"), "# note\ntopics=a,b\nfile=/tmp/x\n");
        assert_eq!(with_key(text, "tasks.max", "2"), format!("{text}tasks.max=2\n"));
        let back = config_of(&with_key("", "file", "/tmp/y=z")).expect("config");
        assert_eq!(back.get("file").map(String::as_str), Some("/tmp/y=z"));
    }
}
