//! `/c/{cluster}/topics/{topic}/data`: the Data tab (pages of records from a start, a filter,
//! the NDJSON download and a live tail), and `/c/{cluster}/topics/{topic}/records/{p}/{o}`: one
//! record. Both need RECORDS; without it the page says so.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::Form;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::copy::{CopyRecords, Selection};
use super::produce::DuplicateRecord;
use super::topic::{TopicTab, TopicTabs};
use super::topic_changes::DeleteRecords;
use crate::access::Resource as Target;
use crate::api::{
    get_record, records, topic, Arg, Encoded, Encoding, Record, RecordArgs, RecordAtArgs,
    TopicDetail,
};
use crate::components::access::{allows, identity, NeedsPrivilege};
use crate::components::clock::{local_time, shown_time, ZoneSwitch};
use crate::components::download::ExportDownload;
use crate::components::page::{Loaded, Notice};
use crate::components::table::DataTable;
use crate::components::{use_cluster, ErrorAlert};
use crate::format::{bytes, parse_instant, query_value, thousands};
use crate::Privilege;

/// Shows `children` when the caller holds RECORDS on the cluster, else says what is missing.
#[component]
fn NeedsRecords(cluster: String, topic: String, children: ChildrenFn) -> impl IntoView {
    view! {
        <NeedsPrivilege cluster=cluster privilege=Privilege::Records what="Reading records"
            target=Target::topic(topic) children=children />
    }
}

#[component]
pub fn TopicDataPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = use_cluster();
    let topic = move || params.read().get("topic").unwrap_or_default();
    view! {
        <Title text=move || format!("Data of {}", topic()) />
        <div class="page-head"><h1 class="mono">{topic}</h1></div>
        <TopicTabs cluster=cluster() topic=topic() current=TopicTab::Data />
        <NeedsRecords cluster=cluster() topic=topic()>
            <DataTab cluster=cluster() topic=topic() />
        </NeedsRecords>
    }
}

/// The query of the Data tab as the URL holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct DataQuery {
    partition: Option<i32>,
    from: String,
    offset: Option<i64>,
    /// The start time as typed: ms, or a date and time.
    timestamp: String,
    q: String,
    exact: bool,
    /// A CEL expression over each record.
    expr: String,
    cursor: Option<String>,
    /// Find by key: the key as text; only its partitions are read.
    key: String,
    /// With a key: only the newest record of that key (its current value on a compacted topic).
    latest_only: bool,
}

impl DataQuery {
    /// The typed start time in ms since the epoch; `None` when nothing was typed.
    fn start_time(&self) -> Result<Option<i64>, String> {
        match self.timestamp.trim() {
            "" => Ok(None),
            typed => parse_instant(typed).map(Some),
        }
    }

    /// Where the whole selection starts (the export's, a copy's): the typed time when the
    /// start is a timestamp; otherwise the start of each partition (the newest page is only a
    /// view of its end).
    fn start_ms(&self) -> Option<i64> {
        match (self.from.as_str(), self.start_time()) {
            ("timestamp", Ok(Some(ms))) => Some(ms),
            _ => None,
        }
    }

    /// The query string for the NDJSON export of the same selection.
    fn export_url(&self, cluster: &str, topic: &str) -> String {
        let mut url =
            format!("/api/export?cluster={}&topic={}", query_value(cluster), query_value(topic));
        if let Some(p) = self.partition {
            url.push_str(&format!("&partition={p}"));
        }
        // The download is the selection from its start to the end.
        match self.start_ms() {
            Some(ts) => url.push_str(&format!("&from={ts}")),
            None => url.push_str("&from=earliest"),
        }
        if !self.q.is_empty() {
            url.push_str(&format!("&q={}", query_value(&self.q)));
            if self.exact {
                url.push_str("&exact=true");
            }
        }
        if !self.expr.is_empty() {
            url.push_str(&format!("&expr={}", query_value(&self.expr)));
        }
        url
    }

    /// What a copy of this selection takes: its partition, its start time, its filters.
    fn selection(&self) -> Selection {
        Selection {
            partition: self.partition,
            offsets: None,
            from: self.start_ms(),
            q: self.q.clone(),
            exact: self.exact,
            expr: self.expr.clone(),
        }
    }

    /// This page's URL with another cursor.
    fn with_cursor(&self, cursor: &str) -> String {
        let mut parts = vec![format!("cursor={}", query_value(cursor))];
        // The cursor places the page; the start only says which way round it reads.
        if self.from != "latest" {
            parts.push(format!("from={}", query_value(&self.from)));
        }
        if let Some(p) = self.partition {
            parts.push(format!("partition={p}"));
        }
        if !self.q.is_empty() {
            parts.push(format!("q={}", query_value(&self.q)));
        }
        if self.exact {
            parts.push("exact=true".into());
        }
        if !self.expr.is_empty() {
            parts.push(format!("expr={}", query_value(&self.expr)));
        }
        if !self.key.is_empty() {
            parts.push(format!("key={}", query_value(&self.key)));
        }
        if self.latest_only {
            parts.push("latest=true".into());
        }
        format!("?{}", parts.join("&"))
    }
}

#[component]
fn DataTab(cluster: String, topic: String) -> impl IntoView {
    let query_map = use_query_map();
    let query = Memo::new(move |_| {
        let q = query_map.read();
        let number = |k: &str| q.get(k).and_then(|v| v.trim().parse::<i64>().ok());
        DataQuery {
            partition: q.get("partition").and_then(|p| p.parse().ok()).filter(|p: &i32| *p >= 0),
            from: q.get("from").unwrap_or_else(|| "latest".into()),
            offset: number("offset"),
            timestamp: q.get("timestamp").unwrap_or_default(),
            q: q.get("q").unwrap_or_default(),
            exact: q.get("exact").is_some_and(|e| e == "true" || e == "on"),
            expr: q.get("expr").map(|e| e.trim().to_string()).unwrap_or_default(),
            cursor: q.get("cursor").filter(|c| !c.is_empty()),
            key: q.get("key").unwrap_or_default(),
            latest_only: q.get("latest").is_some_and(|e| e == "true" || e == "on"),
        }
    });
    let (c, t) = (cluster.clone(), topic.clone());
    let page = Resource::new(
        move || query.get(),
        move |dq| {
            let (cluster, topic) = (c.clone(), t.clone());
            async move {
                let (offset, timestamp, from) = match (dq.cursor.is_some(), dq.from.as_str()) {
                    (true, _) => (None, None, None),
                    (false, "offset") => (dq.offset.or(Some(0)), None, None),
                    (false, "timestamp") => match dq.start_time() {
                        Ok(ts) => (None, ts.or(Some(0)), None),
                        Err(e) => return Err(crate::ApiError::bad_request("timestamp", e)),
                    },
                    (false, "earliest") => (None, None, Some("earliest".to_string())),
                    _ => (None, None, Some("latest".to_string())),
                };
                let q = Some(dq.q.clone()).filter(|q| !q.is_empty());
                let expr = Some(dq.expr.clone()).filter(|e| !e.is_empty());
                let key = Some(dq.key.clone()).filter(|k| !k.is_empty());
                let limit = (key.is_some() && dq.latest_only).then_some(1u32);
                records(RecordArgs {
                    cluster,
                    topic: topic.into(),
                    partition: dq.partition.into(),
                    offset: offset.into(),
                    timestamp: timestamp.into(),
                    from: from.into(),
                    limit: limit.into(),
                    cursor: dq.cursor.clone().into(),
                    q: q.into(),
                    exact: dq.exact.into(),
                    expr: expr.into(),
                    key: key.into(),
                    key_encoding: Arg::Missing,
                    partitioner: Arg::Missing,
                })
                .await
            }
        },
    );
    let (c, t) = (cluster.clone(), topic.clone());
    let (tail_cluster, tail_topic) = (cluster.clone(), topic.clone());
    let (copy_cluster, copy_topic) = (cluster.clone(), topic.clone());
    let file_name = format!("{topic}.ndjson");
    view! {
        <Form method="GET" action="">
            <div class="data-controls">
                <label>"Partition"
                    <input type="number" name="partition" min="0" placeholder="all"
                        prop:value=move || query.read().partition.map(|p| p.to_string()).unwrap_or_default() />
                </label>
                <label>"Start"
                    <select name="from" prop:value=move || query.read().from.clone()>
                        <option value="latest">"Newest"</option>
                        <option value="earliest">"Oldest"</option>
                        <option value="offset">"Offset"</option>
                        <option value="timestamp">"Timestamp"</option>
                    </select>
                </label>
                <label>"Offset"
                    <input type="number" name="offset" min="0"
                        prop:value=move || query.read().offset.map(|o| o.to_string()).unwrap_or_default() />
                </label>
                <label>"Timestamp"
                    <input type="text" name="timestamp" class="mono" placeholder="2026-11-30 08:00, or ms"
                        title="ms since 1970, or a date and time (UTC unless a zone like +01:00 follows)"
                        prop:value=move || query.read().timestamp.clone() />
                </label>
                <label>"Filter"
                    <input type="search" name="q" placeholder="key, value or header contains…"
                        prop:value=move || query.read().q.clone() />
                </label>
                <label class="check">
                    <input type="checkbox" name="exact" value="true" prop:checked=move || query.read().exact />
                    "Exact match"
                </label>
                <label>"Key"
                    <input type="search" name="key" class="mono" placeholder="find by key…"
                        title="Only records with exactly this key, read from the partitions it hashes to"
                        prop:value=move || query.read().key.clone() />
                </label>
                <label class="check">
                    <input type="checkbox" name="latest" value="true" prop:checked=move || query.read().latest_only />
                    "Latest only"
                </label>
                <button type="submit" class="button button-primary">"Show"</button>
                <ExportDownload href=Signal::derive(move || query.read().export_url(&c, &t)) filename=file_name />
                <ZoneSwitch />
                <label class="expr">"Expression (CEL)"
                    <input type="search" name="expr" class="mono" spellcheck="false" autocomplete="off"
                        placeholder="value.qty > 5 && headers.source == 'web'"
                        title="Over each record as you see it: key, value, keyText, valueText, headers, partition, offset, timestamp, size, schemaId"
                        aria-describedby="expr-fault"
                        prop:value=move || query.read().expr.clone() />
                </label>
            </div>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    page.await.err().filter(|e| e.field.as_deref() == Some("expr")).map(|e| view! {
                        <p class="hint" id="expr-fault" role="alert">{e.message}</p>
                    })
                })}
            </Transition>
        </Form>
        <div class="toolbar">
            <CopyRecords cluster=copy_cluster topic=copy_topic
                selection=Signal::derive(move || query.read().selection()) />
        </div>
        <LiveTail cluster=tail_cluster topic=tail_topic />
        <Transition fallback=|| view! { <div class="skeleton-table"></div> }>
            {move || {
                let cluster = cluster.clone();
                let topic = topic.clone();
                Suspend::new(async move {
                    match page.await {
                        Ok(page) => {
                            let dq = query.get_untracked();
                            // From the newest (the default), the newest record comes first.
                            let mut records = page.records;
                            if dq.from == "latest" {
                                records.reverse();
                            }
                            let older = page.prev.as_ref().map(|c| dq.with_cursor(c));
                            let newer = page.next.as_ref().map(|c| dq.with_cursor(c));
                            let mut note = if page.partial {
                                format!("Scanned {} records and stopped at the time limit; go on with the links below.", thousands(page.scanned))
                            } else {
                                format!("Scanned {} records.", thousands(page.scanned))
                            };
                            if let Some(u) = &page.unevaluated {
                                note.push_str(&format!(
                                    " The expression could not be evaluated on {} of them, left out (the first: {}).",
                                    thousands(u.records), u.first
                                ));
                            }
                            if let Some(ps) = &page.key_partitions {
                                let list = ps.iter().map(i32::to_string).collect::<Vec<_>>().join(" and ");
                                note.push_str(&format!(
                                    " Only partition {list} read: where the key goes with the Java clients' partitioner (murmur2) and librdkafka's (CRC-32)."
                                ));
                            }
                            view! {
                                <p class="fresh" data-figure="scanned">{note}</p>
                                {if records.is_empty() {
                                    view! { <p class="empty">"No records here. Try another start, partition or filter."</p> }.into_any()
                                } else {
                                    view! { <RecordTable cluster=cluster.clone() topic=topic.clone() rows=records /> }.into_any()
                                }}
                                <nav class="pager" aria-label="Pages of records">
                                    {older.map(|href| view! { <a class="button" rel="prev" href=href>"Older"</a> })}
                                    {newer.map(|href| view! { <a class="button" rel="next" href=href>"Newer"</a> })}
                                </nav>
                            }.into_any()
                        }
                        // The expression's fault is shown under its field.
                        Err(e) if e.field.as_deref() == Some("expr") => ().into_any(),
                        Err(e) => view! { <ErrorAlert error=e /> }.into_any(),
                    }
                })
            }}
        </Transition>
    }
}

/// A short, one-line view of a key or value.
fn preview(e: &Encoded) -> String {
    let text = match (&e.encoding, &e.data) {
        (Encoding::Null, _) => return "null".to_string(),
        (Encoding::Text | Encoding::Base64, serde_json::Value::String(s)) => s.clone(),
        (_, data) => data.to_string(),
    };
    let mut short: String = text.chars().take(120).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

fn encoding_label(e: &Encoded) -> &'static str {
    match e.encoding {
        Encoding::Json => "json",
        Encoding::Text => "text",
        Encoding::Avro => "avro",
        Encoding::Protobuf => "protobuf",
        Encoding::JsonSchema => "json schema",
        Encoding::Base64 => "base64",
        Encoding::Null => "null",
    }
}

#[component]
fn RecordTable(cluster: String, topic: String, rows: Vec<Record>) -> impl IntoView {
    let local = local_time();
    let base = format!("/c/{}/topics/{}/records", query_value(&cluster), query_value(&topic));
    view! {
        <DataTable label="Records" class="records">
            <thead><tr>
                <th scope="col" class="num">"Partition"</th>
                <th scope="col" class="num">"Offset"</th>
                <th scope="col">"Timestamp"</th>
                <th scope="col">"Key"</th>
                <th scope="col">"Value"</th>
                <th scope="col" class="num">"Headers"</th>
                <th scope="col" class="num">"Size"</th>
                <th scope="col"><span class="visually-hidden">"Details"</span></th>
            </tr></thead>
            <tbody>
                {rows.into_iter().map(|r| {
                    let href = format!("{base}/{}/{}", r.partition, r.offset);
                    let open = RwSignal::new(false);
                    let id = format!("{}-{}", r.partition, r.offset);
                    let record = StoredValue::new(r.clone());
                    let page = href.clone();
                    view! {
                        <tr data-offset=id.clone()>
                            <td class="num mono">{r.partition}</td>
                            <td class="num mono"><a href=href>{r.offset}</a></td>
                            <td class="mono">{move || r.timestamp.map(|ms| shown_time(ms, local.get())).unwrap_or_else(|| "—".into())}</td>
                            <td class="mono cell-preview">
                                <span class="badge">{encoding_label(&r.key)}</span>" "{preview(&r.key)}
                            </td>
                            <td class="mono cell-preview">
                                <span class="badge">{encoding_label(&r.value)}</span>" "{preview(&r.value)}
                            </td>
                            <td class="num">{r.headers.len()}</td>
                            <td class="num">{bytes(r.size)}</td>
                            <td>
                                <button type="button" class="button expand" aria-label=format!("Details of {id}")
                                    aria-expanded=move || open.get().to_string()
                                    on:click=move |_| open.update(|o| *o = !*o)>
                                    {move || if open.get() { "▾" } else { "▸" }}
                                </button>
                            </td>
                        </tr>
                        <Show when=move || open.get()>
                            <tr class="expanded">
                                <td colspan="8">
                                    <RecordPreview record=record.get_value() page=page.clone() />
                                </td>
                            </tr>
                        </Show>
                    }
                }).collect_view()}
            </tbody>
        </DataTable>
    }
}

/// A record opened in place under its row: the record page's own view of it (key and value as
/// pretty JSON, text or hex, masked parts marked, its headers), a copy of the value, and the
/// way to its page.
#[component]
fn RecordPreview(record: Record, page: String) -> impl IntoView {
    let copied = RwSignal::new(false);
    let to_copy = StoredValue::new(shown(&record.value, View::Pretty));
    let copy = move |_| {
        #[cfg(feature = "hydrate")]
        {
            let _ = window().navigator().clipboard().write_text(&to_copy.get_value());
        }
        let _ = to_copy;
        copied.set(true);
    };
    view! {
        <div class="record-preview">
            <div class="toolbar">
                <button type="button" class="button" on:click=copy>
                    {move || if copied.get() { "Copied" } else { "Copy value" }}
                </button>
                <a class="button" href=page>"Open the record"</a>
            </div>
            <RecordView record=record />
        </div>
    }
}

/// The most records the live tail keeps on screen.
const MAX_TAIL: usize = 200;

/// Follows new records through `/api/tail` (server-sent events), newest first, with pause and
/// resume; records that arrive while paused wait and are shown on resume.
#[component]
fn LiveTail(cluster: String, topic: String) -> impl IntoView {
    let url = StoredValue::new(format!(
        "/api/tail?cluster={}&topic={}",
        query_value(&cluster),
        query_value(&topic)
    ));
    let following = RwSignal::new(false);
    let paused = RwSignal::new(false);
    let rows = RwSignal::new(Vec::<Record>::new());
    let held = RwSignal::new(Vec::<Record>::new());
    let status = RwSignal::new(None::<String>);
    #[cfg(feature = "hydrate")]
    let source = StoredValue::new_local(None::<web_sys::EventSource>);
    let stop = move || {
        #[cfg(feature = "hydrate")]
        if let Some(es) = source.get_value() {
            es.close();
            source.set_value(None);
        }
        following.set(false);
    };
    let start = move || {
        let _ = url;
        status.set(None);
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::closure::Closure;
            use wasm_bindgen::JsCast;
            let Ok(es) = web_sys::EventSource::new(&url.get_value()) else {
                status.set(Some("The live tail could not connect.".into()));
                return;
            };
            let on_record =
                Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
                    let Some(record) =
                        ev.data().as_string().and_then(|t| serde_json::from_str::<Record>(&t).ok())
                    else {
                        return;
                    };
                    let target = if paused.get_untracked() { held } else { rows };
                    target.update(|r| {
                        r.insert(0, record);
                        r.truncate(MAX_TAIL);
                    });
                });
            let _ =
                es.add_event_listener_with_callback("record", on_record.as_ref().unchecked_ref());
            on_record.forget();
            let closing = es.clone();
            let on_end =
                Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
                    closing.close();
                    status.set(ev.data().as_string());
                    following.set(false);
                });
            let _ = es.add_event_listener_with_callback("end", on_end.as_ref().unchecked_ref());
            on_end.forget();
            source.set_value(Some(es));
        }
        following.set(true);
    };
    on_cleanup(stop);
    let resume = move || {
        let waiting = held.get_untracked();
        held.set(Vec::new());
        rows.update(|r| {
            let mut merged = waiting;
            merged.append(r);
            merged.truncate(MAX_TAIL);
            *r = merged;
        });
        paused.set(false);
    };
    let (c, t) = (cluster.clone(), topic.clone());
    view! {
        <section class="tail" aria-label="Live tail">
            <h2>"Live tail"</h2>
            <div class="data-controls">
                {move || if following.get() {
                    view! { <button type="button" class="button" on:click=move |_| stop()>"Stop"</button> }.into_any()
                } else {
                    view! { <button type="button" class="button button-primary" on:click=move |_| start()>"Follow new records"</button> }.into_any()
                }}
                {move || (following.get() && !paused.get()).then(|| view! {
                    <button type="button" class="button" on:click=move |_| paused.set(true)>"Pause"</button>
                })}
                {move || paused.get().then(|| view! {
                    <button type="button" class="button" on:click=move |_| resume()>
                        {move || format!("Resume ({} waiting)", held.read().len())}
                    </button>
                })}
                {move || status.get().map(|s| view! { <span class="fresh">{s}</span> })}
            </div>
            {move || {
                let list = rows.get();
                if list.is_empty() {
                    let text = if following.get() { "Waiting for new records…" } else { "Follow to see records as they are written." };
                    view! { <p class="empty">{text}</p> }.into_any()
                } else {
                    view! { <RecordTable cluster=c.clone() topic=t.clone() rows=list /> }.into_any()
                }
            }}
        </section>
    }
}

/// `/c/{cluster}/topics/{topic}/records/{partition}/{offset}`: one record, with its value as
/// pretty JSON, text or hex, its headers, schema id, and timestamp in UTC or the browser's zone.
#[component]
pub fn RecordPage() -> impl IntoView {
    let params = use_params_map();
    let get = move |k: &str| params.read().get(k).unwrap_or_default();
    let cluster = move || get("cluster");
    let topic_name = move || get("topic");
    // The topic as the catalog has it (partitions, Kafka's internal flag), read once here for
    // every action of the page.
    let detail = Resource::new(move || (get("cluster"), get("topic")), |(c, t)| topic(c, t.into()));
    view! {
        <Title text=move || format!("{} {}/{}", topic_name(), get("partition"), get("offset")) />
        <div class="page-head">
            <h1 class="mono">{move || format!("{} · partition {} · offset {}", topic_name(), get("partition"), get("offset"))}</h1>
            <RecordActions detail=detail />
        </div>
        <TopicTabs cluster=cluster() topic=topic_name() current=TopicTab::Data />
        <NeedsRecords cluster=cluster() topic=topic_name()>
            <Neighbours detail=detail />
            <RecordDetail topic=detail />
        </NeedsRecords>
    }
}

/// Links to the offsets before and after this one in the partition, within its watermarks
/// as the catalog read them (on a compacted topic a neighbour may have been compacted away).
#[component]
fn Neighbours(detail: Resource<Result<TopicDetail, crate::ApiError>>) -> impl IntoView {
    let params = use_params_map();
    let get = move |k: &str| params.read().get(k).unwrap_or_default();
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let partition = get("partition").parse::<i32>().ok()?;
                let offset = get("offset").parse::<i64>().ok()?;
                let t = detail.await.ok()?;
                let p = t.partitions.iter().find(|p| p.partition == partition)?;
                let base = format!(
                    "/c/{}/topics/{}/records/{partition}",
                    query_value(&get("cluster")),
                    query_value(&get("topic"))
                );
                let before = (offset > p.low.unwrap_or(0)).then(|| format!("{base}/{}", offset - 1));
                let after = p.high.filter(|h| offset + 1 < *h).map(|_| format!("{base}/{}", offset + 1));
                Some(view! {
                    <nav class="pager" aria-label="Neighbouring records">
                        {before.map(|href| view! { <a class="button" rel="prev" href=href>"Previous offset"</a> })}
                        {after.map(|href| view! { <a class="button" rel="next" href=href>"Next offset"</a> })}
                    </nav>
                })
            })}
        </Suspense>
    }
}

/// "Delete records before this", where the caller may delete records of the topic (never an
/// internal one): the records of the partition before this offset go, this one stays.
#[component]
fn RecordActions(detail: Resource<Result<TopicDetail, crate::ApiError>>) -> impl IntoView {
    let params = use_params_map();
    let get = move |k: &str| params.read().get(k).unwrap_or_default();
    let who = identity();
    let notice = RwSignal::new(None::<String>);
    let done = Callback::new(move |said: String| notice.set(Some(said)));
    view! {
        <Notice notice=notice />
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let cluster = get("cluster");
                let may = who
                    .await
                    .ok()
                    .is_some_and(|w| allows(w.cluster(&cluster), Privilege::DeleteRecords, &Target::topic(get("topic"))));
                let at = get("partition").parse::<i32>().ok().zip(get("offset").parse::<i64>().ok());
                match (detail.await, at) {
                    (Ok(t), Some(at)) if may && !t.internal => Some(view! {
                        <DeleteRecords cluster=cluster topic=t.name.clone() partitions=t.partitions.len()
                            on_done=done at=at />
                    }),
                    _ => None,
                }
            })}
        </Suspense>
    }
}

/// The record itself, read only once the caller is known to hold RECORDS.
#[component]
fn RecordDetail(topic: Resource<Result<TopicDetail, crate::ApiError>>) -> impl IntoView {
    let params = use_params_map();
    let get = move |k: &str| params.read().get(k).unwrap_or_default();
    let detail = Resource::new(
        move || (get("cluster"), get("topic"), get("partition"), get("offset")),
        |(c, t, p, o)| async move {
            match (p.parse::<i32>(), o.parse::<i64>()) {
                (Ok(p), Ok(o)) => {
                    get_record(RecordAtArgs {
                        cluster: c,
                        topic: t.into(),
                        partition: p.into(),
                        offset: o.into(),
                    })
                    .await
                }
                _ => Err(crate::ApiError::new(
                    crate::ErrorCode::NotFound,
                    "There is no such record.",
                )),
            }
        },
    );
    view! {
        <Loaded of=detail ok=move |r: crate::api::Record, _| {
            let cluster = get("cluster");
            view! {
                <div class="toolbar">
                    <DuplicateRecord cluster=cluster.clone() record=r.clone() detail=topic />
                    <CopyRecords cluster=cluster topic=r.topic.clone() selection=Selection {
                        partition: Some(r.partition),
                        offsets: Some((r.offset, r.offset + 1)),
                        ..Selection::default()
                    } />
                </div>
                <RecordView record=r />
            }.into_any()

        } />
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    Pretty,
    Text,
    Hex,
}

/// The exact bytes behind an encoded key or value, when there are any.
fn raw_bytes(e: &Encoded) -> Option<Vec<u8>> {
    use base64::Engine;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.decode(s).ok();
    if let Some(raw) = &e.raw {
        return b64(raw);
    }
    match (&e.encoding, &e.data) {
        (Encoding::Null, _) => None,
        (Encoding::Base64, serde_json::Value::String(s)) => b64(s),
        (Encoding::Text, serde_json::Value::String(s)) => Some(s.as_bytes().to_vec()),
        (_, data) => serde_json::to_vec(data).ok(),
    }
}

fn hex_dump(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(i, line)| {
            let hex: Vec<String> = line.iter().map(|b| format!("{b:02x}")).collect();
            let text: String = line
                .iter()
                .map(|b| if b.is_ascii_graphic() || *b == b' ' { *b as char } else { '.' })
                .collect();
            format!("{:08x}  {:<48} {text}", i * 16, hex.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn shown(e: &Encoded, how: View) -> String {
    match how {
        View::Pretty => match (&e.encoding, &e.data) {
            (Encoding::Null, _) => "null".into(),
            (Encoding::Text | Encoding::Base64, serde_json::Value::String(s)) => s.clone(),
            (_, data) => serde_json::to_string_pretty(data).unwrap_or_default(),
        },
        View::Text => raw_bytes(e)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_else(|| "null".into()),
        View::Hex => raw_bytes(e).map(|b| hex_dump(&b)).unwrap_or_else(|| "null".into()),
    }
}

/// The badge of a part masked for the caller.
fn masked_badge(e: &Encoded) -> Option<impl IntoView> {
    e.masked.then(|| {
        view! {
            <span class="badge masked" title="Masked for you: holders of UNMASK see the real values">
                "masked"
            </span>
        }
    })
}

#[component]
fn RecordView(record: Record) -> impl IntoView {
    let how = RwSignal::new(View::Pretty);
    let local = local_time();
    let served = record.timestamp;
    let when = move || match served {
        None => "none".to_string(),
        Some(ms) => shown_time(ms, local.get()),
    };
    // How long ago, from the browser's clock: empty in the server's render, then kept current.
    let now = RwSignal::new(None::<i64>);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let tick = move || now.set(Some(js_sys::Date::now() as i64));
        tick();
        let handle = set_interval_with_handle(tick, std::time::Duration::from_secs(5)).ok();
        on_cleanup(move || {
            if let Some(handle) = handle {
                handle.clear();
            }
        });
    });
    let age = move || match (served, now.get()) {
        (Some(ms), Some(now)) if now >= ms => crate::components::table::ago(now - ms),
        (Some(ms), Some(now)) => format!("{} s in the future", (ms - now) / 1000),
        _ => String::new(),
    };
    let (key, value) = (record.key.clone(), record.value.clone());
    let schema = value.schema_id.or(key.schema_id);
    view! {
        <dl class="facts">
            <div><dt>"Timestamp"</dt><dd class="mono" data-figure="timestamp">{when}</dd></div>
            <div><dt>"Age"</dt><dd data-figure="age">{age}</dd></div>
            <div><dt>"Type"</dt><dd>{format!("{:?}", record.timestamp_type)}</dd></div>
            <div><dt>"Size"</dt><dd>{bytes(record.size)}</dd></div>
            <div><dt>"Schema id"</dt><dd>{schema.map(|s| s.to_string()).unwrap_or_else(|| "—".into())}</dd></div>
        </dl>
        <div class="data-controls">
            <ZoneSwitch />
            <span role="group" aria-label="View">
                <button type="button" class="button" aria-pressed=move || (how.get() == View::Pretty).to_string() on:click=move |_| how.set(View::Pretty)>"Pretty"</button>
                <button type="button" class="button" aria-pressed=move || (how.get() == View::Text).to_string() on:click=move |_| how.set(View::Text)>"Text"</button>
                <button type="button" class="button" aria-pressed=move || (how.get() == View::Hex).to_string() on:click=move |_| how.set(View::Hex)>"Hex"</button>
            </span>
        </div>
        <h2>"Key " <span class="badge">{encoding_label(&key)}</span>{masked_badge(&key)}</h2>
        <pre class="payload" data-part="key">{let k = key.clone(); move || shown(&k, how.get())}</pre>
        <h2>"Value " <span class="badge">{encoding_label(&value)}</span>{masked_badge(&value)}</h2>
        {value.error.clone().map(|e| view! { <p class="error">{format!("Not decoded: {e}")}</p> })}
        <pre class="payload" data-part="value">{let v = value.clone(); move || shown(&v, how.get())}</pre>
        <h2>"Headers"</h2>
        {if record.headers.is_empty() {
            view! { <p class="empty">"No headers."</p> }.into_any()
        } else {
            view! {
                <DataTable label="Headers">
                    <thead><tr><th scope="col">"Key"</th><th scope="col">"Value"</th></tr></thead>
                    <tbody>
                        {record.headers.into_iter().map(|h| view! {
                            <tr><td class="mono">{h.key}</td><td class="mono">{preview(&h.value)}</td></tr>
                        }).collect_view()}
                    </tbody>
                </DataTable>
            }.into_any()
        }}
    }
}
