"""Two players on the same boards: which boards each won, the only thing a paired comparison reads.

The leaderboard's McNemar test, ``arena match``'s sequential test and ``arena diff`` all look at the boards both
players finished and ask who won each; here once, so that they cannot disagree on what "only A won" means.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from arena.outcome import GameResult
from arena.results.store import Store

__all__ = ["Split", "paired_wins", "split", "split_boards", "wins_by_board"]


def wins_by_board(games: Iterable[GameResult]) -> dict[str, dict[int, bool]]:
    """Player -> board -> whether that game was won."""
    won: dict[str, dict[int, bool]] = {}
    for game in games:
        won.setdefault(game.player, {})[game.board] = game.won
    return won


def paired_wins(a: Mapping[int, bool], b: Mapping[int, bool]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The boards both players finished (ascending) and, on each, whether ``a`` and whether ``b`` won it."""
    boards = np.array(sorted(a.keys() & b.keys()), dtype=np.int64)
    return boards, np.array([a[x] for x in boards], dtype=bool), np.array([b[x] for x in boards], dtype=bool)


@dataclass(frozen=True)
class Split:
    """Over the boards both players finished: those only A won, those only B won, how many both or neither."""

    only_a: list[int]
    only_b: list[int]
    both: int
    neither: int

    @property
    def boards(self) -> int:
        return len(self.only_a) + len(self.only_b) + self.both + self.neither


def split(a: Mapping[int, bool], b: Mapping[int, bool]) -> Split:
    boards, won_a, won_b = paired_wins(a, b)
    return Split(
        only_a=boards[won_a & ~won_b].tolist(),
        only_b=boards[won_b & ~won_a].tolist(),
        both=int(np.sum(won_a & won_b)),
        neither=int(np.sum(~won_a & ~won_b)),
    )


def split_boards(store: Store, tournament_id: str, a: str, b: str, start: int = 0, stop: int | None = None) -> Split:
    """``split`` of two players' stored games on boards ``start`` to ``stop`` (excluded; default: all): only
    the two players' boards and wins are read (the games' key is (tournament, player, board)), so a site with
    thirty comparisons of a 30,000-game tournament does not read every game thirty times."""
    query = "SELECT board, won FROM games WHERE tournament_id = ? AND player = ? AND board >= ? AND board < ?"
    limit = stop if stop is not None else 2**62
    won = [{int(x): bool(w) for x, w in store.db.execute(query, (tournament_id, p, start, limit))} for p in (a, b)]
    return split(won[0], won[1])
