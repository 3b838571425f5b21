//! The caller's `/api/whoami`, fetched once per page load and shared through context, so every
//! page hides exactly the actions the API would refuse.

use leptos::prelude::*;

use crate::access::{ClusterAccess, Resource as Target};
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

/// Whether `access` allows an action needing `privilege` on `target` (a topic Kafka does not
/// mark internal, a group with its topics, a subject, or the cluster): the API's decision.
pub fn allows(access: Option<&ClusterAccess>, privilege: Privilege, target: &Target) -> bool {
    access.is_some_and(|a| a.can_on(privilege, target))
}

/// Whether an action needing `privilege` is to be offered before its resource is chosen
/// (Create topic, a link to a page): allowed on some resource of the cluster.
pub fn offers(access: Option<&ClusterAccess>, privilege: Privilege) -> bool {
    access.is_some_and(|a| a.can(privilege))
}

/// Shows `children` when the caller holds `privilege` on `target` (the cluster when not
/// given) of `cluster`; otherwise a note that `what` needs it, naming the privilege.
#[component]
pub fn NeedsPrivilege(
    cluster: String, privilege: Privilege, what: &'static str,
    #[prop(optional)] target: Option<Target>, children: ChildrenFn,
) -> impl IntoView {
    let who = identity();
    let cluster = StoredValue::new(cluster);
    let target = StoredValue::new(target.unwrap_or(Target::Cluster));
    view! {
        <Suspense fallback=|| view! { <div class="skeleton-table"></div> }>
            {move || {
                let children = children.clone();
                Suspend::new(async move {
                    let who = who.await.ok();
                    let access = who.as_ref().and_then(|w| w.cluster(&cluster.get_value()));
                    let allowed = target.with_value(|t| allows(access, privilege, t));
                    // Only a caller with scopes is told which resource was missing: to others
                    // the privilege is the cluster's.
                    let scoped = access.is_some_and(|a| !a.scopes.is_empty());
                    if allowed {
                        children().into_any()
                    } else {
                        view! {
                            <p class="empty" role="note">
                                {target.with_value(|t| refusal(what, privilege, if scoped { t } else { &Target::Cluster }))}
                            </p>
                        }
                        .into_any()
                    }
                })
            }}
        </Suspense>
    }
}

/// What a page says in place of what the caller may not see.
fn refusal(what: &str, privilege: Privilege, target: &Target) -> String {
    let on = match target {
        Target::Cluster => "this cluster".to_string(),
        Target::Topic { name, .. } => format!("topic {name}"),
        Target::Group { name, .. } => format!("group {name}"),
        Target::Subject(name) => format!("subject {name}"),
        Target::Connector { name, .. } => format!("connector {name}"),
        Target::Replication { name, .. } => format!("replication {name}"),
        Target::Processor { name, .. } => format!("processor {name}"),
    };
    format!("{what} needs the {} privilege on {on}.", privilege.wire_name())
}
