//! The protocol client (docs/protocol.md): reads the arena's messages, answers hello, keeps the board of
//! each observation and sends the strategy's replies. You should not need to edit this file: your bot is
//! src/strategy.rs. One JSON object per line each way; stdout carries nothing but answers (log with
//! eprintln!).

use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::{json, Value};

use crate::rng::SplitMix64;

pub const PROTOCOL: u64 = 1;

/// (row, col)
pub type Cell = (usize, usize);

/// What new_game says about the game about to start.
#[derive(Clone, Debug)]
pub struct GameInfo {
    pub board: String,
    pub height: usize,
    pub width: usize,
    pub mines: usize,
    /// The first-click rule: safe, opening, none, windows or zero.
    pub rule: String,
    /// This game's own seed: 32 hex digits.
    pub seed: String,
    pub move_ms: u64,
    pub game_ms: u64,
}

impl Default for GameInfo {
    fn default() -> GameInfo {
        GameInfo {
            board: "custom".to_string(),
            height: 0,
            width: 0,
            mines: 0,
            rule: "safe".to_string(),
            seed: "0".repeat(32),
            move_ms: 10_000,
            game_ms: 300_000,
        }
    }
}

fn text(message: &Value, key: &str, default: &str) -> String {
    message.get(key).and_then(Value::as_str).unwrap_or(default).to_string()
}

fn number(message: &Value, key: &str, default: u64) -> u64 {
    message.get(key).and_then(Value::as_u64).unwrap_or(default)
}

impl GameInfo {
    pub fn from_message(message: &Value) -> GameInfo {
        let d = GameInfo::default();
        GameInfo {
            board: text(message, "board", &d.board),
            height: number(message, "height", 0) as usize,
            width: number(message, "width", 0) as usize,
            mines: number(message, "mines", 0) as usize,
            rule: text(message, "rule", &d.rule),
            seed: text(message, "seed", &d.seed),
            move_ms: number(message, "move_ms", d.move_ms),
            game_ms: number(message, "game_ms", d.game_ms),
        }
    }
}

/// One observation: the grid as the arena sent it, '#' covered, 'F' flagged, '0'-'8' revealed.
#[derive(Clone, Debug)]
pub struct Board {
    rows: Vec<Vec<u8>>,
    pub height: usize,
    pub width: usize,
    pub mines: usize,
    pub flags: usize,
    pub moves: usize,
}

impl Board {
    pub fn new(rows: Vec<String>, mines: usize, flags: usize, moves: usize) -> Result<Board, String> {
        if rows.is_empty() || rows[0].is_empty() || rows.iter().any(|r| r.len() != rows[0].len()) {
            return Err("the grid must be a non-empty list of rows of equal length".to_string());
        }
        let width = rows[0].len();
        let rows: Vec<Vec<u8>> = rows.into_iter().map(String::into_bytes).collect();
        Ok(Board { height: rows.len(), width, rows, mines, flags, moves })
    }

    pub fn at(&self, row: usize, col: usize) -> char {
        self.rows[row][col] as char
    }

    /// Covered and not flagged.
    pub fn is_covered(&self, row: usize, col: usize) -> bool {
        self.rows[row][col] == b'#'
    }

    pub fn is_flagged(&self, row: usize, col: usize) -> bool {
        self.rows[row][col] == b'F'
    }

    /// The revealed number, or -1 for a covered or flagged cell.
    pub fn number(&self, row: usize, col: usize) -> i32 {
        let ch = self.rows[row][col];
        if (b'0'..=b'8').contains(&ch) {
            (ch - b'0') as i32
        } else {
            -1
        }
    }

    /// False before the first move (every cell covered or flagged).
    pub fn any_revealed(&self) -> bool {
        self.rows.iter().flatten().any(|ch| (b'0'..=b'8').contains(ch))
    }

    /// Every cell in row-major order.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.height).flat_map(move |r| (0..self.width).map(move |c| (r, c)))
    }

    /// The up to 8 cells around (row, col), in row-major order.
    pub fn neighbours(&self, row: usize, col: usize) -> Vec<Cell> {
        let mut out = Vec::with_capacity(8);
        for r in row.saturating_sub(1)..=(row + 1).min(self.height - 1) {
            for c in col.saturating_sub(1)..=(col + 1).min(self.width - 1) {
                if (r, c) != (row, col) {
                    out.push((r, c));
                }
            }
        }
        out
    }
}

/// The answer to one observation: actions played in order, which reveals are guesses, and notes.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    actions: Vec<Value>,
    guesses: Vec<Value>,
    notes: Vec<Value>,
    error: Option<String>,
}

impl Reply {
    pub fn new() -> Reply {
        Reply::default()
    }

    /// A reply that gives up this game (scored error); the process goes on to the next game.
    pub fn error(text: &str) -> Reply {
        Reply { error: Some(text.to_string()), ..Reply::default() }
    }

    fn add(&mut self, kind: &str, row: usize, col: usize) -> &mut Reply {
        self.actions.push(json!([kind, row, col]));
        self
    }

    pub fn reveal(&mut self, row: usize, col: usize) -> &mut Reply {
        self.add("reveal", row, col)
    }

    /// A reveal that is not certain: the arena counts it as a guess.
    pub fn reveal_guess(&mut self, row: usize, col: usize) -> &mut Reply {
        self.guesses.push(json!([row, col]));
        self.add("reveal", row, col)
    }

    pub fn flag(&mut self, row: usize, col: usize) -> &mut Reply {
        self.add("flag", row, col)
    }

    pub fn unflag(&mut self, row: usize, col: usize) -> &mut Reply {
        self.add("unflag", row, col)
    }

    pub fn chord(&mut self, row: usize, col: usize) -> &mut Reply {
        self.add("chord", row, col)
    }

    /// Explains the last action added (replays show it): why it was played.
    pub fn note(&mut self, text: &str) -> &mut Reply {
        self.add_note(text, None)
    }

    /// Explains the last action added, with the bot's own estimate that the cell is a mine.
    pub fn note_p(&mut self, text: &str, p_mine: f64) -> &mut Reply {
        self.add_note(text, Some(p_mine))
    }

    fn add_note(&mut self, text: &str, p_mine: Option<f64>) -> &mut Reply {
        assert!(!self.actions.is_empty(), "a note explains an action: add the action first");
        let index = self.actions.len() - 1;
        self.notes.push(match p_mine {
            Some(p) => json!([index, text, p]),
            None => json!([index, text]),
        });
        self
    }

    pub fn len(&self) -> usize {
        self.actions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    pub fn to_json(&self) -> Value {
        if let Some(error) = &self.error {
            return json!({ "error": error });
        }
        let mut message = json!({ "actions": self.actions });
        if !self.guesses.is_empty() {
            message["guess"] = Value::from(self.guesses.clone());
        }
        if !self.notes.is_empty() {
            message["notes"] = Value::from(self.notes.clone());
        }
        message
    }
}

/// What src/strategy.rs provides: one per game, answering each observation.
pub trait Strategy {
    fn play(&mut self, board: &Board) -> Reply;
}

/// Builds the strategy of a game from its facts and its seeded generator.
pub type Factory = Box<dyn FnMut(&GameInfo, SplitMix64) -> Box<dyn Strategy>>;

/// The conversation with the arena.
pub struct Client {
    name: String,
    version: String,
    factory: Factory,
    info: GameInfo,
    strategy: Option<Box<dyn Strategy>>,
}

impl Client {
    pub fn new(name: &str, version: &str, factory: Factory) -> Client {
        Client { name: name.to_string(), version: version.to_string(), factory, info: GameInfo::default(), strategy: None }
    }

    /// The answer to one message, or None for messages that take none.
    pub fn handle(&mut self, message: &Value) -> Option<Value> {
        match message.get("type").and_then(Value::as_str).unwrap_or("") {
            "hello" => Some(json!({ "protocol": PROTOCOL, "name": self.name, "version": self.version })),
            "new_game" => {
                self.info = GameInfo::from_message(message);
                self.strategy = Some((self.factory)(&self.info, SplitMix64::new(&self.info.seed)));
                None
            }
            "observation" => Some(self.observe(message).unwrap_or_else(|error| {
                eprintln!("error: {}", error);
                Reply::error(&error).to_json()
            })),
            _ => None, // game_over, and whatever later protocol versions add
        }
    }

    fn observe(&mut self, message: &Value) -> Result<Value, String> {
        let grid = message.get("grid").and_then(Value::as_array).ok_or("an observation without a grid")?;
        let rows: Vec<String> = grid.iter().map(|row| row.as_str().unwrap_or("").to_string()).collect();
        let board = Board::new(rows, number(message, "mines", 0) as usize, number(message, "flags", 0) as usize,
                               number(message, "moves", 0) as usize)?;
        if self.strategy.is_none() {
            // An observation without new_game: play with the defaults.
            self.strategy = Some((self.factory)(&self.info, SplitMix64::new(&self.info.seed)));
        }
        let strategy = self.strategy.as_mut().expect("made above");
        // A panic in the strategy scores this game error (the panic's message is on stderr); the bot lives on.
        let reply = catch_unwind(AssertUnwindSafe(|| strategy.play(&board))).map_err(|panic| {
            panic.downcast_ref::<String>().cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "the strategy panicked".to_string())
        })?;
        Ok(reply.to_json())
    }

    /// Answer every line of input on output until quit or the end of the input.
    pub fn run<R: BufRead, W: Write>(&mut self, input: R, mut output: W) -> std::io::Result<()> {
        for line in input.lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            let message: Value = match serde_json::from_str(&line) {
                Ok(value) => value,
                Err(_) => {
                    eprintln!("ignored a line that is not JSON: {}", line.chars().take(80).collect::<String>());
                    continue;
                }
            };
            if !message.is_object() {
                continue;
            }
            if message.get("type").and_then(Value::as_str) == Some("quit") {
                return Ok(());
            }
            if let Some(answer) = self.handle(&message) {
                writeln!(output, "{}", answer)?;
                output.flush()?;
            }
        }
        Ok(())
    }
}
