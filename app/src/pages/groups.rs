//! `/c/{cluster}/groups`: consumer groups with state, members, topics and total lag.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::{groups, GroupSummary};
use crate::components::page::Loaded;
use crate::components::table::{
    use_window_list, DataTable, FilterBox, Freshness, LagBar, Pager, SortHeader,
};
use crate::components::use_cluster;
use crate::format::{page_url, thousands};

#[component]
pub fn GroupsPage() -> impl IntoView {
    let cluster = use_cluster();
    let list = use_window_list(groups);
    view! {
        <Title text=move || format!("Consumer groups of {}", cluster()) />
        <div class="page-head">
            <h1>"Consumer groups"</h1>
            <FilterBox label="Filter groups by name" />
        </div>
        <Loaded of=list keep=true ok=move |list: crate::api::GroupList, _| {
            let fresh = view! {
                <Freshness what="Groups" at=list.refreshed_at served_at=list.served_at
                    error=list.error.clone().unwrap_or_default() />
            };
            if list.total == 0 {
                let text = if list.refreshed_at.is_some() {
                    "This cluster has no consumer groups."
                } else {
                    "Consumer groups have not been read yet."
                };
                return view! { {fresh} <p class="empty">{text}</p> }.into_any();
            }
            let shown = list.groups.len() as u64;
            view! {
                {fresh}
                <GroupTable cluster=cluster() rows=list.groups />
                <Pager matched=list.matched total=list.total shown=shown />
            }
            .into_any()

        } />
    }
}

/// A Kafka group state as a badge: Stable is good, rebalancing is a warning, Dead is bad.
pub fn state_badge(state: &str) -> impl IntoView {
    let class = match state {
        "Stable" => "badge badge-ok",
        "PreparingRebalance" | "CompletingRebalance" | "Assigning" | "Reconciling" => {
            "badge badge-warn"
        }
        "Dead" => "badge badge-bad",
        _ => "badge",
    };
    view! { <span class=class>{state.to_string()}</span> }
}

#[component]
fn GroupTable(cluster: String, rows: Vec<GroupSummary>) -> impl IntoView {
    let max = rows.iter().filter_map(|g| g.lag).max().unwrap_or(0);
    view! {
        <DataTable label="Consumer groups">
            <thead>
                <tr>
                    <SortHeader column="name" label="Group" />
                    <SortHeader column="state" label="State" />
                    <SortHeader column="members" label="Members" num=true />
                    <SortHeader column="topics" label="Topics" num=true />
                    <SortHeader column="lag" label="Lag" num=true title="Records behind the end, summed over partitions" />
                </tr>
            </thead>
            <tbody>
                {rows
                    .into_iter()
                    .map(|g| {
                        let href = page_url(&cluster, "groups", &g.group);
                        view! {
                            <tr data-group=g.group.clone()>
                                <th scope="row"><a class="mono cut" href=href title=g.group.clone()>{g.group.clone()}</a></th>
                                <td>{state_badge(&g.state)}</td>
                                <td class="num">{thousands(g.members)}</td>
                                <td class="num">{thousands(g.topics)}</td>
                                <td class="num"><LagBar lag=g.lag max=max /></td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </DataTable>
    }
}
