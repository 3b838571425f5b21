//! Who the caller is and what they may do on each cluster they can see.

use app::api::{User, WhoAmI};
use app::ApiError;

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
