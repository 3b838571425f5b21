//! `/c/{cluster}/schemas/{subject}`: a subject's versions, compatibility and topics (catalog),
//! then, with SCHEMA_TEXT, the text of one version highlighted and the changes between any two
//! versions. `?version=` picks the version shown, `?compare=` the one it is compared with.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_params_map, use_query_map};
use leptos_router::NavigateOptions;

use super::schema_changes::{ChangeCompatibility, DeleteSchema, RegisterSchema};
use crate::api::{schema, subject, SchemaDetail, SubjectDetail};
use crate::components::access::{allows, NeedsPrivilege};
use crate::components::page::{use_changes, CallerAccess, Loaded, Notice};
use crate::components::table::DataTable;
use crate::components::{use_cluster, ErrorAlert};
use crate::error::{ApiError, ErrorCode};
use crate::format::page_url;
use crate::schema_view::{changes, highlight, line_diff, pretty, Line};
use crate::Privilege;

#[component]
pub fn SubjectPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let cluster = move || params.read().get("cluster").unwrap_or_default();
    let name = move || params.read().get("subject").unwrap_or_default();
    let chosen = move |key: &str| query.read().get(key).and_then(|v| v.parse::<i32>().ok());
    let detail = Resource::new(move || (cluster(), name()), |(c, s)| subject(c, s.into()));
    // The texts shown and compared, made here, once, and not inside the suspense below: a
    // resource made while a suspense resolves may be made a different number of times on the
    // server and in the browser, and then hydrates with another resource's data.
    let this: Text = Resource::new(
        move || (cluster(), name(), chosen("version")),
        |(c, s, v)| shown_text(c, s, v),
    );
    let other: Text = Resource::new(
        move || (cluster(), name(), chosen("version"), chosen("compare")),
        |(c, s, v, k)| compared_text(c, s, v, k),
    );
    // A change says what it did here, and the subject is read again.
    let (notice, changed) = use_changes(move || {
        detail.refetch();
        this.refetch();
        other.refetch();
    });
    view! {
        <Title text=name />
        <Loaded of=detail keep=true named=Signal::derive(name) ok=move |d: SubjectDetail, access: CallerAccess| {
            let subject = crate::access::Resource::Subject(name());
            let may = |privilege| allows(access.get(), privilege, &subject);
            let can = Can {
                register: may(Privilege::RegisterSchemas),
                level: may(Privilege::SetCompatibility),
                delete: may(Privilege::DeleteSchemas),
                text: may(Privilege::SchemaText),
            };
            let numbers: Vec<i32> = d.versions.iter().map(|v| v.version).collect();
            let shown = chosen("version").or(numbers.last().copied());
            let compare = chosen("compare").or_else(|| version_before(&numbers, shown));
            view! {
                <Overview detail=d.clone() cluster=cluster() can=can changed=changed />
                <Notice notice=notice />
                <NeedsPrivilege cluster=cluster() privilege=Privilege::SchemaText
                    what="The schema text" target=crate::access::Resource::Subject(name()) children=ChildrenFn::to_children(move || {
                        let d = d.clone();
                        view! { <Texts detail=d shown=shown compare=compare this=this other=other /> }
                    }) />
            }.into_any()
        } />
    }
}

/// A version's text as the page shows it: `None` when the subject has no version to show.
type Text = Resource<Result<Option<SchemaDetail>, ApiError>>;

/// The version before `shown` among `versions` (oldest first): what a version is compared with
/// by default.
fn version_before(versions: &[i32], shown: Option<i32>) -> Option<i32> {
    let at = versions.iter().position(|v| Some(*v) == shown)?;
    at.checked_sub(1).map(|i| versions[i])
}

/// The text of `version` (`None`: the newest, or nothing when every version is deleted).
async fn shown_text(
    cluster: String, subject: String, version: Option<i32>,
) -> Result<Option<SchemaDetail>, ApiError> {
    match schema(cluster, subject.into(), version.into()).await {
        Ok(d) => Ok(Some(d)),
        Err(e) if version.is_none() && e.code == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The text compared with the one shown: `compare`, or by default the version before the one
/// shown.
async fn compared_text(
    cluster: String, subject: String, version: Option<i32>, compare: Option<i32>,
) -> Result<Option<SchemaDetail>, ApiError> {
    let compare = match compare {
        Some(c) => Some(c),
        None => {
            let detail = crate::api::subject(cluster.clone(), subject.clone().into()).await?;
            let numbers: Vec<i32> = detail.versions.iter().map(|v| v.version).collect();
            version_before(&numbers, version.or(numbers.last().copied()))
        }
    };
    match compare {
        Some(c) => schema(cluster, subject.into(), c.into()).await.map(Some),
        None => Ok(None),
    }
}

/// The changes the caller may make on the subject.
#[derive(Clone, Copy, Debug, Default)]
struct Can {
    register: bool,
    level: bool,
    delete: bool,
    text: bool,
}

/// The catalog part: levels, topics, versions, and the changes the caller may make.
#[component]
fn Overview(
    detail: SubjectDetail, cluster: String, can: Can, changed: Callback<String>,
) -> impl IntoView {
    let level = detail.compatibility.clone().unwrap_or_else(|| "—".into());
    let whose = if detail.compatibility_overridden {
        "the subject's own level"
    } else {
        "the registry's global level"
    };
    let kind = detail.versions.last().map(|v| v.schema_type.clone()).unwrap_or_else(|| "—".into());
    let topics = detail.topics.clone();
    let left_out = detail.versions_left_out;
    let live = !detail.versions.is_empty();
    let newest_kind = detail.versions.last().map(|v| v.schema_type.clone());
    let name = detail.subject.clone();
    let own = detail.compatibility_overridden.then(|| detail.compatibility.clone()).flatten();
    let deleted = detail.deleted_versions.clone();
    let (c, n) = (cluster.clone(), name.clone());
    let delete_version = move |version: i32| {
        can.delete.then(|| view! {
            <td><DeleteSchema cluster=c.clone() subject=n.clone() version=Some(version) permanent=false on_done=changed /></td>
        })
    };
    view! {
        <div class="page-head">
            <h1 class="mono">{detail.subject.clone()}</h1>
            <div class="actions">
                {can.register.then(|| view! {
                    <RegisterSchema cluster=cluster.clone() subject=Some(name.clone()) kind=newest_kind.clone() can_read=can.text on_done=changed />
                })}
                {(can.level && live).then(|| view! {
                    <ChangeCompatibility cluster=cluster.clone() subject=name.clone() own=own.clone()
                        global=detail.global_compatibility.clone() on_done=changed />
                })}
                {(can.delete && live).then(|| view! {
                    <DeleteSchema cluster=cluster.clone() subject=name.clone() version=None permanent=false on_done=changed />
                })}
                {(can.delete && !live).then(|| view! {
                    <DeleteSchema cluster=cluster.clone() subject=name.clone() version=None permanent=true on_done=changed />
                })}
            </div>
        </div>
        <dl class="facts">
            <div><dt>"Type"</dt><dd data-figure="type">{kind}</dd></div>
            <div><dt>"Versions"</dt><dd data-figure="versions">{detail.versions.len() as u64 + left_out}</dd></div>
            <div><dt>"Compatibility"</dt><dd data-figure="compatibility">{level}
                " " <span class="badge">{whose}</span></dd></div>
        </dl>
        <p data-figure="topics">
            {if topics.is_empty() {
                view! { "No topic of this cluster is named by this subject." }.into_any()
            } else {
                view! {
                    "Describes "
                    {topics.into_iter().enumerate().map(|(i, (topic, part))| {
                        let href = page_url(&cluster, "topics", &topic);
                        view! {
                            {(i > 0).then_some(", ")}
                            "the " {part} " of " <a class="mono" href=href>{topic}</a>
                        }
                    }).collect_view()}
                    "."
                }.into_any()
            }}
        </p>
        <DataTable label="Versions">
            <thead><tr>
                <th scope="col" class="num">"Version"</th>
                <th scope="col" class="num">"Schema id"</th>
                <th scope="col">"Type"</th>
                <th scope="col">"References"</th>
                {can.delete.then(|| view! { <th scope="col"><span class="visually-hidden">"Actions"</span></th> })}
            </tr></thead>
            <tbody>
                {detail.versions.iter().rev().map(|v| {
                    let refs = if v.references.is_empty() {
                        "—".to_string()
                    } else {
                        v.references.iter()
                            .map(|r| format!("{} ({} v{})", r.name, r.subject, r.version))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    view! {
                        <tr data-version=v.version>
                            <th scope="row" class="num">{v.version}</th>
                            <td class="num">{v.id}</td>
                            <td>{v.schema_type.clone()}</td>
                            <td class="mono">{refs}</td>
                            {delete_version(v.version)}
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </DataTable>
        {(left_out > 0).then(|| view! {
            <p class="note">{format!("{left_out} older versions are not listed.")}</p>
        })}
        {(!deleted.is_empty()).then(|| view! {
            <section aria-label="Soft-deleted versions">
                <h2>"Soft-deleted versions"</h2>
                <p class="note">"The registry no longer lists these versions, and still decodes records written with them until they are deleted permanently."</p>
                <ul class="soft-deleted">
                    {deleted.iter().map(|v| view! {
                        <li data-deleted-version=*v>{format!("Version {v} ")}
                            {can.delete.then(|| view! {
                                <DeleteSchema cluster=cluster.clone() subject=name.clone() version=Some(*v) permanent=true on_done=changed />
                            })}
                        </li>
                    }).collect_view()}
                </ul>
            </section>
        })}
    }
}

/// A highlighted schema text.
#[component]
fn SchemaText(kind: String, text: String) -> impl IntoView {
    let shown = pretty(&kind, &text);
    view! {
        <pre class="schema-text" aria-label="Schema text"><code>
            {highlight(&kind, &shown).into_iter().map(|(token, piece)| {
                match token.class() {
                    "" => view! { {piece} }.into_any(),
                    class => view! { <span class=class>{piece}</span> }.into_any(),
                }
            }).collect_view()}
        </code></pre>
    }
}

/// The version shown, and the changes from the compared one.
#[component]
fn Texts(
    detail: SubjectDetail, shown: Option<i32>, compare: Option<i32>, this: Text, other: Text,
) -> impl IntoView {
    let cluster = use_cluster();
    let name = detail.subject.clone();
    let versions: Vec<i32> = detail.versions.iter().map(|v| v.version).collect();
    let navigate = use_navigate();
    let path = page_url(&cluster(), "schemas", &name);
    let go = StoredValue::new(move |version: Option<i32>, compare: Option<i32>| {
        let mut q = Vec::new();
        if let Some(v) = version {
            q.push(format!("version={v}"));
        }
        if let Some(c) = compare {
            q.push(format!("compare={c}"));
        }
        navigate(
            &format!("{path}?{}", q.join("&")),
            NavigateOptions { replace: true, scroll: false, ..Default::default() },
        );
    });
    let options = move |selected: Option<i32>, none: Option<&'static str>| {
        view! {
            {none.map(|label| view! { <option value="" selected=selected.is_none()>{label}</option> })}
            {versions.iter().rev().map(|v| view! {
                <option value=v.to_string() selected=selected == Some(*v)>{format!("Version {v}")}</option>
            }).collect_view()}
        }
    };
    let (options_a, options_b) = (options.clone(), options);
    view! {
        <section aria-label="Schema">
            <h2>"Schema"</h2>
            <label class="inline">"Show "
                <select aria-label="Version shown" on:change=move |ev| {
                    let v = event_target_value(&ev).parse().ok();
                    go.with_value(|go| go(v, compare));
                }>{options_a(shown, None)}</select>
            </label>
            <Loaded of=this keep=true ok={move |value: Option<SchemaDetail>, _| match value {
                Some(s) => view! { <Shown schema=s /> }.into_any(),
                None => view! { <p class="empty">"The subject has no versions."</p> }.into_any(),
            }} />
        </section>
        <section aria-label="Changes">
            <h2>"Changes"</h2>
            <label class="inline">"Compare with "
                <select aria-label="Compared version" on:change=move |ev| {
                    let c = event_target_value(&ev).parse().ok();
                    go.with_value(|go| go(shown, c));
                }>{options_b(compare, Some("no other version"))}</select>
            </label>
            <Transition fallback=|| view! { <div class="skeleton-table"></div> }>
                {move || Suspend::new(async move {
                    match (this.await, other.await) {
                        (Ok(Some(new)), Ok(Some(old))) => view! { <Compared old=old new=new /> }.into_any(),
                        (Ok(_), Ok(None)) => view! { <p class="empty">"Pick a version to compare with."</p> }.into_any(),
                        (Err(e), _) | (_, Err(e)) => view! { <ErrorAlert error=e /> }.into_any(),
                        (Ok(None), _) => ().into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn Shown(schema: SchemaDetail) -> impl IntoView {
    let refs = schema.references.clone();
    view! {
        <p class="note">{format!("Version {}, schema id {}, {}.", schema.version, schema.id, schema.schema_type)}</p>
        {(!refs.is_empty()).then(|| view! {
            <p>"References: " {refs.into_iter().map(|r| view! {
                <span class="mono">{format!("{} → {} version {} ", r.name, r.subject, r.version)}</span>
            }).collect_view()}</p>
        })}
        <SchemaText kind=schema.schema_type.clone() text=schema.schema.clone() />
    }
}

/// What changed from `old` to `new`: the fields, then the lines.
#[component]
fn Compared(old: SchemaDetail, new: SchemaDetail) -> impl IntoView {
    let title = format!("From version {} to version {}", old.version, new.version);
    if old.schema_type != new.schema_type {
        return view! {
            <p class="note">{format!("{title}: the type changed from {} to {}.", old.schema_type, new.schema_type)}</p>
        }
        .into_any();
    }
    let kind = new.schema_type.clone();
    let fields = changes(&kind, &old.schema, &new.schema);
    let (a, b) = (pretty(&kind, &old.schema), pretty(&kind, &new.schema));
    let lines = line_diff(&a, &b);
    let what = if kind == "PROTOBUF" { "Fields by message and number" } else { "Fields" };
    view! {
        <h3>{title}</h3>
        <h4>{what}</h4>
        {match fields {
            Ok(list) if list.is_empty() => view! { <p class="empty">"No field changed."</p> }.into_any(),
            Ok(list) => view! {
                <ul class="changes" aria-label="Field changes">
                    {list.into_iter().map(|c| view! {
                        <li><span class="mono">{c.at}</span>": "{c.what}</li>
                    }).collect_view()}
                </ul>
            }.into_any(),
            Err(e) => view! { <p class="error">{e}</p> }.into_any(),
        }}
        <h4>"Text"</h4>
        {match lines {
            Some(lines) => view! {
                <pre class="schema-text diff" aria-label="Text changes"><code>
                    {lines.into_iter().map(|l| match l {
                        Line::Same(t) => view! { <span class="diff-same">{format!("  {t}\n")}</span> },
                        Line::Removed(t) => view! { <span class="diff-removed">{format!("- {t}\n")}</span> },
                        Line::Added(t) => view! { <span class="diff-added">{format!("+ {t}\n")}</span> },
                    }).collect_view()}
                </code></pre>
            }.into_any(),
            None => view! { <p class="note">"The texts are too long to compare line by line."</p> }.into_any(),
        }}
    }
    .into_any()
}
