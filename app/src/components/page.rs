//! The pieces most pages are made of: a read shown once it is in ([`Loaded`]), what a page says
//! after one of its changes ([`use_changes`], [`Notice`]), and a head action offered only to a
//! caller who may use it ([`Offered`]).

use std::sync::Arc;

use leptos::prelude::*;

use super::access::{identity, offers};
use super::{use_cluster, ErrorAlert};
use crate::access::ClusterAccess;
use crate::{ApiError, Privilege};

/// The caller's access to the page's cluster as read for one view; none when the caller's
/// identity could not be read or the cluster is not among theirs.
#[derive(Clone, Default)]
pub struct CallerAccess(Option<ClusterAccess>);

impl CallerAccess {
    pub fn get(&self) -> Option<&ClusterAccess> {
        self.0.as_ref()
    }

    /// Whether an action needing `privilege` is offered on some resource of the cluster.
    pub fn offers(&self, privilege: Privilege) -> bool {
        offers(self.get(), privilege)
    }
}

/// The answer of `of` drawn by `ok`, with the caller's access to the page's cluster, once both
/// are in; a failed read is the page's one alert. While the first answer loads a skeleton table
/// stands in; with `keep`, a page read again keeps the last answer until the new one is in (a
/// list refreshed after a change) instead of blinking.
#[component]
pub fn Loaded<T, F, V>(
    of: Resource<Result<T, ApiError>>, ok: F, #[prop(optional)] keep: bool,
) -> impl IntoView
where
    T: Clone + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static,
    F: Fn(T, CallerAccess) -> V + Send + Sync + 'static,
    V: IntoView + 'static,
{
    let cluster = use_cluster();
    let who = identity();
    let ok = Arc::new(ok);
    let answer = move || {
        let ok = Arc::clone(&ok);
        Suspend::new(async move {
            let access = who.await.ok().and_then(|w| w.cluster(&cluster()).cloned());
            match of.await {
                Ok(value) => ok(value, CallerAccess(access)).into_any(),
                Err(error) => view! { <ErrorAlert error=error /> }.into_any(),
            }
        })
    };
    let skeleton = || view! { <div class="skeleton-table"></div> };
    if keep {
        view! { <Transition fallback=skeleton>{answer}</Transition> }.into_any()
    } else {
        view! { <Suspense fallback=skeleton>{answer}</Suspense> }.into_any()
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
