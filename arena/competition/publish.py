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
from arena.competition.standings import PlayedSet, Standing
from arena.outcome import PlayerKey
from arena.results.store import Store
from arena.results.totals import pair_counts

__all__ = ["RESULT_FILES", "competition_leaderboard", "results_data", "to_markdown", "write_results"]

#: The files ``write_results`` writes into the results folder.
RESULT_FILES = ("leaderboard.md", "leaderboard.json")


def competition_leaderboard(store: Store, tournament_id: str, names: Sequence[str]) -> Leaderboard:
    """The leaderboard of ``tournament_id`` (each player's latest version) with the rows of the entrants
    ``names`` only, re-ranked, their paired comparisons made against the first of them."""
    leaderboard = build_leaderboard(store, tournament_id)
    info = {p.key: p for p in store.players(tournament_id)}
    wanted = set(names)
    rows = [r for r in leaderboard.rows if (info[r.player].base if r.player in info else r.player) in wanted]
    if len(rows) == len(leaderboard.rows):
        return leaderboard
    label_rows(rows, info)
    for rank, row in enumerate(rows, 1):
        row.rank = rank
        row.paired_games = row.only_leader = row.only_player = None
        row.diff = row.diff_low = row.diff_high = row.p_value = None
        if rank == 1:
            continue
        counts = pair_counts(store, tournament_id, row.player, rows[0].player, leaderboard.config.boards)
        if counts.games:
            cmp = compare_paired_counts(counts.games, counts.both, counts.only_a, counts.only_b)
            row.paired_games, row.only_player, row.only_leader = cmp.games, cmp.only_a, cmp.only_b
            row.diff, row.diff_low, row.diff_high, row.p_value = cmp.diff, cmp.diff_low, cmp.diff_high, cmp.p_value
    return leaderboard.model_copy(update={"rows": rows})


def results_data(
    loaded: Loaded,
    prepared: Sequence[Prepared],
    leaderboard: Leaderboard | None,
    played: Sequence[PlayedSet] = (),
    table: Sequence[Standing] = (),
) -> dict[str, Any]:
    """The competition, its entrants (each with its status and, when it played, its row), its leaderboard (the
    one set's; None for several), and every set's leaderboard with the points table (``sets``, ``points``)."""
    c = loaded.competition
    rows = {}
    for row in leaderboard.rows if leaderboard else []:
        rows[PlayerKey(row.player).base] = row
    ranks = {s.entrant: s.rank for s in table}
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
                "rank": row.rank if row else ranks.get(item.name),
                "build": _build_data(item),
            }
        )
    return {
        "competition": {
            "name": c.name,
            "file": str(loaded.file),
            "boards": c.boards.model_dump(mode="json") if c.boards is not None else None,
            "sets": [s.model_dump(mode="json") for s in c.board_sets],
            "limits": c.limits.model_dump(mode="json"),
            "sandbox": c.sandbox.value,
        },
        "entrants": entrants,
        "leaderboard": leaderboard.model_dump(mode="json") if leaderboard else None,
        "sets": [
            {
                "name": item.board_set.name,
                "points": item.board_set.points,
                "tournament_id": item.tournament_id,
                "leaderboard": item.leaderboard.model_dump(mode="json"),
            }
            for item in played
        ],
        "points": [s.model_dump(mode="json") for s in table],
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


def _points_lines(data: dict[str, Any]) -> list[str]:
    """The points table: every entrant's points with their interval, each set's win rate, and the comparison with
    the leader on points."""
    sets = data["competition"]["sets"]
    lines = [
        "## Points",
        "",
        "Each win is worth its set's points: "
        + ", ".join(f"{_md(s['name'])} {_points(s['points'])}" for s in sets)
        + ". `95% CI`: of the points expected on these boards, each set's Wilson interval combined (MOVER; the sets"
        " are independent). `vs leader`: points minus the leader's on the boards both played, with its 95% interval"
        " and the exact p of a McNemar test weighted by points (docs/statistics.md).",
        "",
        "| # | entrant | owner | points | 95% CI | "
        + " | ".join(f"{_md(s['name'])} win rate [95% CI]" for s in sets)
        + " | vs leader | p |",
        "|---|---|---|---|---|" + "---|" * len(sets) + "---|---|",
    ]
    for r in data["points"]:
        cells = []
        for s in sets:
            cell = r["sets"].get(s["name"])
            cells.append(
                "-"
                if cell is None
                else f"{cell['wins']}/{cell['games']} {_pct(cell['win_rate'])} "
                f"[{_pct(cell['ci_low'])} – {_pct(cell['ci_high'])}]"
            )
        vs = "leader" if r["diff"] is None else f"{r['diff']:+g} [{r['diff_low']:+.1f}, {r['diff_high']:+.1f}]"
        p = "" if r["p_value"] is None else f"{r['p_value']:.3g}"
        lines.append(
            f"| {r['rank']} | {_md(r['entrant'])} | {_md(r['owner'])} | {_points(r['points'])} | "
            f"{r['points_low']:.1f} – {r['points_high']:.1f} | " + " | ".join(cells) + f" | {vs} | {p} |"
        )
    return [*lines, ""]


def _points(value: float) -> str:
    return f"{value:g}"


def to_markdown(data: dict[str, Any]) -> str:
    """The results as a markdown page: the points table when there are several sets, each set's leaderboard,
    then every entrant with its owner and status."""
    c = data["competition"]
    lines = [f"# {_md(c['name'])}", ""]
    several = len(data.get("sets") or []) > 1
    if several and data.get("points"):
        lines += _points_lines(data)
    leaderboards = [(s["name"], s["leaderboard"]) for s in data["sets"]] if several else [("", data["leaderboard"])]
    for title, leaderboard in leaderboards:
        if leaderboard is None:
            continue
        if title:
            lines += [f"## {_md(title)}", ""]
        lines += _leaderboard_lines(data, leaderboard)
    lines += ["## Entrants", "", "| entrant | owner | entered as | status | build log |", "|---|---|---|---|---|"]
    for e in data["entrants"]:
        status = "played" if e["status"] == "played" else f"left out: {e['reason']}"
        built = e.get("build")
        # The log's path is the arena's (builds/NAME.log, NAME a player name): safe as a link.
        log = f"[{built['log']}]({built['log']})" if built else ""
        lines.append(f"| {_md(e['name'])} | {_md(e['owner'])} | {_md(e['given'])} | {_md(status)} | {log} |")
    return "\n".join(lines) + "\n"


def _leaderboard_lines(data: dict[str, Any], leaderboard: dict[str, Any]) -> list[str]:
    """One set's leaderboard as a markdown table, under the line that says what was played."""
    c = data["competition"]
    lines: list[str] = []
    if leaderboard is not None:
        t = leaderboard["config"]  # the tournament the set was
        lines += [
            f"{t['difficulty']} ({t['height']}x{t['width']}, {t['mines']} mines) · first click `{t['rule']}` · "
            f"seed {t['seed']} · {t['boards']} boards · tournament `{t['tournament_id']}` · rules v"
            f"{t['rules_version']} · minesweeper-arena {t['project_version']} · time limits on the {t['clock']} clock"
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
        for r in leaderboard["rows"]:
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
    return lines


def write_results(folder: Path, data: dict[str, Any]) -> list[Path]:
    """``leaderboard.md`` and ``leaderboard.json`` in ``folder`` (made when missing); the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    md, js = (folder / name for name in RESULT_FILES)
    md.write_text(to_markdown(data), encoding="utf-8")
    js.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return [md, js]
