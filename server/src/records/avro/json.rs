//! Avro datums written as JSON in one pass, through a plan of their schema worked out once per
//! schema: references resolved to the types they name, each record field's key already quoted
//! with its comma and colon, each enum symbol already quoted.

use std::collections::HashMap;

use apache_avro::schema::{EnumSchema, FixedSchema, Name, RecordSchema};
use apache_avro::Schema;

use super::{nothing_left, read_long, spend, Names, MAX_DEPTH, ZERO_WIDTH_ITEMS};

/// A schema as the walk to JSON follows it.
pub struct Plan {
    nodes: Vec<Node>,
    /// The schema's own node.
    root: usize,
}

enum Node {
    Null,
    Boolean,
    /// An `int`, and the logical types written as one (date, time-millis).
    Int,
    /// A `long`, and the logical types written as one (times and timestamps).
    Long,
    Float,
    Double,
    String,
    Bytes,
    Fixed(usize),
    /// The symbols, each quoted.
    Enum(Box<[Box<[u8]>]>),
    /// The branches: each one's node, and whether its JSON says that it is this branch (no
    /// other branch is written as the same kind of JSON: a number, an object, ...).
    Union(Box<[(usize, bool)]>),
    /// The fields in order: `"name":` (after a comma but for the first) and the field's node.
    Record(Box<[(Box<[u8]>, usize)]>),
    Array(usize),
    Map(usize),
    /// What the walk does not write, and why: the logical types decoded the slower way, a
    /// reference to a type the schema lacks, a schema nested deeper than any datum may be.
    Refused(Box<str>),
}

impl Plan {
    /// Works out the plan of `schema`, whose named types (and those of the schemas it
    /// references) are `names`.
    pub fn new(schema: &Schema, names: &Names) -> Plan {
        let mut planner = Planner { names, nodes: Vec::new(), named: HashMap::new() };
        let root = planner.node(schema, None, 0);
        Plan { nodes: planner.nodes, root }
    }
}

struct Planner<'a> {
    names: &'a Names,
    nodes: Vec<Node>,
    /// The node of each named type planned so far, so that a recursive type refers to itself.
    named: HashMap<Name, usize>,
}

impl Planner<'_> {
    fn push(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// The node of `schema` in the namespace `space`. A named type is planned once.
    fn node(&mut self, schema: &Schema, space: Option<&str>, depth: usize) -> usize {
        if depth > MAX_DEPTH {
            return self.push(Node::Refused(
                format!("the schema nests deeper than {MAX_DEPTH} levels").into(),
            ));
        }
        match schema {
            Schema::Null => self.push(Node::Null),
            Schema::Boolean => self.push(Node::Boolean),
            Schema::Int | Schema::Date | Schema::TimeMillis => self.push(Node::Int),
            long_schemas!() => self.push(Node::Long),
            Schema::Float => self.push(Node::Float),
            Schema::Double => self.push(Node::Double),
            Schema::String => self.push(Node::String),
            Schema::Bytes => self.push(Node::Bytes),
            Schema::Fixed(FixedSchema { name, size, .. }) => {
                let full = full_name(name, space);
                self.named_node(full, |_| Node::Fixed(*size))
            }
            Schema::Enum(EnumSchema { name, symbols, .. }) => {
                let full = full_name(name, space);
                self.named_node(full, |_| {
                    Node::Enum(symbols.iter().map(|s| quoted(b"", s, b"")).collect())
                })
            }
            Schema::Union(union) => {
                let nodes: Vec<usize> = union
                    .variants()
                    .iter()
                    .map(|variant| self.node(variant, space, depth + 1))
                    .collect();
                let kinds: Vec<Option<JsonKind>> =
                    nodes.iter().map(|n| self.nodes[*n].json_kind()).collect();
                let variants = nodes
                    .iter()
                    .zip(&kinds)
                    .map(|(node, kind)| {
                        let alone =
                            kind.is_some() && kinds.iter().filter(|k| *k == kind).count() == 1;
                        (*node, alone)
                    })
                    .collect();
                self.push(Node::Union(variants))
            }
            Schema::Record(RecordSchema { name, fields, .. }) => {
                let full = full_name(name, space);
                let inner = full.namespace.clone();
                self.named_node(full, |planner| {
                    let fields = fields
                        .iter()
                        .enumerate()
                        .map(|(i, field)| {
                            let key = quoted(if i == 0 { b"" } else { b"," }, &field.name, b":");
                            (key, planner.node(&field.schema, inner.as_deref(), depth + 1))
                        })
                        .collect();
                    Node::Record(fields)
                })
            }
            Schema::Array(array) => {
                let items = self.node(&array.items, space, depth + 1);
                self.push(Node::Array(items))
            }
            Schema::Map(map) => {
                let values = self.node(&map.types, space, depth + 1);
                self.push(Node::Map(values))
            }
            // A parsed schema names its references in full; one without a namespace takes the
            // enclosing one.
            Schema::Ref { name } => {
                let full = full_name(name, space);
                if let Some(&known) = self.named.get(&full) {
                    return known;
                }
                let names = self.names;
                match names.get(&full) {
                    Some(found) => self.node(found, full.namespace.as_deref(), depth + 1),
                    None => self.push(Node::Refused(
                        format!("the schema has no type named {}", full.fullname(None)).into(),
                    )),
                }
            }
            Schema::Decimal(_) | Schema::BigDecimal | Schema::Duration | Schema::Uuid => {
                self.push(Node::Refused("a logical type decoded the slower way".into()))
            }
        }
    }

    /// A named type's node, made by `make` the first time the name is met (and found under
    /// its name while `make` plans what it contains).
    fn named_node(&mut self, full: Name, make: impl FnOnce(&mut Self) -> Node) -> usize {
        if let Some(&known) = self.named.get(&full) {
            return known;
        }
        // Until `make` is done, the name stands for a record (the only named type that
        // contains others, so the only one found while it is made).
        let at = self.push(Node::Record(Box::new([])));
        self.named.insert(full, at);
        self.nodes[at] = make(self);
        at
    }
}

impl Node {
    /// The kind of JSON the walk writes for this node; `None` for what it refuses (and for a
    /// union, which Avro does not nest in another).
    fn json_kind(&self) -> Option<JsonKind> {
        Some(match self {
            Node::Null => JsonKind::Null,
            Node::Boolean => JsonKind::Boolean,
            Node::Int | Node::Long | Node::Float | Node::Double => JsonKind::Number,
            Node::String | Node::Enum(_) => JsonKind::String,
            Node::Bytes | Node::Fixed(_) | Node::Array(_) => JsonKind::Array,
            Node::Record(_) | Node::Map(_) => JsonKind::Object,
            Node::Union(_) | Node::Refused(_) => return None,
        })
    }
}

/// The kinds of JSON value the walk writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum JsonKind {
    Null,
    Boolean,
    Number,
    String,
    Array,
    Object,
}

/// As `Name::fully_qualified_name` reads a name in the namespace `space`.
fn full_name(name: &Name, space: Option<&str>) -> Name {
    Name {
        name: name.name.clone(),
        namespace: name
            .namespace
            .clone()
            .or_else(|| space.filter(|ns| !ns.is_empty()).map(str::to_string)),
    }
}

/// `before`, `name` as a JSON string, then `after`.
fn quoted(before: &[u8], name: &str, after: &[u8]) -> Box<[u8]> {
    let mut out = before.to_vec();
    super::super::lines::write_str(&mut out, name.as_bytes());
    out.extend_from_slice(after);
    out.into_boxed_slice()
}

/// Writes the datum `bytes` of a schema's `plan` as JSON into `out` in one pass, as the pages
/// show Avro values: records and maps as objects, enums as their symbol, unions as the chosen
/// branch, bytes and fixed as arrays of numbers, logical dates and times as their numbers.
///
/// The walk accepts only what `apache-avro` would write back byte for byte (the shortest
/// varints, one block per array or map, no repeated map key, booleans 0 and 1, finite
/// floats), within the same bounds as [`super::check`]. Anything else, and the logical types
/// it does not write (decimal, duration, uuid), is an error, and the caller decodes the slower
/// way, which says why. On error `out` holds a partial write the caller discards.
///
/// `Ok(true)` when the JSON and the schema alone give back `bytes`: at every union the branch
/// taken is the only one written as its kind of JSON (null, boolean, number, string, array,
/// object), so the value says which branch it is (the rest is the one form the walk takes).
pub fn to_json(plan: &Plan, bytes: &[u8], out: &mut Vec<u8>) -> Result<bool, String> {
    let mut walk = Json {
        nodes: &plan.nodes,
        bytes,
        at: 0,
        items_left: bytes.len().saturating_add(ZERO_WIDTH_ITEMS),
        keys: Vec::new(),
        out,
        told_apart: true,
    };
    walk.datum(plan.root, 0)?;
    nothing_left(bytes, walk.at)?;
    Ok(walk.told_apart)
}

struct Json<'a> {
    nodes: &'a [Node],
    bytes: &'a [u8],
    at: usize,
    items_left: usize,
    /// The keys of the maps being written, to refuse a repeated one.
    keys: Vec<&'a str>,
    out: &'a mut Vec<u8>,
    /// No union met so far leaves its branch in doubt.
    told_apart: bool,
}

impl<'a> Json<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let bytes = self.bytes;
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= bytes.len())
            .ok_or("the datum is cut short")?;
        let taken = &bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    /// A zig-zag varint in its shortest form (the only one written back the same).
    fn long(&mut self) -> Result<i64, String> {
        match read_long(self.bytes, &mut self.at)? {
            (n, true) => Ok(n),
            (_, false) => Err("a number not in its shortest form".into()),
        }
    }

    fn length(&mut self) -> Result<usize, String> {
        let n = self.long()?;
        usize::try_from(n).map_err(|_| format!("a negative length ({n})"))
    }

    /// The one block of an array or map: its item count (0 for none). A second block, or a
    /// negative count, is written back otherwise.
    fn block(&mut self) -> Result<usize, String> {
        let n = self.long()?;
        let n = usize::try_from(n).map_err(|_| "a block with a negative count".to_string())?;
        spend(&mut self.items_left, n)
    }

    fn end_of_blocks(&mut self) -> Result<(), String> {
        match self.long()? {
            0 => Ok(()),
            _ => Err("more than one block".into()),
        }
    }

    fn number(&mut self, n: i64) {
        self.out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }

    fn float(&mut self, f: f64) -> Result<(), String> {
        if !f.is_finite() {
            return Err(format!("{f} has no JSON form"));
        }
        // As serde_json prints a float (its own exponent form, `1e+308`).
        super::super::lines::write_f64(self.out, f);
        Ok(())
    }

    /// A string: a length, then that many bytes of UTF-8.
    fn text(&mut self) -> Result<&'a str, String> {
        let n = self.length()?;
        std::str::from_utf8(self.take(n)?).map_err(|_| "a string that is not UTF-8".to_string())
    }

    /// A string written as it is read, checked as UTF-8 in the same pass.
    fn write_text(&mut self) -> Result<(), String> {
        let n = self.length()?;
        let text = self.take(n)?;
        if super::super::lines::write_str(self.out, text) {
            Ok(())
        } else {
            Err("a string that is not UTF-8".into())
        }
    }

    fn byte_array(&mut self, n: usize) -> Result<(), String> {
        let bytes = self.take(n)?;
        self.out.push(b'[');
        for (i, byte) in bytes.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.out.extend_from_slice(itoa::Buffer::new().format(*byte).as_bytes());
        }
        self.out.push(b']');
        Ok(())
    }

    fn datum(&mut self, node: usize, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("the datum nests deeper than {MAX_DEPTH} levels"));
        }
        let nodes = self.nodes;
        match &nodes[node] {
            Node::Null => {
                self.out.extend_from_slice(b"null");
                Ok(())
            }
            Node::Boolean => {
                let word: &[u8] = match self.take(1)? {
                    [0] => b"false",
                    [1] => b"true",
                    _ => return Err("not a boolean".into()),
                };
                self.out.extend_from_slice(word);
                Ok(())
            }
            Node::Int => {
                let n = self.long()?;
                let n = i32::try_from(n).map_err(|_| format!("{n} is out of range for an int"))?;
                self.number(n.into());
                Ok(())
            }
            Node::Long => {
                let n = self.long()?;
                self.number(n);
                Ok(())
            }
            Node::Float => {
                let raw: [u8; 4] =
                    self.take(4)?.try_into().map_err(|_| "the datum is cut short")?;
                self.float(f32::from_le_bytes(raw).into())
            }
            Node::Double => {
                let raw: [u8; 8] =
                    self.take(8)?.try_into().map_err(|_| "the datum is cut short")?;
                self.float(f64::from_le_bytes(raw))
            }
            Node::String => self.write_text(),
            Node::Bytes => {
                let n = self.length()?;
                self.byte_array(n)
            }
            Node::Fixed(size) => self.byte_array(*size),
            Node::Enum(symbols) => {
                let index = self.long()?;
                let symbol = usize::try_from(index)
                    .ok()
                    .and_then(|i| symbols.get(i))
                    .ok_or_else(|| format!("enum index {index} out of range"))?;
                self.out.extend_from_slice(symbol);
                Ok(())
            }
            Node::Union(variants) => {
                let index = self.long()?;
                let (variant, alone) = usize::try_from(index)
                    .ok()
                    .and_then(|i| variants.get(i))
                    .ok_or_else(|| format!("union index {index} out of range"))?;
                self.told_apart &= *alone;
                self.datum(*variant, depth + 1)
            }
            Node::Record(fields) => {
                self.out.push(b'{');
                for (key, field) in fields.iter() {
                    self.out.extend_from_slice(key);
                    self.datum(*field, depth + 1)?;
                }
                self.out.push(b'}');
                Ok(())
            }
            Node::Array(items) => {
                let n = self.block()?;
                self.out.push(b'[');
                if n > 0 {
                    for i in 0..n {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        self.datum(*items, depth + 1)?;
                    }
                    self.end_of_blocks()?;
                }
                self.out.push(b']');
                Ok(())
            }
            Node::Map(values) => {
                let n = self.block()?;
                self.out.push(b'{');
                if n > 0 {
                    let first_key = self.keys.len();
                    for i in 0..n {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        let key = self.text()?;
                        self.keys.push(key);
                        super::super::lines::write_str(self.out, key.as_bytes());
                        self.out.push(b':');
                        self.datum(*values, depth + 1)?;
                    }
                    // A key written twice reads as one entry, which is not written back the
                    // same.
                    let keys = &mut self.keys[first_key..];
                    keys.sort_unstable();
                    if keys.windows(2).any(|w| w[0] == w[1]) {
                        return Err("a map key written twice".into());
                    }
                    self.keys.truncate(first_key);
                    self.end_of_blocks()?;
                }
                self.out.push(b'}');
                Ok(())
            }
            Node::Refused(why) => Err(why.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apache_avro::schema::ResolvedSchema;

    /// The JSON of `datum` and whether its branches were told apart.
    fn walked(schema: &str, datum: &[u8]) -> (String, bool) {
        let schema = Schema::parse_str(schema).expect("schema");
        let names: Names = ResolvedSchema::try_from(&schema)
            .expect("resolves")
            .get_names()
            .iter()
            .map(|(name, schema)| (name.clone(), (*schema).clone()))
            .collect();
        let mut out = Vec::new();
        let told = to_json(&Plan::new(&schema, &names), datum, &mut out)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)));
        (String::from_utf8(out).expect("UTF-8"), told)
    }

    /// A branch written as the same kind of JSON as another of its union is in doubt (`1` may
    /// be the int or the long), so the bytes cannot be left out; a branch alone in its kind,
    /// or a datum that meets no union, gives them back.
    #[test]
    fn a_union_in_doubt_keeps_the_bytes() {
        assert_eq!(walked(r#"["int","long"]"#, &[2, 2]), ("1".into(), false));
        assert_eq!(walked(r#"["null","double"]"#, &[0]), ("null".into(), true));
        let two_records = r#"{"type":"record","name":"W","fields":[
            {"name":"pick","type":["null",
                {"type":"record","name":"A","fields":[{"name":"a","type":"int"}]},
                {"type":"record","name":"B","fields":[{"name":"b","type":"int"}]}]},
            {"name":"items","type":{"type":"array","items":["string",{"type":"enum","name":"E","symbols":["X"]}]}}]}"#;
        // pick = A{a: 3}, items = []: a record among two.
        assert_eq!(
            walked(two_records, &[2, 6, 0]),
            (r#"{"pick":{"a":3},"items":[]}"#.into(), false)
        );
        // pick = null, items = []: null is the only branch of its kind.
        assert_eq!(walked(two_records, &[0, 0]), (r#"{"pick":null,"items":[]}"#.into(), true));
        // A string and an enum are both JSON strings.
        assert_eq!(
            walked(two_records, &[0, 2, 2, 0, 0]),
            (r#"{"pick":null,"items":["X"]}"#.into(), false)
        );
        // A recursive type met through a reference is an object, beside null.
        let list = r#"{"type":"record","name":"Node","fields":[
            {"name":"value","type":"int"},{"name":"next","type":["null","Node"]}]}"#;
        assert_eq!(
            walked(list, &[2, 2, 4, 0]),
            (r#"{"value":1,"next":{"value":2,"next":null}}"#.into(), true)
        );
    }
}
