//! SCRAM users: the list (ACLS on the cluster), setting a credential (SET_SCRAM_CREDENTIALS)
//! and deleting one (DELETE_SCRAM_CREDENTIALS). The password moves into a `Secret` as soon as
//! it is read, is salted by the protocol client, and appears in no answer, error or log.

use app::api::{
    Arg, DeleteScramArgs, ScramChanged, ScramUserList, SetScramArgs, SCRAM_MAX_ITERATIONS,
    SCRAM_MECHANISMS, SCRAM_MIN_ITERATIONS,
};
use app::{ApiError, Privilege};

use super::Service;
use crate::audit::Attempt;
use crate::auth::Caller;
use crate::config::Secret;
use crate::kafka::admin::users;

/// The longest user name and password klens sends.
const MAX_USER: usize = 255;
const MAX_PASSWORD: usize = 1024;

pub async fn scram_users(
    service: &Service, caller: &Caller, cluster: &str,
) -> Result<ScramUserList, ApiError> {
    let users = service
        .cluster_read(caller, cluster, Privilege::Acls, |granted, known| async move {
            users::scram_users(&granted.grant, &granted.link(), &known).await
        })
        .await?;
    Ok(ScramUserList { cluster: cluster.to_string(), users })
}

/// A user name exactly as given: trimming it could make a delete reach another user. A new
/// credential's name may not start or end with white space.
fn user_name(user: Arg<String>, create: bool) -> Result<String, ApiError> {
    let user = user.required("user")?;
    if create && user.trim() != user {
        return Err(ApiError::bad_request("user", "A user name starts or ends with white space."));
    }
    if user.is_empty() || user.len() > MAX_USER || user.chars().any(char::is_control) {
        return Err(ApiError::bad_request(
            "user",
            format!("A user name is 1 to {MAX_USER} bytes, without control characters."),
        ));
    }
    Ok(user)
}

fn mechanism(value: Arg<String>) -> Result<String, ApiError> {
    let value = value
        .optional("mechanism")?
        .unwrap_or_else(|| "SCRAM-SHA-512".to_string())
        .to_ascii_uppercase();
    if !SCRAM_MECHANISMS.contains(&value.as_str()) {
        return Err(ApiError::bad_request(
            "mechanism",
            format!("A mechanism is one of {}.", SCRAM_MECHANISMS.join(", ")),
        ));
    }
    Ok(value)
}

pub async fn set_scram_credential(
    service: &Service, caller: &Caller, args: SetScramArgs,
) -> Result<ScramChanged, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::SetScramCredentials, &args, &["password"]);
    service
        .cluster_write(caller, attempt, |mut granted| async move {
            let user = user_name(args.user, true)?;
            let mechanism = mechanism(args.mechanism)?;
            let iterations = args.iterations.optional("iterations")?.unwrap_or(8192);
            if !(SCRAM_MIN_ITERATIONS..=SCRAM_MAX_ITERATIONS).contains(&iterations) {
                return Err(ApiError::bad_request(
                    "iterations",
                    format!(
                        "Kafka takes {SCRAM_MIN_ITERATIONS} to {SCRAM_MAX_ITERATIONS} iterations."
                    ),
                ));
            }
            // A password of the wrong type is refused without quoting what was sent.
            let password = match args.password {
                Arg::Given(p) => Secret::new(p),
                Arg::Missing => {
                    return Err(ApiError::bad_request("password", "`password` is required."))
                }
                Arg::Invalid(_) => {
                    return Err(ApiError::bad_request("password", "A password is a string."))
                }
            };
            if password.expose().is_empty() || password.expose().len() > MAX_PASSWORD {
                return Err(ApiError::bad_request(
                    "password",
                    format!("A password is 1 to {MAX_PASSWORD} bytes."),
                ));
            }
            let dry_run = args.dry_run.optional("dry_run")?.unwrap_or(false);
            if !dry_run {
                service.open(&mut granted.grant).await?;
                let known = granted.entry.known_brokers_now();
                users::set_scram(
                    &granted.grant,
                    &granted.link(),
                    &known,
                    &user,
                    &mechanism,
                    iterations,
                    &password,
                )
                .await?;
            }
            Ok(ScramChanged {
                cluster: args.cluster,
                user,
                mechanism,
                iterations: Some(iterations),
                dry_run,
            })
        })
        .await
}

pub async fn delete_scram_credential(
    service: &Service, caller: &Caller, args: DeleteScramArgs,
) -> Result<ScramChanged, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::DeleteScramCredentials, &args, &[]);
    service
        .cluster_write(caller, attempt, |mut granted| async move {
            let user = user_name(args.user, false)?;
            let mechanism = mechanism(args.mechanism)?;
            let dry_run = args.dry_run.optional("dry_run")?.unwrap_or(false);
            if !dry_run {
                service.open(&mut granted.grant).await?;
                let known = granted.entry.known_brokers_now();
                users::delete_scram(&granted.grant, &granted.link(), &known, &user, &mechanism)
                    .await?;
            }
            Ok(ScramChanged { cluster: args.cluster, user, mechanism, iterations: None, dry_run })
        })
        .await
}

// The server functions this capability answers.
serves!(app::api::ScramUsers, |s, c, a| scram_users(&s, &c, &a.cluster));
serves!(app::api::SetScramCredential, |s, c, a| set_scram_credential(&s, &c, a.args));
serves!(app::api::DeleteScramCredential, |s, c, a| { delete_scram_credential(&s, &c, a.args) });
