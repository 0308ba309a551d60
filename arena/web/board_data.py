"""One board of a tournament across every player, as its page shows it: served (one board read by the games
table's key) and in a static site (every board, as data files for the site's one board page).

A board's mine layout is drawn after the first click (``engine.layout``: one permutation per board, each first
click's layout taken from it), so the games of one board may have met different layouts. Each layout is drawn
here from the stored first click, as the engine draws it: no game is replayed, which keeps a site of 5,000 boards
to one pass over its games.

A site with a page per board would repeat the page's frame thousands of times (a 5,000-board Expert tournament
of six players: about 40 MB more); instead it has one board page per tournament (``t/<tournament>/board.html``,
the board in its address: ``board.html?board=17``) that loads the data file holding its board
(``t/<tournament>/boards/<n>.js``, ``CHUNK`` boards each, loaded as a script: a page opened from ``file://`` may
not fetch JSON) and writes the rows with ``textContent`` (``static/board.js``): a player's name or error is text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.analysis.replay.page import ALPHABET, encode_layout, error_line, script_json
from arena.outcome import GameResult
from arena.results.store import Store, StoreError
from engine import BoardSpec, FirstClick
from engine.layout import board_permutation, mines_from_permutation

__all__ = ["CHUNK", "BoardGames", "board_games", "board_source", "write_boards"]

#: Boards per data file of a site: a file of an Expert tournament of six players is about 300 kB.
CHUNK = 500


@dataclass(frozen=True, slots=True)
class BoardGames:
    """Every stored game of one board, by player key, and the distinct layouts they were played on: ``layout_of``
    maps a player to its layout's index in ``layouts`` (absent: the game never clicked, no layout was drawn)."""

    board: int
    games: dict[str, GameResult]
    layouts: list[np.ndarray]
    layout_of: dict[str, int]


class _Layouts:
    """The layouts of one tournament's boards, each board's permutation drawn once."""

    def __init__(self, spec: BoardSpec, rule: FirstClick, seed: int) -> None:
        self.spec, self.rule, self.seed = spec, rule, seed
        self.perm: tuple[int, np.ndarray] | None = None

    def __call__(self, game: GameResult) -> np.ndarray | None:
        if game.first_row is None or game.first_col is None:
            return None
        if self.perm is None or self.perm[0] != game.board:
            self.perm = (game.board, board_permutation(self.spec, self.seed, game.board))
        flat = mines_from_permutation(self.spec, self.perm[1], self.rule, (game.first_row, game.first_col))
        return np.asarray(flat, dtype=bool).reshape(self.spec.height, self.spec.width)


def _gather(board: int, games: Iterable[GameResult], layouts: _Layouts) -> BoardGames:
    found: dict[str, GameResult] = {}
    drawn: list[np.ndarray] = []
    layout_of: dict[str, int] = {}
    for game in games:
        found[game.player] = game
        layout = layouts(game)
        if layout is None:
            continue
        at = next((i for i, seen in enumerate(drawn) if np.array_equal(seen, layout)), None)
        if at is None:
            drawn.append(layout)
            at = len(drawn) - 1
        layout_of[game.player] = at
    return BoardGames(board, found, drawn, layout_of)


def board_games(db: Store, tid: str, board: int, players: Iterable[str]) -> BoardGames:
    """The stored games of ``players`` on ``board`` (each read by the games table's key) and their layouts."""
    stored = db.tournament(tid)
    layouts = _Layouts(stored.spec, stored.rule, stored.seed)
    games = []
    for key in players:
        try:
            games.append(db.game(tid, key, board))
        except StoreError:
            continue
    return _gather(board, games, layouts)


def _row(game: GameResult, slug: str, layout: int | None, replay: bool) -> list[Any]:
    """A game as the site's board page reads it: slug, outcome, moves, guesses, 3BV solved, 3BV, CPU ms, first
    click ("row,col" or ""), layout index (or -1), whether the site holds its replay, its error's first line."""
    first = f"{game.first_row},{game.first_col}" if game.first_row is not None else ""
    return [
        slug, game.outcome.value, game.moves, game.guesses, game.bbbv_solved, game.bbbv, round(game.cpu_ms, 3),
        first, -1 if layout is None else layout, int(replay), error_line(game.error) if game.error else "",
    ]  # fmt: skip


def write_boards(
    db: Store,
    tid: str,
    slugs: dict[str, str],
    replays: Callable[[str, int], bool],
    put: Callable[[str, str], None],
    path_of: Callable[[int], str],
) -> int:
    """Write every board of the tournament as data files, boards ``n * CHUNK`` to ``(n + 1) * CHUNK - 1`` at
    ``path_of(n)`` through ``put``; ``replays(key, board)``: whether the site holds that game's replay. Returns
    how many files it wrote."""
    stored = db.tournament(tid)
    layouts = _Layouts(stored.spec, stored.rule, stored.seed)
    by_board: dict[int, list[GameResult]] = {}
    for game in db.iter_games(tid):
        by_board.setdefault(game.board, []).append(game)
    chunks: dict[int, dict[str, Any]] = {}
    for board in sorted(by_board):
        found = _gather(board, sorted(by_board[board], key=lambda g: g.player), layouts)
        rows = [
            _row(game, slugs[key], found.layout_of.get(key), replays(key, board))
            for key, game in found.games.items()
            if key in slugs
        ]
        entry = {"games": rows, "layouts": [encode_layout(layout) for layout in found.layouts]}
        chunks.setdefault(board // CHUNK, {})[str(board)] = entry
    # A file for every chunk of the tournament's boards, an empty one where no game is stored yet: the page then
    # says so instead of failing to load a script.
    count = -(-stored.boards // CHUNK)
    for n in range(count):
        put(path_of(n), f"ArenaBoardData({script_json({'boards': chunks.get(n, {})})});\n")
    return count


def board_source(db: Store, tid: str) -> dict[str, Any]:
    """What the site's board page needs beside its data files: the tournament's boards and their size, how many
    boards a data file holds, the layouts' alphabet."""
    stored = db.tournament(tid)
    return {
        "boards": stored.boards,
        "rows": stored.spec.height,
        "cols": stored.spec.width,
        "chunk": CHUNK,
        "data": "boards/",
        "alphabet": ALPHABET,
    }
