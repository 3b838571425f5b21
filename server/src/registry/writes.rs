//! What klens asks the registry to judge or change: a proposed schema's references and
//! compatibility, registering it, setting a level and deleting, each under its grant.

use super::*;

impl Registry {
    /// The texts of the schemas a proposed schema references, references of references
    /// included (each only when `readable` takes its subject), for parsing it before it is
    /// registered.
    pub async fn proposal_text(
        &self, proposal: &Proposal, readable: Readable<'_>,
    ) -> Result<SchemaText, RegistryError> {
        let top = Registered {
            version: None,
            id: None,
            schema: proposal.schema.clone(),
            schema_type: Some(proposal.schema_type.clone()),
            references: proposal.references.clone(),
        };
        self.with_references(top, "the proposed schema", readable).await
    }

    /// The registry's verdict on `proposal` against the subject's newest version under the
    /// level that applies, with the registry's messages; `Ok(None)` when the subject has no
    /// version to compare with.
    pub async fn compatibility(
        &self, grant: &Grant, subject: &str, proposal: &Proposal,
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
                messages: a.messages.iter().map(|m| error_message(m.as_bytes())).collect(),
            })),
            Err(e) if e.status == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The version and id under which `subject` already holds exactly `proposal`, if it does.
    pub async fn lookup(
        &self, grant: &Grant, subject: &str, proposal: &Proposal,
    ) -> Result<Option<(i32, u32)>, RegistryError> {
        require(grant, Privilege::RegisterSchemas, subject)?;
        let found = self
            .send::<Registered>(Method::POST, &["subjects", subject], &[], Some(proposal.body()))
            .await;
        match found {
            Ok(Registered { version: Some(v), id: Some(id), .. }) => Ok(Some((v, id))),
            Ok(_) => Err(RegistryError::new(format!(
                "registry: the lookup of {subject} came without a version or id"
            ))),
            Err(e) if e.status == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Registers `proposal` under `subject`, answering its version and id.
    pub async fn register(
        &self, grant: &Grant, subject: &str, proposal: &Proposal,
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
        &self, grant: &Grant, subject: &str, level: Option<&str>,
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
        &self, grant: &Grant, subject: &str, version: Option<i32>, permanent: bool,
    ) -> Result<Vec<i32>, RegistryError> {
        require(grant, Privilege::DeleteSchemas, subject)?;
        let query: &[(&str, &str)] = if permanent { &[("permanent", "true")] } else { &[] };
        match version {
            Some(v) => {
                let number = v.to_string();
                let deleted: i32 = self
                    .send(Method::DELETE, &["subjects", subject, "versions", &number], query, None)
                    .await?;
                Ok(vec![deleted])
            }
            None => self.send(Method::DELETE, &["subjects", subject], query, None).await,
        }
    }
}
