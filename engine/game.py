"""One game: a small stateful class that validates at the edge and hands flat arrays to the
compiled kernels. A player sees an ``Observation``; the layout stays on the ``Game``."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from engine import kernels
from engine.actions import Action, ActionKind, Actions, action_from_row
from engine.board import BoardSpec, FirstClick
from engine.errors import BoardConfigError, IllegalActionError, InvalidActionError
from engine.kernels import COVERED, FLAGGED, MINE, NO_LOG, log_copy, new_log
from engine.layout import board_permutation, check_seed, mines_from_permutation, zero_start
from engine.observation import GameStats, GameStatus, Observation

_UNDRAWN = np.empty(0, dtype=np.int8)  # ``play_rows``'s truth before the layout is drawn

__all__ = ["Game"]


class Game:
    """A game on board ``index`` of ``seed``, its layout drawn at the first reveal (docs/rules.md);
    with ``record``, every move and note is logged: the game's record in the arena."""

    def __init__(
        self,
        spec: BoardSpec,
        rule: FirstClick | str = FirstClick.SAFE,
        *,
        seed: int = 0,
        index: int = 0,
        layout: np.ndarray | None = None,
        record: bool = False,
    ) -> None:
        self.spec = spec
        self.rule = FirstClick.parse(rule)
        self.seed = check_seed(seed)
        self.index = check_seed(index, "board index")
        self.height = spec.height
        self.width = spec.width
        n = spec.cells
        self._view = np.full(n, COVERED, dtype=np.int8)
        self._stack = np.empty(n, dtype=np.int64)
        self._hit = np.zeros(1, dtype=np.int64)
        self._truth: np.ndarray | None = None
        self._labels: np.ndarray | None = None
        self._perm: np.ndarray | None = None
        self._status = GameStatus.PLAYING
        self._first_click: tuple[int, int] | None = None
        self._exploded = -1
        self._moves = self._reveals = self._flags = self._chords = self._flags_placed = self._guesses = 0
        self._bbbv = self._openings = 0
        self._left = n - spec.mines
        # The log holds ``_room`` more moves whatever they open (a game opens each cell once).
        self._recording = record
        self._room = n if record else -1
        self._log = new_log(1 + 3 * n + n) if record else NO_LOG
        self._notes: dict[int, tuple[str, float | None]] = {}
        if layout is None:
            spec.check_rule(self.rule)
        else:
            grid = np.asarray(layout, dtype=bool)
            if grid.shape != (spec.height, spec.width) or int(grid.sum()) != spec.mines:
                raise BoardConfigError(
                    f"layout of shape {grid.shape} with {int(grid.sum())} mines does not match the "
                    f"{spec.height}x{spec.width} board with {spec.mines} mines"
                )
            self._set_layout(np.ascontiguousarray(grid).reshape(-1).astype(np.uint8))

    # -- layout ---------------------------------------------------------------------------
    def _set_layout(self, is_mine: np.ndarray) -> None:
        n = self.spec.cells
        truth = np.empty(n, dtype=np.int8)
        kernels.neighbour_numbers(is_mine, self.height, self.width, truth)
        labels = np.empty(n, dtype=np.int32)
        self._bbbv = kernels.label_openings(truth, self.height, self.width, labels, self._stack)
        self._openings = int(labels.max(initial=0))
        self._truth = truth
        self._labels = labels

    @property
    def start_cell(self) -> tuple[int, int] | None:
        """Under the ``zero`` rule, the tile the arena opens before the player's first turn (the same
        for every player on this board: ``engine.layout.zero_start``); None under the other rules."""
        if self.rule is not FirstClick.ZERO:
            return None
        if self._perm is None:
            self._perm = board_permutation(self.spec, self.seed, self.index)
        return divmod(zero_start(self.spec, self._perm)[1], self.width)

    def open_start(self) -> bool:
        """The ``zero`` rule's opening: reveal ``start_cell`` as the game's first move, which every
        loop that plays a game calls before the player's first turn. False (nothing done) under the
        other rules, or once the game has begun."""
        start = self.start_cell
        if start is None or self._first_click is not None:
            return False
        self.reveal(*start)
        return True

    def _mines_for(self, click: tuple[int, int]) -> np.ndarray:
        """The flat uint8 layout the first click ``click`` gets."""
        if self._perm is None:
            self._perm = board_permutation(self.spec, self.seed, self.index)
        return mines_from_permutation(self.spec, self._perm, self.rule, click)

    # -- validation -----------------------------------------------------------------------
    def _cell(self, row: int, col: int) -> int:
        try:
            row = operator.index(row)
            col = operator.index(col)
        except TypeError:
            raise InvalidActionError(f"a cell is two whole numbers ROW, COL; got {row!r}, {col!r}") from None
        if not (0 <= row < self.height and 0 <= col < self.width):
            raise InvalidActionError(
                f"cell ({row}, {col}) is off the {self.height}x{self.width} board; rows run "
                f"0..{self.height - 1} and columns 0..{self.width - 1}"
            )
        if self._status is not GameStatus.PLAYING:
            raise IllegalActionError(f"the game is over ({self._status.value}); no more moves")
        return row * self.width + col

    # -- moves ----------------------------------------------------------------------------
    def reveal(self, row: int, col: int, *, guess: bool = False) -> int:
        """Reveal a covered cell (zeros flood-fill); returns how many cells were revealed."""
        cell = self._cell(row, col)
        state = self._view[cell]
        if state != COVERED:
            if state == FLAGGED:
                raise IllegalActionError(f"cell ({row}, {col}) is flagged; unflag it before revealing it")
            raise IllegalActionError(f"cell ({row}, {col}) is already revealed")
        if self._first_click is None:
            self._first_click = (int(row), int(col))
        if self._truth is None:
            self._set_layout(self._mines_for((int(row), int(col))))
        self._moves += 1
        self._reveals += 1
        if self._recording:
            self._take_room(1)
        revealed = kernels.reveal_cells(
            self._view, self._truth, self.height, self.width, cell, self._stack, self._log, guess
        )
        if guess:
            self._guesses += 1
        return self._settle(revealed, cell)

    def chord(self, row: int, col: int) -> int:
        """Reveal the unflagged neighbours of a number whose adjacent flags equal it."""
        cell = self._cell(row, col)
        number = int(self._view[cell])
        if number < 1:
            raise IllegalActionError(f"cell ({row}, {col}) is not a revealed number; only numbers can be chorded")
        if self._recording:
            self._take_room(1)
        result = kernels.chord_cells(
            self._view, self._truth, self.height, self.width, cell, self._stack, self._hit, self._log
        )
        if result == kernels.FLAGS_MISMATCH or result == kernels.NOTHING_TO_CHORD:
            self._room += 1  # nothing played, nothing logged
        if result == kernels.FLAGS_MISMATCH:
            raise IllegalActionError(f"cell ({row}, {col}) shows {number} but a different number of flags touch it")
        if result == kernels.NOTHING_TO_CHORD:
            raise IllegalActionError(f"cell ({row}, {col}) has no covered unflagged neighbour to chord")
        self._moves += 1
        self._chords += 1
        return self._settle(result, int(self._hit[0]))

    def _take_room(self, moves: int) -> None:
        """Make room for ``moves`` more moves in the log (Python ints only: it runs before every move)."""
        if self._room < moves:
            used = int(self._log[0])
            more = max(moves, used // 3 + 16)  # about twice the moves so far
            grown = np.empty(self._log.shape[0] + 3 * more, dtype=np.int32)
            grown[:used] = self._log[:used]
            self._log = grown
            self._room += more
        self._room -= moves

    def _settle(self, revealed: int, cell: int) -> int:
        if revealed == kernels.HIT_MINE:
            # A mine hit is a loss whatever else is revealed: never a win on the last safe cell.
            self._status = GameStatus.LOST
            self._exploded = cell
            return 0
        self._left -= revealed
        if self._left == 0:
            self._status = GameStatus.WON
        return revealed

    def flag(self, row: int, col: int) -> None:
        cell = self._cell(row, col)
        if self._view[cell] != COVERED:
            what = "already flagged" if self._view[cell] == FLAGGED else "revealed"
            raise IllegalActionError(f"cell ({row}, {col}) is {what}; only covered cells can be flagged")
        self._view[cell] = FLAGGED
        self._moves += 1
        self._flags += 1
        self._flags_placed += 1
        if self._recording:
            self._take_room(1)
            kernels.log_move(self._log, 1, False, cell, self._stack, 0)

    def unflag(self, row: int, col: int) -> None:
        cell = self._cell(row, col)
        if self._view[cell] != FLAGGED:
            raise IllegalActionError(f"cell ({row}, {col}) is not flagged")
        self._view[cell] = COVERED
        self._moves += 1
        self._flags_placed -= 1
        if self._recording:
            self._take_room(1)
            kernels.log_move(self._log, 2, False, cell, self._stack, 0)

    def apply(self, action: Action) -> int:
        """Play an ``Action``; returns the number of cells revealed (0 for flags)."""
        try:
            kind, row, col = action[0], action[1], action[2]
            kind = ActionKind(kind)
        except (TypeError, ValueError, IndexError, KeyError):
            raise InvalidActionError(
                f"{action!r} is not an action; use Action.reveal/flag/unflag/chord(row, col)"
            ) from None
        revealed = 0
        if kind is ActionKind.REVEAL:
            revealed = self.reveal(row, col, guess=bool(len(action) > 3 and action[3]))
        elif kind is ActionKind.CHORD:
            revealed = self.chord(row, col)
        elif kind is ActionKind.FLAG:
            self.flag(row, col)
        else:
            self.unflag(row, col)
        self._keep_note(action)
        return revealed

    def _keep_note(self, action: Any) -> None:
        """A recording game keeps the note of ``action`` with the latest move (joined to one there)."""
        if not (self._recording and type(action) is Action and (action.note or action.p_mine is not None)):
            return
        move = self._moves - 1
        text, p_mine = str(action.note), action.p_mine
        if move in self._notes:
            old_text, old_p = self._notes[move]
            text = f"{old_text}\n{text}" if old_text and text else old_text or text
            p_mine = old_p if p_mine is None else p_mine
        self._notes[move] = (text, p_mine)

    def play_answer(self, actions: Actions | Iterable[Any], on_move: Callable[[Any], object] | None = None) -> None:
        """Play a player's whole answer, in order, until the game ends; ``on_move`` sees each action
        played. A reveal of a cell an earlier action opened is skipped (the player could not know);
        any other illegal action raises. ``Actions`` go to ``kernels.play_rows``."""
        if type(actions) is Actions and on_move is None:
            self._play_rows(actions.rows)
            return
        covered_before = self._view == COVERED
        for number, action in enumerate(actions):
            if self._status is not GameStatus.PLAYING:
                break
            if number and self._opened_meanwhile(action, covered_before):
                self._keep_note(action)  # skipped, not played: its note stays with the move before
                continue
            self.apply(action)
            if on_move is not None:
                on_move(action)

    def _opened_meanwhile(self, action: Any, covered_before: np.ndarray) -> bool:
        """A reveal of an on-board cell that was covered when the answer came and is revealed now."""
        try:
            kind, row, col = action[0], action[1], action[2]
            if kind != ActionKind.REVEAL or not (0 <= row < self.height and 0 <= col < self.width):
                return False
            cell = row * self.width + col
            return bool(covered_before[cell]) and self._view[cell] >= 0
        except (TypeError, IndexError, KeyError, ValueError):
            return False  # not an action at all: let apply say why

    def _play_rows(self, rows: np.ndarray) -> None:
        n = rows.shape[0]
        if self._recording:
            self._take_room(n)  # at most a move a row
            moves_before = self._moves
            try:
                self._play_rows_from(rows)
            finally:  # what the rows did not play is room again (a row ``apply`` played took its own)
                self._room += max(0, n - (self._moves - moves_before))
        else:
            self._play_rows_from(rows)

    def _play_rows_from(self, rows: np.ndarray) -> None:
        n = rows.shape[0]
        before = self._view.copy()
        i = 0
        while i < n and self._status is GameStatus.PLAYING:
            # The kernel leaves the first reveal (the layout is drawn then) and every refused row
            # to ``apply``, which plays the one or raises the engine's error for the other.
            truth = _UNDRAWN if self._first_click is None or self._truth is None else self._truth
            figures = (self._moves, self._reveals, self._flags, self._chords, self._flags_placed, self._left)
            counters = np.array([*figures, self._guesses, -1], dtype=np.int64)
            i = kernels.play_rows(
                self._view, truth, self.height, self.width, rows, i, before, self._stack, self._hit, counters, self._log
            )
            figures = counters.tolist()
            self._moves, self._reveals, self._flags, self._chords, self._flags_placed, self._left = figures[:6]
            self._guesses, hit = figures[6:]
            if hit >= 0:
                self._status = GameStatus.LOST
                self._exploded = hit
            elif self._left == 0:
                self._status = GameStatus.WON
            elif i < n:
                self.apply(action_from_row(rows[i].tolist()))
                i += 1

    # -- what can be seen -----------------------------------------------------------------
    @property
    def status(self) -> GameStatus:
        return self._status

    @property
    def over(self) -> bool:
        return self._status is not GameStatus.PLAYING

    @property
    def won(self) -> bool:
        return self._status is GameStatus.WON

    @property
    def moves(self) -> int:
        return self._moves

    @property
    def flags_placed(self) -> int:
        """Flags on the board now (an observation's ``flags``)."""
        return self._flags_placed

    @property
    def guesses(self) -> int:
        """Reveals played with the player's ``guess`` mark (the engine only counts them)."""
        return self._guesses

    @property
    def first_click(self) -> tuple[int, int] | None:
        return self._first_click

    def move_log(self) -> np.ndarray | None:
        """A copy of the move log, or None when the game does not record."""
        return log_copy(self._log)

    @property
    def log(self) -> np.ndarray:
        """The live move log (``log[:log[0]]`` in use; empty when not recording): read, never write."""
        return self._log

    @property
    def notes(self) -> dict[int, tuple[str, float | None]]:
        """Move number (0-based) -> (note, p_mine) of the actions that carried one (recording games)."""
        return dict(self._notes)

    @property
    def grid(self) -> np.ndarray:
        """A live read-only (height, width) view of what is revealed, for the arena's own loop."""
        grid = self._view.reshape(self.height, self.width).view()
        grid.flags.writeable = False
        return grid

    @property
    def safe_left(self) -> int:
        """Covered safe cells still to reveal."""
        return self._left

    def observation(self) -> Observation:
        grid = self._view.reshape(self.height, self.width).copy()
        grid.flags.writeable = False
        return Observation(grid, self.spec.mines, self.rule, self._moves, self._flags_placed)

    def stats(self) -> GameStats:
        solved = 0
        if self._labels is not None:
            solved = int(kernels.bbbv_solved(self._view, self._labels, self._openings))
        return GameStats(
            status=self._status,
            rule=self.rule,
            first_click=self._first_click,
            moves=self._moves,
            reveals=self._reveals,
            flags=self._flags,
            chords=self._chords,
            revealed_cells=int((self._view >= 0).sum()),
            bbbv=int(self._bbbv),
            bbbv_solved=solved,
        )

    # -- hidden state, for the arena and for tests; never handed to a player ----------------
    def mine_layout(self, click: tuple[int, int] | None = None) -> np.ndarray:
        """The boolean (height, width) layout; before the first reveal, the one ``click`` would get."""
        if self._truth is not None:
            return (self._truth == MINE).reshape(self.height, self.width)
        if click is None:
            raise IllegalActionError("the layout is drawn at the first reveal; name the first click")
        self.spec.check_cell(*click)
        return self._mines_for(click).reshape(self.height, self.width) == 1

    def final_grid(self) -> np.ndarray:
        """The view with every mine shown (``MINE``) once the game is over, for display."""
        grid = self._view.copy()
        if self.over and self._truth is not None:
            hidden_mines = (self._truth == MINE) & (grid != FLAGGED)
            grid[hidden_mines] = MINE
        return grid.reshape(self.height, self.width)

    @property
    def exploded(self) -> tuple[int, int] | None:
        if self._exploded < 0:
            return None
        return divmod(self._exploded, self.width)

    def __repr__(self) -> str:
        return (
            f"<Game {self.spec.label} rule={self.rule.value} seed={self.seed} index={self.index} "
            f"status={self._status.value} moves={self._moves}>"
        )
