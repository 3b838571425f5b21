//! The plan of a Protobuf schema for the walk: each message's fields by number, with their
//! JSON keys quoted in advance, and each enum's names by number.

use std::collections::HashMap;

use prost_reflect::{DescriptorPool, Kind as ProtoKind, MessageDescriptor, Syntax};

/// What the walk needs of a compiled schema, worked out once per schema.
pub struct Plan {
    pub(super) messages: Vec<Message>,
    pub(super) enums: Vec<Enum>,
    pub(super) maps: Vec<MapEntry>,
    pub(super) by_name: HashMap<String, u32>,
    /// The first message of the schema's own file: the one a frame's index list `[0]` names.
    pub(super) first: Option<u32>,
}

pub(super) struct Message {
    /// `false` for what the walk does not write: a message of a proto2 file, or one of
    /// Google's (whose well-known types have a JSON form of their own).
    pub(super) writable: bool,
    /// In field-number order, as `prost-reflect` writes them.
    pub(super) fields: Vec<Field>,
}

pub(super) struct Field {
    pub(super) number: u32,
    /// The JSON name, quoted and escaped, and a colon.
    pub(super) key: Box<[u8]>,
    pub(super) kind: Kind,
    /// Repeated, or a map.
    pub(super) many: bool,
    /// Repeated numbers written as one packed run (proto3's default).
    pub(super) packed: bool,
    /// Written even at its zero value (a message, `optional`, a oneof member).
    pub(super) presence: bool,
    /// The field's oneof, by its index in the message.
    pub(super) oneof: Option<u8>,
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Double,
    Float,
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Fixed32,
    Fixed64,
    Sfixed32,
    Sfixed64,
    Bool,
    String,
    Bytes,
    Enum(u32),
    Message(u32),
    /// A map, by its entry's number in the plan's `maps`.
    Map(u32),
    /// Unwritable: a field of a kind the plan did not find (cannot happen for a compiled
    /// pool, but the walk refuses rather than guesses).
    Unknown,
}

pub(super) struct MapEntry {
    pub(super) key: Kind,
    pub(super) value: Kind,
}

pub(super) struct Enum {
    /// Numbers and their names (quoted and escaped), by number; `None` for an enum with
    /// aliases or one of Google's, which the walk does not write.
    pub(super) names: Option<Vec<(i32, Box<[u8]>)>>,
    /// The number of the first value: a field's zero value.
    pub(super) default: i32,
}

pub(super) const VARINT: u8 = 0;
pub(super) const FIXED64: u8 = 1;
pub(super) const DELIMITED: u8 = 2;
pub(super) const FIXED32: u8 = 5;

impl Kind {
    pub(super) fn wire(self) -> u8 {
        match self {
            Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => FIXED64,
            Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => FIXED32,
            Kind::String | Kind::Bytes | Kind::Message(_) | Kind::Map(_) | Kind::Unknown => {
                DELIMITED
            }
            _ => VARINT,
        }
    }

    /// Numbers, booleans and enums: a repeated field of them may come packed.
    pub(super) fn packable(self) -> bool {
        !matches!(
            self,
            Kind::String | Kind::Bytes | Kind::Message(_) | Kind::Map(_) | Kind::Unknown
        )
    }
}

fn json_key(name: &str) -> Box<[u8]> {
    let mut key = serde_json::to_vec(name).unwrap_or_default();
    key.push(b':');
    key.into_boxed_slice()
}

impl Plan {
    pub fn new(pool: &DescriptorPool, main_file: &str) -> Plan {
        let by_name: HashMap<String, u32> = pool
            .all_messages()
            .enumerate()
            .map(|(i, m)| (m.full_name().to_string(), i as u32))
            .collect();
        let enum_index: HashMap<String, u32> = pool
            .all_enums()
            .enumerate()
            .map(|(i, e)| (e.full_name().to_string(), i as u32))
            .collect();
        let enums = pool
            .all_enums()
            .map(|e| {
                let mut names: Vec<(i32, Box<[u8]>)> = e
                    .values()
                    .map(|v| {
                        let name = serde_json::to_vec(v.name()).unwrap_or_default();
                        (v.number(), name.into_boxed_slice())
                    })
                    .collect();
                names.sort_by_key(|(number, _)| *number);
                let aliased = names.windows(2).any(|w| w[0].0 == w[1].0);
                let google = e.full_name().starts_with("google.protobuf.");
                Enum {
                    names: (!aliased && !google).then_some(names),
                    default: e.default_value().number(),
                }
            })
            .collect();
        let mut maps = Vec::new();
        let kind_of = |kind: ProtoKind| match kind {
            ProtoKind::Double => Kind::Double,
            ProtoKind::Float => Kind::Float,
            ProtoKind::Int32 => Kind::Int32,
            ProtoKind::Int64 => Kind::Int64,
            ProtoKind::Uint32 => Kind::Uint32,
            ProtoKind::Uint64 => Kind::Uint64,
            ProtoKind::Sint32 => Kind::Sint32,
            ProtoKind::Sint64 => Kind::Sint64,
            ProtoKind::Fixed32 => Kind::Fixed32,
            ProtoKind::Fixed64 => Kind::Fixed64,
            ProtoKind::Sfixed32 => Kind::Sfixed32,
            ProtoKind::Sfixed64 => Kind::Sfixed64,
            ProtoKind::Bool => Kind::Bool,
            ProtoKind::String => Kind::String,
            ProtoKind::Bytes => Kind::Bytes,
            ProtoKind::Enum(e) => {
                enum_index.get(e.full_name()).map_or(Kind::Unknown, |i| Kind::Enum(*i))
            }
            ProtoKind::Message(m) => {
                by_name.get(m.full_name()).map_or(Kind::Unknown, |i| Kind::Message(*i))
            }
        };
        let messages = pool
            .all_messages()
            .map(|m| {
                let mut writable = m.parent_file().syntax() == Syntax::Proto3
                    && !m.full_name().starts_with("google.protobuf.")
                    && m.extensions().len() == 0
                    && m.oneofs().len() <= 64;
                let fields = m
                    .fields()
                    .map(|f| {
                        let kind = if f.is_map() {
                            match f.kind() {
                                ProtoKind::Message(entry) => {
                                    maps.push(MapEntry {
                                        key: kind_of(entry.map_entry_key_field().kind()),
                                        value: kind_of(entry.map_entry_value_field().kind()),
                                    });
                                    Kind::Map(maps.len() as u32 - 1)
                                }
                                _ => Kind::Unknown,
                            }
                        } else {
                            kind_of(f.kind())
                        };
                        writable &= !f.is_group() && kind != Kind::Unknown;
                        Field {
                            number: f.number(),
                            key: json_key(f.json_name()),
                            kind,
                            many: f.is_list() || f.is_map(),
                            // From the field's own option: `prost-reflect` 0.16 answers
                            // `is_packed` as proto3's default even under `packed = false`.
                            packed: kind.packable()
                                && f.is_list()
                                && f.field_descriptor_proto()
                                    .options
                                    .as_ref()
                                    .and_then(|o| o.packed)
                                    .unwrap_or(true),
                            presence: f.supports_presence(),
                            oneof: f.containing_oneof().and_then(|o| {
                                let place = m.oneofs().position(|x| x.name() == o.name());
                                place.and_then(|i| u8::try_from(i).ok())
                            }),
                        }
                    })
                    .collect();
                Message { writable, fields }
            })
            .collect();
        let first = pool
            .get_file_by_name(main_file)
            .and_then(|file| file.messages().next())
            .and_then(|m| by_name.get(m.full_name()).copied());
        Plan { messages, enums, maps, by_name, first }
    }

    /// The plan's number for a message of the pool.
    pub fn message(&self, descriptor: &MessageDescriptor) -> Option<u32> {
        self.by_name.get(descriptor.full_name()).copied()
    }

    /// The schema's first message, named by a frame whose index list is `[0]`.
    pub fn first(&self) -> Option<u32> {
        self.first
    }

    pub(super) fn map_entry(&self, kind: Kind) -> Option<&MapEntry> {
        match kind {
            Kind::Map(i) => self.maps.get(i as usize),
            _ => None,
        }
    }
}
