'use strict';
// The protocol client (docs/protocol.md): reads the arena's messages, answers hello, keeps the board of
// each observation and sends the strategy's replies. You should not need to edit this file: your bot is
// src/strategy.js. One JSON object per line each way; stdout carries nothing but answers (log to stderr).

const readline = require('node:readline');
const { SplitMix64 } = require('./rng');

const PROTOCOL = 1;

/** What new_game says about the game about to start. */
function gameInfo(message = {}) {
  return {
    board: String(message.board ?? 'custom'),
    height: Number(message.height ?? 0),
    width: Number(message.width ?? 0),
    mines: Number(message.mines ?? 0),
    rule: String(message.rule ?? 'safe'), // the first-click rule: safe, opening, none or windows
    seed: String(message.seed ?? '0'.repeat(32)), // this game's own seed: 32 hex digits
    moveMs: Number(message.move_ms ?? 10000),
    gameMs: Number(message.game_ms ?? 300000),
  };
}

/** One observation: the grid as the arena sent it, '#' covered, 'F' flagged, '0'-'8' revealed. */
class Board {
  constructor(rows, mines = 0, flags = 0, moves = 0) {
    if (!Array.isArray(rows) || rows.length === 0 || rows.some((r) => typeof r !== 'string' || r.length !== rows[0].length)) {
      throw new Error('the grid must be a non-empty list of rows of equal length');
    }
    this.rows = rows;
    this.height = rows.length;
    this.width = rows[0].length;
    this.mines = mines;
    this.flags = flags;
    this.moves = moves;
  }

  at(row, col) { return this.rows[row][col]; }

  /** Covered and not flagged. */
  isCovered(row, col) { return this.rows[row][col] === '#'; }

  isFlagged(row, col) { return this.rows[row][col] === 'F'; }

  /** The revealed number, or -1 for a covered or flagged cell. */
  number(row, col) {
    const code = this.rows[row].charCodeAt(col) - 48;
    return code >= 0 && code <= 8 ? code : -1;
  }

  /** False before the first move (every cell covered or flagged). */
  anyRevealed() { return this.rows.some((row) => /[0-8]/.test(row)); }

  /** Every cell [row, col] in row-major order. */
  cells() {
    const out = [];
    for (let r = 0; r < this.height; r++) for (let c = 0; c < this.width; c++) out.push([r, c]);
    return out;
  }

  /** The up to 8 cells around (row, col), in row-major order. */
  neighbours(row, col) {
    const out = [];
    for (let r = Math.max(row - 1, 0); r <= Math.min(row + 1, this.height - 1); r++) {
      for (let c = Math.max(col - 1, 0); c <= Math.min(col + 1, this.width - 1); c++) {
        if (r !== row || c !== col) out.push([r, c]);
      }
    }
    return out;
  }
}

/** The answer to one observation: actions played in order, which reveals are guesses, and notes. */
class Reply {
  constructor() {
    this.actions = [];
    this.guesses = [];
    this.notes = [];
    this.error = null;
  }

  _add(kind, row, col, note, pMine) {
    if (note != null || pMine != null) {
      const entry = [this.actions.length, note ?? ''];
      if (pMine != null) entry.push(Number(pMine));
      this.notes.push(entry);
    }
    this.actions.push([kind, row, col]);
    return this;
  }

  /** Reveal a cell; guess marks it as not certain, note and pMine explain it in replays. */
  reveal(row, col, { guess = false, note = null, pMine = null } = {}) {
    if (guess) this.guesses.push([row, col]);
    return this._add('reveal', row, col, note, pMine);
  }

  flag(row, col, { note = null } = {}) { return this._add('flag', row, col, note, null); }

  unflag(row, col, { note = null } = {}) { return this._add('unflag', row, col, note, null); }

  chord(row, col, { note = null } = {}) { return this._add('chord', row, col, note, null); }

  /** A reply that gives up this game (scored error); the process goes on to the next game. */
  static error(text) {
    const reply = new Reply();
    reply.error = String(text);
    return reply;
  }

  toMessage() {
    if (this.error !== null) return { error: this.error };
    const message = { actions: this.actions };
    if (this.guesses.length) message.guess = this.guesses;
    if (this.notes.length) message.notes = this.notes;
    return message;
  }
}

/** The conversation with the arena. makeStrategy(info, rng) builds each game's strategy; its play(board)
 * returns a Reply. */
class Client {
  constructor(name, version, makeStrategy) {
    this.name = name;
    this.version = version;
    this.makeStrategy = makeStrategy;
    this.info = gameInfo();
    this.strategy = null;
  }

  /** The answer to one message, or null for messages that take none. */
  handle(message) {
    const type = message.type;
    if (type === 'hello') return { protocol: PROTOCOL, name: this.name, version: this.version };
    if (type === 'new_game') {
      this.info = gameInfo(message);
      this.strategy = this.makeStrategy(this.info, new SplitMix64(this.info.seed));
      return null;
    }
    if (type === 'observation') {
      let reply;
      try {
        const board = new Board(message.grid, message.mines ?? 0, message.flags ?? 0, message.moves ?? 0);
        if (this.strategy === null) this.strategy = this.makeStrategy(this.info, new SplitMix64(this.info.seed));
        reply = this.strategy.play(board);
        if (!(reply instanceof Reply)) throw new TypeError(`play() returned ${typeof reply}, expected a Reply`);
      } catch (error) { // the game is scored error; the bot lives on for the next one
        process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
        reply = Reply.error(`${error && error.name ? error.name : 'Error'}: ${error && error.message ? error.message : error}`);
      }
      return reply.toMessage();
    }
    return null; // game_over, and whatever later protocol versions add
  }

  /** Handle one line; returns the answer line (without '\n'), null when there is none, or 'quit'. */
  line(text) {
    if (!text.trim()) return null;
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      process.stderr.write(`ignored a line that is not JSON: ${text.slice(0, 80)}\n`);
      return null;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return null;
    if (message.type === 'quit') return 'quit';
    const answer = this.handle(message);
    return answer === null ? null : JSON.stringify(answer);
  }

  /** Answer every line of input on output until quit or the end of the input; resolves then. */
  run(input = process.stdin, output = process.stdout) {
    return new Promise((resolve) => {
      const lines = readline.createInterface({ input, crlfDelay: Infinity });
      let done = false;
      lines.on('line', (text) => {
        if (done) return;
        const answer = this.line(text);
        if (answer === 'quit') {
          done = true;
          lines.close();
          return;
        }
        if (answer !== null) output.write(answer + '\n');
      });
      lines.on('close', () => resolve());
    });
  }
}

module.exports = { Board, Client, PROTOCOL, Reply, gameInfo };
