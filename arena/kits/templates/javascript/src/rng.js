'use strict';
// The protocol's shared generator (docs/protocol.md, "The shared generator"): splitmix64 seeded from
// new_game's seed. Every starter kit has the same one, so every kit plays the same moves.
// BigInt keeps the 64-bit arithmetic exact; a draw happens once per guess, so its cost does not matter.

const MASK64 = (1n << 64n) - 1n;

class SplitMix64 {
  /** @param {string} seedHex the game's seed, 32 hex digits */
  constructor(seedHex) {
    const seed = BigInt('0x' + (seedHex || '0'));
    this.state = ((seed >> 64n) ^ seed) & MASK64; // the 128-bit seed's two halves, XORed
  }

  /** The next 64-bit output, as a BigInt. */
  next() {
    this.state = (this.state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  }

  /** A number in [0, n): one output modulo n. */
  below(n) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`below(${n}): n must be an integer of at least 1`);
    return Number(this.next() % BigInt(n));
  }
}

module.exports = { SplitMix64 };
