"""The `apex` player: certain moves first, determinism, options, legality over many games."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from arena.outcome import Outcome
from arena.play.runner import play_game
from engine import BEGINNER, EXPERT, INTERMEDIATE, Action, ActionKind, BoardSpec, FirstClick, Game
from engine.layout import parse_position
from players.api import PlayerOptionsError
from players.builtin.apex import ApexPlayer
from players.builtin.apex.outlook import Outlook
from players.builtin.apex.patterns import unavoidable_pair
from players.builtin.apex.player import (
    DECIDED_ENDGAME,
    DECIDED_FIFTY,
    DECIDED_LOOKAHEAD,
    DECIDED_SAFEST,
)
from players.registry import Registry
from players.solver import analyze


def _observation(text: str, mines: int, rule: FirstClick = FirstClick.SAFE):
    from engine import Observation

    grid = parse_position(text)
    grid.flags.writeable = False
    return Observation(grid, mines, rule, 1, int((grid == -2).sum()))


def _player(**options: object) -> ApexPlayer:
    player = ApexPlayer(options)
    player.reset(np.random.default_rng(0), BoardSpec(4, 4, 2), FirstClick.SAFE)
    return player


def test_registered_as_builtin() -> None:
    registry = Registry(entry_points=False)
    assert registry.get("apex").cls is ApexPlayer


@pytest.mark.parametrize(
    "options",
    [{"deep": -1}, {"deep": "lots"}, {"endgame_layouts": -1}, {"endgame_effort": 0}, {"bogus": 1}],
)
def test_options_are_validated(options: dict[str, object]) -> None:
    with pytest.raises(PlayerOptionsError):
        ApexPlayer(options)


@pytest.mark.parametrize(
    "option",
    ["lookahead", "tolerance", "fifty_fifty", "pseudo_fifty", "fifty_influence", "blended_safety", "opening_cell"],
)
def test_research_options_are_gone_with_a_clear_error(option: str) -> None:
    # Measured ablations and refinements left out of the player (docs/experiments.md): refused,
    # by name, in one line.
    with pytest.raises(PlayerOptionsError, match=f"^player 'apex': {option}: Extra inputs are not permitted$"):
        ApexPlayer({option: 1})


def test_first_click_follows_the_rule() -> None:
    player = _player()
    covered = "\n".join(["#" * 9] * 9)
    safe = player.play(_observation(covered, 10))
    assert safe == [Action.reveal(0, 0)]
    opening = player.play(_observation(covered, 10, FirstClick.OPENING))
    assert opening == [Action.reveal(3, 3)]


def _positions(count: int) -> list:
    """Observations from real Intermediate games, collected along a simple certain-first play."""
    found = []
    for board in range(40):
        game = Game(INTERMEDIATE, FirstClick.SAFE, seed=11, index=board)
        game.reveal(0, 0)
        while not game.over and len(found) < count:
            observation = game.observation()
            found.append(observation)
            analysis = analyze(observation.grid, observation.mines)
            if analysis.safe:
                game.reveal(*analysis.safe[0])
            else:
                game.reveal(*analysis.best_guesses()[0])
    return found


def test_certain_moves_come_first_and_guesses_only_when_none() -> None:
    from players.deduction import certain_actions

    player = _player()
    kinds = set()
    for observation in _positions(300):
        actions = player.play(observation)
        rules = certain_actions(observation)
        if rules:
            kinds.add("rules")
            assert actions == rules
            continue
        analysis = analyze(observation.grid, observation.mines)
        if analysis.safe:
            kinds.add("solver")
            assert not any(a.guess for a in actions)
            assert {(a.row, a.col) for a in actions if a.kind is ActionKind.REVEAL} == set(analysis.safe)
        else:
            kinds.add("guess")
            assert [a.guess for a in actions].count(True) == 1 and actions[-1].guess
            assert {(a.row, a.col) for a in actions[:-1]} == set(analysis.mines)
            assert analysis.probabilities[actions[-1].row, actions[-1].col] < 1.0
    assert kinds == {"rules", "solver", "guess"}


def test_solver_certain_moves_are_played_without_guessing() -> None:
    # A 1-2-1 pattern: only the solver (not the single-cell rules) proves the middle cell safe.
    text = "###\n121\n000"
    actions = _player().play(_observation(text, 2))
    assert Action.reveal(0, 1) in actions
    assert not any(a.guess for a in actions)


def test_unavoidable_pair_is_found_and_guessed() -> None:
    # Two covered cells behind a wall of numbers, one mine between them: nothing else sees them.
    grid = parse_position("001#\n001#")
    outlook = Outlook(grid, 1, analyze(grid, 1))
    assert unavoidable_pair(outlook) == (0, 3)
    assert _player().play(_observation("001#\n001#", 1)) == [Action.reveal(0, 3, guess=True)]
    # The same pair with covered (if safe) cells next to it is not unavoidable yet.
    grid = parse_position("001#\n001#\n####")
    assert unavoidable_pair(Outlook(grid, 1, analyze(grid, 1))) is None


ENDGAME_POSITION = "001##\n002##\n123##\n#####"  # 5 mines, few layouts, no 50/50 pair
LOOKAHEAD_POSITION = "00000\n11111\n##3##\n#####"  # 5 mines, several near-safest cells


@pytest.mark.parametrize(
    ("text", "mines", "options", "decided_by", "cell"),
    [
        ("001#\n001#", 1, {}, DECIDED_FIFTY, (0, 3)),
        (ENDGAME_POSITION, 5, {}, DECIDED_ENDGAME, (3, 3)),
        # A search past its work budget gives up: the heuristics decide, and say so.
        (ENDGAME_POSITION, 5, {"endgame_effort": 1}, DECIDED_SAFEST, (3, 3)),
        (ENDGAME_POSITION, 5, {"endgame_layouts": 0}, DECIDED_SAFEST, (3, 3)),
        (LOOKAHEAD_POSITION, 5, {}, DECIDED_ENDGAME, (2, 0)),
        (LOOKAHEAD_POSITION, 5, {"endgame_layouts": 0}, DECIDED_LOOKAHEAD, (2, 0)),
        (LOOKAHEAD_POSITION, 5, {"endgame_layouts": 0, "deep": 0}, DECIDED_LOOKAHEAD, (2, 0)),
    ],
)
def test_decided_by_names_the_part_that_chose_the_guess(
    text: str, mines: int, options: dict[str, object], decided_by: str, cell: tuple[int, int]
) -> None:
    player = _player(**options)
    assert player.decided_by is None
    assert player.play(_observation(text, mines))[-1] == Action.reveal(*cell, guess=True)
    assert player.decided_by == decided_by


def test_pair_tied_to_the_rest_of_the_board_is_not_unavoidable() -> None:
    # (0,3)/(1,3) are sealed, 1/2 each and one mine between them, but the 3 at (2,3) sees (1,3)
    # and not (0,3), and has other unknown cells: other clicks can still tell the pair apart.
    grid = parse_position("123#10\n3###10\n###310\n244#10\n01##10")
    analysis = analyze(grid, 8)
    assert analysis.probabilities[0, 3] == pytest.approx(0.5)
    assert analysis.probabilities[1, 3] == pytest.approx(0.5)
    assert unavoidable_pair(Outlook(grid, 8, analysis)) is None


def _trajectory_hash(player: ApexPlayer, spec: BoardSpec, rule: FirstClick, boards: range) -> str:
    digest = hashlib.sha256()
    for board in boards:
        result = play_game(player, "apex", spec, rule, 77, board)
        digest.update(repr(result.as_row() | {"cpu_ms": 0, "wall_ms": 0}).encode())
    return digest.hexdigest()


@pytest.mark.slow
def test_deterministic_for_a_seed() -> None:
    boards = range(12)
    first = _trajectory_hash(ApexPlayer(), INTERMEDIATE, FirstClick.SAFE, boards)
    random.seed(12345)
    np.random.seed(54321)
    random.random()
    np.random.random(17)
    second = _trajectory_hash(ApexPlayer(), INTERMEDIATE, FirstClick.SAFE, boards)
    assert first == second


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "rule", "games"),
    [
        (BEGINNER, FirstClick.SAFE, 60),
        (BEGINNER, FirstClick.NONE, 30),
        (INTERMEDIATE, FirstClick.OPENING, 20),
        (EXPERT, FirstClick.SAFE, 6),
        (BoardSpec(5, 7, 12, "custom"), FirstClick.SAFE, 60),
    ],
)
def test_never_illegal_over_many_games(spec: BoardSpec, rule: FirstClick, games: int) -> None:
    player = ApexPlayer()
    outcomes = [play_game(player, "apex", spec, rule, 5, board).outcome for board in range(games)]
    assert set(outcomes) <= {Outcome.WON, Outcome.LOST}, outcomes
    if spec is BEGINNER and rule is FirstClick.SAFE:
        assert outcomes.count(Outcome.WON) >= games // 2


@pytest.mark.slow
def test_every_option_variant_plays_legally() -> None:
    variants = [
        {"endgame_layouts": 0},
        {"deep": 0},
        {"endgame_layouts": 2000, "endgame_effort": 50},
        {"deep": 2, "endgame_layouts": 0},
        {"parallel": True, "parallel_threshold": 1},
    ]
    for options in variants:
        player = ApexPlayer(options)
        for board in range(15):
            result = play_game(player, "apex", BEGINNER, FirstClick.SAFE, 9, board)
            assert result.outcome in (Outcome.WON, Outcome.LOST), (options, result.error)


def test_a_won_game_reveals_every_safe_cell() -> None:
    player = ApexPlayer()
    for board in range(20):
        game = Game(BEGINNER, FirstClick.SAFE, seed=3, index=board)
        player.reset(np.random.default_rng(board), BEGINNER, FirstClick.SAFE)
        while not game.over:
            for action in player.play(game.observation()):
                if game.over:
                    break
                if action.kind is ActionKind.REVEAL and game.grid[action.row, action.col] >= 0:
                    continue
                game.apply(action)
        if game.won:
            assert game.safe_left == 0
