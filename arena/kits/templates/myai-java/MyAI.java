/*
 * __BOT_NAME__: a Minesweeper agent in the course shell's Java interface (docs/courses.md).
 *
 * The arena (or the course's own world) builds one MyAI per game and asks getAction for one action at a time.
 * Coordinates are the Java shell's: x is the column, y the row counted from the bottom, both from 1. number is the
 * number of the tile your last UNCOVER opened (your start tile's, 0, on the first call) and -1 after FLAG or UNFLAG.
 * Edit this file (and add classes beside it if you like); AI.java and Action.java are the shell's.
 *
 * This starting agent keeps a queue of tiles known to be safe (every covered neighbour of a number whose mines are
 * all flagged), flags a number's covered neighbours when they must all be mines, and otherwise guesses a covered
 * tile at random. Make it better.
 */
package src;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import src.Action.ACTION;

public class MyAI extends AI {
	private static final int COVERED = -1;
	private static final int FLAGGED = -2;

	private final int rows;
	private final int cols;
	private final int mines;
	private final int[][] board; // [x][y], from 1: a number, COVERED or FLAGGED
	private final ArrayDeque<int[]> safe = new ArrayDeque<>();
	private final Random random = new Random(7);
	private int flags;
	private int[] last;

	public MyAI(int rowDimension, int colDimension, int totalMines, int startX, int startY) {
		rows = rowDimension;
		cols = colDimension;
		mines = totalMines;
		board = new int[cols + 1][rows + 1];
		for (int[] column : board) {
			java.util.Arrays.fill(column, COVERED);
		}
		last = new int[] { startX, startY }; // the start tile: the world has uncovered it, a zero
	}

	private List<int[]> neighbours(int x, int y) {
		List<int[]> found = new ArrayList<>();
		for (int dx = -1; dx <= 1; dx++) {
			for (int dy = -1; dy <= 1; dy++) {
				int nx = x + dx, ny = y + dy;
				if ((dx != 0 || dy != 0) && nx >= 1 && nx <= cols && ny >= 1 && ny <= rows) {
					found.add(new int[] { nx, ny });
				}
			}
		}
		return found;
	}

	private List<int[]> around(int x, int y, int state) {
		List<int[]> found = new ArrayList<>();
		for (int[] tile : neighbours(x, y)) {
			if (board[tile[0]][tile[1]] == state) {
				found.add(tile);
			}
		}
		return found;
	}

	public Action getAction(int number) {
		if (number >= 0 && last != null) {
			board[last[0]][last[1]] = number;
		}
		last = null;
		for (int x = 1; x <= cols; x++) {
			for (int y = 1; y <= rows; y++) {
				int n = board[x][y];
				if (n >= 0 && around(x, y, FLAGGED).size() == n) {
					safe.addAll(around(x, y, COVERED)); // all its mines are flagged: the rest are safe
				}
			}
		}
		while (!safe.isEmpty()) {
			int[] tile = safe.poll();
			if (board[tile[0]][tile[1]] == COVERED) {
				last = tile;
				return new Action(ACTION.UNCOVER, tile[0], tile[1]);
			}
		}
		List<int[]> unknown = new ArrayList<>();
		for (int x = 1; x <= cols; x++) {
			for (int y = 1; y <= rows; y++) {
				int n = board[x][y];
				List<int[]> covered = n >= 0 ? around(x, y, COVERED) : List.of();
				if (!covered.isEmpty() && n - around(x, y, FLAGGED).size() == covered.size()) {
					int[] mine = covered.get(0); // its covered neighbours must all be mines
					board[mine[0]][mine[1]] = FLAGGED;
					flags++;
					return new Action(ACTION.FLAG, mine[0], mine[1]);
				}
				if (n == COVERED) {
					unknown.add(new int[] { x, y });
				}
			}
		}
		if (unknown.isEmpty() || unknown.size() <= mines - flags) {
			return new Action(ACTION.LEAVE); // every tile left is a mine: the board is cleared
		}
		last = unknown.get(random.nextInt(unknown.size()));
		return new Action(ACTION.UNCOVER, last[0], last[1]);
	}
}
