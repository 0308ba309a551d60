/*
 * A student's agent in the course's Java shell (package src, x and y from 1): a queue of tiles known safe, every
 * neighbour of a zero; LEAVE when it runs out. It prints what it does, as students' agents do, and keeps a helper
 * class in a file of its own (Tile.java).
 */
package src;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;

import src.Action.ACTION;

public class MyAI extends AI {
	private final int rows;
	private final int cols;
	private final ArrayDeque<Tile> safe = new ArrayDeque<>();
	private final Set<Tile> seen = new HashSet<>();
	private Tile last;

	MyAI(int rowDimension, int colDimension, int totalMines, int startX, int startY) {
		rows = rowDimension;
		cols = colDimension;
		last = new Tile(startX, startY);
		seen.add(last);
	}

	public Action getAction(int number) {
		System.out.println("number " + number + " at " + last);
		if (number == 0) {
			for (int dx = -1; dx <= 1; dx++) {
				for (int dy = -1; dy <= 1; dy++) {
					Tile next = new Tile(last.x + dx, last.y + dy);
					if (next.x >= 1 && next.x <= cols && next.y >= 1 && next.y <= rows && seen.add(next)) {
						safe.add(next);
					}
				}
			}
		}
		if (safe.isEmpty()) {
			return new Action(ACTION.LEAVE);
		}
		last = safe.poll();
		return new Action(ACTION.UNCOVER, last.x, last.y);
	}
}
