//! SCRAM users (ACLS to read, SET_SCRAM_CREDENTIALS and DELETE_SCRAM_CREDENTIALS to change):
//! each user with the mechanisms Kafka holds a credential for. A password goes in once, is
//! salted by klens before it leaves, and is never answered, logged or kept.

use std::fmt;

use super::Answer;
use leptos::server_fn::codec::{GetUrl, Json};
use serde::{Deserialize, Serialize};

use super::Arg;

/// The mechanisms Kafka keeps SCRAM credentials for.
pub const SCRAM_MECHANISMS: [&str; 2] = ["SCRAM-SHA-256", "SCRAM-SHA-512"];
/// Kafka's smallest and largest iteration counts.
pub const SCRAM_MIN_ITERATIONS: i32 = 4096;
pub const SCRAM_MAX_ITERATIONS: i32 = 16384;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScramCredential {
    pub mechanism: String,
    pub iterations: i32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScramUser {
    pub user: String,
    pub credentials: Vec<ScramCredential>,
}

/// `GET /api/scram_users`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScramUserList {
    pub cluster: String,
    /// By name.
    pub users: Vec<ScramUser>,
}

serve! {
    /// Every SCRAM user of the cluster (ACLS).
    GetUrl "scram_users" fn scram_users(cluster: String) -> ScramUserList as ScramUsers;
}

/// The arguments of `set_scram_credential` as sent. Its `Debug` leaves the password out.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SetScramArgs {
    pub cluster: String,
    pub user: Arg<String>,
    /// Default SCRAM-SHA-512.
    pub mechanism: Arg<String>,
    /// Default 8192.
    pub iterations: Arg<i32>,
    pub password: Arg<String>,
    pub dry_run: Arg<bool>,
}

impl fmt::Debug for SetScramArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SetScramArgs")
            .field("cluster", &self.cluster)
            .field("user", &self.user)
            .field("mechanism", &self.mechanism)
            .field("iterations", &self.iterations)
            .field("password", &"***")
            .field("dry_run", &self.dry_run)
            .finish()
    }
}

/// The arguments of `delete_scram_credential` as sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeleteScramArgs {
    pub cluster: String,
    pub user: Arg<String>,
    pub mechanism: Arg<String>,
    pub dry_run: Arg<bool>,
}

/// The answer of a SCRAM change: never the password.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScramChanged {
    pub cluster: String,
    pub user: String,
    pub mechanism: String,
    /// For a set: the iteration count.
    pub iterations: Option<i32>,
    pub dry_run: bool,
}

serve! {
    /// Add a SCRAM user, or set a user's password (SET_SCRAM_CREDENTIALS).
    Json "set_scram_credential" fn set_scram_credential(
        #[server(flatten)] args: SetScramArgs
    ) -> ScramChanged as SetScramCredential;

    /// Delete one SCRAM credential of a user (DELETE_SCRAM_CREDENTIALS).
    Json "delete_scram_credential" fn delete_scram_credential(
        #[server(flatten)] args: DeleteScramArgs
    ) -> ScramChanged as DeleteScramCredential;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arguments_never_show_the_password() {
        let args = SetScramArgs {
            password: "hunter2-secret".to_string().into(),
            ..SetScramArgs::default()
        };
        assert!(!format!("{args:?}").contains("hunter2"));
    }
}
