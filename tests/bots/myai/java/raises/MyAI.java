package src;

import src.Action.ACTION;

/** A student's agent that divides by zero on its second move. */
public class MyAI extends AI {
	private int moves;
	private final int startX;
	private final int startY;

	public MyAI(int rowDimension, int colDimension, int totalMines, int startX, int startY) {
		this.startX = startX;
		this.startY = startY;
	}

	public Action getAction(int number) {
		moves++;
		if (moves == 2) {
			return new Action(ACTION.UNCOVER, startX / (moves - 2), startY);
		}
		return new Action(ACTION.UNCOVER, startX, startY);
	}
}
