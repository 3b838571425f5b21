//! "Copy / redrive" on the Data tab and on a record: what the page shows, copied to a topic
//! (on this cluster or another) or redriven to the topics its dead-letter headers name, after
//! a dry run that says what would go where. The copy runs on the server as a job; the sheet
//! follows the caller's copies of the cluster while it is open.

use leptos::prelude::*;

use crate::api::{cancel_copy, copy_records, Arg, CopyArgs, CopyJob, CopyPlan, CopyState};
use crate::components::access::{identity, offers};
use crate::components::table::{Col, DataTable};
use crate::format::thousands;
use crate::Privilege;

/// What the page shows, to copy: the Data tab's selection, or one record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selection {
    pub partition: Option<i32>,
    /// With `partition`: the first offset and the one to stop before.
    pub offsets: Option<(i64, i64)>,
    /// A start time, ms since the epoch.
    pub from: Option<i64>,
    pub q: String,
    pub exact: bool,
    pub expr: String,
}

impl Selection {
    /// The selection in words.
    fn said(&self) -> String {
        let mut parts = Vec::new();
        match (self.partition, self.offsets) {
            (Some(p), Some((first, stop))) if stop == first + 1 => {
                parts.push(format!("the record at offset {first} of partition {p}"))
            }
            (Some(p), Some((first, stop))) => {
                parts.push(format!("offsets {first} to {} of partition {p}", stop - 1))
            }
            (Some(p), None) => parts.push(format!("partition {p}")),
            (None, _) => parts.push("every partition".into()),
        }
        if let Some(ms) = self.from {
            parts.push(format!("from {}", crate::components::clock::shown_time(ms, false)));
        }
        if !self.q.is_empty() {
            let how = if self.exact { "exactly" } else { "containing" };
            parts.push(format!("{how} \u{201c}{}\u{201d}", self.q));
        }
        if !self.expr.is_empty() {
            parts.push(format!("where {}", self.expr));
        }
        parts.join(", ")
    }
}

/// The button and its sheet, where the caller may write somewhere (PRODUCE on some topic of a
/// writable cluster).
#[component]
pub fn CopyRecords(
    cluster: String, topic: String, #[prop(into)] selection: Signal<Selection>,
) -> impl IntoView {
    let who = identity();
    let source = StoredValue::new((cluster, topic));
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let clusters: Vec<String> = who
                    .await
                    .map(|w| w.clusters.iter()
                        .filter(|c| offers(Some(c), Privilege::Produce))
                        .map(|c| c.name.clone())
                        .collect())
                    .unwrap_or_default();
                (!clusters.is_empty()).then(|| view! {
                    <CopySheet source=source.get_value() clusters=clusters selection=selection />
                })
            })}
        </Suspense>
    }
}

fn number(text: &str, what: &str) -> Result<Option<u64>, String> {
    match text.trim() {
        "" => Ok(None),
        t => t.parse::<u64>().map(Some).map_err(|_| format!("{what} is a whole number.")),
    }
}

#[component]
fn CopySheet(
    source: (String, String), clusters: Vec<String>, selection: Signal<Selection>,
) -> impl IntoView {
    let first = if clusters.contains(&source.0) { source.0.clone() } else { clusters[0].clone() };
    let source = StoredValue::new(source);
    let clusters = StoredValue::new(clusters);
    let open = RwSignal::new(false);
    let redrive = RwSignal::new(true);
    let target_cluster = RwSignal::new(first);
    let target_topic = RwSignal::new(String::new());
    let limit = RwSignal::new(String::new());
    let rate = RwSignal::new(String::new());
    let keep = RwSignal::new(false);
    let plan = RwSignal::new(None::<CopyPlan>);
    let jobs = RwSignal::new(Vec::<CopyJob>::new());
    let error = RwSignal::new(None::<String>);
    let forget = move || {
        plan.set(None);
        error.set(None);
    };

    let args = move |dry_run: bool| -> Result<CopyArgs, String> {
        let (cluster, topic) = source.get_value();
        let s = selection.get_untracked();
        let some = |t: &String| (!t.is_empty()).then(|| t.clone());
        let mut out = CopyArgs {
            cluster,
            topic: topic.into(),
            partition: s.partition.into(),
            from: s.from.map(|ms| ms.to_string()).into(),
            q: some(&s.q).into(),
            exact: s.exact.then_some(true).into(),
            expr: some(&s.expr).into(),
            limit: number(&limit.get_untracked(), "The limit")?.into(),
            rate: number(&rate.get_untracked(), "The rate")?
                .map(|r| u32::try_from(r).unwrap_or(u32::MAX))
                .into(),
            keep_timestamps: keep.get_untracked().then_some(true).into(),
            dry_run: dry_run.into(),
            ..Default::default()
        };
        if let Some((first, stop)) = s.offsets {
            out.offset = first.into();
            out.until_offset = stop.into();
        }
        if !redrive.get_untracked() {
            let name = target_topic.get_untracked().trim().to_string();
            if name.is_empty() {
                return Err("Name the topic to copy into.".into());
            }
            out.target_cluster = target_cluster.get_untracked().into();
            out.target_topic = name.into();
        }
        Ok(out)
    };
    let send = Action::new_local(move |a: &CopyArgs| copy_records(a.clone()));
    Effect::new(move |_| match send.value().get() {
        Some(Ok(answer)) => {
            error.set(None);
            plan.set(answer.plan);
            if let Some(job) = answer.job {
                jobs.update(|list| list.insert(0, job));
            }
        }
        Some(Err(e)) => {
            plan.set(None);
            error.set(Some(e.message));
        }
        None => {}
    });
    // The caller's copies of the cluster, read again every second while the sheet is open.
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        if !open.get() {
            return;
        }
        let cluster = source.with_value(|(c, _)| c.clone());
        let read = move || {
            let cluster = cluster.clone();
            leptos::task::spawn_local(async move {
                if let Ok(list) = crate::api::copy_jobs(cluster).await {
                    jobs.set(list.jobs);
                }
            });
        };
        read();
        let handle = set_interval_with_handle(read, std::time::Duration::from_secs(1)).ok();
        on_cleanup(move || {
            if let Some(handle) = handle {
                handle.clear();
            }
        });
    });
    let cancel = Action::new_local(move |id: &String| {
        let (cluster, id) = (source.with_value(|(c, _)| c.clone()), id.clone());
        async move { cancel_copy(cluster, Arg::Given(id)).await }
    });
    let dispatch = move |dry_run: bool| match args(dry_run) {
        Ok(a) => {
            send.dispatch(a);
        }
        Err(e) => error.set(Some(e)),
    };

    view! {
        <button type="button" class="button" on:click=move |_| { open.update(|o| *o = !*o); forget(); }>
            "Copy / redrive"
        </button>
        <Show when=move || open.get()>
            <form class="panel" role="dialog" aria-label="Copy or redrive records" on:submit=move |ev| {
                ev.prevent_default();
                dispatch(true);
            }>
                <h2>"Copy or redrive"</h2>
                <p>{move || format!("{}: {}.", source.with_value(|(_, t)| t.clone()), selection.get().said())}</p>
                <fieldset class="choice">
                    <legend>"Where to"</legend>
                    <label class="inline"><input type="radio" name="copy-to" prop:checked=move || redrive.get()
                        on:change=move |_| { redrive.set(true); forget(); } />"back to the topic each record's dead-letter headers name"</label>
                    <label class="inline"><input type="radio" name="copy-to" prop:checked=move || !redrive.get()
                        on:change=move |_| { redrive.set(false); forget(); } />"to a topic"</label>
                </fieldset>
                <Show when=move || !redrive.get()>
                    <label>"Cluster"
                        <select prop:value=move || target_cluster.get() on:change=move |ev| { target_cluster.set(event_target_value(&ev)); forget(); }>
                            {clusters.get_value().into_iter().map(|c| view! { <option value=c.clone()>{c.clone()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Topic"
                        <input type="text" class="mono" autocomplete="off" prop:value=move || target_topic.get()
                            on:input=move |ev| { target_topic.set(event_target_value(&ev)); forget(); } />
                    </label>
                </Show>
                <label>"At most (records)"
                    <input type="number" min="1" placeholder="all" prop:value=move || limit.get()
                        on:input=move |ev| { limit.set(event_target_value(&ev)); forget(); } />
                </label>
                <label>"Records per second"
                    <input type="number" min="1" placeholder="no limit" prop:value=move || rate.get()
                        on:input=move |ev| { rate.set(event_target_value(&ev)); forget(); } />
                </label>
                <label class="inline"><input type="checkbox" prop:checked=move || keep.get()
                    on:change=move |_| { keep.update(|k| *k = !*k); forget(); } />"Keep each record's timestamp"</label>
                <div class="panel-actions">
                    <button type="submit" class="button" disabled=move || send.pending().get()>"Dry run"</button>
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || plan.get().map(|p| view! { <Planned plan=p /> })}
                {move || plan.get().map(|p| {
                    let writable: u64 = p.targets.iter().filter(|t| t.refused.is_none()).map(|t| t.records).sum();
                    view! {
                        <div class="panel-actions">
                            <button type="button" class="button button-primary"
                                disabled=move || writable == 0 || send.pending().get()
                                on:click=move |_| dispatch(false)>
                                {format!("Copy {} records", thousands(writable))}
                            </button>
                        </div>
                    }
                })}
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                {move || (!jobs.get().is_empty()).then(|| view! {
                    <h3>"Your copies on this cluster"</h3>
                    <ul class="copy-jobs">
                        {jobs.get().into_iter().map(|j| {
                            let running = j.state == CopyState::Running;
                            let id = j.id.clone();
                            view! {
                                <li data-job=j.id.clone() data-state=format!("{:?}", j.state).to_lowercase()>
                                    <span class="mono">{format!("{} → {}", j.topic, j.target)}</span>
                                    <progress max=j.total.max(1) value=j.scanned.min(j.total)></progress>
                                    <span>{format!("{:?}: {} copied, {} skipped, {} failed of {} read",
                                        j.state, thousands(j.copied), thousands(j.skipped), thousands(j.failed), thousands(j.scanned))}</span>
                                    {j.error.map(|e| view! { <span class="error">{e}</span> })}
                                    {running.then(|| view! {
                                        <button type="button" class="button" on:click=move |_| { cancel.dispatch(id.clone()); }>"Stop"</button>
                                    })}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                })}
            </form>
        </Show>
    }
}

/// A dry run's plan: what was read, where it would go, what would be left out or taken off.
#[component]
fn Planned(plan: CopyPlan) -> impl IntoView {
    let read = format!(
        "Read {} records; {} passed the filters.{}",
        thousands(plan.scanned),
        thousands(plan.matched),
        if plan.partial {
            " The dry run stopped before the end: the copy reads the rest."
        } else {
            ""
        }
    );
    view! {
        <p data-figure="copy-read">{read}</p>
        {(!plan.targets.is_empty()).then(|| view! {
            <DataTable label="Targets" class="copy-targets" cols=&[Col::Text("Topic"), Col::Num("Records"), Col::Text("Partitions")]>
                <tbody>
                    {plan.targets.into_iter().map(|t| view! {
                        <tr data-target=format!("{}/{}", t.cluster, t.topic)>
                            <td class="mono">{format!("{}/{}", t.cluster, t.topic)}
                                {t.refused.map(|r| view! { <div class="error">{r}</div> })}</td>
                            <td class="num">{thousands(t.records)}</td>
                            <td>{if t.placement == "kept" { "kept" } else { "by key" }}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </DataTable>
        })}
        {(!plan.skipped.is_empty()).then(|| view! {
            <ul class="skipped" aria-label="Left out">
                {plan.skipped.into_iter().map(|s| view! {
                    <li>{format!("{} left out: {}", thousands(s.records), s.reason)}</li>
                }).collect_view()}
            </ul>
        })}
        {(!plan.stripped.is_empty()).then(|| view! {
            <p>"Taken off: "<span class="mono" data-figure="stripped">{plan.stripped.join(", ")}</span></p>
        })}
        {(!plan.sample.is_empty()).then(|| view! {
            <details class="sample">
                <summary>"The first records"</summary>
                <ul class="mono">
                    {plan.sample.into_iter().map(|s| view! {
                        <li>{format!("{}/{} → {}{}", s.partition, s.offset, s.target,
                            s.target_partition.map(|p| format!(" partition {p}")).unwrap_or_default())}</li>
                    }).collect_view()}
                </ul>
            </details>
        })}
    }
}
