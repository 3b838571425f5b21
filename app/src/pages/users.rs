//! `/c/{cluster}/users`: the SCRAM users (ACLS) with their mechanisms and iteration counts; Add
//! user and Set password (the password typed twice, never shown again), Delete on a credential.

use leptos::prelude::*;

use crate::api::{
    delete_scram_credential, scram_users, set_scram_credential, DeleteScramArgs, ScramChanged,
    ScramUserList, SetScramArgs, SCRAM_MAX_ITERATIONS, SCRAM_MECHANISMS, SCRAM_MIN_ITERATIONS,
};
use crate::components::access::NeedsPrivilege;
use crate::components::change::{confirmed_change, ConfirmSheet};
use crate::components::page::{use_changes, CallerAccess, ListHead, Loaded, Offered};
use crate::components::table::{Col, DataTable};
use crate::components::use_cluster;
use crate::error::ApiError;
use crate::format::thousands;
use crate::Privilege;

#[component]
pub fn UsersPage() -> impl IntoView {
    let cluster = use_cluster();
    // Made here, once, outside every suspense.
    let list = Resource::new(cluster, scram_users);
    let (notice, changed) = use_changes(move || list.refetch());
    view! {
        <ListHead title="Users" notice=notice>
            <Offered privilege=Privilege::SetScramCredentials>
                <SetPassword cluster=cluster() user=None on_done=changed />
            </Offered>
        </ListHead>
        <NeedsPrivilege cluster=cluster() privilege=Privilege::Acls what="The list of SCRAM users"
            children=ChildrenFn::to_children(move || view! { <UserTable list=list changed=changed /> }) />
    }
}

#[component]
fn UserTable(
    list: Resource<Result<ScramUserList, ApiError>>, changed: Callback<String>,
) -> impl IntoView {
    let cluster = use_cluster();
    view! {
        <Loaded of=list keep=true ok=move |value: ScramUserList, access: CallerAccess| {
            let (can_set, can_delete) = (access.offers(Privilege::SetScramCredentials), access.offers(Privilege::DeleteScramCredentials));
            match value {
                list if list.users.is_empty() => view! { <p class="empty">"Kafka holds no SCRAM credentials."</p> }.into_any(),
                list => view! {
                    <DataTable label="Users" cols=&[Col::Text("User"), Col::Text("Credentials"), Col::Actions]>
                        <tbody>
                            {list.users.into_iter().map(|u| {
                                let user = u.user.clone();
                                view! {
                                    <tr data-user=user.clone()>
                                        <th scope="row" class="mono">{user.clone()}</th>
                                        <td>
                                            <ul class="credentials">
                                                {u.credentials.into_iter().map(|c| {
                                                    let label = format!("{} ({} iterations)", c.mechanism, thousands(c.iterations.max(0) as u64));
                                                    view! {
                                                        <li>{label}" "
                                                            {can_delete.then(|| view! {
                                                                <DeleteCredential cluster=cluster() user=user.clone() mechanism=c.mechanism.clone() on_done=changed />
                                                            })}
                                                        </li>
                                                    }
                                                }).collect_view()}
                                            </ul>
                                        </td>
                                        <td>{can_set.then(|| view! { <SetPassword cluster=cluster() user=Some(user.clone()) on_done=changed /> })}</td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </DataTable>
                }.into_any(),
            }
        } />
    }
}

/// Add user (no `user`) or Set password for one user.
#[component]
fn SetPassword(cluster: String, user: Option<String>, on_done: Callback<String>) -> impl IntoView {
    let fixed = user.is_some();
    let label = match &user {
        Some(u) => format!("Set password of {u}"),
        None => "Add user".to_string(),
    };
    let open = RwSignal::new(false);
    let name = RwSignal::new(user.clone().unwrap_or_default());
    let mechanism = RwSignal::new("SCRAM-SHA-512".to_string());
    let iterations = RwSignal::new("8192".to_string());
    let password = RwSignal::new(String::new());
    let again = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let cluster = StoredValue::new(cluster);
    let send = Action::new_local(move |_: &()| {
        let args = SetScramArgs {
            cluster: cluster.get_value(),
            user: name.get_untracked().trim().to_string().into(),
            mechanism: mechanism.get_untracked().into(),
            iterations: iterations.get_untracked().trim().parse::<i32>().ok().into(),
            password: password.get_untracked().into(),
            dry_run: false.into(),
        };
        async move { set_scram_credential(args).await }
    });
    Effect::new(move |_| match send.value().get() {
        Some(Ok(done)) => {
            // The password leaves the page as soon as it is set.
            password.set(String::new());
            again.set(String::new());
            open.set(false);
            on_done.run(said(&done, "set"));
        }
        Some(Err(e)) => error.set(Some(e.message)),
        None => {}
    });
    let problem = move || -> Option<String> {
        if password.get().is_empty() {
            return Some("Type the password twice.".into());
        }
        if password.get() != again.get() {
            return Some("The two passwords differ.".into());
        }
        match iterations.get().trim().parse::<i32>() {
            Ok(n) if (SCRAM_MIN_ITERATIONS..=SCRAM_MAX_ITERATIONS).contains(&n) => None,
            _ => Some(format!(
                "Kafka takes {SCRAM_MIN_ITERATIONS} to {SCRAM_MAX_ITERATIONS} iterations."
            )),
        }
    };
    let form_label = label.clone();
    // In a row the form keeps to its cell; Add user takes the page head's row.
    let panel_class = if fixed { "panel" } else { "panel wide schema-form" };
    view! {
        <button type="button" class="button" aria-label=label.clone() on:click=move |_| {
            open.update(|o| *o = !*o);
            error.set(None);
        }>{if fixed { "Set password" } else { "Add user" }}</button>
        <Show when=move || open.get()>
            <form class=panel_class aria-label=form_label.clone() on:submit=move |ev| {
                ev.prevent_default();
                if problem().is_none() {
                    send.dispatch(());
                }
            }>
                {(!fixed).then(|| view! {
                    <label>"User"
                        <input type="text" required autocomplete="off" bind:value=name />
                    </label>
                })}
                <label>"Mechanism"
                    <select on:change=move |ev| mechanism.set(event_target_value(&ev))>
                        {SCRAM_MECHANISMS.iter().map(|m| view! {
                            <option value=*m selected=move || mechanism.get() == *m>{*m}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Iterations"
                    <input type="number" min=SCRAM_MIN_ITERATIONS max=SCRAM_MAX_ITERATIONS bind:value=iterations />
                </label>
                <label>"Password"
                    <input type="password" autocomplete="new-password" bind:value=password />
                </label>
                <label>"Password again"
                    <input type="password" autocomplete="new-password" bind:value=again />
                </label>
                <p class="muted">"klens salts the password before it leaves and keeps no copy; Kafka stores only the salted form."</p>
                {move || problem().map(|p| view! { <p class="hint">{p}</p> })}
                <div class="panel-actions">
                    <button type="submit" class="button button-primary"
                        disabled=move || problem().is_some() || send.pending().get()>"Set password"</button>
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </form>
        </Show>
    }
}

fn said(done: &ScramChanged, what: &str) -> String {
    format!("The {} credential of {} is {what}.", done.mechanism, done.user)
}

/// Delete one credential, once the user's name is typed to confirm.
#[component]
fn DeleteCredential(
    cluster: String, user: String, mechanism: String, on_done: Callback<String>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let label = format!("Delete the {mechanism} credential of {user}");
    let target = StoredValue::new((cluster, user.clone(), mechanism.clone()));
    let send = confirmed_change(
        open,
        error,
        move || {
            let (cluster, user, mechanism) = target.get_value();
            let args = DeleteScramArgs {
                cluster,
                user: user.into(),
                mechanism: mechanism.into(),
                dry_run: false.into(),
            };
            delete_scram_credential(args)
        },
        |done| said(done, "deleted"),
        on_done,
    );
    let warning = format!(
        "{user} can no longer sign in with {mechanism}. Clients using it fail at their next connection."
    );
    view! {
        <ConfirmSheet open=open in_row=true error=error button="Delete" button_label=label
            title="Delete this credential" field="User name" name=user warning=warning
            pending=send.pending().into() act=Callback::new(move |()| { send.dispatch(()); }) />
    }
}
