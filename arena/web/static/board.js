// A static site's board page (arena site): every player's game of the board this page's address names
// (board.html?board=17), read from the data file that holds it (boards/<n>.js, loaded as a script: a page opened
// from file:// may not fetch JSON). Every text a bot controls (a player's name, an error) goes in as textContent.
(function () {
  "use strict";
  const source = JSON.parse(document.getElementById("board-source").textContent);
  const empty = document.getElementById("board-empty");
  const tbody = document.querySelector("#players tbody");
  const raw = new URLSearchParams(location.search).get("board");
  const board = raw === null ? 0 : Number(raw);

  function say(text) {
    empty.textContent = text;
    empty.hidden = false;
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cell(text, className, value) {
    const td = el("td", className, String(text));
    if (value !== undefined) td.dataset.v = String(value);
    return td;
  }

  function link(href, text, rel) {
    const a = el("a", "chip", text);
    a.href = href;
    if (rel) a.rel = rel;
    return a;
  }

  function layoutCells(text) {
    // One bit per cell, six to a digit of the alphabet, the first cell in a digit's highest bit.
    const cells = source.rows * source.cols;
    const mines = new Array(cells).fill(false);
    for (let i = 0; i < text.length; i++) {
      const value = source.alphabet.indexOf(text[i]);
      for (let bit = 0; bit < 6; bit++) {
        const at = i * 6 + bit;
        if (at < cells) mines[at] = Boolean(value & (32 >> bit));
      }
    }
    return mines;
  }

  function render(entry) {
    const games = entry ? entry.games.slice() : [];
    if (!games.length) {
      say("No game of this board is stored.");
      return;
    }
    games.sort((a, b) => (a[1] !== "won") - (b[1] !== "won") || source.players[a[0]].localeCompare(source.players[b[0]]));
    for (const g of games) {
      const [slug, outcome, moves, guesses, solved, bbbv, ms, first, , replay, error] = g;
      const key = source.players[slug];
      const tr = el("tr");
      tr.dataset.player = key;
      const who = el("td");
      if (replay) {
        const a = el("a", "replay-link", key);
        a.href = `game.html?board=${board}&player=${encodeURIComponent(slug)}`;
        a.title = "replay";
        who.append(a);
      } else {
        who.textContent = key;
      }
      if (error) {
        const meta = el("div", "meta", error);
        meta.dataset.field = "error";
        who.append(meta);
      }
      const badge = el("span", "badge " + (outcome === "won" ? "won" : outcome === "lost" ? "lost" : "failed"), outcome);
      const result = el("td");
      result.append(badge);
      tr.append(who, result, cell(first || "-", "wide"), cell(moves, "num"), cell(guesses, "num wide"),
        cell(`${solved} / ${bbbv}`, "num wide"), cell(ms.toFixed(2), "num wide", ms));
      tbody.append(tr);
    }
    const box = document.querySelector("#layouts .layouts");
    entry.layouts.forEach((text, index) => {
      const figure = el("figure", "layout");
      const grid = el("div", "mines");
      grid.style.gridTemplateColumns = `repeat(${source.cols}, 1fr)`;
      grid.setAttribute("role", "img");
      grid.setAttribute("aria-label", "mine layout");
      for (const mine of layoutCells(text)) grid.append(el("span", mine ? "m" : "s"));
      const who = games.filter((g) => g[8] === index).map((g) => source.players[g[0]]).sort();
      figure.append(grid, el("figcaption", "muted small", "played by " + who.join(", ")));
      box.append(figure);
    });
    if (entry.layouts.length) document.getElementById("layouts").hidden = false;
  }

  if (!Number.isInteger(board) || board < 0 || board >= source.boards) {
    say(`There is no board ${raw} here: this tournament has boards 0 to ${source.boards - 1}.`);
    return;
  }
  document.getElementById("board-title").textContent = `Board ${board}`;
  const here = document.querySelector(".crumbs [aria-current]");
  if (here) here.textContent = `board ${board}`;
  document.title = `Board ${board} · ` + document.title.replace(/^Boards · /, "");
  const nav = document.getElementById("board-nav");
  if (board > 0) nav.append(link(`board.html?board=${board - 1}`, `← board ${board - 1}`, "prev"));
  if (board + 1 < source.boards) nav.append(link(`board.html?board=${board + 1}`, `board ${board + 1} →`, "next"));
  const chunk = Math.floor(board / source.chunk);
  window.ArenaBoardData = (data) => render(data.boards[String(board)]);
  const script = document.createElement("script");
  script.src = `${source.data}${chunk}.js`;
  script.onerror = () => say("No game of this board is stored.");
  document.head.append(script);
})();
