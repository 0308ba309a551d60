"""Example tests of your strategy (``strategy.py``): yours to change with it.

They pin down what the starting strategy does: its first click under each rule, the moves the two single-cell
rules make certain, and a seeded guess when none is. When you change the strategy, change these tests to say what
yours does (or delete the ones that no longer apply): the client's tests (``test_client.py``) do not depend on
them, nor on your strategy.
"""

from __future__ import annotations

import unittest

from client import Board, GameInfo
from rng import SplitMix64
from strategy import Strategy, certain_moves

SEED = "c9d0342fd9bb4860326e6cb830c5b01b"


def play(rows: list[str], rule: str = "safe", mines: int = 2) -> dict:
    info = GameInfo(height=len(rows), width=len(rows[0]), mines=mines, rule=rule, seed=SEED)
    return Strategy(info, SplitMix64(SEED)).play(Board(rows, mines=mines)).to_message()


class StrategyTest(unittest.TestCase):
    def test_first_clicks_by_rule(self) -> None:
        cases = {"safe": [0, 0], "windows": [0, 0], "opening": [2, 3], "none": [0, 0]}
        for rule, cell in cases.items():
            message = play(["####", "####", "####"], rule)
            self.assertEqual(message["actions"], [["reveal", *cell]], rule)
            self.assertEqual("guess" in message, rule == "none", rule)
        self.assertEqual(len(cases), 4)

    def test_certain_moves_are_played_together(self) -> None:
        # The ones of rows 1 and 2 make (2,0) and (2,3) mines and (2,2) safe: all three in one reply.
        expected = {"actions": [["reveal", 2, 2], ["flag", 2, 0], ["flag", 2, 3]]}
        self.assertEqual(play(["0000", "1111", "#1##"]), expected)
        safe, mines = certain_moves(Board(["0000", "1111", "#1##"], mines=2))
        self.assertEqual((safe, mines), ({(2, 2)}, {(2, 0), (2, 3)}))

    def test_a_seeded_guess_with_a_note_when_nothing_is_certain(self) -> None:
        note = "no certain move: one of 4 covered cells at random"
        message = play(["0000", "1111", "####"])
        self.assertEqual(message, {"actions": [["reveal", 2, 1]], "guess": [[2, 1]], "notes": [[0, note]]})
        self.assertEqual(play(["0000", "1111", "####"]), message)  # the same seed, the same guess


if __name__ == "__main__":
    unittest.main()
