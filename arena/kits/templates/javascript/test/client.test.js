'use strict';
// Tests of the protocol client and the shared generator: node --test
// They test the client, not your strategy: every conversation here is played by `scripted`, a strategy of the
// tests' own, so changing src/strategy.js never fails them. Your strategy's tests are test/strategy.test.js.

const test = require('node:test');
const assert = require('node:assert/strict');
const { PassThrough } = require('node:stream');

const { Board, Client, Reply } = require('../src/client');
const { SplitMix64 } = require('../src/rng');

const NEW_GAME = {
  type: 'new_game', board: 'custom', height: 3, width: 4, mines: 2, rule: 'safe',
  seed: 'c9d0342fd9bb4860326e6cb830c5b01b', move_ms: 10000, game_ms: 300000,
};
const observation = (...rows) => ({ type: 'observation', grid: rows, mines: 2, flags: 0, moves: 0 });
/** What the client gave the scripted strategy: the game's facts, the generator's first number, each board. */
let seen = [];
/** A strategy for testing the client: it records what it is given and reveals the first covered cell (a guess
 * with a note when nothing is revealed yet), flagging the last one after that. */
const scripted = (info, rng) => {
  seen.push(['new_game', info, rng.next()]);
  return {
    play(board) {
      seen.push(['board', board.rows, board.mines, board.flags, board.moves]);
      const covered = [];
      for (let r = 0; r < board.height; r += 1) {
        for (let c = 0; c < board.width; c += 1) if (board.isCovered(r, c)) covered.push([r, c]);
      }
      if (!board.anyRevealed()) return new Reply().reveal(...covered[0], { guess: true, note: 'first' });
      return new Reply().reveal(...covered[0]).flag(...covered[covered.length - 1]);
    },
  };
};

/** Run the client over these messages (objects, or raw lines) and return its answers, parsed. */
async function converse(messages, make = scripted) {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk) => { text += chunk; });
  const done = new Client('tester', '7', make).run(input, output);
  input.end(messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join('\n') + '\n');
  await done;
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

test('the generator matches the protocol test vectors', () => {
  const vectors = {
    '00000000000000000000000000000000': [0n, [0xe220a8397b1dcdafn, 0x6e789e6aa1b965f4n, 0x06c45d188009454fn]],
    '665d7c98f171fe590dc12f9daf846ac9': [0x6b9c53055ef59490n, [0xb53c6e4fbe4adf5cn, 0x34cb863974a611f0n, 0xb16c08e5f02d657dn]],
    '0123456789abcdeffedcba9876543210': [0xffffffffffffffffn, [0xe4d971771b652c20n, 0xe99ff867dbf682c9n, 0x382ff84cb27281e9n]],
  };
  for (const [seed, [state, outputs]] of Object.entries(vectors)) {
    const rng = new SplitMix64(seed);
    assert.equal(rng.state, state, seed);
    assert.deepEqual(outputs.map(() => rng.next()), outputs, seed);
  }
  const rng = new SplitMix64('665d7c98f171fe590dc12f9daf846ac9');
  assert.deepEqual([71, 71, 10, 480, 1].map((n) => rng.below(n)), [59, 41, 3, 22, 0]);
  assert.throws(() => rng.below(0), RangeError);
});

test('a board reads cells, numbers and neighbours', () => {
  const board = new Board(['1F#', '110'], 1, 1, 3);
  assert.deepEqual([board.height, board.width, board.mines, board.flags, board.moves], [2, 3, 1, 1, 3]);
  assert.equal(board.number(0, 0), 1);
  assert.equal(board.number(0, 1), -1);
  assert.ok(board.isFlagged(0, 1) && board.isCovered(0, 2) && !board.isCovered(0, 1));
  assert.deepEqual(board.neighbours(0, 0), [[0, 1], [1, 0], [1, 1]]);
  assert.equal(board.neighbours(1, 1).length, 5);
  assert.ok(board.anyRevealed());
  assert.ok(!new Board(['#F', '##']).anyRevealed());
  assert.throws(() => new Board(['###', '##']));
});

test('a reply lists actions, guesses and notes', () => {
  const reply = new Reply().reveal(1, 2).flag(0, 0).reveal(3, 4, { guess: true, note: 'why', pMine: 0.25 });
  assert.deepEqual(reply.toMessage(), {
    actions: [['reveal', 1, 2], ['flag', 0, 0], ['reveal', 3, 4]], guess: [[3, 4]], notes: [[2, 'why', 0.25]],
  });
  assert.deepEqual(new Reply().chord(1, 1).unflag(0, 0, { note: 'oops' }).toMessage(),
    { actions: [['chord', 1, 1], ['unflag', 0, 0]], notes: [[1, 'oops']] });
});

test('plays the protocol example exchange', async () => {
  seen = [];
  const answers = await converse([
    { type: 'hello', protocol: 1 }, NEW_GAME,
    observation('####', '####', '####'), observation('0000', '1111', '#1##'),
    { type: 'game_over', outcome: 'won', message: '' }, { type: 'quit' },
  ]);
  assert.deepEqual(answers, [
    { protocol: 1, name: 'tester', version: '7' },
    { actions: [['reveal', 0, 0]], guess: [[0, 0]], notes: [[0, 'first']] },
    { actions: [['reveal', 2, 0], ['flag', 2, 3]] },
  ]);
  const [[, info, first], , second] = seen;
  assert.deepEqual([info.height, info.width, info.mines, info.rule], [3, 4, 2, 'safe']);
  assert.equal(first, new SplitMix64(NEW_GAME.seed).next());
  assert.deepEqual(second, ['board', ['0000', '1111', '#1##'], 2, 0, 0]);
});

test('ignores empty lines, unknown messages and fields, and stops at quit', async () => {
  const answers = await converse(['', '   ', { type: 'hello', protocol: 1, future: true }, { type: 'something_new' },
    { type: 'quit' }, { type: 'hello', protocol: 1 }]);
  assert.deepEqual(answers, [{ protocol: 1, name: 'tester', version: '7' }]);
});

test('a failing strategy scores an error and the next game plays', async () => {
  const broken = (info) => ({
    play() {
      if (info.rule === 'none') throw new Error('not this rule');
      return new Reply().reveal(0, 0);
    },
  });
  const original = process.stderr.write;
  process.stderr.write = () => true; // the client logs the stack trace; keep the test output clean
  try {
    const answers = await converse([{ ...NEW_GAME, rule: 'none' }, observation('####', '####', '####'),
      NEW_GAME, observation('##', '##')], broken);
    assert.deepEqual(answers, [{ error: 'Error: not this rule' }, { actions: [['reveal', 0, 0]] }]);
  } finally {
    process.stderr.write = original;
  }
});

test('each game restarts the generator from its seed', async () => {
  seen = [];
  const first = observation('0000', '1111', '####');
  await converse([NEW_GAME, first, NEW_GAME, first]);
  const draws = seen.filter((entry) => entry[0] === 'new_game').map((entry) => entry[2]);
  assert.deepEqual(draws, [new SplitMix64(NEW_GAME.seed).next(), new SplitMix64(NEW_GAME.seed).next()]);
});

test('the rule reaches the strategy', async () => {
  for (const rule of ['safe', 'windows', 'opening', 'none']) {
    seen = [];
    await converse([{ ...NEW_GAME, rule }, observation('####', '####', '####')]);
    assert.equal(seen[0][1].rule, rule);
  }
});
