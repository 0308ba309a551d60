'use strict';
// Tests of the protocol client and the shared generator: node --test

const test = require('node:test');
const assert = require('node:assert/strict');
const { PassThrough } = require('node:stream');

const { Board, Client, Reply } = require('../src/client');
const { SplitMix64 } = require('../src/rng');
const { Strategy } = require('../src/strategy');

const NEW_GAME = {
  type: 'new_game', board: 'custom', height: 3, width: 4, mines: 2, rule: 'safe',
  seed: 'c9d0342fd9bb4860326e6cb830c5b01b', move_ms: 10000, game_ms: 300000,
};
const observation = (...rows) => ({ type: 'observation', grid: rows, mines: 2, flags: 0, moves: 0 });
const strategy = (info, rng) => new Strategy(info, rng);

/** Run the client over these messages (objects, or raw lines) and return its answers, parsed. */
async function converse(messages, make = strategy) {
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
  const answers = await converse([
    { type: 'hello', protocol: 1 }, NEW_GAME,
    observation('####', '####', '####'), observation('0000', '1111', '####'), observation('0000', '1111', '#1##'),
    { type: 'game_over', outcome: 'won', message: '' }, { type: 'quit' },
  ]);
  assert.deepEqual(answers, [
    { protocol: 1, name: 'tester', version: '7' },
    { actions: [['reveal', 0, 0]] },
    { actions: [['reveal', 2, 1]], guess: [[2, 1]], notes: [[0, 'no certain move: one of 4 covered cells at random']] },
    { actions: [['reveal', 2, 2], ['flag', 2, 0], ['flag', 2, 3]] },
  ]);
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
  const first = observation('0000', '1111', '####');
  const answers = await converse([NEW_GAME, first, NEW_GAME, first]);
  assert.equal(answers.length, 2);
  assert.deepEqual(answers[0], answers[1]);
});

test('first clicks by rule', async () => {
  const cases = { safe: [0, 0], windows: [0, 0], opening: [2, 3], none: [0, 0] };
  for (const [rule, cell] of Object.entries(cases)) {
    const [answer] = await converse([{ ...NEW_GAME, rule }, observation('####', '####', '####')]);
    assert.deepEqual(answer.actions, [['reveal', ...cell]], rule);
    assert.equal('guess' in answer, rule === 'none', rule);
  }
  assert.equal(Object.keys(cases).length, 4);
});
