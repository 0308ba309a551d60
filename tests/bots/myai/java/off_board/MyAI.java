package src;

import src.Action.ACTION;

/** A student's agent that counts x from 0, as its Python friend's does, and so steps off the board's right edge. */
public class MyAI extends AI {
	private final int cols;

	public MyAI(int rowDimension, int colDimension, int totalMines, int startX, int startY) {
		cols = colDimension;
	}

	public Action getAction(int number) {
		return new Action(ACTION.UNCOVER, cols, 0);
	}
}
