//! Schema subjects read live from the cluster's registry: a subject's versions, levels and
//! topics (catalog, no privilege), and one version's text (SCHEMA_TEXT on the subject).

use app::access::{Action, Resource};
use app::api::{Arg, SchemaDetail, SchemaReference, SubjectDetail, SubjectVersion};
use app::{ApiError, ErrorCode, Privilege};

use super::{Granted, Service};
use crate::auth::Caller;
use crate::registry::{Reference, Registry, RegistryError, VersionInfo};

/// The error of a registry that did not answer: `REFUSED` when it refused klens's credentials,
/// `CLIENT` otherwise.
pub fn registry_error(e: RegistryError) -> ApiError {
    let code = if e.refused {
        ErrorCode::Refused
    } else {
        ErrorCode::Client
    };
    ApiError::new(code, e.message)
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
    if name.is_empty() || name.len() > MAX_SUBJECT {
        return Err(ApiError::bad_request(
            "subject",
            format!("A subject name is 1 to {MAX_SUBJECT} bytes."),
        ));
    }
    Ok(name)
}

fn no_subject(subject: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!("The registry has no subject \"{subject}\"."),
    )
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
    service: &Service,
    caller: &Caller,
    cluster: &str,
    subject: Arg<String>,
) -> Result<SubjectDetail, ApiError> {
    let granted = service.decide(caller, cluster, Action::catalog())?;
    let name = subject_name(subject)?;
    let registry = registry_of(&granted)?;
    let info = registry
        .subject_info(&name)
        .await
        .map_err(registry_error)?
        .ok_or_else(|| no_subject(&name))?;
    // The topics this subject names by the default naming of Confluent's serializers.
    let topics = [("-key", "key"), ("-value", "value")]
        .into_iter()
        .filter_map(|(suffix, part)| {
            let topic = name.strip_suffix(suffix)?;
            let listed = granted.entry.topic_metadata(topic).ok().flatten()?;
            Some((listed.name, part.to_string()))
        })
        .collect();
    Ok(SubjectDetail {
        subject: name,
        versions: info.versions.iter().map(version).collect(),
        versions_left_out: info.versions_left_out as u64,
        compatibility_overridden: info.compatibility.is_some(),
        compatibility: info
            .compatibility
            .or_else(|| info.global_compatibility.clone()),
        global_compatibility: info.global_compatibility,
        topics,
    })
}

pub async fn schema(
    service: &Service,
    caller: &Caller,
    cluster: &str,
    subject: Arg<String>,
    version: Arg<i32>,
) -> Result<SchemaDetail, ApiError> {
    let named = subject.given().cloned().unwrap_or_default();
    let granted = service.decide(
        caller,
        cluster,
        Action::new(Privilege::SchemaText, Resource::Subject(named)),
    )?;
    let name = subject_name(subject)?;
    let number = version.optional("version")?;
    if number.is_some_and(|v| v < 1) {
        return Err(ApiError::bad_request(
            "version",
            "A version is a number from 1 (missing: the newest).",
        ));
    }
    let registry = registry_of(&granted)?;
    let (info, text) = registry
        .version_text(&name, number)
        .await
        .map_err(registry_error)?
        .ok_or_else(|| match number {
            Some(v) => ApiError::new(
                ErrorCode::NotFound,
                format!("Subject \"{name}\" has no version {v}."),
            ),
            None => no_subject(&name),
        })?;
    Ok(SchemaDetail {
        subject: name,
        version: info.version,
        id: i64::from(info.id),
        schema_type: info.schema_type,
        schema: text,
        references: references(&info.references),
    })
}
