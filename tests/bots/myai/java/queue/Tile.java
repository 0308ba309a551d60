package src;

/** A tile in the shell's coordinates. */
final class Tile {
	final int x;
	final int y;

	Tile(int x, int y) {
		this.x = x;
		this.y = y;
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof Tile && ((Tile) other).x == x && ((Tile) other).y == y;
	}

	@Override
	public int hashCode() {
		return 31 * x + y;
	}

	@Override
	public String toString() {
		return "(" + x + "," + y + ")";
	}
}
