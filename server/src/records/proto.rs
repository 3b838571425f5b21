//! Protobuf records written as JSON in one pass over their wire bytes: what `prost-reflect`
//! writes for the decoded message (its default options: JSON field names, 64-bit integers as
//! strings, enums by name, bytes in base64, fields at their zero value left out unless the
//! field has presence), without building the message. The export and the pages both use it.
//!
//! The walk takes the wire as every Protobuf library writes it: fields in number order, each
//! singular field once, a repeated field's items together, at most one field of a oneof, a map
//! key once. Anything else — a field repeated (last one wins, or messages merge), fields out of
//! order, groups, proto2 files, well-known types with their own JSON form, enums with aliases,
//! nesting deeper than [`MAX_DEPTH`], maps over [`MAX_MAP_ENTRIES`] — is refused, and the caller
//! decodes the message the slower way, which gives the same JSON or says why it cannot.

use std::cell::Cell;

/// The deepest nesting the walk follows (`prost` itself stops at 100).
const MAX_DEPTH: usize = 64;

/// The most entries of one map the walk checks for a repeated key, one against another.
const MAX_MAP_ENTRIES: usize = 256;

/// The most bytes of map keys one message's walk compares in all; beyond it (maps of long
/// keys), the decoder's hash map is quicker.
const MAX_KEY_BYTES_COMPARED: usize = 4 * 1024 * 1024;

/// The walk did not write the message; decode it the slower way.
#[derive(Debug, PartialEq)]
pub struct Refused;

type Walked<T = ()> = Result<T, Refused>;

mod plan;
pub use plan::Plan;
use plan::{Field, Kind, MapEntry, DELIMITED, FIXED32, FIXED64, VARINT};

/// Writes message `message` of the plan, read from `bytes`, as JSON into `out`. On
/// [`Refused`] `out` holds a partial write the caller discards.
///
/// `Ok(true)` when the JSON and the schema alone give back `bytes`, written as the usual
/// serialisers write a message: fields in number order, each once, those at their zero value
/// left out unless they have presence, repeated numbers in one packed run (unless the field
/// says `packed = false`), each map entry as its key then its value, both written, every varint
/// in its shortest form, and nothing the schema does not name. Anything else (a NaN, whose
/// bits JSON does not keep, too) is written all the same, with `false`.
pub fn to_json(plan: &Plan, message: u32, bytes: &[u8], out: &mut Vec<u8>) -> Walked<bool> {
    let doubt = Cell::new(false);
    let mut walk = Walk { plan, out, keys: Vec::new(), compared: 0, doubt: &doubt };
    walk.message(message, bytes, 0)?;
    Ok(!doubt.get())
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Set when a varint is longer than it needs to be.
    doubt: &'a Cell<bool>,
}

impl<'a> Reader<'a> {
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// A varint as `prost` reads one: at most ten bytes, the tenth 0 or 1; longer forms than
    /// needed are accepted.
    fn varint(&mut self) -> Walked<u64> {
        let mut value = 0u64;
        for i in 0..10 {
            let byte = *self.bytes.get(self.at).ok_or(Refused)?;
            self.at += 1;
            if i == 9 && byte > 1 {
                return Err(Refused);
            }
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte < 0x80 {
                if byte == 0 && i > 0 {
                    self.doubt.set(true);
                }
                return Ok(value);
            }
        }
        Err(Refused)
    }

    fn take(&mut self, n: usize) -> Walked<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|end| *end <= self.bytes.len()).ok_or(Refused)?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn fixed<const N: usize>(&mut self) -> Walked<[u8; N]> {
        self.take(N)?.try_into().map_err(|_| Refused)
    }

    fn delimited(&mut self) -> Walked<&'a [u8]> {
        let n = usize::try_from(self.varint()?).map_err(|_| Refused)?;
        self.take(n)
    }

    /// A field's tag: its number and wire type, as `prost` checks them.
    fn tag(&mut self) -> Walked<(u32, u8)> {
        let key = u32::try_from(self.varint()?).map_err(|_| Refused)?;
        let (number, wire) = (key >> 3, (key & 7) as u8);
        if number == 0 || wire > FIXED32 {
            return Err(Refused);
        }
        Ok((number, wire))
    }

    /// Passes over a field the walk does not write; groups are refused.
    fn skip(&mut self, wire: u8) -> Walked {
        match wire {
            VARINT => self.varint().map(drop),
            FIXED64 => self.take(8).map(drop),
            DELIMITED => self.delimited().map(drop),
            FIXED32 => self.take(4).map(drop),
            _ => Err(Refused),
        }
    }
}

/// The field of `number`, looked for from field `from` on first: fields come in order, so the
/// next one is usually at or just after the last.
fn find(fields: &[Field], from: usize, number: u32) -> Option<usize> {
    if fields.get(from).is_some_and(|f| f.number <= number) {
        let ahead = fields[from..].iter().position(|f| f.number >= number)?;
        return (fields[from + ahead].number == number).then_some(from + ahead);
    }
    fields.binary_search_by_key(&number, |f| f.number).ok()
}

struct Walk<'p, 'o> {
    plan: &'p Plan,
    out: &'o mut Vec<u8>,
    /// Set once the JSON could not give back the bytes.
    doubt: &'o Cell<bool>,
    /// Where in `out` the keys of the maps being written are, to refuse a repeated one.
    keys: Vec<(usize, usize)>,
    /// Bytes of keys compared so far, bounded by [`MAX_KEY_BYTES_COMPARED`].
    compared: usize,
}

/// A repeated field or map whose items are being written.
struct Open {
    field: usize,
    items: usize,
}

impl Walk<'_, '_> {
    fn message(&mut self, message: u32, bytes: &[u8], depth: usize) -> Walked {
        let plan = self.plan;
        let m = plan.messages.get(message as usize).ok_or(Refused)?;
        if !m.writable || depth > MAX_DEPTH {
            return Err(Refused);
        }
        self.out.push(b'{');
        let mut reader = Reader { bytes, at: 0, doubt: self.doubt };
        let mut written = false;
        let mut last: Option<usize> = None;
        let mut open: Option<Open> = None;
        let mut oneofs = 0u64;
        let keys_from = self.keys.len();
        while !reader.done() {
            let (number, wire) = reader.tag()?;
            let Some(index) = find(&m.fields, last.unwrap_or(0), number) else {
                reader.skip(wire)?;
                self.doubt.set(true);
                continue;
            };
            let field = &m.fields[index];
            match last {
                Some(l) if l == index && field.many => {}
                Some(l) if l >= index => return Err(Refused),
                _ => {
                    if let Some(done) = open.take() {
                        self.close(&m.fields[done.field], done.items);
                        self.keys.truncate(keys_from);
                    }
                    last = Some(index);
                    if let Some(o) = field.oneof {
                        if oneofs & (1 << o) != 0 {
                            return Err(Refused);
                        }
                        oneofs |= 1 << o;
                    }
                }
            }
            if !field.many {
                let mark = self.out.len();
                if written {
                    self.out.push(b',');
                }
                self.out.extend_from_slice(&field.key);
                let zero = self.value(field.kind, wire, &mut reader, depth)?;
                if zero && !field.presence {
                    // On the wire, but not in the JSON.
                    self.out.truncate(mark);
                    self.doubt.set(true);
                } else {
                    written = true;
                }
                continue;
            }
            let items = open.get_or_insert(Open { field: index, items: 0 });
            if let Some(entry) = plan.map_entry(field.kind) {
                if wire != DELIMITED || items.items >= MAX_MAP_ENTRIES {
                    return Err(Refused);
                }
                let bytes = reader.delimited()?;
                Self::item(self.out, field, items, &mut written, b'{');
                self.map_entry(entry, bytes, keys_from, depth)?;
            } else if wire == DELIMITED && field.kind.packable() {
                let mut packed = Reader { bytes: reader.delimited()?, at: 0, doubt: self.doubt };
                // One run, of at least one item, where the field is packed.
                if !field.packed || items.items > 0 || packed.done() {
                    self.doubt.set(true);
                }
                while !packed.done() {
                    Self::item(self.out, field, items, &mut written, b'[');
                    self.value(field.kind, field.kind.wire(), &mut packed, depth)?;
                }
            } else {
                if field.packed && field.kind.packable() {
                    self.doubt.set(true);
                }
                Self::item(self.out, field, items, &mut written, b'[');
                self.value(field.kind, wire, &mut reader, depth)?;
            }
        }
        if let Some(done) = open {
            self.close(&m.fields[done.field], done.items);
        }
        self.keys.truncate(keys_from);
        self.out.push(b'}');
        Ok(())
    }

    /// Opens a repeated field or map at its first item, else writes the comma between items.
    fn item(out: &mut Vec<u8>, field: &Field, open: &mut Open, written: &mut bool, bracket: u8) {
        if open.items == 0 {
            if *written {
                out.push(b',');
            }
            out.extend_from_slice(&field.key);
            out.push(bracket);
            *written = true;
        } else {
            out.push(b',');
        }
        open.items += 1;
    }

    /// Closes a repeated field or map; one of no items (a packed field of none) was never
    /// opened, and is not written.
    fn close(&mut self, field: &Field, items: usize) {
        if items > 0 {
            let is_map = matches!(field.kind, Kind::Map(_));
            self.out.push(if is_map { b'}' } else { b']' });
        }
    }

    /// One map entry: key 1 and value 2, either one left out for its zero value, written as
    /// `"key":value`.
    fn map_entry(
        &mut self, entry: &MapEntry, bytes: &[u8], keys_from: usize, depth: usize,
    ) -> Walked {
        let mut reader = Reader { bytes, at: 0, doubt: self.doubt };
        let mut key = None;
        let mut value = None;
        while !reader.done() {
            let (number, wire) = reader.tag()?;
            let start = reader.at;
            let slot = match number {
                1 if value.is_none() => &mut key,
                2 => &mut value,
                _ => {
                    // A field the entry does not have, or the key after the value.
                    self.doubt.set(true);
                    if number == 1 {
                        &mut key
                    } else {
                        reader.skip(wire)?;
                        continue;
                    }
                }
            };
            if slot.is_some() {
                return Err(Refused);
            }
            reader.skip(wire)?;
            *slot = Some((wire, &bytes[start..reader.at]));
        }
        // The key, always a string in JSON.
        let key_start = self.out.len();
        let quoted = !matches!(
            entry.key,
            Kind::String
                | Kind::Int64
                | Kind::Uint64
                | Kind::Sint64
                | Kind::Fixed64
                | Kind::Sfixed64
        );
        if quoted {
            self.out.push(b'"');
        }
        if key.is_none() || value.is_none() {
            // Some writers leave out a key or value at its zero value, others do not.
            self.doubt.set(true);
        }
        match key {
            Some((wire, bytes)) => {
                let mut one = Reader { bytes, at: 0, doubt: self.doubt };
                self.value(entry.key, wire, &mut one, depth)?;
            }
            None => self.zero(entry.key)?,
        }
        if quoted {
            self.out.push(b'"');
        }
        let written = (key_start, self.out.len());
        let earlier = self.keys.len() - keys_from;
        self.compared =
            self.compared.saturating_add((written.1 - written.0).saturating_mul(earlier));
        if self.compared > MAX_KEY_BYTES_COMPARED {
            return Err(Refused);
        }
        let this = &self.out[written.0..written.1];
        if self.keys[keys_from..].iter().any(|(s, e)| &self.out[*s..*e] == this) {
            return Err(Refused);
        }
        self.keys.push(written);
        self.out.push(b':');
        match value {
            Some((wire, bytes)) => {
                let mut one = Reader { bytes, at: 0, doubt: self.doubt };
                self.value(entry.value, wire, &mut one, depth).map(drop)
            }
            None => self.zero(entry.value),
        }
    }

    /// A value at its zero, as a map entry without it reads.
    fn zero(&mut self, kind: Kind) -> Walked {
        let text: &[u8] = match kind {
            Kind::Double | Kind::Float => b"0.0",
            Kind::Int32 | Kind::Uint32 | Kind::Sint32 | Kind::Fixed32 | Kind::Sfixed32 => b"0",
            Kind::Int64 | Kind::Uint64 | Kind::Sint64 | Kind::Fixed64 | Kind::Sfixed64 => b"\"0\"",
            Kind::Bool => b"false",
            Kind::String | Kind::Bytes => b"\"\"",
            Kind::Enum(e) => {
                let default = self.plan.enums.get(e as usize).ok_or(Refused)?.default;
                return self.enum_value(e, default);
            }
            Kind::Message(m) => {
                if !self.plan.messages.get(m as usize).is_some_and(|m| m.writable) {
                    return Err(Refused);
                }
                b"{}"
            }
            Kind::Map(_) | Kind::Unknown => return Err(Refused),
        };
        self.out.extend_from_slice(text);
        Ok(())
    }

    fn enum_value(&mut self, e: u32, number: i32) -> Walked {
        let names =
            self.plan.enums.get(e as usize).and_then(|e| e.names.as_ref()).ok_or(Refused)?;
        match names.binary_search_by_key(&number, |(n, _)| *n) {
            Ok(i) => self.out.extend_from_slice(&names[i].1),
            // A number the schema does not name is written as the number.
            Err(_) => self.integer(number),
        }
        Ok(())
    }

    fn integer(&mut self, n: impl itoa::Integer) {
        self.out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }

    fn quoted(&mut self, n: impl itoa::Integer) {
        self.out.push(b'"');
        self.integer(n);
        self.out.push(b'"');
    }

    /// A varint of a 32-bit field, as writers write one: an `int32` or enum (`signed`) as its
    /// value widened to 64 bits with its sign, a `uint32` or `sint32` within 32 bits. Any
    /// other varint is cut to 32 bits, as `prost` reads it, and the JSON no longer gives it
    /// back.
    fn varint_32(&self, reader: &mut Reader<'_>, signed: bool) -> Walked<u64> {
        let n = reader.varint()?;
        let written = if signed { n == (n as i32) as i64 as u64 } else { n <= u64::from(u32::MAX) };
        if !written {
            self.doubt.set(true);
        }
        Ok(n)
    }

    /// A `float` (`single`, written by its own shortest form) or a `double`.
    fn float(&mut self, wide: f64, single: bool) {
        if wide.is_nan() {
            // NaN has many bit patterns; the JSON says only "NaN".
            self.doubt.set(true);
        }
        if wide.is_finite() {
            // As serde_json prints it (a 32-bit float by its own shortest form).
            if single {
                let _ = serde_json::to_writer(&mut *self.out, &(wide as f32));
            } else {
                super::lines::write_f64(self.out, wide);
            }
        } else if wide.is_nan() {
            self.out.extend_from_slice(b"\"NaN\"");
        } else if wide > 0.0 {
            self.out.extend_from_slice(b"\"Infinity\"");
        } else {
            self.out.extend_from_slice(b"\"-Infinity\"");
        }
    }

    /// Writes one value of `kind` sent with wire type `wire`; `true` when it is the field's
    /// zero value (which a field without presence leaves out).
    fn value(
        &mut self, kind: Kind, wire: u8, reader: &mut Reader<'_>, depth: usize,
    ) -> Walked<bool> {
        if wire != kind.wire() {
            return Err(Refused);
        }
        // The conversions are `prost`'s: a varint cut to the field's width.
        Ok(match kind {
            Kind::Int32 => {
                let n = self.varint_32(reader, true)? as i32;
                self.integer(n);
                n == 0
            }
            Kind::Uint32 => {
                let n = self.varint_32(reader, false)? as u32;
                self.integer(n);
                n == 0
            }
            Kind::Sint32 => {
                let n = self.varint_32(reader, false)? as u32;
                let n = ((n >> 1) as i32) ^ (-((n & 1) as i32));
                self.integer(n);
                n == 0
            }
            Kind::Int64 => {
                let n = reader.varint()? as i64;
                self.quoted(n);
                n == 0
            }
            Kind::Uint64 => {
                let n = reader.varint()?;
                self.quoted(n);
                n == 0
            }
            Kind::Sint64 => {
                let n = reader.varint()?;
                let n = ((n >> 1) as i64) ^ (-((n & 1) as i64));
                self.quoted(n);
                n == 0
            }
            Kind::Bool => {
                let n = reader.varint()?;
                if n > 1 {
                    self.doubt.set(true);
                }
                let b = n != 0;
                self.out.extend_from_slice(if b { b"true" } else { b"false" });
                !b
            }
            Kind::Enum(e) => {
                let n = self.varint_32(reader, true)? as i32;
                self.enum_value(e, n)?;
                n == self.plan.enums[e as usize].default
            }
            Kind::Fixed32 => {
                let n = u32::from_le_bytes(reader.fixed()?);
                self.integer(n);
                n == 0
            }
            Kind::Sfixed32 => {
                let n = i32::from_le_bytes(reader.fixed()?);
                self.integer(n);
                n == 0
            }
            Kind::Fixed64 => {
                let n = u64::from_le_bytes(reader.fixed()?);
                self.quoted(n);
                n == 0
            }
            Kind::Sfixed64 => {
                let n = i64::from_le_bytes(reader.fixed()?);
                self.quoted(n);
                n == 0
            }
            Kind::Float => {
                let f = f32::from_le_bytes(reader.fixed()?);
                self.float(f.into(), true);
                f == 0.0
            }
            Kind::Double => {
                let f = f64::from_le_bytes(reader.fixed()?);
                self.float(f, false);
                f == 0.0
            }
            Kind::String => {
                let bytes = reader.delimited()?;
                if !super::lines::write_str(self.out, bytes) {
                    return Err(Refused);
                }
                bytes.is_empty()
            }
            Kind::Bytes => {
                let bytes = reader.delimited()?;
                self.out.push(b'"');
                super::lines::write_base64(self.out, bytes);
                self.out.push(b'"');
                bytes.is_empty()
            }
            Kind::Message(m) => {
                let bytes = reader.delimited()?;
                self.message(m, bytes, depth + 1)?;
                false
            }
            Kind::Map(_) | Kind::Unknown => return Err(Refused),
        })
    }
}

#[cfg(test)]
mod tests;
