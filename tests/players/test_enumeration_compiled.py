"""The enumeration player's compiled whole games are its move-by-move games."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from arena.outcome import Outcome
from arena.play.agents import TrustedAgent
from arena.play.runner import play_game
from engine import BEGINNER, EXPERT, INTERMEDIATE, BoardSpec, FirstClick
from engine.compiled_game import CompiledGame
from engine.layout import player_seed_words
from players.builtin import enumeration_compiled
from players.builtin.enumeration_player import EnumerationPlayer
from players.solver.analysis import piece_probabilities, unconstrained_probability


def rows(player: EnumerationPlayer, spec: BoardSpec, rule: FirstClick, boards: range, **kwargs) -> list[dict]:
    out = []
    for board in boards:
        row = play_game(player, "enumeration", spec, rule, 77, board, **kwargs).as_row()
        del row["cpu_ms"], row["wall_ms"]
        out.append(row)
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "rule", "boards"),
    [
        (BEGINNER, FirstClick.SAFE, 300),
        (BEGINNER, FirstClick.NONE, 100),
        (BEGINNER, FirstClick.WINDOWS, 100),
        (INTERMEDIATE, FirstClick.SAFE, 60),
        (INTERMEDIATE, FirstClick.OPENING, 40),
        (EXPERT, FirstClick.SAFE, 25),
        (BoardSpec(5, 7, 12), FirstClick.SAFE, 100),
    ],
    ids=["beginner", "beginner-none", "beginner-windows", "intermediate", "intermediate-opening", "expert", "dense"],
)
def test_compiled_games_are_the_move_by_move_games(spec: BoardSpec, rule: FirstClick, boards: int) -> None:
    player = EnumerationPlayer()
    compiled = rows(player, spec, rule, range(boards))
    assert compiled == rows(player, spec, rule, range(boards), compiled=False)
    assert {row["outcome"] for row in compiled} >= {"won", "lost"}


def test_the_compiled_path_plays_and_does_not_decline() -> None:
    player = EnumerationPlayer()
    for board in range(50):
        game = CompiledGame(INTERMEDIATE, FirstClick.SAFE, 77, board)
        assert player.play_compiled(game, player_seed_words(77, board, player.name), 10_000)
        assert game.status.value in ("won", "lost")


def test_positions_the_fast_path_declines_go_through_analyze(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the solver's fast path declining every position (a negative search probe), the general
    path's answers give the same games."""
    player = EnumerationPlayer()
    want = rows(player, BEGINNER, FirstClick.SAFE, range(40), compiled=False)
    analysed = []
    original = enumeration_compiled.analyze
    monkeypatch.setattr(enumeration_compiled, "analyze", lambda *a, **k: analysed.append(1) or original(*a, **k))
    monkeypatch.setattr(enumeration_compiled, "_FAST_SEARCH_NODES", -1)
    assert rows(player, BEGINNER, FirstClick.SAFE, range(40)) == want
    assert len(analysed) > 20


def test_positions_counted_in_python_give_the_same_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """A position that ``prepare`` does not finish in compiled code (weights that need numpy's
    logs) goes through ``fast_prepared`` from Python: forced here for every position."""
    player = EnumerationPlayer()
    want = rows(player, BEGINNER, FirstClick.SAFE, range(40), compiled=False)
    prepared = []
    original = enumeration_compiled.fast_prepared

    def counted(grid: object, mines: int, weighted: bool, use_rref: bool, rref: int, probe: int, exact: int) -> object:
        prepared.append(probe)
        return original(grid, mines, weighted, use_rref, rref, 20_000, exact)

    monkeypatch.setattr(enumeration_compiled, "fast_prepared", counted)
    monkeypatch.setattr(enumeration_compiled, "_FAST_SEARCH_NODES", -1)
    assert rows(player, BEGINNER, FirstClick.SAFE, range(40)) == want
    assert len(prepared) > 20


def test_declined_games_are_replayed_move_by_move() -> None:
    """Past the move limit the compiled path declines; the move-by-move game reports the error."""
    player = EnumerationPlayer()
    got = rows(player, EXPERT, FirstClick.SAFE, range(3), move_limit=2)
    assert got == rows(player, EXPERT, FirstClick.SAFE, range(3), move_limit=2, compiled=False)
    assert all(row["outcome"] == Outcome.ERROR.value for row in got)


@pytest.mark.parametrize("options", [{"counting": "rust"}, {"interior": "density"}])
def test_other_options_and_subclasses_play_move_by_move(options: dict) -> None:
    class Variant(EnumerationPlayer):
        pass

    game = CompiledGame(BEGINNER, FirstClick.SAFE, 1, 0)
    words = player_seed_words(1, 0, "enumeration")
    assert not EnumerationPlayer(options).play_compiled(game, words, 1000)
    assert not Variant().play_compiled(game, words, 1000)
    assert game.moves == 0


def test_tournament_workers_take_the_compiled_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers hand the runner a ``TrustedAgent``: its player still plays whole games."""
    calls = []
    original = EnumerationPlayer.play_compiled

    def counted(self: EnumerationPlayer, *args: object) -> bool:
        calls.append(1)
        return original(self, *args)

    monkeypatch.setattr(EnumerationPlayer, "play_compiled", counted)
    player = EnumerationPlayer()
    got = play_game(TrustedAgent(player), "enumeration", BEGINNER, FirstClick.SAFE, 5, 0).as_row()
    want = play_game(player, "enumeration", BEGINNER, FirstClick.SAFE, 5, 0, compiled=False).as_row()
    for row in (got, want):
        del row["cpu_ms"], row["wall_ms"]
    assert got == want
    assert calls == [1]


@pytest.mark.slow
def test_the_first_game_loads_every_kernel() -> None:
    """Whatever the first board (the arena's warm-up), every path a game takes is loaded by then: in a fresh
    process, 300 Beginner games played after ``_load_kernels`` (many a call, then one a call, guesses that
    numpy's arithmetic finishes among them) load no compiled function of the module."""
    code = """
import numpy as np, numba
from engine import BEGINNER, FirstClick
from engine.compiled_game import CompiledGame
from engine.layout import name_key, player_seed_words
from players.builtin import enumeration_compiled as c
from players.builtin.common import ThreadingOptions

def loaded():
    return {k: len(v.signatures) for k, v in vars(c).items() if isinstance(v, numba.core.registry.CPUDispatcher)}

c._load_kernels()
before = loaded()
game = CompiledGame(BEGINNER, FirstClick.SAFE, 3, 0, record=True)
figures = np.zeros((150, c.BOARD_COLUMNS), np.int64)
logs, ends = np.zeros(150 * game.log.shape[0], np.int32), np.zeros(150, np.int64)
c.play_boards(game, 3, np.arange(150), name_key("enumeration"), 1000, ThreadingOptions(), figures, logs, ends)
for board in range(150, 300):
    game.reset(3, board)
    c.play_whole_game(game, player_seed_words(3, board, "enumeration"), 1000, ThreadingOptions())
print(before == loaded(), before["_run"], int(figures[:, c.DONE].sum()))
"""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.split() == ["True", "1", "150"]


@pytest.mark.parametrize("loops", [False, True], ids=["python", "numpy-loops"])
def test_guesses_without_the_shortcut_are_the_same_games(loops: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every guess through numpy's arithmetic (no ``_exact_shares``): the same games, whether Python
    finishes the guess or compiled code calls numpy's loops (then Python finishes none)."""
    player = EnumerationPlayer()
    want = rows(player, BEGINNER, FirstClick.SAFE, range(60), compiled=False)
    products = []
    original = enumeration_compiled.piece_probabilities
    monkeypatch.setattr(enumeration_compiled, "piece_probabilities", lambda *a: products.append(1) or original(*a))
    monkeypatch.setattr(enumeration_compiled, "_EXACT_SHARES", False)
    monkeypatch.setattr(enumeration_compiled, "NUMPY_LOOPS", loops)
    assert rows(player, BEGINNER, FirstClick.SAFE, range(60)) == want
    assert len(products) > 20 if not loops else products == []


def test_exact_shares_are_numpys_products() -> None:
    """Shares of exactly 1 and 0 give numpy's numbers; any other share is left to numpy."""
    inf = -np.inf
    exponents = np.array([inf, 0.0, 0.0, inf, inf, inf, 0.0])  # two components, then the frontier totals
    ratios = np.array([0.1, 0.7, 0.3, 0.9, 0.25, 0.5, 1 / 3, 0.2, 0.8, 0.6])
    spans = np.array([0, 2, 0, 6, 2, 3, 2, 4, 6, 10, 2, 2], np.int64)
    feasible_at, rest = np.array([4, 5, 6], np.int64), np.array([7, 6, 5], np.int64)
    shares = np.exp(exponents)
    want_p = piece_probabilities(shares, ratios, spans.tolist())
    for u_state in (-1, 0, 1):
        want_u = unconstrained_probability(shares, feasible_at, rest, u_state, 9)
        exact, piece_p, u = enumeration_compiled._exact_shares(exponents, ratios, spans, feasible_at, rest, u_state, 9)
        assert exact
        assert piece_p.tolist() == want_p.tolist()
        assert u == want_u
    for i in (0, 2, 5):
        bent = exponents.copy()
        bent[i] = -0.5
        assert not enumeration_compiled._exact_shares(bent, ratios, spans, feasible_at, rest, -1, 9)[0]


def test_a_reused_game_keeps_to_each_games_move_limit() -> None:
    """The arena plays game after game in one reset ``CompiledGame``: each call's own limit holds."""
    player = EnumerationPlayer()
    game = CompiledGame(EXPERT, FirstClick.SAFE, 77, 0)
    for board, limit, done in ((0, 10_000, True), (1, 2, False), (2, 10_000, True)):
        game.reset(77, board)
        assert player.play_compiled(game, player_seed_words(77, board, player.name), limit) is done
        assert (game.status.value in ("won", "lost")) is done
