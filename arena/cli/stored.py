"""Stored games for the replay commands (``arena replay``, ``arena diff``, ``arena play --replay``).

Every one of them names a game the same way (a tournament, default the latest; a player; a board) and must
refuse a wrong name the same way: one line saying what exists. A game is shown only once its record has
reproduced it: ``arena.results.records.load_replay`` plays the stored moves on the board and checks them against the
stored result, then the moves become the viewer's (``arena.analysis.replay.ReplayGame``) field for field.
"""

from __future__ import annotations

import re
from typing import Any

from arena.analysis.replay import ReplayGame, ReplayMove
from arena.analysis.replay.model import Note
from arena.cli.common import UsageError
from arena.results.records import Move, load_replay
from arena.results.store import Store
from engine import BoardSpec

__all__ = ["check_board", "check_player", "file_slug", "replay_move", "split_players", "stored_game", "tournament_id"]


def tournament_id(db: Store, tournament: str | None) -> str:
    """The tournament asked for, or the latest; ``StoreError`` (one line) for an unknown one."""
    tid = tournament or db.latest()
    db.tournament(tid)
    return tid


def check_player(db: Store, tid: str, player: str) -> None:
    names = [row["player"] for row in db.players(tid)]
    if player not in names:
        raise UsageError(f"tournament {tid} has no player {player!r}; its players: {', '.join(names) or 'none'}")


def check_board(db: Store, tid: str, board: int) -> None:
    games = int(db.tournament(tid)["games"])
    if not 0 <= board < games:
        raise UsageError(f"tournament {tid} has boards 0 to {games - 1}; there is no board {board}")


def split_players(text: str) -> list[str]:
    """``a,b`` as two players; a comma inside a player's options (``random[x=1,y=2]``) stays with it."""
    parts = [p.strip() for p in re.split(r",(?![^\[]*\])", text)]
    if not all(parts):
        raise UsageError(f"-p: expected NAME or NAME,NAME2, got {text!r}")
    return parts


def _note(move: Move) -> Note:
    """The stored note as the viewer takes it: with a ``p_mine``, the JSON object a bot would have sent."""
    if move.p_mine is not None:
        return {"note": move.note, "p_mine": move.p_mine} if move.note else {"p_mine": move.p_mine}
    return move.note or None


def replay_move(move: Move) -> ReplayMove:
    return ReplayMove(move.kind, move.row, move.col, move.guess, _note(move), move.opened)


def stored_game(db: Store, tid: str, player: str, board: int) -> ReplayGame:
    """``player``'s game on ``board``, checked against its stored result (``RecordError`` otherwise)."""
    check_player(db, tid, player)
    check_board(db, tid, board)
    checked = load_replay(db, tid, player, board)
    meta: dict[str, Any] = db.tournament(tid)
    row = db.game(tid, player, board)
    name = meta["difficulty"] if "/" not in meta["difficulty"] else "custom"
    spec = BoardSpec(meta["height"], meta["width"], meta["mines"], name)
    moves = [replay_move(m) for m in checked.record.moves]
    return ReplayGame(player, spec, meta["rule"], meta["seed"], board, moves, row["outcome"], row["error"] or "")


def file_slug(text: str) -> str:
    """A player key as part of a file name: ``random[x=1]`` -> ``random-x-1``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "player"
