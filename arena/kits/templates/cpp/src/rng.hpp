// The protocol's shared generator (docs/protocol.md, "The shared generator"): splitmix64 seeded from
// new_game's seed. Every starter kit has the same one, so every kit plays the same moves.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

class SplitMix64 {
public:
    // seed_hex: the game's seed, 32 hex digits; the state is its two 64-bit halves XORed.
    explicit SplitMix64(const std::string& seed_hex) : state_(0) {
        std::string digits = seed_hex.size() >= 32 ? seed_hex.substr(seed_hex.size() - 32)
                                                   : std::string(32 - seed_hex.size(), '0') + seed_hex;
        state_ = std::stoull(digits.substr(0, 16), nullptr, 16) ^ std::stoull(digits.substr(16), nullptr, 16);
    }

    std::uint64_t state() const { return state_; }

    // The next 64-bit output.
    std::uint64_t next() {
        state_ += 0x9E3779B97F4A7C15ULL;
        std::uint64_t z = state_;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    // A number in [0, n): one output modulo n.
    std::uint64_t below(std::uint64_t n) {
        if (n < 1) throw std::invalid_argument("below(0): n must be at least 1");
        return next() % n;
    }

private:
    std::uint64_t state_;
};
