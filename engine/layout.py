"""Seeded boards (the derivation: docs/rules.md, "Seeds and shared boards") and the text formats
of layouts and positions."""

from __future__ import annotations

import functools
import zlib

import numpy as np

from engine import kernels, rng
from engine.board import MAX_CELLS, MAX_SIDE, BoardSpec, FirstClick
from engine.errors import BoardConfigError, LayoutFormatError

__all__ = [
    "MAX_SEED",
    "board_permutation",
    "check_seed",
    "format_layout",
    "format_position",
    "name_key",
    "parse_layout",
    "parse_position",
    "player_generator",
    "player_seed",
    "player_seed_words",
    "zero_start",
]

#: Seeds and board indices are stored as SQLite integers, hence the signed 64-bit bound.
MAX_SEED = 2**63 - 1


def check_seed(value: int, what: str = "seed") -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise BoardConfigError(f"{what} must be a whole number, got {value!r}")
    value = int(value)
    if not 0 <= value <= MAX_SEED:
        raise BoardConfigError(f"{what} must be between 0 and 2**63-1, got {value}")
    return value


def board_permutation(spec: BoardSpec, seed: int, index: int) -> np.ndarray:
    """The board's one random ordering of all cells, from which every first click's layout comes."""
    return rng.board_permutation_words(check_seed(seed), check_seed(index, "board index"), spec.cells)


def player_seed(seed: int, index: int, player: str) -> int:
    """The 128-bit seed of a player's generator on one board, independent of the board's stream and
    of other players'. An isolated bot gets this number, never (seed, index), which would rebuild
    the board; the trusted path seeds from the same number, so both decide alike."""
    words = player_seed_words(seed, index, player)
    return sum(int(word) << (32 * i) for i, word in enumerate(words.tolist()))


def player_seed_words(seed: int, index: int, player: str) -> np.ndarray:
    """``player_seed`` as four 32-bit words, least significant first: ``SeedSequence([seed, index],
    spawn_key=(1, crc32(player))).generate_state(4, np.uint32)``."""
    if not (type(seed) is int and type(index) is int and 0 <= seed <= MAX_SEED and 0 <= index <= MAX_SEED):
        seed, index = check_seed(seed), check_seed(index, "board index")  # the checks' words for a bad one
    return rng.player_seed_words(seed, index, name_key(player))


@functools.lru_cache(maxsize=256)
def name_key(player: str) -> int:
    """The crc32 of a player's name: once per name, not once per game (a Beginner game is a tenth of a ms)."""
    return zlib.crc32(player.encode("utf-8"))


def player_generator(seed: int, index: int, player: str) -> np.random.Generator:
    """The random generator a player gets for one board: ``PCG64(player_seed(seed, index, player))``."""
    return np.random.Generator(np.random.PCG64(player_seed(seed, index, player)))


def mines_from_permutation(spec: BoardSpec, perm: np.ndarray, rule: FirstClick, click: tuple[int, int]) -> np.ndarray:
    """Flat uint8 mine mask for one first click (validated by the caller). Under ``zero`` the click
    plays no part: the layout is the board's own (``zero_start``)."""
    if rule is FirstClick.ZERO:
        return zero_start(spec, perm)[0]
    is_mine = np.zeros(spec.cells, dtype=np.uint8)
    cell = click[0] * spec.width + click[1]
    kernels.place_mines(perm, spec.height, spec.width, spec.mines, cell, kernels.RULE_CODES[rule.value], is_mine)
    return is_mine


def zero_start(spec: BoardSpec, perm: np.ndarray) -> tuple[np.ndarray, int]:
    """The ``zero`` rule's flat uint8 layout and start cell (row-major index), from the board's
    permutation alone, so every player gets the same tile whatever its name or seed.

    As the course shells' worlds do, the mines are uniform (the permutation's first cells, no cell
    excluded) and the start tile is uniform among the layout's zero tiles: the first zero among the
    safe cells in the permutation's order, which given the layout is a uniform order of them. The
    tile given is the first zero in row-major order of that tile's opening (the same opening, the
    same flood), so a bot can name it from what it sees: the first revealed zero, row by row. A
    layout without a zero tile (a very dense board) is drawn again as under ``opening`` around the
    first safe cell of the permutation."""
    height, width = spec.height, spec.width
    is_mine = np.zeros(spec.cells, dtype=np.uint8)
    kernels.place_mines(perm, height, width, spec.mines, 0, kernels.RULE_CODES["none"], is_mine)
    truth = np.empty(spec.cells, dtype=np.int8)
    kernels.neighbour_numbers(is_mine, height, width, truth)
    safe = perm[spec.mines :]
    zeros = safe[truth[safe] == 0]
    if zeros.size:
        first = int(zeros[0])
    else:
        first = int(safe[0])
        is_mine[:] = 0
        kernels.place_mines(perm, height, width, spec.mines, first, kernels.RULE_CODES["opening"], is_mine)
        kernels.neighbour_numbers(is_mine, height, width, truth)
    return is_mine, _opening_head(truth, height, width, first)


def _opening_head(truth: np.ndarray, height: int, width: int, start: int) -> int:
    """The first cell in row-major order of the zero tiles 8-connected to zero tile ``start``."""
    seen = {start}
    stack = [start]
    while stack:
        cell = stack.pop()
        r, c = divmod(cell, width)
        for rr in range(max(r - 1, 0), min(r + 2, height)):
            for cc in range(max(c - 1, 0), min(c + 2, width)):
                nb = rr * width + cc
                if nb not in seen and truth[nb] == 0:
                    seen.add(nb)
                    stack.append(nb)
    return min(seen)


def format_layout(mines: np.ndarray) -> str:
    """Layout text: one line per row, ``*`` for a mine and ``.`` for a safe cell."""
    return "\n".join("".join("*" if m else "." for m in row) for row in np.asarray(mines, dtype=bool))


def _parse(text: str, what: str, codes: dict[str, int], allowed: str) -> np.ndarray:
    rows = [line.strip() for line in text.strip().splitlines()]
    if not rows or not rows[0]:
        raise LayoutFormatError(f"the {what} is empty")
    width = len(rows[0])
    # Before any grid is allocated: nothing larger than the largest board a tournament plays.
    if len(rows) > MAX_SIDE or width > MAX_SIDE or len(rows) * width > MAX_CELLS:
        raise LayoutFormatError(
            f"the {what} is {len(rows)}x{width}, too large: at most {MAX_SIDE} rows, {MAX_SIDE} columns "
            f"and {MAX_CELLS} cells, the largest board a tournament plays"
        )
    grid = np.empty((len(rows), width), dtype=np.int8)
    for r, row in enumerate(rows):
        if len(row) != width:
            raise LayoutFormatError(
                f"{what} line {r + 1} has {len(row)} cells but line 1 has {width}; every row needs the same width"
            )
        for c, ch in enumerate(row):
            if ch not in codes:
                raise LayoutFormatError(f"{what} line {r + 1} column {c + 1}: {ch!r} is not {allowed}")
            grid[r, c] = codes[ch]
    return grid


def parse_layout(text: str) -> np.ndarray:
    """Read layout text back into a boolean (height, width) array."""
    return _parse(text, "layout", {"*": 1, ".": 0}, "'*' (mine) or '.' (safe)").astype(bool)


_POSITION_CODES = {"#": kernels.COVERED, "F": kernels.FLAGGED, "f": kernels.FLAGGED, **{str(n): n for n in range(9)}}


def parse_position(text: str) -> np.ndarray:
    """Read position text (``#`` covered, ``F`` flag, ``0``-``8`` revealed) into an int8 grid."""
    return _parse(text, "position", _POSITION_CODES, "'#' (covered), 'F' (flag) or a digit 0-8")


def format_position(grid: np.ndarray) -> str:
    """Position text of an observation grid (mines shown after a loss print as ``*``)."""
    symbols = {int(kernels.COVERED): "#", int(kernels.FLAGGED): "F", int(kernels.MINE): "*"}
    return "\n".join("".join(symbols.get(int(v), str(int(v))) for v in row) for row in np.asarray(grid))
