//! The pages loaded on demand, each compiled into a piece of the WASM of its own: a visitor
//! downloads the shell (layout, search, the clusters list, a cluster's overview, the account
//! page) and the piece of the page they open, and another page's piece when they go there, or
//! rest the pointer on a link to it. Code that two or three pieces share goes into chunks
//! loaded with the first of them; what more share stays in the shell
//! (`vendor/wasm_split_cli_support`).
//!
//! Each page is reached through a `#[lazy]` function of its own, where the bundle program's
//! splitter cuts the WASM (a piece per page: grouping pages that share code made first loads
//! heavier, since a page then loads its group's other pages too). In the browser, a page's
//! piece must be loaded before the page is hydrated: the entry point awaits
//! [`Page::of_path`]'s [`Page::preload`] first (the renderer hydrates synchronously, and a
//! route whose piece is missing would have nothing to hydrate with). On the server the lazy
//! functions are plain functions.

use leptos::prelude::*;
use leptos_router::LazyRoute;

use crate::pages::{
    acls::AclsPage,
    audit::AuditPage,
    brokers::{BrokerConfigPage, BrokerDefaultsPage, BrokerPage, BrokersPage},
    connectors::{ConnectorPage, ConnectorsPage},
    data::{RecordPage, TopicDataPage},
    flow::FlowPage,
    group::GroupPage,
    groups::GroupsPage,
    processors::{ProcessorPage, ProcessorsPage},
    quotas::QuotasPage,
    replications::{ReplicationPage, ReplicationsPage},
    schemas::SchemasPage,
    subject::SubjectPage,
    topic::{TopicConsumersPage, TopicPage},
    topic_config::TopicConfigPage,
    topics::TopicsPage,
    users::UsersPage,
};

impl Page {
    /// The page at `path` (a URL's path), when it is one loaded on demand; the others are in
    /// the shell. Follows the routes of `App`.
    pub fn of_path(path: &str) -> Option<Page> {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        let ["c", cluster, ref rest @ ..] = segments[..] else { return None };
        if cluster.is_empty() {
            return None;
        }
        Some(match *rest {
            ["topics"] => Page::Topics,
            ["topics", _] => Page::Topic,
            ["topics", _, "data"] => Page::TopicData,
            ["topics", _, "configuration"] => Page::TopicConfig,
            ["topics", _, "consumers"] => Page::TopicConsumers,
            ["topics", _, "records", _, _] => Page::Record,
            ["groups"] => Page::Groups,
            ["groups", _] => Page::Group,
            ["brokers"] => Page::Brokers,
            ["brokers", "defaults"] => Page::BrokerDefaults,
            ["brokers", _] => Page::Broker,
            ["brokers", _, "configuration"] => Page::BrokerConfig,
            ["schemas"] => Page::Schemas,
            ["schemas", _] => Page::Subject,
            ["acls"] => Page::Acls,
            ["users"] => Page::Users,
            ["quotas"] => Page::Quotas,
            ["audit"] => Page::Audit,
            ["connectors"] | ["connectors", _] => Page::Connectors,
            ["connectors", _, _] => Page::Connector,
            ["replications"] => Page::Replications,
            ["replications", _] => Page::Replication,
            ["processors"] => Page::Processors,
            ["processors", _] => Page::Processor,
            ["flow"] => Page::Flow,
            _ => return None,
        })
    }
}

/// For each piece: the `#[lazy]` function the WASM is cut at, the loader `#[lazy]` makes beside
/// it (`__preload_<function>`), and its page (or pages) with their components.
macro_rules! lazy_pages {
    ($($split:ident, $preload:ident: $($page:ident => $component:ident),+;)*) => {
        /// A routed page loaded on demand.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Page {
            $($($page,)+)*
        }

        $(
            #[leptos::lazy]
            fn $split(page: Page) -> AnyView {
                match page {
                    $(Page::$page => view! { <$component /> }.into_any(),)+
                    // `Page::view` asks each function for its own pages only.
                    #[allow(unreachable_patterns)]
                    _ => ().into_any(),
                }
            }
        )*

        impl Page {
            /// The page's view, from its piece.
            async fn view(self) -> AnyView {
                match self {
                    $($(Page::$page)|+ => $split(self).await,)*
                }
            }

            /// Loads the page's piece, and the chunks it shares with others (at
            /// once when they are there already). Only the browser has pieces to load.
            pub async fn preload(self) {
                #[cfg(feature = "hydrate")]
                match self {
                    $($(Page::$page)|+ => $preload().await,)*
                }
            }
        }

        /// The routes, each a type the router loads lazily:
        /// `<Route view={Lazy::<routes::Topics>::new()}>`.
        pub mod routes {
            use super::{LazyRoute, Page};
            use leptos::prelude::AnyView;

            $($(
                #[doc = concat!("The route of `Page::", stringify!($page), "`.")]
                pub struct $page;

                impl LazyRoute for $page {
                    fn data() -> Self {
                        $page
                    }

                    async fn view(_: Self) -> AnyView {
                        Page::$page.view().await
                    }

                    async fn preload() {
                        Page::$page.preload().await
                    }
                }
            )+)*
        }
    };
}

lazy_pages! {
    topics_page, __preload_topics_page: Topics => TopicsPage;
    topic_page, __preload_topic_page: Topic => TopicPage;
    topic_config_page, __preload_topic_config_page: TopicConfig => TopicConfigPage;
    topic_consumers_page, __preload_topic_consumers_page: TopicConsumers => TopicConsumersPage;
    topic_data_page, __preload_topic_data_page: TopicData => TopicDataPage;
    record_page, __preload_record_page: Record => RecordPage;
    groups_page, __preload_groups_page: Groups => GroupsPage;
    group_page, __preload_group_page: Group => GroupPage;
    schemas_page, __preload_schemas_page: Schemas => SchemasPage;
    subject_page, __preload_subject_page: Subject => SubjectPage;
    brokers_page, __preload_brokers_page: Brokers => BrokersPage;
    broker_defaults_page, __preload_broker_defaults_page: BrokerDefaults => BrokerDefaultsPage;
    broker_page, __preload_broker_page: Broker => BrokerPage;
    broker_config_page, __preload_broker_config_page: BrokerConfig => BrokerConfigPage;
    acls_page, __preload_acls_page: Acls => AclsPage;
    users_page, __preload_users_page: Users => UsersPage;
    quotas_page, __preload_quotas_page: Quotas => QuotasPage;
    connectors_page, __preload_connectors_page: Connectors => ConnectorsPage;
    connector_page, __preload_connector_page: Connector => ConnectorPage;
    replications_page, __preload_replications_page: Replications => ReplicationsPage;
    replication_page, __preload_replication_page: Replication => ReplicationPage;
    processors_page, __preload_processors_page: Processors => ProcessorsPage;
    processor_page, __preload_processor_page: Processor => ProcessorPage;
    audit_page, __preload_audit_page: Audit => AuditPage;
    flow_page, __preload_flow_page: Flow => FlowPage;
}

/// In the browser: whenever the pointer rests on, or the keyboard reaches, a link to a page
/// not loaded yet, its piece starts loading, so the click finds it there.
#[cfg(feature = "hydrate")]
pub fn preload_on_hover() {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    let Some(document) = web_sys::window().and_then(|window| window.document()) else {
        return;
    };
    let listener = Closure::<dyn Fn(web_sys::Event)>::new(|event: web_sys::Event| {
        let link = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
            .and_then(|element| element.closest("a[href]").ok().flatten())
            .and_then(|link| link.dyn_into::<web_sys::HtmlAnchorElement>().ok());
        if let Some(page) = link.and_then(|link| Page::of_path(&link.pathname())) {
            leptos::task::spawn_local(page.preload());
        }
    });
    for kind in ["mouseover", "focusin", "touchstart"] {
        let _ = document.add_event_listener_with_callback_and_bool(
            kind,
            listener.as_ref().unchecked_ref(),
            true,
        );
    }
    // Listens as long as the page lives.
    listener.forget();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_routed_path_finds_its_page() {
        // Each route of `App` loaded on demand, by an example path.
        let routes = [
            ("/c/local/topics", Page::Topics),
            ("/c/local/topics/orders", Page::Topic),
            ("/c/local/topics/orders/data", Page::TopicData),
            ("/c/local/topics/orders/configuration", Page::TopicConfig),
            ("/c/local/topics/orders/consumers", Page::TopicConsumers),
            ("/c/local/topics/orders/records/0/12", Page::Record),
            ("/c/local/groups", Page::Groups),
            ("/c/local/groups/billing", Page::Group),
            ("/c/local/brokers", Page::Brokers),
            ("/c/local/brokers/defaults", Page::BrokerDefaults),
            ("/c/local/brokers/1", Page::Broker),
            ("/c/local/brokers/1/configuration", Page::BrokerConfig),
            ("/c/local/schemas", Page::Schemas),
            ("/c/local/schemas/orders-value", Page::Subject),
            ("/c/local/acls", Page::Acls),
            ("/c/local/users", Page::Users),
            ("/c/local/quotas", Page::Quotas),
            ("/c/local/audit", Page::Audit),
            ("/c/local/connectors", Page::Connectors),
            ("/c/local/connectors/main", Page::Connectors),
            ("/c/local/connectors/main/sink", Page::Connector),
            ("/c/local/replications", Page::Replications),
            ("/c/local/replications/eu", Page::Replication),
            ("/c/local/processors", Page::Processors),
            ("/c/local/processors/big-orders", Page::Processor),
            ("/c/local/flow", Page::Flow),
        ];
        for (path, page) in routes {
            assert_eq!(Page::of_path(path), Some(page), "{path}");
        }
    }

    #[test]
    fn the_shells_pages_and_unknown_paths_are_no_lazy_page() {
        let paths = ["/", "/account", "/c/local", "/c/local/", "/c//topics", "/topics", "/c/l/x"];
        for path in paths.into_iter().chain(["/c/local/topics/a/b", "/c/local/brokers/1/x"]) {
            assert_eq!(Page::of_path(path), None, "{path}");
        }
    }
}
