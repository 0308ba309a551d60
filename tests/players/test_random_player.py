"""The random baseline: the two single-cell rules on hand-made positions, never a flagged cell,
reproducible from its generator, and sound on real games (every move it calls certain is)."""

from __future__ import annotations

import numpy as np
import pytest

from arena.outcome import Outcome
from arena.play.runner import play_game
from engine import BEGINNER, COVERED, FLAGGED, Action, ActionKind, BoardSpec, FirstClick, Game, Observation
from engine.layout import parse_position, player_generator
from players.builtin import RandomPlayer
from players.deduction import certain_actions, certain_cells


def observe(position: str, mines: int, rule: FirstClick = FirstClick.SAFE) -> Observation:
    grid = parse_position(position)
    grid.flags.writeable = False
    return Observation(grid, mines, rule, moves=1, flags=int((grid == FLAGGED).sum()))


def player(seed: int = 0, **options: object) -> RandomPlayer:
    bot = RandomPlayer(options)
    bot.reset(np.random.default_rng(seed), BEGINNER, FirstClick.SAFE)
    return bot


def cells(actions: list[Action], kind: ActionKind) -> set[tuple[int, int]]:
    return {(a.row, a.col) for a in actions if a.kind is kind}


# -- the single-cell rules on hand-made positions ------------------------------------------


def test_covered_neighbours_exactly_the_number_are_mines() -> None:
    # Layout: mines at (0,0) and (0,1). The 2 at (1,0) has exactly two covered neighbours.
    actions = player().play(observe("##1\n221\n000", mines=2))
    assert cells(actions, ActionKind.FLAG) == {(0, 0), (0, 1)}
    assert cells(actions, ActionKind.REVEAL) == set()
    assert not any(a.guess for a in actions)


def test_a_number_satisfied_by_its_flags_makes_the_rest_safe() -> None:
    actions = player().play(observe("F##\n#1#\n###", mines=1))
    assert cells(actions, ActionKind.REVEAL) == {(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)}
    assert cells(actions, ActionKind.FLAG) == set()
    assert not any(a.guess for a in actions)


def test_mines_found_on_the_way_count_as_flags() -> None:
    # The 1 at (1,0) sees one covered cell: a mine. That satisfies the 1s at (0,1) and (1,1),
    # so their other covered neighbours are safe: a fixed point, not one pass.
    actions = player().play(observe("#1#\n11#", mines=1))
    assert cells(actions, ActionKind.FLAG) == {(0, 0)}
    assert cells(actions, ActionKind.REVEAL) == {(0, 2), (1, 2)}
    # Safe reveals come first: they are what makes progress.
    assert [a.kind for a in actions] == [ActionKind.REVEAL, ActionKind.REVEAL, ActionKind.FLAG]


@pytest.mark.slow
def test_flags_are_not_placed_twice_and_satisfied_numbers_do_nothing() -> None:
    # Every number is satisfied and no cell is left covered next to one: nothing certain.
    _, safe, mines = certain_cells(parse_position("F1\n11"))
    assert safe.size == mines.size == 0
    assert certain_actions(observe("F1\n11", mines=1)) == []


def test_without_a_deduction_it_guesses_a_covered_cell() -> None:
    position = "1##\n###\n###"
    actions = player(3).play(observe(position, mines=2))
    assert len(actions) == 1
    (action,) = actions
    assert action.kind is ActionKind.REVEAL and action.guess
    assert parse_position(position)[action.row, action.col] == COVERED


def test_guesses_never_reveal_a_flagged_cell_and_cover_every_covered_one() -> None:
    # The 3 sees two flags and five covered cells: one more mine among five, nothing certain.
    position = "F#F\n#3#\n###"
    grid = parse_position(position)
    chosen = set()
    for seed in range(300):
        (action,) = player(seed).play(observe(position, mines=3))
        assert action.kind is ActionKind.REVEAL and action.guess
        assert grid[action.row, action.col] == COVERED
        chosen.add((action.row, action.col))
    assert chosen == {(r, c) for r, c in zip(*np.nonzero(grid == COVERED), strict=True)}


def test_deductions_never_touch_a_flagged_cell() -> None:
    actions = player().play(observe("FF#\n2##\n###", mines=2))
    flagged = {(0, 0), (0, 1)}
    assert not (cells(actions, ActionKind.REVEAL) | cells(actions, ActionKind.FLAG)) & flagged
    assert cells(actions, ActionKind.REVEAL) == {(1, 1), (2, 0), (2, 1)}


# -- the first click -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "cell", "guess"),
    [
        (FirstClick.SAFE, (0, 0), False),
        (FirstClick.WINDOWS, (0, 0), False),
        (FirstClick.NONE, (0, 0), True),
        (FirstClick.OPENING, (3, 3), False),
    ],
)
def test_first_click_is_the_conventional_one(rule: FirstClick, cell: tuple[int, int], guess: bool) -> None:
    obs = Observation(np.full((9, 9), COVERED, dtype=np.int8), 10, rule, 0, 0)
    assert player().play(obs) == [Action.reveal(*cell, guess=guess)]


def test_random_first_click_option() -> None:
    obs = Observation(np.full((9, 9), COVERED, dtype=np.int8), 10, FirstClick.SAFE, 0, 0)
    clicks = {tuple(player(seed, random_first_click=True).play(obs)[0][1:3]) for seed in range(40)}
    assert len(clicks) > 10
    assert all(a.guess for a in player(1, random_first_click=True).play(obs))


# -- determinism ---------------------------------------------------------------------------


def moves_of_one_game(seed: int, board: int, rng_seed: int) -> list[Action]:
    game = Game(BEGINNER, FirstClick.SAFE, seed=seed, index=board)
    bot = RandomPlayer()
    bot.reset(np.random.default_rng(rng_seed), BEGINNER, FirstClick.SAFE)
    played: list[Action] = []
    while not game.over:
        for action in bot.play(game.observation()):
            if game.over or (action.kind is ActionKind.REVEAL and game.grid[action.row, action.col] >= 0):
                continue
            game.apply(action)
            played.append(action)
    return played


def test_same_generator_same_game() -> None:
    for board in range(5):
        assert moves_of_one_game(7, board, 11) == moves_of_one_game(7, board, 11)


def test_decisions_come_from_the_generator_passed_to_reset() -> None:
    # A position with nothing certain: the guess depends only on the generator handed to reset.
    obs = observe("F#F\n#3#\n###", mines=3)
    bot = RandomPlayer()
    first = []
    for _ in range(2):
        bot.reset(np.random.default_rng(5), BEGINNER, FirstClick.SAFE)
        first.append([bot.play(obs)[0] for _ in range(20)])
    assert first[0] == first[1]
    bot.reset(np.random.default_rng(6), BEGINNER, FirstClick.SAFE)
    assert [bot.play(obs)[0] for _ in range(20)] != first[0]


def test_play_game_results_repeat_exactly() -> None:
    def run() -> list[tuple]:
        results = [play_game(RandomPlayer(), "random", BEGINNER, FirstClick.SAFE, 3, b) for b in range(10)]
        return [(r.outcome, r.moves, r.reveals, r.flags, r.guesses, r.revealed_cells) for r in results]

    assert run() == run()


# -- real games ----------------------------------------------------------------------------


def test_every_move_called_certain_is_right_on_real_games() -> None:
    """Soundness against the hidden layout: no unmarked reveal hits a mine, every flag is on one."""
    spec = BoardSpec(9, 9, 10, "beginner")
    for board in range(40):
        game = Game(spec, FirstClick.SAFE, seed=99, index=board)
        bot = RandomPlayer()
        bot.reset(player_generator(99, board, bot.name), spec, FirstClick.SAFE)
        while not game.over:
            obs = game.observation()
            for action in bot.play(obs):
                if game.over:
                    break
                if action.kind is ActionKind.REVEAL and game.grid[action.row, action.col] >= 0:
                    continue
                assert obs.grid[action.row, action.col] == COVERED, action  # never a flag, never revealed
                if game.first_click is not None and not action.guess:
                    layout = game.mine_layout()
                    assert layout[action.row, action.col] == (action.kind is ActionKind.FLAG), action
                game.apply(action)


def test_wins_a_fair_share_of_beginner_games_without_errors() -> None:
    results = [play_game(RandomPlayer(), "random", BEGINNER, FirstClick.SAFE, 0, b) for b in range(100)]
    assert {r.outcome for r in results} <= {Outcome.WON, Outcome.LOST}
    assert all(r.error == "" for r in results)
    wins = sum(r.won for r in results)
    # About 70% on beginner with a safe first click (the README's leaderboard: 71.5% on 200 boards).
    assert 50 <= wins <= 90, wins
    for r in results:
        assert (r.first_row, r.first_col) == (0, 0)
        if r.won:
            assert r.revealed_cells == BEGINNER.cells - BEGINNER.mines
            assert r.bbbv_solved == r.bbbv
        assert r.guesses <= r.reveals
    lost = [r for r in results if not r.won]
    assert all(r.guesses >= 1 for r in lost)  # it only loses on a reveal it called a guess
