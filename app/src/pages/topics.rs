//! `/c/{cluster}/topics`: the topics of a cluster, and Create topic where the caller may.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_navigate;

use crate::api::{create_topic, topics, Arg, CreateTopicArgs, TopicSummary};
use crate::components::access::{identity, offers};
use crate::components::page::Loaded;
use crate::components::table::{
    use_window_list, DataTable, FilterBox, Freshness, Pager, SortHeader, Sparkline,
};
use crate::components::use_cluster;
use crate::format::{bytes, or_dash, page_url, rate, thousands};
use crate::Privilege;

#[component]
pub fn TopicsPage() -> impl IntoView {
    let cluster = use_cluster();
    let list = use_window_list(topics);
    let who = identity();
    view! {
        <Title text=move || format!("Topics of {}", cluster()) />
        <div class="page-head">
            <h1>"Topics"</h1>
            <FilterBox label="Filter topics by name" />
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    let may_create = who
                        .await
                        .ok()
                        .is_some_and(|w| offers(w.cluster(&cluster()), Privilege::CreateTopics));
                    may_create.then(|| view! { <CreateTopic cluster=cluster() /> })
                })}
            </Suspense>
        </div>
        <Loaded of=list keep=true ok=move |value: crate::api::TopicList, _| {
            match value {
                list if list.total == 0 => {
                    let text = if list.refreshed_at.is_some() {
                        "This cluster has no topics yet."
                    } else {
                        "The topics of this cluster have not been read yet."
                    };
                    view! {
                        <Freshness what="Metadata" at=list.refreshed_at served_at=list.served_at
                            error=list.error.clone().unwrap_or_default() />
                        <p class="empty">{text}</p>
                    }.into_any()
                }
                list => {
                    let shown = list.topics.len() as u64;
                    view! {
                        <Freshness what="Metadata" at=list.refreshed_at served_at=list.served_at
                            error=list.error.clone().unwrap_or_default() />
                        <TopicTable cluster=cluster() rows=list.topics />
                        <Pager matched=list.matched total=list.total shown=shown />
                    }.into_any()
                }
            }
        } />
    }
}

#[component]
fn TopicTable(cluster: String, rows: Vec<TopicSummary>) -> impl IntoView {
    view! {
        <DataTable label="Topics">
            <thead>
                <tr>
                    <SortHeader column="name" label="Topic" />
                    <SortHeader column="partitions" label="Partitions" num=true />
                    <SortHeader column="replicas" label="Replicas" num=true />
                    <SortHeader column="records" label="Records" num=true
                        title="High minus low watermark, summed: an upper bound on compacted topics" />
                    <SortHeader column="size" label="Size" num=true title="Bytes of the partition leaders" />
                    <SortHeader column="rate" label="Produce rate" num=true title="Records per second over the last minute" />
                    <SortHeader column="under_replicated" label="Under-replicated" num=true />
                </tr>
            </thead>
            <tbody>
                {rows
                    .into_iter()
                    .map(|t| {
                        let href = page_url(&cluster, "topics", &t.name);
                        view! {
                            <tr data-topic=t.name.clone()>
                                <th scope="row">
                                    <a class="mono cut" href=href title=t.name.clone()>{t.name.clone()}</a>
                                    {t.internal.then(|| view! { " " <span class="badge">"Internal"</span> })}
                                </th>
                                <td class="num">{thousands(t.partitions)}</td>
                                <td class="num">{thousands(t.replication_factor)}</td>
                                <td class="num">{or_dash(t.records, thousands)}</td>
                                <td class="num">{or_dash(t.size_bytes, bytes)}</td>
                                <td class="num">
                                    <span class="rate">
                                        <Sparkline points=t.produce_trend.clone() label="Produce rate, last ten minutes" />
                                        {or_dash(t.produce_rate, rate)}
                                    </span>
                                </td>
                                <td class="num" class:warn=t.under_replicated != 0>{thousands(t.under_replicated)}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </DataTable>
    }
}

/// The Create topic button and its form.
#[component]
fn CreateTopic(cluster: String) -> impl IntoView {
    let open = RwSignal::new(false);
    let name = RwSignal::new(String::new());
    let partitions = RwSignal::new("1".to_string());
    let replication = RwSignal::new(String::new());
    let cleanup = RwSignal::new(String::new());
    let retention_ms = RwSignal::new(String::new());
    let retention_bytes = RwSignal::new(String::new());
    let min_isr = RwSignal::new(String::new());
    let compression = RwSignal::new(String::new());
    let others = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let navigate = use_navigate();
    let cluster = StoredValue::new(cluster);

    let submit = Action::new_local(
        move |(topic, partitions, replication, configs): &(
            String,
            i32,
            Option<i32>,
            BTreeMap<String, String>,
        )| {
            let (topic, partitions, replication) = (topic.clone(), *partitions, *replication);
            let configs = configs.clone();
            let cluster = cluster.get_value();
            async move {
                create_topic(CreateTopicArgs {
                    cluster,
                    topic: topic.into(),
                    partitions: partitions.into(),
                    replication_factor: replication.into(),
                    configs: if configs.is_empty() { Arg::Missing } else { configs.into() },
                    dry_run: Arg::Missing,
                })
                .await
            }
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
                    error.set(Some("Replication factor must be a whole number, or empty.".into()));
                    return;
                }
            },
        };
        let mut configs = BTreeMap::new();
        for (key, field) in [
            ("cleanup.policy", cleanup),
            ("retention.ms", retention_ms),
            ("retention.bytes", retention_bytes),
            ("min.insync.replicas", min_isr),
            ("compression.type", compression),
        ] {
            let value = field.get_untracked().trim().to_string();
            if !value.is_empty() {
                configs.insert(key.to_string(), value);
            }
        }
        match other_configs(&others.get_untracked()) {
            Ok(more) => configs.extend(more),
            Err(e) => {
                error.set(Some(e));
                return;
            }
        }
        submit.dispatch((name.get_untracked().trim().to_string(), count, replication, configs));
    };

    view! {
        <button type="button" class="button button-primary" on:click=move |_| open.update(|o| *o = !*o)>
            "Create topic"
        </button>
        <Show when=move || open.get()>
            <form class="panel" role="dialog" aria-label="Create topic" on:submit=on_submit>
                <label>"Topic name"
                    <input type="text" required autocomplete="off" bind:value=name />
                </label>
                <label>"Partitions"
                    <input type="number" min="1" required bind:value=partitions />
                </label>
                <label>"Replication factor"
                    <input type="number" min="1" placeholder="broker default" bind:value=replication />
                </label>
                <fieldset class="choice">
                    <legend>"Configs (empty: the broker's default; Kafka checks every value)"</legend>
                    <label>"Cleanup policy"
                        <select bind:value=cleanup>
                            <option value="">"broker default"</option>
                            <option value="delete">"delete (by time and size)"</option>
                            <option value="compact">"compact (latest value per key)"</option>
                            <option value="compact,delete">"compact and delete"</option>
                        </select>
                    </label>
                    <label>"Retention time (retention.ms; -1 keeps records for ever)"
                        <input type="text" inputmode="numeric" placeholder="broker default" bind:value=retention_ms />
                    </label>
                    <label>"Retention size per partition (retention.bytes; -1 for no limit)"
                        <input type="text" inputmode="numeric" placeholder="broker default" bind:value=retention_bytes />
                    </label>
                    <label>"Minimum in-sync replicas (min.insync.replicas)"
                        <input type="number" min="1" placeholder="broker default" bind:value=min_isr />
                    </label>
                    <label>"Compression"
                        <select bind:value=compression>
                            <option value="">"broker default"</option>
                            <option value="producer">"as the producer sent it"</option>
                            <option value="zstd">"zstd"</option>
                            <option value="lz4">"lz4"</option>
                            <option value="snappy">"snappy"</option>
                            <option value="gzip">"gzip"</option>
                            <option value="uncompressed">"uncompressed"</option>
                        </select>
                    </label>
                    <label>"Other configs, one name=value per line"
                        <textarea rows="3" class="mono" placeholder="max.message.bytes=2097152" bind:value=others></textarea>
                    </label>
                </fieldset>
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

/// `name=value` lines as configs; blank lines are skipped.
fn other_configs(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once('=') else {
            return Err(format!("\"{line}\" is not name=value."));
        };
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() {
            return Err(format!("\"{line}\" has no config name."));
        }
        out.insert(name.to_string(), value.to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::other_configs;

    #[test]
    fn other_configs_are_name_value_lines() {
        let got = other_configs("a=1\n\n  b.c = x=y \n").expect("valid");
        assert_eq!(got.get("a").map(String::as_str), Some("1"));
        assert_eq!(got.get("b.c").map(String::as_str), Some("x=y"));
        assert!(other_configs("novalue").is_err());
        assert!(other_configs("=1").is_err());
    }
}
