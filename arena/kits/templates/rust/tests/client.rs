//! Tests of the protocol client and the shared generator: cargo test
//!
//! They test the client, not your strategy: every conversation here is played by `Scripted`, a strategy of the
//! tests' own, so changing src/strategy.rs never fails them. Your strategy's tests are tests/strategy.rs.

use botkit::client::{Board, Client, GameInfo, Reply, Strategy};
use botkit::rng::SplitMix64;
use serde_json::{json, Value};

fn new_game() -> Value {
    json!({"type": "new_game", "board": "custom", "height": 3, "width": 4, "mines": 2, "rule": "safe",
           "seed": "c9d0342fd9bb4860326e6cb830c5b01b", "move_ms": 10000, "game_ms": 300000})
}

fn observation(rows: &[&str]) -> Value {
    json!({"type": "observation", "grid": rows, "mines": 2, "flags": 0, "moves": 0})
}

/// Runs a client over these lines and returns its answers, parsed.
fn converse(lines: &[String], client: &mut Client) -> Vec<Value> {
    let input = lines.join("\n") + "\n";
    let mut output = Vec::new();
    client.run(input.as_bytes(), &mut output).unwrap();
    String::from_utf8(output).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A strategy for testing the client: its first reply reveals the first covered cell as a guess, noting the
/// game's rule and the generator's first number (what the client gave it); later ones reveal the first covered
/// cell and flag the last.
struct Scripted {
    rule: String,
    first: u64,
}

impl Strategy for Scripted {
    fn play(&mut self, board: &Board) -> Reply {
        let covered: Vec<(usize, usize)> = board.cells().filter(|&(r, c)| board.is_covered(r, c)).collect();
        let mut reply = Reply::new();
        if !board.any_revealed() {
            reply.reveal_guess(covered[0].0, covered[0].1).note(&format!("{} {:x}", self.rule, self.first));
        } else {
            let last = covered[covered.len() - 1];
            reply.reveal(covered[0].0, covered[0].1).flag(last.0, last.1);
        }
        reply
    }
}

fn starting() -> Client {
    Client::new("tester", "7", Box::new(|info: &GameInfo, mut rng: SplitMix64| {
        Box::new(Scripted { rule: info.rule.clone(), first: rng.next() }) as Box<dyn Strategy>
    }))
}

fn first_note(rule: &str) -> String {
    format!("{} {:x}", rule, SplitMix64::new("c9d0342fd9bb4860326e6cb830c5b01b").next())
}

#[test]
fn the_generator_matches_the_protocol_test_vectors() {
    let vectors: [(&str, u64, [u64; 3]); 3] = [
        ("00000000000000000000000000000000", 0, [0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f]),
        ("665d7c98f171fe590dc12f9daf846ac9", 0x6b9c53055ef59490, [0xb53c6e4fbe4adf5c, 0x34cb863974a611f0, 0xb16c08e5f02d657d]),
        ("0123456789abcdeffedcba9876543210", 0xffffffffffffffff, [0xe4d971771b652c20, 0xe99ff867dbf682c9, 0x382ff84cb27281e9]),
    ];
    for (seed, state, outputs) in vectors {
        let mut rng = SplitMix64::new(seed);
        assert_eq!(rng.state, state, "{}", seed);
        let drawn: Vec<u64> = (0..3).map(|_| rng.next()).collect();
        assert_eq!(drawn, outputs.to_vec(), "{}", seed);
    }
    let mut rng = SplitMix64::new("665d7c98f171fe590dc12f9daf846ac9");
    let drawn: Vec<u64> = [71, 71, 10, 480, 1].iter().map(|&n| rng.below(n)).collect();
    assert_eq!(drawn, vec![59, 41, 3, 22, 0]);
}

#[test]
#[should_panic(expected = "at least 1")]
fn below_zero_is_refused() {
    SplitMix64::new("0").below(0);
}

#[test]
fn a_board_reads_cells_numbers_and_neighbours() {
    let board = Board::new(vec!["1F#".into(), "110".into()], 1, 1, 3).unwrap();
    assert_eq!((board.height, board.width, board.mines, board.flags, board.moves), (2, 3, 1, 1, 3));
    assert_eq!((board.number(0, 0), board.number(0, 1)), (1, -1));
    assert!(board.is_flagged(0, 1) && board.is_covered(0, 2) && !board.is_covered(0, 1));
    assert_eq!(board.neighbours(0, 0), vec![(0, 1), (1, 0), (1, 1)]);
    assert_eq!(board.neighbours(1, 1).len(), 5);
    assert!(board.any_revealed());
    assert!(!Board::new(vec!["#F".into(), "##".into()], 0, 0, 0).unwrap().any_revealed());
    assert!(Board::new(vec!["###".into(), "##".into()], 0, 0, 0).is_err());
}

#[test]
fn a_reply_lists_actions_guesses_and_notes() {
    let mut reply = Reply::new();
    reply.reveal(1, 2).flag(0, 0).reveal_guess(3, 4).note_p("why", 0.25);
    assert_eq!(reply.to_json(), json!({"actions": [["reveal", 1, 2], ["flag", 0, 0], ["reveal", 3, 4]],
                                       "guess": [[3, 4]], "notes": [[2, "why", 0.25]]}));
    let mut other = Reply::new();
    other.chord(1, 1).unflag(0, 0).note("oops");
    assert_eq!(other.to_json(), json!({"actions": [["chord", 1, 1], ["unflag", 0, 0]], "notes": [[1, "oops"]]}));
}

#[test]
fn plays_the_protocol_example_exchange() {
    let lines: Vec<String> = vec![
        json!({"type": "hello", "protocol": 1}),
        new_game(),
        observation(&["####", "####", "####"]),
        observation(&["0000", "1111", "#1##"]),
        json!({"type": "game_over", "outcome": "won", "message": ""}),
        json!({"type": "quit"}),
    ]
    .iter()
    .map(Value::to_string)
    .collect();
    let answers = converse(&lines, &mut starting());
    assert_eq!(answers, vec![
        json!({"protocol": 1, "name": "tester", "version": "7"}),
        json!({"actions": [["reveal", 0, 0]], "guess": [[0, 0]], "notes": [[0, first_note("safe")]]}),
        json!({"actions": [["reveal", 2, 0], ["flag", 2, 3]]}),
    ]);
}

#[test]
fn ignores_empty_lines_unknown_messages_and_fields_and_stops_at_quit() {
    let lines: Vec<String> = vec![
        "".to_string(),
        "   ".to_string(),
        json!({"type": "hello", "protocol": 1, "future": true}).to_string(),
        json!({"type": "something_new"}).to_string(),
        json!({"type": "quit"}).to_string(),
        json!({"type": "hello", "protocol": 1}).to_string(),
    ];
    assert_eq!(converse(&lines, &mut starting()), vec![json!({"protocol": 1, "name": "tester", "version": "7"})]);
}

struct Broken {
    rule: String,
}

impl Strategy for Broken {
    fn play(&mut self, _board: &Board) -> Reply {
        if self.rule == "none" {
            panic!("not this rule");
        }
        let mut reply = Reply::new();
        reply.reveal(0, 0);
        reply
    }
}

#[test]
fn a_failing_strategy_scores_an_error_and_the_next_game_plays() {
    let mut broken_game = new_game();
    broken_game["rule"] = json!("none");
    let lines: Vec<String> = vec![broken_game, observation(&["####", "####", "####"]), new_game(), observation(&["##", "##"])]
        .iter()
        .map(Value::to_string)
        .collect();
    let mut client = Client::new("tester", "7", Box::new(|info: &GameInfo, _rng: SplitMix64| {
        Box::new(Broken { rule: info.rule.clone() }) as Box<dyn Strategy>
    }));
    let answers = converse(&lines, &mut client);
    assert_eq!(answers, vec![json!({"error": "not this rule"}), json!({"actions": [["reveal", 0, 0]]})]);
}

#[test]
fn each_game_restarts_the_generator_from_its_seed() {
    let first = observation(&["####", "####", "####"]).to_string();
    let lines = vec![new_game().to_string(), first.clone(), new_game().to_string(), first];
    let answers = converse(&lines, &mut starting());
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0]["notes"], json!([[0, first_note("safe")]]));
}

#[test]
fn the_rule_reaches_the_strategy() {
    for rule in ["safe", "windows", "opening", "none"] {
        let mut game = new_game();
        game["rule"] = json!(rule);
        let answers = converse(&[game.to_string(), observation(&["####", "####", "####"]).to_string()], &mut starting());
        assert_eq!(answers[0]["notes"], json!([[0, first_note(rule)]]), "{}", rule);
    }
}
