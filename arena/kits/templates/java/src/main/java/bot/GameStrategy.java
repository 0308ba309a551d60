package bot;

/** What Strategy.java provides: one per game, answering each observation. */
public interface GameStrategy {
    Reply play(Board board);
}
