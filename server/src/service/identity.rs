//! Who the caller is and what they may do on each cluster they can see.

use app::access::{Action, ClusterAccess, Resource};
use app::api::{User, WhoAmI};
use app::{ApiError, Privilege};

use super::Service;
use crate::auth::Caller;

pub async fn whoami(service: &Service, caller: &Caller) -> Result<WhoAmI, ApiError> {
    Ok(WhoAmI {
        auth: service.policy.auth_enabled(),
        user: caller.user().map(|u| User {
            subject: u.subject.clone(),
            name: u.name.clone(),
            email: u.email.clone(),
            groups: u.groups.clone(),
        }),
        clusters: service.policy.visible(&caller.subject()),
    })
}

/// Whether `caller` may use an operation that needs `privilege` on some cluster it can see
/// (one that needs none, always): the decision itself, not a copy of its rules.
pub fn may_use(service: &Service, caller: &Caller, privilege: Option<Privilege>) -> bool {
    let Some(privilege) = privilege else {
        return true;
    };
    service.policy.visible(&caller.subject()).iter().any(|a| a.can(privilege))
}

/// The decision's refusal of an operation needing `privilege` on `cluster` under `access`,
/// in its own words; none when it is allowed (a privilege held on some resources only is
/// allowed there: the scopes say where).
pub fn refusal(access: &ClusterAccess, cluster: &str, privilege: Privilege) -> Option<ApiError> {
    if access.can(privilege) {
        return None;
    }
    access.decide(&Action::new(privilege, Resource::Cluster)).into_error(cluster)
}

// The server functions this capability answers.
serves!(app::api::Whoami, |s, c, _a| whoami(&s, &c));
