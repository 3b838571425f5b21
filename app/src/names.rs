//! Names checked once, where they come in: a value of these types is a name Kafka accepts, so
//! the code that holds one (the config, the service, the Kafka calls) asks no more.

use crate::error::ApiError;

/// A topic name Kafka accepts: 1 to [`TopicName::MAX_LEN`] ASCII letters, digits, '.', '_' and
/// '-', and neither "." nor "..".
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopicName(String);

impl TopicName {
    /// The longest topic name Kafka accepts.
    pub const MAX_LEN: usize = 249;

    /// `name` if Kafka accepts it; otherwise [`TopicName::check`]'s refusal.
    pub fn parse(name: impl Into<String>, field: &str) -> Result<TopicName, ApiError> {
        let name = name.into();
        Self::check(&name, field)?;
        Ok(TopicName(name))
    }

    /// Whether Kafka accepts `name`, for a caller that keeps its own string: a BAD_REQUEST
    /// naming `field` and saying why, rather than an opaque refusal from the broker later.
    pub fn check(name: &str, field: &str) -> Result<(), ApiError> {
        if name.is_empty() || name == "." || name == ".." {
            return Err(ApiError::bad_request(
                field,
                "A topic name cannot be empty, \".\" or \"..\".",
            ));
        }
        if name.len() > Self::MAX_LEN {
            return Err(ApiError::bad_request(
                field,
                format!("A topic name has at most {} characters.", Self::MAX_LEN),
            ));
        }
        if let Some(c) =
            name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        {
            return Err(ApiError::bad_request(
                field,
                format!("A topic name may hold letters, digits, '.', '_' and '-', not {c:?}."),
            ));
        }
        Ok(())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topic_name_is_what_kafka_accepts() {
        for good in ["orders", "a", "_klens_audit", "team.orders-v2", &"x".repeat(249)] {
            let name = TopicName::parse(good, "topic").expect(good);
            assert_eq!(name.as_str(), good);
        }
        for (bad, why) in [
            ("", "empty"),
            (".", "empty"),
            ("..", "empty"),
            ("orders/eu", "'/'"),
            ("ordres é", "' '"),
            ("naïve", "'ï'"),
        ] {
            let error = TopicName::parse(bad, "name").expect_err(bad);
            assert_eq!(error.field.as_deref(), Some("name"), "{bad}");
            assert!(error.message.contains(why), "{bad}: {}", error.message);
        }
        let long = TopicName::parse("x".repeat(250), "topic").expect_err("250 characters");
        assert!(long.message.contains("249"), "{}", long.message);
    }
}
