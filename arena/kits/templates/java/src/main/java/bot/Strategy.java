package bot;

import java.util.ArrayList;
import java.util.List;

/**
 * Your bot: the one file to edit. A Strategy plays one game; play(board) answers each observation.
 *
 * <p>The starting strategy is the one every starter kit shares (docs/protocol.md, "The shared generator and the
 * starting strategy"): the first click, then every move the two single-cell rules make certain, then a guess
 * drawn from the game's seeded generator, with a note saying why.
 */
public final class Strategy implements GameStrategy {
    public static final String NAME = "__BOT_NAME__";
    public static final String VERSION = "1";

    private final GameInfo info;
    /** The only randomness to use: the same seed plays the same game. */
    private final SplitMix64 rng;

    /** Built at every new_game with the game's facts and its seeded generator. */
    public Strategy(GameInfo info, SplitMix64 rng) {
        this.info = info;
        this.rng = rng;
    }

    @Override
    public Reply play(Board board) {
        Reply reply = new Reply();
        if (!board.anyRevealed()) { // the first click: a corner, or 3 cells in under "opening"
            if (info.rule.equals("opening")) return reply.reveal(Math.min(3, board.height - 1), Math.min(3, board.width - 1));
            if (info.rule.equals("none")) return reply.revealGuess(0, 0).note("first click: no rule makes it safe");
            return reply.reveal(0, 0);
        }
        byte[] fact = certainMoves(board);
        boolean any = false;
        for (int k = 0; k < fact.length; k++) {
            if (fact[k] == SAFE) {
                reply.reveal(k / board.width, k % board.width);
                any = true;
            }
        }
        for (int k = 0; k < fact.length; k++) {
            if (fact[k] == MINE && !board.isFlagged(k / board.width, k % board.width)) {
                reply.flag(k / board.width, k % board.width);
                any = true;
            }
        }
        if (any) return reply;
        List<int[]> covered = new ArrayList<>();
        for (int r = 0; r < board.height; r++) {
            for (int c = 0; c < board.width; c++) {
                if (board.isCovered(r, c)) covered.add(new int[] {r, c});
            }
        }
        if (covered.isEmpty()) return Reply.error("no covered cell left to reveal");
        int[] cell = covered.get(rng.below(covered.size()));
        return reply.revealGuess(cell[0], cell[1])
                .note("no certain move: one of " + covered.size() + " covered cells at random");
    }

    static final byte UNDECIDED = 0;
    static final byte SAFE = 1;
    static final byte MINE = 2;

    /**
     * What the two single-cell rules decide, applied until nothing changes: per cell (row * width + col),
     * UNDECIDED, SAFE or MINE (flagged cells are MINE).
     */
    static byte[] certainMoves(Board board) {
        int width = board.width;
        byte[] fact = new byte[board.height * width];
        // Only a number beside a covered cell can decide anything: those, each with its value and its covered
        // or flagged neighbours (as row * width + col), listed once.
        List<int[]> frontier = new ArrayList<>();
        int[] around = new int[8];
        for (int r = 0; r < board.height; r++) {
            for (int c = 0; c < width; c++) {
                if (board.isFlagged(r, c)) fact[r * width + c] = MINE;
                int value = board.number(r, c);
                if (value <= 0) continue;
                int count = 0;
                boolean covered = false;
                for (int rr = Math.max(r - 1, 0); rr <= Math.min(r + 1, board.height - 1); rr++) {
                    for (int cc = Math.max(c - 1, 0); cc <= Math.min(c + 1, width - 1); cc++) {
                        if (board.number(rr, cc) >= 0) continue; // revealed (and the number itself)
                        around[count++] = rr * width + cc;
                        covered |= board.isCovered(rr, cc);
                    }
                }
                if (!covered) continue;
                int[] entry = new int[count + 1];
                entry[0] = value;
                System.arraycopy(around, 0, entry, 1, count);
                frontier.add(entry);
            }
        }
        int[] unknown = new int[8];
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int[] entry : frontier) {
                int known = 0;
                int count = 0;
                for (int i = 1; i < entry.length; i++) {
                    if (fact[entry[i]] == MINE) known++;
                    else if (fact[entry[i]] == UNDECIDED) unknown[count++] = entry[i];
                }
                if (count == 0) continue;
                byte decided;
                if (known == entry[0]) decided = SAFE;
                else if (known + count == entry[0]) decided = MINE;
                else continue;
                for (int i = 0; i < count; i++) fact[unknown[i]] = decided;
                changed = true;
            }
        }
        return fact;
    }
}
