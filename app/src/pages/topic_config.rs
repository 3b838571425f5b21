//! `/c/{cluster}/topics/{topic}/configuration`: every config of a topic with where its value
//! comes from (TOPIC_CONFIGS), overrides first; the table is the shared
//! [`ConfigTable`](crate::components::configs::ConfigTable).

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::topic::{TopicTab, TopicTabs};
use crate::components::access::NeedsPrivilege;
use crate::components::configs::{ConfigTable, ConfigTarget};
use crate::components::use_cluster;
use crate::Privilege;

#[component]
pub fn TopicConfigPage() -> impl IntoView {
    let params = use_params_map();
    let cluster = use_cluster();
    let name = move || params.read().get("topic").unwrap_or_default();
    view! {
        <Title text=move || format!("Configuration of {}", name()) />
        <div class="page-head"><h1 class="mono">{name}</h1></div>
        <TopicTabs cluster=cluster() topic=name() current=TopicTab::Configuration />
        <NeedsPrivilege cluster=cluster() privilege=Privilege::TopicConfigs what="The configuration of a topic"
            target=crate::access::Resource::topic(name())>
            <ConfigTable target=ConfigTarget::Topic { cluster: cluster(), topic: name() } />
        </NeedsPrivilege>
    }
}
