package bot;

import static bot.TestRunner.assertEquals;
import static bot.TestRunner.check;

import java.util.List;

/**
 * Example tests of your strategy (Strategy.java): yours to change with it. They pin down what the starting strategy
 * does: its first click under each rule, the moves the two single-cell rules make certain, and a seeded guess when
 * none is. When you change the strategy, change these to say what yours does; the client's tests (ClientTest.java)
 * do not depend on them, nor on your strategy.
 */
public final class StrategyTest {
    private StrategyTest() {}

    static final String SEED = "c9d0342fd9bb4860326e6cb830c5b01b";

    static String play(String rule, String... rows) {
        GameInfo info = new GameInfo("custom", rows.length, rows[0].length(), 2, rule, SEED, 10000, 300000);
        Reply reply = new Strategy(info, new SplitMix64(SEED)).play(new Board(List.of(rows), 2, 0, 0));
        return Json.write(reply.toMessage());
    }

    public static void testFirstClicksByRule() {
        String[][] cases = {{"safe", "0,0"}, {"windows", "0,0"}, {"opening", "2,3"}, {"none", "0,0"}};
        for (String[] c : cases) {
            String message = play(c[0], "####", "####", "####");
            check(message.startsWith("{\"actions\":[[\"reveal\"," + c[1] + "]]"), c[0] + ": " + message);
            assertEquals(c[0].equals("none"), message.contains("\"guess\""));
        }
        assertEquals(4, cases.length);
    }

    public static void testCertainMovesArePlayedTogether() {
        assertEquals("{\"actions\":[[\"reveal\",2,2],[\"flag\",2,0],[\"flag\",2,3]]}", play("safe", "0000", "1111", "#1##"));
    }

    public static void testASeededGuessWithANoteWhenNothingIsCertain() {
        String message = play("safe", "0000", "1111", "####");
        assertEquals("{\"actions\":[[\"reveal\",2,1]],\"guess\":[[2,1]],"
                + "\"notes\":[[0,\"no certain move: one of 4 covered cells at random\"]]}", message);
        assertEquals(message, play("safe", "0000", "1111", "####"));
    }
}
