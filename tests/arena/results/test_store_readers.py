"""The store's small readers for the pages (``count_games``, ``outcome_counts(player=)``, ``games_paged``,
``win_counts``, ``recent_commits``): each held equal to what the games themselves say (``iter_games``, read in
Python), on random stores."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import arena.results.store as store_module
from arena.config import PlayerRef, TournamentConfig
from arena.outcome import GameResult, Outcome
from arena.results.store import Store
from engine import BEGINNER, FirstClick

PLAYERS = ("alpha", "beta", "gamma")
OUTCOMES = list(Outcome)


def config(games: int) -> TournamentConfig:
    refs = tuple(PlayerRef(name=n) for n in PLAYERS)
    return TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=3, games=games, players=refs)


def game(player: str, board: int, outcome: Outcome) -> GameResult:
    return GameResult(player, board, outcome, 9, 7, 2, 0, board % 3, 10, 10, 71, 0, 0, 1.5, 2.0, "")


games_strategy = st.dictionaries(
    st.tuples(st.sampled_from(PLAYERS), st.integers(0, 59)), st.sampled_from(OUTCOMES), max_size=80
)


@pytest.mark.slow
@settings(max_examples=30)
@given(
    games=games_strategy,
    player=st.sampled_from(PLAYERS),
    wanted=st.sets(st.sampled_from(OUTCOMES)),
    limit=st.integers(1, 12),
    offset=st.integers(0, 30),
    boards=st.integers(0, 70),
)
def test_the_pages_readers_say_what_the_games_say(
    games: dict[tuple[str, int], Outcome], player: str, wanted: set[Outcome], limit: int, offset: int, boards: int
) -> None:
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "a.db") as db:
        cfg = config(60)
        db.ensure_tournament(cfg, {})
        db.save(cfg.id, [game(p, b, o) for (p, b), o in games.items()])
        every = list(db.iter_games(cfg.id))
        assert len(every) == len(games)
        mine = [g for g in every if g.player == player]
        assert db.count_games(cfg.id) == len(every) and db.count_games(cfg.id, player) == len(mine)
        counted: dict[Outcome, int] = {}
        for g in mine:
            counted[g.outcome] = counted.get(g.outcome, 0) + 1
        assert db.outcome_counts(cfg.id, player=player) == ({player: counted} if mine else {})
        assert db.outcome_counts(cfg.id, player=player).get(player, {}) == db.outcome_counts(cfg.id).get(player, {})
        chosen = [g for g in mine if g.outcome in wanted]  # by board: iter_games' order for one player
        assert db.games_paged(cfg.id, player, wanted, limit=limit, offset=offset) == chosen[offset : offset + limit]
        expected: dict[str, tuple[int, int]] = {}
        for g in every:
            if g.board < boards:
                n, w = expected.get(g.player, (0, 0))
                expected[g.player] = (n + 1, w + g.won)
        assert db.win_counts(cfg.id, boards) == expected


def test_recent_commits_are_the_last_ones_within_the_window_newest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stamps = iter(f"2030-01-01T00:{s // 60:02d}:{s % 60:02d}.000000+00:00" for s in (0, 100, 150, 200, 400))
    with Store(tmp_path / "a.db") as db:
        cfg = config(60)
        db.ensure_tournament(cfg, {})
        assert db.recent_commits(cfg.id, seconds=120.0, limit=40) == []
        monkeypatch.setattr(store_module, "_now", lambda: next(stamps))  # each batch its commit time
        for batch, size in enumerate((1, 2, 3, 4, 5)):
            db.save(cfg.id, [game(PLAYERS[0], 10 * batch + i, Outcome.WON) for i in range(size)])
        when = {s: f"2030-01-01T00:{s // 60:02d}:{s % 60:02d}.000000+00:00" for s in (100, 150, 200, 400)}
        assert db.recent_commits(cfg.id, seconds=120.0, limit=40) == [(when[400], 5)]
        assert db.recent_commits(cfg.id, seconds=300.0, limit=40) == [
            (when[400], 5),
            (when[200], 4),
            (when[150], 3),
            (when[100], 2),
        ]
        assert db.recent_commits(cfg.id, seconds=300.0, limit=2) == [(when[400], 5), (when[200], 4)]


def test_the_store_reads_back_types_not_rows(tmp_path: Path) -> None:
    """Issue 25: what the store returns is typed (a misspelt field is an error where it is written, not a
    ``KeyError`` at a user's terminal), and no public reader is declared to return a row or ``Any``."""
    import dataclasses
    import inspect
    import typing

    from arena.results.reading import StoreReader
    from arena.results.stored import StoredPlayer, StoredTournament

    cfg = config(3)
    with Store(tmp_path / "a.db") as db:
        db.ensure_tournament(cfg, {})
        db.save(cfg.id, [game(p, b, Outcome.WON) for p in PLAYERS for b in range(3)])
        values = [
            db.tournament(cfg.id),
            *db.tournaments(),
            *db.players(cfg.id),
            *(p for _, p in db.players_everywhere()),
            *db.games(cfg.id),
            db.game(cfg.id, "beta", 1),
        ]
        kinds = {type(v) for v in values}
        assert kinds == {StoredTournament, StoredPlayer, GameResult}, kinds
        assert db.tournament(cfg.id).spec == BEGINNER and db.tournament(cfg.id).rule is FirstClick.SAFE
        for value in values:
            assert dataclasses.is_dataclass(value) and not hasattr(value, "keys")  # not a row
            with pytest.raises(AttributeError):
                value.outcom  # type: ignore[union-attr]  # noqa: B018  (a misspelt field fails where it is read)
    readers = [name for name, _ in inspect.getmembers(StoreReader, inspect.isfunction) if not name.startswith("_")]
    loose = []
    for name in readers:
        hint = typing.get_type_hints(getattr(StoreReader, name)).get("return")
        text = repr(hint)
        if hint is None or "Any" in text or "Row" in text or text.startswith("dict[str, typing.Any"):
            loose.append((name, text))
    assert len(readers) >= 15, readers
    assert not loose, loose
