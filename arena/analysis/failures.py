"""Why a player's games failed: the outcomes it reached and its distinct error messages.

The store keeps one error text per failed game (the reason, then the bot's last stderr lines).
A bot that fails usually fails the same way on every board, so the report groups the messages
(numbers aside: "no reply within 1.02 s" and "within 1.31 s" are one mistake) and keeps the first
board of each, which ``arena errors`` turns into the command that replays it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from arena.analysis.leaderboard import LeaderboardConfig, failure_counts, tournament_config
from arena.result import Outcome
from arena.results.store import Store, StoreError

__all__ = ["FailureReport", "PlayerFailures", "TypicalFailure", "build_failure_report"]

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: How the runner separates the reason from the bot's stderr lines in the error column.
_STDERR = "\nstderr:\n"


class TypicalFailure(BaseModel):
    """One distinct failure: its reason, how often it happened, and the first board it happened on."""

    outcome: str
    message: str
    #: The bot's last stderr lines stored with the first such game (empty for a trusted player).
    stderr: list[str]
    games: int
    board: int
    #: A command that replays ``board`` (set by the CLI, which knows its own commands); None if none can.
    reproduce: str | None = None


class PlayerFailures(BaseModel):
    player: str
    #: The registered name and options behind the leaderboard key ``player``.
    name: str
    options: dict[str, Any]
    source: str
    games: int
    #: Every outcome reached, won and lost included.
    outcomes: dict[str, int]
    #: Games not played to the end by the rules: the leaderboard's ``failed``.
    failed: int
    #: How many distinct failures there are; ``failures`` holds the first ``limit`` of them.
    distinct: int
    failures: list[TypicalFailure]


class FailureReport(BaseModel):
    config: LeaderboardConfig
    #: Engine bots of the tournament (they cannot be replayed in process).
    engine_bots: list[str]
    players: list[PlayerFailures]


def _split(error: str) -> tuple[str, list[str]]:
    reason, _, tail = error.partition(_STDERR)
    return reason.strip(), [line for line in tail.splitlines() if line.strip()]


def build_failure_report(
    store: Store, tournament_id: str | None = None, player: str | None = None, limit: int = 5
) -> FailureReport:
    """The failures of ``player`` (default: every player that has any) in a stored tournament
    (default: the latest), with at most ``limit`` distinct messages each."""
    config, meta = tournament_config(store, tournament_id)
    info = {p["player"]: p for p in store.players(config.tournament_id)}
    games = store.games(config.tournament_id)
    by_player: dict[str, list[dict[str, Any]]] = {}
    for row in games:
        by_player.setdefault(row["player"], []).append(row)
    if player is not None and player not in by_player and player not in info:
        known = ", ".join(sorted(set(by_player) | set(info))) or "none"
        raise StoreError(f"no player {player!r} in tournament {config.tournament_id} (players: {known})")
    stored = json.loads(meta.get("config") or "{}")
    report = FailureReport(
        config=config, engine_bots=sorted(b["name"] for b in stored.get("engine_bots", [])), players=[]
    )
    for key in sorted(by_player) if player is None else [player]:
        rows = by_player.get(key, [])
        failures = failure_counts(rows)
        failed = sum(failures.values())
        if player is None and not failed:
            continue
        outcomes = {o.value: 0 for o in Outcome}
        for row in rows:
            outcomes[row["outcome"]] = outcomes.get(row["outcome"], 0) + 1
        typical: dict[tuple[str, str], TypicalFailure] = {}
        for row in rows:  # ordered by board
            if row["outcome"] not in failures:
                continue
            reason, stderr = _split(row["error"] or "")
            group = (row["outcome"], _NUMBER.sub("N", reason))
            if group in typical:
                typical[group].games += 1
            else:
                typical[group] = TypicalFailure(
                    outcome=row["outcome"], message=reason, stderr=stderr, games=1, board=row["board"]
                )
        meta_row = info.get(key, {})
        report.players.append(
            PlayerFailures(
                player=key,
                name=str(meta_row.get("name", key)),
                options=json.loads(meta_row.get("options") or "{}"),
                source=str(meta_row.get("source", "")),
                games=len(rows),
                outcomes={k: v for k, v in outcomes.items() if v},
                failed=failed,
                distinct=len(typical),
                failures=list(typical.values())[:limit],
            )
        )
    return report
