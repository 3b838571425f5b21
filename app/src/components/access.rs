//! The caller's `/api/whoami`, fetched once per page load and shared through context, so every
//! page hides exactly the actions the API would refuse.

use leptos::prelude::*;

use crate::access::ClusterAccess;
use crate::api::{whoami, WhoAmI};
use crate::error::ApiError;
use crate::Privilege;

/// The shared whoami resource.
#[derive(Clone, Copy)]
pub struct Identity(pub Resource<Result<WhoAmI, ApiError>>);

/// Fetches whoami and provides it to the page tree.
pub fn provide_identity() {
    provide_context(Identity(Resource::new(|| (), |_| whoami())));
}

/// The identity resource; the layout always provides it.
pub fn identity() -> Resource<Result<WhoAmI, ApiError>> {
    match use_context::<Identity>() {
        Some(Identity(resource)) => resource,
        None => Resource::new(|| (), |_| whoami()),
    }
}

/// Whether `access` allows an action needing `privilege`, on a resource that is not internal.
pub fn allows(access: Option<&ClusterAccess>, privilege: Privilege) -> bool {
    access.is_some_and(|a| a.can(privilege))
}

/// Shows `children` when the caller holds `privilege` on `cluster`; otherwise a note that
/// `what` needs it, naming the privilege.
#[component]
pub fn NeedsPrivilege(
    cluster: String,
    privilege: Privilege,
    what: &'static str,
    children: ChildrenFn,
) -> impl IntoView {
    let who = identity();
    let cluster = StoredValue::new(cluster);
    view! {
        <Suspense fallback=|| view! { <div class="skeleton-table"></div> }>
            {move || {
                let children = children.clone();
                Suspend::new(async move {
                    let allowed = who
                        .await
                        .ok()
                        .is_some_and(|w| allows(w.cluster(&cluster.get_value()), privilege));
                    if allowed {
                        children().into_any()
                    } else {
                        view! {
                            <p class="empty" role="note">
                                {format!("{what} needs the {} privilege on this cluster.", privilege.wire_name())}
                            </p>
                        }
                        .into_any()
                    }
                })
            }}
        </Suspense>
    }
}
