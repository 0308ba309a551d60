package src;

/**
 * The course shell's abstract agent, as the arena provides it: an agent extends AI and answers getAction(number)
 * with an Action. Keep this file as it is: the arena builds your agent with its own copy (docs/courses.md).
 */
public abstract class AI {
	/** The game's seed (32 hex digits, the protocol's: docs/protocol.md), for an agent that wants the shared generator. */
	public static String seed = "00000000000000000000000000000000";

	/** The next action, told the number of the tile the last UNCOVER opened (-1 after FLAG or UNFLAG). */
	public abstract Action getAction(int number);
}
