"""The protocol's shared generator (docs/protocol.md, "The shared generator"): splitmix64 seeded from
``new_game``'s seed. Every starter kit has the same one, so every kit plays the same moves."""

from __future__ import annotations

MASK64 = (1 << 64) - 1


class SplitMix64:
    """64-bit splitmix: tiny, fast, and the same in every language."""

    def __init__(self, seed_hex: str) -> None:
        seed = int(seed_hex, 16)
        self.state = ((seed >> 64) ^ seed) & MASK64  # the 128-bit seed's two halves, XORed

    def next(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A number in [0, n): one output modulo n."""
        if n < 1:
            raise ValueError(f"below({n}): n must be at least 1")
        return self.next() % n
