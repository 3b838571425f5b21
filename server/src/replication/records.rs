//! MirrorMaker's own records, as its 4.1 connectors write them with Kafka's protocol types
//! (big-endian integers, a string as an `i16` length and UTF-8): an offset sync says where a
//! source record landed on the target, a checkpoint where a group's committed offset is on the
//! target. Anything else decodes to `None`; nothing here trusts a length it has not checked
//! against the bytes left.

/// Where source offset `upstream` of `topic`-`partition` (the source's names) landed in the
/// copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetSync {
    pub topic: String,
    pub partition: i32,
    pub upstream: i64,
    pub downstream: i64,
}

/// A group's committed offset on the source (`upstream`) and the same place on the target
/// (`downstream`), for a partition of the copy (`topic` is the target's name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub group: String,
    pub topic: String,
    pub partition: i32,
    pub upstream: i64,
    pub downstream: i64,
}

/// Reads fields off the front of a record's bytes.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn i16(&mut self) -> Option<i16> {
        Some(i16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }

    fn i32(&mut self) -> Option<i32> {
        Some(i32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }

    fn string(&mut self) -> Option<String> {
        let len = usize::try_from(self.i16()?).ok()?;
        std::str::from_utf8(self.take(len)?).ok().map(str::to_string)
    }
}

/// An offset sync from its key (topic, partition) and value (upstream, downstream).
pub fn offset_sync(key: &[u8], value: &[u8]) -> Option<OffsetSync> {
    let (mut k, mut v) = (Fields(key), Fields(value));
    let sync = OffsetSync {
        topic: k.string()?,
        partition: k.i32()?,
        upstream: v.i64()?,
        downstream: v.i64()?,
    };
    // Offsets are never negative: such a record is not MirrorMaker's.
    (sync.partition >= 0 && sync.upstream >= 0 && sync.downstream >= 0).then_some(sync)
}

/// A checkpoint from its key (group, topic, partition) and value (version 0, upstream,
/// downstream, metadata).
pub fn checkpoint(key: &[u8], value: &[u8]) -> Option<Checkpoint> {
    let (mut k, mut v) = (Fields(key), Fields(value));
    let (group, topic, partition) = (k.string()?, k.string()?, k.i32()?);
    if v.i16()? != 0 {
        return None;
    }
    let (upstream, downstream) = (v.i64()?, v.i64()?);
    (partition >= 0 && upstream >= 0 && downstream >= 0).then_some(Checkpoint {
        group,
        topic,
        partition,
        upstream,
        downstream,
    })
}
