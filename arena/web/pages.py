"""Each kind of page as a value: its template, what the template shows, and its data as JSON.

The served app and the static site both build their pages here and render them with the same templates
(``arena.web.render``); only the ``Links`` differ. The JSON of a page has the shape of the CLI's ``--json``
where the CLI shows the same data: the leaderboard is ``arena leaderboard --json``, a player's losses
``arena losses --json``, its failures an entry of ``arena errors --json``, a comparison ``arena diff --json``,
the tournaments ``arena leaderboard --list --json`` with a few fields more.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from arena.analysis.leaderboard import Leaderboard
from arena.analysis.replay import ReplayError, replay, replay_payload
from arena.outcome import Outcome
from arena.results.store import Store
from arena.web import data, games_data
from arena.web.links import Links

__all__ = [
    "Page",
    "diff_page",
    "game_page",
    "home_page",
    "leaderboard_page",
    "viewer_page",
]

#: A player whose paired test against the leader gives p at or above this is marked tied with the leader.
TIE_P = 0.05
#: A tournament's files, served and in a site: the leaderboard (CSV, and ``arena leaderboard --json``) and every
#: game as ``arena export --format csv`` writes it.
DOWNLOADS = ("leaderboard.csv", "leaderboard.json", "games.csv")


@dataclass
class Page:
    """A page to render: ``template`` with ``context``, and ``data`` for ``?format=json``."""

    template: str
    title: str
    context: dict[str, Any]
    data: Any
    live: bool = False
    crumbs: list[tuple[str, str | None]] = field(default_factory=list)
    #: Served pages only: the address that says whether what the page shows has changed, and its answer now.
    watch: str | None = None
    sig: str = ""


def _crumbs(links: Links, tid: str | None = None, label: str = "", *more: tuple[str, str | None]) -> list[Any]:
    out: list[tuple[str, str | None]] = [("tournaments", links.home())]
    if tid is not None:
        out.append((label or tid, links.leaderboard(tid)))
    out.extend(more)
    return out


def size_label(meta: dict[str, Any]) -> str:
    """A tournament's kind of board: ``expert (16x30, 99 mines)``."""
    return f"{meta['difficulty']} ({meta['height']}x{meta['width']}, {meta['mines']} mines)"


def tournament_label(meta: dict[str, Any]) -> str:
    """What a tournament is called on its pages: its competition's name, else its kind of board."""
    return str(meta.get("name") or "") or size_label(meta)


def _options(row: dict[str, Any]) -> dict[str, Any]:
    value = row.get("options") or {}
    return dict(value) if isinstance(value, dict) else {}


def _purpose(row: dict[str, Any]) -> str:
    """What a tournament is for when it is not the ordinary one of its boards (``match A vs B``), from the config
    of its latest run; "" for the ordinary one."""
    try:
        config = json.loads(row.get("config") or "{}")
    except ValueError:
        return ""
    return str(config.get("purpose") or "") if isinstance(config, dict) else ""


def home_page(db: Store, links: Links, only: Collection[str] | None = None) -> Page:
    """Every stored tournament (or those in ``only``), the one being played marked live."""
    infos = [info for info in data.tournaments(db) if only is None or info.id in only]
    rows = []
    for info in infos:
        r = info.row
        rows.append(
            {
                "id": info.id,
                "href": links.leaderboard(info.id),
                "label": tournament_label(r),
                "named": bool(r.get("name")),
                "size": size_label(r),
                "rule": r["rule"],
                "seed": r["seed"],
                "boards": r["games"],
                "players": info.players,
                "stored": r["rows_stored"],
                "expected": info.expected,
                "last": (info.last or r["updated"] or "").replace("T", " ")[:19],
                "live": info.live,
                "incomplete": info.incomplete,
                "purpose": _purpose(r),
                "match_href": links.match(info.id) if len(info.players) == 2 else None,
            }
        )
    # Latest activity first: the order of the column the reader sees (the store's own order is by runs).
    rows.sort(key=lambda row: row["last"], reverse=True)
    has_sweeps = bool(_sweeps(db, only)) if infos else False
    # A static site names the store's file, not where it was on the machine that wrote the site.
    store = str(db.path) if links.live else db.path.name
    context = {"rows": rows, "store": store, "has_sweeps": has_sweeps}
    live = links.live and any(info.live for info in infos)
    return Page("tournaments.html", "Tournaments", context, [i.as_json() for i in infos], live, [])


def tied_with_leader(leaderboard: Leaderboard) -> set[str]:
    """The players the paired test cannot tell from the leader (p at or above ``TIE_P``), the leader included."""
    if not leaderboard.rows:
        return set()
    tied = {leaderboard.rows[0].player}
    for row in leaderboard.rows[1:]:
        if row.p_value is not None and row.p_value >= TIE_P:
            tied.add(row.player)
    return tied


def tournament_facts(meta: dict[str, Any]) -> dict[str, Any]:
    """What a tournament was: its limits, whether bots ran in the sandbox, its isolation, from the config of its
    latest run as the store keeps it."""
    try:
        config = json.loads(meta.get("config") or "{}")
    except ValueError:
        config = {}
    limits = config.get("limits") or {}
    return {
        "move_time": limits.get("move_time"),
        "game_time": limits.get("game_time"),
        "memory_mb": limits.get("memory_mb"),
        "clock": limits.get("clock"),
        "sandbox": config.get("sandbox"),
        "isolation": config.get("isolation"),
        "move_limit": config.get("move_limit"),
        "created": (meta.get("created") or "").replace("T", " ")[:19],
    }


def _interval_scale(rows: list[Any]) -> tuple[float, float]:
    """The win-rate axis of the leaderboard's interval bars: the intervals' span, widened to round tens."""
    if not rows:
        return 0.0, 1.0
    low = min(r.ci_low for r in rows)
    high = max(r.ci_high for r in rows)
    low = math.floor(low * 10) / 10
    high = math.ceil(high * 10) / 10
    if high - low < 0.1:
        high = min(1.0, low + 0.1)
        low = high - 0.1
    return low, high


def leaderboard_page(db: Store, tid: str, links: Links, *, all_versions: bool = False) -> Page:
    """``arena leaderboard``'s every figure, its intervals drawn, each player linked; ``all_versions``: a row for
    every version of each player, as ``--all-versions``."""
    meta = data.tournament(db, tid)
    leaderboard = data.leaderboard(db, tid, all_versions=all_versions)
    status = data.live_status(db, tid)
    by_key = {row["player"]: (slug, row) for slug, row in data.players(db, tid).items()}
    low, high = _interval_scale(leaderboard.rows)
    ties = tied_with_leader(leaderboard)
    leader_slug = by_key[leaderboard.rows[0].player][0] if leaderboard.rows else None
    rows = []
    for r in leaderboard.rows:
        slug, info = by_key.get(r.player, (data.player_slug(r.player), {}))

        def x(v: float) -> float:
            return round(100 * (v - low) / (high - low), 3)

        rows.append(
            {
                "r": r,
                "slug": slug,
                "href": links.player(tid, slug),
                "name": info.get("name", r.player),
                "owner": info.get("owner", ""),
                "options": _options(info),
                "bar": {"x1": x(r.ci_low), "x2": x(r.ci_high), "x": x(r.win_rate)},
                "tied": r.player in ties and r.rank != 1,
                "history": links.history(data.player_slug(info.get("name", r.player)))
                if r.version or info.get("source")
                else None,
                "diff_href": links.diff(tid, leader_slug, slug) if leader_slug and slug != leader_slug else None,
                "failed_href": (links.games(tid, slug, "failed", 1) or links.player(tid, slug) + "#failures")
                if r.failed
                else None,
            }
        )
    ticks = [round(low + i * (high - low) / 4, 4) for i in range(5)]
    context = {
        "leaderboard": leaderboard,
        "meta": meta,
        "name": meta.get("name") or "",
        "rows": rows,
        "scale": {"low": low, "high": high, "ticks": [(round(100 * (t - low) / (high - low), 3), t) for t in ticks]},
        "status": status,
        "json_href": None if all_versions else links.json("leaderboard", tid),
        "all_versions": all_versions,
        "facts": tournament_facts(meta),
        "generated": getattr(links, "generated", None),
        "pairs_href": links.pairs(tid),
        "convergence_href": links.convergence(tid),
        "match_href": links.match(tid) if len(leaderboard.rows) == 2 else None,
        "downloads": [
            (name, links.download(tid, name)) for name in ("leaderboard.csv", "leaderboard.json", "games.csv")
        ],
        "jump": links.board_pattern(tid),
        "versions_href": links.versions(tid),
        "latest_href": links.leaderboard(tid),
    }
    crumbs = _crumbs(links, tid, tournament_label(meta))
    title = f"{meta['name']} · {leaderboard.title}" if meta.get("name") else leaderboard.title
    return Page("leaderboard.html", title, context, leaderboard.model_dump(), links.live and status.live, crumbs)


def _lost_neighbours(db: Store, tid: str, key: str, slug: str, board: int, links: Links) -> dict[str, Any]:
    """The player's lost games just before and after ``board``, as ``[board, address]`` (opened at their end)."""
    lost = [g.board for g in games_data.player_games(db, tid, key) if g.outcome is Outcome.LOST]
    before = [b for b in lost if b < board]
    after = [b for b in lost if b > board]
    nav: dict[str, Any] = {}
    for name, found in (("prev", before[-1] if before else None), ("next", after[0] if after else None)):
        href = links.game(tid, found, slug) if found is not None else None
        if href is not None:
            nav[name] = [found, href + ("&" if "?" in href else "?") + "move=end"]
    return nav


def game_page(db: Store, tid: str, board: int, slugs: list[str], links: Links, *, probabilities: bool = True) -> Page:
    """The replay viewer of ``arena replay``: one game, or two players' games of one board side by side."""
    meta = data.tournament(db, tid)
    if not 0 <= board < int(meta["games"]):
        raise data.NotFound(f"tournament {tid} has boards 0 to {int(meta['games']) - 1}; there is no board {board}")
    keys = [data.find_player(db, tid, slug)["player"] for slug in slugs]
    games = [games_data.replay_game(db, tid, key, board) for key in keys]
    try:
        replays = [replay(game, probabilities=False) for game in games]  # checked here; the page computes the odds
    except ReplayError as error:
        raise data.Unavailable(str(error)) from None
    spec = games[0].spec
    title = f"{' vs '.join(keys)} · {spec.label} board {board} of seed {meta['seed']}"
    payload = replay_payload(replays, title, probabilities=probabilities)
    if len(slugs) == 1:
        payload["nav"] = _lost_neighbours(db, tid, keys[0], slugs[0], board, links)
    more: list[tuple[str, str | None]] = []
    if len(slugs) == 1:
        more = [(keys[0], links.player(tid, slugs[0])), (f"board {board}", links.board(tid, board))]
    else:
        pair = (f"{keys[0]} vs {keys[1]}", links.diff(tid, slugs[0], slugs[1]))
        more = [pair, (f"board {board}", links.board(tid, board))]
    crumbs = _crumbs(links, tid, tournament_label(meta), *more)
    return Page("game.html", title, {"payload": payload}, payload, False, crumbs)


def viewer_page(db: Store, tid: str, source: dict[str, Any], links: Links) -> Page:
    """A static site's one game page of a tournament: the replay viewer of ``game_page``, which shows the game
    its address names from the site's data files (``arena.web.site_data``)."""
    meta = data.tournament(db, tid)
    crumbs = [("tournaments", links.home()), (tournament_label(meta), links.leaderboard(tid))]
    context = {"payload": None, "source": source}
    return Page("game.html", f"Replays · {tournament_label(meta)}", context, None, False, crumbs)


def diff_page(db: Store, tid: str, a: str, b: str, links: Links, *, boards: bool = True) -> Page:
    """``arena diff``: the boards only one of two players won, each with its side-by-side replay; without
    ``boards``, their counts alone (a small static site)."""
    meta = data.tournament(db, tid)
    if a == b:
        raise data.BadRequest(f"compare two different players, got {a!r} twice")
    key_a = data.find_player(db, tid, a)["player"]
    key_b = data.find_player(db, tid, b)["player"]
    split = games_data.split_figures(db, tid, key_a, key_b)
    listed = boards
    boards_won = sorted([(x, key_a) for x in split["only_a"]] + [(x, key_b) for x in split["only_b"]])
    diverged = games_data.diverged(db, tid, key_a, key_b, [x for x, _ in boards_won]) if listed else {}
    first, second = sorted((a, b))  # one side-by-side page per board and pair, whichever way it is asked
    rows = [
        {"board": x, "winner": w, "diverged": diverged[x], "href": links.pair(tid, x, first, second)}
        for x, w in (boards_won if listed else [])
    ]
    context = {
        "a": key_a,
        "b": key_b,
        "href_a": links.player(tid, a),
        "href_b": links.player(tid, b),
        "split": split,
        "rows": rows,
        "listed": listed,
        "command": f"arena diff {tid} {key_a} {key_b}",
    }
    payload = {"tournament": tid, "a": key_a, "b": key_b, **split, "diverged_at": diverged}
    crumbs = _crumbs(links, tid, tournament_label(meta), (f"{key_a} vs {key_b}", None))
    return Page("diff.html", f"{key_a} vs {key_b}: the boards one of them won", context, payload, False, crumbs)


def _sweeps(db: Store, only: Collection[str] | None) -> list[data.SweepLine]:
    """The stored sweeps whose every tournament is in ``only`` (``None``: every sweep)."""
    lines = data.sweeps(db)
    return [line for line in lines if only is None or all(p.tournament in only for p in line.points)]
