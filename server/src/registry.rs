//! The catalog's view of a cluster's Schema Registry: subjects, their versions, ids, types and
//! compatibility, read through the Confluent-compatible REST API. Schema texts are not read.

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

#[derive(Deserialize)]
struct Registered {
    schema: String,
    #[serde(rename = "schemaType")]
    schema_type: Option<String>,
    #[serde(default)]
    references: Vec<Reference>,
}

#[derive(Deserialize)]
struct Reference {
    name: String,
    subject: String,
    version: i64,
}

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
    ) -> Result<Option<T>, String> {
        let url = self.url(segments)?;
        let mut request = self.http.get(url.clone());
        if let Some((user, password)) = &self.credentials {
            request = request.basic_auth(user, Some(password.expose()));
        }
        let what = segments.join("/");
        let response = request
            .send()
            .await
            .map_err(|e| format!("registry: GET {what}: {}", e.without_url()))?;
        if response.status() == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !response.status().is_success() {
            return Err(format!("registry: GET {what}: HTTP {}", response.status()));
        }
        let mut response = response;
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("registry: GET {what}: {}", e.without_url()))?
        {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(format!(
                    "registry: GET {what}: the answer is over {} MiB",
                    MAX_BODY / (1024 * 1024)
                ));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body)
            .map(Some)
            .map_err(|e| format!("registry: GET {what}: not the JSON expected: {e}"))
    }

    /// The schema registered under `id` and everything it references; `Ok(None)` when the
    /// registry has no such id.
    pub async fn schema_by_id(&self, id: u32) -> Result<Option<SchemaText>, String> {
        let Some(top) = self
            .get::<Registered>(&["schemas", "ids", &id.to_string()])
            .await?
        else {
            return Ok(None);
        };
        let mut references = Vec::new();
        let mut pending: Vec<(Reference, usize)> =
            top.references.into_iter().map(|r| (r, 1)).collect();
        while let Some((reference, depth)) = pending.pop() {
            if depth > MAX_REFERENCE_DEPTH || references.iter().any(|(n, _)| *n == reference.name) {
                continue;
            }
            if references.len() >= MAX_REFERENCES {
                return Err(format!(
                    "schema {id} references more than {MAX_REFERENCES} schemas; klens does not \
                     decode it"
                ));
            }
            let version = reference.version.to_string();
            let found = self
                .get::<Registered>(&["subjects", &reference.subject, "versions", &version])
                .await?
                .ok_or_else(|| {
                    format!(
                        "schema {id} references {} version {version}, which the registry lacks",
                        reference.subject
                    )
                })?;
            pending.extend(found.references.into_iter().map(|r| (r, depth + 1)));
            references.push((reference.name, found.schema));
        }
        Ok(Some(SchemaText {
            schema: top.schema,
            schema_type: top.schema_type.unwrap_or_else(|| "AVRO".to_string()),
            references,
        }))
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
                .map(|v| {
                    let kind = v.schema_type.unwrap_or_else(|| "AVRO".to_string());
                    (v.version, v.id, kind)
                });
            let compatibility = self
                .get::<Compatibility>(&["config", &name])
                .await?
                .and_then(|c| c.level);
            Ok::<_, String>(Subject {
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
