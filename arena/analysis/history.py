"""A player's history across its versions: win rate per version, and whether each version beat the one before.

Versions are entrants (``arena.results.entrants``). Tournaments of the same board and first-click rule pool: a
version's win rate counts its games in all of them, with a Wilson interval. Each version is compared with the one
before it (the order in which the store first saw them) on the boards both played, paired board by board within
each tournament (a board is the same only within one seed), with the interval and exact McNemar test of
``arena.analysis.stats``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.analysis.pairs import paired_wins, wins_by_board
from arena.analysis.stats import PairedComparison, compare_paired, wilson_interval
from arena.results.store import Store, StoreError
from arena.results.stored import StoredPlayer, StoredTournament

__all__ = ["BoardHistory", "UnknownPlayer", "VersionRow", "history_json", "player_history"]


class UnknownPlayer(StoreError):
    """No tournament of the store has the player."""


@dataclass(frozen=True, slots=True)
class VersionRow:
    """One version of the player on one kind of board."""

    version: str
    #: The rows this version's games are in (``KEY`` or ``KEY@VERSION``), one per tournament.
    keys: tuple[str, ...]
    tournaments: int
    games: int
    wins: int
    ci_low: float
    ci_high: float
    #: This version against the one listed before it, on the boards both played (None for the first, or when
    #: they share no board).
    vs_previous: PairedComparison | None = None

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class BoardHistory:
    """The player's versions on one board size and first-click rule."""

    difficulty: str
    height: int
    width: int
    mines: int
    rule: str
    tournaments: tuple[str, ...]
    versions: tuple[VersionRow, ...]

    @property
    def title(self) -> str:
        size = f"{self.height}x{self.width}, {self.mines} mines"
        board = size if "/" in self.difficulty else f"{self.difficulty} ({size})"  # a custom board's label is its size
        return f"{board} · first click {self.rule}"


def player_history(store: Store, player: str) -> list[BoardHistory]:
    """The history of ``player`` (a name, or a name with options as the leaderboard spells it), one entry per kind
    of board it played, the most played first. ``UnknownPlayer`` when no tournament has it."""
    order: dict[str, int] = {}  # version -> position of its first appearance in the store
    where: dict[tuple[int, int, int, str], list[tuple[StoredTournament, list[StoredPlayer]]]] = defaultdict(list)
    tournaments = {t.id: t for t in store.tournaments()}
    by_tournament: dict[str, list[StoredPlayer]] = defaultdict(list)
    for tournament_id, entrant in store.players_everywhere():
        if entrant.base == player:
            order.setdefault(entrant.version, len(order))
            by_tournament[tournament_id].append(entrant)
    if not by_tournament:
        raise UnknownPlayer(
            f"no tournament in {str(store.path)!r} has a player {player!r}; `arena leaderboard` lists them"
        )
    for tournament_id, entrants in by_tournament.items():
        t = tournaments[tournament_id]
        where[(t.spec.height, t.spec.width, t.spec.mines, t.rule.value)].append((t, entrants))
    histories = [_board_history(store, group, order) for group in where.values()]
    histories = [h for h in histories if h.versions]
    histories.sort(key=lambda h: (-sum(v.games for v in h.versions), h.title))
    return histories


def _board_history(
    store: Store, group: list[tuple[StoredTournament, list[StoredPlayer]]], order: dict[str, int]
) -> BoardHistory:
    # version -> tournament -> board -> won
    won: dict[str, dict[str, dict[int, bool]]] = defaultdict(dict)
    keys: dict[str, list[str]] = defaultdict(list)
    for tournament, entrants in group:
        rows = {e.key: e.version for e in entrants}
        games = [g for g in store.games(tournament.id) if g.player in rows]
        for key, boards in wins_by_board(games).items():
            won[rows[key]][tournament.id] = boards
            if key not in keys[rows[key]]:
                keys[rows[key]].append(key)
    versions: list[VersionRow] = []
    previous: str | None = None
    for version in sorted(won, key=order.__getitem__):
        per = won[version]
        games = sum(len(b) for b in per.values())
        wins = sum(sum(b.values()) for b in per.values())
        low, high = wilson_interval(wins, games)
        versus = _paired(per, won[previous]) if previous is not None else None
        versions.append(VersionRow(version, tuple(keys[version]), len(per), games, wins, low, high, versus))
        previous = version
    first = group[0][0]
    return BoardHistory(
        difficulty=first.difficulty,
        height=first.spec.height,
        width=first.spec.width,
        mines=first.spec.mines,
        rule=first.rule.value,
        tournaments=tuple(t.id for t, _ in group),
        versions=tuple(versions),
    )


def _paired(mine: dict[str, dict[int, bool]], theirs: dict[str, dict[int, bool]]) -> PairedComparison | None:
    """``mine`` against ``theirs`` on the boards both played, board by board within each tournament."""
    a: list[np.ndarray] = []
    b: list[np.ndarray] = []
    for tournament_id in sorted(mine.keys() & theirs.keys()):
        _, won_a, won_b = paired_wins(mine[tournament_id], theirs[tournament_id])
        a.append(won_a)
        b.append(won_b)
    if not a or not sum(len(x) for x in a):
        return None
    return compare_paired(np.concatenate(a), np.concatenate(b))


def history_json(history: BoardHistory) -> dict[str, Any]:
    """``arena history --json``'s entry of one board: each version, and its comparison with the one before."""
    versions = []
    for row in history.versions:
        cmp = row.vs_previous
        versions.append(
            {
                "version": row.version,
                "rows": list(row.keys),
                "tournaments": row.tournaments,
                "games": row.games,
                "wins": row.wins,
                "win_rate": row.win_rate,
                "ci_low": row.ci_low,
                "ci_high": row.ci_high,
                "vs_previous": None
                if cmp is None
                else {
                    "boards": cmp.games,
                    "only_this": cmp.only_a,
                    "only_previous": cmp.only_b,
                    "diff": cmp.diff,
                    "diff_low": cmp.diff_low,
                    "diff_high": cmp.diff_high,
                    "p_value": cmp.p_value,
                },
            }
        )
    return {
        "difficulty": history.difficulty,
        "height": history.height,
        "width": history.width,
        "mines": history.mines,
        "rule": history.rule,
        "tournaments": list(history.tournaments),
        "versions": versions,
    }
