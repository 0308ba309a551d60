package bot;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Starts the bot: the protocol client with the strategy of Strategy.java. run.sh runs this. */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws IOException {
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        // A plain UTF-8 stream on file descriptor 1: the client flushes it after every line.
        PrintStream output = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        new Client(Strategy.NAME, Strategy.VERSION, Strategy::new).run(input, output);
        output.flush();
    }
}
