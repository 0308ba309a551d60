// The pages' one script: sortable tables (the sort kept in the address, so a sorted table can be shared), rows
// whose other figures open with a tap on a narrow screen, and (served by `arena serve` only) pages that follow the
// store: a page being played refreshes its figures every few seconds, and any other page asks every few seconds
// whether what it shows has changed (a tournament started, extended or resumed) and refreshes itself when it has.
// Nothing is fetched from anywhere but the page's own server; text from the store is only ever moved, never parsed
// from strings into markup (the refreshed regions come from the server's own escaped HTML).
(function () {
  "use strict";

  function cellValue(row, index, numeric) {
    const cell = row.children[index];
    if (!cell) return numeric ? NaN : "";
    const raw = cell.dataset.v !== undefined ? cell.dataset.v : cell.textContent.trim();
    if (!numeric) return raw.toLowerCase();
    const value = parseFloat(raw);
    return Number.isNaN(value) ? NaN : value;
  }

  function keyOf(th) {
    return th.dataset.key || th.textContent.trim().toLowerCase().replace(/[^a-z0-9%#]+/g, "-").replace(/^-|-$/g, "");
  }

  // The first click on a column puts its best first: a figure where higher is better (data-better="high", the
  // default for numbers) biggest first, one where lower is better (a rank, a time, a p-value) smallest first,
  // text from A. The next click turns it round.
  function firstDirection(th) {
    if (th.dataset.better === "low") return "asc";
    if (th.dataset.better === "high") return "desc";
    return th.dataset.sort === "num" ? "desc" : "asc";
  }

  function sortBy(th, direction, remember) {
    const table = th.closest("table");
    const body = table.tBodies[0];
    const index = Array.prototype.indexOf.call(th.parentNode.children, th);
    const numeric = th.dataset.sort === "num";
    let dir = direction;
    if (!dir) {
      if (th.classList.contains("sorted-asc")) dir = "desc";
      else if (th.classList.contains("sorted-desc")) dir = "asc";
      else dir = firstDirection(th);
    }
    table.querySelectorAll("th").forEach((h) => {
      h.classList.remove("sorted-asc", "sorted-desc");
      h.removeAttribute("aria-sort");
    });
    th.classList.add(dir === "asc" ? "sorted-asc" : "sorted-desc");
    th.setAttribute("aria-sort", dir === "asc" ? "ascending" : "descending");
    const sign = dir === "asc" ? 1 : -1;
    const rows = Array.from(body.rows).filter((r) => !r.classList.contains("details"));
    rows.sort((a, b) => {
      const x = cellValue(a, index, numeric);
      const y = cellValue(b, index, numeric);
      // A missing figure goes last whichever way the column is sorted.
      if (numeric && (Number.isNaN(x) || Number.isNaN(y))) return Number.isNaN(x) - Number.isNaN(y);
      return (x < y ? -1 : x > y ? 1 : 0) * sign;
    });
    rows.forEach((row) => {
      const details = row.nextElementSibling && row.nextElementSibling.classList.contains("details")
        ? row.nextElementSibling : null;
      body.appendChild(row);
      if (details) body.appendChild(details);
    });
    if (remember && table.id) {
      const url = new URL(location.href);
      url.searchParams.set(`sort-${table.id}`, `${keyOf(th)}.${dir}`);
      history.replaceState(history.state, "", url.toString());
    }
  }

  // The sort the address names (?sort-TABLE=KEY.asc|desc), as a shared link shows it.
  function sortFromAddress(root) {
    const query = new URLSearchParams(location.search);
    root.querySelectorAll("table.sortable[id]").forEach((table) => {
      const wanted = query.get(`sort-${table.id}`);
      if (!wanted) return;
      const [key, dir] = wanted.split(".");
      const th = Array.from(table.querySelectorAll("th[data-sort]")).find((h) => keyOf(h) === key);
      if (th && (dir === "asc" || dir === "desc")) sortBy(th, dir, false);
    });
  }

  function makeSortable(root) {
    root.querySelectorAll("table.sortable th[data-sort]").forEach((th) => {
      th.tabIndex = 0;
      th.addEventListener("click", () => sortBy(th, null, true));
      th.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sortBy(th, null, true); }
      });
    });
    // A narrow screen shows a row's few figures that matter; a tap on the row's "more" shows the rest.
    root.querySelectorAll("button.more").forEach((button) => {
      button.addEventListener("click", () => {
        const row = button.closest("tr");
        const open = row.classList.toggle("open");
        button.setAttribute("aria-expanded", open ? "true" : "false");
      });
    });
    sortFromAddress(root);
  }

  makeSortable(document);

  // A board number typed in the box on a tournament's page opens that board's page.
  document.querySelectorAll("form.jump").forEach((form) => {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const input = form.querySelector("input");
      const board = Number(input.value);
      const max = Number(input.max);
      if (!Number.isInteger(board) || board < 0 || board > max) {
        input.setCustomValidity(`a board from 0 to ${max}`);
        input.reportValidity();
        return;
      }
      input.setCustomValidity("");
      location.href = form.dataset.pattern.replace("BOARD", String(board));
    });
  });

  // Following the store (served pages only).
  const body = document.body;
  if (!body.dataset.watch || !location.protocol.startsWith("http")) return;
  const LIVE_EVERY = 2000, WATCH_EVERY = 3000;
  let sig = body.dataset.sig || "";

  function refresh() {
    return fetch(location.href, { headers: { Accept: "text/html" }, cache: "no-store" })
      .then((response) => (response.ok ? response.text() : Promise.reject(response.status)))
      .then((text) => {
        const fresh = new DOMParser().parseFromString(text, "text/html");
        let swapped = 0;
        document.querySelectorAll("[data-live-region]").forEach((region) => {
          const next = region.id && fresh.getElementById(region.id);
          if (next) { region.replaceWith(next); makeSortable(next); swapped++; }
        });
        // A region the page had no place for (the status of a tournament that has just started): the whole page.
        const missing = Array.from(fresh.querySelectorAll("[data-live-region]")).some((r) => !document.getElementById(r.id));
        if (missing) { location.reload(); return; }
        sig = fresh.body.dataset.sig || sig;
        body.dataset.sig = sig;
        if (fresh.body.dataset.live === "1") body.dataset.live = "1";
        else delete body.dataset.live;
        body.dataset.refreshed = String(Number(body.dataset.refreshed || 0) + swapped);
      });
  }

  function tick() {
    if (body.dataset.live === "1") {
      refresh().then(() => setTimeout(tick, LIVE_EVERY), () => setTimeout(tick, LIVE_EVERY * 3));
      return;
    }
    fetch(body.dataset.watch, { cache: "no-store" })
      .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
      .then((answer) => (answer.sig !== sig ? refresh() : null))
      .then(() => setTimeout(tick, WATCH_EVERY), () => setTimeout(tick, WATCH_EVERY * 3));
  }
  setTimeout(tick, body.dataset.live === "1" ? LIVE_EVERY : WATCH_EVERY);
})();
