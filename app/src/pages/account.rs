//! `/account`: who the caller is and what they may do on each cluster they can see.

use leptos::prelude::*;
use leptos_meta::Title;

use std::collections::BTreeSet;

use crate::access::Scope;
use crate::components::access::identity;
use crate::components::page::Loaded;
use crate::components::table::DataTable;
use crate::Privilege;

fn names(privileges: &BTreeSet<Privilege>) -> String {
    if privileges.is_empty() {
        return "nothing".to_string();
    }
    privileges.iter().map(|p| p.wire_name()).collect::<Vec<_>>().join(", ")
}

/// `topics payments-*, ledger; groups …` for one scope.
fn covers(scope: &Scope) -> String {
    let parts: Vec<String> =
        [("topics", &scope.topics), ("groups", &scope.groups), ("subjects", &scope.subjects)]
            .into_iter()
            .filter(|(_, patterns)| !patterns.is_empty())
            .map(|(kind, patterns)| format!("{kind} {}", patterns.join(", ")))
            .collect();
    parts.join("; ")
}

#[component]
pub fn AccountPage() -> impl IntoView {
    let who = identity();
    view! {
        <Title text="Your access" />
        <h1>"Your access"</h1>
        <Loaded of=who ok=move |w: crate::api::WhoAmI, _| {
            let person = match &w.user {
                Some(u) => format!(
                    "Signed in as {} ({}), in groups: {}.",
                    u.name.clone().unwrap_or_else(|| u.subject.clone()),
                    u.email.clone().unwrap_or_else(|| "no email".into()),
                    if u.groups.is_empty() { "none".to_string() } else { u.groups.join(", ") },
                ),
                None => "Sign-in is off: everyone who reaches klens holds every privilege.".to_string(),
            };
            let empty = w.clusters.is_empty();
            view! {
                <p>{person}</p>
                {empty.then(|| view! {
                    <p class="empty">"No cluster is open to you. Ask an administrator for a role that covers one."</p>
                })}
                <DataTable label="Your access">
                    <thead><tr><th scope="col">"Cluster"</th><th scope="col">"Mode"</th><th scope="col">"Privileges"</th></tr></thead>
                    <tbody>
                        {w.clusters.into_iter().map(|c| {
                            // On a read-only cluster the write privileges are held but
                            // cannot be used: they are listed apart, saying so.
                            let (usable, unusable): (Vec<crate::Privilege>, Vec<crate::Privilege>) = c
                                .privileges
                                .iter()
                                .copied()
                                .partition(|p| c.writable || !p.is_write());
                            let privileges = if c.privileges.is_empty() && c.scopes.is_empty() {
                                "catalog only".to_string()
                            } else {
                                usable.iter().map(|p| p.wire_name()).collect::<Vec<_>>().join(", ")
                            };
                            let unusable = (!unusable.is_empty()).then(|| view! {
                                <p class="muted unusable">
                                    "Not usable here, since the cluster is read-only: "
                                    <span class="mono">{unusable.iter().map(|p| p.wire_name()).collect::<Vec<_>>().join(", ")}</span>
                                </p>
                            });
                            let scopes = c.scopes.iter().map(|s| view! {
                                <p class="scope">
                                    <span class="mono">{names(&s.privileges)}</span>
                                    " on "
                                    <span class="patterns">{covers(s)}</span>
                                </p>
                            }).collect_view();
                            let scoped_catalog = c.scoped_catalog.then(|| view! {
                                <p class="muted">"The catalog shows you only what these scopes cover."</p>
                            });
                            view! {
                                <tr data-cluster=c.name.clone()>
                                    <th scope="row">{c.name.clone()}</th>
                                    <td>{if c.writable { "Writable" } else { "Read-only" }}</td>
                                    <td class="privileges"><span class="mono">{privileges}</span>{unusable}{scopes}{scoped_catalog}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </DataTable>
            }.into_any()

        } />
    }
}
