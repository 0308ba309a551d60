"""A stored record replayed on its board (``arena.results.record_replay``): refused unless it is the game it claims
to be. (That every path's records replay to their games: tests/arena/results/test_records.py.)"""

from __future__ import annotations

import dataclasses

import pytest

from arena.play.runner import play_game
from arena.results.record_replay import replay_record
from arena.results.records import RecordMismatch, decode
from engine import BEGINNER, EXPERT, FirstClick
from players.registry import Registry


def test_a_record_that_is_not_its_game_is_refused() -> None:
    player = Registry((), entry_points=False).create("rref")
    result = play_game(player, "rref", BEGINNER, FirstClick.SAFE, 5, 1, record=True)
    record = decode(result.record)
    replay_record(BEGINNER, FirstClick.SAFE, 5, 1, record, result)  # the real one passes
    with pytest.raises(RecordMismatch, match=r"opens|cannot be played"):
        replay_record(BEGINNER, FirstClick.SAFE, 5, 2, record)  # another board
    with pytest.raises(RecordMismatch):
        replay_record(BEGINNER, FirstClick.SAFE, 6, 1, record)  # another seed
    last = record.moves[-1]
    fewer = dataclasses.replace(record, moves=(*record.moves[:-1], dataclasses.replace(last, opened=last.opened[:-1])))
    if last.opened:
        with pytest.raises(RecordMismatch, match=f"move {len(record)} .* the record says"):
            replay_record(BEGINNER, FirstClick.SAFE, 5, 1, fewer)
    short = dataclasses.replace(record, moves=record.moves[:-1])
    with pytest.raises(RecordMismatch, match=r"the stored outcome is|moves"):
        replay_record(BEGINNER, FirstClick.SAFE, 5, 1, short, result)
    for field, value in (("moves", result.moves + 1), ("bbbv", result.bbbv + 1), ("guesses", result.guesses + 1)):
        with pytest.raises(RecordMismatch, match=field):
            wrong = dataclasses.replace(result, **{field: value})
            replay_record(BEGINNER, FirstClick.SAFE, 5, 1, record, wrong)
    flipped = "lost" if result.won else "won"
    with pytest.raises(RecordMismatch, match=f"the stored outcome is {flipped}"):
        replay_record(BEGINNER, FirstClick.SAFE, 5, 1, record, {**result.as_row(), "outcome": flipped})
    twice = dataclasses.replace(record, moves=(*record.moves, record.moves[0]))
    with pytest.raises(RecordMismatch, match="cannot be played"):
        replay_record(BEGINNER, FirstClick.SAFE, 5, 1, twice)
    with pytest.raises(RecordMismatch, match="9x9 board"):
        replay_record(EXPERT, FirstClick.SAFE, 5, 1, record)
