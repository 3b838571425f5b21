//! A cluster's Schema Registry through its Confluent-compatible REST API: the catalog's view of
//! subjects (versions, ids, types, compatibility), and schemas with their references, for
//! decoding records and for encoding the records klens produces.

use std::time::Duration;

use app::access::Resource;
use app::Privilege;
use futures::stream::{self, StreamExt};
use reqwest::{Method, StatusCode, Url};
use serde::{Deserialize, Serialize};

use crate::auth::Grant;
use crate::config::{RegistryConfig, Secret};

const TIMEOUT: Duration = Duration::from_secs(10);
/// The largest answer klens reads from the registry; schemas and subject lists are far smaller.
const MAX_BODY: usize = 16 * 1024 * 1024;
/// The most schemas one schema may reference, all levels together.
const MAX_REFERENCES: usize = 256;
/// Subjects read at the same time during a refresh.
const PARALLEL: usize = 8;

pub struct Registry {
    http: reqwest::Client,
    base: Url,
    credentials: Option<(String, Secret)>,
}

/// One subject as the catalog shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subject {
    pub name: String,
    pub versions: Vec<i32>,
    /// (version, id, type) of the newest version.
    pub latest: Option<(i32, i64, String)>,
    /// The subject's own compatibility level, if it sets one.
    pub compatibility: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subjects {
    pub global_compatibility: Option<String>,
    pub subjects: Vec<Subject>,
}

/// A schema's text as registered, with the texts of the schemas it references (by the name it
/// imports them under), for decoding records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaText {
    pub schema: String,
    /// AVRO, PROTOBUF or JSON.
    pub schema_type: String,
    /// (import name, schema text), references of references included.
    pub references: Vec<(String, String)>,
}

/// Why the registry did not answer: it refused klens's credentials (`refused`), it answered
/// with an error of its own (`status`, its message in `message`), or it could not be reached or
/// answered something klens does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistryError {
    pub refused: bool,
    /// The HTTP status of the registry's own error answer (404, 409, 422, ...).
    pub status: Option<u16>,
    pub message: String,
}

impl RegistryError {
    fn new(message: String) -> RegistryError {
        RegistryError {
            refused: false,
            status: None,
            message,
        }
    }
}

/// The longest part of a registry's error message klens passes on.
const MAX_MESSAGE: usize = 2000;

/// The message of a registry's error answer (`{"error_code": .., "message": ..}`), else the
/// start of its body.
fn error_message(body: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Answer {
        message: Option<String>,
    }
    let text = match serde_json::from_slice::<Answer>(body) {
        Ok(Answer { message: Some(m) }) => m,
        _ => String::from_utf8_lossy(body).into_owned(),
    };
    let mut text: String = text.chars().filter(|c| !c.is_control()).collect();
    if text.len() > MAX_MESSAGE {
        let mut end = MAX_MESSAGE;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

impl From<RegistryError> for String {
    fn from(e: RegistryError) -> String {
        e.message
    }
}

/// One version of a subject: its number, its global id, and its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubjectVersion {
    pub version: i32,
    pub id: u32,
    pub schema: SchemaText,
}

#[derive(Deserialize)]
struct Registered {
    #[serde(default)]
    version: Option<i32>,
    #[serde(default)]
    id: Option<u32>,
    schema: String,
    #[serde(rename = "schemaType")]
    schema_type: Option<String>,
    #[serde(default)]
    references: Vec<Reference>,
}

impl Registered {
    /// The version without its text, `number` standing in for a version the answer lacks.
    fn info(self, number: Option<i32>) -> (VersionInfo, String) {
        let info = VersionInfo {
            version: self.version.or(number).unwrap_or_default(),
            id: self.id.unwrap_or_default(),
            schema_type: kind(self.schema_type),
            references: self.references,
        };
        (info, self.schema)
    }
}

/// A schema's type as the registry gives it; the registry leaves it out for Avro.
fn kind(schema_type: Option<String>) -> String {
    schema_type.unwrap_or_else(|| "AVRO".to_string())
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    pub name: String,
    pub subject: String,
    pub version: i64,
}

/// One version of a subject without its text: its number, id, type and references.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionInfo {
    pub version: i32,
    pub id: u32,
    pub schema_type: String,
    pub references: Vec<Reference>,
}

/// A subject: its versions (oldest first; at most [`MAX_VERSIONS`], the newest), its own
/// compatibility level and the registry's global one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubjectInfo {
    pub versions: Vec<VersionInfo>,
    /// Versions the registry has beyond those read.
    pub versions_left_out: usize,
    pub compatibility: Option<String>,
    pub global_compatibility: Option<String>,
}

/// The most referencing schemas klens names for one version.
pub const MAX_USERS_NAMED: usize = 20;

/// The most versions of one subject klens reads for its page, the newest.
pub const MAX_VERSIONS: usize = 200;

/// How deep references may nest before klens stops following them.
const MAX_REFERENCE_DEPTH: usize = 8;

#[derive(Deserialize)]
struct Version {
    version: i32,
    id: i64,
    #[serde(rename = "schemaType")]
    schema_type: Option<String>,
}

#[derive(Deserialize)]
struct Compatibility {
    #[serde(rename = "compatibilityLevel", alias = "compatibility")]
    level: Option<String>,
}

impl Registry {
    pub fn new(config: &RegistryConfig) -> Result<Registry, String> {
        let mut base =
            Url::parse(&config.url).map_err(|e| format!("the registry URL is not valid: {e}"))?;
        // Joining paths below needs the base to end in a slash.
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            // A redirect could carry the credentials, or klens's requests, somewhere else.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot create the registry client: {e}"))?;
        let credentials = match (&config.username, &config.password) {
            (Some(user), Some(password)) => Some((user.clone(), password.clone())),
            _ => None,
        };
        Ok(Registry {
            http,
            base,
            credentials,
        })
    }

    fn url(&self, segments: &[&str]) -> Result<Url, String> {
        // The service refuses such names with the argument's name, before any request; this is
        // the last guard against what the URL library itself would rewrite.
        if let Some(bad) = segments.iter().find(|s| rewritten_by_url(s)) {
            return Err(format!(
                "registry: {bad:?} cannot be a part of the registry's URL path"
            ));
        }
        let mut url = self.base.clone();
        {
            let mut path = url
                .path_segments_mut()
                .map_err(|_| "the registry URL cannot take a path".to_string())?;
            path.pop_if_empty();
            for segment in segments {
                // Each segment is percent-encoded (`/`, `\`, `%` too), so it stays one segment
                // once `rewritten_by_url` has kept out what the library would drop or join.
                path.push(segment);
            }
        }
        Ok(url)
    }

    /// GETs a JSON document; `Ok(None)` for 404.
    async fn get<T: for<'de> Deserialize<'de>>(
        &self,
        segments: &[&str],
    ) -> Result<Option<T>, RegistryError> {
        self.get_with(segments, &[]).await
    }

    /// GETs a JSON document with query arguments; `Ok(None)` for 404.
    async fn get_with<T: for<'de> Deserialize<'de>>(
        &self,
        segments: &[&str],
        query: &[(&str, &str)],
    ) -> Result<Option<T>, RegistryError> {
        match self.send(Method::GET, segments, query, None).await {
            Ok(found) => Ok(Some(found)),
            Err(e) if e.status == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Sends one request and reads its JSON answer; an error answer of the registry comes back
    /// with its status and message.
    async fn send<T: for<'de> Deserialize<'de>>(
        &self,
        method: Method,
        segments: &[&str],
        query: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Result<T, RegistryError> {
        let mut url = self.url(segments).map_err(RegistryError::new)?;
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        let mut request = self.http.request(method.clone(), url);
        if let Some((user, password)) = &self.credentials {
            request = request.basic_auth(user, Some(password.expose()));
        }
        if let Some(body) = body {
            request = request
                .header(
                    reqwest::header::CONTENT_TYPE,
                    "application/vnd.schemaregistry.v1+json",
                )
                .body(body);
        }
        let what = format!("{method} {}", segments.join("/"));
        let response = request
            .send()
            .await
            .map_err(|e| RegistryError::new(format!("registry: {what}: {}", e.without_url())))?;
        let status = response.status();
        if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return Err(RegistryError {
                refused: true,
                status: Some(status.as_u16()),
                message: format!("the registry refused klens's credentials: {what}: HTTP {status}"),
            });
        }
        let mut response = response;
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| RegistryError::new(format!("registry: {what}: {}", e.without_url())))?
        {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(RegistryError::new(format!(
                    "registry: {what}: the answer is over {} MiB",
                    MAX_BODY / (1024 * 1024)
                )));
            }
            body.extend_from_slice(&chunk);
        }
        if status.is_client_error() {
            return Err(RegistryError {
                refused: false,
                status: Some(status.as_u16()),
                message: error_message(&body),
            });
        }
        if !status.is_success() {
            return Err(RegistryError::new(format!(
                "registry: {what}: HTTP {status}: {}",
                error_message(&body)
            )));
        }
        serde_json::from_slice(&body).map_err(|e| {
            RegistryError::new(format!("registry: {what}: not the JSON expected: {e}"))
        })
    }

    /// The schema registered under `id` and everything it references; `Ok(None)` when the
    /// registry has no such id.
    pub async fn schema_by_id(&self, id: u32) -> Result<Option<SchemaText>, RegistryError> {
        let Some(top) = self
            .get::<Registered>(&["schemas", "ids", &id.to_string()])
            .await?
        else {
            return Ok(None);
        };
        Ok(Some(
            self.with_references(top, &format!("schema {id}")).await?,
        ))
    }

    /// One version of `subject` (`None`: the newest) with everything it references; `Ok(None)`
    /// when the registry has no such subject or version.
    pub async fn subject_version(
        &self,
        subject: &str,
        version: Option<i32>,
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
        let schema = self.with_references(top, &what).await?;
        Ok(Some(SubjectVersion {
            version,
            id,
            schema,
        }))
    }

    /// A subject's versions (each one's id, type and references), its own level and the global
    /// one; `Ok(None)` when the registry has no such subject.
    pub async fn subject_info(&self, subject: &str) -> Result<Option<SubjectInfo>, RegistryError> {
        let Some(mut numbers) = self
            .get::<Vec<i32>>(&["subjects", subject, "versions"])
            .await?
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
        &self,
        subject: &str,
        version: Option<i32>,
    ) -> Result<Option<(VersionInfo, String)>, RegistryError> {
        Ok(self
            .version(subject, version)
            .await?
            .map(|r| r.info(version)))
    }

    /// One version of `subject` as the registry answers it (`None`: the newest).
    async fn version(
        &self,
        subject: &str,
        version: Option<i32>,
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
            .get_with(
                &["schemas", "ids", &id.to_string(), "versions"],
                &[("deleted", "true")],
            )
            .await?
            .unwrap_or_default();
        let mut subjects: Vec<String> = held.into_iter().map(|h| h.subject).collect();
        subjects.dedup();
        Ok(subjects)
    }

    /// A registered schema with the texts of the schemas it references, references of
    /// references included; `what` names it in errors.
    async fn with_references(
        &self,
        top: Registered,
        what: &str,
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
            let found = self
                .get::<Registered>(&["subjects", &reference.subject, "versions", &version])
                .await?
                .ok_or_else(|| RegistryError {
                    refused: false,
                    status: Some(404),
                    message: format!(
                        "{what} references {} version {version}, which the registry lacks",
                        reference.subject
                    ),
                })?;
            pending.extend(found.references.into_iter().map(|r| (r, depth + 1)));
            references.push((reference.name, found.schema));
        }
        Ok(SchemaText {
            schema: top.schema,
            schema_type: kind(top.schema_type),
            references,
        })
    }

    /// Every subject with its versions, its newest version's id and type, and its own
    /// compatibility level, plus the global level.
    pub async fn subjects(&self) -> Result<Subjects, String> {
        let names: Vec<String> = self.get(&["subjects"]).await?.unwrap_or_default();
        let global = self
            .get::<Compatibility>(&["config"])
            .await?
            .and_then(|c| c.level);
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
        Ok(Subjects {
            global_compatibility: global,
            subjects,
        })
    }

    /// One subject as the catalog lists it; `Ok(None)` when the registry has no such subject.
    pub async fn subject_summary(&self, name: &str) -> Result<Option<Subject>, RegistryError> {
        let Some(versions) = self
            .get::<Vec<i32>>(&["subjects", name, "versions"])
            .await?
        else {
            return Ok(None);
        };
        let latest = self
            .get::<Version>(&["subjects", name, "versions", "latest"])
            .await?
            .map(|v| (v.version, v.id, kind(v.schema_type)));
        let compatibility = self.own_level(name).await?;
        Ok(Some(Subject {
            name: name.to_string(),
            versions,
            latest,
            compatibility,
        }))
    }

    /// The subject's own compatibility level (`None`: it sets none) and the registry's global
    /// one.
    pub async fn levels(
        &self,
        subject: &str,
    ) -> Result<(Option<String>, Option<String>), RegistryError> {
        let own = self.own_level(subject).await?;
        Ok((own, self.global_level().await?))
    }

    /// The registry's global compatibility level.
    pub async fn global_level(&self) -> Result<Option<String>, RegistryError> {
        Ok(self
            .get::<Compatibility>(&["config"])
            .await?
            .and_then(|c| c.level))
    }

    /// The subject's own compatibility level; `None` when the global one applies. Confluent's
    /// registry answers 404 for a subject without a level of its own. Apicurio answers NONE,
    /// and the level that applies only when asked to fall back to the global one: a NONE that
    /// differs from that fallback is no level of the subject's own.
    async fn own_level(&self, subject: &str) -> Result<Option<String>, RegistryError> {
        let plain = self
            .get::<Compatibility>(&["config", subject])
            .await?
            .and_then(|c| c.level);
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
        let live: Vec<i32> = self
            .get(&["subjects", subject, "versions"])
            .await?
            .unwrap_or_default();
        let live: std::collections::HashSet<i32> = live.into_iter().collect();
        let mut deleted: Vec<i32> = all.into_iter().filter(|v| !live.contains(v)).collect();
        deleted.sort_unstable();
        let skip = deleted.len().saturating_sub(MAX_VERSIONS);
        Ok(deleted.split_off(skip))
    }

    /// The subjects and versions whose schemas reference `version` of `subject`, soft-deleted
    /// ones included (those of at most [`MAX_USERS_NAMED`] schemas).
    pub async fn referenced_by(
        &self,
        subject: &str,
        version: i32,
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
                .get_with(
                    &["schemas", "ids", &id.to_string(), "versions"],
                    &[("deleted", "true")],
                )
                .await?
                .unwrap_or_default();
            users.extend(found.into_iter().map(|u| (u.subject, u.version)));
        }
        users.sort();
        users.dedup();
        Ok(users)
    }

    /// The texts of the schemas a proposed schema references, references of references
    /// included, for parsing it before it is registered.
    pub async fn proposal_text(&self, proposal: &Proposal) -> Result<SchemaText, RegistryError> {
        let top = Registered {
            version: None,
            id: None,
            schema: proposal.schema.clone(),
            schema_type: Some(proposal.schema_type.clone()),
            references: proposal.references.clone(),
        };
        self.with_references(top, "the proposed schema").await
    }

    /// The registry's verdict on `proposal` against the subject's newest version under the
    /// level that applies, with the registry's messages; `Ok(None)` when the subject has no
    /// version to compare with.
    pub async fn compatibility(
        &self,
        grant: &Grant,
        subject: &str,
        proposal: &Proposal,
    ) -> Result<Option<Verdict>, RegistryError> {
        require(grant, Privilege::RegisterSchemas, subject)?;
        #[derive(Deserialize)]
        struct Answer {
            is_compatible: bool,
            #[serde(default)]
            messages: Vec<String>,
        }
        let answer = self
            .send::<Answer>(
                Method::POST,
                &["compatibility", "subjects", subject, "versions", "latest"],
                &[("verbose", "true")],
                Some(proposal.body()),
            )
            .await;
        match answer {
            Ok(a) => Ok(Some(Verdict {
                compatible: a.is_compatible,
                messages: a
                    .messages
                    .iter()
                    .map(|m| error_message(m.as_bytes()))
                    .collect(),
            })),
            Err(e) if e.status == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The version and id under which `subject` already holds exactly `proposal`, if it does.
    pub async fn lookup(
        &self,
        grant: &Grant,
        subject: &str,
        proposal: &Proposal,
    ) -> Result<Option<(i32, u32)>, RegistryError> {
        require(grant, Privilege::RegisterSchemas, subject)?;
        let found = self
            .send::<Registered>(
                Method::POST,
                &["subjects", subject],
                &[],
                Some(proposal.body()),
            )
            .await;
        match found {
            Ok(Registered {
                version: Some(v),
                id: Some(id),
                ..
            }) => Ok(Some((v, id))),
            Ok(_) => Err(RegistryError::new(format!(
                "registry: the lookup of {subject} came without a version or id"
            ))),
            Err(e) if e.status == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Registers `proposal` under `subject`, answering its version and id.
    pub async fn register(
        &self,
        grant: &Grant,
        subject: &str,
        proposal: &Proposal,
    ) -> Result<(i32, u32), RegistryError> {
        require(grant, Privilege::RegisterSchemas, subject)?;
        #[derive(Deserialize)]
        struct Answer {
            id: u32,
            version: Option<i32>,
        }
        let answer = self
            .send::<Answer>(
                Method::POST,
                &["subjects", subject, "versions"],
                &[],
                Some(proposal.body()),
            )
            .await?;
        if let Some(version) = answer.version {
            return Ok((version, answer.id));
        }
        // Confluent's registry answers the id only; the lookup gives the version.
        match self.lookup(grant, subject, proposal).await? {
            Some(found) => Ok(found),
            None => Err(RegistryError::new(format!(
                "registry: schema {} was registered under {subject}, and then not found there",
                answer.id
            ))),
        }
    }

    /// Sets the subject's own compatibility level, or with `None` removes it so the global one
    /// applies.
    pub async fn set_level(
        &self,
        grant: &Grant,
        subject: &str,
        level: Option<&str>,
    ) -> Result<(), RegistryError> {
        require(grant, Privilege::SetCompatibility, subject)?;
        let done = match level {
            Some(level) => {
                let body = serde_json::json!({ "compatibility": level }).to_string();
                self.send::<serde_json::Value>(
                    Method::PUT,
                    &["config", subject],
                    &[],
                    Some(body.into_bytes()),
                )
                .await
            }
            None => {
                self.send::<serde_json::Value>(Method::DELETE, &["config", subject], &[], None)
                    .await
            }
        };
        match done {
            Ok(_) => Ok(()),
            // Confluent's registry answers 404 for removing a level the subject does not set.
            Err(e) if level.is_none() && e.status == Some(404) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Deletes one version of `subject`, or with `None` the whole subject: soft, or with
    /// `permanent` for good (the registry wants a soft delete first). Answers the versions the
    /// registry says it deleted.
    pub async fn delete(
        &self,
        grant: &Grant,
        subject: &str,
        version: Option<i32>,
        permanent: bool,
    ) -> Result<Vec<i32>, RegistryError> {
        require(grant, Privilege::DeleteSchemas, subject)?;
        let query: &[(&str, &str)] = if permanent {
            &[("permanent", "true")]
        } else {
            &[]
        };
        match version {
            Some(v) => {
                let number = v.to_string();
                let deleted: i32 = self
                    .send(
                        Method::DELETE,
                        &["subjects", subject, "versions", &number],
                        query,
                        None,
                    )
                    .await?;
                Ok(vec![deleted])
            }
            None => {
                self.send(Method::DELETE, &["subjects", subject], query, None)
                    .await
            }
        }
    }
}

/// Why `name` cannot be one segment of a registry URL's path, or `None` when it can. The URL
/// library drops a segment `.` or `..`, removes tabs and line breaks (so `.\t.` becomes `..` and
/// climbs), and reads `%2e` as a dot; a registry decodes percent-encoded sequences (`%2F`,
/// `%5C`) and may read `/` or `\` as separators. Any of these would send a request for one
/// subject to another path: `config/..` is the global level's.
pub fn segment_problem(name: &str) -> Option<&'static str> {
    if name == "." || name == ".." {
        return Some("it cannot be \".\" or \"..\"");
    }
    if name.contains(['/', '\\']) {
        return Some("it cannot hold \"/\" or \"\\\"");
    }
    if name.chars().any(char::is_control) {
        return Some("it cannot hold a control character (a tab, a line break)");
    }
    let bytes = name.as_bytes();
    let escaped = bytes
        .windows(3)
        .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit());
    if escaped {
        return Some("it cannot hold a percent-encoded sequence such as %2e or %2F");
    }
    None
}

/// Whether the URL library would not push `segment` as it is: it skips `.` and `..`, and
/// removes tabs and line breaks before it reads a segment as a dot segment.
fn rewritten_by_url(segment: &str) -> bool {
    segment == "." || segment == ".." || segment.chars().any(char::is_control)
}

/// A schema as proposed for registration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    pub schema: String,
    /// AVRO, PROTOBUF or JSON.
    pub schema_type: String,
    pub references: Vec<Reference>,
}

impl Proposal {
    fn body(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct Body<'a> {
            schema: &'a str,
            #[serde(rename = "schemaType")]
            schema_type: &'a str,
            references: &'a [Reference],
        }
        // A struct of strings and numbers always serializes.
        serde_json::to_vec(&Body {
            schema: &self.schema,
            schema_type: &self.schema_type,
            references: &self.references,
        })
        .unwrap_or_default()
    }
}

/// The registry's word on a proposed schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub compatible: bool,
    pub messages: Vec<String>,
}

/// `Ok` when `grant` was given for `privilege` on `subject`.
fn require(grant: &Grant, privilege: Privilege, subject: &str) -> Result<(), RegistryError> {
    grant
        .require(privilege, &Resource::Subject(subject.to_string()))
        .map_err(|e| RegistryError::new(e.message))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Registry {
        Registry::new(&RegistryConfig {
            url: "http://127.0.0.1:1/apis/ccompat/v7".into(),
            username: None,
            password: None,
        })
        .expect("a registry")
    }

    /// What the URL library does with a segment that is path syntax: `..` is dropped, and a
    /// tab inside dots is removed before the dots climb, so `config/<name>` would be the
    /// global level's `config`. Such a segment is refused; others stay one segment.
    #[test]
    fn a_name_never_becomes_another_path() {
        let registry = registry();
        for name in [".", "..", ".\t.", "\t", ".\n", "a\rb"] {
            assert!(registry.url(&["config", name]).is_err(), "{name:?}");
        }
        for (name, path) in [
            ("a b", "/apis/ccompat/v7/config/a%20b"),
            ("a/b", "/apis/ccompat/v7/config/a%2Fb"),
            ("a\\b", "/apis/ccompat/v7/config/a%5Cb"),
            ("%2e%2e", "/apis/ccompat/v7/config/%252e%252e"),
            ("x?y#z", "/apis/ccompat/v7/config/x%3Fy%23z"),
        ] {
            let url = registry.url(&["config", name]).expect("a URL");
            assert_eq!(url.path(), path, "{name:?}");
        }
    }

    #[test]
    fn names_that_are_path_syntax_are_told_apart() {
        for bad in [
            ".", "..", "a/b", "/", "a\\b", "%2e", "%2E%2e", "a%2Fb", "a%2fb", "a%5Cb", "x%00",
            ".\t.", "a\nb", "\u{7f}", "\u{85}",
        ] {
            assert!(segment_problem(bad).is_some(), "{bad:?}");
        }
        for good in [
            "payments-value",
            "com.example.Payment",
            "...",
            ".hidden",
            "a..b",
            "100%",
            "50% off",
            "%zz",
            "naïve-value",
        ] {
            assert_eq!(segment_problem(good), None, "{good:?}");
        }
    }
}
