"""Leaderboards from hand-made results: win rates, Wilson intervals, ranks, paired McNemar, publishing."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from repo import ROOT

from arena.analysis.leaderboard import Leaderboard, PublishError, build_leaderboard, publish
from arena.analysis.stats import paired_difference, wilson_interval
from arena.config import PlayerRef, TournamentConfig
from arena.outcome import GameResult, Outcome
from arena.results.store import Store
from engine import BEGINNER, BoardSpec, FirstClick

MakeResult = Callable[..., GameResult]
BOARDS = 10


def exact_mcnemar(only_a: int, only_b: int) -> float:
    """Two-sided exact binomial test on the discordant boards, by hand: 2 P(X <= min) for X ~ Bin(n, 1/2)."""
    n = only_a + only_b
    tail = sum(Fraction(math.comb(n, i), 2**n) for i in range(min(only_a, only_b) + 1))
    return float(min(Fraction(1), 2 * tail))


def setup_store(store: Store, results: list[GameResult], players: tuple[str, ...], **kw: object) -> str:
    config = TournamentConfig.build(
        kw.pop("spec", BEGINNER),  # type: ignore[arg-type]
        kw.pop("rule", FirstClick.SAFE),  # type: ignore[arg-type]
        seed=5,
        games=BOARDS,
        players=tuple(PlayerRef(name=p) for p in players),
    )
    sources = {"alpha": ("2.1", "file alpha.py"), "beta": ("1", "builtin"), "gamma": ("1", "builtin")}
    store.ensure_tournament(config, sources)
    store.save(config.id, results)
    return config.id


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "arena.db") as db:
        yield db


@pytest.fixture
def three_players(store: Store, make_result: MakeResult) -> tuple[Store, str]:
    """alpha wins boards 0-6; beta wins 0, 1 and 7; gamma wins 2, 3 and 9 and has bot failures on 4-8."""
    results = []
    for board in range(BOARDS):
        results.append(
            make_result(
                "alpha",
                board,
                Outcome.WON if board <= 6 else Outcome.LOST,
                cpu_ms=float(board),
                guesses=board % 3,
                moves=10 + board,
                first_row=0,
                first_col=0,
            )
        )
        results.append(
            make_result(
                "beta",
                board,
                Outcome.WON if board in (0, 1, 7) else Outcome.LOST,
                cpu_ms=2.0,
                guesses=1,
                moves=30,
                first_row=0 if board < 9 else 4,
                first_col=0 if board < 9 else 4,
            )
        )
        gamma = {4: Outcome.ERROR, 5: Outcome.ILLEGAL, 6: Outcome.CRASHED, 7: Outcome.TIMEOUT, 8: Outcome.ERROR}
        results.append(
            make_result("gamma", board, Outcome.WON if board in (2, 3, 9) else gamma.get(board, Outcome.LOST))
        )
    tid = setup_store(store, results, ("alpha", "beta", "gamma"))
    return store, tid


def test_rows_have_win_rates_and_wilson_intervals(three_players: tuple[Store, str]) -> None:
    store, tid = three_players
    board = build_leaderboard(store, tid)
    rows = {r.player: r for r in board.rows}
    for player, wins in (("alpha", 7), ("beta", 3), ("gamma", 3)):
        row = rows[player]
        assert (row.games, row.wins) == (BOARDS, wins)
        assert row.win_rate == pytest.approx(wins / BOARDS)
        low, high = wilson_interval(wins, BOARDS)
        assert (row.ci_low, row.ci_high) == (pytest.approx(low), pytest.approx(high))
        assert row.ci_low < row.win_rate < row.ci_high
    # Wilson for 7/10 by the textbook formula, independently of arena.analysis.stats.
    z = 1.959963984540054
    centre = (0.7 + z * z / 20) / (1 + z * z / 10)
    half = z / (1 + z * z / 10) * math.sqrt(0.7 * 0.3 / 10 + z * z / 400)
    assert rows["alpha"].ci_low == pytest.approx(centre - half, abs=1e-9)
    assert rows["alpha"].ci_high == pytest.approx(centre + half, abs=1e-9)


def test_ranks_follow_win_rate_then_name(three_players: tuple[Store, str]) -> None:
    store, tid = three_players
    board = build_leaderboard(store, tid)
    assert [(r.rank, r.player) for r in board.rows] == [(1, "alpha"), (2, "beta"), (3, "gamma")]


def test_per_game_figures(three_players: tuple[Store, str]) -> None:
    store, tid = three_players
    rows = {r.player: r for r in build_leaderboard(store, tid).rows}
    alpha, beta, gamma = rows["alpha"], rows["beta"], rows["gamma"]
    assert alpha.ms_per_game == pytest.approx(4.5)  # mean of cpu_ms 0..9
    assert alpha.guesses_per_game == pytest.approx(sum(b % 3 for b in range(BOARDS)) / BOARDS)
    assert alpha.moves_per_win == pytest.approx(13.0)  # moves 10..16 on the won boards 0..6
    assert beta.moves_per_win == pytest.approx(30.0)
    assert (alpha.version, alpha.source) == ("2.1", "file alpha.py")
    assert alpha.first_click == "0,0"
    assert beta.first_click == "0,0 (mostly)"
    assert (alpha.failed, sum(alpha.failed_by.values())) == (0, 0)
    # Every game not played to the end counts, timeouts too: error x2, illegal, crashed, timeout.
    assert gamma.failed == 5
    assert gamma.failed_by == {"error": 2, "illegal": 1, "crashed": 1, "timeout": 1}


def test_paired_comparison_against_the_leader(three_players: tuple[Store, str]) -> None:
    store, tid = three_players
    rows = {r.player: r for r in build_leaderboard(store, tid).rows}
    leader = rows["alpha"]
    assert leader.paired_games is None
    assert leader.only_leader is None
    assert leader.p_value is None
    assert leader.diff is None

    beta = rows["beta"]  # alpha only: boards 2-6; beta only: board 7
    assert (beta.paired_games, beta.only_leader, beta.only_player) == (BOARDS, 5, 1)
    assert beta.p_value == pytest.approx(14 / 64)  # 2 (C(6,0) + C(6,1)) / 2^6
    assert beta.p_value == pytest.approx(exact_mcnemar(1, 5))
    assert beta.diff == pytest.approx(-0.4)
    expected = paired_difference(1, 5, BOARDS)
    assert (beta.diff_low, beta.diff_high) == (pytest.approx(expected[1]), pytest.approx(expected[2]))
    assert beta.diff_low < beta.diff < beta.diff_high

    gamma = rows["gamma"]  # alpha only: 0, 1, 4, 5, 6; gamma only: 9
    assert (gamma.paired_games, gamma.only_leader, gamma.only_player) == (BOARDS, 5, 1)
    assert gamma.p_value == pytest.approx(exact_mcnemar(1, 5))


def test_one_sided_discordance_and_missing_boards(store: Store, make_result: MakeResult) -> None:
    """The leader won 5 boards the other lost, never the reverse; the other player missed boards 8-9."""
    results = [make_result("alpha", b, Outcome.WON if b < 6 else Outcome.LOST) for b in range(BOARDS)]
    results += [make_result("beta", b, Outcome.WON if b == 0 else Outcome.LOST) for b in range(8)]
    tid = setup_store(store, results, ("alpha", "beta"))
    rows = {r.player: r for r in build_leaderboard(store, tid).rows}
    beta = rows["beta"]
    assert (beta.games, beta.wins) == (8, 1)
    assert (beta.paired_games, beta.only_leader, beta.only_player) == (8, 5, 0)
    assert beta.p_value == pytest.approx(2 / 32)
    assert beta.diff == pytest.approx(-5 / 8)
    assert beta.moves_per_win == pytest.approx(20.0)


def test_no_discordant_boards_gives_p_one(store: Store, make_result: MakeResult) -> None:
    results = [make_result(p, b, Outcome.WON if b % 2 else Outcome.LOST) for p in ("alpha", "beta") for b in range(4)]
    tid = setup_store(store, results, ("alpha", "beta"))
    board = build_leaderboard(store, tid)
    assert [r.player for r in board.rows] == ["alpha", "beta"]
    second = board.rows[1]
    assert (second.only_leader, second.only_player, second.p_value, second.diff) == (0, 0, 1.0, 0.0)


def test_player_without_wins(store: Store, make_result: MakeResult) -> None:
    results = [make_result("alpha", b, Outcome.LOST) for b in range(5)]
    tid = setup_store(store, results, ("alpha",))
    (row,) = build_leaderboard(store, tid).rows
    assert (row.rank, row.wins, row.win_rate, row.ci_low) == (1, 0, 0.0, 0.0)
    assert row.moves_per_win is None
    assert row.bbbv_per_second is None


def test_boards_limit_and_latest_default(three_players: tuple[Store, str]) -> None:
    store, tid = three_players
    full = build_leaderboard(store)
    assert full.config.tournament_id == tid
    assert full.config.boards == BOARDS
    first = build_leaderboard(store, tid, boards=2)  # boards 0 and 1: alpha and beta won both, gamma neither
    assert first.config.boards == 2
    rows = {r.player: r for r in first.rows}
    assert {p: (r.games, r.wins) for p, r in rows.items()} == {"alpha": (2, 2), "beta": (2, 2), "gamma": (2, 0)}
    assert [r.player for r in first.rows] == ["alpha", "beta", "gamma"]


def test_tournament_without_games_has_no_rows(store: Store) -> None:
    tid = setup_store(store, [], ("alpha",))
    board = build_leaderboard(store, tid)
    assert board.rows == []
    assert board.config.difficulty == "beginner"
    assert "beginner" in board.title


def test_publish_writes_markdown_and_json(three_players: tuple[Store, str], tmp_path: Path) -> None:
    store, tid = three_players
    board = build_leaderboard(store, tid)
    md, js = publish(board, tmp_path / "out")
    assert (md, js) == (tmp_path / "out" / "beginner-safe.md", tmp_path / "out" / "beginner-safe.json")
    data = json.loads(js.read_text())
    assert data == json.loads(board.model_dump_json())
    assert Leaderboard.model_validate(data) == board
    assert [r["player"] for r in data["rows"]] == ["alpha", "beta", "gamma"]

    text = md.read_text()
    assert text.startswith("# Leaderboard: beginner, first click `safe`\n")
    assert f"tournament `{tid}`" in text
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| # | player | version | games | wins | win rate | 95% CI | vs leader | p |")
    assert [line.split(" | ")[1] for line in table[1:]] == ["alpha", "beta", "gamma"]
    version = board.rows[0].version
    assert table[1].startswith(f"| 1 | alpha | {version} | 10 | 7 | 70.00% | ")
    assert "| leader |" in table[1]
    assert "| -40.00 [" in table[2]
    assert "| 0.219 |" in table[2]


def test_publish_names_custom_boards_by_size(store: Store, make_result: MakeResult, tmp_path: Path) -> None:
    tid = setup_store(store, [make_result("alpha", 0)], ("alpha",), spec=BoardSpec(5, 6, 4), rule=FirstClick.OPENING)
    md, js = publish(build_leaderboard(store, tid), tmp_path)
    assert (md.name, js.name) == ("5x6-4-opening.md", "5x6-4-opening.json")
    assert "# Leaderboard: 5x6/4, first click `opening`" in md.read_text()


def test_boards_limit_beyond_the_tournament_reports_the_real_number(three_players: tuple[Store, str]) -> None:
    store, tid = three_players
    board = build_leaderboard(store, tid, boards=1000)
    assert {r.games for r in board.rows} == {BOARDS}
    assert board.config.boards == BOARDS


# -- publishing over published results -----------------------------------------------------------------------------

REPO = ROOT


def record_tournament(store: Store, make_result: MakeResult, seed: int, boards: int, players: tuple[str, ...]) -> str:
    refs = tuple(PlayerRef(name=p) for p in players)
    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=seed, games=boards, players=refs)
    store.ensure_tournament(config, {})
    store.save(
        config.id,
        [make_result(p, b, Outcome.WON if b % 2 == 0 else Outcome.LOST) for p in players for b in range(boards)],
    )
    return config.id


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_publishing_another_tournament_over_published_files_needs_force(
    store: Store, make_result: MakeResult, tmp_path: Path
) -> None:
    first = record_tournament(store, make_result, seed=1, boards=10, players=("alpha", "beta"))
    second = record_tournament(store, make_result, seed=2, boards=10, players=("alpha", "beta"))
    out = tmp_path / "out"
    publish(build_leaderboard(store, first), out)
    before = snapshot(out)
    with pytest.raises(PublishError) as info:
        publish(build_leaderboard(store, second), out)
    message = str(info.value)
    assert "\n" not in message
    assert f"holds tournament {first} (seed 1, 10 boards, 2 players)" in message
    assert f"this is tournament {second} (seed 2" in message
    assert "--force" in message
    assert snapshot(out) == before
    publish(build_leaderboard(store, second), out, force=True)
    assert json.loads((out / "beginner-safe.json").read_text())["config"]["tournament_id"] == second


def test_republishing_the_same_tournament_with_more_games_replaces_it(
    store: Store, make_result: MakeResult, tmp_path: Path
) -> None:
    tid = record_tournament(store, make_result, seed=1, boards=10, players=("alpha", "beta"))
    publish(build_leaderboard(store, tid, boards=6), tmp_path)
    publish(build_leaderboard(store, tid), tmp_path)
    assert json.loads((tmp_path / "beginner-safe.json").read_text())["config"]["boards"] == 10
    publish(build_leaderboard(store, tid), tmp_path)  # the same again: nothing lost, no question asked


@pytest.mark.parametrize("kind", ["fewer-boards", "a-player-missing"])
def test_republishing_less_of_the_same_tournament_needs_force(
    store: Store, make_result: MakeResult, tmp_path: Path, kind: str
) -> None:
    """The id names the boards only: a quick run of the published seed shares it, and must not replace it."""
    tid = record_tournament(store, make_result, seed=1, boards=10, players=("alpha", "beta"))
    publish(build_leaderboard(store, tid), tmp_path)
    before = snapshot(tmp_path)
    if kind == "fewer-boards":
        smaller = build_leaderboard(store, tid, boards=3)
        needle = "fewer boards"
    else:
        smaller = build_leaderboard(store, tid)
        smaller.rows = [r for r in smaller.rows if r.player != "beta"]
        needle = "fewer games of beta"
    with pytest.raises(PublishError, match=needle) as info:
        publish(smaller, tmp_path)
    assert f"holds tournament {tid}" in str(info.value) and "--force" in str(info.value)
    assert snapshot(tmp_path) == before


def test_markdown_without_its_json_is_not_replaced_silently(
    store: Store, make_result: MakeResult, tmp_path: Path
) -> None:
    tid = record_tournament(store, make_result, seed=1, boards=4, players=("alpha",))
    (tmp_path / "beginner-safe.md").write_text("hand-written notes\n")
    with pytest.raises(PublishError, match="--force"):
        publish(build_leaderboard(store, tid), tmp_path)
    assert (tmp_path / "beginner-safe.md").read_text() == "hand-written notes\n"


def test_a_quick_run_does_not_clobber_the_committed_leaderboards(
    store: Store, make_result: MakeResult, tmp_path: Path
) -> None:
    """The README's `arena leaderboard --publish leaderboards` after a small run of the published seed."""
    published = json.loads((REPO / "leaderboards" / "beginner-safe.json").read_text())
    copy = tmp_path / "leaderboards"
    copy.mkdir()
    for name in ("beginner-safe.json", "beginner-safe.md"):
        (copy / name).write_bytes((REPO / "leaderboards" / name).read_bytes())
    before = snapshot(copy)
    tid = record_tournament(store, make_result, seed=published["config"]["seed"], boards=20, players=("alpha",))
    with pytest.raises(PublishError, match=published["config"]["tournament_id"]):
        publish(build_leaderboard(store, tid), copy)
    assert snapshot(copy) == before
