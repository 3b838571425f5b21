//! Pages, components, server-function declarations and the vocabulary shared by the server and
//! the browser. Nothing in this crate talks to Kafka: server-function bodies reach the server
//! through `api::backend` (compiled only with `ssr`), so the WASM bundle holds no client.

#![recursion_limit = "256"]

pub mod access;
pub mod api;
pub mod components;
pub mod error;
pub mod format;
pub mod lazy;
pub mod names;
pub mod pages;
mod privilege;
pub mod schema_view;

pub use error::{ApiError, ErrorCode, RETRY_AFTER_SECONDS};
pub use privilege::{Privilege, ResourceKind, UnknownPrivilege, MCP_WRITE_PRIVILEGES};

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, Link, Meta, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, Lazy, SsrMode};

use components::layout::Layout;
use lazy::routes;
use pages::{
    account::AccountPage, cluster::ClusterPage, clusters::ClustersPage, not_found::NotFoundPage,
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
                    <Route path=path!("/c/:cluster/topics") view={Lazy::<routes::Topics>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics/:topic") view={Lazy::<routes::Topic>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics/:topic/data") view={Lazy::<routes::TopicData>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics/:topic/configuration") view={Lazy::<routes::TopicConfig>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics/:topic/consumers") view={Lazy::<routes::TopicConsumers>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/topics/:topic/records/:partition/:offset") view={Lazy::<routes::Record>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/groups") view={Lazy::<routes::Groups>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/groups/:group") view={Lazy::<routes::Group>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/brokers") view={Lazy::<routes::Brokers>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/brokers/defaults") view={Lazy::<routes::BrokerDefaults>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/brokers/:id") view={Lazy::<routes::Broker>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/brokers/:id/configuration") view={Lazy::<routes::BrokerConfig>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/schemas") view={Lazy::<routes::Schemas>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/schemas/:subject") view={Lazy::<routes::Subject>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/acls") view={Lazy::<routes::Acls>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/users") view={Lazy::<routes::Users>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/quotas") view={Lazy::<routes::Quotas>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/audit") view={Lazy::<routes::Audit>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/connectors") view={Lazy::<routes::Connectors>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/connectors/:connect") view={Lazy::<routes::Connectors>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/connectors/:connect/:name") view={Lazy::<routes::Connector>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/replications") view={Lazy::<routes::Replications>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/replications/:name") view={Lazy::<routes::Replication>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/processors") view={Lazy::<routes::Processors>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/processors/:name") view={Lazy::<routes::Processor>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/c/:cluster/flow") view={Lazy::<routes::Flow>::new()} ssr=SsrMode::Async />
                </Routes>
            </Layout>
        </Router>
    }
}
