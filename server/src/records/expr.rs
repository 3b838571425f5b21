//! The expression filter: a CEL expression over one record as the caller sees it (decoded,
//! and masked where the caller sees the topic masked), compiled once per read.
//!
//! CEL has no loops and no recursion, but a program can still ask for much: an expression's
//! size, its nesting and the work one record may cost are bounded here before it runs.
//! - At most [`MAX_EXPRESSION`] bytes, brackets nested at most [`MAX_NESTING`] deep (counted
//!   before the parser sees them), and a tree at most [`MAX_DEPTH`] deep: evaluation recurses
//!   along the tree on whatever thread scans. The parser itself runs on a thread with a stack
//!   of its own, [`PARSE_STACK`], large enough for any tree [`MAX_EXPRESSION`] bytes can spell.
//! - No comprehension (`all`, `exists`, `exists_one`, `filter`) inside another one's body, and
//!   no `map`: a record's cost stays linear in its size; chained maps could double a string at
//!   each step.
//! - At most [`MAX_REFERENCES`] names: a concatenation can then be at most that many times
//!   the size of the record.

use std::collections::HashMap;
use std::sync::Arc;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt,
};
use cel::common::value::Val;
use cel::{Context, Env, Program, Value};

use app::api::{Encoded, Encoding, Record};

use super::RawRecord;

/// The longest expression, in bytes.
pub const MAX_EXPRESSION: usize = 4096;
/// The deepest nesting of brackets (and conditionals) an expression may write.
pub const MAX_NESTING: usize = 32;
/// The deepest expression tree, as parsed.
pub const MAX_DEPTH: usize = 64;
/// The most names (variables and comprehension variables) an expression may refer to.
pub const MAX_REFERENCES: usize = 64;
/// The stack of the thread that parses: enough for the deepest tree an expression of
/// [`MAX_EXPRESSION`] bytes can make the parser build, in a debug build.
const PARSE_STACK: usize = 128 << 20;

/// What an expression sees of a record, by name.
pub const VARIABLES: [&str; 10] = [
    "key",
    "value",
    "keyText",
    "valueText",
    "headers",
    "partition",
    "offset",
    "timestamp",
    "size",
    "schemaId",
];

/// Names CEL gives types, usable as values (`type(value) == map`).
const TYPE_NAMES: [&str; 11] =
    ["int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"];

/// The macros that loop over a list or map: their first argument names the element.
const COMPREHENSIONS: [&str; 5] = ["all", "exists", "exists_one", "filter", "map"];

/// A fault in an expression: where (line and column, from 1, in characters) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Fault {
    fn at(source: &str, offset: usize, message: impl Into<String>) -> Fault {
        let before = &source[..floor_char_boundary(source, offset)];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Fault { line, column, message: message.into() }
    }

    /// The fault as one sentence for the caller: where, then what.
    pub fn sentence(&self) -> String {
        if self.line > 1 {
            format!("Line {}, column {}: {}", self.line, self.column, self.message)
        } else {
            format!("Column {}: {}", self.column, self.message)
        }
    }
}

fn floor_char_boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Which of a record's parts an expression reads, so that nothing else is decoded or bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Uses {
    pub key: bool,
    pub value: bool,
    pub key_text: bool,
    pub value_text: bool,
    pub headers: bool,
    pub schema_id: bool,
}

impl Uses {
    /// Whether the record must be decoded for the expression.
    pub fn decoded(&self) -> bool {
        self.key || self.value || self.key_text || self.value_text || self.schema_id
    }
}

/// The fields of a decoded key or value an expression reaches: all of it (`whole`), or only
/// the fields named below, each reached the same way. Only what is reached is made into CEL
/// values for each record: `value.customer.city` needs one field of each map on the way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    whole: bool,
    fields: std::collections::BTreeMap<String, Reach>,
}

impl Reach {
    /// Whether all of the part is reached.
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    fn add(&mut self, path: &[&str]) {
        match path.split_first() {
            None => self.whole = true,
            Some((field, rest)) => self.fields.entry((*field).to_string()).or_default().add(rest),
        }
    }
}

/// JSON text read as far as `reach` goes: the fields of each object it does not name are
/// skipped, not built. `None` when the text is not JSON.
pub fn reached_json(text: &str, reach: &Reach) -> Option<serde_json::Value> {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
    use serde_json::Value as J;

    struct Seed<'r>(&'r Reach);
    struct Fields<'r>(&'r Reach);

    impl<'de> DeserializeSeed<'de> for Seed<'_> {
        type Value = J;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<J, D::Error> {
            if self.0.whole {
                return serde::Deserialize::deserialize(d);
            }
            d.deserialize_any(Fields(self.0))
        }
    }

    // Anything but an object is taken whole: a field of it is an error either way.
    impl<'de> Visitor<'de> for Fields<'_> {
        type Value = J;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J, A::Error> {
            let mut out = serde_json::Map::new();
            while let Some(name) = map.next_key::<String>()? {
                match self.0.fields.get(&name) {
                    Some(below) => {
                        let value = map.next_value_seed(Seed(below))?;
                        out.insert(name, value);
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(J::Object(out))
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<J, A::Error> {
            serde::Deserialize::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
        }
        fn visit_bool<E>(self, v: bool) -> Result<J, E> {
            Ok(J::Bool(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<J, E> {
            Ok(J::from(v))
        }
        fn visit_u64<E>(self, v: u64) -> Result<J, E> {
            Ok(J::from(v))
        }
        fn visit_f64<E>(self, v: f64) -> Result<J, E> {
            Ok(serde_json::Number::from_f64(v).map_or(J::Null, J::Number))
        }
        fn visit_str<E>(self, v: &str) -> Result<J, E> {
            Ok(J::String(v.to_string()))
        }
        fn visit_string<E>(self, v: String) -> Result<J, E> {
            Ok(J::String(v))
        }
        fn visit_unit<E>(self) -> Result<J, E> {
            Ok(J::Null)
        }
    }

    let mut reader = serde_json::Deserializer::from_str(text);
    let value = Seed(reach).deserialize(&mut reader).ok()?;
    reader.end().ok()?;
    Some(value)
}

/// What an expression reads of a record: which parts, and how far into the decoded ones.
#[derive(Clone, Debug, Default)]
struct Reads {
    uses: Uses,
    key: Reach,
    value: Reach,
}

/// A compiled expression.
pub struct Expression {
    program: Program,
    env: Arc<Env>,
    uses: Uses,
    key: Reach,
    value: Reach,
}

impl std::fmt::Debug for Expression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expression").field("uses", &self.uses).finish_non_exhaustive()
    }
}

impl Expression {
    /// Compiles `source`, or says where it is wrong or too much.
    pub fn compile(source: &str) -> Result<Expression, Fault> {
        if source.len() > MAX_EXPRESSION {
            return Err(Fault::at(
                source,
                MAX_EXPRESSION,
                format!("an expression is at most {MAX_EXPRESSION} bytes"),
            ));
        }
        if source.trim().is_empty() {
            return Err(Fault::at(source, 0, "the expression is empty"));
        }
        nesting(source)?;
        let owned = source.to_string();
        // The parser recurses along what it parses; its own thread has room for the deepest.
        let parsed = std::thread::Builder::new()
            .name("klens-expression".into())
            .stack_size(PARSE_STACK)
            .spawn(move || parse(&owned))
            .map_err(|e| Fault::at(source, 0, format!("no thread to compile it on: {e}")))?
            .join()
            .map_err(|_| Fault::at(source, 0, "the expression could not be compiled"))?;
        let (program, reads) = parsed?;
        Ok(Expression {
            program,
            env: environment(),
            uses: reads.uses,
            key: reads.key,
            value: reads.value,
        })
    }

    pub fn uses(&self) -> Uses {
        self.uses
    }

    /// How far the expression reaches into the record's value.
    pub fn value_reach(&self) -> &Reach {
        &self.value
    }

    /// Whether `record` passes: the expression's answer, which must be a bool. `shown` is the
    /// record decoded (and masked) as the caller sees it, given when [`Uses::decoded`].
    pub fn test(&self, record: &RawRecord, shown: Option<&Record>) -> Result<bool, String> {
        let uses = self.uses;
        let mut context = Context::with_env(Arc::clone(&self.env));
        context.add_variable_as_val("partition", Box::new(CelInt::from(record.partition as i64)));
        context.add_variable_as_val("offset", Box::new(CelInt::from(record.offset)));
        context.add_variable_as_val("size", Box::new(CelInt::from(record.size() as i64)));
        context.add_variable_as_val(
            "timestamp",
            match record.timestamp {
                Some(ts) => Box::new(CelInt::from(ts)),
                None => Box::new(CelNull),
            },
        );
        if uses.headers {
            context.add_variable_as_val("headers", headers(record));
        }
        if let Some(shown) = shown {
            if uses.key {
                context.add_variable_as_val("key", projected(&shown.key.data, &self.key));
            }
            if uses.value {
                context.add_variable_as_val("value", projected(&shown.value.data, &self.value));
            }
            if uses.key_text {
                context.add_variable_as_val("keyText", text(&shown.key, record.key.as_deref()));
            }
            if uses.value_text {
                context
                    .add_variable_as_val("valueText", text(&shown.value, record.value.as_deref()));
            }
            if uses.schema_id {
                context.add_variable_as_val(
                    "schemaId",
                    match shown.value.schema_id {
                        Some(id) => Box::new(CelInt::from(i64::from(id))),
                        None => Box::new(CelNull),
                    },
                );
            }
        }
        match self.program.execute(&context) {
            Ok(Value::Bool(pass)) => Ok(pass),
            Ok(other) => {
                Err(format!("the expression gave {} where a bool was wanted", kind(&other)))
            }
            Err(error) => Err(error.to_string()),
        }
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::List(_) => "a list",
        Value::Map(_) => "a map",
        Value::Int(_) => "an int",
        Value::UInt(_) => "a uint",
        Value::Float(_) => "a double",
        Value::String(_) => "a string",
        Value::Bytes(_) => "bytes",
        Value::Null => "null",
        _ => "a value of another type",
    }
}

/// The environment every expression runs in: CEL's standard functions and macros, without
/// optional values.
fn environment() -> Arc<Env> {
    static ENV: std::sync::OnceLock<Arc<Env>> = std::sync::OnceLock::new();
    Arc::clone(ENV.get_or_init(|| Arc::new(Env::stdlib().with_optional_support(false))))
}

/// Counts brackets and conditionals outside strings and comments; refuses nesting deeper
/// than [`MAX_NESTING`] before the parser meets it.
fn nesting(source: &str) -> Result<(), Fault> {
    let bytes = source.as_bytes();
    let (mut depth, mut conditionals, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(Fault::at(
                        source,
                        i,
                        format!("brackets nest at most {MAX_NESTING} deep"),
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'?' => {
                conditionals += 1;
                if conditionals > MAX_NESTING {
                    return Err(Fault::at(
                        source,
                        i,
                        format!("an expression has at most {MAX_NESTING} conditionals"),
                    ));
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            quote @ (b'\'' | b'"') => {
                let raw = i > 0 && matches!(bytes[i - 1], b'r' | b'R');
                let triple = bytes[i..].starts_with(&[quote; 3]);
                let width = if triple { 3 } else { 1 };
                i += width;
                while i < bytes.len() {
                    if bytes[i] == b'\\' && !raw {
                        i += 2;
                        continue;
                    }
                    if bytes[i..].starts_with(&[quote; 3][..width]) {
                        i += width - 1;
                        break;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Parses `source` twice: as written (to look at what it asks for) and with CEL's macros
/// expanded (to run). Runs on the parsing thread, where deep trees are dropped too.
fn parse(source: &str) -> Result<(Program, Reads), Fault> {
    let fault = |errors: cel::ParseErrors| match errors.errors.into_iter().next() {
        Some(e) => {
            let (line, column) = (e.pos.0.max(1) as usize, e.pos.1.max(1) as usize);
            Fault { line, column, message: plain_message(&e.msg) }
        }
        None => Fault::at(source, 0, "the expression does not parse"),
    };
    let written = Env::default()
        .with_optional_support(false)
        .parser()
        .parse_with_source_info(source)
        .map_err(fault)?;
    let (tree, info) = written;
    // Where a node starts, in bytes of the source; a call is placed at its bracket, and the
    // caller is shown its name.
    let offset_of = |id: u64, name: Option<&str>| {
        let at = info.offset_for(id).map_or(0, |(start, _)| start as usize);
        match name {
            Some(name) if source.get(..at).is_some_and(|before| before.ends_with(name)) => {
                at - name.len()
            }
            _ => at,
        }
    };
    let reads = look(&tree).map_err(|(id, name, message)| {
        Fault::at(source, offset_of(id, name.as_deref()), message)
    })?;
    let program = environment().compile(source).map_err(fault)?;
    Ok((program, reads))
}

/// Where a refusal points (a node, and the name of the call it is), and why.
type Refusal = (u64, Option<String>, String);

/// The parser's message in fewer words: its end named as such, and a long list of the tokens
/// it expected left out.
fn plain_message(message: &str) -> String {
    let message = message
        .replace("mismatched input '<EOF>'", "the expression ends early")
        .replace("'<EOF>'", "the end");
    match message.find(" expecting {") {
        Some(at) if message.len() - at > 60 => message[..at].to_string(),
        _ => message,
    }
}

/// Walks the expression as written: its depth, the names it uses, and what it may not do.
/// On a fault, the id of the node and what is wrong there.
fn look(root: &IdedExpr) -> Result<Reads, Refusal> {
    let mut reads = Reads::default();
    let mut references = 0usize;
    // (node, depth, inside a comprehension's body, names bound by comprehensions around it,
    // reached as the start of a chain of fields, whose path is already in `reads`)
    let mut stack: Vec<(&IdedExpr, usize, bool, Vec<&str>, bool)> =
        vec![(root, 1, false, Vec::new(), false)];
    while let Some((node, depth, in_body, bound, chained)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err((
                node.id,
                None,
                format!("the expression nests more than {MAX_DEPTH} deep"),
            ));
        }
        let below = depth + 1;
        match &node.expr {
            Expr::Ident(name) => {
                references += 1;
                if references > MAX_REFERENCES {
                    return Err((
                        node.id,
                        None,
                        format!("an expression names at most {MAX_REFERENCES} values"),
                    ));
                }
                let uses = &mut reads.uses;
                match name.as_str() {
                    "key" => {
                        uses.key = true;
                        if !chained {
                            reads.key.add(&[]);
                        }
                    }
                    "value" => {
                        uses.value = true;
                        if !chained {
                            reads.value.add(&[]);
                        }
                    }
                    "keyText" => uses.key_text = true,
                    "valueText" => uses.value_text = true,
                    "headers" => uses.headers = true,
                    "schemaId" => uses.schema_id = true,
                    known if VARIABLES.contains(&known) || TYPE_NAMES.contains(&known) => {}
                    bound_name if bound.contains(&bound_name) => {}
                    unknown => {
                        return Err((
                            node.id,
                            None,
                            format!(
                                "no value is called {unknown}; a record has {}",
                                VARIABLES.join(", ")
                            ),
                        ))
                    }
                }
            }
            Expr::Call(call) => {
                let looping = call.target.is_some()
                    && COMPREHENSIONS.contains(&call.func_name.as_str())
                    && (2..=3).contains(&call.args.len());
                if looping {
                    if call.func_name == "map" {
                        return Err((
                            node.id,
                            Some(call.func_name.clone()),
                            "map is not offered: exists, all and filter answer what a filter asks"
                                .to_string(),
                        ));
                    }
                    if in_body {
                        return Err((
                            node.id,
                            Some(call.func_name.clone()),
                            format!(
                                "{} inside another comprehension is not offered",
                                call.func_name
                            ),
                        ));
                    }
                    let mut names = bound.clone();
                    let (vars, body) = call.args.split_at(call.args.len() - 1);
                    for var in vars {
                        match &var.expr {
                            Expr::Ident(name) => names.push(name),
                            _ => {
                                return Err((
                                    var.id,
                                    None,
                                    format!("{} names its element first", call.func_name),
                                ))
                            }
                        }
                    }
                    if let Some(target) = &call.target {
                        stack.push((target, below, in_body, bound.clone(), false));
                    }
                    for b in body {
                        stack.push((b, below, true, names.clone(), false));
                    }
                } else {
                    if let Some(target) = &call.target {
                        stack.push((target, below, in_body, bound.clone(), false));
                    }
                    for arg in &call.args {
                        stack.push((arg, below, in_body, bound.clone(), false));
                    }
                }
            }
            Expr::Select(select) => {
                // A chain of fields from the record's key or value: its path is what the
                // expression reaches of that part.
                let mut path = vec![select.field.as_str()];
                let mut start = &*select.operand;
                while let Expr::Select(inner) = &start.expr {
                    path.push(inner.field.as_str());
                    start = &inner.operand;
                }
                match &start.expr {
                    Expr::Ident(name)
                        if (name == "value" || name == "key")
                            && !bound.contains(&name.as_str()) =>
                    {
                        path.reverse();
                        let reach = if name == "value" { &mut reads.value } else { &mut reads.key };
                        reach.add(&path);
                        stack.push((start, depth + path.len(), in_body, bound, true));
                    }
                    _ => stack.push((&select.operand, below, in_body, bound, false)),
                }
            }
            Expr::List(list) => {
                for e in &list.elements {
                    stack.push((e, below, in_body, bound.clone(), false));
                }
            }
            Expr::Map(map) => {
                for entry in &map.entries {
                    match &entry.expr {
                        EntryExpr::MapEntry(e) => {
                            stack.push((&e.key, below, in_body, bound.clone(), false));
                            stack.push((&e.value, below, in_body, bound.clone(), false));
                        }
                        EntryExpr::StructField(f) => {
                            stack.push((&f.value, below, in_body, bound.clone(), false))
                        }
                    }
                }
            }
            Expr::Struct(_) => {
                return Err((
                    node.id,
                    None,
                    "messages are not offered; a record has maps".to_string(),
                ))
            }
            Expr::Comprehension(_) | Expr::Literal(_) | Expr::Unspecified => {}
        }
    }
    Ok(reads)
}

/// A decoded key or value as a CEL value, borrowing its strings: JSON, Avro, Protobuf and
/// JSON Schema data as maps, lists and scalars; text and base64 as the string shown. Of a map,
/// only the fields `reach` names, unless it reaches the whole.
fn projected<'a>(data: &'a serde_json::Value, reach: &Reach) -> Box<dyn Val + 'a> {
    match data {
        serde_json::Value::Object(fields) if !reach.whole => Box::new(CelMap::from(
            reach
                .fields
                .iter()
                .filter_map(|(name, below)| {
                    let (name, value) = fields.get_key_value(name.as_str())?;
                    Some((CelMapKey::from(name.as_str()), projected(value, below)))
                })
                .collect::<HashMap<_, _>>(),
        )),
        _ => json(data),
    }
}

fn json(value: &serde_json::Value) -> Box<dyn Val + '_> {
    use serde_json::Value as J;
    match value {
        J::Null => Box::new(CelNull),
        J::Bool(b) => Box::new(CelBool::from(*b)),
        J::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Box::new(CelInt::from(i)),
            (None, Some(u)) => Box::new(CelUInt::from(u)),
            _ => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
        },
        J::String(s) => Box::new(CelString::from(s.as_str())),
        J::Array(items) => Box::new(CelList::from(items.iter().map(json).collect::<Vec<_>>())),
        J::Object(fields) => Box::new(CelMap::from(
            fields
                .iter()
                .map(|(k, v)| (CelMapKey::from(k.as_str()), json(v)))
                .collect::<HashMap<_, _>>(),
        )),
    }
}

/// A key or value as text, the way the caller sees it: its own bytes when they are text or
/// JSON shown as written, else what is shown (decoded data as JSON, base64), null for none.
fn text<'a>(part: &'a Encoded, bytes: Option<&'a [u8]>) -> Box<dyn Val + 'a> {
    match (&part.encoding, &part.data) {
        (Encoding::Null, _) => Box::new(CelNull),
        (Encoding::Json | Encoding::Text, _) if !part.masked => {
            match bytes.map(std::str::from_utf8) {
                Some(Ok(text)) => Box::new(CelString::from(text)),
                _ => Box::new(CelNull),
            }
        }
        (_, serde_json::Value::String(s)) => Box::new(CelString::from(s.as_str())),
        (_, data) => Box::new(CelString::from(data.to_string())),
    }
}

/// Headers as a map of name to text (base64 when not UTF-8, null when none); of repeated
/// names, the last.
fn headers(record: &RawRecord) -> Box<dyn Val + '_> {
    let map: HashMap<CelMapKey<'_>, Box<dyn Val + '_>> = record
        .headers
        .iter()
        .map(|(name, value)| {
            let value: Box<dyn Val + '_> = match value.as_deref() {
                None => Box::new(CelNull),
                Some(bytes) => match std::str::from_utf8(bytes) {
                    Ok(text) => Box::new(CelString::from(text)),
                    Err(_) => Box::new(CelString::from(STANDARD.encode(bytes))),
                },
            };
            (CelMapKey::from(name.as_str()), value)
        })
        .collect();
    Box::new(CelMap::from(map))
}

#[cfg(test)]
mod tests;
