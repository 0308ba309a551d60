"""The line protocol as values: what the arena sends (and never sends), and how strictly it reads replies."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from arena.isolation.protocol import messages as proto
from arena.isolation.protocol.messages import PROTOCOL_VERSION, BotReportedError, ProtocolError
from arena.limits import EngineBot, EngineBotError, Limits
from engine import EXPERT, Action, ActionKind, BoardSpec, FirstClick, Game, InvalidActionError
from engine.layout import player_generator, player_seed

# -- the grid -----------------------------------------------------------------------------------------------------


def test_grid_round_trips_every_cell_value() -> None:
    grid = np.array([[-2, -1, 0, 1, 2], [3, 4, 5, 6, 7], [8, -1, -1, -2, 0]], dtype=np.int8)
    rows = proto.encode_grid(grid)
    assert rows == ["F#012", "34567", "8##F0"]
    back = proto.decode_grid(rows, 3, 5)
    assert back.dtype == np.int8
    assert np.array_equal(back, grid)
    assert not back.flags.writeable


@pytest.mark.parametrize(
    "rows",
    [[], "###", ["##", "###"], ["#*#"], ["#\u00e9#"], [1, 2], ["", ""], None],
    ids=["empty", "not-a-list", "ragged", "mine-symbol", "non-ascii", "numbers", "empty-rows", "none"],
)
def test_malformed_grids_are_refused(rows: Any) -> None:
    with pytest.raises(ProtocolError):
        proto.decode_grid(rows)


def test_a_grid_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ProtocolError, match="2x3, the game is 3x3"):
        proto.decode_grid(["###", "###"], 3, 3)


# -- what the arena sends -----------------------------------------------------------------------------------------


def test_new_game_carries_the_players_seed_and_never_the_tournament_seed_or_board() -> None:
    seed, board = 987654321, 4242
    derived = player_seed(seed, board, "some-bot")
    message = json.loads(proto.new_game(EXPERT, FirstClick.OPENING, derived, 10.0, 300.0))
    assert message == {
        "type": "new_game",
        "board": "expert",
        "height": 16,
        "width": 30,
        "mines": 99,
        "rule": "opening",
        "seed": f"{derived:032x}",
        "move_ms": 10000,
        "game_ms": 300000,
    }
    assert int(message["seed"], 16) == derived
    numbers = {v for v in message.values() if isinstance(v, int)}
    assert seed not in numbers and board not in numbers
    assert str(seed) not in json.dumps(message) and str(board) not in json.dumps(message)


def test_player_seed_is_128_bits_keyed_by_tournament_board_and_name() -> None:
    seeds = {player_seed(1, i, name) for i in range(20) for name in ("a", "b")}
    assert len(seeds) == 40
    assert all(0 <= s < 2**128 for s in seeds)
    assert max(s.bit_length() for s in seeds) > 120
    assert player_seed(1, 2, "a") == player_seed(1, 2, "a")


def test_the_trusted_generator_is_seeded_from_the_same_number_an_isolated_bot_gets() -> None:
    trusted = player_generator(3, 7, "random")
    isolated = np.random.Generator(np.random.PCG64(player_seed(3, 7, "random")))
    assert np.array_equal(trusted.integers(0, 2**62, size=16), isolated.integers(0, 2**62, size=16))


def test_observation_message_is_one_compact_line() -> None:
    game = Game(EXPERT, FirstClick.SAFE, seed=1, index=0)
    game.reveal(0, 0)
    game.flag(15, 29)
    line = proto.observation(game.observation())
    assert "\n" not in line
    message = json.loads(line)
    assert message["type"] == "observation"
    assert (message["mines"], message["flags"], message["moves"]) == (99, 1, 2)
    assert len(message["grid"]) == 16 and all(len(row) == 30 for row in message["grid"])
    assert message["grid"][15][29] == "F"
    assert len(line) < 700  # about a byte per cell on Expert
    obs = proto.observation_from(message, 16, 30, FirstClick.SAFE)
    assert np.array_equal(obs.grid, game.observation().grid)
    assert (obs.mines, obs.flags, obs.moves, obs.rule) == (99, 1, 2, FirstClick.SAFE)


def test_hello_game_over_and_quit() -> None:
    assert json.loads(proto.hello()) == {"type": "hello", "protocol": PROTOCOL_VERSION}
    assert json.loads(proto.game_over("won")) == {"type": "game_over", "outcome": "won", "message": ""}
    assert json.loads(proto.quit_message()) == {"type": "quit"}


# -- what the arena reads -----------------------------------------------------------------------------------------


def test_a_reply_with_guesses_marks_exactly_those_reveals() -> None:
    line = '{"actions": [["reveal", 1, 2], ["flag", 0, 0], ["reveal", 3, 4], ["chord", 5, 5]], "guess": [[3, 4]]}'
    assert proto.decode_reply(line) == [
        Action.reveal(1, 2),
        Action.flag(0, 0),
        Action.reveal(3, 4, guess=True),
        Action.chord(5, 5),
    ]
    assert proto.decode_reply(b'{"actions": [["unflag", 0, 1]]}') == [Action(ActionKind.UNFLAG, 0, 1)]


def test_a_replys_note_goes_with_its_first_guess_or_else_its_first_action() -> None:
    line = '{"actions": [["reveal", 1, 2], ["reveal", 3, 4]], "guess": [[3, 4]], "note": "50/50", "p_mine": 0.5}'
    assert proto.decode_reply(line) == [Action.reveal(1, 2), Action.reveal(3, 4, guess=True, note="50/50", p_mine=0.5)]
    assert proto.decode_reply('{"actions": [["flag", 0, 0], ["reveal", 1, 1]], "note": "certain"}') == [
        Action.flag(0, 0, note="certain"),
        Action.reveal(1, 1),
    ]
    assert proto.decode_reply('{"actions": [["reveal", 0, 0]], "note": "' + "x" * 5000 + '"}')[0].note == "x" * 1000


def test_notes_name_the_actions_they_explain_and_round_trip_through_the_python_host() -> None:
    line = '{"actions": [["reveal", 1, 2], ["flag", 3, 4]], "notes": [[1, "mine"], [0, "safe", 0]]}'
    assert proto.decode_reply(line) == [Action.reveal(1, 2, note="safe", p_mine=0.0), Action.flag(3, 4, note="mine")]
    answer = [Action.reveal(0, 0), Action.reveal(5, 5, guess=True, note="lowest p", p_mine=0.125), Action.flag(1, 1)]
    assert proto.decode_reply(proto.encode_answer(answer)) == answer
    assert "notes" not in proto.encode_answer([Action.reveal(0, 0)])  # no notes, no field


@pytest.mark.parametrize(
    "line,message",
    [
        ('{"actions": []}', "no action"),
        ('{"actions": [["reveal", 0, 0]], "note": 3}', "note must be a string"),
        ('{"actions": [["reveal", 0, 0]], "p_mine": "low"}', "p_mine must be a number"),
        ('{"actions": [["reveal", 0, 0]], "p_mine": true}', "p_mine must be a number"),
        ('{"actions": [["reveal", 0, 0]], "notes": [[1, "x"]]}', "names action 1; the reply has 1"),
        ('{"actions": [["reveal", 0, 0]], "notes": [["0", "x"]]}', "is not [INDEX, TEXT]"),
        ('{"actions": [["reveal", 0, 0]], "notes": "x"}', "notes must be a list"),
        ('{"actions": "reveal 0,0"}', "no action"),
        ("{}", "no action"),
        ('{"actions": [["explode", 0, 0]]}', "unknown kind 'explode'"),
        ('{"actions": [["reveal", 0]]}', "is not an action"),
        ('{"actions": [["reveal", 1.5, 0]]}', "two whole numbers"),
        ('{"actions": [["reveal", true, 0]]}', "two whole numbers"),
        ('{"actions": [["reveal", "1", 0]]}', "two whole numbers"),
        ('{"actions": ["reveal 0,0"]}', "is not an action"),
        ('{"actions": [["reveal", 0, 0]], "guess": [[1, 1]]}', "does not reveal"),
        ('{"actions": [["flag", 1, 1]], "guess": [[1, 1]]}', "does not reveal"),
        ('{"actions": [["reveal", 0, 0]], "guess": [0, 0]}', "is not a [ROW, COL] cell"),
        ('{"actions": [["reveal", 0, 0]], "guess": "all"}', "guess must be a list"),
    ],
)
def test_malformed_actions_are_illegal(line: str, message: str) -> None:
    with pytest.raises(InvalidActionError, match=message.replace("[", r"\[")):
        proto.decode_reply(line)


@pytest.mark.parametrize("line", [b"not json", b"[1, 2]", b'"text"', b"\xff\xfe", b"42"])
def test_output_that_is_not_the_protocol_is_a_protocol_error(line: bytes) -> None:
    with pytest.raises(ProtocolError):
        proto.decode_reply(line)


def test_a_reported_error_is_the_bots_own() -> None:
    with pytest.raises(BotReportedError, match="ZeroDivisionError: oops"):
        proto.decode_reply('{"error": "ZeroDivisionError: oops", "actions": [["reveal", 0, 0]]}')


def test_hello_reply_names_the_bot_and_checks_the_version() -> None:
    assert proto.decode_hello('{"protocol": 1, "name": "x", "version": "2.0"}') == ("x", "2.0")
    with pytest.raises(ProtocolError, match="speaks protocol 7"):
        proto.decode_hello('{"protocol": 7, "name": "x"}')
    with pytest.raises(BotReportedError, match="no such player"):
        proto.decode_hello('{"protocol": 1, "error": "no such player"}')


def test_encode_answer_keeps_actions_and_passes_non_actions_on_as_text() -> None:
    reply = json.loads(proto.encode_answer([Action.reveal(1, 1, guess=True), ("flag", np.int64(2), 3), object()]))
    assert reply["actions"][:2] == [["reveal", 1, 1], ["flag", 2, 3]]
    assert isinstance(reply["actions"][2], str)
    assert reply["guess"] == [[1, 1]]
    with pytest.raises(InvalidActionError):
        proto.decode_reply(json.dumps(reply))


# -- settings -----------------------------------------------------------------------------------------------------


def test_engine_bot_is_read_like_a_shell_command() -> None:
    bot = EngineBot.parse("my-bot=python3 'my bot.py' --level 3")
    assert bot.name == "my-bot"
    assert bot.command == ("python3", "my bot.py", "--level", "3")
    for bad, message in [("nocommand", "NAME=COMMAND"), ("Bad Name=x", "lower-case"), ("b=x 'open", "cannot split")]:
        with pytest.raises(EngineBotError, match=message):
            EngineBot.parse(bad)


def test_limits_budget_includes_the_grace_and_the_game_clock() -> None:
    limits = Limits(move_time=2.0, game_time=5.0, grace=0.5)
    assert limits.budget(0.0) == 2.5
    assert limits.budget(4.0) == pytest.approx(1.5)
    assert limits.budget(9.0) == 0.5
    assert limits.cpu_per_game == 5.0
    assert limits.cpu_rlimit == 11
    assert Limits(cpu_time=0.2).cpu_rlimit == 2


def test_how_players_run_is_not_part_of_the_tournament_id() -> None:
    from arena.config import PlayerRef, TournamentConfig
    from arena.limits import Isolation

    spec = BoardSpec(6, 6, 5)
    base = TournamentConfig.build(spec, FirstClick.SAFE, seed=1, players=(PlayerRef(name="random"),))
    other = TournamentConfig.build(
        spec,
        FirstClick.SAFE,
        seed=1,
        players=(PlayerRef(name="random"),),
        isolation=Isolation.ISOLATED,
        limits=Limits(grace=2.0, startup_time=30.0),
        engine_bots=(EngineBot(name="x", command=("x",)),),
    )
    assert base.id == other.id
    # The limits that change what a result means (move time, game time, the clock, memory) make a tournament of
    # their own: a bot's result under one second a move is not its result under ten.
    quick = base.model_copy(update={"limits": Limits(move_time=1.0)})
    assert quick.id != base.id and quick.title.endswith("· move time 1s")
    assert json.loads(other.model_dump_json())["isolation"] == "isolated"
