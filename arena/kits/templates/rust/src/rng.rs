//! The protocol's shared generator (docs/protocol.md, "The shared generator"): splitmix64 seeded from
//! new_game's seed. Every starter kit has the same one, so every kit plays the same moves.

#[derive(Clone, Debug)]
pub struct SplitMix64 {
    pub state: u64,
}

impl SplitMix64 {
    /// Seeded from the game's seed (32 hex digits): its two 64-bit halves XORed. Digits that are not hex
    /// count as 0.
    pub fn new(seed_hex: &str) -> SplitMix64 {
        let padded = format!("{:0>32}", seed_hex);
        let digits = &padded[padded.len() - 32..];
        let high = u64::from_str_radix(&digits[..16], 16).unwrap_or(0);
        let low = u64::from_str_radix(&digits[16..], 16).unwrap_or(0);
        SplitMix64 { state: high ^ low }
    }

    /// The next 64-bit output.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in [0, n): one output modulo n. Panics when n is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n >= 1, "below(0): n must be at least 1");
        self.next() % n
    }
}
