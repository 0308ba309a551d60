/*
 * examples/standalone_bot.py's strategy as a Java course-shell agent (x and y from 1): it learns the board one number
 * at a time (uncovering every neighbour of a zero first, which the arena gives without a move), then plays what the
 * standalone example would on that board: every certain reveal, then every certain flag, in row-major order, else a
 * guess drawn from the protocol's shared generator seeded from AI.seed. tests/arena/isolation/myai/ holds its games
 * to the example's, move for move.
 */
package src;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import src.Action.ACTION;

public class MyAI extends AI {
	private final int rows;
	private final int cols;
	private final char[][] grid; // [row from the top][col]
	private long state;
	private int[] last; // the tile the last UNCOVER asked for, or null
	private final List<int[]> explore = new ArrayList<>();
	private final List<int[]> plan = new ArrayList<>(); // {kind: 1 uncover, 2 flag, row, col}

	public MyAI(int rowDimension, int colDimension, int totalMines, int startX, int startY) {
		rows = rowDimension;
		cols = colDimension;
		grid = new char[rows][cols];
		for (char[] row : grid) {
			java.util.Arrays.fill(row, '#');
		}
		state = Long.parseUnsignedLong(seed.substring(0, 16), 16) ^ Long.parseUnsignedLong(seed.substring(16), 16);
		last = new int[] { rows - startY, startX - 1 };
	}

	private int below(int n) {
		state += 0x9E3779B97F4A7C15L;
		long z = state;
		z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
		z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
		return (int) Long.remainderUnsigned(z ^ (z >>> 31), n);
	}

	private List<int[]> neighbours(int r, int c) {
		List<int[]> found = new ArrayList<>();
		for (int rr = Math.max(r - 1, 0); rr < Math.min(r + 2, rows); rr++) {
			for (int cc = Math.max(c - 1, 0); cc < Math.min(c + 2, cols); cc++) {
				if (rr != r || cc != c) {
					found.add(new int[] { rr, cc });
				}
			}
		}
		return found;
	}

	private Action act(ACTION kind, int r, int c) {
		last = kind == ACTION.UNCOVER ? new int[] { r, c } : null;
		return new Action(kind, c + 1, rows - r);
	}

	public Action getAction(int number) {
		if (last != null && number >= 0) {
			int r = last[0], c = last[1];
			if (grid[r][c] == '#') {
				grid[r][c] = (char) ('0' + number);
				if (number == 0) {
					for (int[] cell : neighbours(r, c)) {
						if (grid[cell[0]][cell[1]] == '#') {
							explore.add(cell);
						}
					}
				}
			}
		}
		while (!explore.isEmpty()) {
			int[] cell = explore.remove(explore.size() - 1);
			if (grid[cell[0]][cell[1]] == '#') {
				return act(ACTION.UNCOVER, cell[0], cell[1]);
			}
		}
		while (!plan.isEmpty()) {
			int[] step = plan.remove(0);
			if (grid[step[1]][step[2]] == '#') {
				if (step[0] == 2) {
					grid[step[1]][step[2]] = 'F';
					return act(ACTION.FLAG, step[1], step[2]);
				}
				return act(ACTION.UNCOVER, step[1], step[2]);
			}
		}
		TreeSet<Integer> safe = new TreeSet<>();
		TreeSet<Integer> mines = new TreeSet<>();
		certain(safe, mines);
		if (!safe.isEmpty() || !mines.isEmpty()) {
			for (int cell : safe) {
				plan.add(new int[] { 1, cell / cols, cell % cols });
			}
			for (int cell : mines) {
				plan.add(new int[] { 2, cell / cols, cell % cols });
			}
			return getAction(-1);
		}
		List<Integer> covered = new ArrayList<>();
		for (int r = 0; r < rows; r++) {
			for (int c = 0; c < cols; c++) {
				if (grid[r][c] == '#') {
					covered.add(r * cols + c);
				}
			}
		}
		int cell = covered.get(below(covered.size()));
		return act(ACTION.UNCOVER, cell / cols, cell % cols);
	}

	/** The cells (row * cols + col) the two single-cell rules decide, applied until nothing changes. */
	private void certain(TreeSet<Integer> safe, TreeSet<Integer> mines) {
		for (int r = 0; r < rows; r++) {
			for (int c = 0; c < cols; c++) {
				if (grid[r][c] == 'F') {
					mines.add(r * cols + c);
				}
			}
		}
		boolean changed = true;
		while (changed) {
			changed = false;
			for (int r = 0; r < rows; r++) {
				for (int c = 0; c < cols; c++) {
					char ch = grid[r][c];
					if (ch < '1' || ch > '8') {
						continue;
					}
					int known = 0;
					List<Integer> unknown = new ArrayList<>();
					for (int[] cell : neighbours(r, c)) {
						int key = cell[0] * cols + cell[1];
						if (mines.contains(key)) {
							known++;
						} else if (grid[cell[0]][cell[1]] == '#' && !safe.contains(key)) {
							unknown.add(key);
						}
					}
					if (unknown.isEmpty()) {
						continue;
					}
					if (known == ch - '0') {
						safe.addAll(unknown);
						changed = true;
					} else if (known + unknown.size() == ch - '0') {
						mines.addAll(unknown);
						changed = true;
					}
				}
			}
		}
		for (int r = 0; r < rows; r++) {
			for (int c = 0; c < cols; c++) {
				if (grid[r][c] == 'F') {
					mines.remove(r * cols + c);
				}
			}
		}
	}
}
