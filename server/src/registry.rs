//! A cluster's Schema Registry through its Confluent-compatible REST API: the catalog's view of
//! subjects (versions, ids, types, compatibility), and schemas with their references, for
//! decoding records and for encoding the records klens produces.

use std::time::Duration;

use futures::stream::{self, StreamExt};
use reqwest::{StatusCode, Url};
use serde::Deserialize;

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

/// Why the registry did not answer: it refused klens's credentials (`refused`), or it could not
/// be reached or answered something klens does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistryError {
    pub refused: bool,
    pub message: String,
}

impl RegistryError {
    fn new(message: String) -> RegistryError {
        RegistryError {
            refused: false,
            message,
        }
    }
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

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
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
        let mut url = self.base.clone();
        {
            let mut path = url
                .path_segments_mut()
                .map_err(|_| "the registry URL cannot take a path".to_string())?;
            path.pop_if_empty();
            for segment in segments {
                // Each segment is percent-encoded, so a subject name cannot change the path.
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
        let url = self.url(segments).map_err(RegistryError::new)?;
        let mut request = self.http.get(url.clone());
        if let Some((user, password)) = &self.credentials {
            request = request.basic_auth(user, Some(password.expose()));
        }
        let what = segments.join("/");
        let response = request.send().await.map_err(|e| {
            RegistryError::new(format!("registry: GET {what}: {}", e.without_url()))
        })?;
        let status = response.status();
        if status == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return Err(RegistryError {
                refused: true,
                message: format!(
                    "the registry refused klens's credentials: GET {what}: HTTP {status}"
                ),
            });
        }
        if !status.is_success() {
            return Err(RegistryError::new(format!(
                "registry: GET {what}: HTTP {status}"
            )));
        }
        let mut response = response;
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| RegistryError::new(format!("registry: GET {what}: {}", e.without_url())))?
        {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(RegistryError::new(format!(
                    "registry: GET {what}: the answer is over {} MiB",
                    MAX_BODY / (1024 * 1024)
                )));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map(Some).map_err(|e| {
            RegistryError::new(format!("registry: GET {what}: not the JSON expected: {e}"))
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
        let compatibility = self
            .get::<Compatibility>(&["config", subject])
            .await?
            .and_then(|c| c.level);
        let global_compatibility = self
            .get::<Compatibility>(&["config"])
            .await?
            .and_then(|c| c.level);
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
                .ok_or_else(|| {
                    RegistryError::new(format!(
                        "{what} references {} version {version}, which the registry lacks",
                        reference.subject
                    ))
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
            let versions: Vec<i32> = self
                .get(&["subjects", &name, "versions"])
                .await?
                .unwrap_or_default();
            let latest = self
                .get::<Version>(&["subjects", &name, "versions", "latest"])
                .await?
                .map(|v| (v.version, v.id, kind(v.schema_type)));
            let compatibility = self
                .get::<Compatibility>(&["config", &name])
                .await?
                .and_then(|c| c.level);
            Ok::<_, RegistryError>(Subject {
                name,
                versions,
                latest,
                compatibility,
            })
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
}
