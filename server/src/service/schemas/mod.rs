//! Schema subjects read live from the cluster's registry: a subject's versions, levels and
//! topics (catalog, no privilege), and one version's text (SCHEMA_TEXT on the subject); and the
//! registry writes, each decided on the subject (writable → privilege), then judged, then sent
//! with its grant: registering a schema (with a dry run that asks the registry's verdict and
//! reads the subject's newest records with the proposed schema), setting a subject's level,
//! deleting a version or a subject.

use app::access::{Action, Resource};
use app::api::{
    Arg, CompatibilitySet, DeleteSchemaArgs, RecordAt, RecordsCheck, RegisterSchemaArgs,
    SchemaDeleted, SchemaDetail, SchemaReference, SchemaRegistered, SchemaVersionRef,
    SetCompatibilityArgs, SubjectDetail, SubjectVersion, COMPATIBILITY_LEVELS,
};
use app::error::Flavor;
use app::{ApiError, ErrorCode, Privilege};

use crate::audit::Attempt;
use crate::auth::Caller;
use crate::records::proposed::{Proposed, Reading};
use crate::registry::{Proposal, Reference, Registry, RegistryError, VersionInfo};
use crate::service::{Granted, Service};

/// The error of a registry that did not do what was asked: `REFUSED` when it refused klens's
/// credentials; for its own answers `NOT_FOUND` (404), `ADMIN` 409 (a conflict: an
/// incompatible schema, a version not soft-deleted first) or `ADMIN` 422 (400 or 422: a request
/// it rejects); `CLIENT` for any other answer, or when it could not be reached or answered what
/// klens does not read.
pub fn registry_error(e: RegistryError) -> ApiError {
    crate::rest::api_error(e)
}

/// The cluster's registry, or `NOT_CONFIGURED`.
pub fn registry_of(granted: &Granted) -> Result<std::sync::Arc<Registry>, ApiError> {
    granted.entry.registry().ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotConfigured,
            format!("Cluster \"{}\" has no schema registry.", granted.entry.name),
        )
    })
}

/// The longest subject name klens asks the registry about.
const MAX_SUBJECT: usize = 1000;

fn subject_name(subject: Arg<String>) -> Result<String, ApiError> {
    let name = subject.required("subject")?;
    check_subject(&name, "subject")?;
    Ok(name)
}

/// A subject name as the registry's URL can carry it: 1 to [`MAX_SUBJECT`] bytes, and nothing
/// the URL would read as path syntax (`..`, `/`, `%2e`, a control character), refused before
/// any request; `field` names it in the refusal.
pub fn check_subject(name: &str, field: &str) -> Result<(), ApiError> {
    if name.is_empty() || name.len() > MAX_SUBJECT {
        return Err(ApiError::bad_request(
            field,
            format!("A subject name is 1 to {MAX_SUBJECT} bytes."),
        ));
    }
    if let Some(why) = crate::registry::segment_problem(name) {
        return Err(ApiError::bad_request(
            field,
            format!("A subject name becomes a part of the registry's URL, so {why}."),
        ));
    }
    Ok(())
}

/// Whether `caller` may read the schemas of `subject`: SCHEMA_TEXT on it, by the one decision
/// (which a scoped caller passes only for subjects their scopes cover). An operation that reads
/// a subject's schema on the caller's behalf (produce through the registry, a reference) answers
/// a subject they may not read exactly as one that does not exist.
pub fn reads_subject(service: &Service, caller: &Caller, cluster: &str, subject: &str) -> bool {
    service
        .decide(
            caller,
            cluster,
            Action::new(Privilege::SchemaText, Resource::Subject(subject.to_string())),
        )
        .is_ok()
}

/// A reference to a version the registry lacks, or that the caller may not read: the same
/// answer for both.
fn no_reference(index: usize, reference: &Reference) -> ApiError {
    ApiError::not_found(format!(
        "Reference {index} (\"{}\"): the registry has no version {} of subject \"{}\".",
        reference.name, reference.version, reference.subject
    ))
}

fn no_subject(subject: &str) -> ApiError {
    ApiError::not_found(format!("The registry has no subject \"{subject}\"."))
}

fn references(list: &[Reference]) -> Vec<SchemaReference> {
    list.iter()
        .map(|r| SchemaReference {
            name: r.name.clone(),
            subject: r.subject.clone(),
            version: i32::try_from(r.version).unwrap_or(-1),
        })
        .collect()
}

fn version(v: &VersionInfo) -> SubjectVersion {
    SubjectVersion {
        version: v.version,
        id: i64::from(v.id),
        schema_type: v.schema_type.clone(),
        references: references(&v.references),
    }
}

pub async fn subject(
    service: &Service, caller: &Caller, cluster: &str, subject: Arg<String>,
) -> Result<SubjectDetail, ApiError> {
    let granted = service.decide(caller, cluster, Action::catalog())?;
    let name = subject_name(subject)?;
    let registry = registry_of(&granted)?;
    // Under a scoped catalog a subject the caller may not see answers as one that is not there.
    let access = service.access(caller, cluster)?;
    if !access.sees(&Resource::Subject(name.clone())) {
        return Err(no_subject(&name));
    }
    let deleted_versions = registry.deleted_versions(&name).await.map_err(registry_error)?;
    let info = match registry.subject_info(&name).await.map_err(registry_error)? {
        Some(info) => info,
        // A subject whose every version is soft-deleted is still there, to be deleted for good.
        None if !deleted_versions.is_empty() => {
            let (compatibility, global_compatibility) =
                registry.levels(&name).await.map_err(registry_error)?;
            crate::registry::SubjectInfo {
                versions: Vec::new(),
                versions_left_out: 0,
                compatibility,
                global_compatibility,
            }
        }
        None => return Err(no_subject(&name)),
    };
    // The topics this subject names by the default naming of Confluent's serializers.
    let topics = [("-key", "key"), ("-value", "value")]
        .into_iter()
        .filter_map(|(suffix, part)| {
            let topic = name.strip_suffix(suffix)?;
            let listed = granted.entry.topic_metadata(topic).ok().flatten()?;
            // A subject a scope covers by its own name may be named after a hidden topic.
            access.sees(&Resource::topic(&listed.name)).then(|| (listed.name, part.to_string()))
        })
        .collect();
    Ok(SubjectDetail {
        subject: name,
        versions: info.versions.iter().map(version).collect(),
        versions_left_out: info.versions_left_out as u64,
        deleted_versions,
        compatibility_overridden: info.compatibility.is_some(),
        compatibility: info.compatibility.or_else(|| info.global_compatibility.clone()),
        global_compatibility: info.global_compatibility,
        topics,
    })
}

pub async fn schema(
    service: &Service, caller: &Caller, cluster: &str, subject: Arg<String>, version: Arg<i32>,
) -> Result<SchemaDetail, ApiError> {
    let args = serde_json::json!({ "subject": &subject, "version": &version });
    service
        .audited_read(caller, cluster, Privilege::SchemaText, &args, async move {
            let (granted, name) =
                decide_subject(service, caller, cluster, Privilege::SchemaText, subject)?;
            let number = version.optional("version")?;
            if number.is_some_and(|v| v < 1) {
                return Err(ApiError::bad_request(
                    "version",
                    "A version is a number from 1 (missing: the newest).",
                ));
            }
            let registry = registry_of(&granted)?;
            let (info, text) =
                registry.version_text(&name, number).await.map_err(registry_error)?.ok_or_else(
                    || match number {
                        Some(v) => {
                            ApiError::not_found(format!("Subject \"{name}\" has no version {v}."))
                        }
                        None => no_subject(&name),
                    },
                )?;
            Ok(SchemaDetail {
                subject: name,
                version: info.version,
                id: i64::from(info.id),
                schema_type: info.schema_type,
                schema: text,
                references: references(&info.references),
            })
        })
        .await
}

/// The decision for a registry write on the subject `subject` names, then the name judged.
fn decide_subject(
    service: &Service, caller: &Caller, cluster: &str, privilege: Privilege, subject: Arg<String>,
) -> Result<(Granted, String), ApiError> {
    let named = subject.given().cloned().unwrap_or_default();
    let granted =
        service.decide(caller, cluster, Action::new(privilege, Resource::Subject(named)))?;
    let name = subject_name(subject)?;
    Ok((granted, name))
}

/// Reads one subject afresh into the catalog after a write; a failed read leaves the catalog to
/// its next refresh.
async fn refresh_subject(granted: &Granted, registry: &Registry, name: &str) {
    match registry.subject_summary(name).await {
        Ok(fresh) => granted.entry.apply_subject(name, fresh),
        Err(e) => tracing::warn!(error = %e.message, "the subject was not read back"),
    }
}

mod changes;
mod register;

pub use self::changes::{delete_schema, set_compatibility};
pub use self::register::register_schema;

// The server functions this capability answers.
serves!(app::api::Subject, |s, c, a| subject(&s, &c, &a.cluster, a.subject));
serves!(app::api::Schema, |s, c, a| schema(&s, &c, &a.cluster, a.subject, a.version));
serves!(app::api::RegisterSchema, |s, c, a| register_schema(&s, &c, a.args));
serves!(app::api::SetCompatibility, |s, c, a| set_compatibility(&s, &c, a.args));
serves!(app::api::DeleteSchema, |s, c, a| delete_schema(&s, &c, a.args));
