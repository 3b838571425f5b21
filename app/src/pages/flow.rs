//! `/c/{cluster}/flow?kind=&name=&hops=`: how data flows around one topic, group, connector or
//! replication (TOPOLOGY). The server lays the flow out, draws it and writes the page's head and
//! its steps into the page it sends; the browser keeps that as it came and adds nothing to it,
//! so no part of the flow is in the WASM bundle. Links to this page load it whole
//! (`rel="external"`) for that reason, and a page reached by the router (Back to it) loads itself again.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::page::served_html;
use crate::components::use_cluster;
use crate::format::query_value;

#[component]
pub fn FlowPage() -> impl IntoView {
    let cluster = use_cluster();
    let query = use_query_map();
    let arg = move |key: &str| query.read().get(key).unwrap_or_default();
    let drawing =
        served_html(move || Box::pin(drawn(cluster(), arg("kind"), arg("name"), arg("hops"))));
    view! {
        <Title text=move || format!("Flow of {}", arg("name")) />
        {drawing}
    }
}

/// Where the flow around `name` is, `hops` steps up and down.
fn flow_href(cluster: &str, kind: &str, name: &str, hops: u8) -> String {
    format!(
        "/c/{}/flow?kind={}&name={}&hops={hops}",
        query_value(cluster),
        query_value(kind),
        query_value(name)
    )
}

/// The page as HTML: its head with the steps to choose from, then the drawing and what it does
/// not know, or why there is none.
#[cfg(feature = "ssr")]
async fn drawn(cluster: String, kind: String, name: String, hops: String) -> String {
    use crate::api::FLOW_MOST_HOPS;
    use crate::format::escape_html as escaped;
    let hops = hops.parse::<u8>().ok();
    let whole = kind == "cluster";
    let heading = if whole {
        format!(
            "Flow of {} through <span class=\"mono\">{}</span>",
            escaped(&cluster),
            escaped(&name)
        )
    } else {
        format!("Flow of <span class=\"mono\">{}</span>", escaped(&name))
    };
    let mut html = format!(
        r#"<div class="page-head"><h1>{heading}</h1><div class="actions" role="group" aria-label="Steps up and down">Steps: "#
    );
    for n in 1..=FLOW_MOST_HOPS {
        let current = if hops.unwrap_or(1) == n { r#" aria-current="page""# } else { "" };
        let href = escaped(&flow_href(&cluster, &kind, &name, n));
        html.push_str(&format!(
            r#"<a href="{href}" rel="external" class="button"{current}>{n}</a>"#
        ));
    }
    html.push_str("</div></div>");
    // The whole cluster's flow, through the names a filter holds: a plain form, so the page
    // it asks for is drawn by the server as this one was.
    html.push_str(&format!(
        r#"<form class="flow-filter" method="get" action="/c/{}/flow"><input type="hidden" name="kind" value="cluster"><input type="hidden" name="hops" value="{}"><label>Whole cluster, names holding <input type="search" name="name" value="{}" required></label><button type="submit" class="button">Draw</button></form>"#,
        escaped(&query_value(&cluster)),
        hops.unwrap_or(1),
        if whole { escaped(&name) } else { String::new() },
    ));
    if whole && name.trim().is_empty() {
        html.push_str(r#"<p class="muted">Type part of the names to draw: every topic, group, connector, replication, processor and producer holding it, with what it reads and writes.</p>"#);
        return html;
    }
    match crate::api::flow(cluster, kind, name.into(), hops).await {
        Ok(flow) => {
            html.push_str(&format!(
                r#"<div class="flow-box">{}</div><ul class="flow-coverage">"#,
                flow.svg
            ));
            for line in &flow.coverage {
                html.push_str(&format!("<li>{}</li>", escaped(line)));
            }
            html.push_str("</ul>");
        }
        Err(error) => html
            .push_str(&format!(r#"<p class="error" role="alert">{}</p>"#, escaped(&error.message))),
    }
    html
}

/// In the browser the page keeps what the server wrote. Reached by the router once the app
/// runs (Back or Forward to it), it has nothing to show, so it is loaded whole from the server.
#[cfg(not(feature = "ssr"))]
async fn drawn(_: String, _: String, _: String, _: String) -> String {
    use std::sync::atomic::{AtomicBool, Ordering};
    // Set by the page's first drawing in this document, the one the server sent.
    static SHOWN: AtomicBool = AtomicBool::new(false);
    if SHOWN.swap(true, Ordering::Relaxed) {
        let _ = window().location().reload();
    }
    String::new()
}

/// "Flow": the link from a node's page to the flow of data around it.
#[component]
pub fn FlowLink(cluster: String, kind: &'static str, name: String) -> impl IntoView {
    view! { <a class="button" rel="external" href=flow_href(&cluster, kind, &name, 1)>"Flow"</a> }
}
