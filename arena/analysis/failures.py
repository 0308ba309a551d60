"""Why a player's games failed: the outcomes it reached and its distinct error messages.

The store keeps one error text per failed game (the reason, then the bot's last stderr lines).
A bot that fails usually fails the same way on every board, so the report groups the messages
(numbers aside: "no reply within 1.02 s" and "within 1.31 s" are one mistake) and keeps the first
board of each, which ``arena errors`` turns into the command that replays it.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from arena.analysis.leaderboard import LeaderboardConfig, failure_counts, tournament_config
from arena.outcome import FAILURES, GameResult, Outcome
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
    config, stored = tournament_config(store, tournament_id)
    tid = config.tournament_id
    info = {p.key: p for p in store.players(tid)}
    counts = store.outcome_counts(tid)
    if player is not None and player not in counts and player not in info:
        known = ", ".join(sorted(set(counts) | set(info))) or "none"
        raise StoreError(f"no player {player!r} in tournament {tid} (players: {known})")
    failed_games: dict[str, list[GameResult]] = {}
    # Only the failed games are read: a tournament of 100,000 games may have a handful.
    for game in store.iter_games(tid, player=player, outcomes=FAILURES):
        failed_games.setdefault(game.player, []).append(game)
    bots = stored.config_data.get("engine_bots", [])
    report = FailureReport(config=config, engine_bots=sorted(b["name"] for b in bots), players=[])
    for key in sorted(counts) if player is None else [player]:
        failures = failure_counts(failed_games.get(key, []))
        failed = sum(failures.values())
        if player is None and not failed:
            continue
        outcomes = {o.value: 0 for o in Outcome} | {o.value: n for o, n in counts.get(key, {}).items()}
        typical: dict[tuple[str, str], TypicalFailure] = {}
        for game in failed_games.get(key, []):  # ordered by board
            reason, stderr = _split(game.error)
            group = (game.outcome.value, _NUMBER.sub("N", reason))
            if group in typical:
                typical[group].games += 1
            else:
                typical[group] = TypicalFailure(
                    outcome=game.outcome.value, message=reason, stderr=stderr, games=1, board=game.board
                )
        known_player = info.get(key)
        report.players.append(
            PlayerFailures(
                player=key,
                name=known_player.name if known_player else key,
                options=known_player.options if known_player else {},
                source=known_player.source if known_player else "",
                games=sum(counts.get(key, {}).values()),
                outcomes={k: v for k, v in outcomes.items() if v},
                failed=failed,
                distinct=len(typical),
                failures=list(typical.values())[:limit],
            )
        )
    return report
