"""A match: two players on the same boards, batch after batch, until the sequential test decides.

A match is a tournament of two players whose extent grows a batch at a time (each batch a planned run,
``arena.play.plan``), kept apart from the ordinary tournament of its boards (``TournamentConfig.purpose``,
``match CAND vs BASE``, set by the caller): its games land in the store like any other, a rerun of the same match
resumes it (and finds the verdict again without playing, if it was reached), and `arena leaderboard TOURNAMENT`
shows it, but the ordinary leaderboard of those boards never holds a match's rows. The test is looked at only at
the ends of batches (``batch``, ``2 batch``, ...), in board order, whatever order the games were played in; so a
resumed, extended or re-read match gives the same verdict at the same board.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.analysis.pairs import split_boards
from arena.analysis.sequential import SprtState, gsprt
from arena.config import PlayerRef, TournamentConfig
from arena.outcome import PlayerKey
from arena.play.backends import Backend, make_backend
from arena.play.events import TournamentEvents
from arena.play.plan import plan_tournament
from arena.play.tournament import run_tournament
from arena.results.labels import MatchSettings
from arena.results.store import Store
from players.registry import Registry

__all__ = ["MatchEvents", "MatchResult", "looks", "parse_player_spec", "run_match"]


class MatchEvents(TournamentEvents):
    """A match's events: each batch is a tournament run (``arena.play.events``: started ... finished, once per
    batch), and after each, ``looked`` at the test."""

    def looked(self, state: SprtState) -> None:
        """The sequential test after a batch (``state.verdict`` is ``continue`` until it decides)."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The last look at the test, the tournament the games are in, and how many were played now."""

    state: SprtState
    tournament_id: str
    played: int
    max_games: int
    #: The games rows of A and B: their keys, ``KEY@VERSION`` for a version the tournament saw after another.
    rows: tuple[str, str] = ("", "")

    @property
    def decided(self) -> bool:
        return self.state.verdict != "continue"


def parse_player_spec(text: str) -> PlayerRef:
    """``NAME`` or ``NAME[KEY=VALUE,...]`` (values read as JSON, else as text), the leaderboard's own
    spelling (``PlayerKey``), so that a player with options can be matched against itself without them."""
    key = PlayerKey(text.strip())
    if key.tag:
        raise ValueError(f"player {text!r}: a match plays the current version of each player, not @{key.tag}")
    return PlayerRef(name=key.name, options=key.options)


def looks(batch: int, max_games: int) -> list[int]:
    """The board counts at which the test is looked at: every ``batch`` boards, and at the end."""
    if batch < 1 or max_games < batch:
        raise ValueError(f"need 1 <= batch <= max games, got batch {batch} and max games {max_games}")
    points = list(range(batch, max_games + 1, batch))
    return points if points[-1] == max_games else [*points, max_games]


def run_match(
    config: TournamentConfig,
    store: Store,
    registry: Registry,
    *,
    delta: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    batch: int = 200,
    max_games: int = 1_000_000,
    workers: int | None = None,
    backend: str | Backend = "local",
    address: str | None = None,
    events: TournamentEvents | None = None,
) -> MatchResult:
    """Play ``config``'s two players batch by batch until the sequential test of "A better by ``delta`` or more"
    against "no better" (``arena.analysis.sequential``) decides or ``max_games`` boards are played.
    ``config.games`` is ignored: the match sets the extent. ``backend`` and ``address`` are ``plan_tournament``'s
    (a Dask cluster plays a match as it plays a tournament); one backend plays every batch. ``events`` hears each
    batch's run, and, a ``MatchEvents``, the test after each batch."""
    if len(config.players) != 2 or config.players[0].key == config.players[1].key:
        raise ValueError("a match needs two different players")
    points = looks(batch, max_games)
    gsprt(0, 0, 0, delta, alpha, beta)  # bad delta, alpha or beta fail before anything is played
    a, b = (ref.base for ref in config.players)
    store.describe(config.id, match=MatchSettings(round(100 * delta, 9), alpha, beta, batch, max_games))
    owned = isinstance(backend, str)
    backend_used = make_backend(backend, workers=workers, address=address) if isinstance(backend, str) else backend
    played = only_a = only_b = previous = 0
    rows = (a, b)
    try:
        for boards in points:
            extent = config.model_copy(update={"games": boards})
            plan = plan_tournament(extent, store, registry, workers=workers, backend=backend_used.name, address=address)
            summary = run_tournament(plan, store, events, backend=backend_used)
            played += summary.played
            rows = summary.keys.get(a, a), summary.keys.get(b, b)  # each player's row at its running version
            new = split_boards(store, config.id, *rows, previous, boards)
            only_a, only_b, previous = only_a + len(new.only_a), only_b + len(new.only_b), boards
            state = gsprt(only_a, only_b, boards, delta, alpha, beta)
            if isinstance(events, MatchEvents):
                events.looked(state)
            if state.verdict != "continue":
                break
    finally:
        if owned:
            backend_used.close()
    return MatchResult(state, config.id, played, max_games, rows)
