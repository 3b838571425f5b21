//! SQL processors, the pure part: what klens reads of a statement ([`sql`]), the tables it
//! declares for Flink ([`ddl`]) and the definition it keeps of each processor in its own
//! compacted topic ([`Definition`]). Nothing here reaches Flink or Kafka.

pub mod ddl;
pub mod sql;

use serde::{Deserialize, Serialize};

/// The compacted topic of a cluster that holds its processors' definitions, keyed by name.
/// Only klens writes it and nobody reads its records through klens (as the audit topic).
pub const DEFINITIONS_TOPIC: &str = "_klens_processors";

/// The most processors klens keeps of one cluster.
pub const MAX_PROCESSORS: usize = 1_000;

/// The most parallel instances a processor may ask for.
pub const MAX_PARALLELISM: u32 = 64;

/// The consumer group a processor reads its inputs under (its input lag is that group's).
pub fn group_of(name: &str) -> String {
    format!("klens-processor-{name}")
}

/// The name Flink knows a processor's job by.
pub fn job_name(name: &str) -> String {
    format!("klens-processor-{name}")
}

/// Whether `name` may name a processor: `[a-z0-9-_.]`, 1 to 100 characters, not dots only.
pub fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
        && !name.chars().all(|c| c == '.')
}

/// The most characters of Flink's plan a definition keeps.
pub const MAX_PLAN: usize = 64 * 1024;

/// What klens keeps of a processor, as the JSON value of its record in [`DEFINITIONS_TOPIC`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    pub name: String,
    /// The one `INSERT INTO ... SELECT ...` statement, as written.
    pub sql: String,
    pub parallelism: u32,
    /// The topics it reads, as Flink's plan named them.
    pub inputs: Vec<String>,
    /// The topic it writes.
    pub output: String,
    /// The value's columns of each input as its author saw them in the preview (the SQL types
    /// of a JSON value's fields, or `kafka_value BYTES`): every start declares these, so a
    /// restart after its topics' values changed reads them as its state was built. An input
    /// missing here (a definition from before klens kept them) is inferred again.
    #[serde(default)]
    pub columns: std::collections::BTreeMap<String, Vec<(String, String)>>,
    /// Whether it should run: `running` or `stopped`.
    pub desired: String,
    /// Flink's id of its job of the moment (the last one, once stopped).
    #[serde(default)]
    pub job: Option<String>,
    /// Where its last stop left its state, which a resume starts from.
    #[serde(default)]
    pub savepoint: Option<String>,
    /// Who created it, as the audit names them.
    #[serde(default)]
    pub created_by: Option<String>,
    /// Flink's plan of its statement when it was created (at most [`MAX_PLAN`] characters).
    #[serde(default)]
    pub plan: Option<String>,
    /// When it was created and last changed, ms since the epoch.
    pub created_at: i64,
    pub changed_at: i64,
}

impl Definition {
    /// Every topic it reads or writes, which a scope must cover.
    pub fn topics(&self) -> Vec<String> {
        let mut topics = self.inputs.clone();
        if !topics.contains(&self.output) {
            topics.push(self.output.clone());
        }
        topics
    }

    /// The processor as the decision sees it.
    pub fn resource(&self) -> app::access::Resource {
        app::access::Resource::Processor { name: self.name.clone(), topics: self.topics() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_names() {
        for good in ["big-orders", "a", "x.y_z-1"] {
            assert!(is_name(good), "{good}");
        }
        for bad in ["", "Big", "a b", "a/b", "..", &"a".repeat(101)] {
            assert!(!is_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_definition_covers_its_inputs_and_its_output_once() {
        let d = Definition {
            name: "p".into(),
            sql: String::new(),
            parallelism: 1,
            inputs: vec!["a".into(), "b".into()],
            output: "a".into(),
            columns: Default::default(),
            desired: "running".into(),
            job: None,
            savepoint: None,
            created_by: None,
            plan: None,
            created_at: 0,
            changed_at: 0,
        };
        assert_eq!(d.topics(), ["a", "b"]);
    }
}
