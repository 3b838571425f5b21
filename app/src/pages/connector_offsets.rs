//! The Offsets section of a connector's page: what Connect held when the page was read (a
//! sink's per topic partition, a source's as its plugin keys them); and, for a caller who may manage the connector, a sheet that
//! removes or sets them: a preview of before and after first, applied only while the connector
//! is stopped (Connect's own rule).

use leptos::prelude::*;

use crate::api::{
    reset_connector_offsets, ConnectorOffset, ConnectorOffsetsArgs, ConnectorOffsetsPlan, OffsetMap,
};
use crate::components::change::{follow_change, DryRunButtons};
use crate::components::table::DataTable;
use crate::error::ApiError;
use crate::format::page_url;

/// An offset map as one line: a sink's `kafka_offset` as its number, anything else as JSON.
fn shown(map: &Option<OffsetMap>) -> String {
    match map {
        None => "none".to_string(),
        Some(m) if m.len() == 1 && m.contains_key("kafka_offset") => m["kafka_offset"].to_string(),
        Some(m) => serde_json::Value::Object(m.clone()).to_string(),
    }
}

/// A partition: a sink's as `topic` and its number, a source's as JSON.
fn partition_view(cluster: &str, p: &OffsetMap) -> AnyView {
    let topic = p.get("kafka_topic").and_then(|t| t.as_str());
    match (topic, p.get("kafka_partition")) {
        (Some(topic), Some(n)) => view! {
            <a class="mono" href=page_url(cluster, "topics", topic)>{topic.to_string()}</a>
            {format!(" · partition {n}")}
        }
        .into_any(),
        _ => view! { <span class="mono">{serde_json::Value::Object(p.clone()).to_string()}</span> }
            .into_any(),
    }
}

fn offsets_table(cluster: &str, label: &'static str, rows: Vec<ConnectorOffset>) -> AnyView {
    if rows.is_empty() {
        return view! { <p class="empty">"No offsets."</p> }.into_any();
    }
    let cluster = cluster.to_string();
    view! {
        <DataTable label=label>
            <thead><tr><th scope="col">"Partition"</th><th scope="col" class="num">"Offset"</th></tr></thead>
            <tbody>
                {rows.into_iter().map(|o| view! {
                    <tr><td>{partition_view(&cluster, &o.partition)}</td><td class="num mono">{shown(&o.offset)}</td></tr>
                }).collect_view()}
            </tbody>
        </DataTable>
    }
    .into_any()
}

/// The entries a person typed: empty means every offset removed.
fn entries_of(text: &str) -> Result<Option<Vec<ConnectorOffset>>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(text)
        .map(Some)
        .map_err(|e| format!("Not a list of {{\"partition\": …, \"offset\": …}} entries: {e}"))
}

/// The offsets the connector's answer carries (`offsets_error` when Connect did not say them).
#[component]
pub fn ConnectorOffsets(
    cluster: String, connect: String, name: String, offsets: Option<Vec<ConnectorOffset>>,
    error: Option<String>, may: bool, changed: Callback<String>,
) -> impl IntoView {
    let target = StoredValue::new((cluster.clone(), connect, name));
    view! {
        <h2>"Offsets"</h2>
        {may.then(|| view! { <ResetSheet target=target changed=changed /> })}
        {match offsets {
            Some(rows) => offsets_table(&cluster, "Offsets", rows),
            None => view! { <p class="error" role="alert">{error.unwrap_or_default()}</p> }.into_any(),
        }}
    }
}

#[component]
fn ResetSheet(
    target: StoredValue<(String, String, String)>, changed: Callback<String>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let text = RwSignal::new(String::new());
    let preview = RwSignal::new(None::<ConnectorOffsetsPlan>);
    let error = RwSignal::new(None::<String>);
    let send = Action::new_local(move |dry_run: &bool| {
        let dry_run = *dry_run;
        let (cluster, connect, name) = target.get_value();
        let args = entries_of(&text.get_untracked()).map(|offsets| ConnectorOffsetsArgs {
            cluster,
            connect: connect.into(),
            name: name.into(),
            offsets: offsets.into(),
            dry_run: dry_run.into(),
        });
        async move {
            let answer = match args {
                Err(said) => Err(ApiError::bad_request("offsets", said)),
                Ok(args) => reset_connector_offsets(args).await,
            };
            (dry_run, answer)
        }
    });
    follow_change(send, preview, error, move |done: ConnectorOffsetsPlan| {
        open.set(false);
        changed.run(format!("Changed the offsets of connector {}.", done.name));
    });
    let stopped = move || preview.get().is_some_and(|p| p.state == "STOPPED");
    view! {
        <button type="button" class="button" on:click=move |_| {
            // A preview is of the moment it was asked: the next opening asks again.
            preview.set(None);
            error.set(None);
            open.update(|o| *o = !*o);
        }>"Reset offsets"</button>
        <Show when=move || open.get()>
            <div class="panel" role="dialog" aria-label="Reset offsets">
                <h2>"Reset offsets"</h2>
                <p class="muted">"Connect changes the offsets of a stopped connector only. Leave the field empty to remove every offset, or give the entries to set as JSON; an entry with \"offset\": null removes that one."</p>
                <label>"Entries to set"
                    <textarea rows="6" class="mono" prop:value=move || text.get()
                        placeholder=r#"[{"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": 0}}]"#
                        on:input=move |ev| { text.set(event_target_value(&ev)); preview.set(None); }></textarea>
                </label>
                <DryRunButtons check="Preview" apply="Apply" danger=true open=open
                    pending=send.pending().into() dispatch=Callback::new(move |dry| { send.dispatch(dry); })
                    blocked=Signal::derive(move || !stopped()) />
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                {move || preview.get().map(|p| {
                    let cluster = target.get_value().0;
                    view! {
                        {(p.state != "STOPPED").then(|| view! {
                            <p class="error" role="alert" data-figure="not-stopped">{format!("The connector is {}: stop it before applying.", p.state)}</p>
                        })}
                        <h3>"Before"</h3>
                        {offsets_table(&cluster, "Offsets before", p.before)}
                        <h3>"After"</h3>
                        {offsets_table(&cluster, "Offsets after", p.after)}
                    }
                })}
            </div>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_field_removes_all_and_entries_read_as_connect_keys_them() {
        assert_eq!(entries_of("  \n"), Ok(None));
        let text = r#"[{"partition": {"kafka_topic": "a", "kafka_partition": 0}, "offset": null}]"#;
        let entries = entries_of(text).expect("entries").expect("some");
        assert_eq!(entries.len(), 1);
        assert!(entries[0].offset.is_none());
        assert!(entries_of("{").is_err());
        let sink = serde_json::json!({ "kafka_offset": 42 });
        assert_eq!(shown(&sink.as_object().cloned()), "42");
        let source = serde_json::json!({ "position": 7 });
        assert_eq!(shown(&source.as_object().cloned()), r#"{"position":7}"#);
    }
}
