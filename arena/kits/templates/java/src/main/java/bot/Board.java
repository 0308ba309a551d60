package bot;

import java.util.ArrayList;
import java.util.List;

/** One observation: the grid as the arena sent it, '#' covered, 'F' flagged, '0'-'8' revealed. */
public final class Board {
    private final String[] rows;
    public final int height;
    public final int width;
    public final int mines;
    public final int flags;
    public final int moves;

    public Board(List<String> rows, int mines, int flags, int moves) {
        if (rows.isEmpty() || rows.get(0).isEmpty()) throw new IllegalArgumentException("the grid must not be empty");
        for (String row : rows) {
            if (row.length() != rows.get(0).length()) {
                throw new IllegalArgumentException("the grid's rows must be of equal length");
            }
        }
        this.rows = rows.toArray(new String[0]);
        this.height = this.rows.length;
        this.width = this.rows[0].length();
        this.mines = mines;
        this.flags = flags;
        this.moves = moves;
    }

    public char at(int row, int col) {
        return rows[row].charAt(col);
    }

    /** Covered and not flagged. */
    public boolean isCovered(int row, int col) {
        return rows[row].charAt(col) == '#';
    }

    public boolean isFlagged(int row, int col) {
        return rows[row].charAt(col) == 'F';
    }

    /** The revealed number, or -1 for a covered or flagged cell. */
    public int number(int row, int col) {
        char ch = rows[row].charAt(col);
        return ch >= '0' && ch <= '8' ? ch - '0' : -1;
    }

    /** False before the first move (every cell covered or flagged). */
    public boolean anyRevealed() {
        for (String row : rows) {
            for (int c = 0; c < row.length(); c++) {
                if (row.charAt(c) >= '0' && row.charAt(c) <= '8') return true;
            }
        }
        return false;
    }

    /** The up to 8 cells {row, col} around (row, col), in row-major order. */
    public List<int[]> neighbours(int row, int col) {
        List<int[]> out = new ArrayList<>(8);
        for (int r = Math.max(row - 1, 0); r <= Math.min(row + 1, height - 1); r++) {
            for (int c = Math.max(col - 1, 0); c <= Math.min(col + 1, width - 1); c++) {
                if (r != row || c != col) out.add(new int[] {r, c});
            }
        }
        return out;
    }
}
