//! `GET /api/whoami`: who the caller is and what they may do on each cluster they can see.

use super::Answer;
use leptos::server_fn::codec::GetUrl;
use serde::{Deserialize, Serialize};

use crate::access::ClusterAccess;

/// The signed-in person, from their ID token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    pub subject: String,
    pub name: Option<String>,
    pub email: Option<String>,
    pub groups: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WhoAmI {
    /// Whether sign-in is on.
    pub auth: bool,
    /// `None` when auth is off.
    pub user: Option<User>,
    /// Only the clusters the caller can see, in config order.
    pub clusters: Vec<ClusterAccess>,
}

impl WhoAmI {
    /// The caller's access to one cluster, if they can see it.
    pub fn cluster(&self, name: &str) -> Option<&ClusterAccess> {
        self.clusters.iter().find(|c| c.name == name)
    }
}

serve! {
    /// Who is asking, and what they may do per visible cluster.
    GetUrl "whoami" fn whoami() -> WhoAmI as Whoami;
}
