//! What klens reads from the registry: schemas by id and by version, subjects and their
//! versions, levels, soft-deleted versions and who references a version.

use super::*;

impl Registry {
    /// The schema registered under `id` and everything it references; `Ok(None)` when the
    /// registry has no such id. A reference whose subject `readable` refuses answers as one
    /// the registry lacks.
    pub async fn schema_by_id(
        &self, id: u32, readable: Readable<'_>,
    ) -> Result<Option<SchemaText>, RegistryError> {
        let Some(top) = self.get::<Registered>(&["schemas", "ids", &id.to_string()]).await? else {
            return Ok(None);
        };
        Ok(Some(self.with_references(top, &format!("schema {id}"), readable).await?))
    }

    /// One version of `subject` (`None`: the newest) with everything it references; `Ok(None)`
    /// when the registry has no such subject or version. A reference whose subject `readable`
    /// refuses answers as one the registry lacks.
    pub async fn subject_version(
        &self, subject: &str, version: Option<i32>, readable: Readable<'_>,
    ) -> Result<Option<SubjectVersion>, RegistryError> {
        let Some(top) = self.version(subject, version).await? else {
            return Ok(None);
        };
        let what = format!(
            "{subject} version {}",
            version.map_or_else(|| "latest".to_string(), |v| v.to_string())
        );
        let (Some(version), Some(id)) = (top.version, top.id) else {
            return Err(RegistryError::new(format!(
                "registry: {what} came without its version or id"
            )));
        };
        let schema = self.with_references(top, &what, readable).await?;
        Ok(Some(SubjectVersion { version, id, schema }))
    }

    /// A subject's versions (each one's id, type and references), its own level and the global
    /// one; `Ok(None)` when the registry has no such subject.
    pub async fn subject_info(&self, subject: &str) -> Result<Option<SubjectInfo>, RegistryError> {
        let Some(mut numbers) = self.get::<Vec<i32>>(&["subjects", subject, "versions"]).await?
        else {
            return Ok(None);
        };
        numbers.sort_unstable();
        let left_out = numbers.len().saturating_sub(MAX_VERSIONS);
        let reads = stream::iter(numbers.into_iter().skip(left_out).map(|number| async move {
            let found = self.version(subject, Some(number)).await?;
            Ok::<_, RegistryError>(found.map(|r| r.info(Some(number)).0))
        }))
        .buffered(PARALLEL)
        .collect::<Vec<_>>()
        .await;
        let mut versions = Vec::new();
        for read in reads {
            // A version deleted between the two reads is left out.
            versions.extend(read?);
        }
        let (compatibility, global_compatibility) = self.levels(subject).await?;
        Ok(Some(SubjectInfo {
            versions,
            versions_left_out: left_out,
            compatibility,
            global_compatibility,
        }))
    }

    /// One version of `subject` as registered, references named but not followed; `Ok(None)`
    /// when the registry has no such subject or version.
    pub async fn version_text(
        &self, subject: &str, version: Option<i32>,
    ) -> Result<Option<(VersionInfo, String)>, RegistryError> {
        Ok(self.version(subject, version).await?.map(|r| r.info(version)))
    }

    /// One version of `subject` as the registry answers it (`None`: the newest).
    pub(super) async fn version(
        &self, subject: &str, version: Option<i32>,
    ) -> Result<Option<Registered>, RegistryError> {
        let number = version.map_or_else(|| "latest".to_string(), |v| v.to_string());
        self.get(&["subjects", subject, "versions", &number]).await
    }

    /// Whether `subject` holds version `version`.
    pub async fn has_version(&self, subject: &str, version: i64) -> Result<bool, RegistryError> {
        let number = version.to_string();
        Ok(self
            .get::<serde_json::Value>(&["subjects", subject, "versions", &number])
            .await?
            .is_some())
    }

    /// The subjects whose versions hold the schema `id`, soft-deleted ones included; empty when
    /// the registry has no such id.
    pub async fn subjects_of_id(&self, id: u32) -> Result<Vec<String>, RegistryError> {
        #[derive(Deserialize)]
        struct Held {
            subject: String,
        }
        let held: Vec<Held> = self
            .get_with(&["schemas", "ids", &id.to_string(), "versions"], &[("deleted", "true")])
            .await?
            .unwrap_or_default();
        let mut subjects: Vec<String> = held.into_iter().map(|h| h.subject).collect();
        subjects.dedup();
        Ok(subjects)
    }

    /// A registered schema with the texts of the schemas it references, references of
    /// references included; `what` names it in errors. Each reference, at every depth, is read
    /// only when `readable` takes its subject, else it answers as one the registry lacks.
    pub(super) async fn with_references(
        &self, top: Registered, what: &str, readable: Readable<'_>,
    ) -> Result<SchemaText, RegistryError> {
        let mut references = Vec::new();
        let mut pending: Vec<(Reference, usize)> =
            top.references.into_iter().map(|r| (r, 1)).collect();
        while let Some((reference, depth)) = pending.pop() {
            if depth > MAX_REFERENCE_DEPTH || references.iter().any(|(n, _)| *n == reference.name) {
                continue;
            }
            if references.len() >= MAX_REFERENCES {
                return Err(RegistryError::new(format!(
                    "{what} references more than {MAX_REFERENCES} schemas; klens does not \
                     read it"
                )));
            }
            let version = reference.version.to_string();
            let lacking = || RegistryError {
                refused: false,
                status: Some(404),
                message: format!(
                    "{what} references {} version {version}, which the registry lacks",
                    reference.subject
                ),
            };
            if !readable(&reference.subject) {
                return Err(lacking());
            }
            let found = self
                .get::<Registered>(&["subjects", &reference.subject, "versions", &version])
                .await?
                .ok_or_else(lacking)?;
            pending.extend(found.references.into_iter().map(|r| (r, depth + 1)));
            references.push((reference.name, found.schema));
        }
        Ok(SchemaText { schema: top.schema, schema_type: kind(top.schema_type), references })
    }

    /// Every subject with its versions, its newest version's id and type, and its own
    /// compatibility level, plus the global level.
    pub async fn subjects(&self) -> Result<Subjects, String> {
        let names: Vec<String> = self.get(&["subjects"]).await?.unwrap_or_default();
        let global = self.get::<Compatibility>(&["config"]).await?.and_then(|c| c.level);
        let reads = stream::iter(names.into_iter().map(|name| async move {
            // A name no URL can carry as it is was not registered through klens: it is listed,
            // but never asked about (and never read as another path).
            if rewritten_by_url(&name) {
                return Ok(Subject {
                    name,
                    versions: Vec::new(),
                    latest: None,
                    compatibility: None,
                });
            }
            let summary = self.subject_summary(&name).await?;
            Ok::<_, RegistryError>(summary.unwrap_or(Subject {
                name,
                versions: Vec::new(),
                latest: None,
                compatibility: None,
            }))
        }))
        .buffer_unordered(PARALLEL)
        .collect::<Vec<_>>()
        .await;
        let mut subjects = reads.into_iter().collect::<Result<Vec<_>, _>>()?;
        subjects.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Subjects { global_compatibility: global, subjects })
    }

    /// One subject as the catalog lists it; `Ok(None)` when the registry has no such subject.
    pub async fn subject_summary(&self, name: &str) -> Result<Option<Subject>, RegistryError> {
        let Some(versions) = self.get::<Vec<i32>>(&["subjects", name, "versions"]).await? else {
            return Ok(None);
        };
        let latest = self
            .get::<Version>(&["subjects", name, "versions", "latest"])
            .await?
            .map(|v| (v.version, v.id, kind(v.schema_type)));
        let compatibility = self.own_level(name).await?;
        Ok(Some(Subject { name: name.to_string(), versions, latest, compatibility }))
    }

    /// The subject's own compatibility level (`None`: it sets none) and the registry's global
    /// one.
    pub async fn levels(
        &self, subject: &str,
    ) -> Result<(Option<String>, Option<String>), RegistryError> {
        let own = self.own_level(subject).await?;
        Ok((own, self.global_level().await?))
    }

    /// The registry's global compatibility level.
    pub async fn global_level(&self) -> Result<Option<String>, RegistryError> {
        Ok(self.get::<Compatibility>(&["config"]).await?.and_then(|c| c.level))
    }

    /// The subject's own compatibility level; `None` when the global one applies. Confluent's
    /// registry answers 404 for a subject without a level of its own. Apicurio answers NONE,
    /// and the level that applies only when asked to fall back to the global one: a NONE that
    /// differs from that fallback is no level of the subject's own.
    pub(super) async fn own_level(&self, subject: &str) -> Result<Option<String>, RegistryError> {
        let plain = self.get::<Compatibility>(&["config", subject]).await?.and_then(|c| c.level);
        if plain.as_deref() != Some("NONE") {
            return Ok(plain);
        }
        let fallback = self
            .get_with::<Compatibility>(&["config", subject], &[("defaultToGlobal", "true")])
            .await?
            .and_then(|c| c.level);
        Ok(if fallback == plain { plain } else { None })
    }

    /// The numbers of the soft-deleted versions of `subject`, oldest first (at most
    /// [`MAX_VERSIONS`], the newest).
    pub async fn deleted_versions(&self, subject: &str) -> Result<Vec<i32>, RegistryError> {
        let all: Vec<i32> = self
            .get_with(&["subjects", subject, "versions"], &[("deleted", "true")])
            .await?
            .unwrap_or_default();
        let live: Vec<i32> =
            self.get(&["subjects", subject, "versions"]).await?.unwrap_or_default();
        let live: std::collections::HashSet<i32> = live.into_iter().collect();
        let mut deleted: Vec<i32> = all.into_iter().filter(|v| !live.contains(v)).collect();
        deleted.sort_unstable();
        let skip = deleted.len().saturating_sub(MAX_VERSIONS);
        Ok(deleted.split_off(skip))
    }

    /// The subjects and versions whose schemas reference `version` of `subject`, soft-deleted
    /// ones included (those of at most [`MAX_USERS_NAMED`] schemas).
    pub async fn referenced_by(
        &self, subject: &str, version: i32,
    ) -> Result<Vec<(String, i32)>, RegistryError> {
        let number = version.to_string();
        let ids: Vec<u32> = self
            .get_with(
                &["subjects", subject, "versions", &number, "referencedby"],
                &[("deleted", "true")],
            )
            .await?
            .unwrap_or_default();
        #[derive(Deserialize)]
        struct Use {
            subject: String,
            version: i32,
        }
        let mut users = Vec::new();
        for id in ids.into_iter().take(MAX_USERS_NAMED) {
            let found: Vec<Use> = self
                .get_with(&["schemas", "ids", &id.to_string(), "versions"], &[("deleted", "true")])
                .await?
                .unwrap_or_default();
            users.extend(found.into_iter().map(|u| (u.subject, u.version)));
        }
        users.sort();
        users.dedup();
        Ok(users)
    }
}
