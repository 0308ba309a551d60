"""The tables the CLI prints, rendered the way a person meets them: on a console 80 or 120 columns wide.

Player names with options (``random[subsets=true]``) are text, never rich markup; the leaderboard keeps every
player's win rate (and whole name) at 80 columns and shows every column when there is room.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import Result

from arena.analysis.leaderboard import Leaderboard, build_leaderboard
from arena.cli.leaderboard import tournaments_table
from arena.cli.players import players_table
from arena.cli.render import print_leaderboard
from arena.config import PlayerRef, TournamentConfig
from arena.outcome import GameResult, Outcome
from arena.results.store import Store
from engine import BEGINNER, FirstClick

Cli = Callable[..., Result]
BOARDS = 40
PLAYERS = (
    PlayerRef(name="random"),
    PlayerRef(name="random", options={"random_first_click": True}),
    PlayerRef(name="random", options={"subsets": True}),
    PlayerRef(name="max-single-constraint"),
    PlayerRef(name="random", options={"random_first_click": True, "subsets": True}),
)
KEYS = [p.key for p in PLAYERS]


@pytest.fixture
def store_path(tmp_path: Path, make_result: Callable[..., GameResult]) -> Path:
    """Five players with different win rates on the same 40 boards; the last has two failed games."""
    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=3, games=BOARDS, players=PLAYERS)
    results = []
    for i, key in enumerate(KEYS):
        for board in range(BOARDS):
            outcome = Outcome.WON if (board * 7 + i) % 10 < 8 - i else Outcome.LOST
            if i == 4 and board in (5, 9):
                outcome = Outcome.TIMEOUT if board == 5 else Outcome.ILLEGAL
            results.append(make_result(key, board, outcome, cpu_ms=0.25 + i))
    path = tmp_path / "arena.db"
    with Store(path) as store:
        store.ensure_tournament(config, {})
        store.save(config.id, results)
    return path


@pytest.fixture
def board(store_path: Path) -> Leaderboard:
    with Store(store_path) as store:
        return build_leaderboard(store)


def rendered(width: int, print_to: Callable[[Console], None]) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"), color_system=None)  # noqa: SIM115
    print_to(console)
    return console.export_text()


def row_lines(text: str, rank: int) -> list[str]:
    """The lines of the row ranked ``rank`` (its first line starts with the rank, stacked lines follow)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"^│ {rank} +│", line))
    block = [lines[start]]
    for line in lines[start + 1 :]:
        if not re.match(r"^│ +│", line):
            break
        block.append(line)
    return block


def cells(line: str) -> list[str]:
    return [c.strip() for c in re.split("[│┃]", line.strip().strip("│┃"))]


def test_names_with_options_are_printed_whole(board: Leaderboard) -> None:
    text = rendered(160, lambda c: print_leaderboard(c, board))
    for key in KEYS:
        assert re.search(rf"│ {re.escape(key)} +│", text), key
    assert text.count("│ random ") == 1  # only the plain random row is named just "random"


@pytest.mark.parametrize("width", [80, 120])
def test_every_win_rate_and_name_is_visible(board: Leaderboard, width: int) -> None:
    text = rendered(width, lambda c: print_leaderboard(c, board))
    # Only the command under the table may run longer (it stays one line, to copy and paste).
    assert max(len(line) for line in text.splitlines() if not line.startswith("See why:")) <= width
    assert "…" not in text  # nothing cut short
    for row in board.rows:
        block = row_lines(text, row.rank)
        first = cells(block[0])
        assert f"{100 * row.win_rate:.2f}" in first, (row.player, block)
        assert str(row.failed) == first[-1]
        # The name reads whole: on one line, or its options stacked under it on the row's own lines.
        name = "".join(cells(line)[1] for line in block).replace(",", ", ")
        assert name.replace(" ", "") == row.player.replace(" ", ""), block


@pytest.mark.parametrize("width", [20, 26, 34])
def test_on_a_very_narrow_terminal_every_name_and_win_rate_stays(board: Leaderboard, width: int) -> None:
    """Below any usual terminal (a split pane, a phone): columns go, the rank and the failures last, but a
    name is never squeezed to nothing (at 20 columns it was, with ``failed`` still shown)."""
    text = rendered(width, lambda c: print_leaderboard(c, board))
    lines = text.splitlines()
    header = cells(next(line for line in lines if line.startswith("┃")))
    assert "player" in header and "win %" in header, header
    body = lines[next(i for i, line in enumerate(lines) if line.startswith("┡")) + 1 :]
    body = body[: next(i for i, line in enumerate(body) if line.startswith("└"))]
    rows: list[tuple[str, str]] = []  # (name, win rate), a row's folded lines joined
    for line in body:
        row = dict(zip(header, cells(line), strict=True))
        if row["win %"]:
            rows.append((row["player"], row["win %"]))
        else:
            rows[-1] = (rows[-1][0] + row["player"], rows[-1][1])
    expected = [(r.player.replace(" ", ""), f"{100 * r.win_rate:.2f}") for r in board.rows]
    assert [(name.replace(" ", ""), rate) for name, rate in rows] == expected
    assert len(rows) == len(KEYS) == 5
    assert max(len(line) for line in lines if not line.startswith("See why:")) <= width


def test_at_120_columns_every_column_is_there(board: Leaderboard) -> None:
    text = rendered(120, lambda c: print_leaderboard(c, board))
    header = next(line for line in text.splitlines() if "player" in line)
    columns = ["#", "player", "games", "win %", "95% CI", "vs #1 [95% CI]", "p", "guess/g", "ms/g", "failed"]
    assert cells(header) == columns
    assert "Not shown" not in text
    for row in row_lines(text, 2), row_lines(text, 5):
        assert re.search(r"[-+]\d+\.\d \[[-+]\d+\.\d,[-+]\d+\.\d\]", row[0])  # the interval of vs #1


def test_at_80_columns_the_left_out_columns_are_named(board: Leaderboard) -> None:
    text = rendered(80, lambda c: print_leaderboard(c, board))
    note = " ".join(text.split("Not shown at 80 columns:")[1].split())
    assert "ms/g" in note and "guess/g" in note
    assert "--json" in note


def test_a_wide_terminal_gets_every_figure(board: Leaderboard) -> None:
    text = rendered(200, lambda c: print_leaderboard(c, board))
    header = next(line for line in text.splitlines() if "player" in line)
    assert "moves/win" in header and "3BV solved" in header and "vs #1 [95% CI]" in header
    first = row_lines(text, 1)
    assert len(first) == 1  # nothing stacked


def test_failed_games_are_summarised_under_the_table(board: Leaderboard, store_path: Path) -> None:
    text = rendered(80, lambda c: print_leaderboard(c, board, store=store_path))
    failing = KEYS[4]
    assert f"{failing} failed 2 of {BOARDS} games (1 illegal, 1 timeout)" in " ".join(text.split())
    hint = next(line for line in text.splitlines() if line.startswith("See why:"))
    assert hint == f"See why: arena errors {board.config.tournament_id} -p '{failing}' --store {store_path}"


def test_the_cli_leaderboard_shows_names_with_options(cli: Cli, store_path: Path) -> None:
    result = cli("leaderboard", "--store", store_path, columns=160)
    assert result.exit_code == 0, result.output
    for key in KEYS:
        assert key in result.stdout
    assert "arena errors" in result.stdout


def test_the_cli_leaderboard_at_80_columns_keeps_every_name_readable(cli: Cli, store_path: Path) -> None:
    result = cli("leaderboard", "--store", store_path, columns=80)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert max(len(line) for line in text.splitlines() if not line.startswith("See why:")) <= 80
    assert "…" not in text
    for rank, key in enumerate(KEYS, start=1):  # win rates fall with the index: rank i+1 is KEYS[i]
        name = "".join(cells(line)[1] for line in row_lines(text, rank)).replace(",", ", ")
        assert name.replace(" ", "") == key.replace(" ", ""), (key, row_lines(text, rank))
    assert "arena errors" in text


def test_players_table_at_80_columns_keeps_names_and_escapes_errors(write_plugin: Callable[..., Path]) -> None:
    rows = [
        {"name": "max-single-constraint", "description": "single-cell rules " * 5, "source": "builtin", "status": "ok"},
        {"name": "my-bot[v2]", "description": "a [bold]bot[/bold]", "source": "file /tmp/[x]/bot.py", "status": "ok"},
        {"name": None, "description": "", "source": "file /tmp/[a]/broken.py", "status": "error: bad [x] line"},
    ]
    text = rendered(80, lambda c: c.print(players_table(rows)))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "max-single-constraint" in text and "my-bot[v2]" in text
    assert "a [bold]bot[/bold]" in text
    assert "bad [x] line" in text
    assert "[a]" in text.replace("│", "").replace(" ", "")


def test_tournament_list_fits_80_columns(store_path: Path) -> None:
    with Store(store_path) as store:
        rows = store.tournaments()
    text = rendered(80, lambda c: c.print(tournaments_table(rows, Path("a[b]/arena.db"))))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "tournaments in a[b]/arena.db" in text
    line = next(line for line in text.splitlines() if rows[0].id in line)
    assert "beginner, safe" in line
    assert rows[0].updated[:16].replace("T", " ") in line
