//! SCRAM credentials through Kafka's own requests: DescribeUserScramCredentials to list them,
//! AlterUserScramCredentials to set one (klens salts the password: Kafka takes the salt and the
//! salted password, never the password) or delete one.

use app::api::{ScramCredential, ScramUser};
use bytes::Bytes;
use kafka_protocol::messages::alter_user_scram_credentials_request::{
    ScramCredentialDeletion, ScramCredentialUpsertion,
};
use kafka_protocol::messages::{
    AlterUserScramCredentialsRequest, DescribeUserScramCredentialsRequest,
};
use kafka_protocol::protocol::StrBytes;

use super::scram::Hash;
use super::topics::Refusal;
use super::{WireClient, WireError, WireResult};
use crate::auth::Grant;
use crate::config::Secret;
use crate::kafka::Broker;

/// Kafka's mechanism codes.
fn mechanism_code(name: &str) -> Option<(i8, Hash)> {
    match name {
        "SCRAM-SHA-256" => Some((1, Hash::Sha256)),
        "SCRAM-SHA-512" => Some((2, Hash::Sha512)),
        _ => None,
    }
}

fn mechanism_name(code: i8) -> String {
    match code {
        1 => "SCRAM-SHA-256".to_string(),
        2 => "SCRAM-SHA-512".to_string(),
        other => format!("unknown ({other})"),
    }
}

/// Salt length, as Kafka's own tools use.
const SALT_BYTES: usize = 32;

/// Kafka's code for a user that has no SCRAM credential.
const RESOURCE_NOT_FOUND: i16 = 91;

impl WireClient {
    /// Every user with a SCRAM credential, from the first broker that answers.
    pub async fn scram_users(
        &self, known: &[Broker],
    ) -> WireResult<Result<Vec<ScramUser>, Refusal>> {
        // An empty list asks for every user, as a null one does; Kafka 4.1 fails to answer a
        // null list from a user it refuses (its error answer reads the list), and the
        // connection then waits for nothing.
        let request = DescribeUserScramCredentialsRequest::default().with_users(Some(Vec::new()));
        let response = self.ask_any(known, &request, 0).await?;
        if let Err(refusal) = Refusal::of(response.error_code, response.error_message.as_ref()) {
            return Ok(Err(refusal));
        }
        let mut users = Vec::new();
        for result in response.results {
            // A user whose credentials went between the listing and the answer is left out.
            if result.error_code == RESOURCE_NOT_FOUND {
                continue;
            }
            if let Err(refusal) = Refusal::of(result.error_code, result.error_message.as_ref()) {
                return Ok(Err(refusal));
            }
            let mut credentials: Vec<ScramCredential> = result
                .credential_infos
                .into_iter()
                .map(|c| ScramCredential {
                    mechanism: mechanism_name(c.mechanism),
                    iterations: c.iterations,
                })
                .collect();
            credentials.sort_by(|a, b| a.mechanism.cmp(&b.mechanism));
            users.push(ScramUser { user: result.user.to_string(), credentials });
        }
        users.sort_by(|a, b| a.user.cmp(&b.user));
        Ok(Ok(users))
    }

    /// Sets `user`'s credential for `mechanism` (SET_SCRAM_CREDENTIALS on the cluster): a new
    /// random salt, and the password salted with it `iterations` times.
    pub async fn set_scram(
        &self, grant: &Grant, known: &[Broker], user: &str, mechanism: &str, iterations: i32,
        password: &Secret,
    ) -> WireResult<Result<(), Refusal>> {
        use rand::RngCore;
        let (code, hash) = mechanism_code(mechanism)
            .ok_or_else(|| WireError::Withheld(format!("no SCRAM mechanism {mechanism}")))?;
        let rounds = u32::try_from(iterations)
            .map_err(|_| WireError::Withheld("a negative iteration count".to_string()))?;
        let mut salt = vec![0u8; SALT_BYTES];
        rand::thread_rng().fill_bytes(&mut salt);
        let salted = hash.salted_password(password.expose().as_bytes(), &salt, rounds);
        let request = AlterUserScramCredentialsRequest::default().with_upsertions(vec![
            ScramCredentialUpsertion::default()
                .with_name(StrBytes::from_string(user.to_string()))
                .with_mechanism(code)
                .with_iterations(iterations)
                .with_salt(Bytes::from(salt))
                .with_salted_password(Bytes::from(salted)),
        ]);
        self.alter_scram(grant, known, &request).await
    }

    /// Deletes `user`'s credential for `mechanism` (DELETE_SCRAM_CREDENTIALS on the cluster).
    pub async fn delete_scram(
        &self, grant: &Grant, known: &[Broker], user: &str, mechanism: &str,
    ) -> WireResult<Result<(), Refusal>> {
        let (code, _) = mechanism_code(mechanism)
            .ok_or_else(|| WireError::Withheld(format!("no SCRAM mechanism {mechanism}")))?;
        let request = AlterUserScramCredentialsRequest::default().with_deletions(vec![
            ScramCredentialDeletion::default()
                .with_name(StrBytes::from_string(user.to_string()))
                .with_mechanism(code),
        ]);
        self.alter_scram(grant, known, &request).await
    }

    async fn alter_scram(
        &self, grant: &Grant, known: &[Broker], request: &AlterUserScramCredentialsRequest,
    ) -> WireResult<Result<(), Refusal>> {
        let broker = self.first(known)?;
        let mut lease = self.lease(broker).await?;
        let response = lease.write(grant, request, 0).await?;
        match response.results.first() {
            Some(r) => Ok(Refusal::of(r.error_code, r.error_message.as_ref())),
            None => Err(WireError::Protocol(
                "AlterUserScramCredentials: an answer without the user".to_string(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kafka::wire::kinds::WriteRequest;
    use app::access::Resource;
    use app::Privilege;

    /// Setting needs SET_SCRAM_CREDENTIALS and deleting DELETE_SCRAM_CREDENTIALS, on the
    /// cluster, once per user named.
    #[test]
    fn scram_changes_need_their_privilege() {
        let set = AlterUserScramCredentialsRequest::default()
            .with_upsertions(vec![ScramCredentialUpsertion::default()]);
        assert_eq!(set.needs(), vec![(Privilege::SetScramCredentials, Resource::Cluster)]);
        let both = set.with_deletions(vec![ScramCredentialDeletion::default()]);
        assert_eq!(
            both.needs(),
            vec![
                (Privilege::DeleteScramCredentials, Resource::Cluster),
                (Privilege::SetScramCredentials, Resource::Cluster),
            ]
        );
        assert!(AlterUserScramCredentialsRequest::default().needs().is_empty());
        for name in app::api::SCRAM_MECHANISMS {
            let (code, _) = mechanism_code(name).expect("known");
            assert_eq!(mechanism_name(code), name);
        }
    }
}
