"""The player API as a bot author meets it: subclassing, options, reset, the opening, the runner."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from pydantic import BaseModel

from arena.outcome import Outcome
from arena.play.runner import play_game
from engine import BEGINNER, COVERED, Action, BoardSpec, FirstClick, Observation
from players import Player
from players.api import NAME_PATTERN, PlayerError, PlayerOptionsError, corner_first_click
from players.builtin import RandomPlayer


class ScanPlayer(Player):
    """Reveals covered cells in reading order: legal, deterministic and terrible."""

    name = "scan"

    class Options(Player.Options):
        depth: int = 2
        label: str = "x"

    def play(self, observation: Observation) -> Action:
        r, c = np.argwhere(observation.grid == COVERED)[0]
        return Action.reveal(int(r), int(c), guess=not observation.first_move)


def covered(height: int, width: int) -> np.ndarray:
    return np.full((height, width), COVERED, dtype=np.int8)


# -- subclassing ---------------------------------------------------------------------------


def test_player_is_abstract_without_play() -> None:
    with pytest.raises(TypeError):
        Player()  # type: ignore[abstract]

    class NoPlay(Player):
        name = "no-play"

    with pytest.raises(TypeError):
        NoPlay()  # type: ignore[abstract]


def test_a_subclass_gets_defaults() -> None:
    bot = ScanPlayer()
    assert bot.options.depth == 2 and bot.options.label == "x"
    assert isinstance(bot.rng, np.random.Generator)
    assert bot.spec is None
    assert repr(bot) == "<ScanPlayer 'scan' Options(depth=2, label='x')>"


def test_reset_hands_over_generator_spec_and_rule() -> None:
    bot = ScanPlayer()
    rng = np.random.default_rng(1)
    bot.reset(rng, BEGINNER, FirstClick.OPENING)
    assert bot.rng is rng
    assert bot.spec == BEGINNER
    assert bot.rule is FirstClick.OPENING


@pytest.mark.parametrize("name", ["random", "a", "my-bot", "bot_2", "v1.2", "0day", "x" * 64])
def test_good_names(name: str) -> None:
    assert NAME_PATTERN.match(name)


@pytest.mark.parametrize("name", ["", "Bad Name", "UPPER", "-lead", ".lead", "sp ace", "x" * 65, "é", "a/b"])
def test_bad_names(name: str) -> None:
    assert not NAME_PATTERN.match(name)


# -- options -------------------------------------------------------------------------------


def test_options_from_a_mapping_a_model_or_nothing() -> None:
    assert ScanPlayer({"depth": 5}).options.depth == 5
    assert ScanPlayer(None).options == ScanPlayer.Options()
    model = ScanPlayer.Options(depth=4)
    assert ScanPlayer(model).options is model

    class Other(BaseModel):
        depth: int = 7

    assert ScanPlayer(Other()).options.depth == 7


def test_unknown_options_are_refused_with_the_player_and_key() -> None:
    with pytest.raises(PlayerOptionsError) as info:
        ScanPlayer({"deepth": 3})
    assert str(info.value).startswith("player 'scan': deepth: ")
    assert isinstance(info.value, PlayerError) and isinstance(info.value, ValueError)
    assert info.value.__cause__ is None  # one clear message, not pydantic's full report


def test_wrongly_typed_options_are_refused() -> None:
    with pytest.raises(PlayerOptionsError, match=r"player 'scan': depth: "):
        ScanPlayer({"depth": "deep"})


def test_player_without_options_refuses_any() -> None:
    with pytest.raises(PlayerOptionsError, match="player 'random'"):
        RandomPlayer({"speed": 1})


def test_options_are_frozen() -> None:
    bot = ScanPlayer({"depth": 3})
    with pytest.raises(ValueError):
        bot.options.depth = 4  # type: ignore[misc]


# -- the opening ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "rule", "cell"),
    [
        ((9, 9), FirstClick.SAFE, (0, 0)),
        ((9, 9), FirstClick.NONE, (0, 0)),
        ((9, 9), FirstClick.WINDOWS, (0, 0)),
        ((9, 9), FirstClick.OPENING, (3, 3)),
        ((16, 30), FirstClick.OPENING, (3, 3)),
        ((2, 5), FirstClick.OPENING, (1, 3)),
        ((1, 1), FirstClick.OPENING, (0, 0)),
    ],
)
def test_corner_first_click(shape: tuple[int, int], rule: FirstClick, cell: tuple[int, int]) -> None:
    obs = Observation(covered(*shape), 1, rule, 0, 0)
    assert corner_first_click(obs) == cell
    assert ScanPlayer().first_click(obs) == cell


def test_observation_helpers() -> None:
    grid = covered(3, 3)
    obs = Observation(grid, 2, FirstClick.SAFE, 0, 0)
    assert (obs.height, obs.width, obs.mines_left, obs.first_move) == (3, 3, 2, True)
    grid2 = grid.copy()
    grid2[2, 2] = 0
    grid2[0, 0] = -2
    obs2 = Observation(grid2, 2, FirstClick.SAFE, 2, 1)
    assert (obs2.mines_left, obs2.first_move) == (1, False)


# -- through the runner --------------------------------------------------------------------


def test_a_single_action_or_a_list_both_work() -> None:
    result = play_game(ScanPlayer(), "scan", BEGINNER, FirstClick.SAFE, 0, 0)
    assert result.outcome in (Outcome.WON, Outcome.LOST)
    assert result.error == ""


def test_runner_resets_the_player_every_game_with_its_own_generator() -> None:
    seen: list[tuple[int, BoardSpec, FirstClick]] = []

    class Recorder(ScanPlayer):
        name = "recorder"

        def reset(self, rng: np.random.Generator, spec: BoardSpec, rule: FirstClick) -> None:
            super().reset(rng, spec, rule)
            seen.append((int(rng.integers(1 << 30)), spec, rule))

    bot = Recorder()
    for board in (0, 1, 0):
        play_game(bot, "recorder", BEGINNER, FirstClick.SAFE, 5, board)
    assert [s[1:] for s in seen] == [(BEGINNER, FirstClick.SAFE)] * 3
    assert seen[0][0] == seen[2][0] != seen[1][0]


def bad_players() -> dict[str, Callable[[Observation], object]]:
    return {
        "raises": lambda obs: 1 / 0,
        "nothing": lambda obs: [],
        "off-board": lambda obs: Action.reveal(99, 99),
        "not-an-action": lambda obs: ["reveal me"],
    }


@pytest.mark.parametrize("kind", sorted(bad_players()))
def test_a_bots_mistake_is_its_result_not_an_arena_crash(kind: str) -> None:
    behaviour = bad_players()[kind]

    class Bad(Player):
        name = "bad"

        def play(self, observation: Observation) -> object:  # type: ignore[override]
            return behaviour(observation)

    result = play_game(Bad(), "bad", BEGINNER, FirstClick.SAFE, 0, 0)
    assert result.outcome in (Outcome.ERROR, Outcome.ILLEGAL)
    assert result.error
