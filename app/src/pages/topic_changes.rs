//! The forms of the topic changes on the Overview and the record page: Add partitions and
//! Delete records. Each asks Kafka for a dry run first and shows what would change; Delete
//! records also wants the topic's name typed before it deletes anything.

use leptos::prelude::*;

use crate::api::{
    add_partitions, delete_records, AddPartitionsArgs, DeleteRecordsArgs, PartitionCut,
    PartitionsAdded, RecordsDeleted,
};
use crate::components::change::{follow_change, TypedConfirm};
use crate::components::table::{Col, DataTable};
use crate::format::{parse_instant, thousands};

/// Add partitions: a button, then a form for the new count with the warning that keys move,
/// Kafka's dry run, and the change.
#[component]
pub fn AddPartitions(
    cluster: String, topic: String, /// The partition count now.
    current: usize,
    /// Told what was done, once it is.
    on_done: Callback<String>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let count = RwSignal::new((current + 1).to_string());
    let error = RwSignal::new(None::<String>);
    let preview = RwSignal::new(None::<PartitionsAdded>);
    let target = StoredValue::new((cluster, topic));

    let send = Action::new_local(move |(count, dry_run): &(i32, bool)| {
        let (count, dry_run) = (*count, *dry_run);
        let (cluster, topic) = target.get_value();
        async move {
            let answer = add_partitions(AddPartitionsArgs {
                cluster,
                topic: topic.into(),
                count: count.into(),
                dry_run: dry_run.into(),
            })
            .await;
            (dry_run, answer)
        }
    });
    follow_change(send, preview, error, move |answer: PartitionsAdded| {
        open.set(false);
        on_done.run(format!(
            "The topic has {} partitions now (it had {}).",
            answer.after, answer.before
        ));
    });
    // The count as typed, when it is a whole number above today's.
    let wanted = move || -> Result<i32, String> {
        let text = count.get();
        let n: i32 = text
            .trim()
            .parse()
            .map_err(|_| "The partition count is a whole number.".to_string())?;
        if usize::try_from(n).map_or(true, |n| n <= current) {
            return Err(format!(
                "The topic has {current} partitions; give a higher count (Kafka cannot remove partitions)."
            ));
        }
        Ok(n)
    };

    view! {
        <button type="button" class="button" on:click=move |_| {
            open.update(|o| *o = !*o);
            preview.set(None);
            error.set(None);
        }>"Add partitions"</button>
        <Show when=move || open.get()>
            <form class="panel" aria-label="Add partitions" on:submit=move |ev| {
                ev.prevent_default();
                match wanted() {
                    Ok(n) => { send.dispatch((n, true)); }
                    Err(e) => error.set(Some(e)),
                }
            }>
                <p>
                    "Records with a key go to the partition their key hashes to among all partitions. With more partitions, "
                    "most keys map to another partition from then on, so the records of one key are no longer all in one "
                    "partition, and their order across the change is not kept."
                </p>
                <label>{format!("New partition count (now {current})")}
                    <input type="number" min=current + 1 required prop:value=move || count.get()
                        on:input=move |ev| { count.set(event_target_value(&ev)); preview.set(None); } />
                </label>
                {move || wanted().err().map(|e| view! { <p class="hint">{e}</p> })}
                <div class="panel-actions">
                    <button type="submit" class="button" disabled=move || wanted().is_err() || send.pending().get()>
                        "Preview"
                    </button>
                    {move || preview.get().map(|p| {
                        let after = p.after as i32;
                        view! {
                            <button type="button" class="button button-primary" disabled=move || send.pending().get()
                                on:click=move |_| { send.dispatch((after, false)); }>
                                {format!("Add {} partitions", p.after.saturating_sub(p.before))}
                            </button>
                        }
                    })}
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || preview.get().map(|p| view! {
                    <p role="status">{format!("Kafka accepts the change: {} → {} partitions.", p.before, p.after)}</p>
                })}
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </form>
        </Show>
    }
}

/// Where Delete records cuts, as the form holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    Offset,
    Time,
    All,
}

/// Delete records: a button, then a form for the partition and the cut, the preview of what
/// each partition loses, the topic's name typed to confirm, and the deletion. With `at`, the
/// form opens on that partition and offset (the record page's "Delete records before this").
#[component]
pub fn DeleteRecords(
    cluster: String, topic: String, partitions: usize,
    /// Told what was done, once it is.
    on_done: Callback<String>,
    #[prop(optional)] at: Option<(i32, i64)>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let partition = RwSignal::new(at.map_or(String::new(), |(p, _)| p.to_string()));
    let cut = RwSignal::new(if at.is_some() { Cut::Offset } else { Cut::All });
    let offset = RwSignal::new(at.map_or(String::new(), |(_, o)| o.to_string()));
    let time = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let preview = RwSignal::new(None::<RecordsDeleted>);
    let target = StoredValue::new((cluster, topic));
    let label = if at.is_some() { "Delete records before this" } else { "Delete records" };

    // The arguments the form describes, or what is wrong with it.
    let args = move |dry_run: bool| -> Result<DeleteRecordsArgs, String> {
        let (cluster, topic) = target.get_value();
        let partition = match partition.get().trim() {
            "" => None,
            p => Some(p.parse::<i32>().map_err(|_| "Pick a partition.".to_string())?),
        };
        let mut out = DeleteRecordsArgs {
            cluster,
            topic: topic.into(),
            partition: partition.into(),
            dry_run: dry_run.into(),
            ..Default::default()
        };
        match cut.get() {
            Cut::Offset => {
                if partition.is_none() {
                    return Err("An offset belongs to one partition: pick it.".into());
                }
                let o: i64 = offset
                    .get()
                    .trim()
                    .parse()
                    .map_err(|_| "The offset is a whole number.".to_string())?;
                out.offset = o.into();
            }
            Cut::Time => out.timestamp = parse_instant(&time.get())?.into(),
            Cut::All => out.all = true.into(),
        }
        Ok(out)
    };
    let send = Action::new_local(move |args: &DeleteRecordsArgs| {
        let args = args.clone();
        async move {
            let dry_run = matches!(args.dry_run, crate::api::Arg::Given(true));
            (dry_run, delete_records(args).await)
        }
    });
    follow_change(send, preview, error, move |answer: RecordsDeleted| {
        open.set(false);
        on_done.run(format!("Deleted {} records.", thousands(answer.deleted)));
    });
    let forget = move || {
        preview.set(None);
        error.set(None);
    };

    view! {
        <button type="button" class="button button-danger" on:click=move |_| { open.update(|o| *o = !*o); forget(); }>
            {label}
        </button>
        <Show when=move || open.get()>
            <form class="panel" aria-label="Delete records" on:submit=move |ev| {
                ev.prevent_default();
                match args(true) {
                    Ok(a) => { send.dispatch(a); }
                    Err(e) => error.set(Some(e)),
                }
            }>
                <p>"Deleting records moves the start of each partition forward: every record before the cut is gone for every consumer."</p>
                <label>"Partition"
                    <select prop:value=move || partition.get() on:change=move |ev| { partition.set(event_target_value(&ev)); forget(); }>
                        <option value="">"All partitions"</option>
                        {(0..partitions).map(|p| view! { <option value=p.to_string()>{format!("Partition {p}")}</option> }).collect_view()}
                    </select>
                </label>
                <fieldset class="choice">
                    <legend>"Delete"</legend>
                    <label class="inline"><input type="radio" name="cut" prop:checked=move || cut.get() == Cut::All
                        on:change=move |_| { cut.set(Cut::All); forget(); } />"every record"</label>
                    <label class="inline"><input type="radio" name="cut" prop:checked=move || cut.get() == Cut::Offset
                        on:change=move |_| { cut.set(Cut::Offset); forget(); } />"the records before an offset"</label>
                    <label class="inline"><input type="radio" name="cut" prop:checked=move || cut.get() == Cut::Time
                        on:change=move |_| { cut.set(Cut::Time); forget(); } />"the records before a time"</label>
                </fieldset>
                <Show when=move || cut.get() == Cut::Offset>
                    <label>"Offset (the first record kept)"
                        <input type="number" min="0" prop:value=move || offset.get()
                            on:input=move |ev| { offset.set(event_target_value(&ev)); forget(); } />
                    </label>
                </Show>
                <Show when=move || cut.get() == Cut::Time>
                    <label>"Time (ms, or 2026-11-30 08:57, UTC unless a zone follows)"
                        <input type="text" autocomplete="off" prop:value=move || time.get()
                            on:input=move |ev| { time.set(event_target_value(&ev)); forget(); } />
                    </label>
                </Show>
                <div class="panel-actions">
                    <button type="submit" class="button" disabled=move || send.pending().get()>"Preview"</button>
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || preview.get().map(|p| view! {
                    <Preview cuts=p.partitions.clone() total=p.deleted />
                    <TypedConfirm label=format!("Delete {} records", thousands(p.deleted))
                        field="Topic name" name=target.with_value(|(_, t)| t.clone())
                        warning="This cannot be undone.".to_string()
                        ready=Signal::derive(move || p.deleted > 0)
                        pending=send.pending().into()
                        act=Callback::new(move |()| match args(false) {
                            Ok(a) => { send.dispatch(a); }
                            Err(e) => error.set(Some(e)),
                        }) />
                })}
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </form>
        </Show>
    }
}

/// What each partition would lose.
#[component]
fn Preview(cuts: Vec<PartitionCut>, total: u64) -> impl IntoView {
    view! {
        <DataTable label="Records to delete" class="compact" cols=&[Col::Num("Partition"), Col::Num("Starts at"), Col::Num("Would start at"), Col::Num("Records deleted")]>
            <tbody>
                {cuts.into_iter().map(|c| view! {
                    <tr>
                        <td class="num mono">{c.partition}</td>
                        <td class="num mono">{c.low_before}</td>
                        <td class="num mono">{c.low_after}</td>
                        <td class="num">{thousands(c.deleted)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
            <tfoot><tr>
                <th scope="row" colspan="3">"In all"</th>
                <td class="num">{thousands(total)}</td>
            </tr></tfoot>
        </DataTable>
    }
}
