//! Pages, components, server-function declarations and the vocabulary shared by the server and
//! the browser. Nothing in this crate talks to Kafka: server-function bodies reach the server
//! through `api::backend` (compiled only with `ssr`), so the WASM bundle holds no client.

#![recursion_limit = "256"]

pub mod access;
pub mod api;
pub mod components;
pub mod error;
pub mod format;
pub mod names;
pub mod pages;
mod privilege;
pub mod schema_view;

pub use error::{ApiError, ErrorCode, RETRY_AFTER_SECONDS};
pub use privilege::{Privilege, ResourceKind, UnknownPrivilege, MCP_WRITE_PRIVILEGES};

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, Link, Meta, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, SsrMode};

use components::layout::Layout;
use pages::{
    account::AccountPage,
    acls::AclsPage,
    audit::AuditPage,
    brokers::{BrokerConfigPage, BrokerDefaultsPage, BrokerPage, BrokersPage},
    cluster::ClusterPage,
    clusters::ClustersPage,
    connectors::{ConnectorPage, ConnectorsPage},
    data::{RecordPage, TopicDataPage},
    flow::FlowPage,
    group::GroupPage,
    groups::GroupsPage,
    not_found::NotFoundPage,
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

/// The HTML document around the app, rendered on the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    // The server makes a nonce for each page; the inline scripts carry it, and the policy
    // allows no other inline script.
    let nonce = leptos::nonce::use_nonce();
    #[cfg(feature = "ssr")]
    if let (Some(nonce), Some(response)) =
        (nonce.as_ref(), use_context::<leptos_axum::ResponseOptions>())
    {
        if let Ok(value) = http::HeaderValue::from_str(&page_policy(nonce)) {
            response.insert_header(http::header::CONTENT_SECURITY_POLICY, value);
        }
    }
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                // Apply a stored theme choice before first paint, so the page never flashes.
                <script nonce=nonce>{components::theme::EARLY_THEME_SCRIPT}</script>
                <AutoReload options=options.clone() />
                // The stylesheet shares the bundle's name (`klens.<hash>`), like the scripts.
                <link
                    rel="stylesheet"
                    id="klens-css"
                    href=format!("/{}/{}.css", options.site_pkg_dir, options.output_name)
                />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// The Content-Security-Policy of a page: everything from klens itself; inline scripts only
/// with this page's `nonce` (the hydration and theme scripts); WebAssembly may compile; inline
/// style attributes stay allowed (bars and sparklines set their sizes); no frames, plugins or
/// `<base>`.
pub fn page_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; \
         object-src 'none'; base-uri 'none'"
    )
}

/// The routed application.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        <Link rel="icon" href="data:," />
        <Meta name="color-scheme" content="light dark" />
        <Title formatter=|page: String| if page.is_empty() { "klens".to_string() } else { format!("{page} · klens") } />
        <Router>
            <Layout>
                <Routes fallback=|| view! { <NotFoundPage /> }>
                    <Route path=path!("/") view=ClustersPage ssr=SsrMode::Async />
                    <Route path=path!("/account") view=AccountPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster") view=ClusterPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics") view=TopicsPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics/:topic") view=TopicPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics/:topic/data") view=TopicDataPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics/:topic/configuration") view=TopicConfigPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics/:topic/consumers") view=TopicConsumersPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics/:topic/records/:partition/:offset") view=RecordPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/groups") view=GroupsPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/groups/:group") view=GroupPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/brokers") view=BrokersPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/brokers/defaults") view=BrokerDefaultsPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/brokers/:id") view=BrokerPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/brokers/:id/configuration") view=BrokerConfigPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/schemas") view=SchemasPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/schemas/:subject") view=SubjectPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/acls") view=AclsPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/users") view=UsersPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/quotas") view=QuotasPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/audit") view=AuditPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/connectors") view=ConnectorsPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/connectors/:connect") view=ConnectorsPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/connectors/:connect/:name") view=ConnectorPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/replications") view=ReplicationsPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/replications/:name") view=ReplicationPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/processors") view=ProcessorsPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/processors/:name") view=ProcessorPage ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/flow") view=FlowPage ssr=SsrMode::Async />
                </Routes>
            </Layout>
        </Router>
    }
}
