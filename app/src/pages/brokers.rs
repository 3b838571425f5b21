//! `/c/{cluster}/brokers` and `/c/{cluster}/brokers/{id}`: brokers with rack, the active
//! controller, partition counts and log dirs with sizes; a broker's Configuration tab
//! (`/c/{cluster}/brokers/{id}/configuration`) and the cluster-wide broker default
//! (`/c/{cluster}/brokers/defaults`), both BROKER_CONFIGS.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::api::{broker, brokers, LogDirDetail};
use crate::components::access::NeedsPrivilege;
use crate::components::configs::{ConfigTable, ConfigTarget};
use crate::components::page::{tab_bar, ListHead, Loaded, Offered};
use crate::components::table::{Col, DataTable, Freshness};
use crate::components::use_cluster;
use crate::format::{bytes, or_dash, page_url, query_value, thousands};
use crate::Privilege;

/// The tabs of a broker's pages.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum BrokerTab {
    Overview,
    Configuration,
}

#[component]
pub fn BrokerTabs(cluster: String, id: String, current: BrokerTab) -> impl IntoView {
    let base = format!("/c/{}/brokers/{}", query_value(&cluster), query_value(&id));
    let tabs = [
        (BrokerTab::Overview, "", "Overview"),
        (BrokerTab::Configuration, "/configuration", "Configuration"),
    ];
    tab_bar("Broker", &base, current, &tabs)
}

#[component]
pub fn BrokersPage() -> impl IntoView {
    let cluster = use_cluster();
    let list = Resource::new(cluster, brokers);
    view! {
        <ListHead title="Brokers">
            <Offered privilege=Privilege::BrokerConfigs>
                <a class="button" href=format!("/c/{}/brokers/defaults", query_value(&cluster()))>"Cluster-wide configuration"</a>
            </Offered>
        </ListHead>
        <Loaded of=list ok=move |value: crate::api::BrokerList, _| {
            match value {
                list if list.brokers.is_empty() => view! {
                    <p class="empty">"No brokers known yet: the cluster has not answered."</p>
                }.into_any(),
                list => {
                    let cluster = cluster();
                    let controller = match list.controller {
                        Some(id) if list.brokers.iter().any(|b| b.id == id) => None,
                        Some(id) => Some(format!("The active controller is node {id}, which is not a broker.")),
                        None => Some("The active controller is unknown (klens may not describe the cluster's quorum).".to_string()),
                    };
                    view! {
                        <Freshness what="Log dirs" at=list.refreshed_at served_at=list.served_at />
                        {controller.map(|c| view! { <p class="empty">{c}</p> })}
                        <DataTable label="Brokers" cols=&[Col::Num("Id"), Col::Text("Host"), Col::Text("Rack"), Col::Text("Role"), Col::Num("Replicas"), Col::Num("Leaders"), Col::Num("Log dirs"), Col::Num("Size")]>
                            <tbody>
                                {list.brokers.into_iter().map(|b| {
                                    let size = dirs_size(&b.log_dirs, b.log_dirs_error.is_some());
                                    view! {
                                        <tr data-broker=b.id>
                                            <th scope="row" class="num">
                                                <a href=page_url(&cluster, "brokers", &b.id.to_string())>{b.id}</a>
                                            </th>
                                            <td class="mono">{format!("{}:{}", b.host, b.port)}</td>
                                            <td>{b.rack.clone().unwrap_or_else(|| "—".into())}</td>
                                            <td>{b.controller.then(|| view! { <span class="badge badge-accent">"Controller"</span> })}</td>
                                            <td class="num">{thousands(b.replicas)}</td>
                                            <td class="num">{thousands(b.leaders)}</td>
                                            <td class="num">{b.log_dirs.len()}</td>
                                            <td class="num" title=b.log_dirs_error.clone().unwrap_or_default()>{or_dash(size, bytes)}</td>
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

/// The bytes in a broker's log dirs, `None` when they could not be read.
fn dirs_size(dirs: &[LogDirDetail], failed: bool) -> Option<u64> {
    if failed {
        return None;
    }
    dirs.iter().try_fold(0u64, |sum, d| Some(sum + d.size_bytes?))
}

#[component]
pub fn BrokerPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = use_cluster();
    let id = move || params.read().get("id").unwrap_or_default();
    let detail = Resource::new(
        move || (cluster(), id()),
        |(c, id)| async move {
            match id.parse::<i32>() {
                Ok(id) => broker(c, id.into()).await,
                Err(_) => Err(crate::ApiError::new(
                    crate::ErrorCode::NotFound,
                    format!("There is no broker \"{id}\"."),
                )),
            }
        },
    );
    view! {
        <Title text=move || format!("Broker {}", id()) />
        <Suspense fallback=|| view! { <div class="skeleton-table"></div> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(b) => view! {
                        <div class="page-head">
                            <h1>{format!("Broker {}", b.id)}</h1>
                            {b.controller.then(|| view! { <span class="badge badge-accent">"Controller"</span> })}
                        </div>
                        <BrokerTabs cluster=cluster() id=b.id.to_string() current=BrokerTab::Overview />
                        <dl class="facts">
                            <div><dt>"Address"</dt><dd class="mono">{format!("{}:{}", b.host, b.port)}</dd></div>
                            <div><dt>"Rack"</dt><dd>{b.rack.clone().unwrap_or_else(|| "—".into())}</dd></div>
                            <div><dt>"Replicas"</dt><dd>{thousands(b.replicas)}</dd></div>
                            <div><dt>"Leaders"</dt><dd>{thousands(b.leaders)}</dd></div>
                        </dl>
                        <h2>"Log dirs"</h2>
                        {b.log_dirs_error.clone().map(|e| view! { <p class="error">{format!("Log dirs could not be read: {e}")}</p> })}
                        <DataTable label="Log dirs" cols=&[Col::Text("Path"), Col::Num("Size"), Col::Num("Volume free"), Col::Num("Volume size"), Col::Text("Error")]>
                            <tbody>
                                {b.log_dirs.into_iter().map(|d| view! {
                                    <tr>
                                        <td class="mono">{d.path}</td>
                                        <td class="num">{or_dash(d.size_bytes, bytes)}</td>
                                        <td class="num">{or_dash(d.usable_bytes, bytes)}</td>
                                        <td class="num">{or_dash(d.total_bytes, bytes)}</td>
                                        <td class="error">{d.error.unwrap_or_default()}</td>
                                    </tr>
                                }).collect_view()}
                            </tbody>
                        </DataTable>
                    }.into_any(),
                    Err(e) => view! {
                        <h1>{format!("Broker {}", id())}</h1>
                        <p class="error" role="alert">{e.message}</p>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// `/c/{cluster}/brokers/{id}/configuration`: every config of one broker, where its value
/// comes from, and how it may change while the broker runs.
#[component]
pub fn BrokerConfigPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = use_cluster();
    let id = move || params.read().get("id").unwrap_or_default();
    view! {
        <Title text=move || format!("Configuration of broker {}", id()) />
        <div class="page-head"><h1>{move || format!("Broker {}", id())}</h1></div>
        <BrokerTabs cluster=cluster() id=id() current=BrokerTab::Configuration />
        {match id().parse::<i32>() {
            Ok(broker) => view! {
                <NeedsPrivilege cluster=cluster() privilege=Privilege::BrokerConfigs what="The configuration of a broker">
                    <ConfigTable target=ConfigTarget::Broker { cluster: cluster(), broker: Some(broker) } />
                </NeedsPrivilege>
            }.into_any(),
            Err(_) => view! { <p class="error" role="alert">{format!("There is no broker \"{}\".", id())}</p> }.into_any(),
        }}
    }
}

/// `/c/{cluster}/brokers/defaults`: the cluster-wide broker default, which every broker takes
/// where it sets no value of its own.
#[component]
pub fn BrokerDefaultsPage() -> impl IntoView {
    let cluster = use_cluster();
    view! {
        <Title text=move || format!("Cluster-wide broker configuration of {}", cluster()) />
        <div class="page-head"><h1>"Cluster-wide broker configuration"</h1></div>
        <p class="muted">"A value set here applies to every broker that sets none of its own."</p>
        <NeedsPrivilege cluster=cluster() privilege=Privilege::BrokerConfigs what="The cluster-wide broker configuration">
            <ConfigTable target=ConfigTarget::Broker { cluster: cluster(), broker: None } />
        </NeedsPrivilege>
    }
}
