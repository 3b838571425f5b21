//! The registry writes of the Schemas and Subject pages: Register schema (a new subject) and
//! Register a new version, each previewed first with the registry's verdict and how the topic's
//! newest records read with the schema; Change compatibility; Delete this version or the whole
//! subject, soft first, then permanently with the subject's name typed.

use leptos::prelude::*;

use crate::api::{
    delete_schema, register_schema, schema, set_compatibility, CompatibilitySet, DeleteSchemaArgs,
    RecordsCheck, RegisterSchemaArgs, SchemaDeleted, SchemaReference, SchemaRegistered,
    SetCompatibilityArgs, COMPATIBILITY_LEVELS,
};
use crate::components::change::{follow_change, TypedConfirm};
use crate::format::page_url;
use crate::schema_view::{changes, pretty};

/// The schema types the registry takes, with how the form names them.
const TYPES: [(&str, &str); 3] =
    [("AVRO", "Avro"), ("PROTOBUF", "Protobuf"), ("JSON", "JSON Schema")];

/// References as the form takes them: one per line, `name subject version`.
fn parse_references(text: &str) -> Result<Vec<SchemaReference>, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let parts: Vec<&str> = line.split_whitespace().collect();
            match parts.as_slice() {
                [name, subject, version] => Ok(SchemaReference {
                    name: (*name).to_string(),
                    subject: (*subject).to_string(),
                    version: version
                        .parse()
                        .map_err(|_| format!("\"{line}\": the version is a number."))?,
                }),
                _ => Err(format!("\"{line}\": a reference is written as: name subject version.")),
            }
        })
        .collect()
}

/// Register schema (no `subject`: the form asks for one) or Register a new version.
#[component]
pub fn RegisterSchema(
    cluster: String,
    /// The subject a new version goes to; `None` for Register schema.
    subject: Option<String>,
    /// The type of the subject's newest version.
    kind: Option<String>,
    /// Whether the caller may read schema texts (the form then starts from the newest one).
    can_read: bool,
    on_done: Callback<String>,
) -> impl IntoView {
    let label = if subject.is_some() { "Register a new version" } else { "Register schema" };
    let open = RwSignal::new(false);
    let name = RwSignal::new(subject.clone().unwrap_or_default());
    let schema_type = RwSignal::new(kind.unwrap_or_else(|| "AVRO".into()));
    let text = RwSignal::new(String::new());
    let refs = RwSignal::new(String::new());
    // The newest version's text, to show the field changes against.
    let base = RwSignal::new(None::<(String, String)>);
    let error = RwSignal::new(None::<String>);
    let preview = RwSignal::new(None::<SchemaRegistered>);
    let fixed = subject.is_some();
    let target = StoredValue::new((cluster.clone(), subject));

    let load = Action::new_local(move |_: &()| {
        let (cluster, subject) = target.get_value();
        async move {
            match subject {
                Some(s) if can_read => schema(cluster, s.into(), None::<i32>.into()).await.ok(),
                _ => None,
            }
        }
    });
    Effect::new(move |_| {
        if let Some(Some(newest)) = load.value().get() {
            schema_type.set(newest.schema_type.clone());
            text.set(pretty(&newest.schema_type, &newest.schema));
            refs.set(
                newest
                    .references
                    .iter()
                    .map(|r| format!("{} {} {}", r.name, r.subject, r.version))
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
            base.set(Some((newest.schema_type, newest.schema)));
        }
    });

    let send = Action::new_local(move |dry_run: &bool| {
        let dry_run = *dry_run;
        let (cluster, _) = target.get_value();
        let references = parse_references(&refs.get_untracked());
        let args = RegisterSchemaArgs {
            cluster,
            subject: name.get_untracked().trim().to_string().into(),
            schema: text.get_untracked().into(),
            schema_type: schema_type.get_untracked().into(),
            references: references.clone().unwrap_or_default().into(),
            dry_run: dry_run.into(),
        };
        async move {
            let answer = match references {
                Ok(_) => register_schema(args).await,
                Err(e) => Err(crate::error::ApiError::bad_request("references", e)),
            };
            (dry_run, answer)
        }
    });
    follow_change(send, preview, error, move |done: SchemaRegistered| {
        open.set(false);
        on_done.run(format!(
            "Registered version {} of {} (schema id {}).",
            done.version.unwrap_or_default(),
            done.subject,
            done.id.unwrap_or_default()
        ));
    });
    let stale = move || preview.set(None);

    view! {
        <button type="button" class="button" on:click=move |_| {
            open.update(|o| *o = !*o);
            preview.set(None);
            error.set(None);
            if open.get_untracked() && text.get_untracked().is_empty() {
                load.dispatch(());
            }
        }>{label}</button>
        <Show when=move || open.get()>
            <form class="panel wide schema-form" aria-label=label on:submit=move |ev| {
                ev.prevent_default();
                send.dispatch(true);
            }>
                {(!fixed).then(|| view! {
                    <label>"Subject"
                        <input type="text" required placeholder="orders-value" prop:value=move || name.get()
                            on:input=move |ev| { name.set(event_target_value(&ev)); stale(); } />
                    </label>
                    <p class="muted">"A subject named <topic>-value or <topic>-key is the one Confluent's serializers use for that topic."</p>
                })}
                <label>"Type"
                    <select on:change=move |ev| { schema_type.set(event_target_value(&ev)); stale(); }>
                        {TYPES.iter().map(|(value, shown)| view! {
                            <option value=*value selected=move || schema_type.get() == *value>{*shown}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Schema"
                    <textarea class="mono" rows="14" spellcheck="false" required prop:value=move || text.get()
                        on:input=move |ev| { text.set(event_target_value(&ev)); stale(); }></textarea>
                </label>
                <label>"References (one per line: name subject version)"
                    <textarea class="mono" rows="2" spellcheck="false" prop:value=move || refs.get()
                        on:input=move |ev| { refs.set(event_target_value(&ev)); stale(); }></textarea>
                </label>
                <div class="panel-actions">
                    <button type="submit" class="button" disabled=move || send.pending().get()>"Preview"</button>
                    // The registry refuses what it finds incompatible: no button for that.
                    {move || preview.get().filter(|p| p.compatible != Some(false)).map(|_| view! {
                        <button type="button" class="button button-primary" disabled=move || send.pending().get()
                            on:click=move |_| { send.dispatch(false); }>
                            {if fixed { "Register version" } else { "Register" }}
                        </button>
                    })}
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || preview.get().map(|p| {
                    let fields = base.get().map(|(kind, old)| (kind.clone(), changes(&kind, &old, &text.get_untracked())));
                    view! { <Verdict answer=p fields=fields cluster=target.get_value().0 /> }
                })}
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </form>
        </Show>
    }
}

/// What the preview of a registration says.
#[component]
fn Verdict(
    answer: SchemaRegistered,
    /// The field changes from the newest version, when its text was read.
    fields: Option<(String, Result<Vec<crate::schema_view::Change>, String>)>,
    cluster: String,
) -> impl IntoView {
    let level = answer.compatibility.clone().unwrap_or_else(|| "its level".into());
    let verdict = match answer.compatible {
        Some(true) => format!("The registry finds it compatible with the subject under {level}."),
        Some(false) => format!("The registry finds it not compatible with the subject under {level}: registering it will be refused."),
        None => "The subject has no version yet: the registry has nothing to compare it with.".to_string(),
    };
    let verdict_class = if answer.compatible == Some(false) { "error" } else { "note" };
    view! {
        <div role="status" class="verdict">
            <p class=verdict_class data-figure="verdict">{verdict}</p>
            {(!answer.messages.is_empty()).then(|| view! {
                <ul class="changes">{answer.messages.iter().map(|m| view! { <li>{m.clone()}</li> }).collect_view()}</ul>
            })}
            {answer.existing.as_ref().map(|e| view! {
                <p class="note">{format!("The subject holds this very schema already, as version {} (schema id {}); registering it adds no version.", e.version, e.id)}</p>
            })}
            {match answer.records.clone() {
                Some(check) => view! { <RecordsVerdict check=check cluster=cluster /> }.into_any(),
                None => view! { <p class="note">"The subject names no topic of this cluster, so no records were read."</p> }.into_any(),
            }}
            {fields.map(|(kind, list)| {
                let what = if kind == "PROTOBUF" { "Changes from the newest version, by message and field number" } else { "Changes from the newest version" };
                view! {
                    <h4>{what}</h4>
                    {match list {
                        Ok(l) if l.is_empty() => view! { <p class="empty">"No field changed."</p> }.into_any(),
                        Ok(l) => view! {
                            <ul class="changes" aria-label="Field changes">
                                {l.into_iter().map(|c| view! { <li><span class="mono">{c.at}</span>": "{c.what}</li> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(e) => view! { <p class="note">{e}</p> }.into_any(),
                    }}
                }
            })}
        </div>
    }
}

/// How the topic's newest records read with the proposed schema.
#[component]
fn RecordsVerdict(check: RecordsCheck, cluster: String) -> impl IntoView {
    if let Some(why) = check.skipped.clone() {
        return view! {
            <p class="note" data-figure="records">{format!("The records of {} were not checked: {why}", check.topic)}</p>
        }
        .into_any();
    }
    if let Some(e) = check.error.clone() {
        return view! {
            <p class="error">{format!("The records of {} could not be read: {e}", check.topic)}</p>
        }
        .into_any();
    }
    let topic_url = page_url(&cluster, "topics", &check.topic);
    let at = move |r: &crate::api::RecordAt| {
        let href = format!("{}/records/{}/{}", topic_url, r.partition, r.offset);
        view! {
            <a class="mono" href=href>{format!("partition {}, offset {}", r.partition, r.offset)}</a>
            {format!(": {}", r.reason)}
        }
    };
    let summary = if check.read == 0 {
        format!("The {} of {} has no records to read.", check.part, check.topic)
    } else {
        format!(
            "Of the newest {} records of {} ({}s), {} read with this schema, {} do not, and {} were not tried.",
            check.read, check.topic, check.part, check.fit, check.failed, check.unchecked
        )
    };
    let class = if check.failed > 0 { "error" } else { "note" };
    view! {
        <p class=class data-figure="records">{summary}</p>
        {check.first_failure.as_ref().map(|r| view! { <p class="note">"First that does not read: " {at(r)}</p> })}
        {check.first_unchecked.as_ref().map(|r| view! { <p class="note">"First not tried: " {at(r)}</p> })}
    }
    .into_any()
}

/// Change compatibility: the seven levels and the way back to the registry's global one.
#[component]
pub fn ChangeCompatibility(
    cluster: String, subject: String,
    /// The subject's own level, if it sets one.
    own: Option<String>, global: Option<String>,
    on_done: Callback<String>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let chosen = RwSignal::new(own.clone().unwrap_or_else(|| "GLOBAL".into()));
    let error = RwSignal::new(None::<String>);
    let preview = RwSignal::new(None::<CompatibilitySet>);
    let target = StoredValue::new((cluster, subject));
    let send = Action::new_local(move |dry_run: &bool| {
        let dry_run = *dry_run;
        let (cluster, subject) = target.get_value();
        let compatibility = chosen.get_untracked();
        async move {
            let answer = set_compatibility(SetCompatibilityArgs {
                cluster,
                subject: subject.into(),
                compatibility: compatibility.into(),
                dry_run: dry_run.into(),
            })
            .await;
            (dry_run, answer)
        }
    });
    let shown = |level: &Option<String>, own: bool| {
        let level = level.clone().unwrap_or_else(|| "—".into());
        if own {
            level
        } else {
            format!("{level} (the registry's global level)")
        }
    };
    follow_change(send, preview, error, move |done: CompatibilitySet| {
        open.set(false);
        on_done.run(format!("Compatibility is {} now.", shown(&done.after, done.after_own)));
    });
    let global_label =
        format!("The registry's global level ({})", global.clone().unwrap_or_else(|| "—".into()));
    view! {
        <button type="button" class="button" on:click=move |_| {
            open.update(|o| *o = !*o);
            preview.set(None);
            error.set(None);
        }>"Change compatibility"</button>
        <Show when=move || open.get()>
            <form class="panel wide schema-form" aria-label="Change compatibility" on:submit=move |ev| {
                ev.prevent_default();
                send.dispatch(true);
            }>
                <p>"The level decides which new versions the registry accepts: BACKWARD lets consumers with the new schema read data written with the last one; FORWARD the other way; FULL both; the _TRANSITIVE levels check against every version, not only the last; NONE checks nothing."</p>
                <label>"Compatibility"
                    <select on:change=move |ev| { chosen.set(event_target_value(&ev)); preview.set(None); }>
                        <option value="GLOBAL" selected=move || chosen.get() == "GLOBAL">{global_label.clone()}</option>
                        {COMPATIBILITY_LEVELS.iter().map(|level| view! {
                            <option value=*level selected=move || chosen.get() == *level>{*level}</option>
                        }).collect_view()}
                    </select>
                </label>
                <div class="panel-actions">
                    <button type="submit" class="button" disabled=move || send.pending().get()>"Preview"</button>
                    {move || preview.get().map(|_| view! {
                        <button type="button" class="button button-primary" disabled=move || send.pending().get()
                            on:click=move |_| { send.dispatch(false); }>"Set compatibility"</button>
                    })}
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || preview.get().map(|p| view! {
                    <p role="status">{format!("From {} to {}.", shown(&p.before, p.before_own), shown(&p.after, p.after_own))}</p>
                })}
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </form>
        </Show>
    }
}

/// Delete a version (or with no `version`, the whole subject): soft, or permanently for what
/// was soft-deleted, then with the subject's name typed.
#[component]
pub fn DeleteSchema(
    cluster: String, subject: String, version: Option<i32>, permanent: bool,
    on_done: Callback<String>,
) -> impl IntoView {
    let label = match (version, permanent) {
        (Some(_), false) => "Delete this version".to_string(),
        (Some(v), true) => format!("Delete version {v} permanently"),
        (None, false) => "Delete subject".to_string(),
        (None, true) => "Delete subject permanently".to_string(),
    };
    let open = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let preview = RwSignal::new(None::<SchemaDeleted>);
    let target = StoredValue::new((cluster, subject.clone()));
    let send = Action::new_local(move |dry_run: &bool| {
        let dry_run = *dry_run;
        let (cluster, subject) = target.get_value();
        async move {
            let answer = delete_schema(DeleteSchemaArgs {
                cluster,
                subject: subject.into(),
                version: version.into(),
                permanent: permanent.into(),
                dry_run: dry_run.into(),
            })
            .await;
            (dry_run, answer)
        }
    });
    follow_change(send, preview, error, move |done: SchemaDeleted| {
        open.set(false);
        let list = done.versions.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
        on_done.run(if done.permanent {
            format!("Deleted version {list} of {} permanently.", done.subject)
        } else {
            format!("Soft-deleted version {list} of {}: the registry keeps it until it is deleted permanently.", done.subject)
        });
    });
    // Each row's button says which version it deletes.
    let aria = match (version, permanent) {
        (Some(v), false) => format!("{label} ({v})"),
        _ => label.clone(),
    };
    let button = label.clone();
    let (label, aria_shown) = (StoredValue::new(label), StoredValue::new(aria.clone()));
    // In a row of the versions table the panel keeps to its column; for the subject it takes
    // the width of the page head.
    let panel_class = if version.is_some() { "panel" } else { "panel wide schema-form" };
    view! {
        <button type="button" class="button button-danger" aria-label=aria on:click=move |_| {
            open.update(|o| *o = !*o);
            preview.set(None);
            error.set(None);
            if open.get_untracked() {
                send.dispatch(true);
            }
        }>{button}</button>
        <Show when=move || open.get()>
            <div class=panel_class role="group" aria-label=aria_shown.get_value()>
                {move || preview.get().map(|p| {
                    let list = p.versions.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
                    let label = label.get_value();
                    if permanent {
                        view! {
                            <TypedConfirm label=label field="Subject name" name=p.subject.clone()
                                warning=format!("Version {list} of {} goes for good: its schema id no longer decodes records written with it.", p.subject)
                                ready=true pending=send.pending().into()
                                act=Callback::new(move |_| { send.dispatch(false); })
                                cancel=Callback::new(move |_| open.set(false)) />
                        }.into_any()
                    } else {
                        view! {
                            <p>{format!("Soft-deletes version {list} of {}: the registry stops listing it and no longer checks new versions against it; its schema id still decodes records, and it can be deleted permanently later.", p.subject)}</p>
                            <div class="panel-actions">
                                <button type="button" class="button button-danger" disabled=move || send.pending().get()
                                    on:click=move |_| { send.dispatch(false); }>{label}</button>
                                <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                            </div>
                        }.into_any()
                    }
                })}
                {move || error.get().map(|e| view! {
                    <p class="error" role="alert">{e}</p>
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Close"</button>
                })}
            </div>
        </Show>
    }
}
