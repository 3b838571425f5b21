//! The pieces most pages are made of: a read shown once it is in ([`Loaded`]), what a page says
//! after one of its changes ([`use_changes`], [`Notice`]), a head action offered only to a
//! caller who may use it ([`Offered`]), and the head of a page listing one kind of object
//! ([`ListHead`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use leptos::prelude::*;
use leptos_meta::Title;

use super::access::{identity, offers};
use super::{use_cluster, ErrorAlert};
use crate::access::ClusterAccess;
use crate::api::WhoAmI;
use crate::{ApiError, Privilege};

/// The caller as read for one view, and the page's cluster; no access when the caller's
/// identity could not be read or the cluster is not among theirs.
#[derive(Clone, Default)]
pub struct CallerAccess {
    who: Option<WhoAmI>,
    cluster: String,
}

impl CallerAccess {
    /// The caller's access to the page's cluster.
    pub fn get(&self) -> Option<&ClusterAccess> {
        self.on(&self.cluster)
    }

    /// The caller's access to another cluster (a replication's source or target).
    pub fn on(&self, cluster: &str) -> Option<&ClusterAccess> {
        self.who.as_ref().and_then(|w| w.cluster(cluster))
    }

    /// The clusters the caller sees.
    pub fn clusters(&self) -> Vec<String> {
        self.who.iter().flat_map(|w| w.clusters.iter().map(|c| c.name.clone())).collect()
    }

    /// Whether an action needing `privilege` is offered on some resource of the cluster.
    pub fn offers(&self, privilege: Privilege) -> bool {
        offers(self.get(), privilege)
    }
}

/// The answer of `of` drawn by `ok`, with the caller's access to the page's cluster, once both
/// are in; a failed read is the page's one alert, under a head naming the object when `named`
/// is given (an object's page whose read failed still says what it is of). While the first
/// answer loads a skeleton table stands in; with `keep`, a page read again keeps the last answer
/// until the new one is in (a list refreshed after a change) instead of blinking.
#[component]
pub fn Loaded<T, F, V>(
    of: Resource<Result<T, ApiError>>, ok: F, #[prop(optional)] keep: bool,
    #[prop(optional, into)] named: Option<Signal<String>>,
) -> impl IntoView
where
    T: Clone + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static,
    F: Fn(T, CallerAccess) -> V + Send + Sync + 'static,
    V: IntoView + 'static,
{
    // Only the part that knows `T` is generic: each page's read is one small future, and the
    // suspense, the caller's read and the alert around it are built once for every page.
    let ok = Arc::new(ok);
    let answer: Answer = Arc::new(move |access| {
        let ok = Arc::clone(&ok);
        Box::pin(async move { of.await.map(|value| ok(value, access).into_any()) })
    });
    loaded(answer, keep, named)
}

/// HTML the server makes for a page (the Flow page's drawing), in the same wrapper as
/// [`Loaded`]: made while the server renders the page, and kept by the browser as it came
/// (`html` gives it nothing to add, so nothing of it is in the bundle).
pub fn served_html(
    html: impl Fn() -> Pin<Box<dyn Future<Output = String> + Send>> + Send + Sync + 'static,
) -> AnyView {
    let answer: Answer = Arc::new(move |_| {
        let html = html();
        Box::pin(
            async move { Ok(view! { <div class="served" inner_html=html.await /> }.into_any()) },
        )
    });
    loaded(answer, false, None)
}

type Answer = Arc<
    dyn Fn(CallerAccess) -> Pin<Box<dyn Future<Output = Result<AnyView, ApiError>> + Send>>
        + Send
        + Sync,
>;

fn loaded(answer: Answer, keep: bool, named: Option<Signal<String>>) -> AnyView {
    let cluster = use_cluster();
    let who = identity();
    let shown = move || {
        let answer = Arc::clone(&answer);
        Suspend::new(async move {
            let access = CallerAccess { who: who.await.ok(), cluster: cluster() };
            match answer(access).await {
                Ok(view) => view,
                Err(error) => view! {
                    {named.map(|name| view! { <div class="page-head"><h1 class="mono cut">{name}</h1></div> })}
                    <ErrorAlert error=error />
                }
                .into_any(),
            }
        })
    };
    let skeleton = || view! { <div class="skeleton-table"></div> };
    if keep {
        view! { <Transition fallback=skeleton>{shown}</Transition> }.into_any()
    } else {
        view! { <Suspense fallback=skeleton>{shown}</Suspense> }.into_any()
    }
}

/// A page's notice and the callback its forms call when a change is done: the callback shows
/// the change's words in the notice and calls `again` (which reads the page's data anew).
pub fn use_changes(
    again: impl Fn() + Send + Sync + 'static,
) -> (RwSignal<Option<String>>, Callback<String>) {
    let notice = RwSignal::new(None::<String>);
    let changed = Callback::new(move |said: String| {
        notice.set(Some(said));
        again();
    });
    (notice, changed)
}

/// What the page last said of a change it made, as a status line.
#[component]
pub fn Notice(notice: RwSignal<Option<String>>) -> impl IntoView {
    move || notice.get().map(|said| view! { <p class="note" role="status">{said}</p> })
}

/// `children` (a page head's action: a form, a link) shown only to a caller who may use
/// `privilege` on some resource of the page's cluster; nothing for the others, and nothing
/// while the caller is being read.
#[component]
pub fn Offered(privilege: Privilege, children: ChildrenFn) -> impl IntoView {
    let cluster = use_cluster();
    let who = identity();
    view! {
        <Suspense fallback=|| ()>
            {move || {
                let children = children.clone();
                Suspend::new(async move {
                    let may = who.await.ok().is_some_and(|w| offers(w.cluster(&cluster()), privilege));
                    may.then(|| children())
                })
            }}
        </Suspense>
    }
}

/// The tab bar of an object's pages: each tab a path under `base` and its label, the one
/// for `current` marked as the page shown.
pub fn tab_bar<T: Copy + PartialEq>(
    label: &'static str, base: &str, current: T, tabs: &[(T, &str, &'static str)],
) -> impl IntoView {
    let links = tabs
        .iter()
        .map(|&(which, path, name)| {
            let href = format!("{base}{path}");
            view! { <a href=href aria-current=(which == current).then_some("page")>{name}</a> }
        })
        .collect_view();
    view! { <nav class="tabs" aria-label=label>{links}</nav> }
}

/// The head of a cluster's page of one kind of object: the window's title ("Quotas of local"),
/// the heading with the page's actions (`children`), then what the page last said of a change.
#[component]
pub fn ListHead(
    title: &'static str, #[prop(optional)] notice: Option<RwSignal<Option<String>>>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let cluster = use_cluster();
    view! {
        <Title text=move || format!("{title} of {}", cluster()) />
        <div class="page-head">
            <h1>{title}</h1>
            <div class="actions">{children.map(|c| c())}</div>
        </div>
        {notice.map(|notice| view! { <Notice notice=notice /> })}
    }
}
