//! `/c/{cluster}/audit`: the cluster's audit events (AUDIT), newest first, filtered by user,
//! privilege, resource and time, in pages; the filters live in the URL.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::api::{audit, Arg, AuditArgs, AuditEvent, PAGE_SIZE};
use crate::components::access::NeedsPrivilege;
use crate::components::clock::{local_time, shown_time, ZoneSwitch};
use crate::components::table::DataTable;
use crate::components::ErrorAlert;
use crate::format::{query_value, thousands};
use crate::Privilege;

/// The time filter's choices: label and span in ms.
const WITHIN: &[(&str, &str, i64)] = &[
    ("", "Any time", 0),
    ("1h", "Last hour", 3_600_000),
    ("1d", "Last day", 86_400_000),
    ("7d", "Last 7 days", 7 * 86_400_000),
];

/// The filters as the URL holds them.
#[derive(Clone, Debug, Default, PartialEq)]
struct Filters {
    user: String,
    privilege: String,
    resource: String,
    within: String,
    /// Zero-based.
    page: u64,
}

impl Filters {
    fn args(&self) -> AuditArgs {
        let text = |t: &str| {
            if t.is_empty() {
                Arg::Missing
            } else {
                Arg::Given(t.to_string())
            }
        };
        let within = WITHIN
            .iter()
            .find(|(key, _, _)| *key == self.within && !key.is_empty())
            .map_or(Arg::Missing, |(_, _, ms)| Arg::Given(*ms));
        AuditArgs {
            user: text(&self.user),
            privilege: text(&self.privilege),
            resource: text(&self.resource),
            within,
            offset: Arg::Given(self.page * PAGE_SIZE),
            limit: Arg::Given(PAGE_SIZE),
            ..AuditArgs::default()
        }
    }

    /// The query string of these filters on page `page`.
    fn search(&self, page: u64) -> String {
        let mut parts = Vec::new();
        for (key, value) in [
            ("user", &self.user),
            ("privilege", &self.privilege),
            ("resource", &self.resource),
            ("within", &self.within),
        ] {
            if !value.is_empty() {
                parts.push(format!("{key}={}", query_value(value)));
            }
        }
        if page > 0 {
            parts.push(format!("page={}", page + 1));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("?{}", parts.join("&"))
        }
    }
}

#[component]
pub fn AuditPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let cluster = move || params.read().get("cluster").unwrap_or_default();
    let filters = Memo::new(move |_| {
        let q = query.read();
        Filters {
            user: q.get("user").unwrap_or_default(),
            privilege: q.get("privilege").unwrap_or_default(),
            resource: q.get("resource").unwrap_or_default(),
            within: q.get("within").unwrap_or_default(),
            page: q
                .get("page")
                .and_then(|p| p.parse::<u64>().ok())
                .map_or(0, |p| p.saturating_sub(1)),
        }
    });
    let list = Resource::new(move || (cluster(), filters.get()), |(c, f)| audit(c, f.args()));
    view! {
        <Title text=move || format!("Audit log of {}", cluster()) />
        <div class="page-head">
            <h1>"Audit log"</h1>
            <ZoneSwitch />
        </div>
        <NeedsPrivilege cluster=cluster() privilege=Privilege::Audit what="The audit log"
            children=ChildrenFn::to_children(move || view! {
                <AuditFilters filters=filters />
                <AuditTable list=list filters=filters cluster=cluster() />
            }) />
    }
}

/// The filter form: a plain GET form, so the filters land in the URL.
#[component]
fn AuditFilters(filters: Memo<Filters>) -> impl IntoView {
    let f = filters.get_untracked();
    view! {
        <form class="toolbar" method="get" aria-label="Filter the audit log">
            <input class="filter" type="search" name="user" aria-label="User" placeholder="User" value=f.user.clone() />
            <select name="privilege" aria-label="Privilege">
                <option value="" selected=f.privilege.is_empty()>"Any privilege"</option>
                {Privilege::ALL.iter().map(|p| {
                    let name = p.wire_name();
                    view! { <option value=name selected=f.privilege == name>{name}</option> }
                }).collect_view()}
            </select>
            <input class="filter" type="search" name="resource" aria-label="Resource" placeholder="Topic, group or subject" value=f.resource.clone() />
            <select name="within" aria-label="Time">
                {WITHIN.iter().map(|(key, label, _)| view! {
                    <option value=*key selected=f.within == *key>{*label}</option>
                }).collect_view()}
            </select>
            <button type="submit">"Filter"</button>
        </form>
    }
}

fn who(e: &AuditEvent) -> String {
    match (&e.who.name, &e.who.subject) {
        (Some(name), _) => name.clone(),
        (None, Some(subject)) => subject.clone(),
        (None, None) => e.who.kind.clone(),
    }
}

/// What was asked, as `name: value` pairs, leaving out the resource already shown.
fn asked(e: &AuditEvent) -> String {
    let serde_json::Value::Object(map) = &e.summary else {
        return String::new();
    };
    map.iter()
        .filter(|(_, v)| v.as_str().is_none() || v.as_str() != e.resource.name.as_deref())
        .map(|(k, v)| match v {
            serde_json::Value::String(text) => format!("{k}: {text}"),
            other => format!("{k}: {other}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn outcome(e: &AuditEvent) -> (String, &'static str) {
    if e.phase == crate::api::AuditPhase::Attempt {
        // Recorded before the change reached Kafka; klens never recorded how it ended.
        return ("no outcome recorded".to_string(), "badge badge-warn");
    }
    if e.outcome.ok {
        let said = if e.dry_run { "dry run" } else { "done" };
        (said.to_string(), "badge badge-ok")
    } else {
        let code = e.outcome.code.clone().unwrap_or_default();
        let class = if e.decision == "refused" { "badge badge-warn" } else { "badge badge-bad" };
        (code, class)
    }
}

#[component]
fn AuditTable(
    list: Resource<Result<crate::api::AuditList, crate::error::ApiError>>, filters: Memo<Filters>,
    cluster: String,
) -> impl IntoView {
    let local = local_time();
    let cluster = StoredValue::new(cluster);
    view! {
        <Transition fallback=|| view! { <div class="skeleton-table"></div> }>
            {move || Suspend::new(async move {
                match list.await {
                    Err(e) => view! { <ErrorAlert error=e /> }.into_any(),
                    Ok(l) if !l.configured => view! {
                        <p class="empty" role="note">"klens keeps no audit log: set audit.file or audit.topic in its config to record every change."</p>
                    }.into_any(),
                    Ok(l) => {
                        let f = filters.get_untracked();
                        let first = f.page * PAGE_SIZE;
                        let shown = l.events.len() as u64;
                        let base = format!("/c/{}/audit", cluster.get_value());
                        let newer = (f.page > 0).then(|| format!("{base}{}", f.search(f.page - 1)));
                        let older = (first + shown < l.matched).then(|| format!("{base}{}", f.search(f.page + 1)));
                        let summary = if l.matched == 0 {
                            "No events match.".to_string()
                        } else {
                            format!("{}–{} of {}, newest first", thousands(first + 1), thousands(first + shown), thousands(l.matched))
                        };
                        view! {
                            <DataTable label="Audit events" class="audit">
                                <thead><tr>
                                    <th scope="col">"Time"</th><th scope="col">"Who"</th><th scope="col">"Door"</th>
                                    <th scope="col">"Privilege"</th><th scope="col">"Resource"</th><th scope="col">"Outcome"</th>
                                    <th scope="col">"Asked"</th>
                                </tr></thead>
                                <tbody>
                                    {l.events.into_iter().map(|e| {
                                        let (said, class) = outcome(&e);
                                        let reason = e.outcome.message.clone().unwrap_or_default();
                                        let resource = match &e.resource.name {
                                            Some(name) => format!("{} {name}", e.resource.kind),
                                            None => e.resource.kind.clone(),
                                        };
                                        let mut asked = asked(&e);
                                        if let Some(n) = e.suppressed {
                                            asked = format!("{n} more refused attempts this minute, counted only. {asked}");
                                        }
                                        let forged = e.genuine == Some(false);
                                        let privilege = e.privilege.map_or("—", |p| p.wire_name());
                                        let door = if e.who.forwarded { "mcp (gateway)".to_string() } else { format!("{:?}", e.door).to_lowercase() };
                                        let time = e.time;
                                        view! {
                                            <tr data-id=e.id.clone() class:forged=forged>
                                                <td class="mono">{move || shown_time(time, local.get())}</td>
                                                <td title=e.who.groups.join(", ")>{who(&e)}</td>
                                                <td>{door}</td>
                                                <td class="mono">{privilege}</td>
                                                <td class="mono resource">{resource}</td>
                                                <td>
                                                    <span class=class title=reason>{said}</span>
                                                    {forged.then(|| view! { <span class="badge badge-bad" title="This record's signature does not match audit.key: another client wrote it to the audit topic or file, or changed it.">"not signed by klens"</span> })}
                                                </td>
                                                <td class="mono asked">{asked}</td>
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </DataTable>
                            <nav class="pager" aria-label="Pages">
                                <span class="pager-summary">{summary}</span>
                                {newer.map(|href| view! { <a href=href>"Newer"</a> })}
                                {older.map(|href| view! { <a href=href>"Older"</a> })}
                            </nav>
                            {l.older_not_read.then(|| view! {
                                <p class="muted">"The audit log holds older events than klens reads here; they are in the file or topic itself."</p>
                            })}
                        }.into_any()
                    }
                }
            })}
        </Transition>
    }
}
