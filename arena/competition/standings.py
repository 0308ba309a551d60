"""A competition of several board sets ranked by points: each entrant's wins on every set, the points they are
worth, the interval of the points and the comparison with the leader on points (``arena.analysis.points``), and
the grades a course takes from them (``--grades``, or ``arena grades`` from the published ``leaderboard.json``).

Each set is a tournament of its own in the store (its id names its boards); a set's leaderboard is the
competition's (``publish.competition_leaderboard``: its entrants only). An entrant is matched across the sets by
its name, whatever version each set saw.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import BaseModel, ValidationError

from arena.analysis.leaderboard import Leaderboard, LeaderboardRow
from arena.analysis.points import SetCounts, SetPairs, compare_points, points_interval
from arena.competition.spec import BoardSet
from arena.outcome import PlayerKey
from arena.results.store import Store
from arena.results.totals import pair_counts

__all__ = [
    "GradesInput",
    "PlayedSet",
    "SetCell",
    "Standing",
    "grades_csv",
    "grades_from_results",
    "standings",
    "write_grades",
]


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


def write_grades(path: Path, sets: Sequence[Any], table: Sequence[Standing], entrants: Sequence[Any]) -> Path:
    """``path`` as CSV, one row per entrant (those left out too, with no games and no rank): entrant, owner,
    each set's wins and games, points, rank."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as file:
        grades_csv(file, sets, table, entrants)
    return path


def grades_csv(file: IO[str], sets: Sequence[Any], table: Sequence[Standing], entrants: Sequence[Any]) -> None:
    """The grades (``write_grades``) written to ``file`` (opened with ``newline=""``)."""
    by_name = {s.entrant: s for s in table}
    header = ["entrant", "owner"]
    for board_set in sets:
        header += [f"{board_set.name} wins", f"{board_set.name} games"]
    header += ["points", "rank"]
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


_M = TypeVar("_M", bound=BaseModel)


class _Named(BaseModel):
    """What the grades read of a set (its name) and of an entrant (its name and owner) in the results' JSON."""

    name: str
    owner: str = ""


@dataclass(frozen=True)
class GradesInput:
    """A competition's published results, read back for ``write_grades``: its sets, points table and entrants."""

    sets: list[_Named]
    table: list[Standing]
    entrants: list[_Named]


def grades_from_results(data: Any) -> GradesInput:
    """The grades' input from the ``leaderboard.json`` that ``arena compete`` publishes (``publish.results_data``):
    the same rows ``--grades`` writes, without playing anything again. ``ValueError`` (one line) for anything else:
    a tournament's own leaderboard (no points table), a file of another shape."""
    if not isinstance(data, dict):
        raise ValueError("not a competition's results: the file holds no JSON object")
    missing = [key for key in ("competition", "entrants", "points") if key not in data]
    if missing:
        what = " (a tournament's leaderboard has no points table)" if "rows" in data else ""
        raise ValueError(
            f"not a competition's results (arena compete's leaderboard.json): no {', '.join(map(repr, missing))}{what}"
        )
    competition = data["competition"]
    sets = _each(_Named, competition.get("sets") if isinstance(competition, dict) else None, "competition.sets")
    table = _each(Standing, data["points"], "points")
    entrants = _each(_Named, data["entrants"], "entrants")
    known = {s.name for s in sets}
    for standing in table:
        stray = next((name for name in standing.sets if name not in known), None)
        if stray is not None:
            raise ValueError(
                f"the points table of {standing.entrant!r} names set {stray!r}, which the competition has not"
            )
    return GradesInput(sets, table, entrants)


def _each(model: type[_M], items: Any, key: str) -> list[_M]:
    """``items`` (a JSON list) read as ``model``s; ``ValueError`` naming the first problem where it is
    (``points[2].rank: Field required``)."""
    if not isinstance(items, list):
        raise ValueError(f"not a competition's results (arena compete's leaderboard.json): {key} is not a list")
    found = []
    for index, item in enumerate(items):
        try:
            found.append(model.model_validate(item))
        except ValidationError as error:
            first = error.errors()[0]
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
            raise ValueError(
                f"not a competition's results (arena compete's leaderboard.json): {key}[{index}]{where}: {first['msg']}"
            ) from None
    return found


def _text(value: str) -> str:
    """A cell a spreadsheet shows as the text it is: one that would start a formula (``=``, ``+``, ``-``, ``@``)
    gets a leading apostrophe."""
    return f"'{value}" if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _number(value: float) -> int | float:
    """Points as a spreadsheet reads them best: ``6``, not ``6.0``."""
    return int(value) if float(value).is_integer() else round(value, 6)
