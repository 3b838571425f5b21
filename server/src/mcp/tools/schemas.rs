//! The Schema Registry's tools: one schema's text, and registering one (with its dry run).

use app::api::Arg;
use app::Privilege;
use serde::Deserialize;
use serde_json::{json, Value};

use super::fit::{fit_schema, query_value};
use super::{object, parse, to_json, Answer, ToolSpec};
use crate::auth::Caller;
use crate::service::{schemas, Service};

pub(super) const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "klens_schema_get",
        privilege: Some(Privilege::SchemaText),
        write: false,
        idempotent: true,
        description: "The text of one schema version (the latest without `version`). Needs SCHEMA_TEXT.",
        schema: || object(json!({"cluster": {"type": "string"}, "subject": {"type": "string"}, "version": {"type": "integer"}}), &["cluster", "subject"]),
        run: schema_get,
    },
    ToolSpec {
        name: "klens_schema_register",
        privilege: Some(Privilege::RegisterSchemas),
        write: true,
        idempotent: true,
        description: "Registers a schema (AVRO, PROTOBUF or JSON) under a subject. With `dry_run: true`, answers whether the registry finds it compatible and how the subject's topic's newest records read with it, and registers nothing. Registering the same schema again gives the same id. Needs REGISTER_SCHEMAS on a writable cluster.",
        schema: || object(
            json!({
                "cluster": {"type": "string"},
                "subject": {"type": "string"},
                "schema": {"type": "string"},
                "type": {"type": "string", "enum": ["AVRO", "PROTOBUF", "JSON"]},
                "references": {"type": "array", "items": {"type": "object"}},
                "dry_run": {"type": "boolean"}
            }),
            &["cluster", "subject", "schema"],
        ),
        run: schema_register,
    },
];

#[derive(Deserialize)]
struct SchemaArgs {
    cluster: String,
    #[serde(default)]
    subject: Arg<String>,
    #[serde(default)]
    version: Arg<i32>,
}

fn schema_get<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move {
        let a: SchemaArgs = parse(arguments)?;
        let text = to_json(schemas::schema(s, c, &a.cluster, a.subject, a.version).await?)?;
        let whole = format!(
            "GET /api/schema?cluster={}&subject={}&version={} gives the whole text",
            query_value(&a.cluster),
            query_value(text["subject"].as_str().unwrap_or_default()),
            text["version"],
        );
        Ok(fit_schema(text, &whole))
    })
}

fn schema_register<'a>(s: &'a Service, c: &'a Caller, arguments: Value) -> Answer<'a> {
    Box::pin(async move { to_json(schemas::register_schema(s, c, parse(arguments)?).await?) })
}
