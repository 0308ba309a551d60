'use strict';
// Your bot: the one file to edit. A Strategy plays one game; play(board) answers each observation.
//
// The starting strategy is the one every starter kit shares (docs/protocol.md, "The shared generator and
// the starting strategy"): the first click, then every move the two single-cell rules make certain, then
// a guess drawn from the game's seeded generator, with a note saying why.

const { Reply } = require('./client');

const NAME = '__BOT_NAME__';
const VERSION = '1';

class Strategy {
  /** Built at every new_game with the game's facts (info) and its seeded generator (rng). */
  constructor(info, rng) {
    this.info = info;
    this.rng = rng; // the only randomness to use: the same seed plays the same game
  }

  play(board) {
    const reply = new Reply();
    if (!board.anyRevealed()) { // the first click: a corner, or 3 cells in under "opening"
      if (this.info.rule === 'opening') return reply.reveal(Math.min(3, board.height - 1), Math.min(3, board.width - 1));
      if (this.info.rule === 'none') return reply.reveal(0, 0, { guess: true, note: 'first click: no rule makes it safe' });
      return reply.reveal(0, 0);
    }
    const { safe, mines } = certainMoves(board);
    if (safe.length || mines.length) {
      for (const [row, col] of safe) reply.reveal(row, col);
      for (const [row, col] of mines) reply.flag(row, col);
      return reply;
    }
    const covered = board.cells().filter(([r, c]) => board.isCovered(r, c));
    const [row, col] = covered[this.rng.below(covered.length)];
    return reply.reveal(row, col, { guess: true, note: `no certain move: one of ${covered.length} covered cells at random` });
  }
}

/** {safe, mines}: the cells the two single-cell rules decide (mines not yet flagged), each in row-major
 * order, the rules applied until nothing changes. */
function certainMoves(board) {
  const { width } = board;
  const key = (r, c) => r * width + c;
  const mine = new Set();
  const safe = new Set();
  for (const [r, c] of board.cells()) if (board.isFlagged(r, c)) mine.add(key(r, c));
  const flagged = new Set(mine);
  const numbers = board.cells().filter(([r, c]) => board.number(r, c) > 0);
  let changed = true;
  while (changed) {
    changed = false;
    for (const [row, col] of numbers) {
      let known = 0;
      const unknown = [];
      for (const [r, c] of board.neighbours(row, col)) {
        const k = key(r, c);
        if (mine.has(k)) known++;
        else if (board.isCovered(r, c) && !safe.has(k)) unknown.push(k);
      }
      if (unknown.length === 0) continue;
      const value = board.number(row, col);
      if (known === value) {
        for (const k of unknown) safe.add(k);
        changed = true;
      } else if (known + unknown.length === value) {
        for (const k of unknown) mine.add(k);
        changed = true;
      }
    }
  }
  const ordered = (set) => [...set].sort((a, b) => a - b).map((k) => [Math.floor(k / width), k % width]);
  return { safe: ordered(safe), mines: ordered(new Set([...mine].filter((k) => !flagged.has(k)))) };
}

module.exports = { NAME, VERSION, Strategy, certainMoves };
