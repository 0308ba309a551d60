'use strict';
// Example tests of your strategy (src/strategy.js): yours to change with it. They pin down what the starting
// strategy does: its first click under each rule, the moves the two single-cell rules make certain, and a seeded
// guess when none is. When you change the strategy, change these to say what yours does; the client's tests
// (test/client.test.js) do not depend on them, nor on your strategy.

const test = require('node:test');
const assert = require('node:assert/strict');

const { Board } = require('../src/client');
const { SplitMix64 } = require('../src/rng');
const { Strategy, certainMoves } = require('../src/strategy');

const SEED = 'c9d0342fd9bb4860326e6cb830c5b01b';

function play(rows, rule = 'safe', mines = 2) {
  const info = { board: 'custom', height: rows.length, width: rows[0].length, mines, rule, seed: SEED };
  return new Strategy(info, new SplitMix64(SEED)).play(new Board(rows, mines)).toMessage();
}

test('first clicks by rule', () => {
  const cases = { safe: [0, 0], windows: [0, 0], opening: [2, 3], none: [0, 0] };
  for (const [rule, cell] of Object.entries(cases)) {
    const message = play(['####', '####', '####'], rule);
    assert.deepEqual(message.actions, [['reveal', ...cell]], rule);
    assert.equal('guess' in message, rule === 'none', rule);
  }
  assert.equal(Object.keys(cases).length, 4);
});

test('certain moves are played together', () => {
  assert.deepEqual(play(['0000', '1111', '#1##']), { actions: [['reveal', 2, 2], ['flag', 2, 0], ['flag', 2, 3]] });
  assert.ok(certainMoves(new Board(['0000', '1111', '#1##'], 2)));
});

test('a seeded guess with a note when nothing is certain', () => {
  const note = 'no certain move: one of 4 covered cells at random';
  const message = play(['0000', '1111', '####']);
  assert.deepEqual(message, { actions: [['reveal', 2, 1]], guess: [[2, 1]], notes: [[0, note]] });
  assert.deepEqual(play(['0000', '1111', '####']), message);
});
