"""Tests of the protocol client and the shared generator: ``python3 -m unittest discover tests``.

They test the client, not your strategy: every conversation here is played by ``Scripted``, a strategy of the
tests' own, so changing ``strategy.py`` never fails them. Your strategy's tests are ``test_strategy.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import unittest
from typing import ClassVar

from client import Board, Client, GameInfo, Reply
from rng import SplitMix64


class Scripted:
    """A strategy for testing the client: it records what the client gave it (the game's facts, each board, the
    generator's first number) and reveals the first covered cell, a guess with a note when nothing is revealed."""

    seen: ClassVar[list] = []

    def __init__(self, info: GameInfo, rng: SplitMix64) -> None:
        self.info = info
        Scripted.seen.append(("new_game", info, rng.next()))

    def play(self, board: Board) -> Reply:
        Scripted.seen.append(("board", board.rows, board.mines, board.flags, board.moves))
        covered = [cell for cell in board.cells() if board.is_covered(*cell)]
        if not board.any_revealed():
            return Reply().reveal(*covered[0], guess=True, note="first")
        return Reply().reveal(*covered[0]).flag(*covered[-1])


def converse(*messages: object, make=Scripted) -> list:
    """Run the client over these messages (dicts, or raw lines) and return its answers, parsed."""
    lines = [m if isinstance(m, str) else json.dumps(m) for m in messages]
    out = io.StringIO()
    Client("tester", "7", make).run(io.StringIO("\n".join(lines) + "\n"), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


NEW_GAME = {"type": "new_game", "board": "custom", "height": 3, "width": 4, "mines": 2, "rule": "safe",
            "seed": "c9d0342fd9bb4860326e6cb830c5b01b", "move_ms": 10000, "game_ms": 300000}  # fmt: skip


def observation(*rows: str) -> dict:
    return {"type": "observation", "grid": list(rows), "mines": 2, "flags": 0, "moves": 0}


class GeneratorTest(unittest.TestCase):
    def test_the_protocols_test_vectors(self) -> None:
        vectors = {
            "00000000000000000000000000000000": (0, [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]),
            "665d7c98f171fe590dc12f9daf846ac9": (
                0x6B9C53055EF59490,
                [0xB53C6E4FBE4ADF5C, 0x34CB863974A611F0, 0xB16C08E5F02D657D],
            ),
            "0123456789abcdeffedcba9876543210": (
                0xFFFFFFFFFFFFFFFF,
                [0xE4D971771B652C20, 0xE99FF867DBF682C9, 0x382FF84CB27281E9],
            ),
        }
        for seed, (state, outputs) in vectors.items():
            rng = SplitMix64(seed)
            self.assertEqual(rng.state, state, seed)
            self.assertEqual([rng.next() for _ in outputs], outputs, seed)

    def test_below(self) -> None:
        rng = SplitMix64("665d7c98f171fe590dc12f9daf846ac9")
        self.assertEqual([rng.below(n) for n in (71, 71, 10, 480, 1)], [59, 41, 3, 22, 0])
        with self.assertRaises(ValueError):
            rng.below(0)


class BoardTest(unittest.TestCase):
    def test_cells_numbers_and_neighbours(self) -> None:
        board = Board(["1F#", "110"], mines=1, flags=1, moves=3)
        self.assertEqual((board.height, board.width, board.mines, board.flags, board.moves), (2, 3, 1, 1, 3))
        self.assertEqual(board.number(0, 0), 1)
        self.assertEqual(board.number(0, 1), -1)
        self.assertTrue(board.is_flagged(0, 1) and board.is_covered(0, 2) and not board.is_covered(0, 1))
        self.assertEqual(board.neighbours(0, 0), [(0, 1), (1, 0), (1, 1)])
        self.assertEqual(len(board.neighbours(1, 1)), 5)
        self.assertTrue(board.any_revealed())
        self.assertFalse(Board(["#F", "##"]).any_revealed())

    def test_a_ragged_grid_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            Board(["###", "##"])


class ReplyTest(unittest.TestCase):
    def test_actions_guesses_and_notes(self) -> None:
        reply = Reply().reveal(1, 2).flag(0, 0).reveal(3, 4, guess=True, note="why", p_mine=0.25)
        self.assertEqual(
            reply.to_message(),
            {
                "actions": [["reveal", 1, 2], ["flag", 0, 0], ["reveal", 3, 4]],
                "guess": [[3, 4]],
                "notes": [[2, "why", 0.25]],
            },
        )
        self.assertEqual(Reply().chord(1, 1).unflag(0, 0, note="oops").to_message(),
                         {"actions": [["chord", 1, 1], ["unflag", 0, 0]], "notes": [[1, "oops"]]})  # fmt: skip


class ConversationTest(unittest.TestCase):
    def test_the_protocols_example_exchange(self) -> None:
        Scripted.seen = []
        answers = converse(
            {"type": "hello", "protocol": 1},
            NEW_GAME,
            observation("####", "####", "####"),
            observation("0000", "1111", "#1##"),
            {"type": "game_over", "outcome": "won", "message": ""},
            {"type": "quit"},
        )
        self.assertEqual(answers[0], {"protocol": 1, "name": "tester", "version": "7"})
        self.assertEqual(answers[1], {"actions": [["reveal", 0, 0]], "guess": [[0, 0]], "notes": [[0, "first"]]})
        self.assertEqual(answers[2], {"actions": [["reveal", 2, 0], ["flag", 2, 3]]})
        self.assertEqual(len(answers), 3)
        # What the strategy was given: the game's facts, a generator seeded from the game's seed, each board.
        (_, info, first), *boards = Scripted.seen
        self.assertEqual((info.height, info.width, info.mines, info.rule), (3, 4, 2, "safe"))
        self.assertEqual(first, SplitMix64(NEW_GAME["seed"]).next())
        self.assertEqual(boards[1], ("board", ["0000", "1111", "#1##"], 2, 0, 0))

    def test_ignores_empty_lines_unknown_messages_and_fields_and_stops_at_quit(self) -> None:
        answers = converse(
            "",
            "   ",
            {"type": "hello", "protocol": 1, "future": True},
            {"type": "something_new", "x": 1},
            {"type": "quit"},
            {"type": "hello", "protocol": 1},
        )
        self.assertEqual(answers, [{"protocol": 1, "name": "tester", "version": "7"}])

    def test_a_failing_strategy_scores_an_error_and_the_next_game_plays(self) -> None:
        class Broken:
            def __init__(self, info: GameInfo, rng: SplitMix64) -> None:
                self.info = info

            def play(self, board: Board) -> Reply:
                if self.info.rule == "none":
                    raise RuntimeError("not this rule")
                return Reply().reveal(0, 0)

        broken = dict(NEW_GAME, rule="none")
        answers = converse(broken, observation("####", "####", "####"), NEW_GAME, observation("##", "##"), make=Broken)
        self.assertEqual(answers[0], {"error": "RuntimeError: not this rule"})
        self.assertEqual(answers[1], {"actions": [["reveal", 0, 0]]})

    def test_a_malformed_message_is_logged_and_the_conversation_goes_on(self) -> None:
        bad = dict(NEW_GAME, height="three")
        with contextlib.redirect_stderr(io.StringIO()) as err:
            answers = converse(bad, "not json", {"type": "hello", "protocol": 1})
        self.assertEqual(answers, [{"protocol": 1, "name": "tester", "version": "7"}])
        self.assertIn("ignored a 'new_game' message", err.getvalue())
        self.assertIn("not JSON", err.getvalue())

    def test_each_game_restarts_the_generator_from_its_seed(self) -> None:
        Scripted.seen = []
        first = observation("0000", "1111", "####")
        converse(NEW_GAME, first, NEW_GAME, first)
        draws = [entry[2] for entry in Scripted.seen if entry[0] == "new_game"]
        self.assertEqual(draws, [SplitMix64(NEW_GAME["seed"]).next()] * 2)

    def test_the_rule_reaches_the_strategy(self) -> None:
        for rule in ("safe", "windows", "opening", "none"):
            Scripted.seen = []
            converse(dict(NEW_GAME, rule=rule), observation("####", "####", "####"))
            self.assertEqual(Scripted.seen[0][1].rule, rule)


if __name__ == "__main__":
    unittest.main()
