"""Leaderboards: per-player figures with honest intervals, and paired comparisons on equal boards.

Win rates get a 95% Wilson interval. Differences are measured against the leader on the boards
both played (the paired design): only boards exactly one of them won carry information, hence
the exact McNemar test on those discordant boards.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from arena.analysis.pairs import paired_wins, wins_by_board
from arena.analysis.stats import PairedComparison, compare_paired, compare_paired_counts, wilson_interval
from arena.outcome import FAILURES, GameResult, PlayerKey
from arena.results.entrants import latest_keys, version_tag
from arena.results.store import Store
from arena.results.stored import StoredPlayer, StoredTournament
from arena.results.totals import PlayerTotals, pair_counts, tournament_totals

__all__ = [
    "Leaderboard",
    "LeaderboardConfig",
    "LeaderboardRow",
    "PublishError",
    "build_leaderboard",
    "failure_counts",
    "label_rows",
    "publish",
    "tournament_config",
]


def failure_counts(games: Iterable[GameResult]) -> dict[str, int]:
    """How many of ``games`` ended in each failure outcome (every one named, zeros included)."""
    counts = dict.fromkeys((o.value for o in FAILURES), 0)
    for g in games:
        if g.outcome.value in counts:
            counts[g.outcome.value] += 1
    return counts


class LeaderboardConfig(BaseModel):
    tournament_id: str
    difficulty: str
    height: int
    width: int
    mines: int
    rule: str
    seed: int
    boards: int
    rules_version: str
    project_version: str
    #: What the isolated players' time limits counted in the latest run: ``wall`` or ``cpu`` (``--clock``).
    clock: str = "wall"


class LeaderboardRow(BaseModel):
    rank: int
    #: The games row: the player's key, ``KEY@VERSION`` for a version its tournament saw after another.
    player: str
    version: str
    #: How tables name the row: ``player``, or for a first version shown beside a later one, ``KEY@VERSION``.
    label: str = ""
    source: str
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    ms_per_game: float
    guesses_per_game: float
    moves_per_win: float | None
    bbbv_solved_fraction: float
    bbbv_per_second: float | None
    first_click: str
    #: Games not played to the end by the rules (error, illegal, crashed, timeout): the table's
    #: ``failed`` column; ``failed_by`` splits them by outcome (``arena errors`` says why).
    failed: int
    failed_by: dict[str, int]
    #: Paired comparison with the leader on the boards both finished (None on the leader's row).
    paired_games: int | None = None
    only_leader: int | None = None
    only_player: int | None = None
    diff: float | None = None
    diff_low: float | None = None
    diff_high: float | None = None
    p_value: float | None = None


class Leaderboard(BaseModel):
    config: LeaderboardConfig
    rows: list[LeaderboardRow]
    #: Rows of players' older versions left out (``all_versions`` shows them).
    hidden_versions: int = 0

    @property
    def title(self) -> str:
        c = self.config
        return (
            f"{c.difficulty} ({c.height}x{c.width}, {c.mines} mines) · first click {c.rule} · "
            f"seed {c.seed} · {c.boards} boards" + (f" · {c.clock} clock" if c.clock != "wall" else "")
        )


def _most_common_click(rows: list[GameResult]) -> str:
    counts: dict[tuple[Any, Any], int] = defaultdict(int)
    for r in rows:
        counts[(r.first_row, r.first_col)] += 1
    if not counts:
        return "-"
    (row, col), n = max(counts.items(), key=lambda kv: kv[1])
    if row is None:
        return "-"
    return f"{row},{col}" if n == len(rows) else f"{row},{col} (mostly)"


def tournament_config(
    store: Store, tournament_id: str | None = None, boards: int | None = None
) -> tuple[LeaderboardConfig, StoredTournament]:
    """What a stored tournament (default: the latest) plays over its first ``boards`` boards, and
    the tournament as stored."""
    tid = tournament_id or store.latest()
    stored = store.tournament(tid)
    # Never claim more boards than the tournament has: `-n 1000` on a 10-board run shows 10.
    limit = min(boards, stored.boards) if boards is not None else stored.boards
    config = LeaderboardConfig(
        tournament_id=tid,
        difficulty=stored.difficulty,
        height=stored.spec.height,
        width=stored.spec.width,
        mines=stored.spec.mines,
        rule=stored.rule.value,
        seed=stored.seed,
        boards=limit,
        rules_version=stored.rules_version,
        project_version=stored.project_version,
        clock=str(stored.config_data.get("limits", {}).get("clock", "wall")),
    )
    return config, stored


def label_rows(rows: list[LeaderboardRow], info: dict[str, StoredPlayer]) -> None:
    """Name a first version ``KEY@VERSION`` when a later version of it has a row too: two rows, two names."""
    bases = defaultdict(list)
    for row in rows:
        bases[info[row.player].base if row.player in info else row.player].append(row)
    for base, group in bases.items():
        for row in group:
            tagged = len(group) > 1 and row.player == base and row.version
            row.label = PlayerKey(base).tagged(version_tag(row.version)) if tagged else row.player


def build_leaderboard(
    store: Store,
    tournament_id: str | None = None,
    boards: int | None = None,
    *,
    reference: bool = False,
    all_versions: bool = False,
) -> Leaderboard:
    """The leaderboard of a stored tournament over its first ``boards`` boards (default: all): each player at its
    latest version (``arena.results.entrants``), or every version with ``all_versions``.

    It reads the store's running totals (``arena.results.totals``: about one row per 63 boards and player, and
    the games of the last partial block), so its cost grows with the number of boards / 63, not with the games.
    ``reference=True``, or a store without totals (one from an older version, opened read-only), reads every
    game into Python instead: the reference the tests hold the totals to (the same counts, intervals and p;
    means and rates equal but for the last bits of float sums, which SQLite adds in another order)."""
    config, _ = tournament_config(store, tournament_id, boards)
    tid, limit = config.tournament_id, config.boards
    entrants = store.players(tid)
    info = {p.key: p for p in entrants}
    totals = None if reference else tournament_totals(store, tid, limit)
    if totals is None:
        return _reference_leaderboard(store, config, info, all_versions)
    shown = set(totals) if all_versions else latest_keys(entrants, totals)
    rows = [_row_from_totals(t, info) for key, t in totals.items() if key in shown]
    rows.sort(key=lambda r: (-r.win_rate, -r.ci_low, r.player))
    label_rows(rows, info)
    for rank, row in enumerate(rows, 1):
        row.rank = rank
        if rank == 1:
            continue
        counts = pair_counts(store, tid, row.player, rows[0].player, limit)
        if counts.games:
            _set_paired(row, compare_paired_counts(counts.games, counts.both, counts.only_a, counts.only_b))
    return Leaderboard(config=config, rows=rows, hidden_versions=len(totals) - len(shown))


def _click_text(found: tuple[tuple[Any, Any], int] | None, games: int) -> str:
    """The first-click column: the most common click, "(mostly)" when not every game began there."""
    if found is None:
        return "-"
    (row, col), n = found
    if row is None:
        return "-"
    return f"{row},{col}" if n == games else f"{row},{col} (mostly)"


def _row_from_totals(t: PlayerTotals, info: dict[str, StoredPlayer]) -> LeaderboardRow:
    low, high = wilson_interval(t.wins, t.games)
    return LeaderboardRow(
        rank=0,
        player=t.player,
        version=info[t.player].version if t.player in info else "",
        source=info[t.player].source if t.player in info else "",
        games=t.games,
        wins=t.wins,
        win_rate=t.wins / t.games,
        ci_low=low,
        ci_high=high,
        ms_per_game=t.cpu_ms / t.games,
        guesses_per_game=t.guesses / t.games,
        moves_per_win=t.won_moves / t.wins if t.wins else None,
        bbbv_solved_fraction=t.fraction_sum / t.fraction_count if t.fraction_count else 0.0,
        bbbv_per_second=(t.won_bbbv / (t.won_cpu_ms / 1000.0)) if t.won_cpu_ms > 0 else None,
        first_click=_click_text(t.most_common_click(), t.games),
        failed=sum(t.failed_by.values()),
        failed_by=dict(t.failed_by),
    )


def _set_paired(row: LeaderboardRow, cmp: PairedComparison) -> None:
    row.paired_games = cmp.games
    row.only_player = cmp.only_a
    row.only_leader = cmp.only_b
    row.diff, row.diff_low, row.diff_high = cmp.diff, cmp.diff_low, cmp.diff_high
    row.p_value = cmp.p_value


def _reference_leaderboard(
    store: Store, config: LeaderboardConfig, info: dict[str, StoredPlayer], all_versions: bool = False
) -> Leaderboard:
    """The leaderboard from every game, aggregated in Python: the reference of ``build_leaderboard``."""
    tid, limit = config.tournament_id, config.boards
    by_player: dict[str, list[GameResult]] = defaultdict(list)
    for game in store.games(tid, limit):
        by_player[game.player].append(game)
    hidden = 0
    if not all_versions:
        shown = latest_keys(info.values(), by_player)
        hidden = len(by_player) - len(shown)
        by_player = defaultdict(list, {key: games for key, games in by_player.items() if key in shown})

    rows: list[LeaderboardRow] = []
    for player, games in by_player.items():
        n = len(games)
        wins = sum(g.won for g in games)
        low, high = wilson_interval(wins, n)
        cpu = float(np.mean([g.cpu_ms for g in games]))
        moves_won = [g.moves for g in games if g.won]
        fractions = [g.bbbv_solved / g.bbbv for g in games if g.bbbv]
        won_bbbv = sum(g.bbbv for g in games if g.won)
        won_ms = sum(g.cpu_ms for g in games if g.won)
        failures = failure_counts(games)
        rows.append(
            LeaderboardRow(
                rank=0,
                player=player,
                version=info[player].version if player in info else "",
                source=info[player].source if player in info else "",
                games=n,
                wins=wins,
                win_rate=wins / n,
                ci_low=low,
                ci_high=high,
                ms_per_game=cpu,
                guesses_per_game=float(np.mean([g.guesses for g in games])),
                moves_per_win=float(np.mean(moves_won)) if moves_won else None,
                bbbv_solved_fraction=float(np.mean(fractions)) if fractions else 0.0,
                bbbv_per_second=(won_bbbv / (won_ms / 1000.0)) if won_ms > 0 else None,
                first_click=_most_common_click(games),
                failed=sum(failures.values()),
                failed_by=failures,
            )
        )
    won_by_board = wins_by_board(g for games in by_player.values() for g in games)

    rows.sort(key=lambda r: (-r.win_rate, -r.ci_low, r.player))
    label_rows(rows, info)
    if rows:
        leader = won_by_board[rows[0].player]
        for rank, row in enumerate(rows, 1):
            row.rank = rank
            if rank == 1:
                continue
            boards_both, mine, theirs = paired_wins(won_by_board[row.player], leader)
            if not len(boards_both):
                continue
            _set_paired(row, compare_paired(mine, theirs))
    return Leaderboard(config=config, rows=rows, hidden_versions=hidden)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def to_markdown(leaderboard: Leaderboard) -> str:
    c = leaderboard.config
    lines = [
        f"# Leaderboard: {c.difficulty}, first click `{c.rule}`",
        "",
        f"{c.height}x{c.width} with {c.mines} mines · seed {c.seed} · {c.boards} boards"
        f" · tournament `{c.tournament_id}` · rules v{c.rules_version} · minesweeper-arena {c.project_version}"
        f" · time limits on the {c.clock} clock",
        "",
        "Win rate with its 95% Wilson interval. `vs leader`: difference in win rate on the boards both played,"
        " with its 95% interval and the exact McNemar p-value on the boards only one of the two won.",
        "",
        "| # | player | version | games | wins | win rate | 95% CI | vs leader | p | guesses/game | ms/game"
        " | first click |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in leaderboard.rows:
        vs = "leader" if r.diff is None else f"{100 * r.diff:+.2f} [{100 * r.diff_low:+.2f}, {100 * r.diff_high:+.2f}]"
        p = "" if r.p_value is None else f"{r.p_value:.3g}"
        lines.append(
            f"| {r.rank} | {r.player} | {r.version} | {r.games} | {r.wins} | {_pct(r.win_rate)} | "
            f"{_pct(r.ci_low)} – {_pct(r.ci_high)} | {vs} | {p} | {r.guesses_per_game:.2f} | "
            f"{r.ms_per_game:.3f} | {r.first_click} |"
        )
    return "\n".join(lines) + "\n"


class PublishError(Exception):
    """Publishing would replace results that this leaderboard does not cover."""


def _describe(config: dict[str, Any], players: int) -> str:
    tid, seed, boards = config.get("tournament_id"), config.get("seed"), config.get("boards")
    return f"tournament {tid} (seed {seed}, {boards} boards, {players} players)"


def _refuse_to_replace(leaderboard: Leaderboard, published: Path) -> None:
    """Raise ``PublishError`` unless ``leaderboard`` covers what ``published`` holds: the same tournament,
    at least as many boards, and every published player with at least as many games. The tournament
    id names the board set only (size, rule, seed), so a quick ``-n 100 -p random`` run of the seed
    behind a published leaderboard has the same id, and replacing would lose most of it."""
    fix = "pass --force to replace it, or --publish another folder"
    try:
        data = json.loads(published.read_text(encoding="utf-8"))
        old = data["config"]
        old_games = {row["player"]: int(row["games"]) for row in data["rows"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise PublishError(f"{published} exists but is not a published leaderboard ({error}); {fix}") from None
    new = leaderboard.config.model_dump()
    here = f"{published} holds {_describe(old, len(old_games))}"
    if old.get("tournament_id") != leaderboard.config.tournament_id:
        raise PublishError(f"{here}; this is {_describe(new, len(leaderboard.rows))}: {fix}")
    new_games = {row.player: row.games for row in leaderboard.rows}
    fewer = sorted(p for p, n in old_games.items() if new_games.get(p, 0) < n)
    if leaderboard.config.boards < int(old.get("boards", 0)):
        raise PublishError(f"{here}; this leaderboard has fewer boards ({leaderboard.config.boards}): {fix}")
    if fewer:
        names = ", ".join(fewer[:3]) + (", ..." if len(fewer) > 3 else "")
        raise PublishError(f"{here}; this leaderboard has fewer games of {names}: {fix}")


def publish(
    leaderboard: Leaderboard, directory: str | Path = "leaderboards", *, force: bool = False
) -> tuple[Path, Path]:
    """Write ``<difficulty>-<rule>.md`` and ``.json``; custom sizes use ``HxW-M`` as the name.

    Published files are results someone may have spent hours on: without ``force``, an existing
    pair is only replaced by the same tournament with at least as many games (``PublishError``
    otherwise, before anything is written)."""
    c = leaderboard.config
    stem = c.difficulty if "/" not in c.difficulty else f"{c.height}x{c.width}-{c.mines}"
    folder = Path(directory)
    md = folder / f"{stem}-{c.rule}.md"
    js = folder / f"{stem}-{c.rule}.json"
    if not force:
        if js.exists():
            _refuse_to_replace(leaderboard, js)
        elif md.exists():
            raise PublishError(
                f"{md} exists without {js.name}, so its tournament is unknown: pass --force to replace it"
            )
    folder.mkdir(parents=True, exist_ok=True)
    md.write_text(to_markdown(leaderboard), encoding="utf-8")
    js.write_text(leaderboard.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return md, js
