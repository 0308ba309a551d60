package bot;

import static bot.TestRunner.assertEquals;
import static bot.TestRunner.check;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Tests of the JSON reader, the protocol client and the shared generator: ./test.sh
 *
 * <p>They test the client, not your strategy: every conversation here is played by {@link #scripted}, a strategy
 * of the tests' own, so changing Strategy.java never fails them. Your strategy's tests are StrategyTest.java.
 */
public final class ClientTest {
    private ClientTest() {}

    static final String NEW_GAME = "{\"type\":\"new_game\",\"board\":\"custom\",\"height\":3,\"width\":4,\"mines\":2,"
            + "\"rule\":\"safe\",\"seed\":\"c9d0342fd9bb4860326e6cb830c5b01b\",\"move_ms\":10000,\"game_ms\":300000}";

    static String observation(String... rows) {
        return "{\"type\":\"observation\",\"grid\":[\"" + String.join("\",\"", rows) + "\"],\"mines\":2,\"flags\":0,\"moves\":0}";
    }

    /** Runs a client over these lines and returns its answers, as JSON text. */
    static List<String> converse(Client client, String... lines) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream output = new PrintStream(bytes, false, StandardCharsets.UTF_8);
        client.run(new BufferedReader(new StringReader(String.join("\n", lines) + "\n")), output);
        output.flush();
        List<String> answers = new ArrayList<>();
        for (String line : bytes.toString(StandardCharsets.UTF_8).split("\n")) if (!line.isEmpty()) answers.add(line);
        return answers;
    }

    /**
     * A strategy for testing the client: its first reply reveals the first covered cell as a guess, noting the
     * game's rule and the generator's first number (what the client gave it); later ones reveal the first covered
     * cell and flag the last.
     */
    static GameStrategy scripted(GameInfo info, SplitMix64 rng) {
        String note = info.rule + " " + Long.toHexString(rng.next());
        return board -> {
            List<int[]> covered = new ArrayList<>();
            for (int r = 0; r < board.height; r++) {
                for (int c = 0; c < board.width; c++) if (board.isCovered(r, c)) covered.add(new int[] {r, c});
            }
            int[] first = covered.get(0);
            int[] last = covered.get(covered.size() - 1);
            if (!board.anyRevealed()) return new Reply().revealGuess(first[0], first[1]).note(note);
            return new Reply().reveal(first[0], first[1]).flag(last[0], last[1]);
        };
    }

    static String firstNote(String rule) {
        return rule + " " + Long.toHexString(new SplitMix64("c9d0342fd9bb4860326e6cb830c5b01b").next());
    }

    static Client starting() {
        return new Client("tester", "7", ClientTest::scripted);
    }

    public static void testTheGeneratorMatchesTheProtocolTestVectors() {
        SplitMix64 zero = new SplitMix64("00000000000000000000000000000000");
        assertEquals(0L, zero.state());
        assertEquals(List.of("e220a8397b1dcdaf", "6e789e6aa1b965f4", "6c45d188009454f"),
                List.of(Long.toHexString(zero.next()), Long.toHexString(zero.next()), Long.toHexString(zero.next())));
        SplitMix64 a = new SplitMix64("665d7c98f171fe590dc12f9daf846ac9");
        assertEquals("6b9c53055ef59490", Long.toHexString(a.state()));
        assertEquals(List.of("b53c6e4fbe4adf5c", "34cb863974a611f0", "b16c08e5f02d657d"),
                List.of(Long.toHexString(a.next()), Long.toHexString(a.next()), Long.toHexString(a.next())));
        SplitMix64 b = new SplitMix64("0123456789abcdeffedcba9876543210");
        assertEquals(-1L, b.state());
        assertEquals(List.of("e4d971771b652c20", "e99ff867dbf682c9", "382ff84cb27281e9"),
                List.of(Long.toHexString(b.next()), Long.toHexString(b.next()), Long.toHexString(b.next())));
        SplitMix64 c = new SplitMix64("665d7c98f171fe590dc12f9daf846ac9");
        assertEquals(List.of(59, 41, 3, 22, 0), List.of(c.below(71), c.below(71), c.below(10), c.below(480), c.below(1)));
        boolean threw = false;
        try {
            c.below(0);
        } catch (IllegalArgumentException e) {
            threw = true;
        }
        check(threw, "below(0) is refused");
    }

    public static void testTheJsonReaderReadsTheProtocolsShapes() {
        Object value = Json.parse(" {\"a\": [1, -2, 3.5, \"x\\\"y\\u00e9\\n\"], \"b\": {\"c\": true, \"d\": null}, \"e\": false} ");
        check(value instanceof Map, "an object");
        Map<?, ?> map = (Map<?, ?>) value;
        assertEquals(List.of(1L, -2L, 3.5, "x\"y\u00e9\n"), map.get("a"));
        assertEquals(true, ((Map<?, ?>) map.get("b")).get("c"));
        check(((Map<?, ?>) map.get("b")).containsKey("d"), "a null value is kept");
        assertEquals(false, map.get("e"));
        for (String bad : new String[] {"{", "{\"a\" 1}", "[1,]", "nul", "{} x", "\"open"}) {
            boolean threw = false;
            try {
                Json.parse(bad);
            } catch (IllegalArgumentException e) {
                threw = true;
            }
            check(threw, "refused: " + bad);
        }
        assertEquals("{\"k\":[\"a\\\"b\\n\",1,0.25,true,null]}",
                Json.write(Map.of("k", java.util.Arrays.asList("a\"b\n", 1, 0.25, true, null))));
    }

    public static void testABoardReadsCellsNumbersAndNeighbours() {
        Board board = new Board(List.of("1F#", "110"), 1, 1, 3);
        assertEquals(List.of(2, 3, 1, 1, 3), List.of(board.height, board.width, board.mines, board.flags, board.moves));
        assertEquals(1, board.number(0, 0));
        assertEquals(-1, board.number(0, 1));
        check(board.isFlagged(0, 1) && board.isCovered(0, 2) && !board.isCovered(0, 1), "covered and flagged");
        List<String> around = new ArrayList<>();
        for (int[] cell : board.neighbours(0, 0)) around.add(cell[0] + "," + cell[1]);
        assertEquals(List.of("0,1", "1,0", "1,1"), around);
        assertEquals(5, board.neighbours(1, 1).size());
        check(board.anyRevealed() && !new Board(List.of("#F", "##"), 0, 0, 0).anyRevealed(), "anyRevealed");
        boolean threw = false;
        try {
            new Board(List.of("###", "##"), 0, 0, 0);
        } catch (IllegalArgumentException e) {
            threw = true;
        }
        check(threw, "a ragged grid is refused");
    }

    public static void testAReplyListsActionsGuessesAndNotes() {
        Reply reply = new Reply().reveal(1, 2).flag(0, 0).revealGuess(3, 4).note("why", 0.25);
        assertEquals("{\"actions\":[[\"reveal\",1,2],[\"flag\",0,0],[\"reveal\",3,4]],\"guess\":[[3,4]],"
                + "\"notes\":[[2,\"why\",0.25]]}", Json.write(reply.toMessage()));
        Reply other = new Reply().chord(1, 1).unflag(0, 0).note("oops");
        assertEquals("{\"actions\":[[\"chord\",1,1],[\"unflag\",0,0]],\"notes\":[[1,\"oops\"]]}",
                Json.write(other.toMessage()));
    }

    public static void testPlaysTheProtocolExampleExchange() throws IOException {
        List<String> answers = converse(starting(), "{\"type\":\"hello\",\"protocol\":1}", NEW_GAME,
                observation("####", "####", "####"), observation("0000", "1111", "#1##"),
                "{\"type\":\"game_over\",\"outcome\":\"won\",\"message\":\"\"}", "{\"type\":\"quit\"}");
        assertEquals(List.of(
                "{\"protocol\":1,\"name\":\"tester\",\"version\":\"7\"}",
                "{\"actions\":[[\"reveal\",0,0]],\"guess\":[[0,0]],\"notes\":[[0,\"" + firstNote("safe") + "\"]]}",
                "{\"actions\":[[\"reveal\",2,0],[\"flag\",2,3]]}"), answers);
    }

    public static void testIgnoresEmptyLinesUnknownMessagesAndFieldsAndStopsAtQuit() throws IOException {
        List<String> answers = converse(starting(), "", "   ", "{\"type\":\"hello\",\"protocol\":1,\"future\":[1,{}]}",
                "{\"type\":\"something_new\"}", "{\"type\":\"quit\"}", "{\"type\":\"hello\",\"protocol\":1}");
        assertEquals(List.of("{\"protocol\":1,\"name\":\"tester\",\"version\":\"7\"}"), answers);
    }

    public static void testAFailingStrategyScoresAnErrorAndTheNextGamePlays() throws IOException {
        Client client = new Client("tester", "7", (info, rng) -> board -> {
            if (info.rule.equals("none")) throw new IllegalStateException("not this rule");
            return new Reply().reveal(0, 0);
        });
        PrintStream err = System.err;
        System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)); // the stack trace
        List<String> answers;
        try {
            answers = converse(client, NEW_GAME.replace("\"safe\"", "\"none\""), observation("####", "####", "####"),
                    NEW_GAME, observation("##", "##"));
        } finally {
            System.setErr(err);
        }
        assertEquals(List.of("{\"error\":\"IllegalStateException: not this rule\"}", "{\"actions\":[[\"reveal\",0,0]]}"),
                answers);
    }

    public static void testEachGameRestartsTheGeneratorFromItsSeed() throws IOException {
        String first = observation("####", "####", "####");
        List<String> answers = converse(starting(), NEW_GAME, first, NEW_GAME, first);
        assertEquals(2, answers.size());
        assertEquals(answers.get(0), answers.get(1));
        check(answers.get(0).contains(firstNote("safe")), answers.get(0));
    }

    public static void testTheRuleReachesTheStrategy() throws IOException {
        String[] rules = {"safe", "windows", "opening", "none"};
        for (String rule : rules) {
            List<String> answers = converse(starting(), NEW_GAME.replace("\"safe\"", "\"" + rule + "\""),
                    observation("####", "####", "####"));
            check(answers.get(0).contains("\"" + firstNote(rule) + "\""), rule + ": " + answers.get(0));
        }
        assertEquals(4, rules.length);
    }
}
