//! A typed walk over the parsed YAML. Every value carries its key path and the position an error
//! about it should point at, so `schema.rs` states rules and this file words the errors.
//!
//! A value is echoed in an error only through [`Text::shown`], which refuses to echo anything
//! that came from an environment variable. Type errors never echo the value at all.

use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode};
use marked_yaml::{LoadError, LoaderOptions, Node, Span};

use super::checks::nearest;
use super::interpolate::{interpolate, InterpolationError};
use super::{ConfigError, Secret};

/// What every value needs to report an error.
pub(super) struct Ctx<'a> {
    pub file: &'a str,
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

/// A 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pos {
    pub line: usize,
    pub column: usize,
}

impl Pos {
    const START: Pos = Pos { line: 1, column: 1 };

    fn of(span: &Span) -> Option<Pos> {
        span.start().map(|marker| Pos { line: marker.line(), column: marker.column() })
    }
}

impl Ctx<'_> {
    pub fn error(&self, pos: Pos, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.to_string(),
            line: pos.line,
            column: pos.column,
            key: key.to_string(),
            message: message.into(),
        }
    }

    fn syntax_error(&self, pos: Pos, message: impl Into<String>) -> ConfigError {
        ConfigError::Syntax {
            file: self.file.to_string(),
            line: pos.line,
            column: pos.column,
            message: message.into(),
        }
    }
}

/// Parses the text into the top-level mapping.
pub(super) fn parse_document<'a>(
    ctx: &'a Ctx<'a>, source: &str,
) -> Result<Document<'a>, ConfigError> {
    // An editor's byte-order mark would otherwise become part of the first key.
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let options = LoaderOptions::default().error_on_duplicate_keys(true).prevent_coercion(true);
    let node = marked_yaml::parse_yaml_with_options(0, source, options)
        .map_err(|error| load_error(ctx, source, error))?;
    if let Some(line) = second_document(source) {
        return Err(ctx.syntax_error(
            Pos { line, column: 1 },
            "a second YAML document starts here; the config must be one document, so remove \
             the document markers (--- or ...) and merge what follows",
        ));
    }
    Ok(Document { ctx, node })
}

/// The line where a second YAML document starts: a `---` at column 1 after content, or content
/// after a `...` end marker, when more content follows. The loader reads only the first
/// document and would drop the rest without a word. YAML forbids marker lines inside scalars,
/// so a plain line scan is exact.
fn second_document(source: &str) -> Option<usize> {
    let is_content = |text: &str| {
        let trimmed = text.trim();
        !trimmed.is_empty() && !trimmed.starts_with('#') && !trimmed.starts_with('%')
    };
    fn after_marker<'l>(line: &'l str, marker: &str) -> Option<&'l str> {
        line.strip_prefix(marker)
            .filter(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
    }
    let mut seen_content = false;
    let mut ended = false;
    let mut second_start: Option<usize> = None;
    for (index, line) in source.lines().enumerate() {
        let number = index + 1;
        if let Some(rest) = after_marker(line, "---") {
            if seen_content && second_start.is_none() {
                second_start = Some(number);
            }
            ended = false;
            if !is_content(rest) {
                continue;
            }
        } else if after_marker(line, "...").is_some() {
            ended = seen_content;
            continue;
        } else if !is_content(line) {
            continue;
        }
        if let Some(start) = second_start {
            return Some(start);
        }
        if ended {
            return Some(number);
        }
        seen_content = true;
    }
    None
}

/// The parsed file; [`Document::root`] borrows from it.
pub(super) struct Document<'a> {
    ctx: &'a Ctx<'a>,
    node: Node,
}

impl Document<'_> {
    pub fn root(&self) -> Result<Map<'_>, ConfigError> {
        match &self.node {
            Node::Mapping(node) => Ok(Map {
                ctx: self.ctx,
                node,
                path: String::new(),
                pos: mapping_pos(node).unwrap_or(Pos::START),
            }),
            // The loader refuses any other top level; this keeps that promise local.
            _ => Err(self.ctx.syntax_error(Pos::START, TOP_LEVEL)),
        }
    }
}

const TOP_LEVEL: &str = "the config must be a mapping with keys such as listen and clusters";

fn load_error(ctx: &Ctx<'_>, source: &str, error: LoadError) -> ConfigError {
    let at = |marker: &marked_yaml::Marker| Pos { line: marker.line(), column: marker.column() };
    match error {
        LoadError::TopLevelMustBeMapping(marker) | LoadError::TopLevelMustBeSequence(marker) => {
            ctx.syntax_error(at(&marker), TOP_LEVEL)
        }
        LoadError::UnexpectedAnchor(marker) => ctx.syntax_error(
            at(&marker),
            "YAML anchors and aliases are not supported; write the value out",
        ),
        LoadError::UnexpectedTag(marker) => {
            ctx.syntax_error(at(&marker), "YAML tags (!tag) are not supported; remove the tag")
        }
        LoadError::MappingKeyMustBeScalar(marker) => {
            ctx.syntax_error(at(&marker), "a key must be a plain name, not a list or mapping")
        }
        LoadError::ScanError(marker, scan) => {
            ctx.syntax_error(at(&marker), format!("invalid YAML: {}", one_line(scan.info())))
        }
        LoadError::DuplicateKey(inner) => {
            let first = Pos::of(inner.prev_key.span()).unwrap_or(Pos::START);
            let second = Pos::of(inner.key.span()).unwrap_or(Pos::START);
            let name = inner.key.as_str();
            let key =
                duplicate_key_path(source, first, second).unwrap_or_else(|| child_path("", name));
            ctx.error(
                second,
                &key,
                format!(
                    "duplicate key {name:?}; it is already set at {}:{}, keep only one",
                    first.line, first.column
                ),
            )
        }
    }
}

/// The loader reports a duplicate key without its path. Parsing again with duplicates allowed
/// gives the tree, where one of the two keys sits at a known position.
fn duplicate_key_path(source: &str, first: Pos, second: Pos) -> Option<String> {
    let options = LoaderOptions::default().prevent_coercion(true);
    let node = marked_yaml::parse_yaml_with_options(0, source, options).ok()?;
    find_key(&node, "", &[first, second])
}

fn find_key(node: &Node, path: &str, wanted: &[Pos]) -> Option<String> {
    match node {
        Node::Scalar(_) => None,
        Node::Sequence(items) => items
            .iter()
            .enumerate()
            .find_map(|(index, item)| find_key(item, &format!("{path}[{index}]"), wanted)),
        Node::Mapping(map) => map.iter().find_map(|(key, value)| {
            let here = child_path(path, key.as_str());
            if Pos::of(key.span()).is_some_and(|pos| wanted.contains(&pos)) {
                Some(here)
            } else {
                find_key(value, &here, wanted)
            }
        }),
    }
}

/// The path of `key` inside `parent`: `a.b`, or `a["b.c"]` when the key is not a plain word.
pub(super) fn child_path(parent: &str, key: &str) -> String {
    let plain =
        !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (parent.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{parent}.{key}"),
        (_, false) => format!("{parent}[{key:?}]"),
    }
}

/// Keeps an error on one line whatever a library put in it.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn mapping_pos(node: &MarkedMappingNode) -> Option<Pos> {
    // A flow mapping's mark is its `{`; a block mapping's sits one column into its first key,
    // so the earlier of the two is where the mapping starts on screen.
    let own = Pos::of(node.span());
    let first_key = node.keys().next().and_then(|key| Pos::of(key.span()));
    match (own, first_key) {
        (Some(own), Some(key)) => {
            Some(if (own.line, own.column) <= (key.line, key.column) { own } else { key })
        }
        (own, key) => own.or(key),
    }
}

/// A string value after `${NAME}` substitution.
pub(super) struct Text {
    pub value: String,
    /// Whether any part came from the environment.
    pub interpolated: bool,
}

impl Text {
    /// The value quoted for an error, unless it came from the environment, where it may hold
    /// something that must not be printed.
    pub fn shown(&self) -> String {
        if self.interpolated {
            "the value from the environment".to_string()
        } else {
            format!("{:?}", self.value)
        }
    }
}

/// One value in the tree with its key path and position.
#[derive(Clone)]
pub(super) struct Value<'a> {
    ctx: &'a Ctx<'a>,
    node: &'a Node,
    path: String,
    /// The value's own position, or its key's when the value is empty.
    pos: Pos,
}

impl<'a> Value<'a> {
    fn new(ctx: &'a Ctx<'a>, node: &'a Node, path: String, fallback: Pos) -> Value<'a> {
        let own = match node {
            Node::Scalar(scalar) if is_null(scalar) && scalar.as_str().is_empty() => None,
            Node::Scalar(scalar) => Pos::of(scalar.span()),
            Node::Mapping(map) => mapping_pos(map),
            Node::Sequence(items) => Pos::of(items.span()),
        };
        Value { ctx, node, path, pos: own.unwrap_or(fallback) }
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// An error about this value, at its position.
    pub fn error(&self, message: impl Into<String>) -> ConfigError {
        self.ctx.error(self.pos, &self.path, message)
    }

    pub fn ctx(&self) -> &'a Ctx<'a> {
        self.ctx
    }

    fn kind(&self) -> &'static str {
        match self.node {
            Node::Scalar(scalar) if is_null(scalar) => "nothing",
            Node::Scalar(_) => "a single value",
            Node::Mapping(_) => "a mapping",
            Node::Sequence(_) => "a list",
        }
    }

    fn type_error(&self, expected: &str) -> ConfigError {
        match self.node {
            Node::Scalar(scalar) if is_null(scalar) => {
                self.error(format!("has no value; give {expected}"))
            }
            _ => self.error(format!("expected {expected}, found {}", self.kind())),
        }
    }

    /// A string, number or boolean, as text, after `${NAME}` substitution.
    pub fn text_described(&self, expected: &str) -> Result<Text, ConfigError> {
        let scalar = match self.node {
            Node::Scalar(scalar) if !is_null(scalar) => scalar,
            _ => return Err(self.type_error(expected)),
        };
        match interpolate(scalar.as_str(), self.ctx.env) {
            Ok((value, interpolated)) => Ok(Text { value, interpolated }),
            Err(InterpolationError::Unset(name)) => Err(self.error(format!(
                "environment variable {name} is not set; set it, or change the value"
            ))),
            Err(InterpolationError::Unterminated) => Err(self.error(
                "\"${\" has no closing \"}\"; write ${NAME}, or \"$${\" for a literal \"${\"",
            )),
            Err(InterpolationError::BadName) => Err(self.error(
                "\"${...}\" must name an environment variable made of letters, digits and _; \
                 write \"$${\" for a literal \"${\"",
            )),
        }
    }

    pub fn text(&self) -> Result<Text, ConfigError> {
        self.text_described("a string")
    }

    /// A string that is not empty once trimmed; returned trimmed.
    pub fn non_empty_string(&self) -> Result<String, ConfigError> {
        let text = self.text()?;
        let trimmed = text.value.trim();
        if trimmed.is_empty() {
            return Err(self.error("is empty; give a value"));
        }
        Ok(trimmed.to_string())
    }

    /// A secret: never echoed, never empty.
    pub fn secret(&self) -> Result<Secret, ConfigError> {
        let text = self.text()?;
        if text.value.is_empty() {
            return Err(self.error("is empty; give the secret"));
        }
        Ok(Secret::new(text.value))
    }

    pub fn bool(&self) -> Result<bool, ConfigError> {
        let text = self.text_described("true or false")?;
        match text.value.as_str() {
            "true" | "True" | "TRUE" => Ok(true),
            "false" | "False" | "FALSE" => Ok(false),
            _ => Err(self.error(format!("expected true or false, found {}", text.shown()))),
        }
    }

    /// The items of a list; a list never means a single value.
    pub fn list(&self) -> Result<Vec<Value<'a>>, ConfigError> {
        let Node::Sequence(items) = self.node else {
            return Err(self.type_error("a list such as [a, b]"));
        };
        Ok(items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                Value::new(self.ctx, item, format!("{}[{index}]", self.path), self.pos)
            })
            .collect())
    }

    /// A list that has at least one item.
    pub fn non_empty_list(&self, hint: &str) -> Result<Vec<Value<'a>>, ConfigError> {
        let items = self.list()?;
        if items.is_empty() {
            return Err(self.error(format!("is an empty list; {hint}")));
        }
        Ok(items)
    }

    /// A list of non-empty strings.
    pub fn string_list(&self) -> Result<Vec<String>, ConfigError> {
        self.list()?.iter().map(Value::non_empty_string).collect()
    }

    pub fn map(&self) -> Result<Map<'a>, ConfigError> {
        let Node::Mapping(node) = self.node else {
            return Err(self.type_error("a mapping of keys to values"));
        };
        Ok(Map { ctx: self.ctx, node, path: self.path.clone(), pos: self.pos })
    }
}

/// A plain `~`, `null` or empty value: YAML's null, which no key accepts.
fn is_null(scalar: &MarkedScalarNode) -> bool {
    scalar.may_coerce() && matches!(scalar.as_str(), "" | "~" | "null" | "Null" | "NULL")
}

/// A key as written, with its position.
pub(super) struct Key<'a> {
    pub name: &'a str,
    pub pos: Pos,
}

/// A mapping with its key path and position.
pub(super) struct Map<'a> {
    ctx: &'a Ctx<'a>,
    node: &'a MarkedMappingNode,
    path: String,
    pos: Pos,
}

impl<'a> Map<'a> {
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Where this mapping is, for a message: `at the top level` or `in clusters[0].sasl`.
    fn place(&self) -> String {
        if self.path.is_empty() {
            "at the top level".to_string()
        } else {
            format!("in {}", self.path)
        }
    }

    /// Every key in file order, with its value.
    pub fn entries(&self) -> Vec<(Key<'a>, Value<'a>)> {
        self.node
            .iter()
            .map(|(key, value)| {
                let pos = Pos::of(key.span()).unwrap_or(self.pos);
                let path = child_path(&self.path, key.as_str());
                (Key { name: key.as_str(), pos }, Value::new(self.ctx, value, path, pos))
            })
            .collect()
    }

    /// Refuses any key not in `allowed`, suggesting the nearest allowed one.
    pub fn only(&self, allowed: &[&str]) -> Result<(), ConfigError> {
        for key in self.node.keys() {
            let name = key.as_str();
            if allowed.contains(&name) {
                continue;
            }
            let pos = Pos::of(key.span()).unwrap_or(self.pos);
            let suggestion = nearest(name, allowed.iter().copied())
                .map(|near| format!("did you mean {near:?}? "))
                .unwrap_or_default();
            let place = self.place();
            return Err(self.ctx.error(
                pos,
                &child_path(&self.path, name),
                format!(
                    "unknown key {name:?}; {suggestion}allowed keys {place}: {}",
                    allowed.join(", ")
                ),
            ));
        }
        Ok(())
    }

    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.node.iter().find(|(name, _)| name.as_str() == key).map(|(name, value)| {
            let pos = Pos::of(name.span()).unwrap_or(self.pos);
            Value::new(self.ctx, value, child_path(&self.path, key), pos)
        })
    }

    /// A key that must be present; the error points at this mapping.
    pub fn required(&self, key: &str, hint: &str) -> Result<Value<'a>, ConfigError> {
        self.get(key).ok_or_else(|| {
            self.ctx.error(
                self.pos,
                &child_path(&self.path, key),
                format!("missing required key {key:?} {}; {hint}", self.place()),
            )
        })
    }
}
