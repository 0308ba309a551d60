// The pages' one script: sortable tables, and (served by `arena serve` only) pages that follow a tournament
// being played. Nothing is fetched from anywhere but the page's own address.
(function () {
  "use strict";

  function cellValue(row, index, numeric) {
    const cell = row.children[index];
    if (!cell) return numeric ? -Infinity : "";
    const raw = cell.dataset.v !== undefined ? cell.dataset.v : cell.textContent.trim();
    if (!numeric) return raw.toLowerCase();
    const value = parseFloat(raw);
    return Number.isNaN(value) ? -Infinity : value;
  }

  function sortBy(th) {
    const table = th.closest("table");
    const body = table.tBodies[0];
    const index = Array.prototype.indexOf.call(th.parentNode.children, th);
    const numeric = th.dataset.sort === "num";
    const ascending = !th.classList.contains("sorted-asc");
    table.querySelectorAll("th").forEach((h) => h.classList.remove("sorted-asc", "sorted-desc"));
    th.classList.add(ascending ? "sorted-asc" : "sorted-desc");
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = cellValue(a, index, numeric);
      const y = cellValue(b, index, numeric);
      return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
    });
    rows.forEach((row) => body.appendChild(row));
  }

  function makeSortable(root) {
    root.querySelectorAll("table.sortable th[data-sort]").forEach((th) => {
      th.tabIndex = 0;
      th.addEventListener("click", () => sortBy(th));
      th.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sortBy(th); }
      });
    });
  }

  makeSortable(document);

  // Live: reload the page's live regions from the page itself every few seconds while the tournament is played.
  if (document.body.dataset.live === "1" && location.protocol.startsWith("http")) {
    const every = 2000;
    const refresh = () => {
      fetch(location.href, { headers: { Accept: "text/html" }, cache: "no-store" })
        .then((response) => (response.ok ? response.text() : Promise.reject(response.status)))
        .then((text) => {
          const fresh = new DOMParser().parseFromString(text, "text/html");
          document.querySelectorAll("[data-live-region]").forEach((region) => {
            const next = region.id && fresh.getElementById(region.id);
            if (next) { region.replaceWith(next); makeSortable(next); }
          });
          if (fresh.body.dataset.live === "1") setTimeout(refresh, every);
          else delete document.body.dataset.live;
        })
        .catch(() => setTimeout(refresh, every * 3));
    };
    setTimeout(refresh, every);
  }
})();
