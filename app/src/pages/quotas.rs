//! `/c/{cluster}/quotas`: every client quota by entity (BROKER_CONFIGS) in human units,
//! filterable; Set quota, and Edit and Remove on each row (ALTER_QUOTAS on a writable
//! cluster). A change is previewed through Kafka's dry run before it is applied.

use std::collections::BTreeMap;

use leptos::prelude::*;

use crate::api::{
    alter_quota, entity_words, quota_key, quotas, AlterQuotaArgs, ClientQuota, QuotaChanged,
    QuotaEntityPart, QuotaKey, QuotaList, QuotaUnit, BYTE_UNITS, QUOTA_KEYS,
};
use crate::components::access::NeedsPrivilege;
use crate::components::change::{confirmed_change, follow_change, ConfirmSheet};
use crate::components::page::{use_changes, CallerAccess, ListHead, Loaded, Offered};
use crate::components::table::{Col, DataTable};
use crate::components::use_cluster;
use crate::error::ApiError;
use crate::Privilege;

#[component]
pub fn QuotasPage() -> impl IntoView {
    let cluster = use_cluster();
    // Made here, once, outside every suspense.
    let list = Resource::new(cluster, quotas);
    let (notice, changed) = use_changes(move || list.refetch());
    view! {
        <ListHead title="Quotas" notice=notice>
            <Offered privilege=Privilege::AlterQuotas>
                <QuotaForm cluster=cluster() quota=None on_done=changed />
            </Offered>
        </ListHead>
        <NeedsPrivilege cluster=cluster() privilege=Privilege::BrokerConfigs what="The list of client quotas"
            children=ChildrenFn::to_children(move || view! { <QuotaTable list=list changed=changed /> }) />
    }
}

#[component]
fn QuotaTable(
    list: Resource<Result<QuotaList, ApiError>>, changed: Callback<String>,
) -> impl IntoView {
    // Outside the list's transition, so it keeps what was typed while the list reloads.
    let filter = RwSignal::new(String::new());
    view! {
        <div class="toolbar">
            <input type="search" class="filter" placeholder="Filter by user, client id or IP"
                aria-label="Filter quotas by entity"
                bind:value=filter />
        </div>
        <Loaded of=list keep=true ok=move |list: QuotaList, access: CallerAccess| {
            if list.quotas.is_empty() {
                return view! { <p class="empty">"Kafka holds no client quotas."</p> }.into_any();
            }
            let may = access.offers(Privilege::AlterQuotas);
            let rows = StoredValue::new(list.quotas);
            view! {
                <DataTable label="Quotas">
                    <thead><tr>
                        <th scope="col">"Entity"</th>
                        {QUOTA_KEYS.iter().map(|k| view! { <th scope="col" class="num" title=k.key>{k.label}</th> }).collect_view()}
                        <th scope="col"><span class="visually-hidden">"Actions"</span></th>
                    </tr></thead>
                    <tbody>
                        {move || {
                            let needle = filter.get().trim().to_lowercase();
                            rows.get_value()
                                .into_iter()
                                .filter(|q| needle.is_empty() || entity_words(&q.entity).to_lowercase().contains(&needle))
                                .map(|q| view! { <QuotaRow quota=q may=may changed=changed /> })
                                .collect_view()
                        }}
                    </tbody>
                </DataTable>
            }.into_any()
        } />
    }
}

#[component]
fn QuotaRow(quota: ClientQuota, may: bool, changed: Callback<String>) -> impl IntoView {
    let cluster = use_cluster();
    let words = entity_words(&quota.entity);
    view! {
        <tr data-entity=words.clone()>
            <th scope="row"><Entity entity=quota.entity.clone() /></th>
            {QUOTA_KEYS.iter().map(|k| {
                let shown = quota.values.get(k.key).map(|v| k.show(*v));
                view! { <td class="num">{shown.unwrap_or_else(|| "—".into())}</td> }
            }).collect_view()}
            <td class="row-actions">
                {may.then(|| view! {
                    <QuotaForm cluster=cluster() quota=Some(quota.clone()) on_done=changed />
                    <RemoveQuota cluster=cluster() quota=quota.clone() on_done=changed />
                })}
            </td>
        </tr>
    }
}

/// An entity with its type in words and its name set in monospace.
#[component]
fn Entity(entity: Vec<QuotaEntityPart>) -> impl IntoView {
    let parts = entity.into_iter().enumerate().map(|(i, p)| {
        let kind = match p.kind.as_str() {
            "user" => "User",
            "client-id" => "Client id",
            "ip" => "IP",
            other => other,
        }
        .to_string();
        let kind = if i == 0 { kind } else { kind.to_lowercase().replace("ip", "IP") };
        view! {
            {(i > 0).then_some(", ")}
            {match p.name {
                Some(name) => view! { {kind}" "<span class="mono">{name}</span> }.into_any(),
                None => view! { <span class="badge">{format!("default {}", kind.to_lowercase().replace("ip", "IP"))}</span> }.into_any(),
            }}
        }
    });
    parts.collect_view()
}

/// The shape of a new quota's entity.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    User,
    Client,
    UserClient,
    Ip,
}

impl Shape {
    const ALL: [(Shape, &'static str); 4] = [
        (Shape::User, "User"),
        (Shape::Client, "Client id"),
        (Shape::UserClient, "User and client id"),
        (Shape::Ip, "IP address"),
    ];

    fn kinds(self) -> &'static [&'static str] {
        match self {
            Shape::User => &["user"],
            Shape::Client => &["client-id"],
            Shape::UserClient => &["user", "client-id"],
            Shape::Ip => &["ip"],
        }
    }
}

/// One figure's field: the number typed and, for a byte rate, its unit.
#[derive(Clone, Copy)]
struct Field {
    key: &'static QuotaKey,
    text: RwSignal<String>,
    unit: RwSignal<usize>,
}

impl Field {
    /// A field showing `value` in the largest binary unit that keeps it whole.
    fn new(key: &'static QuotaKey, value: Option<f64>) -> Field {
        let (text, unit) = match value {
            None => (String::new(), 0),
            Some(v) if key.unit == QuotaUnit::BytesPerSecond => {
                let unit = BYTE_UNITS
                    .iter()
                    .rposition(|(_, size)| v >= *size && (v / size).fract() == 0.0)
                    .unwrap_or(0);
                (format!("{}", v / BYTE_UNITS[unit].1), unit)
            }
            Some(v) => (format!("{v}"), 0),
        };
        Field { key, text: RwSignal::new(text), unit: RwSignal::new(unit) }
    }

    /// The figure typed: `None` when empty, else the number in Kafka's unit or why not.
    fn value(&self) -> Option<Result<f64, String>> {
        let text = self.text.get();
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        let multiplier = if self.key.unit == QuotaUnit::BytesPerSecond {
            BYTE_UNITS[self.unit.get().min(BYTE_UNITS.len() - 1)].1
        } else {
            1.0
        };
        Some(match text.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => {
                let v = v * multiplier;
                if self.key.whole && v.fract() != 0.0 {
                    Err(format!(
                        "{} is a whole number of {}.",
                        self.key.label,
                        if multiplier > 1.0 { "bytes" } else { "units" }
                    ))
                } else {
                    Ok(v)
                }
            }
            _ => Err(format!("{} is a number of 0 or more.", self.key.label)),
        })
    }
}

/// Set quota (no `quota`), or Edit for one entity's quotas.
#[component]
fn QuotaForm(
    cluster: String, quota: Option<ClientQuota>, on_done: Callback<String>,
) -> impl IntoView {
    let editing = quota.is_some();
    let label = match &quota {
        Some(q) => format!("Edit quota of {}", entity_words(&q.entity)),
        None => "Set quota".to_string(),
    };
    let fixed = StoredValue::new(quota.clone());
    let open = RwSignal::new(false);
    let shape = RwSignal::new(Shape::User);
    let user = RwSignal::new(String::new());
    let user_default = RwSignal::new(false);
    let client = RwSignal::new(String::new());
    let client_default = RwSignal::new(false);
    let ip = RwSignal::new(String::new());
    let ip_default = RwSignal::new(false);
    let had: BTreeMap<String, f64> = quota.as_ref().map(|q| q.values.clone()).unwrap_or_default();
    let fields: StoredValue<Vec<Field>> = StoredValue::new(
        QUOTA_KEYS.iter().map(|k| Field::new(k, had.get(k.key).copied())).collect(),
    );
    let had = StoredValue::new(had);
    let preview = RwSignal::new(None::<QuotaChanged>);
    let error = RwSignal::new(None::<String>);
    let cluster = StoredValue::new(cluster);

    // The entity named: the row's, or the one the form describes.
    let entity = move || -> Vec<QuotaEntityPart> {
        if let Some(q) = fixed.get_value() {
            return q.entity;
        }
        shape
            .get()
            .kinds()
            .iter()
            .map(|kind| {
                let (name, default) = match *kind {
                    "user" => (user, user_default),
                    "client-id" => (client, client_default),
                    _ => (ip, ip_default),
                };
                let name = (!default.get()).then(|| name.get().trim().to_string());
                QuotaEntityPart { kind: kind.to_string(), name }
            })
            .collect()
    };
    let for_ip = move || entity().iter().any(|p| p.kind == "ip");
    // What the form asks for: the figures to set and those to remove, or why it cannot yet.
    let request = move || -> Result<(BTreeMap<String, f64>, Vec<String>), String> {
        let parts = entity();
        if let Some(p) = parts.iter().find(|p| p.name.as_deref() == Some("")) {
            return Err(format!("Name the {}, or choose its default.", p.kind.replace('-', " ")));
        }
        let mut set = BTreeMap::new();
        let mut remove = Vec::new();
        for field in fields.get_value().iter().filter(|f| f.key.ip == for_ip()) {
            match field.value() {
                // A figure as it was is no change.
                Some(Ok(v)) if had.with_value(|h| h.get(field.key.key) == Some(&v)) => {}
                Some(Ok(v)) => {
                    set.insert(field.key.key.to_string(), v);
                }
                Some(Err(why)) => return Err(why),
                None if had.with_value(|h| h.contains_key(field.key.key)) => {
                    remove.push(field.key.key.to_string())
                }
                None => {}
            }
        }
        if set.is_empty() && remove.is_empty() {
            return Err("Type at least one figure to set or change.".into());
        }
        Ok((set, remove))
    };

    let send = Action::new_local(move |dry_run: &bool| {
        let dry_run = *dry_run;
        let args = request().map(|(set, remove)| AlterQuotaArgs {
            cluster: cluster.get_value(),
            entity: entity().into(),
            set: set.into(),
            remove: remove.into(),
            dry_run: dry_run.into(),
        });
        async move {
            let answer = match args {
                Ok(args) => alter_quota(args).await,
                Err(why) => Err(ApiError::bad_request("set", why)),
            };
            (dry_run, answer)
        }
    });
    follow_change(send, preview, error, move |done: QuotaChanged| {
        open.set(false);
        on_done.run(format!("The quotas of {} are changed.", entity_words(&done.entity)));
    });
    // Any edit makes the preview stale.
    Effect::new(move |_| {
        let _ = request();
        preview.set(None);
    });

    let form_label = label.clone();
    let panel_class = if editing { "panel" } else { "panel wide schema-form" };
    let choice = |signal: RwSignal<String>,
                  default: RwSignal<bool>,
                  what: &'static str,
                  default_label: &'static str| {
        view! {
            <label>{what}
                <input type="text" autocomplete="off" disabled=move || default.get() bind:value=signal />
            </label>
            <label class="inline">
                <input type="checkbox" prop:checked=move || default.get()
                    on:change=move |ev| default.set(event_target_checked(&ev)) />
                {default_label}
            </label>
        }
    };
    view! {
        <button type="button" class="button" aria-label=label.clone() on:click=move |_| {
            open.update(|o| *o = !*o);
            error.set(None);
            preview.set(None);
        }>{if editing { "Edit" } else { "Set quota" }}</button>
        <Show when=move || open.get()>
            <form class=panel_class aria-label=form_label.clone() on:submit=move |ev| {
                ev.prevent_default();
                if request().is_ok() {
                    send.dispatch(true);
                }
            }>
                {(!editing).then(|| view! {
                    <label>"Entity"
                        <select on:change=move |ev| {
                            let picked = event_target_value(&ev);
                            if let Some((s, _)) = Shape::ALL.iter().find(|(_, l)| *l == picked) {
                                shape.set(*s);
                            }
                        }>
                            {Shape::ALL.iter().map(|(s, l)| view! {
                                <option value=*l selected=move || shape.get() == *s>{*l}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <Show when=move || matches!(shape.get(), Shape::User | Shape::UserClient)>
                        {choice(user, user_default, "User", "Every user without a quota of their own (default user)")}
                    </Show>
                    <Show when=move || matches!(shape.get(), Shape::Client | Shape::UserClient)>
                        {choice(client, client_default, "Client id", "Every client id without a quota of its own (default client id)")}
                    </Show>
                    <Show when=move || shape.get() == Shape::Ip>
                        {choice(ip, ip_default, "IP address", "Every IP address without a quota of its own (default IP)")}
                    </Show>
                })}
                {move || {
                    let ip = for_ip();
                    fields.get_value().into_iter().filter(|f| f.key.ip == ip).map(|f| {
                        let hint = move || match f.value() {
                            Some(Ok(v)) if f.key.unit == QuotaUnit::BytesPerSecond => Some(format!("{} bytes/s", v)),
                            _ => None,
                        };
                        view! {
                            <div class="field-row">
                                <label>{format!("{} ({})", f.key.label, f.key.key)}
                                    <input type="text" inputmode="decimal" autocomplete="off" placeholder="no quota"
                                        prop:value=move || f.text.get()
                                        on:input=move |ev| f.text.set(event_target_value(&ev)) />
                                </label>
                                {match f.key.unit {
                                    QuotaUnit::BytesPerSecond => view! {
                                        <select aria-label=format!("Unit of {}", f.key.label) on:change=move |ev| {
                                            let picked = event_target_value(&ev);
                                            if let Some(i) = BYTE_UNITS.iter().position(|(n, _)| *n == picked) { f.unit.set(i); }
                                        }>
                                            {BYTE_UNITS.iter().enumerate().map(|(i, (n, _))| view! {
                                                <option value=*n selected=move || f.unit.get() == i>{*n}</option>
                                            }).collect_view()}
                                        </select>
                                    }.into_any(),
                                    QuotaUnit::Percent => view! { <span class="muted">"% of a request thread's time"</span> }.into_any(),
                                    QuotaUnit::PerSecond => view! { <span class="muted">"per second"</span> }.into_any(),
                                }}
                                {move || hint().map(|h| view! { <span class="muted">{h}</span> })}
                            </div>
                        }
                    }).collect_view()
                }}
                <p class="muted">"An empty field sets no quota; emptying one that is set removes it."</p>
                {move || request().err().map(|p| view! { <p class="hint">{p}</p> })}
                {move || preview.get().map(|p| view! { <QuotaChanges changes=p /> })}
                <div class="panel-actions">
                    <button type="submit" class="button" disabled=move || request().is_err() || send.pending().get()>"Preview"</button>
                    <button type="button" class="button button-primary"
                        disabled=move || preview.get().is_none() || send.pending().get()
                        on:click=move |_| { send.dispatch(false); }>{if editing { "Save quota" } else { "Set quota" }}</button>
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </form>
        </Show>
    }
}

/// Each figure before and after a change.
#[component]
fn QuotaChanges(changes: QuotaChanged) -> impl IntoView {
    let shown = |key: &str, v: Option<f64>| match (quota_key(key), v) {
        (Some(k), Some(v)) => k.show(v),
        (None, Some(v)) => v.to_string(),
        (_, None) => "no quota".to_string(),
    };
    view! {
        <p>{format!("Kafka accepts this change to {}:", entity_words(&changes.entity))}</p>
        <DataTable label="Quota changes" class="compact" cols=&[Col::Text("Quota"), Col::Text("Before"), Col::Text("After")]>
            <tbody>
                {changes.changes.into_iter().map(|c| view! {
                    <tr data-quota=c.key.clone()>
                        <th scope="row">{quota_key(&c.key).map(|k| k.label).unwrap_or_default()}" "<span class="muted mono">{c.key.clone()}</span></th>
                        <td>{shown(&c.key, c.before)}</td>
                        <td>{shown(&c.key, c.after)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </DataTable>
    }
}

/// Remove every quota of one entity, once the entity is typed (in words) to confirm.
#[component]
fn RemoveQuota(cluster: String, quota: ClientQuota, on_done: Callback<String>) -> impl IntoView {
    let open = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let words = entity_words(&quota.entity);
    let label = format!("Remove quota of {words}");
    let target = StoredValue::new((cluster, quota));
    let send = confirmed_change(
        open,
        error,
        move || {
            let (cluster, quota) = target.get_value();
            alter_quota(AlterQuotaArgs {
                cluster,
                entity: quota.entity.into(),
                set: BTreeMap::new().into(),
                remove: quota.values.keys().cloned().collect::<Vec<_>>().into(),
                dry_run: false.into(),
            })
        },
        |done: &QuotaChanged| format!("The quotas of {} are removed.", entity_words(&done.entity)),
        on_done,
    );
    let warning = format!("Every quota of {words} goes: its clients fall back to a default quota, if one is set, or to none.");
    view! {
        <ConfirmSheet open=open in_row=true error=error button="Remove" button_label=label
            title="Remove this quota" field="Entity" name=words warning=warning
            pending=send.pending().into() act=Callback::new(move |()| { send.dispatch(()); }) />
    }
}
