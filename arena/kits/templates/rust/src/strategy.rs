//! Your bot: the one file to edit. A Strategy plays one game; play(board) answers each observation.
//!
//! The starting strategy is the one every starter kit shares (docs/protocol.md, "The shared generator and
//! the starting strategy"): the first click, then every move the two single-cell rules make certain, then
//! a guess drawn from the game's seeded generator, with a note saying why.

use crate::client::{Board, Cell, GameInfo, Reply, Strategy};
use crate::rng::SplitMix64;

pub const NAME: &str = "__BOT_NAME__";
pub const VERSION: &str = "1";

/// Built at every new_game with the game's facts and its seeded generator.
pub fn make(info: &GameInfo, rng: SplitMix64) -> Box<dyn Strategy> {
    Box::new(Starting { info: info.clone(), rng })
}

pub struct Starting {
    info: GameInfo,
    /// The only randomness to use: the same seed plays the same game.
    rng: SplitMix64,
}

impl Strategy for Starting {
    fn play(&mut self, board: &Board) -> Reply {
        let mut reply = Reply::new();
        if !board.any_revealed() {
            // The first click: a corner, or 3 cells in under "opening".
            match self.info.rule.as_str() {
                "opening" => reply.reveal(3.min(board.height - 1), 3.min(board.width - 1)),
                "none" => reply.reveal_guess(0, 0).note("first click: no rule makes it safe"),
                _ => reply.reveal(0, 0),
            };
            return reply;
        }
        let (safe, mines) = certain_moves(board);
        if !safe.is_empty() || !mines.is_empty() {
            for &(r, c) in &safe {
                reply.reveal(r, c);
            }
            for &(r, c) in &mines {
                reply.flag(r, c);
            }
            return reply;
        }
        let covered: Vec<Cell> = board.cells().filter(|&(r, c)| board.is_covered(r, c)).collect();
        if covered.is_empty() {
            return Reply::error("no covered cell left to reveal");
        }
        let (row, col) = covered[self.rng.below(covered.len() as u64) as usize];
        let note = format!("no certain move: one of {} covered cells at random", covered.len());
        reply.reveal_guess(row, col).note(&note);
        reply
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Fact {
    Undecided,
    Safe,
    Mine,
}

/// (safe cells, mines not yet flagged) that the two single-cell rules decide, applied until nothing
/// changes, each in row-major order.
pub fn certain_moves(board: &Board) -> (Vec<Cell>, Vec<Cell>) {
    let width = board.width;
    let mut fact = vec![Fact::Undecided; board.height * width];
    for (r, c) in board.cells() {
        if board.is_flagged(r, c) {
            fact[r * width + c] = Fact::Mine;
        }
    }
    let numbers: Vec<Cell> = board.cells().filter(|&(r, c)| board.number(r, c) > 0).collect();
    let mut unknown: Vec<usize> = Vec::with_capacity(8);
    let mut changed = true;
    while changed {
        changed = false;
        for &(row, col) in &numbers {
            let mut known = 0;
            unknown.clear();
            for (r, c) in board.neighbours(row, col) {
                match fact[r * width + c] {
                    Fact::Mine => known += 1,
                    Fact::Undecided if board.is_covered(r, c) => unknown.push(r * width + c),
                    _ => {}
                }
            }
            if unknown.is_empty() {
                continue;
            }
            let value = board.number(row, col);
            let decided = if known == value {
                Fact::Safe
            } else if known + unknown.len() as i32 == value {
                Fact::Mine
            } else {
                continue;
            };
            for &k in &unknown {
                fact[k] = decided;
            }
            changed = true;
        }
    }
    let safe = board.cells().filter(|&(r, c)| fact[r * width + c] == Fact::Safe).collect();
    let mines = board.cells().filter(|&(r, c)| fact[r * width + c] == Fact::Mine && !board.is_flagged(r, c)).collect();
    (safe, mines)
}
