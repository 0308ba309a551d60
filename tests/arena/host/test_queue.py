"""The queue (arena/host/queue.py): the same archive is one submission, the daily limit holds, a submission ends
once, and the fair pick never lets one entrant hold more than its share while others wait."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.host import accounts, queue
from arena.host.archive import Received
from arena.host.db import HostPaths, connect
from arena.host.queue import QueueError, State


@pytest.fixture
def db(tmp_path: Path) -> sqlite3.Connection:
    db = connect(HostPaths(tmp_path / "cup-host"))
    accounts.add_entrant(db, "alice", "Alice")
    accounts.add_entrant(db, "bob", "Bob")
    return db


def received(n: int) -> Received:
    return Received(f"{n:064x}", 100, 3, 1000)


def test_the_same_archive_twice_is_one_submission(db: sqlite3.Connection) -> None:
    first, made = queue.receive(db, "alice", received(1), per_day=5, closed=None)
    again, made_again = queue.receive(db, "alice", received(1), per_day=5, closed=None)
    assert made and not made_again and again.id == first.id
    other, _ = queue.receive(db, "alice", received(2), per_day=5, closed=None)
    assert (first.seq, other.seq) == (1, 2) and other.player == "alice.2"
    bobs, made_bob = queue.receive(db, "bob", received(1), per_day=5, closed=None)
    assert made_bob and bobs.id not in (first.id, other.id), "another entrant's archive became alice's submission"


def test_the_daily_limit_and_the_close_refuse(db: sqlite3.Connection) -> None:
    for n in range(3):
        queue.receive(db, "alice", received(n), per_day=3, closed=None)
    with pytest.raises(QueueError, match="3 submissions a day") as caught:
        queue.receive(db, "alice", received(99), per_day=3, closed=None)
    assert caught.value.status == 429
    queue.receive(db, "bob", received(99), per_day=3, closed=None)  # bob's own day
    with pytest.raises(QueueError, match="closed") as closed:
        queue.receive(db, "bob", received(100), per_day=3, closed="2026-12-07 12:00:00 UTC")
    assert closed.value.status == 403


def test_a_submission_moves_forward_and_ends_once(db: sqlite3.Connection) -> None:
    sub, _ = queue.receive(db, "alice", received(1), per_day=5, closed=None)
    assert queue.advance(db, sub.id, {State.RECEIVED}, State.BUILDING)
    assert not queue.advance(db, sub.id, {State.RECEIVED}, State.BUILDING), "moved twice"
    assert queue.advance(db, sub.id, {State.BUILDING}, State.CHECKING)
    assert queue.finish(db, sub.id, State.FAILED, "check: failed 1 of 12 checks")
    assert not queue.finish(db, sub.id, State.RANKED), "ended twice"
    ended = queue.get(db, sub.id)
    assert ended is not None and ended.state is State.FAILED and ended.reason.startswith("check:")
    states = [e["state"] for e in queue.events(db, sub.id)]
    assert states == ["received", "building", "checking", "failed"]
    assert queue.unfinished(db) == []


def _sub(sid: int, entrant: str) -> queue.Submission:
    return queue.Submission(
        sid, entrant, sid, f"{entrant}.{sid}", "0" * 64, 1, 1, float(sid), State.RECEIVED, "", "", None, 0, 0, False,
        None, None, None, 0,
    )  # fmt: skip


def test_the_pick_takes_the_oldest_unless_its_entrant_holds_its_share() -> None:
    flood = [_sub(n, "alice") for n in range(1, 31)]
    late = _sub(31, "bob")
    running = [flood[0]]
    chosen = queue.pick([*flood[1:], late], running, slots=2)
    assert chosen is not None and chosen.entrant == "bob", "alice's thirty submissions kept bob waiting"
    assert queue.pick(flood, [], slots=2) == flood[0]


@given(
    entrants=st.lists(st.sampled_from("abcde"), min_size=1, max_size=40),
    slots=st.integers(1, 6),
)
def test_the_pick_fills_the_slots_fairly(entrants: list[str], slots: int) -> None:
    """Picking until the slots are full: every slot used while work waits; the oldest submission of each entrant
    first; an entrant given more than its share only when no other entrant under its share was waiting."""
    waiting = [_sub(n, e) for n, e in enumerate(entrants, 1)]
    running: list[queue.Submission] = []
    share = max(1, slots // len(set(entrants)))
    while (chosen := queue.pick(waiting, running, slots)) is not None:
        mine = [s for s in waiting if s.entrant == chosen.entrant and s not in running]
        assert chosen == min(mine, key=lambda s: s.id), "an entrant's newer submission jumped its older one"
        held = {e: sum(1 for s in running if s.entrant == e) for e in set(entrants)}
        if held[chosen.entrant] >= share:
            under = {s.entrant for s in waiting if s not in running and held[s.entrant] < share}
            assert not under, f"{chosen.entrant} over its share {share} while {under} waited"
        running.append(chosen)
    assert len(running) == min(slots, len(waiting))


def test_an_upload_whose_token_was_revoked_while_it_streamed_in_is_not_recorded(db: sqlite3.Connection) -> None:
    # The server checks the token before it reads the body; the queue checks the entrant again at the end.
    accounts.revoke_entrant(db, "alice")
    with pytest.raises(QueueError, match="revoked") as caught:
        queue.receive(db, "alice", received(7), per_day=5, closed=None)
    assert caught.value.status == 403
    assert queue.history(db, "alice") == []
    sub, made = queue.receive(db, "bob", received(7), per_day=5, closed=None)
    assert made and sub.entrant == "bob"
