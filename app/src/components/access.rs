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
