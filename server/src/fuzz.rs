//! Arbitrary inputs for the decoders' tests (`fuzz_*`): a fixed-seed generator, so a failure
//! can be run again, and a case count that `make test` keeps short and `make fuzz` makes long
//! (`KLENS_FUZZ_CASES`).

/// How many cases a fuzz test runs: `KLENS_FUZZ_CASES`, or `default`.
pub fn cases(default: usize) -> usize {
    std::env::var("KLENS_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(default)
}

/// Byte strings of up to `max` bytes, biased towards the values decoders branch on (0, 1, 2,
/// 0x7f, 0x80, 0xff) so that counts, lengths and tags take edge values often.
pub struct Inputs {
    state: u64,
    max: usize,
}

impl Inputs {
    pub fn new(seed: u64, max: usize) -> Inputs {
        Inputs { state: seed | 1, max }
    }

    pub fn next_u64(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn bytes(&mut self) -> Vec<u8> {
        let len = (self.next_u64() % (self.max as u64 + 1)) as usize;
        (0..len)
            .map(|_| {
                let r = self.next_u64();
                match r % 8 {
                    0 => 0,
                    1 => 0xff,
                    2 => 0x80,
                    3 => 0x7f,
                    4 => (r >> 8) as u8 % 4,
                    _ => (r >> 16) as u8,
                }
            })
            .collect()
    }

    /// Text made of `alphabet`'s pieces, for readers of text formats.
    pub fn text(&mut self, alphabet: &[&str]) -> String {
        let len = (self.next_u64() % (self.max as u64 + 1)) as usize;
        (0..len).map(|_| alphabet[(self.next_u64() % alphabet.len() as u64) as usize]).collect()
    }
}
