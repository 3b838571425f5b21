//! Registering a schema under a subject, with a dry run that asks the registry's verdict and
//! reads the subject's topic's newest records with the proposed schema.

use super::*;

/// The largest schema text klens registers.
pub(super) const MAX_SCHEMA: usize = 1024 * 1024;

/// The most references one proposed schema may name.
pub(super) const MAX_PROPOSED_REFERENCES: usize = 100;

/// A proposed schema as sent, judged: a text within bounds, a known type, references that
/// name a subject and a version.
pub(super) fn proposal(args: &RegisterSchemaArgs) -> Result<Proposal, ApiError> {
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
        return Err(ApiError::bad_request("type", "A schema's type is AVRO, PROTOBUF or JSON."));
    }
    let given = args.references.clone().optional("references")?.unwrap_or_default();
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
    Ok(Proposal { schema, schema_type, references })
}

pub async fn register_schema(
    service: &Service, caller: &Caller, args: RegisterSchemaArgs,
) -> Result<SchemaRegistered, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::RegisterSchemas, &args, &["schema"])
        .with("schema_length", args.schema.given().map_or(0, String::len));
    let subject = args.subject.clone();
    service
        .write_on(
            caller,
            attempt,
            |_| None,
            |cluster, privilege| decide_subject(service, caller, cluster, privilege, subject),
            |mut granted, name| async move {
                let proposal = proposal(&args)?;
                let dry_run = args.dry_run.clone().optional("dry_run")?.unwrap_or(false);
                // A dry run reads the topic's newest records: it counts among the expensive reads.
                let _running = dry_run.then(|| service.reads.admit(caller)).transpose()?;
                let registry = registry_of(&granted)?;
                // A reference reads the referenced subject's schema: one the caller may not read
                // answers as one the registry lacks, before the registry is asked about it.
                for (i, reference) in proposal.references.iter().enumerate() {
                    let readable =
                        reads_subject(service, caller, &args.cluster, &reference.subject)
                            && registry
                                .has_version(&reference.subject, reference.version)
                                .await
                                .map_err(registry_error)?;
                    if !readable {
                        return Err(no_reference(i, reference));
                    }
                }
                // The schema must parse, with the schemas it references, before the registry sees it;
                // a reference of a reference the caller may not read answers as one it lacks.
                let readable = |s: &str| reads_subject(service, caller, &args.cluster, s);
                let text = registry.proposal_text(&proposal, &readable).await.map_err(|e| {
                    match e.status {
                        // A reference to a schema the registry lacks is an argument that is wrong.
                        Some(404) => ApiError::bad_request("references", e.message),
                        _ => registry_error(e),
                    }
                })?;
                let proposed =
                    Proposed::new(&text).map_err(|e| ApiError::bad_request("schema", e))?;
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
                let summary = registry.subject_summary(&name).await.map_err(registry_error)?;
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
            },
        )
        .await
}

/// How the newest records of the topic `subject` names read with `proposed`; `None` when the
/// subject names no topic of the cluster the caller sees. The check reads records, so it runs
/// only for a caller the one decision allows RECORDS on that topic, and not where that part of
/// the records is masked for them: a schema's constraints (a `const`, a `pattern`) would tell
/// values piece by piece. Otherwise the answer says why it was skipped.
pub(super) async fn records_check(
    service: &Service, caller: &Caller, granted: &Granted, subject: &str, proposed: &Proposed,
) -> Option<RecordsCheck> {
    let cluster = &granted.entry.name;
    let access = service.access(caller, cluster).ok()?;
    let (topic, part) =
        [("-key", "key"), ("-value", "value")].into_iter().find_map(|(suffix, part)| {
            let topic = subject.strip_suffix(suffix)?;
            let listed = granted.entry.topic_metadata(topic).ok().flatten()?;
            // A topic a scoped catalog hides is one the cluster does not have.
            access.sees(&Resource::topic(&listed.name)).then_some((listed, part))
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
    let loaded =
        schemas.load(records.iter().filter_map(|r| schemas.wanted(bytes(r).as_deref()))).await;
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
