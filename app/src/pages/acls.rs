//! `/c/{cluster}/acls`: every ACL binding (ACLS), filterable by principal, resource and
//! operation; Create ACL with a preview that says in words what the binding allows; Delete on a
//! row removes exactly that binding, once its principal is typed to confirm.

use leptos::prelude::*;

use crate::api::{
    acls, create_acl, delete_acl, AclArgs, AclBinding, AclChanged, ACL_OPERATIONS,
    ACL_PATTERN_TYPES, ACL_PERMISSIONS, ACL_RESOURCE_TYPES,
};
use crate::components::access::NeedsPrivilege;
use crate::components::change::{confirmed_change, follow_change, ConfirmSheet};
use crate::components::page::{use_changes, CallerAccess, ListHead, Loaded, Offered};
use crate::components::table::{Col, DataTable};
use crate::components::use_cluster;
use crate::Privilege;

/// The arguments that name `acl` exactly.
fn args_of(cluster: String, acl: &AclBinding, dry_run: bool) -> AclArgs {
    AclArgs {
        cluster,
        principal: acl.principal.clone().into(),
        host: acl.host.clone().into(),
        resource_type: acl.resource_type.clone().into(),
        resource_name: acl.resource_name.clone().into(),
        pattern_type: acl.pattern_type.clone().into(),
        operation: acl.operation.clone().into(),
        permission: acl.permission.clone().into(),
        dry_run: dry_run.into(),
    }
}

#[component]
pub fn AclsPage() -> impl IntoView {
    let cluster = use_cluster();
    // Made here, once, outside every suspense (a resource made while one resolves can hydrate
    // with another's data).
    let list = Resource::new(cluster, acls);
    let (notice, changed) = use_changes(move || list.refetch());
    view! {
        <ListHead title="ACLs" notice=notice>
            <Offered privilege=Privilege::CreateAcls>
                <CreateAcl cluster=cluster() on_done=changed />
            </Offered>
        </ListHead>
        <NeedsPrivilege cluster=cluster() privilege=Privilege::Acls what="The ACL list"
            children=ChildrenFn::to_children(move || view! { <AclTable list=list changed=changed /> }) />
    }
}

#[component]
fn AclTable(
    list: Resource<Result<crate::api::AclList, crate::error::ApiError>>, changed: Callback<String>,
) -> impl IntoView {
    let principal = RwSignal::new(String::new());
    let resource = RwSignal::new(String::new());
    let operation = RwSignal::new(String::new());
    view! {
        <div class="header-row" role="search" aria-label="Filter ACLs">
            <input type="search" placeholder="Principal" aria-label="Principal"
                bind:value=principal />
            <input type="search" placeholder="Resource" aria-label="Resource"
                bind:value=resource />
            <select aria-label="Operation" on:change=move |ev| operation.set(event_target_value(&ev))>
                <option value="">"Any operation"</option>
                {ACL_OPERATIONS.iter().map(|o| view! { <option value=*o>{o.to_ascii_uppercase()}</option> }).collect_view()}
            </select>
        </div>
        <Loaded of=list keep=true ok=move |list: crate::api::AclList, access: CallerAccess| {
            let can_delete = access.offers(Privilege::DeleteAcls);
            let all = StoredValue::new(list.acls);
            let shown = move || {
                let (p, r, o) = (principal.get().to_lowercase(), resource.get().to_lowercase(), operation.get());
                all.get_value()
                    .into_iter()
                    .filter(|a| a.principal.to_lowercase().contains(&p))
                    .filter(|a| format!("{} {}", a.resource_type, a.resource_name).to_lowercase().contains(&r))
                    .filter(|a| o.is_empty() || a.operation == o)
                    .collect::<Vec<_>>()
            };
            let total = all.with_value(Vec::len);
            view! {
                <p class="muted" data-figure="acl-count">{move || format!("{} of {total} bindings", shown().len())}</p>
                <DataTable label="ACLs" cols=&[Col::Text("Principal"), Col::Text("Host"), Col::Text("Resource"), Col::Text("Pattern"), Col::Text("Operation"), Col::Text("Permission"), Col::Actions]>
                    <tbody>
                        <For each=shown key=|a| a.clone() let:acl>
                            <AclRow acl=acl can_delete=can_delete on_done=changed />
                        </For>
                    </tbody>
                </DataTable>
            }.into_any()

        } />
    }
}

#[component]
fn AclRow(acl: AclBinding, can_delete: bool, on_done: Callback<String>) -> impl IntoView {
    let cluster = use_cluster();
    let open = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let words = acl.words();
    let stored = StoredValue::new(acl.clone());
    let send = confirmed_change(
        open,
        error,
        move || delete_acl(args_of(cluster(), &stored.get_value(), false)),
        |done: &AclChanged| format!("Deleted: {}.", done.words),
        on_done,
    );
    let deny = acl.permission == "deny";
    let warning = format!("Removes exactly this binding: {words}. Other bindings stay, even those a wider filter would match.");
    view! {
        <tr>
            <td class="mono">{acl.principal.clone()}</td>
            <td class="mono">{acl.host.clone()}</td>
            <td><span class="badge">{acl.resource_type.clone()}</span>" "<span class="mono">{acl.resource_name.clone()}</span></td>
            <td>{acl.pattern_type.clone()}</td>
            <td>{acl.operation.to_ascii_uppercase()}</td>
            <td>{if deny { view! { <span class="badge badge-bad">"deny"</span> }.into_any() } else { view! { "allow" }.into_any() }}</td>
            <td>
                {can_delete.then(|| view! {
                    <ConfirmSheet open=open in_row=true error=error button="Delete"
                        button_label=format!("Delete ACL: {words}") title="Delete this ACL"
                        field="Principal" name=acl.principal.clone() warning=warning
                        pending=send.pending().into() act=Callback::new(move |()| { send.dispatch(()); }) />
                })}
            </td>
        </tr>
    }
}

/// Create ACL: the binding's fields, a preview in words, then the change.
#[component]
fn CreateAcl(cluster: String, on_done: Callback<String>) -> impl IntoView {
    let open = RwSignal::new(false);
    let principal = RwSignal::new(String::from("User:"));
    let host = RwSignal::new(String::from("*"));
    let resource_type = RwSignal::new(String::from("topic"));
    let resource_name = RwSignal::new(String::new());
    let pattern_type = RwSignal::new(String::from("literal"));
    let operation = RwSignal::new(String::from("read"));
    let permission = RwSignal::new(String::from("allow"));
    let error = RwSignal::new(None::<String>);
    let preview = RwSignal::new(None::<AclChanged>);
    let cluster = StoredValue::new(cluster);
    let send = Action::new_local(move |dry_run: &bool| {
        let dry_run = *dry_run;
        let acl = AclBinding {
            principal: principal.get_untracked().trim().to_string(),
            host: host.get_untracked().trim().to_string(),
            resource_type: resource_type.get_untracked(),
            resource_name: resource_name.get_untracked().trim().to_string(),
            pattern_type: pattern_type.get_untracked(),
            operation: operation.get_untracked(),
            permission: permission.get_untracked(),
        };
        let args = args_of(cluster.get_value(), &acl, dry_run);
        async move { (dry_run, create_acl(args).await) }
    });
    follow_change(send, preview, error, move |done: AclChanged| {
        open.set(false);
        on_done.run(format!("Created: {}.", done.words));
    });
    let stale = move || preview.set(None);
    let select = move |label: &'static str,
                       value: RwSignal<String>,
                       options: &'static [&'static str]| {
        view! {
            <label>{label}
                <select on:change=move |ev| { value.set(event_target_value(&ev)); stale(); }>
                    {options.iter().map(|o| view! {
                        <option value=*o selected=move || value.get() == *o>{o.replace('_', " ")}</option>
                    }).collect_view()}
                </select>
            </label>
        }
    };
    let input = move |label: &'static str, value: RwSignal<String>, hint: &'static str| {
        view! {
            <label>{label}
                <input type="text" class="mono" placeholder=hint prop:value=move || value.get()
                    on:input=move |ev| { value.set(event_target_value(&ev)); stale(); } />
            </label>
        }
    };
    view! {
        <button type="button" class="button" on:click=move |_| {
            open.update(|o| *o = !*o);
            preview.set(None);
            error.set(None);
        }>"Create ACL"</button>
        <Show when=move || open.get()>
            <form class="panel wide schema-form" aria-label="Create ACL" on:submit=move |ev| {
                ev.prevent_default();
                send.dispatch(true);
            }>
                <div class="acl-fields">
                    {input("Principal", principal, "User:alice")}
                    {input("Host", host, "* or an IP address")}
                    {select("Permission", permission, &ACL_PERMISSIONS)}
                    {select("Operation", operation, &ACL_OPERATIONS)}
                    {select("Resource type", resource_type, &ACL_RESOURCE_TYPES)}
                    {input("Resource name", resource_name, "orders, or a prefix; * for every one")}
                    {select("Pattern", pattern_type, &ACL_PATTERN_TYPES)}
                </div>
                <div class="panel-actions">
                    <button type="submit" class="button" disabled=move || send.pending().get()>"Preview"</button>
                    {move || preview.get().map(|_| view! {
                        <button type="button" class="button button-primary" disabled=move || send.pending().get()
                            on:click=move |_| { send.dispatch(false); }>"Create this ACL"</button>
                    })}
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || preview.get().map(|p| view! { <p role="status" class="note" data-figure="acl-words">{p.words}"."</p> })}
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </form>
        </Show>
    }
}
