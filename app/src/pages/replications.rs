//! `/c/{cluster}/replications`: the replications into and out of a cluster (REPLICATIONS), each
//! with where it copies from and to, its state and health and its lag, and Create replication
//! for a caller who may manage them. `/c/{cluster}/replications/{name}`: one replication with
//! its copied partitions (lag, age of the newest copy), its MirrorMaker connectors and tasks,
//! the checkpoints of its groups, a failover per group, and edit, pause, resume and delete.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::connectors::connector_state;
use super::flow::FlowLink;
use super::group_changes::PlanTable;
use crate::api::{
    create_replication, delete_replication, failover_group, pause_replication, replication,
    replications, resume_replication, update_replication, FailoverArgs, Naming, OffsetPlan,
    ReplicationArgs, ReplicationChanged, ReplicationConfigured, ReplicationDetail, ReplicationName,
    ReplicationSummary,
};
use crate::components::access::{allows, identity, offers};
use crate::components::change::{follow_change, object_changes, ConfirmSheet, DryRunButtons};
use crate::components::page::{use_changes, CallerAccess, ListHead, Loaded, Notice};
use crate::components::table::{ago, Col, DataTable};
use crate::components::{use_cluster, ErrorAlert};
use crate::error::ApiError;
use crate::format::{or_dash, page_url, query_value, thousands};
use crate::Privilege;

fn replication_url(cluster: &str, name: &str) -> String {
    format!("/c/{}/replications/{}", query_value(cluster), query_value(name))
}

fn health(h: &str) -> impl IntoView {
    let class = match h {
        "healthy" => "badge badge-ok",
        "failed" => "badge badge-bad",
        _ => "badge badge-warn",
    };
    view! { <span class=class data-health=h.to_string()>{h.to_string()}</span> }
}

/// Patterns as a person types them: separated by commas or spaces.
fn patterns_of(text: &str) -> Vec<String> {
    text.split([',', ' ', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[component]
pub fn ReplicationsPage() -> impl IntoView {
    let cluster = use_cluster();
    let list = Resource::new(cluster, replications);
    let who = identity();
    let (notice, changed) = use_changes(move || list.refetch());
    view! {
        <ListHead title="Replications" notice=notice>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    let w = who.await.ok()?;
                    let here = w.cluster(&cluster())?;
                    (offers(Some(here), Privilege::ManageReplications) && !here.connects.is_empty()).then(|| {
                        let sources = w.clusters.iter().map(|c| c.name.clone()).collect();
                        view! { <ReplicationForm cluster=cluster() connects=here.connects.clone() sources=sources editing=None on_done=changed /> }
                    })
                })}
            </Suspense>
        </ListHead>
        <Loaded of=list ok=move |list: crate::api::ReplicationList, _| {
            let here = list.cluster.clone();
            view! {
                {list.errors.into_iter().map(|e| view! { <p class="muted">{e}</p> }).collect_view()}
                {if list.replications.is_empty() {
                    view! { <p class="empty">"No replication into or out of this cluster that you may see."</p> }.into_any()
                } else {
                    view! {
                        <DataTable label="Replications" cols=&[Col::Text("Replication"), Col::Text("From"), Col::Text("Into"), Col::Text("Topics"), Col::Text("State"), Col::Num("Lag")]>
                            <tbody>
                                {list.replications.into_iter().map(|r| view! { <ReplicationRow here=here.clone() r=r /> }).collect_view()}
                            </tbody>
                        </DataTable>
                    }.into_any()
                }}
            }.into_any()

        } />
    }
}

#[component]
fn ReplicationRow(here: String, r: ReplicationSummary) -> impl IntoView {
    view! {
        <tr data-replication=r.name.clone()>
            <th scope="row" class="mono">
                <a class="cut" href=replication_url(&here, &r.name) title=r.name.clone()>{r.name.clone()}</a>
                {r.cause.clone().map(|c| view! { <div class="cause error-text cut" title=c.clone()>{c.clone()}</div> })}
            </th>
            <td><a href=format!("/c/{}", query_value(&r.source))>{r.source.clone()}</a></td>
            <td><a href=format!("/c/{}", query_value(&r.target))>{r.target.clone()}</a></td>
            <td class="mono"><span class="cut" title=r.topics.join(", ")>{r.topics.join(", ")}</span></td>
            <td>{connector_state(&r.state)} " " {health(&r.health)}</td>
            <td class="num" data-figure="lag">{or_dash(r.lag, thousands)}</td>
        </tr>
    }
}

#[component]
pub fn ReplicationPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = use_cluster();
    let name = move || params.read().get("name").unwrap_or_default();
    let detail = Resource::new(move || (cluster(), name()), |(c, n)| replication(c, n.into()));
    let (notice, changed) = use_changes(move || detail.refetch());
    view! {
        <Title text=move || format!("{} · replications of {}", name(), cluster()) />
        <Notice notice=notice />
        <Loaded of=detail named=Signal::derive(name) ok=move |d: ReplicationDetail, access: CallerAccess| {
            // Changes are made on the target, under the target's decision.
            let target = access.on(&d.replication.target);
            let on = d.replication.resource();
            let here = d.cluster == d.replication.target;
            let manage = here && allows(target, Privilege::ManageReplications, &on);
            let offsets = here && allows(target, Privilege::ReplicationOffsets, &on);
            let sources = access.clusters();
            let flow = access.on(&d.cluster).is_some_and(|a| a.can(Privilege::Topology));
            view! { <ReplicationView d=d manage=manage offsets=offsets flow=flow sources=sources changed=changed /> }.into_any()
        } />
    }
}

#[component]
fn ReplicationView(
    d: ReplicationDetail, manage: bool, offsets: bool, flow: bool, sources: Vec<String>,
    changed: Callback<String>,
) -> impl IntoView {
    let r = d.replication.clone();
    let cluster = d.cluster.clone();
    let send = change_action(changed);
    let one =
        StoredValue::new(ReplicationName { cluster: cluster.clone(), name: r.name.clone().into() });
    let groups: Vec<String> = {
        let mut g: Vec<String> = d.checkpoints.iter().map(|c| c.group.clone()).collect();
        g.dedup();
        g
    };
    let now = d.served_at;
    view! {
        <div class="page-head">
            <h1 class="cut" title=r.name.clone()>{r.name.clone()} " " {connector_state(&r.state)} " " {health(&r.health)}</h1>
            <div class="actions">
                {flow.then(|| view! { <FlowLink cluster=cluster.clone() kind="replication" name=r.name.clone() /> })}
                {manage.then(|| view! {
                    <ReplicationForm cluster=cluster.clone() connects=vec![r.connect.clone()] sources=sources
                        editing=Some(r.clone()) on_done=changed />
                    <ReplicationActions name=r.name.clone() state=r.state.clone() one=one send=send />
                })}
            </div>
        </div>
        {move || send.value().get().and_then(|r| r.err()).map(|e| view! { <ErrorAlert error=e /> })}
        {r.cause.clone().map(|c| view! { <div class="error" role="alert"><p>{c}</p></div> })}
        {d.errors.iter().map(|e| view! { <p class="muted">{e.clone()}</p> }).collect_view()}
        <dl class="facts">
            <dt>"From"</dt><dd><a href=format!("/c/{}", query_value(&r.source))>{r.source.clone()}</a></dd>
            <dt>"Into"</dt><dd><a href=format!("/c/{}", query_value(&r.target))>{r.target.clone()}</a>" on Connect cluster "{r.connect.clone()}</dd>
            <dt>"Topics"</dt><dd class="mono">{r.topics.join(", ")}{(!r.exclude.is_empty()).then(|| format!(" except {}", r.exclude.join(", ")))}</dd>
            <dt>"Names on the target"</dt><dd>{match r.naming { Naming::Identity => "the same".to_string(), Naming::Prefix => format!("{}.<topic>", r.source) }}</dd>
            <dt>"Topic configs"</dt><dd>{if r.sync_configs { "follow the source" } else { "kept apart" }}</dd>
            <dt>"Groups checkpointed"</dt><dd class="mono">{if r.groups.is_empty() { "none".to_string() } else { r.groups.join(", ") }}</dd>
            <dt>"Lag"</dt><dd data-figure="lag">{or_dash(r.lag, thousands)}{format!(" records (lagging past {})", thousands(d.lag_threshold))}</dd>
        </dl>
        <h2>"Partitions"</h2>
        <DataTable label="Partitions" cols=&[Col::Text("Topic"), Col::Text("Copy"), Col::Num("Partition"), Col::Num("Source end"), Col::Num("Copied to"), Col::Num("Lag"), Col::Num("Newest copy")]>
            <tbody>
                {d.partitions.into_iter().map(|p| view! {
                    <tr data-partition=format!("{}-{}", p.topic, p.partition)>
                        <th scope="row" class="mono"><a href=page_url(&r.source, "topics", &p.topic)>{p.topic.clone()}</a></th>
                        <td class="mono"><a href=page_url(&r.target, "topics", &p.target_topic)>{p.target_topic.clone()}</a></td>
                        <td class="num mono">{p.partition}</td>
                        <td class="num mono">{or_dash(p.source_end, |n| n.to_string())}</td>
                        <td class="num mono">{or_dash(p.replicated_to, |n| n.to_string())}</td>
                        <td class="num" data-figure="partition-lag">{or_dash(p.lag, thousands)}</td>
                        <td class="num">{or_dash(p.newest_age_ms, ago)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </DataTable>
        <h2>"Checkpoints"</h2>
        {if d.checkpoints.is_empty() {
            view! { <p class="empty">{if r.groups.is_empty() { "This replication checkpoints no group." } else { "No checkpoint yet: MirrorMaker writes one once a group has committed on a copied topic." }}</p> }.into_any()
        } else {
            view! {
                <DataTable label="Checkpoints" cols=&[Col::Text("Group"), Col::Text("Copy"), Col::Num("Partition"), Col::Num("On the source"), Col::Num("On the target"), Col::Num("Written")]>
                    <tbody>
                        {d.checkpoints.into_iter().map(|c| view! {
                            <tr data-checkpoint=format!("{}/{}-{}", c.group, c.topic, c.partition)>
                                <th scope="row" class="mono">{c.group.clone()}</th>
                                <td class="mono">{c.topic.clone()}</td>
                                <td class="num mono">{c.partition}</td>
                                <td class="num mono">{c.upstream}</td>
                                <td class="num mono">{c.downstream}</td>
                                <td class="num">{or_dash(c.at, |t| ago(now.saturating_sub(t)))}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </DataTable>
            }.into_any()
        }}
        {offsets.then(|| view! {
            <div class="actions">
                {groups.into_iter().map(|g| view! { <Failover cluster=cluster.clone() name=r.name.clone() group=g changed=changed /> }).collect_view()}
            </div>
        })}
        <h2>"Connectors"</h2>
        <DataTable label="Connectors">
            <thead><tr><th scope="col">"Connector"</th><th scope="col">"State"</th><th scope="col">"Tasks"</th></tr></thead>
            <tbody>
                {d.connectors.into_iter().map(|c| view! {
                    <tr data-connector=c.name.clone()>
                        <th scope="row" class="mono">{c.name.clone()}</th>
                        <td>{connector_state(&c.state)}</td>
                        <td>{c.tasks.into_iter().map(|t| view! {
                            <div>{format!("{} ", t.id)}{connector_state(&t.state)}
                                {t.cause.map(|cause| view! { " " <span class="error-text">{cause}</span> })}
                                {t.trace.map(|trace| view! { <details><summary>"Whole trace"</summary><pre class="trace">{trace}</pre></details> })}
                            </div>
                        }).collect_view()}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </DataTable>
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Act {
    Pause,
    Resume,
    Delete,
}

type Changes = Action<(Act, ReplicationName), Result<ReplicationChanged, ApiError>>;

/// The one action every change of the page goes through.
fn change_action(changed: Callback<String>) -> Changes {
    let send = |(act, args): &(Act, ReplicationName)| {
        let (act, args) = (*act, args.clone());
        async move {
            match act {
                Act::Pause => pause_replication(args).await,
                Act::Resume => resume_replication(args).await,
                Act::Delete => delete_replication(args).await,
            }
        }
    };
    let said = |done: &ReplicationChanged| {
        format!("{}: {} sent to its connectors.", done.name, done.action)
    };
    object_changes(send, "replications", said, changed)
}

#[component]
fn ReplicationActions(
    name: String, state: String, one: StoredValue<ReplicationName>, send: Changes,
) -> impl IntoView {
    let go = move |act: Act| {
        send.dispatch((act, one.get_value()));
    };
    let busy = move || send.pending().get();
    let deleting = RwSignal::new(false);
    let paused = state == "PAUSED";
    view! {
        <button type="button" class="button" disabled=move || busy() || paused on:click=move |_| go(Act::Pause)>"Pause"</button>
        <button type="button" class="button" disabled=busy on:click=move |_| go(Act::Resume)>"Resume"</button>
        <ConfirmSheet open=deleting button="Delete replication" title="Delete replication"
            field="Replication name" name=name
            warning="MirrorMaker stops copying; the copies and their records stay on the target.".to_string()
            pending=send.pending().into() act=Callback::new(move |()| go(Act::Delete)) />
    }
}

/// Fail one group over to the target: a plan from the newest checkpoints first, applied only
/// while it is current.
#[component]
fn Failover(
    cluster: String, name: String, group: String, changed: Callback<String>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let plan = RwSignal::new(None::<OffsetPlan>);
    let error = RwSignal::new(None::<String>);
    let args = StoredValue::new(FailoverArgs {
        cluster,
        name: name.into(),
        group: group.clone().into(),
        ..FailoverArgs::default()
    });
    let send = Action::new_local(move |dry_run: &bool| {
        let dry_run = *dry_run;
        let sent = plan.get_untracked().filter(|_| !dry_run).map(|p| p.to_apply());
        let args = FailoverArgs { dry_run: dry_run.into(), plan: sent.into(), ..args.get_value() };
        async move { (dry_run, failover_group(args).await) }
    });
    follow_change(send, plan, error, move |done: OffsetPlan| {
        if done.stale {
            error.set(Some(
                "The group's offsets moved since this plan: here is the plan as it stands now."
                    .into(),
            ));
            plan.set(Some(done));
            return;
        }
        open.set(false);
        changed.run(format!(
            "Failed group {} over: its offsets on the target are the translated ones.",
            done.group
        ));
    });
    let label = format!("Fail over {group}");
    view! {
        <button type="button" class="button" on:click=move |_| {
            open.update(|o| *o = !*o);
            if open.get_untracked() { send.dispatch(true); }
        }>{label.clone()}</button>
        <Show when=move || open.get()>
            <div class="panel wide" role="dialog" aria-label=label.clone()>
                <h2>{label.clone()}</h2>
                <p class="muted">"Moves the group's committed offsets on the target to where MirrorMaker's newest checkpoints put its offsets on the source. The group must have no members there."</p>
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                {move || plan.get().map(|p| view! { <PlanTable plan=p /> })}
                <DryRunButtons check="Preview" apply="Apply" danger=true open=open
                    pending=send.pending().into() dispatch=Callback::new(move |dry| { send.dispatch(dry); })
                    blocked=Signal::derive(move || plan.get().is_none()) />
            </div>
        </Show>
    }
}

/// Create a replication into `cluster` or edit one: source, Connect cluster, topics and
/// exclusions (names or globs), naming, config sync and groups; checked and validated by
/// Connect first.
#[component]
fn ReplicationForm(
    cluster: String, connects: Vec<String>, sources: Vec<String>,
    editing: Option<ReplicationSummary>, on_done: Callback<String>,
) -> impl IntoView {
    let creating = editing.is_none();
    let label = if creating { "Create replication" } else { "Edit replication" };
    let open = RwSignal::new(false);
    let was = editing.clone();
    let name = RwSignal::new(was.as_ref().map(|r| r.name.clone()).unwrap_or_default());
    let source = RwSignal::new(
        was.as_ref()
            .map_or_else(|| sources.first().cloned().unwrap_or_default(), |r| r.source.clone()),
    );
    let connect = RwSignal::new(
        was.as_ref()
            .map_or_else(|| connects.first().cloned().unwrap_or_default(), |r| r.connect.clone()),
    );
    let topics = RwSignal::new(was.as_ref().map(|r| r.topics.join(", ")).unwrap_or_default());
    let exclude = RwSignal::new(was.as_ref().map(|r| r.exclude.join(", ")).unwrap_or_default());
    let groups = RwSignal::new(was.as_ref().map(|r| r.groups.join(", ")).unwrap_or_default());
    let identity_naming = RwSignal::new(was.as_ref().is_some_and(|r| r.naming == Naming::Identity));
    let sync = RwSignal::new(was.as_ref().is_none_or(|r| r.sync_configs));
    let preview = RwSignal::new(None::<ReplicationConfigured>);
    let error = RwSignal::new(None::<String>);
    let cluster = StoredValue::new(cluster);
    let send = Action::new_local(move |dry_run: &bool| {
        let args = ReplicationArgs {
            cluster: cluster.get_value(),
            name: name.get_untracked().into(),
            source: source.get_untracked().into(),
            connect: connect.get_untracked().into(),
            topics: patterns_of(&topics.get_untracked()).into(),
            exclude: patterns_of(&exclude.get_untracked()).into(),
            naming: if identity_naming.get_untracked() { Naming::Identity } else { Naming::Prefix }
                .into(),
            sync_configs: sync.get_untracked().into(),
            groups: patterns_of(&groups.get_untracked()).into(),
            dry_run: (*dry_run).into(),
        };
        let dry_run = *dry_run;
        async move {
            let answer = if creating {
                create_replication(args).await
            } else {
                update_replication(args).await
            };
            (dry_run, answer)
        }
    });
    follow_change(send, preview, error, move |done: ReplicationConfigured| {
        open.set(false);
        let did = if creating { "Created" } else { "Saved" };
        on_done.run(format!("{did} replication {}.", done.name));
    });
    let choices = |all: Vec<String>, chosen: RwSignal<String>| {
        all.into_iter().map(move |c| view! { <option value=c.clone() selected=chosen.get_untracked() == c>{c.clone()}</option> }).collect_view()
    };
    let (sources, connects) = (StoredValue::new(sources), StoredValue::new(connects));
    view! {
        <button type="button" class="button" on:click=move |_| open.update(|o| *o = !*o)>{label}</button>
        <Show when=move || open.get()>
            <div class="panel" role="dialog" aria-label=label>
                <h2>{label}</h2>
                <label>"Name"
                    <input type="text" autocomplete="off" disabled=!creating bind:value=name />
                </label>
                <label>"From cluster"
                    <select disabled=!creating on:change=move |ev| source.set(event_target_value(&ev))>{choices(sources.get_value(), source)}</select>
                </label>
                <label>"Connect cluster"
                    <select disabled=!creating on:change=move |ev| connect.set(event_target_value(&ev))>{choices(connects.get_value(), connect)}</select>
                </label>
                <label>"Topics (names or globs such as orders-*, separated by commas)"
                    <input type="text" class="mono" autocomplete="off" bind:value=topics />
                </label>
                <label>"Except"
                    <input type="text" class="mono" autocomplete="off" bind:value=exclude />
                </label>
                <label>"Groups to checkpoint for failover"
                    <input type="text" class="mono" autocomplete="off" bind:value=groups />
                </label>
                <label class="inline"><input type="checkbox" prop:checked=move || identity_naming.get()
                    on:change=move |ev| identity_naming.set(event_target_checked(&ev)) />"Keep the topics' names (else <source>.<topic>)"</label>
                <label class="inline"><input type="checkbox" prop:checked=move || sync.get()
                    on:change=move |ev| sync.set(event_target_checked(&ev)) />"Topic configs follow the source"</label>
                <DryRunButtons check="Validate" apply=if creating { "Create" } else { "Save" } open=open
                    pending=send.pending().into() dispatch=Callback::new(move |dry| { send.dispatch(dry); })
                    blocked=Signal::derive(move || preview.get().is_none_or(|p| p.error_count > 0)) />
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                {move || preview.get().map(|p| view! {
                    <p role="status" data-figure="validation">{if p.error_count == 0 {
                        format!("Connect finds no error; it will run {}.", p.connectors.join(", "))
                    } else {
                        format!("Connect finds {} errors:", p.error_count)
                    }}</p>
                    <ul>{p.verdicts.into_iter().map(|v| view! { <li><span class="mono">{v.name}</span>": "{v.errors.join(" ")}</li> }).collect_view()}</ul>
                })}
            </div>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_split_by_commas_spaces_and_lines() {
        assert_eq!(patterns_of(" orders, pay-*\nledger  "), ["orders", "pay-*", "ledger"]);
        assert!(patterns_of(" , ").is_empty());
    }
}
