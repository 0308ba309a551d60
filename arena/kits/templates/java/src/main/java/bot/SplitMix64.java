package bot;

/**
 * The protocol's shared generator (docs/protocol.md, "The shared generator"): splitmix64 seeded from new_game's
 * seed. Every starter kit has the same one, so every kit plays the same moves. Java's long is 64 bits and wraps
 * on overflow, which is the arithmetic splitmix64 needs; unsigned shifts (>>>) and remainders keep it unsigned.
 */
public final class SplitMix64 {
    private long state;

    /** Seeded from the game's seed (32 hex digits): its two 64-bit halves XORed. */
    public SplitMix64(String seedHex) {
        String digits = "0".repeat(Math.max(0, 32 - seedHex.length())) + seedHex;
        digits = digits.substring(digits.length() - 32);
        state = Long.parseUnsignedLong(digits.substring(0, 16), 16) ^ Long.parseUnsignedLong(digits.substring(16), 16);
    }

    public long state() {
        return state;
    }

    /** The next 64-bit output. */
    public long next() {
        state += 0x9E3779B97F4A7C15L;
        long z = state;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A number in [0, n): one output modulo n, the output read as unsigned. */
    public int below(int n) {
        if (n < 1) throw new IllegalArgumentException("below(" + n + "): n must be at least 1");
        return (int) Long.remainderUnsigned(next(), n);
    }
}
