//! `/c/{cluster}`: one cluster's health, figures and brokers.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::api::cluster;
use crate::components::health::HealthBadge;
use crate::components::page::Loaded;
use crate::components::table::DataTable;
use crate::format::{bytes, or_dash, thousands};

#[component]
pub fn ClusterPage() -> impl IntoView {
    let params = use_params_map();
    let name = move || params.read().get("cluster").unwrap_or_default();
    let detail = Resource::new(name, cluster);
    view! {
        <Title text=name />
        <h1>{name}</h1>
        <Loaded of=detail ok=move |d: crate::api::ClusterDetail, access: crate::components::page::CallerAccess| {
            let s = d.summary;
            let flow = access.get().is_some_and(|a| a.can(crate::Privilege::Topology));
            view! {
                <dl class="facts">
                    <div><dt>"Health"</dt><dd><HealthBadge health=s.health.clone() /></dd></div>
                    <div><dt>"Mode"</dt><dd>{if s.writable { "Writable" } else { "Read-only" }}</dd></div>
                    <div><dt>"Topics"</dt><dd class="num">{or_dash(s.topics, thousands)}</dd></div>
                    <div><dt>"Partitions"</dt><dd class="num">{or_dash(s.partitions, thousands)}</dd></div>
                    <div><dt>"Under-replicated"</dt><dd class="num">{or_dash(s.under_replicated, thousands)}</dd></div>
                    <div><dt>"Size"</dt><dd class="num">{or_dash(s.size_bytes, bytes)}</dd></div>
                </dl>
                {s.health.error.map(|e| view! { <p class="error" role="alert">{e}</p> })}
                <nav class="links" aria-label="Sections">
                    <a class="button" href=format!("/c/{}/topics", s.name)>"Topics"</a>
                    <a class="button" href=format!("/c/{}/groups", s.name)>"Consumer groups"</a>
                    <a class="button" href=format!("/c/{}/brokers", s.name)>"Brokers"</a>
                    <a class="button" href=format!("/c/{}/schemas", s.name)>"Schemas"</a>
                    {flow.then(|| view! {
                        <a class="button" rel="external" href=format!("/c/{}/flow?kind=cluster", crate::format::query_value(&s.name))>"Flow"</a>
                    })}
                </nav>
                <h2>"Brokers"</h2>
                <DataTable label="Brokers">
                    <thead><tr><th scope="col" class="num">"ID"</th><th scope="col">"Host"</th><th scope="col" class="num">"Port"</th></tr></thead>
                    <tbody>
                        {d.broker_list.into_iter().map(|b| view! {
                            <tr><td class="num mono">{b.id}</td><td class="mono">{b.host}</td><td class="num mono">{b.port}</td></tr>
                        }).collect_view()}
                    </tbody>
                </DataTable>
            }.into_any()

        } />
    }
}
