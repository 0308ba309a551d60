// The replay's engine and solver in the page: a game's moves played again on its mine layout, and the exact mine
// probabilities of any position, computed when the position is shown. The Python reference is
// arena.analysis.replay.model (the engine's rules) and players.solver.analyze (the probabilities): tests run this
// file in node on positions of many seeded games and hold it equal to them (tests/arena/analysis/test_replay_js.py).
//
// The probabilities are those of `arena analyze` with the flags taken off: every layout that fits the numbers and
// the mine count is equally likely. The covered cells next to numbers split into independent components; each
// component's solutions are counted per mine total by a backtracking search over groups of interchangeable cells
// (cells with the same numbers around them), and the components are combined with the cells no number touches by
// log-space convolutions weighted by C(unconstrained cells, mines left), as players/solver/weighting.py does.
// Certain cells come from exact support (a cell never a mine in any feasible solution), never from a float.
(function (root) {
  "use strict";

  const COVERED = -1;
  const FLAGGED = -2;
  const KINDS = ["reveal", "flag", "unflag", "chord"];
  //: The digits of the compact game data (64 characters that need no escaping in JSON, HTML or a URL).
  const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_~";
  const DIGIT = {};
  for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET[i]] = i;
  //: A component search past this many nodes is left alone ("beyond the viewer"): no real board comes near.
  const NODE_LIMIT = 20000000;

  class SolverError extends Error {}

  function neighbours(cell, rows, cols) {
    const r = Math.floor(cell / cols), c = cell % cols, out = [];
    for (let rr = Math.max(0, r - 1); rr <= Math.min(rows - 1, r + 1); rr++) {
      for (let cc = Math.max(0, c - 1); cc <= Math.min(cols - 1, c + 1); cc++) {
        if (rr !== r || cc !== c) out.push(rr * cols + cc);
      }
    }
    return out;
  }

  // ---- compact data ------------------------------------------------------------------------------------------
  // A layout: one bit per cell, six to a digit, first cell in the highest bit. Moves: per move `width` digits of
  // cell * 8 + kind * 2 + guess (kind: reveal, flag, unflag, chord).
  function decodeLayout(text, cells) {
    const mines = new Uint8Array(cells);
    for (let i = 0; i < cells; i++) {
      const digit = DIGIT[text[Math.floor(i / 6)]];
      if (digit === undefined) throw new SolverError("the layout is damaged");
      mines[i] = (digit >> (5 - (i % 6))) & 1;
    }
    return mines;
  }

  function decodeMoves(text, width, cols, notes) {
    const moves = [];
    for (let at = 0; at + width <= text.length; at += width) {
      let value = 0;
      for (let j = 0; j < width; j++) {
        const digit = DIGIT[text[at + j]];
        if (digit === undefined) throw new SolverError("the moves are damaged");
        value = value * 64 + digit;
      }
      const cell = Math.floor(value / 8), kind = KINDS[(value >> 1) & 3];
      const index = moves.length;
      const note = notes && Object.prototype.hasOwnProperty.call(notes, index) ? String(notes[index]) : null;
      moves.push([kind, Math.floor(cell / cols), cell % cols, value & 1, note]);
    }
    return moves;
  }

  // ---- the engine --------------------------------------------------------------------------------------------
  // The rules of engine/game.py: a reveal flood-fills zeros; a chord on a number whose flags match it reveals its
  // covered neighbours (a wrong flag loses on the first covered mine in scan order); a mine hit reveals nothing.
  function numbersOf(mines, rows, cols) {
    const truth = new Int8Array(rows * cols);
    for (let i = 0; i < truth.length; i++) {
      if (mines[i]) { truth[i] = 9; continue; }
      let n = 0;
      for (const nb of neighbours(i, rows, cols)) n += mines[nb];
      truth[i] = n;
    }
    return truth;
  }

  function flood(view, truth, rows, cols, start, opened) {
    const stack = start.slice();
    while (stack.length) {
      const cell = stack.pop();
      if (truth[cell] !== 0) continue;
      for (const nb of neighbours(cell, rows, cols)) {
        if (view[nb] === COVERED) { view[nb] = truth[nb]; opened.push(nb); stack.push(nb); }
      }
    }
  }

  // Every position of a game: steps[k] = {grid (Int8Array), opened (cells move k revealed)}; the status, the
  // exploded cell, and the problem when the moves do not replay (a move the rules refuse, moves after the end).
  function play(game) {
    const rows = game.rows, cols = game.cols, cells = rows * cols;
    const mines = game.layout ? decodeLayout(game.layout, cells) : null;
    const truth = mines ? numbersOf(mines, rows, cols) : null;
    const view = new Int8Array(cells).fill(COVERED);
    const steps = [{ grid: view.slice(), opened: [] }];
    let status = "playing", exploded = null, problem = "", left = cells - game.mines;
    for (let k = 0; k < game.moves.length; k++) {
      const [kind, r, c] = game.moves[k];
      const cell = r * cols + c;
      const opened = [];
      if (status !== "playing") { problem = `move ${k + 1} comes after the game ended (${status})`; break; }
      if (kind === "reveal") {
        if (view[cell] !== COVERED || !truth) { problem = `move ${k + 1} reveals a cell that is not covered`; break; }
        if (truth[cell] === 9) { status = "lost"; exploded = cell; } else {
          view[cell] = truth[cell];
          opened.push(cell);
          flood(view, truth, rows, cols, [cell], opened);
        }
      } else if (kind === "chord") {
        const around = neighbours(cell, rows, cols);
        let flags = 0, covered = 0, hit = -1;
        for (const nb of around) {  // row-major: the first covered mine in scan order, as the engine
          if (view[nb] === FLAGGED) flags++;
          else if (view[nb] === COVERED) { covered++; if (truth[nb] === 9 && hit < 0) hit = nb; }
        }
        if (view[cell] < 1 || flags !== view[cell] || covered === 0) { problem = `move ${k + 1} is a chord the rules refuse`; break; }
        if (hit >= 0) { status = "lost"; exploded = hit; } else {
          for (const nb of around) if (view[nb] === COVERED) { view[nb] = truth[nb]; opened.push(nb); }
          flood(view, truth, rows, cols, opened.slice(), opened);
        }
      } else if (kind === "flag") {
        if (view[cell] !== COVERED) { problem = `move ${k + 1} flags a cell that is not covered`; break; }
        view[cell] = FLAGGED;
      } else {
        if (view[cell] !== FLAGGED) { problem = `move ${k + 1} unflags a cell that is not flagged`; break; }
        view[cell] = COVERED;
      }
      left -= opened.length;
      if (status === "playing" && left === 0) status = "won";
      opened.sort((a, b) => a - b);
      steps.push({ grid: view.slice(), opened });
    }
    return { steps, status, exploded, problem, mines, truth };
  }

  // The 3BV of a layout (openings, and numbers no opening reaches), and how many of them a view has solved:
  // engine/kernels.py's label_openings and bbbv_solved.
  function bbbv(truth, view, rows, cols) {
    const cells = rows * cols, label = new Int32Array(cells);
    let openings = 0, total = 0;
    for (let i = 0; i < cells; i++) {
      if (truth[i] !== 0 || label[i]) continue;
      openings++;
      label[i] = openings;
      const stack = [i];
      while (stack.length) {
        const cell = stack.pop();
        for (const nb of neighbours(cell, rows, cols)) {
          if (truth[nb] === 9 || label[nb]) continue;
          label[nb] = openings;
          if (truth[nb] === 0) stack.push(nb);
        }
      }
    }
    total = openings;
    const solvedOpening = new Uint8Array(openings + 1);
    let solved = 0;
    for (let i = 0; i < cells; i++) {
      if (truth[i] === 9) continue;
      if (!label[i]) { total++; if (view && view[i] >= 0) solved++; } else if (view && view[i] >= 0 && truth[i] === 0) {
        solvedOpening[label[i]] = 1;
      }
    }
    for (let k = 1; k <= openings; k++) solved += solvedOpening[k];
    return { total, solved };
  }

  // ---- the solver --------------------------------------------------------------------------------------------
  function logAddAll(values) {
    let top = -Infinity;
    for (const v of values) if (v > top) top = v;
    if (top === -Infinity) return -Infinity;
    let acc = 0;
    for (const v of values) if (v !== -Infinity) acc += Math.exp(v - top);
    return top + Math.log(acc);
  }

  function logConvolve(a, b) {
    const out = new Array(a.length + b.length - 1).fill(-Infinity);
    for (let k = 0; k < out.length; k++) {
      const terms = [];
      for (let i = Math.max(0, k - b.length + 1); i <= Math.min(k, a.length - 1); i++) terms.push(a[i] + b[k - i]);
      out[k] = logAddAll(terms);
    }
    return out;
  }

  function logCorrelate(a, g) {
    const out = new Array(Math.max(0, g.length - a.length + 1)).fill(-Infinity);
    for (let j = 0; j < out.length; j++) {
      const terms = [];
      for (let i = 0; i < a.length; i++) terms.push(a[i] + g[i + j]);
      out[j] = logAddAll(terms);
    }
    return out;
  }

  // log C(u, r) for r = 0..n, relative to nothing (exact up to rounding): -Infinity where r is outside 0..u.
  function logWeights(nFrontier, u, minesLeft) {
    const out = new Array(nFrontier + 1).fill(-Infinity);
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k <= nFrontier; k++) {
      const r = minesLeft - k;
      if (r >= 0 && r <= u) { lo = Math.min(lo, r); hi = Math.max(hi, r); }
    }
    if (lo === Infinity) return out;
    // log C(u, lo) as a sum of logs, then the running ratios C(u, r + 1) / C(u, r) = (u - r) / (r + 1).
    let anchor = 0;
    const small = Math.min(lo, u - lo);
    for (let i = 0; i < small; i++) anchor += Math.log((u - i) / (i + 1));
    const logs = [anchor];
    for (let r = lo; r < hi; r++) logs.push(logs[logs.length - 1] + Math.log((u - r) / (r + 1)));
    for (let k = 0; k <= nFrontier; k++) {
      const r = minesLeft - k;
      if (r >= lo && r <= hi) out[k] = logs[r - lo];
    }
    return out;
  }

  function binomial(n, k) {
    let out = 1;
    for (let i = 0; i < k; i++) out = (out * (n - i)) / (i + 1);
    return Math.round(out);
  }

  // One component: its groups (interchangeable cells) and rows (numbers). For each mine total k, how many
  // solutions (totals[k]) and, per group, the solutions weighted by the group's mines (mineSum[k][g]); which groups
  // were ever a mine / ever safe at k (support[k][g]: bit 1 ever a mine, bit 2 ever safe).
  function countComponent(groups, rowsOf, rhs, maxMines, budget) {
    const G = groups.length;
    const size = groups.map((g) => g.length);
    const groupRows = groups.map(() => []);
    rowsOf.forEach((members, row) => members.forEach((g) => groupRows[g].push(row)));
    // Order: from a far group, each step the group most tied to the rows already open (a sweep along the frontier).
    const order = [];
    const placed = new Uint8Array(G);
    const rowOpen = new Int32Array(rhs.length);
    let start = 0;
    for (let pass = 0; pass < 2; pass++) {  // two breadth-first passes: a pseudo-peripheral start
      const seen = new Int32Array(G).fill(-1);
      seen[start] = 0;
      const queue = [start];
      let last = start;
      for (let q = 0; q < queue.length; q++) {
        const g = queue[q];
        last = g;
        for (const row of groupRows[g]) for (const h of rowsOf[row]) if (seen[h] < 0) { seen[h] = seen[g] + 1; queue.push(h); }
      }
      start = last;
    }
    for (let step = 0; step < G; step++) {
      let best = -1, bestScore = -1;
      for (let g = 0; g < G; g++) {
        if (placed[g]) continue;
        let score = 0;
        for (const row of groupRows[g]) score += rowOpen[row] ? 1 : 0;
        if (step === 0) score = g === start ? 1 : 0;
        if (score > bestScore) { best = g; bestScore = score; }
      }
      placed[best] = 1;
      order.push(best);
      for (const row of groupRows[best]) rowOpen[row] = 1;
    }
    const sum = new Int32Array(rhs.length);
    const room = new Int32Array(rhs.length);
    for (let row = 0; row < rhs.length; row++) for (const g of rowsOf[row]) room[row] += size[g];
    const cellsTotal = size.reduce((a, b) => a + b, 0);
    const top = Math.min(maxMines, cellsTotal);
    const totals = new Float64Array(top + 1);
    const mineSum = Array.from({ length: top + 1 }, () => new Float64Array(G));
    const support = Array.from({ length: top + 1 }, () => new Uint8Array(G));
    const chosen = new Int32Array(G);
    const binom = size.map((s) => Array.from({ length: s + 1 }, (_, m) => binomial(s, m)));
    let nodes = 0;

    function visit(depth, mines, weight) {
      if (++nodes > budget.left) throw new SolverError("the position is beyond the viewer's solver");
      if (depth === G) {
        totals[mines] += weight;
        const sums = mineSum[mines], sup = support[mines];
        for (let g = 0; g < G; g++) {
          const m = chosen[g];
          sums[g] += weight * m;
          sup[g] |= (m > 0 ? 1 : 0) | (m < size[g] ? 2 : 0);
        }
        return;
      }
      const g = order[depth];
      let lo = 0, hi = Math.min(size[g], top - mines);
      for (const row of groupRows[g]) {
        const need = rhs[row] - sum[row];
        hi = Math.min(hi, need);
        lo = Math.max(lo, need - (room[row] - size[g]));
      }
      for (const row of groupRows[g]) room[row] -= size[g];
      for (let m = lo; m <= hi; m++) {
        for (const row of groupRows[g]) sum[row] += m;
        chosen[g] = m;
        visit(depth + 1, mines + m, weight * binom[g][m]);
        for (const row of groupRows[g]) sum[row] -= m;
      }
      for (const row of groupRows[g]) room[row] += size[g];
    }
    visit(0, 0, 1);
    budget.left -= nodes;
    return { totals, mineSum, support, size };
  }

  // The exact analysis of a position: grid holds -1 for a covered cell (flags must be taken off first) and 0-8 for
  // a revealed one. Returns {p: Float64Array (NaN on revealed cells), mark: Uint8Array (1 certainly safe, 2
  // certainly a mine)}; throws SolverError when no layout fits or the search is too long.
  function analyze(grid, rows, cols, mines) {
    const cells = rows * cols;
    const p = new Float64Array(cells).fill(NaN);
    const mark = new Uint8Array(cells);
    // Rows: one per revealed number with covered neighbours; cells: the covered cells they touch.
    const rowCells = [], rowRhs = [];
    const frontierRows = new Map();  // cell -> rows
    for (let i = 0; i < cells; i++) {
      const v = grid[i];
      if (v < 0) continue;
      const around = neighbours(i, rows, cols).filter((nb) => grid[nb] === COVERED);
      if (v > around.length) throw new SolverError("no layout fits the numbers");
      if (!around.length) { if (v !== 0) throw new SolverError("no layout fits the numbers"); continue; }
      const row = rowCells.length;
      rowCells.push(around);
      rowRhs.push(v);
      for (const cell of around) {
        if (!frontierRows.has(cell)) frontierRows.set(cell, []);
        frontierRows.get(cell).push(row);
      }
    }
    const unconstrained = [];
    for (let i = 0; i < cells; i++) if (grid[i] === COVERED && !frontierRows.has(i)) unconstrained.push(i);
    // Components: cells joined by the rows they share.
    const parent = new Map();
    const find = (x) => { while (parent.get(x) !== x) { parent.set(x, parent.get(parent.get(x))); x = parent.get(x); } return x; };
    for (const cell of frontierRows.keys()) parent.set(cell, cell);
    for (const members of rowCells) for (let j = 1; j < members.length; j++) {
      const a = find(members[0]), b = find(members[j]);
      if (a !== b) parent.set(a, b);
    }
    const byRoot = new Map();
    for (const cell of [...frontierRows.keys()].sort((a, b) => a - b)) {
      const root = find(cell);
      if (!byRoot.has(root)) byRoot.set(root, []);
      byRoot.get(root).push(cell);
    }
    const budget = { left: NODE_LIMIT };
    const components = [];
    for (const compCells of byRoot.values()) {
      const groupOf = new Map(), groups = [];
      for (const cell of compCells) {
        const key = frontierRows.get(cell).join(",");
        if (!groupOf.has(key)) { groupOf.set(key, groups.length); groups.push([]); }
        groups[groupOf.get(key)].push(cell);
      }
      const rowIds = [...new Set(compCells.flatMap((cell) => frontierRows.get(cell)))].sort((a, b) => a - b);
      const rowsOf = rowIds.map((row) => {
        const members = new Set();
        for (const cell of rowCells[row]) members.add(groupOf.get(frontierRows.get(cell).join(",")));
        return [...members];
      });
      const counted = countComponent(groups, rowsOf, rowIds.map((row) => rowRhs[row]), mines, budget);
      // log totals, cut after the last nonzero one (as weighting._log_counts)
      let last = 0;
      counted.totals.forEach((t, k) => { if (t > 0) last = k; });
      counted.logs = Array.from(counted.totals.slice(0, last + 1), (t) => (t > 0 ? Math.log(t) : -Infinity));
      counted.groups = groups;
      components.push(counted);
    }
    const U = unconstrained.length;
    const nFrontier = components.reduce((n, c) => n + c.logs.length - 1, 0);
    const g = logWeights(nFrontier, U, mines);
    // forward[k]: the components before k convolved; backward[k]: the components from k on correlated with g.
    const forward = [[0]];
    for (const c of components) forward.push(logConvolve(forward[forward.length - 1], c.logs));
    const backward = new Array(components.length + 1);
    backward[components.length] = g;
    for (let k = components.length - 1; k >= 0; k--) backward[k] = logCorrelate(components[k].logs, backward[k + 1]);
    const logTotal = backward[0][0];
    if (logTotal === -Infinity) throw new SolverError("no layout fits the mine count");
    components.forEach((c, k) => {
      const context = logCorrelate(forward[k], backward[k + 1]);
      const G = c.groups.length;
      const prob = new Float64Array(G);
      const seen = new Uint8Array(G);
      for (let m = 0; m < c.logs.length; m++) {
        if (!(c.totals[m] > 0)) continue;
        const share = Math.exp(context[m] + c.logs[m] - logTotal);
        for (let j = 0; j < G; j++) prob[j] += share * (c.mineSum[m][j] / c.size[j] / c.totals[m]);
        if (context[m] > -Infinity) for (let j = 0; j < G; j++) seen[j] |= c.support[m][j];
      }
      c.groups.forEach((cellsOf, j) => {
        for (const cell of cellsOf) {
          if ((seen[j] & 1) === 0) { p[cell] = 0; mark[cell] = 1; }
          else if ((seen[j] & 2) === 0) { p[cell] = 1; mark[cell] = 2; }
          else p[cell] = prob[j];
        }
      });
    });
    if (U > 0) {
      const last = forward[components.length];
      let expected = 0, restMax = -Infinity, restMin = Infinity;
      for (let k = 0; k < last.length; k++) {
        const logP = last[k] + g[k];
        if (logP === -Infinity) continue;
        const rest = mines - k;
        expected += Math.exp(logP - logTotal) * rest;
        restMax = Math.max(restMax, rest);
        restMin = Math.min(restMin, rest);
      }
      let value = expected / U, certain = 0;
      if (restMax === 0) { value = 0; certain = 1; } else if (restMin === U) { value = 1; certain = 2; }
      for (const cell of unconstrained) { p[cell] = value; mark[cell] = certain; }
    }
    return { p, mark };
  }

  // The analysis a replay shows for a position: flags taken off; none before the first click under a rule that
  // protects it (the note says why), none past the solver (the note says so).
  function positionAnalysis(grid, rows, cols, mines, rule) {
    const numbers = Int8Array.from(grid, (v) => (v === FLAGGED ? COVERED : v));
    if (rule !== "none" && !numbers.some((v) => v >= 0)) {
      return { analysis: null, note: `the first click is safe under the first-click rule ${rule}` };
    }
    try {
      return { analysis: analyze(numbers, rows, cols, mines), note: "" };
    } catch (error) {
      if (error instanceof SolverError) return { analysis: null, note: `no exact probabilities here: ${error.message}` };
      throw error;
    }
  }

  // The index of the first move where two games' play differs (kind or cell), or null for the same play.
  function firstDivergence(a, b) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i][0] !== b[i][0] || a[i][1] !== b[i][1] || a[i][2] !== b[i][2]) return i;
    }
    return a.length !== b.length ? Math.min(a.length, b.length) : null;
  }

  root.ArenaSolver = {
    ALPHABET, COVERED, FLAGGED, SolverError, analyze, bbbv, decodeLayout, decodeMoves, firstDivergence, numbersOf,
    play, positionAnalysis,
  };
})(typeof window !== "undefined" ? window : globalThis);
