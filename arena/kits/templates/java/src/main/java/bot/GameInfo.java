package bot;

import java.util.Map;

/** What new_game says about the game about to start. */
public final class GameInfo {
    public final String board;
    public final int height;
    public final int width;
    public final int mines;
    /** The first-click rule: safe, opening, none, windows or zero. */
    public final String rule;
    /** This game's own seed: 32 hex digits. */
    public final String seed;
    public final long moveMs;
    public final long gameMs;

    public GameInfo(String board, int height, int width, int mines, String rule, String seed, long moveMs, long gameMs) {
        this.board = board;
        this.height = height;
        this.width = width;
        this.mines = mines;
        this.rule = rule;
        this.seed = seed;
        this.moveMs = moveMs;
        this.gameMs = gameMs;
    }

    /** The defaults, for an observation that comes without new_game. */
    public static GameInfo defaults() {
        return new GameInfo("custom", 0, 0, 0, "safe", "0".repeat(32), 10000, 300000);
    }

    static GameInfo fromMessage(Map<String, Object> message) {
        return new GameInfo(
                Client.text(message, "board", "custom"),
                (int) Client.number(message, "height", 0),
                (int) Client.number(message, "width", 0),
                (int) Client.number(message, "mines", 0),
                Client.text(message, "rule", "safe"),
                Client.text(message, "seed", "0".repeat(32)),
                Client.number(message, "move_ms", 10000),
                Client.number(message, "game_ms", 300000));
    }
}
