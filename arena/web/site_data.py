"""The games of a static site, as data for its one replay viewer: ``arena site`` at the scale of a real tournament.

A replay page per game would repeat the viewer (its script, its stylesheet) tens of thousands of times; a page
with each position's probabilities would weigh megabytes. Instead each tournament of a site has one game page
(``t/<tournament>/game.html``, the viewer of ``arena replay`` and ``arena serve``), and its games are data files
of ``CHUNK`` boards each (``t/<tournament>/games/<n>.js``): per board the distinct mine layouts its games were
played on, per game its outcome, its moves (two characters a move on boards up to 512 cells, three above) and its
notes. The page loads the file of the board its address names as a script (a page opened from ``file://`` may
not fetch a JSON file), plays the moves again on the layout and computes the exact probabilities of the
position it shows (``solver.js``).

Records are read straight from the store in board order, without the cells each move opened
(``records.decode_moves``), and a layout is drawn from the board's permutation for the game's first click, as the
engine draws it (``engine.layout``): no game is replayed here. A record that would not replay is shown by the page
up to the move that fails, with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.analysis.replay.model import note_text
from arena.analysis.replay.page import ALPHABET, encode_layout, error_line, move_width, script_json
from arena.results.records import RecordError, decode_moves
from arena.results.store import Store
from arena.web import games_data
from engine import FirstClick
from engine.layout import board_permutation, mines_from_permutation

__all__ = ["CHUNK", "GamesWritten", "viewer_source", "write_games"]

#: Boards per data file: a file of an Expert tournament of six players is about 150 kB.
CHUNK = 100
_DIGITS = np.frombuffer(ALPHABET.encode("ascii"), dtype=np.uint8)
_REVEAL = 0


@dataclass(frozen=True, slots=True)
class GamesWritten:
    """What ``write_games`` wrote: games, data files, and the games whose record could not be read."""

    games: int
    files: int
    unreadable: int


def _encode(codes: list[int], cells: list[int], width: int) -> str:
    """The moves as ``page.encode_page_moves`` writes them, for a whole game at once."""
    if not codes:
        return ""
    code = np.asarray(codes, dtype=np.int64)
    values = np.asarray(cells, dtype=np.int64) * 8 + (code & 3) * 2 + (code >= 4)
    out = np.empty((values.size, width), dtype=np.uint8)
    for j in range(width - 1, -1, -1):
        out[:, j] = _DIGITS[values % 64]
        values //= 64
    return out.tobytes().decode("ascii")


def _note(text: str, p_mine: float | None) -> str:
    """A move's note as the viewer shows it (``arena.web.games_data.replay_game`` gives the served page the same)."""
    if p_mine is not None and math.isfinite(p_mine):
        return note_text({"note": text, "p_mine": p_mine} if text else {"p_mine": p_mine})
    return note_text(text or None)


def write_games(
    db: Store,
    tid: str,
    chosen: dict[tuple[str, int], tuple[str, str]],
    slugs: dict[str, str],
    put: Callable[[str, str], None],
    path_of: Callable[[int], str],
) -> GamesWritten:
    """Write the games ``chosen`` (``(player, board)`` -> ``(outcome, stored error)``) as data files, the file of
    boards ``n * CHUNK`` to ``(n + 1) * CHUNK - 1`` at ``path_of(n)`` through ``put``; games by player slug."""
    stored = db.tournament(tid)
    spec, rule, seed = stored.spec, stored.rule, stored.seed
    width = move_width(spec.cells)
    boards: dict[str, dict[str, Any]] = {}
    chunk, games, files, unreadable = -1, 0, 0, 0
    perm: tuple[int, np.ndarray] | None = None

    def flush() -> None:
        nonlocal files
        if boards:
            put(path_of(chunk), f"ArenaReplayData({script_json({'boards': boards})});\n")
            files += 1
            boards.clear()

    for player, board, blob in games_data.records(db, tid):
        if (player, board) not in chosen:
            continue
        if board // CHUNK != chunk:
            flush()
            chunk = board // CHUNK
        outcome, error = chosen[(player, board)]
        try:
            codes, cells, _, notes = decode_moves(blob)
        except RecordError:
            unreadable += 1
            continue
        entry = boards.setdefault(str(board), {"layouts": [], "games": {}})
        layout_at = None
        first = next((cell for code, cell in zip(codes, cells, strict=True) if code & 3 == _REVEAL), None)
        if first is not None:
            if perm is None or perm[0] != board:
                perm = (board, board_permutation(spec, seed, board))
            mines = mines_from_permutation(spec, perm[1], FirstClick.parse(rule), divmod(first, spec.width))
            text = encode_layout(mines)
            if text not in entry["layouts"]:
                entry["layouts"].append(text)
            layout_at = entry["layouts"].index(text)
        shown = {str(i): note for i, (text, p) in sorted(notes.items()) if (note := _note(text, p))}
        game: dict[str, Any] = {"outcome": outcome, "l": layout_at, "w": width, "moves": _encode(codes, cells, width)}
        if error:
            game["error"] = error_line(error)
        if shown:
            game["notes"] = shown
        entry["games"][slugs[player]] = game
        games += 1
    flush()
    return GamesWritten(games, files, unreadable)


def viewer_source(
    db: Store, tid: str, slugs: dict[str, str], leaderboard: str, lost: dict[str, list[int]] | None = None
) -> dict[str, Any]:
    """What the tournament's game page needs to find and show a game: the board, the players by slug, where
    the data files are (relative to the page), how many boards each holds, and each player's lost games the site
    holds (``lost``, by slug: the page's previous and next lost game)."""
    stored = db.tournament(tid)
    spec = stored.spec
    board = {
        "rows": spec.height,
        "cols": spec.width,
        "mines": spec.mines,
        "label": spec.label,
        "rule": stored.rule.value,
        "seed": stored.seed,
    }
    players = {slug: key for key, slug in slugs.items()}
    return {
        "chunk": CHUNK,
        "data": "games/",
        "players": players,
        "board": board,
        "leaderboard": leaderboard,
        "lost": lost or {},
    }
