//! The forms of the group changes on a group's page: Reset offsets (always by a plan shown
//! first, then applied exactly as shown), Delete offsets of one topic, and Delete group, the last
//! two after the group's name is typed.

use leptos::prelude::*;

use crate::api::{
    delete_group, delete_offsets, reset_offsets, OffsetPlan, ResetOffsetsArgs, ResetTo,
};
use crate::components::change::{confirmed_change, ConfirmSheet, TypedConfirm};
use crate::components::table::{Col, DataTable};
use crate::format::{parse_duration, parse_instant, thousands};

/// Reset offsets: the scope and the target, the plan, then Apply this plan.
#[component]
pub fn ResetOffsets(
    cluster: String, group: String,
    /// The topics the group has committed offsets on.
    topics: Vec<String>,
    on_done: Callback<String>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let topic = RwSignal::new(String::new());
    let partitions = RwSignal::new(String::new());
    let to = RwSignal::new("earliest".to_string());
    let value = RwSignal::new(String::new());
    let plan = RwSignal::new(None::<OffsetPlan>);
    let stale = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let target = StoredValue::new((cluster, group));
    let topics = StoredValue::new(topics);

    // The arguments the form describes, or what is wrong with it.
    let args = move || -> Result<ResetOffsetsArgs, String> {
        let (cluster, group) = target.get_value();
        let to_kind = match to.get().as_str() {
            "latest" => ResetTo::Latest,
            "offset" => ResetTo::Offset,
            "timestamp" => ResetTo::Timestamp,
            "shift" => ResetTo::Shift,
            "duration" => ResetTo::Duration,
            _ => ResetTo::Earliest,
        };
        let typed = value.get();
        let value = match to_kind {
            ResetTo::Earliest | ResetTo::Latest => None,
            ResetTo::Offset => Some(
                typed
                    .trim()
                    .parse::<i64>()
                    .map_err(|_| "The offset is a whole number.".to_string())?,
            ),
            ResetTo::Shift => Some(typed.trim().parse::<i64>().map_err(|_| {
                "The shift is a whole number of records (negative: back).".to_string()
            })?),
            ResetTo::Timestamp => Some(parse_instant(&typed)?),
            ResetTo::Duration => Some(parse_duration(&typed)?),
        };
        let topic = topic.get().trim().to_string();
        let chosen = partitions.get();
        let chosen: Vec<i32> = chosen
            .split([',', ' '])
            .filter(|p| !p.is_empty())
            .map(|p| p.parse::<i32>().map_err(|_| format!("{p:?} is not a partition number.")))
            .collect::<Result<_, _>>()?;
        if !chosen.is_empty() && topic.is_empty() {
            return Err("Partitions belong to one topic: pick it.".into());
        }
        Ok(ResetOffsetsArgs {
            cluster,
            group: group.into(),
            topic: (!topic.is_empty()).then_some(topic).into(),
            partitions: (!chosen.is_empty()).then_some(chosen).into(),
            to: to_kind.into(),
            value: value.into(),
            ..Default::default()
        })
    };
    let send = Action::new_local(move |args: &ResetOffsetsArgs| {
        let args = args.clone();
        async move { reset_offsets(args).await }
    });
    Effect::new(move |_| {
        let Some(answer) = send.value().get() else {
            return;
        };
        match answer {
            Ok(answer) if answer.applied => {
                error.set(None);
                plan.set(None);
                open.set(false);
                on_done.run(format!(
                    "Reset {} partition{}: {} records skipped, {} to read again.",
                    answer.partitions.len(),
                    if answer.partitions.len() == 1 { "" } else { "s" },
                    thousands(answer.skipped),
                    thousands(answer.reread)
                ));
            }
            Ok(answer) => {
                error.set(None);
                stale.set(answer.stale);
                plan.set(Some(answer));
            }
            Err(e) => {
                plan.set(None);
                error.set(Some(e.message));
            }
        }
    });
    let forget = move || {
        plan.set(None);
        stale.set(false);
        error.set(None);
    };
    let needs_value = move || !matches!(to.get().as_str(), "earliest" | "latest");
    let value_label = move || match to.get().as_str() {
        "offset" => "Offset",
        "timestamp" => "Time (ms, or 2026-11-30 08:57, UTC unless a zone follows)",
        "shift" => "Records to shift by (negative: back)",
        _ => "How far back (ms, or 30s, 15m, 2h, 1d)",
    };

    view! {
        <button type="button" class="button" on:click=move |_| { open.update(|o| *o = !*o); forget(); }>
            "Reset offsets"
        </button>
        <Show when=move || open.get()>
            <form class="panel wide" aria-label="Reset offsets" on:submit=move |ev| {
                ev.prevent_default();
                match args() {
                    Ok(mut a) => { a.dry_run = true.into(); send.dispatch(a); }
                    Err(e) => error.set(Some(e)),
                }
            }>
                <p>"Kafka moves the offsets of a group only while no member is connected. klens shows the plan first, and applies exactly that plan."</p>
                <label>"Topic"
                    <select prop:value=move || topic.get()
                        on:change=move |ev| { topic.set(event_target_value(&ev)); forget(); }>
                        <option value="">"Every topic the group has offsets on"</option>
                        {topics.get_value().into_iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Partitions of that topic (empty: all), e.g. 0, 3"
                    <input type="text" autocomplete="off" prop:value=move || partitions.get()
                        on:input=move |ev| { partitions.set(event_target_value(&ev)); forget(); } />
                </label>
                <label>"Move each offset to"
                    <select prop:value=move || to.get() on:change=move |ev| { to.set(event_target_value(&ev)); forget(); }>
                        <option value="earliest">"the earliest record"</option>
                        <option value="latest">"the end (skip everything so far)"</option>
                        <option value="offset">"an offset"</option>
                        <option value="timestamp">"the first record at or after a time"</option>
                        <option value="shift">"a shift by some records"</option>
                        <option value="duration">"the first record some time ago"</option>
                    </select>
                </label>
                <Show when=needs_value>
                    <label>{value_label}
                        <input type="text" autocomplete="off" prop:value=move || value.get()
                            on:input=move |ev| { value.set(event_target_value(&ev)); forget(); } />
                    </label>
                </Show>
                <div class="panel-actions">
                    <button type="submit" class="button" disabled=move || send.pending().get()>"Show plan"</button>
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || stale.get().then(|| view! {
                    <p class="hint" role="alert">"The group's offsets moved since that plan was made, so nothing changed. This is the plan now."</p>
                })}
                {move || plan.get().map(|p| {
                    let apply = p.to_apply();
                    let empty = apply.is_empty();
                    view! {
                        <PlanTable plan=p.clone() />
                        <div class="panel-actions">
                            <button type="button" class="button button-primary" disabled=move || send.pending().get() || empty
                                on:click=move |_| match args() {
                                    Ok(mut a) => { a.plan = apply.clone().into(); send.dispatch(a); }
                                    Err(e) => error.set(Some(e)),
                                }>
                                "Apply this plan"
                            </button>
                        </div>
                    }
                })}
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </form>
        </Show>
    }
}

/// The plan: each partition's move and what it does to the lag.
#[component]
pub fn PlanTable(plan: OffsetPlan) -> impl IntoView {
    view! {
        <DataTable label="Plan" class="compact" cols=&[Col::Text("Topic"), Col::Num("Partition"), Col::Num("Committed now"), Col::Num("New offset"), Col::Num("Lag now"), Col::Num("Lag after"), Col::Num("Skipped"), Col::Num("Read again")]>
            <tbody>
                {plan.partitions.into_iter().map(|m| view! {
                    <tr data-partition=format!("{}-{}", m.topic, m.partition)>
                        <th scope="row" class="mono">{m.topic.clone()}</th>
                        <td class="num mono">{m.partition}</td>
                        <td class="num mono">{m.from.map_or("none".to_string(), |f| f.to_string())}</td>
                        <td class="num mono">{m.to}</td>
                        <td class="num">{m.lag_before.map_or("—".to_string(), thousands)}</td>
                        <td class="num">{thousands(m.lag_after)}</td>
                        <td class="num">{thousands(m.skipped)}</td>
                        <td class="num">{thousands(m.reread)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
            <tfoot><tr>
                <th scope="row" colspan="6">"In all"</th>
                <td class="num">{thousands(plan.skipped)}</td>
                <td class="num">{thousands(plan.reread)}</td>
            </tr></tfoot>
        </DataTable>
    }
}

/// Delete offsets: the group's committed offsets on one topic.
#[component]
pub fn DeleteOffsets(
    cluster: String, group: String, topics: Vec<String>, on_done: Callback<String>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let topic = RwSignal::new(topics.first().cloned().unwrap_or_default());
    let error = RwSignal::new(None::<String>);
    let target = StoredValue::new((cluster, group.clone()));
    let send = Action::new_local(move |topic: &String| {
        let (cluster, group) = target.get_value();
        let topic = topic.clone();
        async move { delete_offsets(cluster, group.into(), topic.into()).await }
    });
    Effect::new(move |_| match send.value().get() {
        Some(Ok(done)) => {
            open.set(false);
            on_done.run(format!(
                "Deleted the offsets of the group on {} ({} partitions).",
                done.topic.unwrap_or_default(),
                done.partitions.len()
            ));
        }
        Some(Err(e)) => error.set(Some(e.message)),
        None => {}
    });
    view! {
        <button type="button" class="button button-danger" on:click=move |_| open.update(|o| *o = !*o)>
            "Delete offsets"
        </button>
        <Show when=move || open.get()>
            <div class="panel" role="dialog" aria-label="Delete offsets">
                <label>"Topic"
                    <select bind:value=topic>
                        {topics.iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <TypedConfirm label="Delete offsets".to_string() field="Group name" name=group.clone()
                    warning="The group forgets where it was on this topic; its consumers start again from their reset policy.".to_string()
                    ready=Signal::derive(move || !topic.get().is_empty())
                    pending=send.pending().into()
                    act=Callback::new(move |()| { send.dispatch(topic.get_untracked()); })
                    cancel=Callback::new(move |()| open.set(false)) />
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </div>
        </Show>
    }
}

/// Delete group: an empty group and its offsets. `start_open` opens the sheet at once (the
/// Remove link of a dead group's node in a flow leads here so).
#[component]
pub fn DeleteGroup(
    cluster: String, group: String, on_done: Callback<String>, #[prop(optional)] start_open: bool,
) -> impl IntoView {
    let open = RwSignal::new(start_open);
    let error = RwSignal::new(None::<String>);
    let target = StoredValue::new((cluster, group.clone()));
    let send = confirmed_change(
        open,
        error,
        move || {
            let (cluster, group) = target.get_value();
            delete_group(cluster, group.into())
        },
        |done: &crate::api::GroupChanged| format!("Deleted group {}.", done.group),
        on_done,
    );
    view! {
        <ConfirmSheet open=open error=error button="Delete group" title="Delete group"
            field="Group name" name=group
            warning="This deletes the group and every offset it committed.".to_string()
            pending=send.pending().into() act=Callback::new(move |()| { send.dispatch(()); }) />
    }
}
