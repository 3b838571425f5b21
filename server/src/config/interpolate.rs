//! `${NAME}` substitution in one scalar value.
//!
//! Substitution runs on each value after YAML parsing, never on the file text: positions stay
//! those of the file, and a variable's value cannot add keys or break the YAML. The substituted
//! text is not scanned again, so a value containing `${` stays as it is.
//!
//! - `${NAME}` becomes the variable NAME (letters, digits and `_`, not starting with a digit).
//! - `$${` becomes a literal `${`.
//! - Any other `$` is kept as it is.
//!
//! Errors carry the variable name at most: never the value, and never the surrounding text,
//! which may be a secret.

/// Why a value could not be substituted.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum InterpolationError {
    /// The variable with this name is not set.
    Unset(String),
    /// A `${` without its `}`.
    Unterminated,
    /// `${...}` holding something that is not a variable name.
    BadName,
}

/// Returns the substituted value, and whether any variable was used.
pub(super) fn interpolate(
    raw: &str, env: &dyn Fn(&str) -> Option<String>,
) -> Result<(String, bool), InterpolationError> {
    let mut out = String::with_capacity(raw.len());
    let mut used = false;
    let mut rest = raw;
    while let Some((before, after)) = rest.split_once('$') {
        out.push_str(before);
        if let Some(tail) = after.strip_prefix("${") {
            out.push_str("${");
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{') {
            let (name, tail) = body.split_once('}').ok_or(InterpolationError::Unterminated)?;
            if !is_variable_name(name) {
                return Err(InterpolationError::BadName);
            }
            let value = env(name).ok_or_else(|| InterpolationError::Unset(name.to_string()))?;
            out.push_str(&value);
            used = true;
            rest = tail;
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok((out, used))
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "USER" => Some("klens".to_string()),
            "EMPTY" => Some(String::new()),
            "NESTED" => Some("${USER}".to_string()),
            _ => None,
        }
    }

    fn check(raw: &str, expected: Result<(&str, bool), InterpolationError>) {
        let got = interpolate(raw, &env);
        let expected = expected.map(|(value, used)| (value.to_string(), used));
        assert_eq!(got, expected, "input {raw:?}");
    }

    #[test]
    fn substitutes_and_escapes() {
        check("plain", Ok(("plain", false)));
        check("", Ok(("", false)));
        check("${USER}", Ok(("klens", true)));
        check("a-${USER}-b", Ok(("a-klens-b", true)));
        check("${USER}${USER}", Ok(("klensklens", true)));
        check("${EMPTY}", Ok(("", true)));
        check("$${USER}", Ok(("${USER}", false)));
        check("$$${USER}", Ok(("$${USER}", false)));
        check("cost $5", Ok(("cost $5", false)));
        check("$$", Ok(("$$", false)));
        check("end$", Ok(("end$", false)));
        check("${NESTED}", Ok(("${USER}", true)));
        check("${_A1}", Err(InterpolationError::Unset("_A1".to_string())));
    }

    #[test]
    fn refuses_broken_references() {
        check("${MISSING}", Err(InterpolationError::Unset("MISSING".to_string())));
        check("${USER", Err(InterpolationError::Unterminated));
        check("${}", Err(InterpolationError::BadName));
        check("${1A}", Err(InterpolationError::BadName));
        check("${A B}", Err(InterpolationError::BadName));
        check("${A-B}", Err(InterpolationError::BadName));
    }
}
