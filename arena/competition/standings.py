"""A competition of several board sets ranked by points: each entrant's wins on every set, the points they are
worth, the interval of the points and the comparison with the leader on points (``arena.analysis.points``), and
the grades a course takes from them (``--grades``).

Each set is a tournament of its own in the store (its id names its boards); a set's leaderboard is the
competition's (``publish.competition_leaderboard``: its entrants only). An entrant is matched across the sets by
its name, whatever version each set saw.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from arena.analysis.leaderboard import Leaderboard, LeaderboardRow
from arena.analysis.points import SetCounts, SetPairs, compare_points, points_interval
from arena.competition.spec import BoardSet
from arena.outcome import PlayerKey
from arena.results.store import Store
from arena.results.totals import pair_counts

__all__ = ["PlayedSet", "SetCell", "Standing", "standings", "write_grades"]


@dataclass(frozen=True)
class PlayedSet:
    """A board set once played: the set, its tournament and its leaderboard."""

    board_set: BoardSet
    tournament_id: str
    leaderboard: Leaderboard


class SetCell(BaseModel):
    """An entrant on one set."""

    wins: int
    games: int
    win_rate: float
    ci_low: float
    ci_high: float
    points: float


class Standing(BaseModel):
    """An entrant's row of the points table."""

    rank: int
    entrant: str
    owner: str
    points: float
    points_low: float
    points_high: float
    sets: dict[str, SetCell]
    #: Points minus the leader's on the boards both played, with its 95% interval and exact p (None: the leader).
    diff: float | None = None
    diff_low: float | None = None
    diff_high: float | None = None
    p_value: float | None = None


def _base(row: LeaderboardRow) -> str:
    return PlayerKey(row.player).base


def standings(store: Store, played: Sequence[PlayedSet], owners: dict[str, str]) -> list[Standing]:
    """Every entrant that played, ranked by points (ties: by name), each compared with the leader."""
    rows: dict[str, dict[str, LeaderboardRow]] = {}
    for item in played:
        for row in item.leaderboard.rows:
            rows.setdefault(_base(row), {})[item.board_set.name] = row
    table: list[Standing] = []
    for name, by_set in rows.items():
        cells = {
            item.board_set.name: SetCell(
                wins=r.wins,
                games=r.games,
                win_rate=r.win_rate,
                ci_low=r.ci_low,
                ci_high=r.ci_high,
                points=item.board_set.points * r.wins,
            )
            for item in played
            if (r := by_set.get(item.board_set.name)) is not None
        }
        counts = [SetCounts(c.wins, c.games, s.board_set.points) for s in played if (c := cells.get(s.board_set.name))]
        total = points_interval(counts)
        table.append(
            Standing(
                rank=0,
                entrant=name,
                owner=owners.get(name, ""),
                points=total.points,
                points_low=total.low,
                points_high=total.high,
                sets=cells,
            )
        )
    table.sort(key=lambda s: (-s.points, s.entrant))
    for rank, standing in enumerate(table, 1):
        standing.rank = rank
        if rank == 1:
            continue
        pairs = []
        for item in played:
            mine, theirs = (
                rows[standing.entrant].get(item.board_set.name),
                rows[table[0].entrant].get(item.board_set.name),
            )
            if mine is None or theirs is None:
                continue
            counts = pair_counts(store, item.tournament_id, mine.player, theirs.player, item.leaderboard.config.boards)
            pairs.append(SetPairs(counts.games, counts.only_a, counts.only_b, item.board_set.points))
        if pairs:
            cmp = compare_points(pairs)
            standing.diff, standing.diff_low, standing.diff_high = cmp.diff, cmp.low, cmp.high
            standing.p_value = cmp.p_value
    return table


def write_grades(path: Path, sets: Sequence[BoardSet], table: Sequence[Standing], entrants: Sequence[Any]) -> Path:
    """``path`` as CSV, one row per entrant (those left out too, with no games and no rank): entrant, owner,
    each set's wins and games, points, rank."""
    by_name = {s.entrant: s for s in table}
    header = ["entrant", "owner"]
    for board_set in sets:
        header += [f"{board_set.name} wins", f"{board_set.name} games"]
    header += ["points", "rank"]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as file:
        out = csv.writer(file)
        out.writerow(header)
        for entrant in entrants:
            standing = by_name.get(entrant.name)
            row: list[object] = [entrant.name, _text(entrant.owner)]
            for board_set in sets:
                cell = standing.sets.get(board_set.name) if standing else None
                row += [cell.wins, cell.games] if cell else [0, 0]
            row += [_number(standing.points), standing.rank] if standing else [0, ""]
            out.writerow(row)
    return path


def _text(value: str) -> str:
    """A cell a spreadsheet shows as the text it is: one that would start a formula (``=``, ``+``, ``-``, ``@``)
    gets a leading apostrophe."""
    return f"'{value}" if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _number(value: float) -> int | float:
    """Points as a spreadsheet reads them best: ``6``, not ``6.0``."""
    return int(value) if float(value).is_integer() else round(value, 6)
