//! `/`: every visible cluster with its health and size.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::{clusters, ClusterSummary};
use crate::components::health::HealthBadge;
use crate::components::page::Loaded;
use crate::components::table::{Col, DataTable};
use crate::format::{bytes, or_dash, thousands};

#[component]
pub fn ClustersPage() -> impl IntoView {
    let list = Resource::new(|| (), |_| clusters());
    view! {
        <Title text="Clusters" />
        <h1>"Clusters"</h1>
        <Loaded of=list ok={move |value: Vec<crate::api::ClusterSummary>, _| {
            match value {
                rows if rows.is_empty() => view! {
                    <p class="empty">"No cluster is open to you. Ask an administrator for a role that covers one."</p>
                }.into_any(),
                rows => view! { <ClusterTable rows /> }.into_any(),
            }
        }} />
    }
}

#[component]
fn ClusterTable(rows: Vec<ClusterSummary>) -> impl IntoView {
    view! {
        <DataTable label="Clusters" cols=&[Col::Text("Cluster"), Col::Text("Health"), Col::Num("Brokers"), Col::Num("Topics"), Col::Num("Partitions"), Col::Num("Under-replicated"), Col::Num("Size"), Col::Text("Mode")]>
            <tbody>
                {rows
                    .into_iter()
                    .map(|c| {
                        let href = format!("/c/{}", c.name);
                        view! {
                            <tr data-cluster=c.name.clone()>
                                <th scope="row"><a href=href>{c.name.clone()}</a></th>
                                <td><HealthBadge health=c.health.clone() /></td>
                                <td class="num">{or_dash(c.brokers, thousands)}</td>
                                <td class="num">{or_dash(c.topics, thousands)}</td>
                                <td class="num">{or_dash(c.partitions, thousands)}</td>
                                <td class="num">{or_dash(c.under_replicated, thousands)}</td>
                                <td class="num">{or_dash(c.size_bytes, bytes)}</td>
                                <td>
                                    {if c.writable {
                                        view! { <span class="badge badge-accent">"Writable"</span> }.into_any()
                                    } else {
                                        view! { <span class="badge">"Read-only"</span> }.into_any()
                                    }}
                                </td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </DataTable>
    }
}
