// Runs the replay's engine and solver (arena/analysis/replay/assets/solver.js) on games read from a JSON file and
// writes what it finds, for tests/arena/analysis/test_replay_js.py to compare with the Python reference:
//   node replay_js_runner.js solver.js games.json out.json
// Per game: each step's grid (as a string of cells), the cells each move opened, the status, the exploded cell,
// the 3BV and the 3BV solved, and per step the analysis (probabilities, marks) or its note.
"use strict";
const fs = require("fs");
const [solverPath, inPath, outPath] = process.argv.slice(2);
require(require("path").resolve(solverPath));
const S = globalThis.ArenaSolver;
const games = JSON.parse(fs.readFileSync(inPath, "utf8"));
const out = [];
for (const game of games) {
  game.moves = S.decodeMoves(game.moves, game.w, game.cols, game.notes);
  const played = S.play(game);
  const steps = played.steps.map((step, k) => {
    const over = k === played.steps.length - 1 && played.status !== "playing";
    const entry = { grid: Array.from(step.grid), opened: step.opened };
    if (over) return entry;
    const { analysis, note } = S.positionAnalysis(step.grid, game.rows, game.cols, game.mines, game.rule);
    if (analysis) {
      entry.p = Array.from(analysis.p, (v) => (Number.isNaN(v) ? null : v));
      entry.mark = Array.from(analysis.mark);
    } else entry.note = note;
    return entry;
  });
  const b = played.truth ? S.bbbv(played.truth, played.steps[played.steps.length - 1].grid, game.rows, game.cols) : null;
  out.push({ steps, status: played.status, exploded: played.exploded, problem: played.problem, bbbv: b });
}
fs.writeFileSync(outPath, JSON.stringify(out));
