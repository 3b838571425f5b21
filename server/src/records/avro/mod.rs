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
    let mut walk =
        Walk { names, bytes, at: 0, items_left: bytes.len().saturating_add(ZERO_WIDTH_ITEMS) };
    walk.datum(schema, &None, 0)?;
    nothing_left(bytes, walk.at)
}

/// A zig-zag varint at `*at`, as Avro writes ints and longs, and whether it was written in its
/// shortest form (the only one a writer gives back).
fn read_long(bytes: &[u8], at: &mut usize) -> Result<(i64, bool), String> {
    let zigzag = |value: u64| (value >> 1) as i64 ^ -((value & 1) as i64);
    // Most are one byte (lengths, counts, indexes, small numbers), always the shortest form.
    if let Some(&byte) = bytes.get(*at).filter(|byte| **byte < 0x80) {
        *at += 1;
        return Ok((zigzag(u64::from(byte)), true));
    }
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
            return Ok((zigzag(value), shortest));
        }
    }
    Err("a number longer than 64 bits".into())
}

/// Takes a block of `n` array items or map entries from the `items_left` a datum may hold.
fn spend(items_left: &mut usize, n: usize) -> Result<usize, String> {
    if n > *items_left {
        return Err(format!("a block of {n} items, more than the datum's bytes can hold"));
    }
    *items_left -= n;
    Ok(n)
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
            return Err(format!("a length of {n} with {} bytes left", self.remaining()));
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
        spend(&mut self.items_left, n)
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
            Schema::Int | Schema::Date | Schema::TimeMillis => self.long().map(|_| ()),
            long_schemas!() => self.long().map(|_| ()),
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
                fields.iter().try_for_each(|f| self.datum(&f.schema, &inner, depth + 1))
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

mod json;
pub use json::{to_json, Plan};

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
        assert!(checked(r#""string""#, &[0x7e, b'a']).is_err(), "length past the end");
        assert!(checked(r#""string""#, &[1]).is_err(), "negative length");
        assert_eq!(checked(r#""string""#, &[2, b'a']), Ok(()));
        let e = checked(r#"{"type":"enum","name":"E","symbols":["A"]}"#, &[2]);
        assert!(e.is_err(), "index 1 of one symbol");
        assert!(checked(r#"["null","int"]"#, &[4]).is_err(), "union index 2 of two");
        assert!(checked(r#""long""#, &[0xff; 11]).is_err(), "a varint that never ends");
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
