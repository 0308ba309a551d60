"""Stored games for the replay commands (``arena replay``, ``arena diff``, ``arena play --replay``).

Every one of them names a game the same way (a tournament, default the latest; a player; a board) and must
refuse a wrong name the same way: one line saying what exists. A game is shown only once its record has
reproduced it: ``Store.replay`` plays the stored moves on the board and checks them against the stored
result, then the moves become the viewer's (``arena.analysis.replay.ReplayGame``) field for field.
"""

from __future__ import annotations

import re

from arena.analysis.replay import ReplayGame, ReplayMove
from arena.analysis.replay.model import Note
from arena.cli.common import UsageError
from arena.results.entrants import version_tag
from arena.results.records import Move
from arena.results.store import Store

__all__ = ["check_board", "check_player", "file_slug", "replay_move", "split_players", "stored_game", "tournament_id"]


def tournament_id(db: Store, tournament: str | None) -> str:
    """The tournament asked for, or the latest; ``StoreError`` (one line) for an unknown one."""
    tid = tournament or db.latest()
    db.tournament(tid)
    return tid


def check_player(db: Store, tid: str, player: str) -> str:
    """The games row ``player`` names: its key, or the label ``--all-versions`` shows for a first version
    (``my-bot@1``, whose row is the plain ``my-bot``); one line naming the players otherwise."""
    entrants = db.players(tid)
    names = [p.key for p in entrants]
    if player in names:
        return player
    for entrant in entrants:
        if entrant.version and f"{entrant.base or entrant.key}@{version_tag(entrant.version)}" == player:
            return entrant.key
    raise UsageError(f"tournament {tid} has no player {player!r}; its players: {', '.join(names) or 'none'}")


def check_board(db: Store, tid: str, board: int) -> None:
    games = db.tournament(tid).boards
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
    player = check_player(db, tid, player)
    check_board(db, tid, board)
    checked = db.replay(tid, player, board)
    stored = db.tournament(tid)
    result = db.game(tid, player, board)
    moves = [replay_move(m) for m in checked.record.moves]
    return ReplayGame(
        player, stored.spec, stored.rule.value, stored.seed, board, moves, result.outcome.value, result.error
    )


def file_slug(text: str) -> str:
    """A player key as part of a file name: ``random[x=1]`` -> ``random-x-1``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "player"
