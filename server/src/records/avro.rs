//! A walk over an Avro datum that checks it against its schema before anything decodes it. A
//! producer picks the schema id in each record's frame and writes the bytes, so the bytes may
//! be built to hurt: a recursive schema with a few kilobytes of data nests deep enough to
//! overflow the stack, and a block count of arrays or maps makes a decoder reserve memory for
//! items it has not read (zero-width items, such as nulls, even cost no input at all).
//!
//! The walk reads exactly what a decoder would, keeps nothing, and refuses:
//! - nesting deeper than [`MAX_DEPTH`] (records, arrays, maps, unions, references);
//! - more array items and map entries than the datum has bytes, plus [`ZERO_WIDTH_ITEMS`];
//! - lengths, counts and indexes that the remaining bytes or the schema cannot hold.
//!
//! A datum that passes can then be decoded with `apache-avro`, whose reservations are bounded
//! by the same counts.

use apache_avro::schema::{
    DecimalSchema, EnumSchema, FixedSchema, Name, NamesRef, Namespace, RecordSchema,
};
use apache_avro::Schema;

/// The named types of a schema and of those it references, by full name.
pub type Names = std::collections::HashMap<Name, Schema>;

/// The deepest nesting klens decodes.
pub const MAX_DEPTH: usize = 64;
/// Items and entries a datum may hold beyond one per byte: room for arrays of nulls or of
/// empty records, which take no bytes at all.
pub const ZERO_WIDTH_ITEMS: usize = 4096;

/// Checks that `bytes` is exactly one datum of `schema`, within the bounds above.
pub fn check(schema: &Schema, names: &NamesRef<'_>, bytes: &[u8]) -> Result<(), String> {
    let mut walk = Walk {
        names,
        bytes,
        at: 0,
        items_left: bytes.len().saturating_add(ZERO_WIDTH_ITEMS),
    };
    walk.datum(schema, &None, 0)?;
    nothing_left(bytes, walk.at)
}

/// A zig-zag varint at `*at`, as Avro writes ints and longs, and whether it was written in its
/// shortest form (the only one a writer gives back).
fn read_long(bytes: &[u8], at: &mut usize) -> Result<(i64, bool), String> {
    let mut value: u64 = 0;
    for (i, shift) in (0..70).step_by(7).enumerate() {
        let Some(&byte) = bytes.get(*at) else {
            return Err("the datum is cut short inside a number".into());
        };
        *at += 1;
        if shift == 63 && byte > 1 {
            return Err("a number longer than 64 bits".into());
        }
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            let shortest = byte != 0 || i == 0;
            return Ok(((value >> 1) as i64 ^ -((value & 1) as i64), shortest));
        }
    }
    Err("a number longer than 64 bits".into())
}

/// A datum must take every byte it was given.
fn nothing_left(bytes: &[u8], at: usize) -> Result<(), String> {
    match bytes.len().saturating_sub(at) {
        0 => Ok(()),
        left => Err(format!("{left} bytes left after the Avro datum")),
    }
}

struct Walk<'a, 's> {
    names: &'a NamesRef<'s>,
    bytes: &'a [u8],
    at: usize,
    /// Array items and map entries still allowed.
    items_left: usize,
}

impl Walk<'_, '_> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn skip(&mut self, n: usize) -> Result<(), String> {
        if n > self.remaining() {
            return Err(format!(
                "the datum is cut short: {n} bytes wanted, {} left",
                self.remaining()
            ));
        }
        self.at += n;
        Ok(())
    }

    /// A zig-zag varint, as Avro writes ints and longs.
    fn long(&mut self) -> Result<i64, String> {
        read_long(self.bytes, &mut self.at).map(|(n, _)| n)
    }

    /// A length or count that must fit in the bytes that remain.
    fn length(&mut self) -> Result<usize, String> {
        let n = self.long()?;
        let n = usize::try_from(n).map_err(|_| format!("a negative length ({n})"))?;
        if n > self.remaining() {
            return Err(format!(
                "a length of {n} with {} bytes left",
                self.remaining()
            ));
        }
        Ok(n)
    }

    /// A string: a length, then that many bytes of UTF-8.
    fn text(&mut self) -> Result<(), String> {
        let n = self.length()?;
        let start = self.at;
        self.skip(n)?;
        match self.bytes.get(start..self.at).map(std::str::from_utf8) {
            Some(Ok(_)) => Ok(()),
            _ => Err("a string that is not UTF-8".to_string()),
        }
    }

    /// The item count of the next block of an array or map: 0 ends it. A negative count is
    /// followed by the block's size in bytes.
    fn block(&mut self) -> Result<usize, String> {
        let n = self.long()?;
        let n = if n < 0 {
            self.long()?;
            n.checked_neg().ok_or("a block count out of range")?
        } else {
            n
        };
        let n = usize::try_from(n).map_err(|_| "a block count out of range".to_string())?;
        if n > self.items_left {
            return Err(format!(
                "a block of {n} items, more than the datum's bytes can hold"
            ));
        }
        self.items_left -= n;
        Ok(n)
    }

    fn datum(&mut self, schema: &Schema, space: &Namespace, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("the datum nests deeper than {MAX_DEPTH} levels"));
        }
        match schema {
            Schema::Null => Ok(()),
            Schema::Boolean => match self.bytes.get(self.at) {
                Some(0 | 1) => self.skip(1),
                Some(other) => Err(format!("{other} is not a boolean")),
                None => Err("the datum is cut short".into()),
            },
            Schema::Int
            | Schema::Long
            | Schema::Date
            | Schema::TimeMillis
            | Schema::TimeMicros
            | Schema::TimestampMillis
            | Schema::TimestampMicros
            | Schema::TimestampNanos
            | Schema::LocalTimestampMillis
            | Schema::LocalTimestampMicros
            | Schema::LocalTimestampNanos => self.long().map(|_| ()),
            Schema::Float => self.skip(4),
            Schema::Double => self.skip(8),
            Schema::Duration => self.skip(12),
            Schema::String => self.text(),
            Schema::Bytes | Schema::Uuid | Schema::BigDecimal => {
                let n = self.length()?;
                self.skip(n)
            }
            Schema::Fixed(FixedSchema { size, .. }) => self.skip(*size),
            Schema::Decimal(DecimalSchema { inner, .. }) => self.datum(inner, space, depth + 1),
            Schema::Enum(EnumSchema { symbols, .. }) => {
                let index = self.long()?;
                match usize::try_from(index) {
                    Ok(i) if i < symbols.len() => Ok(()),
                    _ => Err(format!("enum index {index} out of range")),
                }
            }
            Schema::Union(union) => {
                let index = self.long()?;
                let variant = usize::try_from(index)
                    .ok()
                    .and_then(|i| union.variants().get(i))
                    .ok_or_else(|| format!("union index {index} out of range"))?;
                self.datum(variant, space, depth + 1)
            }
            Schema::Record(RecordSchema { name, fields, .. }) => {
                let inner = name.fully_qualified_name(space).namespace;
                fields
                    .iter()
                    .try_for_each(|f| self.datum(&f.schema, &inner, depth + 1))
            }
            Schema::Array(array) => loop {
                let n = self.block()?;
                if n == 0 {
                    return Ok(());
                }
                for _ in 0..n {
                    self.datum(&array.items, space, depth + 1)?;
                }
            },
            Schema::Map(map) => loop {
                let n = self.block()?;
                if n == 0 {
                    return Ok(());
                }
                for _ in 0..n {
                    self.text()?;
                    self.datum(&map.types, space, depth + 1)?;
                }
            },
            Schema::Ref { name } => {
                let full: Name = name.fully_qualified_name(space);
                let found = self.names.get(&full).ok_or_else(|| {
                    format!("the schema has no type named {}", full.fullname(None))
                })?;
                self.datum(found, &full.namespace, depth + 1)
            }
        }
    }
}

/// Writes the datum `bytes` of `schema` as JSON into `out` in one pass, as the pages show Avro
/// values: records and maps as objects, enums as their symbol, unions as the chosen branch,
/// bytes and fixed as arrays of numbers, logical dates and times as their numbers.
///
/// The walk accepts only what `apache-avro` would write back byte for byte (the shortest
/// varints, one block per array or map, no repeated map key, booleans 0 and 1, finite
/// floats), within the same bounds as [`check`]. Anything else, and the logical types it does
/// not write (decimal, duration, uuid), is an error, and the caller decodes the slower way,
/// which says why. On error `out` holds a partial write the caller discards.
pub fn to_json(
    schema: &Schema,
    names: &Names,
    bytes: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut walk = Json {
        names,
        bytes,
        at: 0,
        items_left: bytes.len().saturating_add(ZERO_WIDTH_ITEMS),
        keys: Vec::new(),
        out,
    };
    walk.datum(schema, None, 0)?;
    nothing_left(bytes, walk.at)
}

struct Json<'a> {
    names: &'a Names,
    bytes: &'a [u8],
    at: usize,
    items_left: usize,
    /// The keys of the maps being written, to refuse a repeated one.
    keys: Vec<&'a str>,
    out: &'a mut Vec<u8>,
}

impl<'a> Json<'a> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or("the datum is cut short")?;
        let taken = &self.bytes[self.at..end];
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

    fn int(&mut self) -> Result<i32, String> {
        let n = self.long()?;
        i32::try_from(n).map_err(|_| format!("{n} is out of range for an int"))
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
        if n > self.items_left {
            return Err(format!(
                "a block of {n} items, more than the datum's bytes can hold"
            ));
        }
        self.items_left -= n;
        Ok(n)
    }

    fn end_of_blocks(&mut self) -> Result<(), String> {
        match self.long()? {
            0 => Ok(()),
            _ => Err("more than one block".into()),
        }
    }

    fn number(&mut self, n: i64) {
        self.out
            .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }

    fn float(&mut self, f: f64) -> Result<(), String> {
        if !f.is_finite() {
            return Err(format!("{f} has no JSON form"));
        }
        // As serde_json prints a float (its own exponent form, `1e+308`).
        serde_json::to_writer(&mut *self.out, &f).map_err(|e| e.to_string())
    }

    fn string(&mut self, text: &str) {
        super::lines::write_str(self.out, text.as_bytes());
    }

    /// A field name or enum symbol: letters, digits and `_` (as `apache-avro` checks them when
    /// it parses a schema) need no escape and are copied between quotes.
    fn name(&mut self, name: &str) {
        if name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            self.out.push(b'"');
            self.out.extend_from_slice(name.as_bytes());
            self.out.push(b'"');
        } else {
            self.string(name);
        }
    }

    /// A string: a length, then that many bytes of UTF-8.
    fn text(&mut self) -> Result<&'a str, String> {
        let n = self.length()?;
        let bytes = self.bytes;
        let start = self.at;
        self.take(n)?;
        std::str::from_utf8(&bytes[start..start + n])
            .map_err(|_| "a string that is not UTF-8".to_string())
    }

    /// A string written as it is read, checked as UTF-8 in the same pass.
    fn write_text(&mut self) -> Result<(), String> {
        let n = self.length()?;
        let bytes = self.bytes;
        let start = self.at;
        self.take(n)?;
        if super::lines::write_str(self.out, &bytes[start..start + n]) {
            Ok(())
        } else {
            Err("a string that is not UTF-8".into())
        }
    }

    fn byte_array(&mut self, n: usize) -> Result<(), String> {
        let bytes = self.bytes;
        let start = self.at;
        self.take(n)?;
        self.out.push(b'[');
        for (i, byte) in bytes[start..start + n].iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.out
                .extend_from_slice(itoa::Buffer::new().format(*byte).as_bytes());
        }
        self.out.push(b']');
        Ok(())
    }

    /// `space` is the enclosing namespace, borrowed: the walk allocates nothing per datum.
    fn datum(&mut self, schema: &Schema, space: Option<&str>, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("the datum nests deeper than {MAX_DEPTH} levels"));
        }
        match schema {
            Schema::Null => {
                self.out.extend_from_slice(b"null");
                Ok(())
            }
            Schema::Boolean => {
                let word: &[u8] = match self.take(1)? {
                    [0] => b"false",
                    [1] => b"true",
                    _ => return Err("not a boolean".into()),
                };
                self.out.extend_from_slice(word);
                Ok(())
            }
            Schema::Int | Schema::Date | Schema::TimeMillis => {
                let n = self.int()?;
                self.number(n.into());
                Ok(())
            }
            Schema::Long
            | Schema::TimeMicros
            | Schema::TimestampMillis
            | Schema::TimestampMicros
            | Schema::TimestampNanos
            | Schema::LocalTimestampMillis
            | Schema::LocalTimestampMicros
            | Schema::LocalTimestampNanos => {
                let n = self.long()?;
                self.number(n);
                Ok(())
            }
            Schema::Float => {
                let raw: [u8; 4] = self
                    .take(4)?
                    .try_into()
                    .map_err(|_| "the datum is cut short")?;
                self.float(f32::from_le_bytes(raw).into())
            }
            Schema::Double => {
                let raw: [u8; 8] = self
                    .take(8)?
                    .try_into()
                    .map_err(|_| "the datum is cut short")?;
                self.float(f64::from_le_bytes(raw))
            }
            Schema::String => self.write_text(),
            Schema::Bytes => {
                let n = self.length()?;
                self.byte_array(n)
            }
            Schema::Fixed(FixedSchema { size, .. }) => self.byte_array(*size),
            Schema::Enum(EnumSchema { symbols, .. }) => {
                let index = self.long()?;
                let symbol = usize::try_from(index)
                    .ok()
                    .and_then(|i| symbols.get(i))
                    .ok_or_else(|| format!("enum index {index} out of range"))?;
                self.name(symbol);
                Ok(())
            }
            Schema::Union(union) => {
                let index = self.long()?;
                let variant = usize::try_from(index)
                    .ok()
                    .and_then(|i| union.variants().get(i))
                    .ok_or_else(|| format!("union index {index} out of range"))?;
                self.datum(variant, space, depth + 1)
            }
            Schema::Record(RecordSchema { name, fields, .. }) => {
                // As `Name::fully_qualified_name` reads it, without building the name.
                let inner = name
                    .namespace
                    .as_deref()
                    .or_else(|| space.filter(|ns| !ns.is_empty()));
                self.out.push(b'{');
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.name(&field.name);
                    self.out.push(b':');
                    self.datum(&field.schema, inner, depth + 1)?;
                }
                self.out.push(b'}');
                Ok(())
            }
            Schema::Array(array) => {
                let n = self.block()?;
                self.out.push(b'[');
                if n > 0 {
                    for i in 0..n {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        self.datum(&array.items, space, depth + 1)?;
                    }
                    self.end_of_blocks()?;
                }
                self.out.push(b']');
                Ok(())
            }
            Schema::Map(map) => {
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
                        self.string(key);
                        self.out.push(b':');
                        self.datum(&map.types, space, depth + 1)?;
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
            // A parsed schema names its references in full; one without a namespace takes the
            // enclosing one.
            Schema::Ref { name } if name.namespace.is_some() => {
                let names = self.names;
                let found = names.get(name).ok_or_else(|| {
                    format!("the schema has no type named {}", name.fullname(None))
                })?;
                self.datum(found, name.namespace.as_deref(), depth + 1)
            }
            Schema::Ref { name } => {
                let full: Name = name.fully_qualified_name(&space.map(str::to_string));
                let names = self.names;
                let found = names.get(&full).ok_or_else(|| {
                    format!("the schema has no type named {}", full.fullname(None))
                })?;
                self.datum(found, full.namespace.as_deref(), depth + 1)
            }
            Schema::Decimal(_) | Schema::BigDecimal | Schema::Duration | Schema::Uuid => {
                Err("a logical type decoded the slower way".into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apache_avro::schema::ResolvedSchema;

    fn checked(schema: &str, bytes: &[u8]) -> Result<(), String> {
        let schema = Schema::parse_str(schema).expect("schema");
        let resolved = ResolvedSchema::try_from(&schema).expect("resolves");
        check(&schema, resolved.get_names(), bytes)
    }

    /// Regression (hardening issue): an `array<null>` value of a few bytes claiming billions of
    /// items made the decoder reserve 30 GB and abort klens.
    #[test]
    fn a_huge_block_of_zero_width_items_is_refused() {
        let schema = r#"{"type": "array", "items": "null"}"#;
        // Count 2^31 (zig-zag 0x80 0x80 0x80 0x80 0x10), then the end of the array.
        assert!(checked(schema, &[0x80, 0x80, 0x80, 0x80, 0x10, 0]).is_err());
        // A few nulls are fine: three items, then the end.
        assert_eq!(checked(schema, &[6, 0]), Ok(()));
        let map = r#"{"type": "map", "values": "null"}"#;
        assert!(checked(map, &[0xfe, 0xff, 0xff, 0xff, 0x0f, 0]).is_err());
    }

    const LIST: &str = r#"{"type": "record", "name": "Node", "fields": [
        {"name": "value", "type": "int"},
        {"name": "next", "type": ["null", "Node"]}]}"#;

    /// A recursive schema (a linked list) decodes within the depth limit, and a datum nested
    /// past it is refused instead of overflowing the stack.
    #[test]
    fn recursion_is_bounded_by_depth() {
        // value 1, next = Node(value 2, next = null)
        assert_eq!(checked(LIST, &[2, 2, 4, 0]), Ok(()));
        let mut deep = Vec::new();
        for _ in 0..100_000 {
            deep.extend_from_slice(&[2, 2]);
        }
        deep.extend_from_slice(&[2, 0]);
        let e = checked(LIST, &deep).expect_err("too deep");
        assert!(e.contains("deeper"), "{e}");
    }

    #[test]
    fn lengths_counts_and_indexes_must_fit() {
        assert!(
            checked(r#""string""#, &[0x7e, b'a']).is_err(),
            "length past the end"
        );
        assert!(checked(r#""string""#, &[1]).is_err(), "negative length");
        assert_eq!(checked(r#""string""#, &[2, b'a']), Ok(()));
        let e = checked(r#"{"type":"enum","name":"E","symbols":["A"]}"#, &[2]);
        assert!(e.is_err(), "index 1 of one symbol");
        assert!(
            checked(r#"["null","int"]"#, &[4]).is_err(),
            "union index 2 of two"
        );
        assert!(
            checked(r#""long""#, &[0xff; 11]).is_err(),
            "a varint that never ends"
        );
        assert!(checked(r#""int""#, &[2, 0]).is_err(), "a byte left over");
        assert!(checked(r#""boolean""#, &[2]).is_err());
    }

    /// Arbitrary bytes against a schema with every kind of nesting: never a panic, and a datum
    /// that passes decodes with `apache-avro` too.
    #[test]
    fn fuzz_avro_datums() {
        let schema = r#"{"type": "record", "name": "R", "fields": [
            {"name": "a", "type": {"type": "array", "items": ["null", "R", "string"]}},
            {"name": "m", "type": {"type": "map", "values": {"type": "fixed", "name": "F", "size": 3}}},
            {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["X", "Y"]}},
            {"name": "d", "type": "double"}]}"#;
        let parsed = Schema::parse_str(schema).expect("schema");
        let resolved = ResolvedSchema::try_from(&parsed).expect("resolves");
        let mut inputs = crate::fuzz::Inputs::new(0x5eed_0002, 64);
        for _ in 0..crate::fuzz::cases(20_000) {
            let bytes = inputs.bytes();
            if check(&parsed, resolved.get_names(), &bytes).is_ok() {
                let mut reader = bytes.as_slice();
                assert!(
                    apache_avro::from_avro_datum(&parsed, &mut reader, None).is_ok(),
                    "{bytes:?}"
                );
            }
        }
    }
}
