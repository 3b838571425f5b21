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

use super::{Granted, Service};
use crate::audit::Attempt;
use crate::auth::Caller;
use crate::records::proposed::{Proposed, Reading};
use crate::registry::{Proposal, Reference, Registry, RegistryError, VersionInfo};

/// The error of a registry that did not do what was asked: `REFUSED` when it refused klens's
/// credentials; for its own answers `NOT_FOUND` (404), `ADMIN` 409 (a conflict: an
/// incompatible schema, a version not soft-deleted first) or `ADMIN` 422 (400 or 422: a request
/// it rejects); `CLIENT` for any other answer, or when it could not be reached or answered what
/// klens does not read.
pub fn registry_error(e: RegistryError) -> ApiError {
    let (code, flavor) = match (e.refused, e.status) {
        (true, _) => (ErrorCode::Refused, Flavor::Plain),
        (false, Some(404)) => (ErrorCode::NotFound, Flavor::Plain),
        (false, Some(409)) => (ErrorCode::Admin, Flavor::ConflictOrTimeout),
        (false, Some(400 | 422)) => (ErrorCode::Admin, Flavor::Plain),
        // Anything else (a method it refuses, too many requests, a time-out) is the registry
        // not doing its part, not a verdict on the request.
        (false, _) => (ErrorCode::Client, Flavor::Plain),
    };
    let mut error = ApiError::new(code, e.message);
    error.flavor = flavor;
    error
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
            Action::new(
                Privilege::SchemaText,
                Resource::Subject(subject.to_string()),
            ),
        )
        .is_ok()
}

/// A reference to a version the registry lacks, or that the caller may not read: the same
/// answer for both.
fn no_reference(index: usize, reference: &Reference) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!(
            "Reference {index} (\"{}\"): the registry has no version {} of subject \"{}\".",
            reference.name, reference.version, reference.subject
        ),
    )
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
    // Under a scoped catalog a subject the caller may not see answers as one that is not there.
    let access = service.access(caller, cluster)?;
    if !access.sees(&Resource::Subject(name.clone())) {
        return Err(no_subject(&name));
    }
    let deleted_versions = registry
        .deleted_versions(&name)
        .await
        .map_err(registry_error)?;
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
            access
                .sees(&Resource::topic(&listed.name))
                .then(|| (listed.name, part.to_string()))
        })
        .collect();
    Ok(SubjectDetail {
        subject: name,
        versions: info.versions.iter().map(version).collect(),
        versions_left_out: info.versions_left_out as u64,
        deleted_versions,
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
    let args = serde_json::json!({ "subject": &subject, "version": &version });
    let read = schema_read(service, caller, cluster, subject.clone(), version.clone());
    service
        .audited_read(caller, cluster, Privilege::SchemaText, &args, read)
        .await
}

async fn schema_read(
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

/// The largest schema text klens registers.
const MAX_SCHEMA: usize = 1024 * 1024;
/// The most references one proposed schema may name.
const MAX_PROPOSED_REFERENCES: usize = 100;

/// The decision for a registry write on the subject `subject` names, then the name judged.
fn decide_subject(
    service: &Service,
    caller: &Caller,
    cluster: &str,
    privilege: Privilege,
    subject: Arg<String>,
) -> Result<(Granted, String), ApiError> {
    let named = subject.given().cloned().unwrap_or_default();
    let granted = service.decide(
        caller,
        cluster,
        Action::new(privilege, Resource::Subject(named)),
    )?;
    let name = subject_name(subject)?;
    Ok((granted, name))
}

/// A proposed schema as sent, judged: a text within bounds, a known type, references that
/// name a subject and a version.
fn proposal(args: &RegisterSchemaArgs) -> Result<Proposal, ApiError> {
    let schema = args.schema.clone().required("schema")?;
    if schema.trim().is_empty() || schema.len() > MAX_SCHEMA {
        return Err(ApiError::bad_request(
            "schema",
            format!("A schema is a text of 1 to {MAX_SCHEMA} bytes."),
        ));
    }
    let schema_type = args
        .schema_type
        .clone()
        .optional("type")?
        .unwrap_or_else(|| "AVRO".to_string())
        .to_ascii_uppercase();
    if !["AVRO", "PROTOBUF", "JSON"].contains(&schema_type.as_str()) {
        return Err(ApiError::bad_request(
            "type",
            "A schema's type is AVRO, PROTOBUF or JSON.",
        ));
    }
    let given = args
        .references
        .clone()
        .optional("references")?
        .unwrap_or_default();
    if given.len() > MAX_PROPOSED_REFERENCES {
        return Err(ApiError::bad_request(
            "references",
            format!("A schema names at most {MAX_PROPOSED_REFERENCES} references."),
        ));
    }
    let mut references = Vec::new();
    for (i, r) in given.into_iter().enumerate() {
        if r.name.is_empty() || r.subject.is_empty() || r.version < 1 {
            return Err(ApiError::bad_request(
                &format!("references/{i}"),
                "A reference has a name, a subject and a version from 1.",
            ));
        }
        check_subject(&r.subject, &format!("references/{i}"))?;
        references.push(Reference {
            name: r.name,
            subject: r.subject,
            version: i64::from(r.version),
        });
    }
    Ok(Proposal {
        schema,
        schema_type,
        references,
    })
}

pub async fn register_schema(
    service: &Service,
    caller: &Caller,
    args: RegisterSchemaArgs,
) -> Result<SchemaRegistered, ApiError> {
    let attempt = Attempt::of(
        &args.cluster,
        Privilege::RegisterSchemas,
        &args,
        &["schema"],
    )
    .with("schema_length", args.schema.given().map_or(0, String::len));
    let write = register_schema_now(service, caller, args);
    service.audited(caller, attempt, |_| None, write).await
}

async fn register_schema_now(
    service: &Service,
    caller: &Caller,
    args: RegisterSchemaArgs,
) -> Result<SchemaRegistered, ApiError> {
    let (mut granted, name) = decide_subject(
        service,
        caller,
        &args.cluster,
        Privilege::RegisterSchemas,
        args.subject.clone(),
    )?;
    let proposal = proposal(&args)?;
    let dry_run = args.dry_run.clone().optional("dry_run")?.unwrap_or(false);
    // A dry run reads the topic's newest records: it counts among the expensive reads.
    let _running = dry_run.then(|| service.reads.admit(caller)).transpose()?;
    let registry = registry_of(&granted)?;
    // A reference reads the referenced subject's schema: one the caller may not read answers
    // as one the registry lacks, before the registry is asked about it.
    for (i, reference) in proposal.references.iter().enumerate() {
        let readable = reads_subject(service, caller, &args.cluster, &reference.subject)
            && registry
                .has_version(&reference.subject, reference.version)
                .await
                .map_err(registry_error)?;
        if !readable {
            return Err(no_reference(i, reference));
        }
    }
    // The schema must parse, with the schemas it references, before the registry sees it.
    let text = registry
        .proposal_text(&proposal)
        .await
        .map_err(|e| match e.status {
            // A reference to a schema the registry lacks is an argument that is wrong.
            Some(404) => ApiError::bad_request("references", e.message),
            _ => registry_error(e),
        })?;
    let proposed = Proposed::new(&text).map_err(|e| ApiError::bad_request("schema", e))?;
    let mut answer = SchemaRegistered {
        cluster: args.cluster.clone(),
        subject: name.clone(),
        dry_run,
        schema_type: proposal.schema_type.clone(),
        compatibility: None,
        compatible: None,
        messages: Vec::new(),
        existing: None,
        records: None,
        version: None,
        id: None,
    };
    service.open(&mut granted.grant).await?;
    if !dry_run {
        let (version, id) = registry
            .register(&granted.grant, &name, &proposal)
            .await
            .map_err(registry_error)?;
        answer.version = Some(version);
        answer.id = Some(i64::from(id));
        refresh_subject(&granted, &registry, &name).await;
        return Ok(answer);
    }
    // One read of the subject gives its versions and its own level.
    let summary = registry
        .subject_summary(&name)
        .await
        .map_err(registry_error)?;
    let own = summary.as_ref().and_then(|s| s.compatibility.clone());
    answer.compatibility = match own {
        Some(own) => Some(own),
        None => registry.global_level().await.map_err(registry_error)?,
    };
    // A subject without versions has nothing to be compatible with. Confluent's registry
    // answers 404 then, Apicurio "compatible": klens does not ask.
    let versions = summary.map_or(0, |s| s.versions.len());
    let verdict = if versions == 0 {
        None
    } else {
        registry
            .compatibility(&granted.grant, &name, &proposal)
            .await
            .map_err(registry_error)?
    };
    if let Some(verdict) = verdict {
        answer.compatible = Some(verdict.compatible);
        answer.messages = verdict.messages;
    }
    answer.existing = registry
        .lookup(&granted.grant, &name, &proposal)
        .await
        .map_err(registry_error)?
        .map(|(version, id)| SchemaVersionRef {
            version,
            id: i64::from(id),
            schema_type: proposal.schema_type.clone(),
        });
    answer.records = records_check(service, caller, &granted, &name, &proposed).await;
    Ok(answer)
}

/// How the newest records of the topic `subject` names read with `proposed`; `None` when the
/// subject names no topic of the cluster the caller sees. The check reads records, so it runs
/// only for a caller the one decision allows RECORDS on that topic, and not where that part of
/// the records is masked for them: a schema's constraints (a `const`, a `pattern`) would tell
/// values piece by piece. Otherwise the answer says why it was skipped.
async fn records_check(
    service: &Service,
    caller: &Caller,
    granted: &Granted,
    subject: &str,
    proposed: &Proposed,
) -> Option<RecordsCheck> {
    let cluster = &granted.entry.name;
    let access = service.access(caller, cluster).ok()?;
    let (topic, part) = [("-key", "key"), ("-value", "value")]
        .into_iter()
        .find_map(|(suffix, part)| {
            let topic = subject.strip_suffix(suffix)?;
            let listed = granted.entry.topic_metadata(topic).ok().flatten()?;
            // A topic a scoped catalog hides is one the cluster does not have.
            access
                .sees(&Resource::topic(&listed.name))
                .then_some((listed, part))
        })?;
    let mut check = RecordsCheck {
        topic: topic.name.clone(),
        part: part.to_string(),
        ..RecordsCheck::default()
    };
    let Ok(read) = service.decide_topic(caller, cluster, Privilege::Records, Some(&topic.name))
    else {
        check.skipped = Some(format!(
            "Checking a schema against the records of topic \"{}\" needs the RECORDS privilege \
             on the topic.",
            topic.name
        ));
        return Some(check);
    };
    let masked = service
        .mask(caller, cluster, &topic.name)
        .is_some_and(|m| part == "value" || m.masks_keys());
    if masked {
        check.skipped = Some(format!(
            "The {part}s of topic \"{}\" are masked for you: checking a schema against them \
             needs the UNMASK privilege on the topic.",
            topic.name
        ));
        return Some(check);
    }
    let records = match crate::records::newest_for_check(&read.grant, &read.link(), &topic).await {
        Ok(records) => records,
        Err(e) => {
            check.error = Some(e.message);
            return Some(check);
        }
    };
    let bytes = |r: &crate::records::RawRecord| {
        if part == "key" {
            r.key.clone()
        } else {
            r.value.clone()
        }
    };
    let schemas = service.schemas(cluster);
    let loaded = schemas
        .load(
            records
                .iter()
                .filter_map(|r| schemas.wanted(bytes(r).as_deref())),
        )
        .await;
    for record in &records {
        check.read += 1;
        let at = |reason: String| RecordAt {
            partition: record.partition,
            offset: record.offset,
            reason,
        };
        match proposed.read(&loaded, bytes(record).as_deref()) {
            Reading::Fits => check.fit += 1,
            Reading::Fails(why) => {
                check.failed += 1;
                check.first_failure.get_or_insert_with(|| at(why));
            }
            Reading::Unchecked(why) => {
                check.unchecked += 1;
                check.first_unchecked.get_or_insert_with(|| at(why));
            }
        }
    }
    Some(check)
}

/// Reads one subject afresh into the catalog after a write; a failed read leaves the catalog to
/// its next refresh.
async fn refresh_subject(granted: &Granted, registry: &Registry, name: &str) {
    match registry.subject_summary(name).await {
        Ok(fresh) => granted.entry.apply_subject(name, fresh),
        Err(e) => tracing::warn!(error = %e.message, "the subject was not read back"),
    }
}

pub async fn set_compatibility(
    service: &Service,
    caller: &Caller,
    args: SetCompatibilityArgs,
) -> Result<CompatibilitySet, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::SetCompatibility, &args, &[]);
    let write = set_compatibility_now(service, caller, args);
    service.audited(caller, attempt, |_| None, write).await
}

async fn set_compatibility_now(
    service: &Service,
    caller: &Caller,
    args: SetCompatibilityArgs,
) -> Result<CompatibilitySet, ApiError> {
    let (mut granted, name) = decide_subject(
        service,
        caller,
        &args.cluster,
        Privilege::SetCompatibility,
        args.subject,
    )?;
    let wanted = args
        .compatibility
        .required("compatibility")?
        .to_ascii_uppercase();
    let level = match wanted.as_str() {
        "GLOBAL" => None,
        other if COMPATIBILITY_LEVELS.contains(&other) => Some(other.to_string()),
        _ => {
            return Err(ApiError::bad_request(
                "compatibility",
                format!(
                "A compatibility level is one of {}, or GLOBAL for the registry's global level.",
                COMPATIBILITY_LEVELS.join(", ")
            ),
            ))
        }
    };
    let dry_run = args.dry_run.optional("dry_run")?.unwrap_or(false);
    let registry = registry_of(&granted)?;
    let own = registry
        .subject_summary(&name)
        .await
        .map_err(registry_error)?
        .ok_or_else(|| no_subject(&name))?
        .compatibility;
    let global = registry.global_level().await.map_err(registry_error)?;
    let mut answer = CompatibilitySet {
        cluster: args.cluster,
        subject: name.clone(),
        dry_run,
        before_own: own.is_some(),
        before: own.or_else(|| global.clone()),
        after_own: level.is_some(),
        after: level.clone().or_else(|| global.clone()),
    };
    if dry_run {
        return Ok(answer);
    }
    service.open(&mut granted.grant).await?;
    registry
        .set_level(&granted.grant, &name, level.as_deref())
        .await
        .map_err(registry_error)?;
    // The level read back from the registry, which also goes into the catalog.
    let fresh = registry
        .subject_summary(&name)
        .await
        .map_err(registry_error)?;
    let own = fresh.as_ref().and_then(|s| s.compatibility.clone());
    answer.after_own = own.is_some();
    answer.after = own.or(global);
    granted.entry.apply_subject(&name, fresh);
    Ok(answer)
}

/// The most versions one deletion checks for references.
const MAX_DELETED_AT_ONCE: usize = 200;

pub async fn delete_schema(
    service: &Service,
    caller: &Caller,
    args: DeleteSchemaArgs,
) -> Result<SchemaDeleted, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::DeleteSchemas, &args, &[]);
    let write = delete_schema_now(service, caller, args);
    service.audited(caller, attempt, |_| None, write).await
}

async fn delete_schema_now(
    service: &Service,
    caller: &Caller,
    args: DeleteSchemaArgs,
) -> Result<SchemaDeleted, ApiError> {
    let (mut granted, name) = decide_subject(
        service,
        caller,
        &args.cluster,
        Privilege::DeleteSchemas,
        args.subject,
    )?;
    let version = args.version.optional("version")?;
    if version.is_some_and(|v| v < 1) {
        return Err(ApiError::bad_request(
            "version",
            "A version is a number from 1 (missing: the whole subject).",
        ));
    }
    let permanent = args.permanent.optional("permanent")?.unwrap_or(false);
    let dry_run = args.dry_run.optional("dry_run")?.unwrap_or(false);
    let registry = registry_of(&granted)?;
    let live: Vec<i32> = registry
        .subject_summary(&name)
        .await
        .map_err(registry_error)?
        .map(|s| s.versions)
        .unwrap_or_default();
    let soft = registry
        .deleted_versions(&name)
        .await
        .map_err(registry_error)?;
    if live.is_empty() && soft.is_empty() {
        return Err(no_subject(&name));
    }
    let conflict = |message: String| {
        let mut e = ApiError::new(ErrorCode::Admin, message);
        e.flavor = Flavor::ConflictOrTimeout;
        e
    };
    let targets: Vec<i32> = match (version, permanent) {
        (Some(v), false) if live.contains(&v) => vec![v],
        (Some(v), false) if soft.contains(&v) => {
            return Err(conflict(format!(
                "Version {v} of \"{name}\" is soft-deleted already; delete it permanently to remove it for good."
            )))
        }
        (Some(v), true) if soft.contains(&v) => vec![v],
        (Some(v), true) if live.contains(&v) => {
            return Err(conflict(format!(
                "Version {v} of \"{name}\" must be soft-deleted before it is deleted permanently."
            )))
        }
        (Some(v), _) => {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("Subject \"{name}\" has no version {v}."),
            ))
        }
        (None, false) if !live.is_empty() => live.clone(),
        (None, false) => {
            return Err(conflict(format!(
                "Every version of \"{name}\" is soft-deleted already; delete the subject permanently to remove it for good."
            )))
        }
        (None, true) if live.is_empty() => soft.clone(),
        (None, true) => {
            return Err(conflict(format!(
                "\"{name}\" must be soft-deleted before it is deleted permanently."
            )))
        }
    };
    // A version another schema uses stays: the registry would refuse it, without the names.
    let mut users = Vec::new();
    for v in targets.iter().take(MAX_DELETED_AT_ONCE) {
        for (subject, used_in) in registry
            .referenced_by(&name, *v)
            .await
            .map_err(registry_error)?
        {
            if subject != name || !targets.contains(&used_in) {
                users.push(format!("{subject} version {used_in} (uses version {v})"));
            }
        }
        // The first version others use is enough to refuse, and bounds the registry calls.
        if !users.is_empty() {
            break;
        }
    }
    if !users.is_empty() {
        return Err(conflict(format!(
            "\"{name}\" is referenced by {}; delete or change those first.",
            users.join(", ")
        )));
    }
    let mut answer = SchemaDeleted {
        cluster: args.cluster,
        subject: name.clone(),
        dry_run,
        permanent,
        versions: targets,
    };
    if dry_run {
        return Ok(answer);
    }
    service.open(&mut granted.grant).await?;
    let mut deleted = registry
        .delete(&granted.grant, &name, version, permanent)
        .await
        .map_err(registry_error)?;
    deleted.sort_unstable();
    answer.versions = deleted;
    refresh_subject(&granted, &registry, &name).await;
    Ok(answer)
}
