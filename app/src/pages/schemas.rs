//! `/c/{cluster}/schemas`: the subjects of the cluster's registry with their latest version,
//! schema id, type and compatibility.

use leptos::prelude::*;

use super::schema_changes::RegisterSchema;
use crate::api::subjects;
use crate::components::access::{identity, offers};
use crate::components::page::{use_changes, ListHead, Loaded};
use crate::components::table::{Col, DataTable, Freshness};
use crate::components::use_cluster;
use crate::format::page_url;
use crate::Privilege;

#[component]
pub fn SchemasPage() -> impl IntoView {
    let cluster = use_cluster();
    let list = Resource::new(cluster, subjects);
    let who = identity();
    let (notice, changed) = use_changes(move || list.refetch());
    view! {
        <ListHead title="Schemas" notice=notice>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    let registry = list.await.is_ok_and(|l| l.registry);
                    let may = who.await.ok().is_some_and(|w| offers(w.cluster(&cluster()), Privilege::RegisterSchemas));
                    (registry && may).then(|| view! {
                        <RegisterSchema cluster=cluster() subject=None kind=None can_read=false on_done=changed />
                    })
                })}
            </Suspense>
        </ListHead>
        <Loaded of=list ok=move |value: crate::api::SubjectList, _| {
            match value {
                list if !list.registry => view! {
                    <p class="empty">"No schema registry is configured for this cluster."</p>
                }.into_any(),
                list => {
                    let global = list.global_compatibility.clone().unwrap_or_else(|| "—".into());
                    let fresh = view! {
                        <Freshness what="Subjects" at=list.refreshed_at served_at=list.served_at
                            error=list.error.clone().unwrap_or_default() />
                    };
                    if list.subjects.is_empty() {
                        return view! { {fresh} <p class="empty">"The registry has no subjects."</p> }.into_any();
                    }
                    view! {
                        {fresh}
                        <p>"Global compatibility: " <span class="badge" data-figure="global">{global}</span></p>
                        <DataTable label="Subjects" cols=&[Col::Text("Subject"), Col::Num("Versions"), Col::Num("Latest"), Col::Num("Schema id"), Col::Text("Type"), Col::Text("Compatibility")]>
                            <tbody>
                                {list.subjects.into_iter().map(|s| {
                                    let latest = s.latest.clone();
                                    view! {
                                        <tr data-subject=s.subject.clone()>
                                            <th scope="row" class="mono"><a class="cut" href=page_url(&cluster(), "schemas", &s.subject) title=s.subject.clone()>{s.subject.clone()}</a></th>
                                            <td class="num">{s.versions.len()}</td>
                                            <td class="num">{latest.as_ref().map(|l| l.version.to_string()).unwrap_or_else(|| "—".into())}</td>
                                            <td class="num">{latest.as_ref().map(|l| l.id.to_string()).unwrap_or_else(|| "—".into())}</td>
                                            <td>{latest.map(|l| l.schema_type).unwrap_or_else(|| "—".into())}</td>
                                            <td>
                                                {s.compatibility.clone().unwrap_or_else(|| "—".into())}
                                                {(!s.compatibility_overridden).then(|| view! { " " <span class="badge">"global"</span> })}
                                            </td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </DataTable>
                    }.into_any()
                }
            }
        } />
    }
}
