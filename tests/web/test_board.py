"""``arena.web.board.fast_leaderboard`` is ``build_leaderboard``, value for value: on played tournaments and
on stores of arbitrary results (hypothesis: any outcomes, timings, first clicks, missing games, ties)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from web_support import Stored

from arena.analysis.leaderboard import build_leaderboard
from arena.config import PlayerRef, TournamentConfig
from arena.result import GameResult, Outcome
from arena.results.store import Store
from arena.web.board import fast_leaderboard
from engine import BEGINNER, FirstClick


def test_equal_on_played_tournaments(stored: Stored, swept):
    checked = 0
    for path in (stored.path, swept[0]):
        with Store(path, read_only=True) as db:
            for row in db.tournaments():
                assert fast_leaderboard(db, row.id) == build_leaderboard(db, row.id)
                checked += 1
    assert checked == 4


game = st.builds(
    lambda outcome, moves, guesses, bbbv, solved, click, cpu: (outcome, moves, guesses, bbbv, solved, click, cpu),
    st.sampled_from(list(Outcome)),
    st.integers(0, 60),
    st.integers(0, 8),
    st.integers(0, 40),
    st.integers(0, 40),
    st.one_of(st.none(), st.tuples(st.integers(0, 2), st.integers(0, 2))),
    st.floats(0, 50, allow_nan=False, allow_infinity=False, allow_subnormal=False),  # cpu_ms is rounded to 4 places
)


@settings(max_examples=40)
@given(
    players=st.dictionaries(
        st.sampled_from(["a", "a@2", "b", "c[x=1]", "d"]),
        st.dictionaries(st.integers(0, 11), game, max_size=12),
        min_size=1,
        max_size=4,
    )
)
def test_equal_on_any_results(players, tmp_path_factory):
    path = Path(tmp_path_factory.mktemp("board")) / "store.db"
    config = TournamentConfig.build(
        BEGINNER, FirstClick.SAFE, seed=1, games=10, players=tuple(PlayerRef(name=p.split("[")[0]) for p in "ab")
    )
    with Store(path) as db:
        db.ensure_tournament(config, {})
        # A later version of a: an entrant of its own (a@2), seen last, so its player's latest version.
        db.ensure_tournament(config.model_copy(update={"players": (PlayerRef(name="a", tag="2"),)}), {})
        results = []
        for player, games in players.items():
            for board, (outcome, moves, guesses, bbbv, solved, click, cpu) in games.items():
                row, col = click if click is not None else (None, None)
                figures = (moves, 0, 0, 0, guesses, bbbv, min(solved, bbbv), 0, row, col, cpu, cpu)
                results.append(GameResult(player, board, outcome, *figures))
        db.save(config.id, results)
    with Store(path, read_only=True) as db:
        for every in (False, True):
            assert fast_leaderboard(db, config.id, all_versions=every) == build_leaderboard(
                db, config.id, all_versions=every
            )
        # Both versions played one of the 10 boards: only the latest is shown unless all are asked.
        if all(any(board < 10 for board in players.get(key, {})) for key in ("a", "a@2")):
            assert "a" not in {r.player for r in build_leaderboard(db, config.id).rows}
            assert {"a", "a@2"} <= {r.player for r in build_leaderboard(db, config.id, all_versions=True).rows}
