//! Where a page sits, read from its path: "Clusters › local › Topics › orders › Data". The
//! layout shows it above every page, with the cluster's read-only badge, so `local` and
//! `local-ro` never look alike.

use leptos::prelude::*;
use leptos_router::hooks::use_location;

use crate::format::page_url;

/// One step of the trail: its words and, but for the page itself, where it links.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crumb {
    pub label: String,
    pub href: Option<String>,
}

/// The sections of a cluster and their names in the navigation.
const SECTIONS: [(&str, &str); 12] = [
    ("topics", "Topics"),
    ("groups", "Consumer groups"),
    ("brokers", "Brokers"),
    ("schemas", "Schemas"),
    ("acls", "ACLs"),
    ("users", "Users"),
    ("quotas", "Quotas"),
    ("audit", "Audit log"),
    ("connectors", "Connectors"),
    ("replications", "Replications"),
    ("processors", "SQL processors"),
    ("flow", "Flow"),
];

/// The tabs of a topic or a broker, by their path segment.
const TABS: [(&str, &str); 3] =
    [("data", "Data"), ("configuration", "Configuration"), ("consumers", "Consumers")];

/// The trail of `path` (without its query), or none for a page outside a cluster but the
/// account page. The last crumb is the page itself and links nowhere.
pub fn crumbs(path: &str) -> Vec<Crumb> {
    let segments = segments(path);
    let to = |label: &str, href: String| Crumb { label: label.to_string(), href: Some(href) };
    let mut trail = vec![to("Clusters", "/".to_string())];
    match segments.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["account"] => trail.push(to("Your access", "/account".into())),
        ["c", cluster, ref rest @ ..] => {
            let base = format!("/c/{}", crate::format::query_value(cluster));
            trail.push(to(cluster, base.clone()));
            if let [section, ref rest @ ..] = rest[..] {
                let label = SECTIONS
                    .iter()
                    .find(|(id, _)| *id == section)
                    .map_or(section, |(_, label)| label);
                trail.push(to(label, format!("{base}/{section}")));
                match rest[..] {
                    [] => {}
                    ["defaults"] if section == "brokers" => {
                        trail.push(to("Cluster defaults", format!("{base}/brokers/defaults")))
                    }
                    [name, ref rest @ ..] => {
                        let shown = if section == "brokers" {
                            format!("Broker {name}")
                        } else {
                            name.to_string()
                        };
                        let page = page_url(cluster, section, name);
                        trail.push(to(&shown, page.clone()));
                        match rest[..] {
                            ["records", partition, offset] => trail.push(to(
                                &format!("Record {partition}:{offset}"),
                                format!("{page}/records/{partition}/{offset}"),
                            )),
                            [tab] => {
                                let label = TABS
                                    .iter()
                                    .find(|(id, _)| *id == tab)
                                    .map_or(tab, |(_, label)| label);
                                trail.push(to(label, format!("{page}/{tab}")));
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        _ => return Vec::new(),
    }
    if let Some(last) = trail.last_mut() {
        last.href = None;
    }
    trail
}

/// The segments of `path`, decoded.
fn segments(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .map(|s| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned())
        .collect()
}

/// The cluster a path under `/c/` names.
fn cluster_of(path: &str) -> Option<String> {
    match &segments(path)[..] {
        [c, name, ..] if c == "c" => Some(name.clone()),
        _ => None,
    }
}

/// The trail of the page shown now, with the cluster's read-only badge.
#[component]
pub fn Breadcrumbs() -> impl IntoView {
    let location = use_location();
    let who = super::access::identity();
    let trail = move || crumbs(&location.pathname.get());
    let cluster = move || cluster_of(&location.pathname.get());
    view! {
        <Show when=move || { trail().len() > 1 }>
            <nav class="crumbs" aria-label="Breadcrumb">
                <ol>
                    {move || {
                        trail()
                            .into_iter()
                            .map(|c| match c.href {
                                Some(href) => view! { <li><a href=href>{c.label}</a></li> }.into_any(),
                                None => {
                                    view! { <li aria-current="page">{c.label}</li> }.into_any()
                                }
                            })
                            .collect_view()
                    }}
                </ol>
                <Transition fallback=|| ()>
                    {move || Suspend::new(async move {
                        let name = cluster()?;
                        let whoami = who.await.ok()?;
                        let read_only = whoami.clusters.iter().any(|c| c.name == name && !c.writable);
                        read_only.then(|| view! {
                            <span class="badge badge-warn" title="klens makes no change on this cluster: its config sets writable: false">
                                "read-only"
                            </span>
                        })
                    })}
                </Transition>
            </nav>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(path: &str) -> Vec<(String, Option<String>)> {
        crumbs(path).into_iter().map(|c| (c.label, c.href)).collect()
    }

    fn trail(steps: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
        steps.iter().map(|(l, h)| (l.to_string(), h.map(str::to_string))).collect()
    }

    #[test]
    fn a_topic_tab_shows_cluster_section_topic_and_tab() {
        assert_eq!(
            labels("/c/local-ro/topics/orders/data"),
            trail(&[
                ("Clusters", Some("/")),
                ("local-ro", Some("/c/local-ro")),
                ("Topics", Some("/c/local-ro/topics")),
                ("orders", Some("/c/local-ro/topics/orders")),
                ("Data", None),
            ])
        );
    }

    #[test]
    fn names_are_shown_decoded_and_linked_encoded() {
        assert_eq!(
            labels("/c/local/groups/team%2Fa%20b"),
            trail(&[
                ("Clusters", Some("/")),
                ("local", Some("/c/local")),
                ("Consumer groups", Some("/c/local/groups")),
                ("team/a b", None),
            ])
        );
    }

    #[test]
    fn the_data_flow_sections_are_named_as_the_navigation_names_them() {
        for (section, name) in [("replications", "Replications"), ("processors", "SQL processors")]
        {
            assert_eq!(
                labels(&format!("/c/local/{section}/x"))[2..],
                trail(&[(name, Some(&format!("/c/local/{section}"))), ("x", None)])[..]
            );
        }
    }

    #[test]
    fn brokers_records_and_the_account_have_their_own_words() {
        assert_eq!(
            labels("/c/local/brokers/1/configuration")[3..],
            trail(&[("Broker 1", Some("/c/local/brokers/1")), ("Configuration", None)])[..]
        );
        assert_eq!(
            labels("/c/local/brokers/defaults")[3..],
            trail(&[("Cluster defaults", None)])[..]
        );
        assert_eq!(
            labels("/c/local/topics/t/records/0/42")[4..],
            trail(&[("Record 0:42", None)])[..]
        );
        assert_eq!(labels("/account"), trail(&[("Clusters", Some("/")), ("Your access", None)]));
    }

    #[test]
    fn the_cluster_is_read_decoded_from_paths_under_c() {
        assert_eq!(cluster_of("/c/local%2Dro/topics").as_deref(), Some("local-ro"));
        assert_eq!(cluster_of("/account"), None);
        assert_eq!(cluster_of("/c"), None);
    }

    #[test]
    fn the_clusters_page_and_unknown_paths_have_no_trail() {
        assert!(crumbs("/").is_empty());
        assert!(crumbs("/nowhere").is_empty());
    }
}
