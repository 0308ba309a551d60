package bot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The answer to one observation: actions played in order, which reveals are guesses, and notes. */
public final class Reply {
    private final List<Object> actions = new ArrayList<>();
    private final List<Object> guesses = new ArrayList<>();
    private final List<Object> notes = new ArrayList<>();
    private String error;

    /** A reply that gives up this game (scored error); the process goes on to the next game. */
    public static Reply error(String text) {
        Reply reply = new Reply();
        reply.error = text;
        return reply;
    }

    private Reply add(String kind, int row, int col) {
        actions.add(List.of(kind, row, col));
        return this;
    }

    public Reply reveal(int row, int col) {
        return add("reveal", row, col);
    }

    /** A reveal that is not certain: the arena counts it as a guess. */
    public Reply revealGuess(int row, int col) {
        guesses.add(List.of(row, col));
        return add("reveal", row, col);
    }

    public Reply flag(int row, int col) {
        return add("flag", row, col);
    }

    public Reply unflag(int row, int col) {
        return add("unflag", row, col);
    }

    public Reply chord(int row, int col) {
        return add("chord", row, col);
    }

    /** Explains the last action added (replays show it): why it was played. */
    public Reply note(String text) {
        return addNote(List.of(lastAction(), text));
    }

    /** Explains the last action added, with the bot's own estimate that the cell is a mine. */
    public Reply note(String text, double pMine) {
        return addNote(List.of(lastAction(), text, pMine));
    }

    private int lastAction() {
        if (actions.isEmpty()) throw new IllegalStateException("a note explains an action: add the action first");
        return actions.size() - 1;
    }

    private Reply addNote(List<Object> entry) {
        notes.add(entry);
        return this;
    }

    public int size() {
        return actions.size();
    }

    public Map<String, Object> toMessage() {
        Map<String, Object> message = new LinkedHashMap<>();
        if (error != null) {
            message.put("error", error);
            return message;
        }
        message.put("actions", actions);
        if (!guesses.isEmpty()) message.put("guess", guesses);
        if (!notes.isEmpty()) message.put("notes", notes);
        return message;
    }
}
