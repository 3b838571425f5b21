//! Config loader tests: bad configs through one table and one helper, then good configs checked
//! value by value.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use app::Privilege;

use super::{load, parse, Config, ConfigError, LogFormat, SaslMechanism, Secret};

/// Secret values the environment hands out; no error or `Debug` output may contain them.
const SECRETS: &[&str] =
    &["Prod-Pass-S3cret!", "Registry-S3cret!", "Oidc-S3cret!", "Mcp-S3cret!", "hunter2"];

fn env(name: &str) -> Option<String> {
    let value = match name {
        "KLENS_PROD_PASSWORD" => "Prod-Pass-S3cret!",
        "KLENS_REGISTRY_PASSWORD" => "Registry-S3cret!",
        "KLENS_OIDC_SECRET" => "Oidc-S3cret!",
        "KLENS_MCP_SECRET" => "Mcp-S3cret!",
        "KAFKA_HOST" => "kafka.internal",
        "EMPTY" => "",
        _ => return None,
    };
    Some(value.to_string())
}

fn parse_in(source: &str, base_dir: &Path) -> Result<Config, ConfigError> {
    parse(source, "config.yaml", &env, base_dir)
}

fn parse_ok(source: &str) -> Config {
    match parse_in(source, Path::new("/")) {
        Ok(config) => config,
        Err(error) => panic!("expected a valid config, got: {error}"),
    }
}

/// The one helper every bad-config case goes through: the whole message must match, be one
/// line, and hold no secret.
fn expect_error(source: &str, base_dir: &Path, expected: &str) -> Result<(), String> {
    let message = match parse_in(source, base_dir) {
        Ok(_) => return Err(format!("accepted, expected {expected:?}\n--- config:\n{source}")),
        Err(error) => error.to_string(),
    };
    if message.contains('\n') {
        return Err(format!("message spans lines: {message:?}"));
    }
    if let Some(secret) = SECRETS.iter().find(|secret| message.contains(*secret)) {
        return Err(format!("message leaks {secret:?}: {message}"));
    }
    if message != expected {
        return Err(format!(
            "wrong message\n  expected: {expected}\n  got:      {message}\n--- config:\n{source}"
        ));
    }
    Ok(())
}

fn check_table(cases: &[(&str, &str)], base_dir: &Path) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(source, expected)| expect_error(source, base_dir, expected).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// Three lines: one valid cluster named prod.
macro_rules! base {
    () => {
        "clusters:\n  - name: prod\n    bootstrap_servers: kafka:9092\n"
    };
}

/// Lines 4 to 9: a valid `auth` with only `oidc`.
macro_rules! oidc {
    () => {
        concat!(
            "auth:\n",
            "  oidc:\n",
            "    issuer: https://idp.example.com\n",
            "    client_id: klens\n",
            "    client_secret: ${KLENS_OIDC_SECRET}\n",
            "    redirect_uri: https://klens.example.com/auth/callback\n",
        )
    };
}

const ALL_PRIVILEGES: &str = "records, topic_configs, broker_configs, schema_text, acls, audit, \
    unmask, connectors, replications, replicate_from, sql_processors, topology, create_topics, delete_topics, alter_topic_configs, add_partitions, delete_records, produce, \
    reset_offsets, delete_offsets, delete_groups, register_schemas, set_compatibility, \
    delete_schemas, create_acls, delete_acls, alter_quotas, set_scram_credentials, \
    delete_scram_credentials, alter_broker_configs, manage_connectors, manage_replications, \
    replication_offsets, manage_sql_processors";

mod access;
mod more;
mod refusals;
mod values;
