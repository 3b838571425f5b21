//! The frame around every page: the header (brand, search box, theme switch) and the left
//! navigation with one entry per visible cluster.

use leptos::prelude::*;
use leptos_router::components::A;

use super::crumbs::Breadcrumbs;
use super::search::Search;
use super::theme::ThemeSwitch;

#[component]
pub fn Layout(children: Children) -> impl IntoView {
    // Set once the WASM has taken over the page; end-to-end tests wait for it.
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    super::access::provide_identity();
    super::clock::provide_zone_choice();
    super::sheet::provide_sheet_keys();

    // Under ~1024 px the navigation folds behind a Menu button: a checkbox, so that it works
    // before the WASM has loaded; a move to another page folds it again.
    let menu_open = RwSignal::new(false);
    let location = leptos_router::hooks::use_location();
    Effect::new(move |_| {
        location.pathname.track();
        menu_open.set(false);
    });
    view! {
        <div class="app" data-hydrated=move || if hydrated.get() { "true" } else { "false" }>
            <input
                type="checkbox"
                id="nav-toggle"
                class="nav-toggle"
                aria-hidden="true"
                tabindex="-1"
                prop:checked=move || menu_open.get()
                on:change=move |ev| menu_open.set(event_target_checked(&ev))
            />
            <header class="topbar">
                <label for="nav-toggle" class="nav-button" aria-controls="sidenav" title="Clusters and sections">
                    "Menu"
                </label>
                <a class="brand" href="/">"klens"</a>
                <Search />
                <span class="topbar-spacer"></span>
                <UserMenu />
                <ThemeSwitch />
            </header>
            <div class="frame">
                <ClusterNav />
                <main class="content">
                    <Breadcrumbs />
                    {children()}
                </main>
            </div>
        </div>
    }
}

/// Who is signed in, their groups, and Sign out; nothing when sign-in is off.
#[component]
fn UserMenu() -> impl IntoView {
    let who = super::access::identity();
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let user = who.await.ok().and_then(|w| w.user)?;
                let name = user.name.clone().unwrap_or_else(|| user.subject.clone());
                let groups = if user.groups.is_empty() {
                    "no groups".to_string()
                } else {
                    user.groups.join(", ")
                };
                Some(view! {
                    <a class="user" href="/account" title="Your access">
                        <span class="user-name">{name}</span>
                        " "
                        <span class="user-groups">{groups}</span>
                    </a>
                    <form method="post" action="/auth/logout">
                        <button type="submit" class="button">"Sign out"</button>
                    </form>
                })
            })}
        </Suspense>
    }
}

#[component]
fn ClusterNav() -> impl IntoView {
    // The visible clusters come from the page's whoami, in config order: no second request.
    let who = super::access::identity();
    view! {
        <nav class="sidenav" id="sidenav" aria-label="Clusters">
            <A href="/" exact=true>"Clusters"</A>
            <Suspense fallback=|| view! { <div class="skeleton-line"></div> }>
                {move || Suspend::new(async move {
                    match who.await {
                        Ok(w) => {
                            let clusters = w.clusters;
                            view! {
                                <ul>
                                    {clusters
                                        .into_iter()
                                        .map(|c| {
                                            let overview = format!("/c/{}", c.name);
                                            let base = overview.clone();
                                            let section = move |s: &str| format!("{base}/{s}");
                                            let acls = c.can(crate::Privilege::Acls);
                                            let quotas = c.can(crate::Privilege::BrokerConfigs);
                                            let audit = c.can(crate::Privilege::Audit);
                                            let connectors = !c.connects.is_empty() && c.can(crate::Privilege::Connectors);
                                            let replications = c.mirrored && c.can(crate::Privilege::Replications);
                                            let processors = c.processors && c.can(crate::Privilege::SqlProcessors);
                                            view! {
                                                <li>
                                                    <A href=overview exact=true>{c.name.clone()}</A>
                                                    <ul class="subnav">
                                                        <li><A href=section("topics")>"Topics"</A></li>
                                                        <li><A href=section("groups")>"Consumer groups"</A></li>
                                                        <li><A href=section("brokers")>"Brokers"</A></li>
                                                        <li><A href=section("schemas")>"Schemas"</A></li>
                                                        {acls.then(|| view! {
                                                            <li><A href=section("acls")>"ACLs"</A></li>
                                                            <li><A href=section("users")>"Users"</A></li>
                                                        })}
                                                        {connectors.then(|| view! {
                                                            <li><A href=section("connectors")>"Connectors"</A></li>
                                                        })}
                                                        {replications.then(|| view! {
                                                            <li><A href=section("replications")>"Replications"</A></li>
                                                        })}
                                                        {processors.then(|| view! {
                                                            <li><A href=section("processors")>"SQL processors"</A></li>
                                                        })}
                                                        {quotas.then(|| view! {
                                                            <li><A href=section("quotas")>"Quotas"</A></li>
                                                        })}
                                                        {audit.then(|| view! {
                                                            <li><A href=section("audit")>"Audit log"</A></li>
                                                        })}
                                                    </ul>
                                                </li>
                                            }
                                        })
                                        .collect_view()}
                                </ul>
                            }
                                .into_any()
                        }
                        Err(e) => view! { <p class="error">{e.message}</p> }.into_any(),
                    }
                })}
            </Suspense>
        </nav>
    }
}
