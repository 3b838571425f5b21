//! Arguments as the caller sent them. Every server function takes its arguments other than
//! `cluster` in this form, so that deserializing a request never fails on them: the server
//! asks the authorization decision first and only then judges each argument, answering
//! `BAD_REQUEST` with the argument's name. (A hidden cluster with a bad argument must answer
//! `UNKNOWN_CLUSTER`, not reveal that the call got as far as its arguments.)

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::ApiError;

/// One argument: not given, given and of the right type, or given and not of that type.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Arg<T> {
    #[default]
    Missing,
    Given(T),
    /// What was wrong with what was sent.
    Invalid(String),
}

impl<T> From<T> for Arg<T> {
    fn from(value: T) -> Self {
        Arg::Given(value)
    }
}

impl<T> From<Option<T>> for Arg<T> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Arg::Missing, Arg::Given)
    }
}

impl<T> Arg<T> {
    /// The value, or `BAD_REQUEST` naming `field` when it is missing or of the wrong type.
    pub fn required(self, field: &str) -> Result<T, ApiError> {
        match self {
            Arg::Given(value) => Ok(value),
            Arg::Missing => Err(ApiError::bad_request(field, format!("`{field}` is required."))),
            Arg::Invalid(why) => Err(invalid(field, &why)),
        }
    }

    /// The value if given, `None` if not; `BAD_REQUEST` naming `field` when of the wrong type.
    pub fn optional(self, field: &str) -> Result<Option<T>, ApiError> {
        match self {
            Arg::Given(value) => Ok(Some(value)),
            Arg::Missing => Ok(None),
            Arg::Invalid(why) => Err(invalid(field, &why)),
        }
    }

    /// The value, if it was given and of the right type, without judging it.
    pub fn given(&self) -> Option<&T> {
        match self {
            Arg::Given(value) => Some(value),
            Arg::Missing | Arg::Invalid(_) => None,
        }
    }

    /// The value if given, else `default`.
    pub fn or(self, field: &str, default: T) -> Result<T, ApiError> {
        Ok(self.optional(field)?.unwrap_or(default))
    }
}

fn invalid(field: &str, why: &str) -> ApiError {
    ApiError::bad_request(field, format!("`{field}` is not valid: {why}."))
}

impl<T: Serialize> Serialize for Arg<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Arg::Given(value) => value.serialize(serializer),
            Arg::Missing | Arg::Invalid(_) => serializer.serialize_none(),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Arg<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Anything deserializes as a JSON value; judging it is left to the server. Read as an
        // option, a field left out of a struct is `Missing` without `#[serde(default)]`.
        let value = Option::<serde_json::Value>::deserialize(deserializer)?;
        Ok(value.map_or(Arg::Missing, Arg::judge))
    }
}

impl<T: DeserializeOwned> Arg<T> {
    /// Reads `value` as a `T`. Query strings carry every value as text, so text is also read
    /// as JSON (`"12"` as the number 12, `"true"` as a boolean).
    fn judge(value: serde_json::Value) -> Arg<T> {
        if value.is_null() {
            return Arg::Missing;
        }
        let text = value.as_str().map(str::to_string);
        match serde_json::from_value::<T>(value) {
            Ok(v) => Arg::Given(v),
            Err(error) => match text.as_deref() {
                // `limit=` in a query string says nothing.
                Some("") => Arg::Missing,
                Some(text) => match serde_json::from_str::<T>(text) {
                    Ok(v) => Arg::Given(v),
                    Err(_) => Arg::Invalid(error.to_string()),
                },
                None => Arg::Invalid(error.to_string()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn from_json<T: DeserializeOwned>(json: &str) -> Arg<T> {
        serde_json::from_str(json).expect("any JSON value is an Arg")
    }

    #[test]
    fn values_of_the_right_type_are_given() {
        assert_eq!(from_json::<i32>("3"), Arg::Given(3));
        assert_eq!(from_json::<i32>("\"3\""), Arg::Given(3));
        assert_eq!(from_json::<bool>("\"true\""), Arg::Given(true));
        assert_eq!(from_json::<String>("\"12\""), Arg::Given("12".to_string()));
        assert_eq!(from_json::<i32>("null"), Arg::Missing);
        assert_eq!(from_json::<i32>("\"\""), Arg::Missing);
        assert_eq!(from_json::<String>("\"\""), Arg::Given(String::new()));
    }

    #[test]
    fn values_of_another_type_are_kept_for_the_server_to_refuse() {
        for json in ["\"three\"", "[1]", "{}", "1.5", "99999999999"] {
            let arg = from_json::<i32>(json);
            assert!(matches!(arg, Arg::Invalid(_)), "{json}: {arg:?}");
            let e = arg.required("partitions").expect_err("invalid");
            assert_eq!(e.code, ErrorCode::BadRequest);
            assert_eq!(e.field.as_deref(), Some("partitions"));
        }
    }

    #[test]
    fn missing_is_an_error_only_where_required() {
        let e = Arg::<i32>::Missing.required("offset").expect_err("missing");
        assert_eq!(e.field.as_deref(), Some("offset"));
        assert_eq!(Arg::<i32>::Missing.optional("offset"), Ok(None));
        assert_eq!(Arg::<i32>::Missing.or("offset", 7), Ok(7));
    }

    #[test]
    fn an_argument_left_out_of_a_call_is_missing() {
        // As the server functions receive their arguments: a struct, flattened into another.
        #[derive(Debug, Deserialize)]
        struct Args {
            a: Arg<i32>,
            b: Arg<String>,
        }
        #[derive(Debug, Deserialize)]
        struct Call {
            cluster: String,
            #[serde(flatten)]
            args: Args,
        }
        let call: Call = serde_json::from_str(r#"{"cluster":"local","b":"x"}"#).expect("reads");
        assert_eq!(
            (call.cluster.as_str(), call.args.a, call.args.b),
            ("local", Arg::Missing, Arg::Given("x".into()))
        );
        let args: Args = serde_json::from_str("{}").expect("reads");
        assert_eq!((args.a, args.b), (Arg::Missing, Arg::Missing));
        let args: Args = serde_json::from_str(r#"{"a":null,"b":7}"#).expect("reads");
        assert_eq!(args.a, Arg::Missing);
        assert!(matches!(args.b, Arg::Invalid(_)), "{:?}", args.b);
    }

    #[test]
    fn an_argument_serializes_as_its_value() {
        #[derive(Serialize)]
        struct Call {
            a: Arg<i32>,
            b: Arg<String>,
        }
        let call = Call { a: 5.into(), b: Arg::Missing };
        assert_eq!(serde_json::to_string(&call).expect("serializes"), r#"{"a":5,"b":null}"#);
    }
}
