//! A subject's level, and deleting a version or a subject (soft, then permanent).

use super::*;

pub async fn set_compatibility(
    service: &Service, caller: &Caller, args: SetCompatibilityArgs,
) -> Result<CompatibilitySet, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::SetCompatibility, &args, &[]);
    service.write_on(caller, attempt, |_| None, |cluster, privilege| decide_subject(service, caller, cluster, privilege, args.subject), |mut granted, name| async move {
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
        })
        .await
}

/// The most versions one deletion checks for references.
pub(super) const MAX_DELETED_AT_ONCE: usize = 200;

pub async fn delete_schema(
    service: &Service, caller: &Caller, args: DeleteSchemaArgs,
) -> Result<SchemaDeleted, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::DeleteSchemas, &args, &[]);
    service.write_on(caller, attempt, |_| None, |cluster, privilege| decide_subject(service, caller, cluster, privilege, args.subject), |mut granted, name| async move {
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
                    return Err(ApiError::not_found(format!("Subject \"{name}\" has no version {v}."),
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
        })
        .await
}
