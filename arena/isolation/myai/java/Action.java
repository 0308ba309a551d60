package src;

/**
 * The course shell's action: a move of ACTION and the tile's coordinates, x the column and y the row counted from
 * the bottom, both from 1. Keep this file as it is: the arena builds your agent with its own copy (docs/courses.md).
 */
public class Action {
	public enum ACTION {
		LEAVE, UNCOVER, FLAG, UNFLAG
	};

	public ACTION action;
	public int x;
	public int y;

	public Action(ACTION action, int x, int y) {
		this.action = action;
		this.x = x;
		this.y = y;
	}

	/** A move without a tile (LEAVE): its coordinates are 1, 1, as the shell's. */
	public Action(ACTION action) {
		this(action, 1, 1);
	}

	public String toString() {
		return this.action == ACTION.LEAVE ? this.action + " " : this.action + " (" + this.x + "," + this.y + ")";
	}
}
