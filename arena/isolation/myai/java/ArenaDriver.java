package src;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The arena's end of a Java agent (docs/courses.md): the adapter (arena/isolation/myai/host.py) asks, one line at a
 * time, "new ROWS COLS MINES X Y SEED" (a new MyAI) and "get NUMBER" (its getAction), and this answers "ok",
 * "action KIND X Y" (KIND the ACTION's ordinal), "null", or "error TEXT". The rules live in the adapter, not here.
 * What the agent prints goes to stderr, its log: this keeps stdout for the answers.
 */
final class ArenaDriver {
	private ArenaDriver() {
	}

	public static void main(String[] args) throws Exception {
		PrintStream answers = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
		System.setOut(System.err);
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		AI agent = null;
		String line;
		while ((line = in.readLine()) != null) {
			String[] words = line.trim().split(" ");
			String answer;
			if (words[0].equals("new") && words.length == 7) {
				agent = null;
				AI.seed = words[6];
				try {
					agent = new MyAI(Integer.parseInt(words[1]), Integer.parseInt(words[2]),
							Integer.parseInt(words[3]), Integer.parseInt(words[4]), Integer.parseInt(words[5]));
					answer = "ok";
				} catch (Throwable failure) {
					answer = "error " + describe(failure);
				}
			} else if (words[0].equals("get") && words.length == 2 && agent != null) {
				try {
					Action action = agent.getAction(Integer.parseInt(words[1]));
					if (action == null) {
						answer = "null";
					} else {
						int kind = action.action == null ? -1 : action.action.ordinal();
						answer = "action " + kind + " " + action.x + " " + action.y;
					}
				} catch (Throwable failure) {
					answer = "error " + describe(failure);
				}
			} else if (words[0].equals("quit")) {
				return;
			} else {
				answer = "error the arena's driver was asked " + line.trim();
			}
			System.out.flush();
			answers.println(answer);
		}
	}

	/** TYPE: message (FILE, line N) at the innermost frame of the agent's own files, on one line. */
	private static String describe(Throwable failure) {
		String text = failure.getMessage() == null ? "" : failure.getMessage().split("\\R", 2)[0];
		String where = "";
		for (StackTraceElement frame : failure.getStackTrace()) {
			String name = frame.getClassName();
			if (frame.getFileName() == null || frame.getFileName().equals("ArenaDriver.java") || name.startsWith("java.")
					|| name.startsWith("javax.") || name.startsWith("jdk.") || name.startsWith("sun.")) {
				continue;
			}
			where = " (" + frame.getFileName() + ", line " + frame.getLineNumber() + ")";
			break;
		}
		String kind = failure.getClass().getSimpleName();
		return (text.isEmpty() ? kind : kind + ": " + text) + where;
	}
}
