"""The pages people follow most on competition sites, beside the leaderboard: a bot's versions (``arena history``
as a page), one board across every player, every pair of players compared, and the downloads.

Built as ``arena.web.pages`` builds its pages (a ``Page``: template, context, the JSON of ``?format=json``), and
rendered by the same templates machinery; the JSON of each has the shape of the CLI's ``--json`` where the CLI
shows the same data (``arena history --json``).
"""

from __future__ import annotations

import csv
import io
import itertools
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from arena.analysis.history import UnknownPlayer, history_json, player_history
from arena.analysis.stats import compare_paired_counts
from arena.results.export import write_export
from arena.results.store import Store
from arena.web import board_data, data, games_data
from arena.web.links import Links
from arena.web.pages import TIE_P, Page, _crumbs, tied_with_leader, tournament_facts, tournament_label

__all__ = [
    "TIE_P",
    "board_page",
    "board_viewer_page",
    "games_csv",
    "leaderboard_csv",
    "pairs_page",
    "tied_with_leader",
    "tournament_facts",
    "versions_page",
]


def versions_page(db: Store, name: str, links: Links, only: Collection[str] | None = None) -> Page:
    """``arena history NAME``: a player's win rate per version on each kind of board, each version against the
    one before it on the boards both played."""
    try:
        histories = player_history(db, name)
    except UnknownPlayer as error:
        raise data.NotFound(str(error)) from None
    boards = []
    for history in histories:
        rows = []
        for row in history.versions:
            rows.append({"row": row, "cmp": row.vs_previous})
        boards.append(
            {
                "title": history.title,
                "tournaments": [
                    (tid, links.leaderboard(tid) if only is None or tid in only else None)
                    for tid in history.tournaments
                ],
                "rows": rows,
            }
        )
    payload = {"player": name, "boards": [history_json(h) for h in histories]}
    crumbs = _crumbs(links, None, "", (f"{name}: versions", None))
    return Page("versions.html", f"{name}: every version", {"name": name, "boards": boards}, payload, False, crumbs)


def _layout_rows(layout: Any) -> list[str]:
    return ["".join("*" if cell else "." for cell in row) for row in layout.tolist()]


def board_page(db: Store, tid: str, board: int, links: Links) -> Page:
    """Board ``board`` of a tournament: every player's game on it, each linked to its replay, and the board's mine
    layout (one per first click, since the layout is drawn after it: ``engine.layout``)."""
    meta = data.tournament(db, tid)
    if not 0 <= board < int(meta["games"]):
        raise data.NotFound(f"tournament {tid} has boards 0 to {int(meta['games']) - 1}; there is no board {board}")
    slugs = {row["player"]: slug for slug, row in data.players(db, tid).items()}
    found = board_data.board_games(db, tid, board, slugs)
    rows = []
    for key, game in found.games.items():
        rows.append(
            {
                "player": key,
                "slug": slugs[key],
                "outcome": game.outcome.value,
                "moves": game.moves,
                "guesses": game.guesses,
                "bbbv": f"{game.bbbv_solved} / {game.bbbv}",
                "ms": game.cpu_ms,
                "error": game.error,
                "first": f"{game.first_row},{game.first_col}" if game.first_row is not None else "-",
                "href": links.game(tid, board, slugs[key]),
            }
        )
    rows.sort(key=lambda r: (r["outcome"] != "won", r["player"]))
    layouts = [
        {"rows": _layout_rows(layout), "players": sorted(k for k, at in found.layout_of.items() if at == i)}
        for i, layout in enumerate(found.layouts)
    ]
    context = {
        "meta": meta,
        "tid": tid,
        "board": board,
        "rows": rows,
        "layouts": layouts,
        "prev": links.board(tid, board - 1) if board > 0 else None,
        "next": links.board(tid, board + 1) if board + 1 < int(meta["games"]) else None,
        "boards": int(meta["games"]),
        "source": None,
    }
    payload = {
        "tournament": tid,
        "board": board,
        "games": [{k: v for k, v in r.items() if k not in ("href", "slug")} for r in rows],
        "layouts": layouts,
    }
    crumbs = _crumbs(links, tid, tournament_label(meta), (f"board {board}", None))
    return Page("board.html", f"Board {board} · {tournament_label(meta)}", context, payload, False, crumbs)


def board_viewer_page(db: Store, tid: str, links: Links) -> Page:
    """A static site's one board page of a tournament: ``board_page`` drawn in the browser from the site's board
    data files (``arena.web.board_data``) for the board its address names (``board.html?board=17``)."""
    meta = data.tournament(db, tid)
    source = {**board_data.board_source(db, tid), "players": {s: r["player"] for s, r in data.players(db, tid).items()}}
    context = {"meta": meta, "tid": tid, "board": None, "rows": [], "layouts": [], "prev": None, "next": None,
               "boards": int(meta["games"]), "source": source}  # fmt: skip
    crumbs = _crumbs(links, tid, tournament_label(meta), ("a board", None))
    return Page("board.html", f"Boards · {tournament_label(meta)}", context, None, False, crumbs)


def pairs_page(db: Store, tid: str, links: Links) -> Page:
    """Every pair of players (each at its latest version, as the leaderboard ranks them): the difference in win
    rate on the boards both played with its 95% interval and the exact McNemar p, and which players are
    statistically tied with the leader (p at or above ``TIE_P`` against it)."""
    meta = data.tournament(db, tid)
    leaderboard = data.leaderboard(db, tid)
    slugs = {row["player"]: slug for slug, row in data.players(db, tid).items()}
    order = [r.player for r in leaderboard.rows]
    ties = tied_with_leader(leaderboard)
    pairs = []
    for a, b in itertools.combinations(order, 2):
        split = games_data.split_figures(db, tid, a, b)
        only_a, only_b = len(split["only_a"]), len(split["only_b"])
        games = only_a + only_b + int(split["both"]) + int(split["neither"])
        if not games:
            continue
        cmp = compare_paired_counts(games, int(split["both"]), only_a, only_b)
        pairs.append(
            {
                "a": a,
                "b": b,
                "games": games,
                "only_a": only_a,
                "only_b": only_b,
                "diff": cmp.diff,
                "diff_low": cmp.diff_low,
                "diff_high": cmp.diff_high,
                "p_value": cmp.p_value,
                "significant": cmp.p_value < TIE_P,
                "href": links.diff(tid, slugs[a], slugs[b]),
            }
        )
    context = {"meta": meta, "pairs": pairs, "ties": ties, "leader": order[0] if order else None, "tie_p": TIE_P}
    payload = {"tournament": tid, "tied_with_leader": sorted(ties), "pairs": [_no_href(p) for p in pairs]}
    crumbs = _crumbs(links, tid, tournament_label(meta), ("every pair", None))
    return Page("pairs.html", f"Every pair · {tournament_label(meta)}", context, payload, False, crumbs)


def _no_href(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "href"}


#: The leaderboard's CSV columns: ``arena leaderboard --json``'s row fields, in its order.
LEADERBOARD_COLUMNS = (
    "rank", "player", "version", "source", "games", "wins", "win_rate", "ci_low", "ci_high", "diff", "diff_low",
    "diff_high", "p_value", "paired_games", "guesses_per_game", "ms_per_game", "moves_per_win",
    "bbbv_solved_fraction", "bbbv_per_second", "first_click", "failed",
)  # fmt: skip


def leaderboard_csv(db: Store, tid: str, *, public: bool = False) -> str:
    """The leaderboard as CSV, a row per player (``public``: each source by its file's name, for a site)."""
    from arena.web.public import shown_source

    leaderboard = data.leaderboard(db, tid)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(LEADERBOARD_COLUMNS), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in leaderboard.rows:
        values = row.model_dump()
        if public:
            values["source"] = shown_source(values.get("source") or "")
        writer.writerow({k: "" if values.get(k) is None else values.get(k) for k in LEADERBOARD_COLUMNS})
    return out.getvalue()


def games_csv(db: Store, tid: str) -> str:
    """Every game of the tournament as ``arena export --format csv`` writes it (the same function writes it)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.csv"
        write_export(db, tid, path, "csv")
        return path.read_text(encoding="utf-8")
