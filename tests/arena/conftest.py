"""Shared fixtures of the arena tests: hand-made results, plugin files, the CLI runner and scripted players.

Helpers are fixtures (not importable functions) because the suite runs with ``--import-mode=importlib``,
where ``conftest`` is not an importable module.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner, Result

from arena.analysis.replay import ReplayGame, ReplayMove
from arena.cli import app
from arena.outcome import GameResult, Outcome
from arena.play.runner import play_game
from engine import Action, BoardSpec, FirstClick, Game, Observation
from players import Player
from players.registry import Registry

#: A plugin file with a player that plays like ``random`` but raises KeyboardInterrupt (a Ctrl-C) when it is
#: reset for the board named in ARENA_TEST_INTERRUPT="SEED:BOARD". A player does not know its board index, but
#: it can recognise the board from the generator the arena hands it (``player_generator(seed, board, name)``).
INTERRUPTER_SOURCE = """
import os

from engine.layout import player_generator
from players import hookimpl
from players.builtin.random_player import RandomPlayer


class Interrupter(RandomPlayer):
    name = "interrupter"
    description = "random, but presses Ctrl-C on one chosen board"

    def reset(self, rng, spec, rule):
        target = os.environ.get("ARENA_TEST_INTERRUPT")
        if target:
            seed, board = (int(part) for part in target.split(":"))
            if rng.bit_generator.state == player_generator(seed, board, self.name).bit_generator.state:
                raise KeyboardInterrupt
        super().reset(rng, spec, rule)


@hookimpl
def register_players(register):
    register(Interrupter)
"""


#: Players that fail in every way a game can be failed. ``crasher`` and ``hanger`` play the warm-up game
#: (beginner) but fail on the 5x5 boards of the tests; ``hanger`` writes its pid to the settings' ``pid_file``
#: and hangs on boards of ``hang_rows`` rows instead when that is set (9: in the warm-up).
BAD_BOTS = """
import json
import os
import sys
import time

from engine import Action
from players import Player, hookimpl


class Raiser(Player):
    name = "raiser"

    def play(self, observation):
        if observation.first_move:
            return Action.reveal(0, 0)
        raise RuntimeError("[bold]the bot broke[/bold]")


class Nothing(Player):
    name = "nothing"

    def play(self, observation):
        return None


class OffBoard(Player):
    name = "off-board"

    def play(self, observation):
        if observation.first_move:
            return Action.reveal(0, 0)
        return Action.reveal(observation.height, 0)


class Stubborn(Player):
    name = "stubborn"

    def play(self, observation):
        return Action.reveal(0, 0)


class Crasher(Player):
    name = "crasher"

    def play(self, observation):
        if observation.first_move or observation.height != 5:
            rows, cols = (observation.grid < 0).nonzero()
            return Action.reveal(int(rows[0]), int(cols[0]))
        print("crasher: giving up for good", file=sys.stderr, flush=True)
        os._exit(3)


class Hanger(Player):
    name = "hanger"

    def play(self, observation):
        path = os.path.join(os.path.dirname(__file__), "settings.json")
        settings = json.load(open(path)) if os.path.exists(path) else {}
        if observation.height == int(settings.get("hang_rows", 5)):
            with open(settings["pid_file"], "w") as out:
                out.write(str(os.getpid()))
            time.sleep(3600)
        rows, cols = (observation.grid < 0).nonzero()
        return Action.reveal(int(rows[0]), int(cols[0]))


@hookimpl
def register_players(register):
    for cls in (Raiser, Nothing, OffBoard, Stubborn, Crasher, Hanger):
        register(cls)
"""


@pytest.fixture
def write_plugin(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write plugin source to ``tmp_path/<name>.py`` and return the path."""

    def write(source: str, name: str = "plugin") -> Path:
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return path

    return write


@pytest.fixture
def bad_bots(write_plugin: Callable[[str, str], Path]) -> Path:
    """The ``BAD_BOTS`` plugin file; a ``settings.json`` beside it steers ``hanger``."""
    return write_plugin(BAD_BOTS, "bad_bots")


@pytest.fixture
def interrupter_plugin(write_plugin: Callable[[str, str], Path]) -> Path:
    return write_plugin(INTERRUPTER_SOURCE, "interrupter_plugin")


@pytest.fixture
def make_result() -> Callable[..., GameResult]:
    """A ``GameResult`` with plausible defaults; override any field by keyword."""

    def make(player: str, board: int, outcome: Outcome | str = Outcome.WON, **fields: Any) -> GameResult:
        values: dict[str, Any] = {
            "moves": 20,
            "reveals": 15,
            "flags": 5,
            "chords": 0,
            "guesses": 1,
            "bbbv": 10,
            "bbbv_solved": 10,
            "revealed_cells": 71,
            "first_row": 0,
            "first_col": 0,
            "cpu_ms": 1.0,
            "wall_ms": 1.5,
            "error": "",
        }
        values.update(fields)
        return GameResult(player=player, board=board, outcome=Outcome(outcome), **values)

    return make


#: The width the CLI's tables are printed at in the tests unless one asks for another: what the CLI uses
#: for a pipe. Never the terminal's (or ``COLUMNS``) the suite happens to run under.
CLI_COLUMNS = 160


@pytest.fixture
def cli() -> Callable[..., Result]:
    """Invoke the ``arena`` app in-process; ``result.stdout``/``result.stderr`` are separate, ``output`` mixes them.
    Output is ``columns`` wide (``CLI_COLUMNS`` unless given), whatever terminal the tests run in."""
    from arena.cli import common

    runner = CliRunner()

    def invoke(*args: str | Path, columns: int = CLI_COLUMNS) -> Result:
        saved = common.console._width  # None: the console follows COLUMNS or the terminal
        common.console.width = columns
        try:
            return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": str(columns)})
        finally:
            common.console._width = saved

    return invoke


class ScriptedPlayer(Player):
    """Answers with whatever ``script(observation)`` returns: the test decides every move."""

    name = "scripted"

    def __init__(self, script: Callable[[Observation], Any]) -> None:
        super().__init__()
        self.script = script

    def play(self, observation: Observation) -> Any:
        return self.script(observation)


class LayoutPlayer(Player):
    """A cheater for tests: it is handed the board's layout for its first click and reveals only safe cells.

    ``batch=True`` answers every safe cell in one list (the click first, then row-major order, so that most of
    them are opened by flood fill before their turn); otherwise one covered safe cell per answer. The first
    ``guesses`` reveals it plays are marked as guesses. ``then`` is appended to the batch answer.
    """

    name = "layout-cheat"

    def __init__(
        self,
        layout: Any,
        click: tuple[int, int],
        *,
        batch: bool = False,
        guesses: int = 0,
        then: Sequence[Action] = (),
    ) -> None:
        super().__init__()
        self.layout = layout
        self.click = click
        self.batch = batch
        self.guesses = guesses
        self.then = list(then)
        self.played = 0

    def _reveal(self, row: int, col: int) -> Action:
        self.played += 1
        return Action.reveal(row, col, guess=self.played <= self.guesses)

    def safe_cells(self) -> list[tuple[int, int]]:
        height, width = self.layout.shape
        cells = [(r, c) for r in range(height) for c in range(width) if not self.layout[r, c]]
        cells.remove(self.click)
        return [self.click, *cells]

    def play(self, observation: Observation) -> Any:
        if self.batch:
            return [self._reveal(r, c) for r, c in self.safe_cells()] + self.then
        for r, c in self.safe_cells():
            if observation.grid[r, c] < 0:
                return self._reveal(r, c)
        raise AssertionError("asked to play a finished game")


@pytest.fixture
def scripted() -> type[ScriptedPlayer]:
    return ScriptedPlayer


@pytest.fixture
def cheater() -> Callable[..., LayoutPlayer]:
    """``cheater(spec, rule, seed, board, click, **kw)``: a LayoutPlayer given that board's real layout."""

    def make(
        spec: BoardSpec, rule: FirstClick, seed: int, board: int, click: tuple[int, int], **kwargs: Any
    ) -> LayoutPlayer:
        layout = Game(spec, rule, seed=seed, index=board).mine_layout(click)
        return LayoutPlayer(layout, click, **kwargs)

    return make


@pytest.fixture
def read_only_folder() -> Iterator[tuple[Path, Callable[..., contextlib.AbstractContextManager[None]]]]:
    """``(folder, locked)``: ``with locked():`` makes every file in ``folder`` mode 444 (or ``mode``) and
    the folder 555, and runs the body as a user that cannot write them. As root, who may write anyway, that is
    ``nobody`` (effective ids only); the folder lies under /tmp because ``tmp_path`` is root's alone.
    Import what the body needs before entering: ``nobody`` cannot read root's Python either."""
    if sys.platform == "win32":
        pytest.skip("POSIX permissions")
    folder = Path(tempfile.mkdtemp(prefix="arena-read-only-"))
    folder.chmod(0o755)

    @contextlib.contextmanager
    def locked(mode: int = 0o444) -> Iterator[None]:
        for file in folder.iterdir():
            file.chmod(mode)
        folder.chmod(0o555)
        root = os.geteuid() == 0
        try:
            if root:
                os.setegid(65534)
                os.seteuid(65534)
            yield
        finally:
            if root:
                os.seteuid(0)
                os.setegid(0)
            folder.chmod(0o755)

    try:
        yield folder, locked
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class RecordedGame:
    """A game played through the arena's loop with every move logged as it was played: the record
    (``game``, as the store keeps one) and the engine's own visible grid after each move (``grids[k]``)."""

    game: ReplayGame
    grids: list[np.ndarray]
    result: GameResult


@pytest.fixture(scope="session")
def record_game() -> Callable[..., RecordedGame]:
    """``record_game(player, spec, rule, seed, board, note=None)``: play ``player`` (a built-in name or a
    ``Player``) on that board and keep its moves; ``note(game, action)`` may attach a note to each move."""
    registry = Registry(entry_points=False)

    def play(
        player: str | Player,
        spec: BoardSpec,
        rule: FirstClick | str = FirstClick.SAFE,
        seed: int = 0,
        board: int = 0,
        *,
        note: Callable[[Game, Action], Any] | None = None,
    ) -> RecordedGame:
        bot = registry.create(player) if isinstance(player, str) else player
        rule = FirstClick.parse(rule)
        first = Game(spec, rule, seed=seed, index=board)
        moves: list[ReplayMove] = []
        grids = [first.grid.copy()]

        def moved(game: Game, action: Action) -> None:
            moves.append(ReplayMove.from_action(action, None if note is None else note(game, action)))
            grids.append(game.grid.copy())

        result = play_game(bot, bot.name, spec, rule, seed, board, on_move=moved)
        record = ReplayGame(bot.name, spec, rule, seed, board, moves, result.outcome, result.error)
        return RecordedGame(record, grids, result)

    return play
