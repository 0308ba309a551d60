//! Example tests of your strategy (src/strategy.rs): yours to change with it. They pin down what the starting
//! strategy does: its first click under each rule, the moves the two single-cell rules make certain, and a seeded
//! guess when none is. When you change the strategy, change these to say what yours does; the client's tests
//! (tests/client.rs) do not depend on them, nor on your strategy.

use botkit::client::{Board, GameInfo, Strategy};
use botkit::rng::SplitMix64;
use botkit::strategy::make;
use serde_json::{json, Value};

const SEED: &str = "c9d0342fd9bb4860326e6cb830c5b01b";

fn play(rows: &[&str], rule: &str) -> Value {
    let message = json!({"type": "new_game", "board": "custom", "height": rows.len(), "width": rows[0].len(),
                         "mines": 2, "rule": rule, "seed": SEED, "move_ms": 10000, "game_ms": 300000});
    let info = GameInfo::from_message(&message);
    let board = Board::new(rows.iter().map(|r| r.to_string()).collect(), 2, 0, 0).unwrap();
    let mut strategy = make(&info, SplitMix64::new(SEED));
    strategy.play(&board).to_json()
}

#[test]
fn first_clicks_by_rule() {
    let cases = [("safe", (0, 0)), ("windows", (0, 0)), ("opening", (2, 3)), ("none", (0, 0))];
    for (rule, (row, col)) in cases {
        let message = play(&["####", "####", "####"], rule);
        assert_eq!(message["actions"], json!([["reveal", row, col]]), "{}", rule);
        assert_eq!(message.get("guess").is_some(), rule == "none", "{}", rule);
    }
}

#[test]
fn certain_moves_are_played_together() {
    assert_eq!(play(&["0000", "1111", "#1##"], "safe"), json!({"actions": [["reveal", 2, 2], ["flag", 2, 0], ["flag", 2, 3]]}));
}

#[test]
fn a_seeded_guess_with_a_note_when_nothing_is_certain() {
    let note = "no certain move: one of 4 covered cells at random";
    let message = play(&["0000", "1111", "####"], "safe");
    assert_eq!(message, json!({"actions": [["reveal", 2, 1]], "guess": [[2, 1]], "notes": [[0, note]]}));
    assert_eq!(play(&["0000", "1111", "####"], "safe"), message);
}
