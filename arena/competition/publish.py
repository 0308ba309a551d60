"""A competition's results: its leaderboard (its entrants only) and the entrants who were left out, as data,
markdown and JSON, beside the kits' build logs (``builds/NAME.log``, written by ``prepare.build``).

The tournament id names the board set only, so a store may hold other players' games on the same boards (a
``--store`` shared with ``arena tournament`` runs): the competition's leaderboard keeps the rows of its own
entrants, ranked among themselves, each compared with the competition's leader. Everything a bot or an entrant's
owner wrote (a version, an owner, a reason quoting a bot's output) is escaped in the markdown: text, never
markup.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.analysis.leaderboard import Leaderboard, build_leaderboard, label_rows
from arena.analysis.stats import compare_paired_counts
from arena.competition.prepare import BUILD_LOGS, Prepared
from arena.competition.spec import Loaded
from arena.outcome import PlayerKey
from arena.results.store import Store
from arena.results.totals import pair_counts

__all__ = ["RESULT_FILES", "competition_leaderboard", "results_data", "to_markdown", "write_results"]

#: The files ``write_results`` writes into the results folder.
RESULT_FILES = ("leaderboard.md", "leaderboard.json")


def competition_leaderboard(store: Store, tournament_id: str, names: Sequence[str]) -> Leaderboard:
    """The leaderboard of ``tournament_id`` (each player's latest version) with the rows of the entrants
    ``names`` only, re-ranked, their paired comparisons made against the first of them."""
    board = build_leaderboard(store, tournament_id)
    info = {p.key: p for p in store.players(tournament_id)}
    wanted = set(names)
    rows = [r for r in board.rows if (info[r.player].base if r.player in info else r.player) in wanted]
    if len(rows) == len(board.rows):
        return board
    label_rows(rows, info)
    for rank, row in enumerate(rows, 1):
        row.rank = rank
        row.paired_games = row.only_leader = row.only_player = None
        row.diff = row.diff_low = row.diff_high = row.p_value = None
        if rank == 1:
            continue
        counts = pair_counts(store, tournament_id, row.player, rows[0].player, board.config.boards)
        if counts.games:
            cmp = compare_paired_counts(counts.games, counts.both, counts.only_a, counts.only_b)
            row.paired_games, row.only_player, row.only_leader = cmp.games, cmp.only_a, cmp.only_b
            row.diff, row.diff_low, row.diff_high, row.p_value = cmp.diff, cmp.diff_low, cmp.diff_high, cmp.p_value
    return board.model_copy(update={"rows": rows})


def results_data(loaded: Loaded, prepared: Sequence[Prepared], board: Leaderboard | None) -> dict[str, Any]:
    """The competition, its entrants (each with its status and, when it played, its row) and its leaderboard."""
    c = loaded.competition
    rows = {}
    for row in board.rows if board else []:
        rows[PlayerKey(row.player).base] = row
    entrants = []
    for item in prepared:
        row = rows.get(item.name)
        entrants.append(
            {
                "name": item.name,
                "owner": item.entrant.owner,
                "form": item.entrant.form,
                "given": item.entrant.given,
                "status": "played" if item.playing else "left out",
                "reason": item.reason,
                "player": row.player if row else None,
                "version": row.version if row else None,
                "rank": row.rank if row else None,
                "build": _build_data(item),
            }
        )
    return {
        "competition": {
            "name": c.name,
            "file": str(loaded.file),
            "boards": c.boards.model_dump(mode="json"),
            "limits": c.limits.model_dump(mode="json"),
            "sandbox": c.sandbox.value,
        },
        "entrants": entrants,
        "leaderboard": board.model_dump(mode="json") if board else None,
    }


def _build_data(item: Prepared) -> dict[str, Any] | None:
    """A kit's build: how it went, its first error, and its log's path in the results folder."""
    result = item.built
    if result is None or item.build_log is None:
        return None
    error = result.first_error
    return {
        "ok": result.ok,
        "reason": result.reason,
        "first_error": None if error is None else {"file": error.file, "line": error.line, "message": error.message},
        "seconds": round(result.seconds, 3),
        "sandboxed": result.sandboxed,
        "log": f"{BUILD_LOGS}/{item.build_log.name}",
    }


def _md(text: object) -> str:
    """``text`` as literal text in markdown (and in the HTML a renderer makes of it)."""
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = re.sub(r"([\\`*_{}\[\]|~])", r"\\\1", escaped)
    return " ".join(escaped.split())


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}%"


def to_markdown(data: dict[str, Any]) -> str:
    """The results as a markdown page: the leaderboard, then every entrant with its owner and status."""
    c, board = data["competition"], data["leaderboard"]
    lines = [f"# {_md(c['name'])}", ""]
    if board is not None:
        b = board["config"]
        lines += [
            f"{b['difficulty']} ({b['height']}x{b['width']}, {b['mines']} mines) · first click `{b['rule']}` · "
            f"seed {b['seed']} · {b['boards']} boards · tournament `{b['tournament_id']}` · rules v"
            f"{b['rules_version']} · minesweeper-arena {b['project_version']} · time limits on the {b['clock']} clock"
            f" ({c['limits']['move_time']:g} s a move, {c['limits']['game_time']:g} s a game) · sandbox "
            f"{c['sandbox']}",
            "",
            "Win rate with its 95% Wilson interval. `vs leader`: difference in win rate on the boards both played,"
            " with its 95% interval and the exact McNemar p-value on the boards only one of the two won.",
            "",
            "| # | entrant | owner | version | games | wins | win rate | 95% CI | vs leader | p | failed |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        owners = {e["player"]: e["owner"] for e in data["entrants"] if e["player"]}
        for r in board["rows"]:
            vs = (
                "leader"
                if r["diff"] is None
                else (f"{100 * r['diff']:+.2f} [{100 * r['diff_low']:+.2f}, {100 * r['diff_high']:+.2f}]")
            )
            p = "" if r["p_value"] is None else f"{r['p_value']:.3g}"
            lines.append(
                f"| {r['rank']} | {_md(r['label'] or r['player'])} | {_md(owners.get(r['player'], ''))} | "
                f"{_md(r['version'])} | {r['games']} | {r['wins']} | {_pct(r['win_rate'])} | "
                f"{_pct(r['ci_low'])} – {_pct(r['ci_high'])} | {vs} | {p} | {r['failed']} |"
            )
        lines.append("")
    lines += ["## Entrants", "", "| entrant | owner | entered as | status | build log |", "|---|---|---|---|---|"]
    for e in data["entrants"]:
        status = "played" if e["status"] == "played" else f"left out: {e['reason']}"
        built = e.get("build")
        # The log's path is the arena's (builds/NAME.log, NAME a player name): safe as a link.
        log = f"[{built['log']}]({built['log']})" if built else ""
        lines.append(f"| {_md(e['name'])} | {_md(e['owner'])} | {_md(e['given'])} | {_md(status)} | {log} |")
    return "\n".join(lines) + "\n"


def write_results(folder: Path, data: dict[str, Any]) -> list[Path]:
    """``leaderboard.md`` and ``leaderboard.json`` in ``folder`` (made when missing); the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    md, js = (folder / name for name in RESULT_FILES)
    md.write_text(to_markdown(data), encoding="utf-8")
    js.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return [md, js]
