//! Where a keyed record goes: the partitioners of the clients that write Kafka's topics, so
//! klens can say (and write) the partition a key lands in exactly as they do.

use serde::{Deserialize, Serialize};

/// A partitioner, as librdkafka's `partitioner` property names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Partitioner {
    /// Java's default for keyed records: murmur2 of the key, as the Java clients hash it.
    Murmur2Random,
    /// librdkafka's default: CRC-32 of the key.
    ConsistentRandom,
}

impl Partitioner {
    /// The partitioner a cluster's `properties` choose, or the Java clients' one.
    pub fn from_property(value: Option<&str>) -> Result<Partitioner, String> {
        match value {
            None | Some("murmur2_random") | Some("murmur2") => Ok(Partitioner::Murmur2Random),
            Some("consistent_random") | Some("consistent") => Ok(Partitioner::ConsistentRandom),
            Some(other) => Err(format!(
                "klens writes keyed records with murmur2_random (as Java clients do) or consistent_random (librdkafka's default), not {other}"
            )),
        }
    }

    /// librdkafka's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Partitioner::Murmur2Random => "murmur2_random",
            Partitioner::ConsistentRandom => "consistent_random",
        }
    }

    /// The partition of `partitions` a record with `key` goes to.
    pub fn partition(self, key: &[u8], partitions: u32) -> u32 {
        if partitions == 0 {
            return 0;
        }
        let hash = match self {
            Partitioner::Murmur2Random => murmur2(key) & 0x7fff_ffff,
            Partitioner::ConsistentRandom => crc32(key),
        };
        hash % partitions
    }
}

/// Kafka's murmur2 (the Java client's `Utils.murmur2`, seed 0x9747b28c).
pub fn murmur2(data: &[u8]) -> u32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let mut h: u32 = SEED ^ (data.len() as u32);
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let rest = chunks.remainder();
    if rest.len() >= 3 {
        h ^= u32::from(rest[2]) << 16;
    }
    if rest.len() >= 2 {
        h ^= u32::from(rest[1]) << 8;
    }
    if !rest.is_empty() {
        h ^= u32::from(rest[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h
}

/// CRC-32 (IEEE), as librdkafka's consistent partitioner computes it.
pub fn crc32(data: &[u8]) -> u32 {
    const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
    CRC.checksum(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values the Java client's own tests give for `Utils.murmur2`.
    #[test]
    fn murmur2_hashes_as_the_java_client_does() {
        let cases: [(&[u8], i32); 6] = [
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58_897_971),
            (b"abc", 479_470_107),
        ];
        for (key, want) in cases {
            assert_eq!(murmur2(key) as i32, want, "{}", String::from_utf8_lossy(key));
        }
    }

    #[test]
    fn crc32_is_ieee() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn partitions_stay_in_range_and_the_property_names_a_partitioner() {
        for n in [1u32, 3, 6, 48] {
            for key in [&b"a"[..], b"order-17", b"\xff\x00"] {
                assert!(Partitioner::Murmur2Random.partition(key, n) < n);
                assert!(Partitioner::ConsistentRandom.partition(key, n) < n);
            }
        }
        assert_eq!(Partitioner::from_property(None), Ok(Partitioner::Murmur2Random));
        assert_eq!(
            Partitioner::from_property(Some("consistent_random")),
            Ok(Partitioner::ConsistentRandom)
        );
        assert!(Partitioner::from_property(Some("random")).is_err());
    }
}
