// The replay viewer: plays the game(s) of its data again (solver.js's engine) and draws the boards at one step, with
// the exact mine probabilities of the position shown, computed when it is shown (solver.js's solver).
// Everything is built with textContent and classes (no innerHTML from the data): a bot's note is shown as text.
//
// The data is in the page (#replay-data: `arena replay`, `arena serve`), or, on a static site's one game page
// (#replay-source), in the chunk of games that the page's address names (?board=N&player=SLUG[&vs=SLUG]),
// loaded as a script: a page opened from file:// may load scripts beside it but not fetch JSON.
(() => {
  "use strict";
  const S = window.ArenaSolver;
  const SAFE = 1, MINE = 2, TIE = 1e-12;
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  function fail(message) {
    const banner = $("banner");
    banner.hidden = false;
    banner.classList.add("problem");
    banner.textContent = message;
    document.body.dataset.failed = "1";
  }

  const inline = $("replay-data");
  if (inline) {
    start(JSON.parse(inline.textContent));
  } else {
    load(JSON.parse($("replay-source").textContent));
  }

  // A static site's game page: the game(s) of the address, from the chunk of games holding the board.
  function load(source) {
    const query = new URLSearchParams(window.location.search);
    const board = Number(query.get("board"));
    const slugs = [query.get("player"), query.get("vs")].filter((s) => s);
    if (!query.has("board") || !Number.isInteger(board) || board < 0 || !slugs.length) {
      fail("This page shows one game of the tournament: its address names the board and the player "
        + "(game.html?board=N&player=NAME, and &vs=NAME for two side by side). The player's page links each game.");
      return;
    }
    const chunk = Math.floor(board / source.chunk);
    window.ArenaReplayData = (data) => {
      const found = data.boards[String(board)] || { layouts: [], games: {} };
      const games = [];
      for (const slug of slugs) {
        const game = Object.prototype.hasOwnProperty.call(found.games, slug) ? found.games[slug] : null;
        const key = Object.prototype.hasOwnProperty.call(source.players, slug) ? source.players[slug] : null;
        if (!game || key === null) {
          fail(`This site holds no replay of ${key === null ? `a player ${slug}` : key} on board ${board}: `
            + "it keeps the replays of lost and failed games and of the boards two players split (arena site --replays).");
          return;
        }
        games.push(Object.assign({}, source.board, game, {
          player: key, board, layout: game.l === null ? null : found.layouts[game.l],
        }));
      }
      const names = games.map((g) => g.player).join(" vs ");
      const title = `${names} · ${source.board.label} board ${board} of seed ${source.board.seed}`;
      document.title = `${title} · minesweeper-arena`;
      crumbs(source, slugs, games, board);
      const nav = {};
      if (slugs.length === 1 && source.lost && Array.isArray(source.lost[slugs[0]])) {
        const lost = source.lost[slugs[0]];
        const href = (b) => `game.html?board=${b}&player=${encodeURIComponent(slugs[0])}&move=end`;
        const before = lost.filter((b) => b < board), after = lost.filter((b) => b > board);
        if (before.length) nav.prev = [before[before.length - 1], href(before[before.length - 1])];
        if (after.length) nav.next = [after[0], href(after[0])];
      }
      start({ version: 2, title, probabilities: true, games, nav });
    };
    const script = document.createElement("script");
    script.src = `${source.data}${chunk}.js`;
    script.onerror = () => fail(`The games of board ${board} are not in this site (${script.src} is missing).`);
    document.body.append(script);
  }

  // The navigation of a static site's game page: the player (or the two players' comparison), then the board.
  function crumbs(source, slugs, games, board) {
    const list = document.querySelector("ol.crumbs");
    if (!list) return;
    const item = el("li");
    const link = el("a", "", games.map((g) => g.player).join(" vs "));
    const sorted = slugs.slice().sort();
    link.href = slugs.length === 1 ? `p/${encodeURIComponent(slugs[0])}/index.html`
      : `diff/${encodeURIComponent(sorted[0])}/${encodeURIComponent(sorted[1])}/index.html`;
    item.append(link);
    const here = el("li");
    here.append(el("span", "", `board ${board}`));
    here.firstChild.setAttribute("aria-current", "page");
    list.append(item, here);
  }

  function start(DATA) {
    if (DATA.version !== 2) { fail(`This replay's data is of version ${DATA.version}; this viewer reads version 2.`); return; }
    $("title").textContent = DATA.title;
    const games = DATA.games;
    let problem = "";
    for (const g of games) {
      if (typeof g.moves === "string") g.moves = S.decodeMoves(g.moves, g.w, g.cols, g.notes);
      const played = S.play(g);
      g.steps = played.steps;
      g.opened = played.steps.slice(1).map((step) => step.opened);
      g.status = played.status;
      g.exploded = played.exploded;
      g.mineAt = played.mines;
      g.analyses = new Map();
      const counted = played.truth ? S.bbbv(played.truth, played.steps[played.steps.length - 1].grid, g.rows, g.cols) : null;
      g.bbbv = counted ? counted.total : 0;
      if (!g.outcome) g.outcome = played.status;
      if (played.problem && !problem) problem = `The record of ${g.player} does not replay: ${played.problem}.`;
      // The steps past a move that does not replay are not shown.
      g.moves = g.moves.slice(0, g.steps.length - 1);
    }
    const total = Math.max(0, ...games.map((g) => g.moves.length));
    const divergence = games.length === 2 ? S.firstDivergence(games[0].moves, games[1].moves) : null;
    let current = 0;
    let showP = !!DATA.probabilities;
    let timer = null;
    const badgeClass = (outcome) => (outcome === "won" ? "won" : outcome === "lost" ? "lost" : "failed");
    const moveText = (m) => `${m[0]} ${m[1]},${m[2]}${m[3] ? "?" : ""}`;
    const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const gridChars = (grid) => Array.from(grid, (v) => (v === S.COVERED ? "#" : v === S.FLAGGED ? "F" : String(v))).join("");

    // A step's probabilities, computed the first time the step is shown (positions that differ only in flags share
    // one): per cell the exact value (null where revealed) and a mark (certainly safe or mine); null with a note
    // when there is nothing to compute (the game is over, the first click is protected) or the solver gives up.
    function decode(game, k) {
      const st = game.steps[k];
      if (st.decoded !== undefined) return st.decoded;
      st.decoded = null;
      if (k === game.steps.length - 1 && game.status !== "playing") return null;
      const key = Array.from(st.grid, (v) => (v === S.FLAGGED ? S.COVERED : v)).join(",");
      let found = game.analyses.get(key);
      if (!found) {
        found = S.positionAnalysis(st.grid, game.rows, game.cols, game.mines, game.rule);
        game.analyses.set(key, found);
      }
      st.x = found.note;
      if (!found.analysis) return null;
      const vals = Array.from(found.analysis.p, (v) => (Number.isNaN(v) ? null : v));
      st.decoded = { vals, mark: found.analysis.mark };
      return st.decoded;
    }

    function shortPct(p) {
      const x = p * 100;
      if (x === 0) return "0";
      if (x < 1) return "<1";
      if (x > 99 && x < 100) return ">99";
      return String(Math.round(x));
    }
    function longPct(p) {
      const x = p * 100;
      if (x === 0) return "0%";
      if (x < 0.01) return "<0.01%";
      if (x > 99.99 && x < 100) return ">99.99%";
      return `${x.toFixed(2)}%`;
    }
    function heat(p, quiet) {
      // Green through yellow to red; the square root spreads the low odds a player mostly chooses among.
      const hue = 120 * (1 - Math.sqrt(Math.min(1, Math.max(0, p))));
      return quiet ? `hsl(${hue.toFixed(0)}, 35%, 80%)` : `hsl(${hue.toFixed(0)}, 80%, ${(70 - 8 * p).toFixed(0)}%)`;
    }
    function farFromNumbers(grid, g, r, c) {
      for (let rr = Math.max(0, r - 1); rr <= Math.min(g.rows - 1, r + 1); rr++) {
        for (let cc = Math.max(0, c - 1); cc <= Math.min(g.cols - 1, c + 1); cc++) {
          const ch = grid[rr * g.cols + cc];
          if (ch !== "#" && ch !== "F") return false;
        }
      }
      return true;
    }

    // ---- the page ----------------------------------------------------------------------------------
    const boards = $("boards");
    const widest = Math.max(...games.map((g) => g.cols));
    // Cells as large as the window allows with the boards side by side (the frame around a board takes ~70px);
    // on a phone (under 600px, where the stylesheet stacks the panels) one board takes the whole width.
    // On a phone a cell is never smaller than 26px (its number must be readable and a finger must hit it): a
    // wider board scrolls inside its panel, the move's cell brought into view.
    function fitCells() {
      const width = document.documentElement.clientWidth;
      const phone = width < 600;
      const columns = phone ? 1 : games.length;
      const room = (width - (phone ? 20 : 48) - 16 * (columns - 1)) / columns - (phone ? 50 : 70);
      const least = phone ? 26 : 14;
      boards.style.setProperty("--cell", `${Math.max(least, Math.min(34, Math.floor(room / widest)))}px`);
    }
    fitCells();
    window.addEventListener("resize", fitCells);

    const views = games.map((game, gi) => buildPanel(game, gi));

    function buildPanel(game, gi) {
      const panel = el("section", "panel");
      panel.id = `board-${gi}`;
      panel.dataset.player = game.player;
      const h2 = el("h2");
      h2.append(el("span", "player", game.player), el("span", `badge ${badgeClass(game.outcome)}`, game.outcome));
      panel.append(h2);
      let meta = `${game.label} · first click ${game.rule} · seed ${game.seed} · board ${game.board} · 3BV ${game.bbbv}`;
      if (game.error) meta += ` · ${game.error}`;
      panel.append(el("p", "meta", meta));

      const counters = el("div", "counters");
      const counter = (label) => {
        const box = el("div", "counter");
        box.append(el("span", "", label));
        const value = el("b", "", "");
        box.append(value);
        counters.append(box);
        return value;
      };
      const view = {
        game, gi, panel,
        moveCounter: counter("move"),
        minesLeft: counter("mines left"),
        safeLeft: counter("safe cells left"),
      };
      panel.append(counters);

      const scroller = el("div", "board-scroll");
      const wrap = el("div", "board-wrap");
      const grid = el("div", "grid");
      grid.style.gridTemplateColumns = `16px repeat(${game.cols}, var(--cell))`;
      grid.append(el("div", "axis corner"));
      for (let c = 0; c < game.cols; c++) grid.append(el("div", "axis", String(c)));
      view.cells = [];
      for (let r = 0; r < game.rows; r++) {
        grid.append(el("div", "axis row", String(r)));
        for (let c = 0; c < game.cols; c++) {
          const cell = el("div", "cell covered");
          cell.dataset.r = r;
          cell.dataset.c = c;
          grid.append(cell);
          view.cells.push(cell);
        }
      }
      wrap.append(grid);
      scroller.append(wrap);
      panel.append(scroller);
      view.scroller = scroller;
      // A tap (or a click) on a cell says what it is and its exact mine probability: a touch screen has no hover.
      view.tapped = el("p", "tapped");
      view.tapped.setAttribute("aria-live", "polite");
      panel.append(view.tapped);
      grid.addEventListener("click", (event) => {
        const cell = event.target.closest(".cell");
        if (!cell) return;
        view.tappedAt = Number(cell.dataset.r) * game.cols + Number(cell.dataset.c);
        showTapped(view);
      });

      const info = el("div", "info");
      view.last = el("p", "last");
      view.next = el("p", "next");
      view.note = el("p", "note-line");
      info.append(view.last, view.next, view.note);
      panel.append(info);

      const list = el("ol", "moves");
      view.items = game.moves.map((m, i) => {
        const li = el("li", "", `${i + 1}. ${moveText(m)}`);
        if (m[3]) li.classList.add("g");
        if (i === game.moves.length - 1 && game.exploded !== null) li.classList.add("x");
        if (m[4]) { li.classList.add("noted"); li.title = m[4]; }
        li.addEventListener("click", () => setStep(i));
        list.append(li);
        return li;
      });
      view.list = list;
      if (game.moves.length) panel.append(list);
      boards.append(panel);
      return view;
    }

    function showTapped(view) {
      view.cells.forEach((c) => c.classList.remove("tap"));
      if (view.tappedAt === undefined) { view.tapped.textContent = ""; return; }
      const cell = view.cells[view.tappedAt];
      cell.classList.add("tap");
      view.tapped.textContent = cell.title;
      view.tapped.dataset.cell = String(view.tappedAt);
    }

    // Brings the cell of the move shown (the mine hit, the move to come, or the last one played) into the board's
    // own scrolling box when the board is wider or taller than it: the page itself does not move.
    function reveal(view, index) {
      if (index < 0) return;
      const box = view.scroller;
      const cell = view.cells[index];
      onScreen(cell);
      if (box.scrollWidth <= box.clientWidth + 1 && box.scrollHeight <= box.clientHeight + 1) return;
      const cb = cell.getBoundingClientRect(), bb = box.getBoundingClientRect();
      const margin = cb.width * 2;
      if (cb.left < bb.left + margin || cb.right > bb.right - margin) {
        box.scrollLeft += cb.left - bb.left - (bb.width - cb.width) / 2;
      }
      if (box.scrollHeight > box.clientHeight + 1 && (cb.top < bb.top + margin || cb.bottom > bb.bottom - margin)) {
        box.scrollTop += cb.top - bb.top - (bb.height - cb.height) / 2;
      }
    }

    // The page scrolled so that ``cell`` is on the screen, and not under the controls (at the top of a window, at
    // the bottom of a phone's screen); only when it is not already there.
    function onScreen(cell) {
      const controls = $("controls").getBoundingClientRect();
      const atBottom = controls.top > window.innerHeight / 2;
      const top = atBottom ? 0 : Math.max(0, controls.bottom);
      const bottom = atBottom ? controls.top : window.innerHeight;
      const cb = cell.getBoundingClientRect();
      if (cb.top >= top && cb.bottom <= bottom) return;
      window.scrollBy(0, cb.top - top - Math.max(0, (bottom - top - cb.height) / 2));
    }

    function describe(kind, label, text) {
      const span = el("span", kind, text);
      if (label) span.dataset.role = label;
      return span;
    }

    function renderGame(view) {
      const g = view.game;
      const n = g.moves.length;
      const k = Math.min(current, n);
      const st = g.steps[k];
      const grid = st.chars || (st.chars = gridChars(st.grid));
      const end = k === n;
      const showLayout = end && g.mineAt !== null;
      const next = k < n ? g.moves[k] : null;
      const last = k > 0 ? g.moves[k - 1] : null;
      const fresh = new Set(k > 0 ? g.opened[k - 1] : []);
      const pr = decode(g, k);
      const chosen = next ? next[1] * g.cols + next[2] : -1;
      const fatalNext = next !== null && k === n - 1 && g.exploded !== null;
      view.panel.dataset.step = k;

      let safest = Infinity, tied = 0, flags = 0, covered = 0;
      for (let i = 0; i < grid.length; i++) {
        const ch = grid[i];
        if (ch === "F") flags++;
        if (ch === "#" || ch === "F") covered++;
        if (pr && ch === "#" && pr.vals[i] !== null) {
          const v = pr.vals[i];
          if (v < safest - TIE) { safest = v; tied = 1; } else if (Math.abs(v - safest) <= TIE) tied++;
        }
      }

      for (let i = 0; i < grid.length; i++) {
        const cell = view.cells[i];
        const ch = grid[i];
        const r = Math.floor(i / g.cols), c = i % g.cols;
        let cls = "cell", text = "", bg = "";
        if (ch === "#") cls += " covered";
        else if (ch === "F") cls += " covered flag";
        else {
          cls += ` open n${ch}`;
          if (ch !== "0") text = ch;
          if (fresh.has(i)) cls += " fresh";
        }
        let where = `row ${r}, col ${c}`;
        if (showLayout) {
          const mine = g.mineAt[i] === 1;
          if (ch === "#" && mine) cls = "cell open mine" + (i === g.exploded ? " exploded" : "");
          else if (ch === "F") cls += mine ? " goodflag" : " wrongflag";
        }
        if (showLayout && i === g.exploded) cell.dataset.fatal = "1";
        else delete cell.dataset.fatal;
        const v = pr && (ch === "#" || ch === "F") ? pr.vals[i] : null;
        if (v !== null && v !== undefined) {
          cell.dataset.p = String(v);
          const mark = pr.mark[i];
          where += `: mine probability ${longPct(v)}`;
          if (mark === SAFE) where += " (certainly safe)";
          if (mark === MINE) where += " (certainly a mine)";
          if (showP) {
            if (ch === "#") {
              cls += " prob";
              if (mark === SAFE) cls += " p-safe";
              else if (mark === MINE) cls += " p-mine";
              else {
                text = shortPct(v);
                // Off the frontier every cell has the same odds: drawn quieter, so the frontier stands out.
                if (farFromNumbers(grid, g, r, c)) { cls += " far"; bg = heat(v, true); } else bg = heat(v);
              }
            } else if (mark !== MINE) cls += " flag-doubt";
          }
        } else {
          delete cell.dataset.p;
        }
        if (i === chosen) cls += fatalNext ? " chosen fatal-next" : " chosen";
        if (cell.className !== cls) cell.className = cls;
        if (cell.textContent !== text) cell.textContent = text;
        if (cell.style.backgroundColor !== bg) cell.style.backgroundColor = bg;
        cell.dataset.s = ch;
        cell.title = where;
      }

      showTapped(view);
      const fatalCell = showLayout && g.exploded !== null ? g.exploded : -1;
      const lastCell = last ? last[1] * g.cols + last[2] : -1;
      reveal(view, fatalCell >= 0 ? fatalCell : chosen >= 0 ? chosen : lastCell);

      view.moveCounter.textContent = `${k} / ${n}`;
      view.minesLeft.textContent = String(g.mines - flags);
      view.safeLeft.textContent = String(Math.max(0, covered - g.mines));

      // The move just played, and how the game stands.
      view.last.replaceChildren(el("span", "label", k ? `move ${k}` : "start"));
      if (last) {
        view.last.append(describe("", "", moveText(last)));
        if (end && g.exploded !== null) view.last.append(" — ", describe("fatal", "fatal", "hit a mine"));
        else if (last[0] === "reveal" || last[0] === "chord") view.last.append(` — opened ${plural(g.opened[k - 1].length, "cell")}`);
      } else {
        view.last.append("nothing played yet");
      }
      if (end) {
        const over = g.status === "won" ? `won in ${plural(n, "move")}` : g.status === "lost" ? `lost at move ${n}`
          : `${g.outcome}${g.error ? `: ${g.error}` : ""}`;
        view.last.append(" · ", describe("over", "over", over));
      }

      // The move to come: what it is, and what was exactly known when it was chosen.
      view.next.replaceChildren();
      if (next) {
        view.next.append(el("span", "label", `next, move ${k + 1}`), describe("", "", moveText(next)));
        const v = pr ? pr.vals[chosen] : null;
        const mark = pr ? pr.mark[chosen] : 0;
        if (next[0] === "reveal") {
          if (next[3]) view.next.append(" ", describe("guess", "guess", "guess"));
          if (v !== null && v !== undefined) {
            if (mark === SAFE) view.next.append(" · ", describe("safe", "p", "certainly safe"));
            else {
              const worse = Number.isFinite(safest) && v > safest + TIE;
              view.next.append(" · mine probability ", describe(mark === MINE ? "fatal" : worse ? "worse" : "", "p", longPct(v)));
              if (worse && safest === 0) {
                view.next.append(" · ", describe("safe", "safest", `${plural(tied, "cell")} certainly safe`));
              } else if (worse) {
                view.next.append(" · safest available ", describe("safe", "safest", longPct(safest)),
                  ` (${plural(tied, "cell")})`);
              } else if (Number.isFinite(safest)) {
                view.next.append(" · ", describe("", "safest", tied > 1 ? `the safest, tied with ${plural(tied - 1, "other cell")}` : "the safest cell"));
              }
              if (!next[3] && mark !== SAFE) view.next.append(" · not marked as a guess");
            }
          }
        } else if (next[0] === "flag" && v !== null && v !== undefined) {
          view.next.append(" · ", mark === MINE ? describe("safe", "p", "certainly a mine")
            : describe("guess", "p", `mine probability ${longPct(v)}: not certain`));
        } else if (next[0] === "chord") {
          view.next.append(" · reveals the unflagged neighbours");
        }
        if (fatalNext) view.next.append(" — ", describe("fatal", "fatal", "hits a mine"));
        if (!pr && st.x) view.next.append(` · ${st.x}`);
      }
      const note = next ? next[4] : null;
      view.note.replaceChildren();
      if (note) view.note.append(el("span", "label", "its note"), el("span", "note", note));

      for (let i = 0; i < view.items.length; i++) {
        const li = view.items[i];
        li.classList.toggle("done", i < k);
        li.classList.toggle("nextmove", i === k);
      }
      const item = view.items[Math.min(k, view.items.length - 1)];
      if (item) {
        const list = view.list;
        if (item.offsetTop < list.scrollTop || item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
          list.scrollTop = Math.max(0, item.offsetTop - list.clientHeight / 2);
        }
      }
    }

    // ---- controls ----------------------------------------------------------------------------------
    const slider = $("slider");
    const stepOut = $("step");
    const toggle = $("toggle-p");
    const playButton = $("play");
    slider.max = String(total);
    toggle.checked = showP;

    function render() {
      slider.value = String(current);
      stepOut.textContent = `${current} / ${total}`;
      stepOut.dataset.step = String(current);
      document.body.dataset.step = String(current);
      for (const view of views) renderGame(view);
      const banner = $("banner");
      if (divergence !== null && divergence !== undefined) banner.classList.toggle("here", current === divergence);
    }

    // The move shown is in the address (?move=N), so a link shares the very position.
    function remember() {
      const query = new URLSearchParams(location.search);
      if (query.get("move") === String(current)) return;
      query.set("move", String(current));
      const address = `${location.pathname}?${query.toString()}${location.hash}`;
      try { history.replaceState(history.state, "", address); } catch (e) { /* file:// in some browsers */ }
    }

    function setStep(k) {
      current = Math.max(0, Math.min(total, k));
      render();
      remember();
    }

    function play(on) {
      if (timer !== null) { clearInterval(timer); timer = null; }
      if (on) {
        if (current >= total) setStep(0);
        timer = setInterval(() => {
          if (current >= total) play(false);
          else setStep(current + 1);
        }, 350);
      }
      playButton.textContent = timer !== null ? "pause" : "play";
    }

    function setProbabilities(on) {
      showP = on;
      toggle.checked = on;
      document.body.classList.toggle("show-p", on);
      render();
    }

    $("first").addEventListener("click", () => setStep(0));
    $("prev").addEventListener("click", () => setStep(current - 1));
    $("next").addEventListener("click", () => setStep(current + 1));
    $("last").addEventListener("click", () => setStep(total));
    playButton.addEventListener("click", () => play(timer === null));
    slider.addEventListener("input", () => setStep(Number(slider.value)));
    toggle.addEventListener("change", () => setProbabilities(toggle.checked));
    document.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target;
      const onControl = target && (target.tagName === "BUTTON" || (target.tagName === "INPUT" && target.type === "checkbox"));
      switch (e.key) {
        case "ArrowRight": case "ArrowDown": setStep(current + (e.shiftKey ? 10 : 1)); break;
        case "ArrowLeft": case "ArrowUp": setStep(current - (e.shiftKey ? 10 : 1)); break;
        case "PageDown": setStep(current + 10); break;
        case "PageUp": setStep(current - 10); break;
        case "Home": setStep(0); break;
        case "End": setStep(total); break;
        case "p": case "P": setProbabilities(!showP); break;
        case " ": if (onControl) return; play(timer === null); break;
        default: return;
      }
      e.preventDefault();
    });

    // The timeline under the slider: guesses, the losing move, and where two players' play first differs.
    const timeline = $("timeline");
    const at = (k) => `${total ? (100 * k) / total : 0}%`;
    const tick = (k, cls, title) => {
      const t = el("span", `tick ${cls}`);
      t.style.left = at(k);
      t.title = title;
      timeline.append(t);
    };
    games.forEach((g, gi) => {
      g.moves.forEach((m, i) => {
        if (m[3]) tick(i, `guess${gi ? " row1" : ""}`, `${g.player}: guess at move ${i + 1}`);
      });
      if (g.exploded !== null && g.moves.length) tick(g.moves.length, "fatal", `${g.player}: hit a mine at move ${g.moves.length}`);
    });
    if (games.length > 1 && divergence !== null && divergence !== undefined) tick(divergence, "diverge", `play differs at move ${divergence + 1}`);
    timeline.addEventListener("click", (e) => {
      const box = timeline.getBoundingClientRect();
      setStep(Math.round(((e.clientX - box.left) / box.width) * total));
    });

    // What the page shows: the game(s), and for two games where their play parts.
    const first = games[0];
    const head = `${first.label} · first click ${first.rule} · seed ${first.seed} · board ${first.board}`;
    $("subtitle").textContent = games.length === 1
      ? `${head} · ${plural(first.moves.length, "move")} · ${first.outcome}`
      : `${head} · ${games.map((g) => `${g.player} ${g.outcome} (${plural(g.moves.length, "move")})`).join(" vs ")}`;
    if (first.rule === "windows") {
      // The rule moves a mine from under the first click to the top-left-most free cell: layouts are then not
      // all equally likely, while the analysis weighs them alike.
      $("subtitle").append(" · under this rule the odds shown assume every layout that fits is equally likely, "
        + "which the moved mine makes only nearly true");
    }
    if (games.length > 1) {
      const banner = $("banner");
      banner.hidden = false;
      if (divergence === null || divergence === undefined) {
        banner.classList.add("same");
        banner.textContent = "Both players made exactly the same moves.";
      } else {
        const say = (g) => (divergence < g.moves.length ? `${g.player} plays ${moveText(g.moves[divergence])}` : `${g.player} has stopped`);
        banner.append(`Their play first differs at move ${divergence + 1}: ${games.map(say).join(", ")}. `);
        const go = el("button", "link", "show that position");
        go.type = "button";
        go.id = "goto-divergence";
        go.addEventListener("click", () => setStep(divergence));
        banner.append(go);
      }
    }

    // Previous and next lost game of the same player, where the page knows them.
    const nav = DATA.nav || {};
    const navBox = $("lost-nav");
    if (navBox && (nav.prev || nav.next)) {
      navBox.hidden = false;
      for (const [which, label] of [["prev", "\u25c0 lost board "], ["next", "lost board "]]) {
        if (!nav[which]) continue;
        const link = el("a", `nav-${which}`, which === "prev" ? `${label}${nav[which][0]}` : `${label}${nav[which][0]} \u25b6`);
        link.href = nav[which][1];
        link.id = `lost-${which}`;
        navBox.append(link);
      }
    }

    if (problem) fail(problem);
    const asked = new URLSearchParams(location.search).get("move");
    if (asked === "end" || asked === "last") current = total;
    else if (asked !== null && /^\d+$/.test(asked)) current = Math.min(total, Number(asked));
    setProbabilities(showP);
    document.body.dataset.ready = "1";  // the game is shown: what tests and scripts wait for
  }
})();
