"""The max/mean-constraint players and the options that reproduce the C++ engine's players
(``subsets``, ``density_floor``, ``ties``, ``opening_cell``), with ``random``'s ``subsets`` too."""

from __future__ import annotations

import numpy as np
import pytest

from engine import COVERED, EXPERT, FLAGGED, Action, ActionKind, BoardSpec, FirstClick, Game, Observation
from engine.layout import parse_position, player_generator
from players.api import PlayerOptionsError
from players.builtin import MaxSingleConstraintPlayer, MeanConstraintPlayer, RandomPlayer
from players.builtin.single_constraint import constraint_estimates
from players.deduction import subset_closure

PLAYERS = (RandomPlayer, MaxSingleConstraintPlayer, MeanConstraintPlayer)


def observe(position: str, mines: int, rule: FirstClick = FirstClick.SAFE) -> Observation:
    grid = parse_position(position)
    grid.flags.writeable = False
    return Observation(grid, mines, rule, moves=1, flags=int((grid == FLAGGED).sum()))


def make(cls: type, seed: int = 0, **options: object):
    bot = cls(options)
    bot.reset(np.random.default_rng(seed), BoardSpec(9, 9, 10, "beginner"), FirstClick.SAFE)
    return bot


@pytest.mark.parametrize("cls", PLAYERS)
def test_subsets_finds_the_one_two_two_one_that_the_single_cell_rules_miss(cls: type) -> None:
    obs = observe("####\n1221\n0000", mines=2)
    (guess,) = make(cls).play(obs)
    assert guess.guess
    actions = make(cls, subsets=True).play(obs)
    assert actions == [Action.reveal(0, 0), Action.reveal(0, 3), Action.flag(0, 1), Action.flag(0, 2)]


@pytest.mark.parametrize("cls", PLAYERS)
@pytest.mark.parametrize(
    "options",
    [{"subsets": "sometimes"}, {"opening_cell": (-1, 0)}, {"opening_cell": (1, 2, 3)}, {"anything": 1}],
)
def test_bad_options_are_refused(cls: type, options: dict[str, object]) -> None:
    with pytest.raises(PlayerOptionsError, match=f"player {cls.name!r}"):
        cls(options)


@pytest.mark.parametrize(
    ("cls", "options"),
    [
        (MaxSingleConstraintPlayer, {"ties": "first"}),
        (MeanConstraintPlayer, {"density_floor": True}),  # the max player's alone
        (RandomPlayer, {"ties": "scan"}),
    ],
)
def test_options_of_other_players_are_refused(cls: type, options: dict[str, object]) -> None:
    with pytest.raises(PlayerOptionsError):
        cls(options)


@pytest.mark.parametrize("cls", PLAYERS)
def test_opening_cell_under_the_opening_rule_only(cls: type) -> None:
    for rule, default in ((FirstClick.OPENING, (3, 3)), (FirstClick.SAFE, (0, 0))):
        obs = Observation(np.full((16, 30), COVERED, dtype=np.int8), 99, rule, 0, 0)
        assert make(cls).play(obs) == [Action.reveal(*default)]
        assert make(cls, opening_cell=(0, 0)).play(obs) == [Action.reveal(0, 0)]
        big = make(cls, opening_cell=(40, 2)).play(obs)
        assert big == [Action.reveal(15, 2) if rule is FirstClick.OPENING else Action.reveal(0, 0)]


def test_density_floor() -> None:
    # The 1 sees eight covered cells (1/8 each); 10 mines on 24 covered cells: density 10/24.
    obs = observe("#####\n#####\n##1##\n#####\n#####", mines=10)
    plain = constraint_estimates(obs, "max")
    floored = constraint_estimates(obs, "max", density_floor=True)
    density = 10 / 24
    assert plain[1, 1] == pytest.approx(1 / 8) and plain[0, 0] == pytest.approx(density)
    assert floored[1, 1] == pytest.approx(density) and floored[0, 0] == pytest.approx(density)
    assert np.isinf(floored[2, 2])
    # So the plain player guesses next to the 1, the floored one anywhere (here: the first cell
    # column by column, with scan ties).
    (guess,) = make(MaxSingleConstraintPlayer, ties="scan").play(obs)
    assert (guess.row, guess.col) == (1, 1)
    (guess,) = make(MaxSingleConstraintPlayer, ties="scan", density_floor=True).play(obs)
    assert (guess.row, guess.col) == (0, 0)


def test_max_with_subsets_takes_ratios_from_derived_constraints() -> None:
    # The 1 at (1,0) holds one mine in {(0,0), (0,1)}, the 3 at (1,1) three in {(0,0), (0,1),
    # (0,2), (1,2), (2,2)}: the difference {(0,2), (1,2), (2,2)} holds two, a ratio of 2/3
    # above the 3's 3/5. (The zeros are there to fence the two numbers in; like the estimates,
    # the rules only read numbers from 1 up.)
    obs = observe("####\n13##\n00##", mines=5)
    plain = make(MaxSingleConstraintPlayer).estimates(obs, None)
    assert plain[0, 2] == pytest.approx(3 / 5)
    bot = make(MaxSingleConstraintPlayer, subsets=True)
    known, constraints = subset_closure(obs.grid)
    assert not known.any()
    assert bot.estimates(obs, constraints)[0, 2] == pytest.approx(2 / 3)


@pytest.mark.parametrize("cls", [MaxSingleConstraintPlayer, MeanConstraintPlayer])
def test_scan_ties_take_the_first_cell_column_by_column(cls: type) -> None:
    # Nothing certain; the cells away from the 1 (density) tie at the lowest estimate.
    obs = observe("F#######\n########\n#1######", mines=2)
    estimates = constraint_estimates(obs, cls.mode)
    lowest = {(int(r), int(c)) for r, c in zip(*np.nonzero(estimates == estimates.min()), strict=True)}
    first = min(lowest, key=lambda rc: (rc[1], rc[0]))
    picks = {tuple(make(cls, seed, ties="scan").play(obs)[0][1:3]) for seed in range(20)}
    assert picks == {first}
    picks = {tuple(make(cls, seed).play(obs)[0][1:3]) for seed in range(60)}
    assert len(picks) > 1 and picks <= lowest


@pytest.mark.parametrize("cls", PLAYERS)
def test_every_move_called_certain_is_right_with_subsets(cls: type) -> None:
    """On real Expert games against the hidden layout, every option on."""
    options: dict[str, object] = {"subsets": True, "opening_cell": (0, 0)}
    if cls is not RandomPlayer:
        options["ties"] = "scan"
    if cls is MaxSingleConstraintPlayer:
        options["density_floor"] = True
    certain = 0
    for board in range(6):
        game = Game(EXPERT, FirstClick.OPENING, seed=5, index=board)
        bot = cls(options)
        bot.reset(player_generator(5, board, bot.name), EXPERT, FirstClick.OPENING)
        while not game.over:
            obs = game.observation()
            for action in bot.play(obs):
                if game.over:
                    break
                if action.kind is ActionKind.REVEAL and game.grid[action.row, action.col] >= 0:
                    continue
                assert obs.grid[action.row, action.col] == COVERED, action
                if game.first_click is not None and not action.guess:
                    certain += 1
                    assert game.mine_layout()[action.row, action.col] == (action.kind is ActionKind.FLAG), action
                game.apply(action)
    assert certain > 100
