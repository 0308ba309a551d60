package bot;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The protocol client (docs/protocol.md): reads the arena's messages, answers hello, keeps the board of each
 * observation and sends the strategy's replies. You should not need to edit this file: your bot is
 * Strategy.java. One JSON object per line each way; stdout carries nothing but answers (log to System.err).
 */
public final class Client {
    public static final int PROTOCOL = 1;

    private final String name;
    private final String version;
    private final BiFunction<GameInfo, SplitMix64, GameStrategy> factory;
    private GameInfo info = GameInfo.defaults();
    private GameStrategy strategy;

    /** factory builds each game's strategy from the game's facts and its seeded generator. */
    public Client(String name, String version, BiFunction<GameInfo, SplitMix64, GameStrategy> factory) {
        this.name = name;
        this.version = version;
        this.factory = factory;
    }

    static String text(Map<String, Object> message, String key, String fallback) {
        Object value = message.get(key);
        return value instanceof String ? (String) value : fallback;
    }

    static long number(Map<String, Object> message, String key, long fallback) {
        Object value = message.get(key);
        return value instanceof Number ? ((Number) value).longValue() : fallback;
    }

    /** The answer to one message, or null for messages that take none. */
    public Map<String, Object> handle(Map<String, Object> message) {
        String type = text(message, "type", "");
        switch (type) {
            case "hello": {
                Map<String, Object> answer = new LinkedHashMap<>();
                answer.put("protocol", PROTOCOL);
                answer.put("name", name);
                answer.put("version", version);
                return answer;
            }
            case "new_game":
                info = GameInfo.fromMessage(message);
                strategy = factory.apply(info, new SplitMix64(info.seed));
                return null;
            case "observation":
                try {
                    Object grid = message.get("grid");
                    if (!(grid instanceof List)) throw new IllegalArgumentException("an observation without a grid");
                    List<String> rows = new ArrayList<>();
                    for (Object row : (List<?>) grid) rows.add(String.valueOf(row));
                    Board board = new Board(rows, (int) number(message, "mines", 0), (int) number(message, "flags", 0),
                            (int) number(message, "moves", 0));
                    if (strategy == null) strategy = factory.apply(info, new SplitMix64(info.seed));
                    Reply reply = strategy.play(board);
                    if (reply == null) throw new IllegalStateException("play() returned null, expected a Reply");
                    return reply.toMessage();
                } catch (RuntimeException error) { // the game is scored error; the bot lives on for the next one
                    error.printStackTrace();
                    return Reply.error(error.getClass().getSimpleName() + ": " + error.getMessage()).toMessage();
                }
            default:
                return null; // game_over, and whatever later protocol versions add
        }
    }

    /** Answer every line of input on output until quit or the end of the input. */
    public void run(BufferedReader input, PrintStream output) throws IOException {
        for (String line = input.readLine(); line != null; line = input.readLine()) {
            if (line.isBlank()) continue;
            Object parsed;
            try {
                parsed = Json.parse(line);
            } catch (IllegalArgumentException error) {
                System.err.println("ignored a line that is not JSON: " + line.substring(0, Math.min(80, line.length())));
                continue;
            }
            if (!(parsed instanceof Map)) continue;
            @SuppressWarnings("unchecked")
            Map<String, Object> message = (Map<String, Object>) parsed;
            if ("quit".equals(message.get("type"))) return;
            Map<String, Object> answer = handle(message);
            if (answer != null) {
                output.print(Json.write(answer) + "\n");
                output.flush();
            }
        }
    }
}
