//! `/c/{cluster}/processors`: the SQL processors of a cluster the caller may see
//! (SQL_PROCESSORS), each with what it reads and writes, its state in Flink, its parallelism and
//! the lag of its group, and New processor for a caller who may write them: the statement
//! previewed first (Flink's plan, the tables it reads and writes, its first rows from the
//! newest records), with the columns of any topic the caller may read at hand.
//! `/c/{cluster}/processors/{name}`: one processor with its statement, its job, savepoint and
//! last exception, and stop, resume, scale and delete.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::connectors::{connector_state, topic_links};
use super::flow::FlowLink;
use crate::api::{
    create_processor, delete_processor, processor, processor_table, processors, resume_processor,
    scale_processor, search, stop_processor, HitKind, ProcessorArgs, ProcessorChanged,
    ProcessorColumns, ProcessorCreated, ProcessorDetail, ProcessorList, ProcessorName,
    ProcessorSummary,
};
use crate::components::access::allows;
use crate::components::change::{follow_change, object_changes, ConfirmSheet, DryRunButtons};
use crate::components::page::{use_changes, CallerAccess, ListHead, Loaded, Notice, Offered};
use crate::components::table::{Col, DataTable};
use crate::components::{use_cluster, ErrorAlert};
use crate::error::ApiError;
use crate::format::{or_dash, page_url, rate, thousands, utc_timestamp};
use crate::Privilege;

#[component]
pub fn ProcessorsPage() -> impl IntoView {
    let cluster = use_cluster();
    let list = Resource::new(cluster, processors);
    let (notice, changed) = use_changes(move || list.refetch());
    view! {
        <ListHead title="SQL processors" notice=notice>
            <Offered privilege=Privilege::ManageSqlProcessors>
                <ProcessorForm cluster=cluster() on_done=changed />
            </Offered>
        </ListHead>
        <Loaded of=list keep=true ok=move |list: ProcessorList, _| {
            let here = list.cluster.clone();
            view! {
                {list.error.map(|e| view! { <p class="muted">"Flink did not answer, so states are unknown: "{e}</p> })}
                {if !list.configured {
                    view! { <p class="empty">"No Flink is configured for this cluster, so it runs no SQL processor."</p> }.into_any()
                } else if list.processors.is_empty() {
                    view! { <p class="empty">"No SQL processor that you may see."</p> }.into_any()
                } else {
                    view! {
                        <DataTable label="SQL processors" cols=&[Col::Text("Processor"), Col::Text("Reads"), Col::Text("Writes"), Col::Text("State"), Col::Num("Parallelism"), Col::Num("Throughput"), Col::Num("Lag")]>
                            <tbody>
                                {list.processors.into_iter().map(|p| view! { <ProcessorRow here=here.clone() p=p /> }).collect_view()}
                            </tbody>
                        </DataTable>
                    }.into_any()
                }}
            }.into_any()
        } />
    }
}

/// Records per second in and out, by Flink's meters; a dash when its job does not run.
fn throughput(p: &ProcessorSummary) -> String {
    match (p.read_per_second, p.written_per_second) {
        (Some(read), Some(written)) => format!("{} in · {} out", rate(read), rate(written)),
        _ => "—".to_string(),
    }
}

#[component]
fn ProcessorRow(here: String, p: ProcessorSummary) -> impl IntoView {
    view! {
        <tr data-processor=p.name.clone()>
            <th scope="row" class="mono">
                <a class="cut" href=page_url(&here, "processors", &p.name) title=p.name.clone()>{p.name.clone()}</a>
                {p.cause.clone().map(|c| view! { <div class="cause error-text cut" title=c.clone()>{c.clone()}</div> })}
            </th>
            <td>{topic_links(&here, &p.inputs)}</td>
            <td>{topic_links(&here, std::slice::from_ref(&p.output))}</td>
            <td data-figure="state">{connector_state(&p.state)}</td>
            <td class="num">{p.parallelism}</td>
            <td class="num" data-figure="throughput">{throughput(&p)}</td>
            <td class="num" data-figure="lag">{or_dash(p.lag, thousands)}</td>
        </tr>
    }
}

#[component]
pub fn ProcessorPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = use_cluster();
    let name = move || params.read().get("name").unwrap_or_default();
    let detail = Resource::new(move || (cluster(), name()), |(c, n)| processor(c, n.into()));
    let (notice, changed) = use_changes(move || detail.refetch());
    view! {
        <Title text=move || format!("{} · SQL processors of {}", name(), cluster()) />
        <Notice notice=notice />
        <Loaded of=detail keep=true named=Signal::derive(name) ok=move |d: ProcessorDetail, access: CallerAccess| {
            let manage = allows(access.get(), Privilege::ManageSqlProcessors, &d.processor.resource());
            let flow = access.get().is_some_and(|a| a.can(Privilege::Topology));
            view! { <ProcessorView d=d manage=manage flow=flow changed=changed /> }.into_any()
        } />
    }
}

#[component]
fn ProcessorView(
    d: ProcessorDetail, manage: bool, flow: bool, changed: Callback<String>,
) -> impl IntoView {
    let p = d.processor.clone();
    let cluster = d.cluster.clone();
    let send = change_action(changed);
    let one = StoredValue::new(ProcessorName {
        cluster: cluster.clone(),
        name: p.name.clone().into(),
        ..ProcessorName::default()
    });
    view! {
        <div class="page-head">
            <h1 class="cut" title=p.name.clone()>{p.name.clone()} " " {connector_state(&p.state)}</h1>
            <div class="actions">
                {flow.then(|| view! { <FlowLink cluster=cluster.clone() kind="processor" name=p.name.clone() /> })}
                {manage.then(|| view! {
                    <ProcessorActions name=p.name.clone() running=p.desired == "running" lost=p.lost()
                        parallelism=p.parallelism one=one send=send />
                })}
            </div>
        </div>
        {move || send.value().get().and_then(|r| r.err()).map(|e| view! { <ErrorAlert error=e /> })}
        {p.lost().then(|| view! {
            <p class="note note-warn" data-figure="processor-lost">"Kept running, yet Flink runs no job for it (the job ended, or Flink restarted and forgot it). Resume starts it again from its group's committed offsets."</p>
        })}
        {d.last_exception.clone().map(|e| view! {
            <div class="error" role="alert"><p>"Flink's last exception of its job:"</p><pre class="trace">{e}</pre></div>
        })}
        <dl class="facts">
            <dt>"Reads"</dt><dd>{topic_links(&cluster, &p.inputs)}</dd>
            <dt>"Writes"</dt><dd>{topic_links(&cluster, std::slice::from_ref(&p.output))}</dd>
            <dt>"Kept"</dt><dd>{if p.desired == "running" { "running" } else { "stopped" }}</dd>
            <dt>"Parallelism"</dt><dd data-figure="parallelism">{p.parallelism}</dd>
            <dt>"Consumer group"</dt><dd><a class="mono" href=page_url(&cluster, "groups", &d.group)>{d.group.clone()}</a></dd>
            <dt>"Throughput"</dt><dd data-figure="throughput">{throughput(&p)}</dd>
            <dt>"Lag"</dt><dd data-figure="lag">{or_dash(p.lag, thousands)}</dd>
            <dt>"Flink job"</dt><dd class="mono">{or_dash(p.job.clone(), |j| j)}</dd>
            <dt>"Savepoint"</dt><dd class="mono" data-figure="savepoint">{or_dash(d.savepoint.clone(), |s| s)}</dd>
            <dt>"Created"</dt><dd>{utc_timestamp(d.created_at)}{d.created_by.clone().map(|by| format!(" by {by}"))}</dd>
            <dt>"Changed"</dt><dd>{utc_timestamp(d.changed_at)}</dd>
        </dl>
        <h2>"Statement"</h2>
        <SqlText sql=d.sql.clone() />
        {d.plan.clone().map(|plan| view! {
            <details><summary>"Flink's plan of it, when it was created"</summary><pre class="trace">{plan}</pre></details>
        })}
    }
}

/// A statement with its keywords, strings and comments told apart.
#[component]
fn SqlText(sql: String) -> impl IntoView {
    view! {
        <pre class="sql" data-sql="">
            {sql_tokens(&sql).into_iter().map(|(kind, text)| match kind {
                Token::Plain => text.into_any(),
                kind => view! { <span class=kind.class()>{text}</span> }.into_any(),
            }).collect_view()}
        </pre>
    }
}

/// What a piece of a statement is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Plain,
    Keyword,
    Text,
    Comment,
}

impl Token {
    fn class(self) -> &'static str {
        match self {
            Token::Plain => "",
            Token::Keyword => "sql-kw",
            Token::Text => "sql-str",
            Token::Comment => "sql-comment",
        }
    }
}

/// The words a statement's reader looks for first.
const KEYWORDS: &[&str] = &[
    "ALL", "AND", "AS", "BETWEEN", "BY", "CASE", "CAST", "DISTINCT", "ELSE", "END", "FALSE",
    "FROM", "GROUP", "HAVING", "IN", "INNER", "INSERT", "INTERVAL", "INTO", "IS", "JOIN", "LEFT",
    "LIKE", "LIMIT", "NOT", "NULL", "ON", "OR", "ORDER", "OUTER", "RIGHT", "SELECT", "THEN",
    "TRUE", "UNION", "WHEN", "WHERE", "WITH",
];

/// `sql` cut into pieces of one kind each, which joined give it back whole: quoted strings
/// (`'...'`, a quote doubled inside), `--` and `/* */` comments, keywords, and the rest.
fn sql_tokens(sql: &str) -> Vec<(Token, String)> {
    let mut out: Vec<(Token, String)> = Vec::new();
    let push = |out: &mut Vec<(Token, String)>, kind: Token, text: &str| match out.last_mut() {
        Some((last, held)) if *last == kind && kind == Token::Plain => held.push_str(text),
        _ => out.push((kind, text.to_string())),
    };
    let mut rest = sql;
    while let Some(c) = rest.chars().next() {
        let (kind, len) = if c == '\'' {
            // To the closing quote, a doubled quote being part of the string.
            let mut end = rest.len();
            let mut i = 1;
            while let Some(at) = rest[i..].find('\'') {
                let at = i + at;
                if rest[at + 1..].starts_with('\'') {
                    i = at + 2;
                } else {
                    end = at + 1;
                    break;
                }
            }
            (Token::Text, end)
        } else if rest.starts_with("--") {
            (Token::Comment, rest.find('\n').unwrap_or(rest.len()))
        } else if let Some(body) = rest.strip_prefix("/*") {
            (Token::Comment, body.find("*/").map_or(rest.len(), |at| at + 4))
        } else if c.is_alphanumeric() || c == '_' {
            let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            let word = &rest[..len];
            let keyword = KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word));
            (if keyword { Token::Keyword } else { Token::Plain }, len)
        } else {
            (Token::Plain, c.len_utf8())
        };
        push(&mut out, kind, &rest[..len]);
        rest = &rest[len..];
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Act {
    Stop,
    Resume,
    Scale,
    Delete,
}

type Changes = Action<(Act, ProcessorName), Result<ProcessorChanged, ApiError>>;

/// The one action every change of the page goes through.
fn change_action(changed: Callback<String>) -> Changes {
    let send = |(act, args): &(Act, ProcessorName)| {
        let (act, args) = (*act, args.clone());
        async move {
            match act {
                Act::Stop => stop_processor(args).await,
                Act::Resume => resume_processor(args).await,
                Act::Scale => scale_processor(args).await,
                Act::Delete => delete_processor(args).await,
            }
        }
    };
    let said = |done: &ProcessorChanged| match (&done.savepoint, &done.job) {
        (Some(savepoint), None) => format!("Stopped {}; its state is in {savepoint}.", done.name),
        (_, Some(job)) => {
            format!("{}: {} done; Flink runs it as job {job}.", done.name, done.action)
        }
        (None, None) => format!("{}: {} done.", done.name, done.action),
    };
    object_changes(send, "processors", said, changed)
}

#[component]
fn ProcessorActions(
    name: String, running: bool, lost: bool, parallelism: u32, one: StoredValue<ProcessorName>,
    send: Changes,
) -> impl IntoView {
    let go = move |act: Act, parallelism: Option<u32>| {
        let args = ProcessorName { parallelism: parallelism.into(), ..one.get_value() };
        send.dispatch((act, args));
    };
    let busy = move || send.pending().get();
    let scaling = RwSignal::new(false);
    let deleting = RwSignal::new(false);
    let wanted = RwSignal::new(parallelism.to_string());
    view! {
        <button type="button" class="button" disabled=move || busy() || !running on:click=move |_| go(Act::Stop, None)>"Stop"</button>
        <button type="button" class="button" disabled=move || busy() || (running && !lost) on:click=move |_| go(Act::Resume, None)>"Resume"</button>
        <button type="button" class="button" on:click=move |_| scaling.update(|s| *s = !*s)>"Scale"</button>
        <Show when=move || scaling.get()>
            <div class="panel" role="dialog" aria-label="Scale processor">
                <h2>"Scale processor"</h2>
                <p class="muted">"Stops the job with a savepoint and starts it from there with the new number of parallel instances."</p>
                <label>"Parallelism"
                    <input type="number" min="1" bind:value=wanted />
                </label>
                <div class="panel-actions">
                    <button type="button" class="button button-primary" disabled=busy
                        on:click=move |_| go(Act::Scale, wanted.get_untracked().trim().parse().ok())>"Scale"</button>
                    <button type="button" class="button" on:click=move |_| scaling.set(false)>"Cancel"</button>
                </div>
            </div>
        </Show>
        <ConfirmSheet open=deleting button="Delete processor" title="Delete processor"
            field="Processor name" name=name
            warning="Flink cancels its job without a savepoint; what it wrote stays in its topic.".to_string()
            pending=send.pending().into() act=Callback::new(move |()| go(Act::Delete, None)) />
    }
}

/// New processor: a name, one `INSERT INTO … SELECT …` statement and its parallelism,
/// previewed by Flink before it may be created; the columns of any topic the caller may read
/// are shown on request, as the statement would see them.
#[component]
fn ProcessorForm(cluster: String, on_done: Callback<String>) -> impl IntoView {
    let open = RwSignal::new(false);
    let name = RwSignal::new(String::new());
    let sql = RwSignal::new(String::new());
    let parallelism = RwSignal::new("1".to_string());
    let preview = RwSignal::new(None::<ProcessorCreated>);
    let confirmed = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let cluster = StoredValue::new(cluster);
    // A preview, and its columns confirmed, hold for the statement it was made of.
    Effect::new(move |_| {
        name.track();
        sql.track();
        parallelism.track();
        preview.set(None);
    });
    Effect::new(move |_| {
        preview.track();
        confirmed.set(false);
    });
    let send = Action::new_local(move |dry_run: &bool| {
        let args = ProcessorArgs {
            cluster: cluster.get_value(),
            name: name.get_untracked().trim().to_string().into(),
            sql: sql.get_untracked().into(),
            parallelism: parallelism.get_untracked().trim().parse::<u32>().ok().into(),
            dry_run: (*dry_run).into(),
        };
        let dry_run = *dry_run;
        async move { (dry_run, create_processor(args).await) }
    });
    follow_change(send, preview, error, move |done: ProcessorCreated| {
        open.set(false);
        on_done.run(format!(
            "Created processor {}; Flink runs it as job {}.",
            done.name,
            done.job.unwrap_or_default()
        ));
    });
    view! {
        <button type="button" class="button" on:click=move |_| open.update(|o| *o = !*o)>"New processor"</button>
        <Show when=move || open.get()>
            <div class="panel wide" role="dialog" aria-label="New processor">
                <h2>"New processor"</h2>
                <label>"Name"
                    <input type="text" autocomplete="off" bind:value=name />
                </label>
                <label>"Statement: one INSERT INTO <topic> SELECT … FROM <topic> …"
                    <textarea class="mono" rows="7" spellcheck="false" bind:value=sql></textarea>
                </label>
                <label>"Parallelism"
                    <input type="number" min="1" bind:value=parallelism />
                </label>
                <Columns cluster=cluster.get_value() />
                <DryRunButtons check="Preview" apply="Create" open=open
                    pending=send.pending().into() dispatch=Callback::new(move |dry| { send.dispatch(dry); })
                    blocked=Signal::derive(move || preview.get().is_none() || !confirmed.get()) />
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                {move || preview.get().map(|p| view! { <Preview p=p confirmed=confirmed /> })}
            </div>
        </Show>
    }
}

/// A dry run's answer: what the statement reads and writes, the columns of what it reads for
/// its author to confirm, its first rows and Flink's plan.
#[component]
fn Preview(p: ProcessorCreated, confirmed: RwSignal<bool>) -> impl IntoView {
    let cell = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "NULL".to_string(),
        v => v.to_string(),
    };
    view! {
        <p role="status" data-figure="preview">
            {format!("Reads {}; writes {}. {} rows from the newest records:", p.reads.join(", "), p.writes, p.rows.len())}
        </p>
        <DataTable label="Preview rows" class="compact">
            <thead><tr>{p.columns.iter().map(|c| view! { <th scope="col" class="mono">{c.clone()}</th> }).collect_view()}</tr></thead>
            <tbody>
                {p.rows.iter().map(|row| view! {
                    <tr>{row.iter().map(|v| view! { <td class="mono">{cell(v)}</td> }).collect_view()}</tr>
                }).collect_view()}
            </tbody>
        </DataTable>
        <details><summary>"Flink's plan"</summary><pre class="trace">{p.plan}</pre></details>
        {p.tables.into_iter().map(shown_columns).collect_view()}
        <label class="inline"><input type="checkbox" prop:checked=move || confirmed.get()
            on:change=move |ev| confirmed.set(event_target_checked(&ev)) />
            "These columns are right: the processor declares them at every start"</label>
    }
}

/// A topic's columns as a statement reads it.
fn shown_columns(t: ProcessorColumns) -> impl IntoView {
    view! {
        <p class="muted">{format!("Columns of {}:", t.topic)}</p>
        {t.note.map(|n| view! { <p class="note" data-figure="columns-note">{n}</p> })}
        <ul class="columns mono" data-columns=t.topic.clone()>
            {t.columns.into_iter().map(|(name, sql_type)| view! { <li>{name}" "<span class="muted">{sql_type}</span></li> }).collect_view()}
        </ul>
    }
}

/// The columns a statement sees of a topic, asked for by name.
#[component]
fn Columns(cluster: String) -> impl IntoView {
    let topic = RwSignal::new(String::new());
    let cluster = StoredValue::new(cluster);
    let ask = Action::new_local(move |topic: &String| {
        processor_table(cluster.get_value(), topic.trim().to_string().into())
    });
    // The cluster's topics whose names match what is typed, as the caller's search finds them.
    let found = LocalResource::new(move || {
        let q = topic.get();
        async move {
            if q.trim().is_empty() {
                return Vec::new();
            }
            let hits = search(q.into(), cluster.get_value().into()).await.map(|r| r.hits);
            hits.unwrap_or_default()
                .into_iter()
                .filter(|h| h.kind == HitKind::Topic)
                .map(|h| h.name)
                .collect::<Vec<_>>()
        }
    });
    view! {
        <div class="header-row">
            <label>"Columns of topic"
                <input type="text" class="mono" autocomplete="off" list="processor-topics" bind:value=topic />
            </label>
            <datalist id="processor-topics">
                {move || found.get().unwrap_or_default().into_iter().map(|t| view! { <option value=t></option> }).collect_view()}
            </datalist>
            <button type="button" class="button" disabled=move || ask.pending().get()
                on:click=move |_| { ask.dispatch(topic.get_untracked()); }>"Show columns"</button>
        </div>
        {move || ask.value().get().map(|answer| match answer {
            Ok(t) => shown_columns(t).into_any(),
            Err(e) => view! { <p class="error" role="alert">{e.message}</p> }.into_any(),
        })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_is_cut_into_keywords_strings_comments_and_the_rest() {
        let sql = "insert INTO `big` SELECT a, 'it''s' -- why\nFROM t /* x */ WHERE total > 5";
        let tokens = sql_tokens(sql);
        assert_eq!(tokens.iter().map(|(_, t)| t.as_str()).collect::<String>(), sql);
        let of = |kind: Token| -> Vec<&str> {
            tokens.iter().filter(|(k, _)| *k == kind).map(|(_, t)| t.as_str()).collect()
        };
        assert_eq!(of(Token::Keyword), ["insert", "INTO", "SELECT", "FROM", "WHERE"]);
        assert_eq!(of(Token::Text), ["'it''s'"]);
        assert_eq!(of(Token::Comment), ["-- why", "/* x */"]);
    }

    #[test]
    fn an_unclosed_string_or_comment_runs_to_the_end() {
        for sql in ["SELECT 'open", "SELECT /* open", "x -- end"] {
            let tokens = sql_tokens(sql);
            assert_eq!(tokens.iter().map(|(_, t)| t.as_str()).collect::<String>(), sql);
            assert_ne!(tokens.last().map(|(k, _)| *k), Some(Token::Plain), "{sql}");
        }
    }
}
