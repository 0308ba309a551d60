"""`arena export`: the rows a user loads into pandas give back the leaderboard."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import Result

from arena.results.export import EXPORT_COLUMNS

Cli = Callable[..., Result]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from typer.testing import CliRunner

    from arena.cli import app

    store = tmp_path_factory.mktemp("export") / "arena.db"
    args = ["tournament", "-d", "beginner", "-n", "40", "-w", "1", "--store", str(store)]
    args += ["-p", "random,max-single-constraint", "-o", "random.subsets=true", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return store


def leaderboard(cli: Cli, store: Path) -> dict[str, int]:
    result = cli("leaderboard", "--store", store, "--json")
    assert result.exit_code == 0, result.output
    return {row["player"]: row["wins"] for row in json.loads(result.stdout)["rows"]}


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_export_recomputes_the_leaderboards_wins(cli: Cli, played: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"games.{fmt}"
    result = cli("export", "--format", fmt, "--output", out, "--store", played)
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(out) if fmt == "csv" else pd.read_parquet(out)
    assert list(frame.columns) == list(EXPORT_COLUMNS)
    assert len(frame) == 80
    wins = frame.groupby("player")["won"].sum().astype(int).to_dict()
    assert wins == leaderboard(cli, played)
    assert set(frame["rule"]) == {"safe"}
    assert set(frame[["height", "width", "mines"]].itertuples(index=False, name=None)) == {(9, 9, 10)}
    won = frame[frame["won"]]
    assert (won["safe_opened"] == 1.0).all()
    assert (frame["safe_opened"].between(0.0, 1.0)).all()
    assert (frame["clicks"] == frame["reveals"] + frame["chords"]).all()
    assert sorted(frame["board"].unique().tolist()) == list(range(40))


def test_export_first_boards_only(cli: Cli, played: Path, tmp_path: Path) -> None:
    out = tmp_path / "games.csv"
    assert cli("export", "--output", out, "-n", "5", "--store", played).exit_code == 0
    assert len(pd.read_csv(out)) == 10


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--format", "xlsx", "--output", "x.xlsx"), "--format"),
        ((), "--output"),
        (("--output", "x.csv", "-n", "0"), "--games"),
        (("nosuchtournament", "--output", "x.csv"), "no tournament"),
        # A file that cannot be written is named as a shell names it, not "[Errno 2] ...: '...'".
        (("--output", "missing/x.csv"), "error: missing/x.csv: No such file or directory"),
    ],
)
def test_export_bad_input(
    cli: Cli, played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], needle: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("export", *args, "--store", played)
    assert result.exit_code == 2, result.output
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())  # nothing written


def test_parquet_is_written_by_row_groups_with_every_row(
    played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export streams: Parquet is written a row group at a time (here 7 rows), the same rows as CSV."""
    import pyarrow.parquet as pq

    from arena.results import export
    from arena.results.store import Store

    monkeypatch.setattr(export, "ROW_GROUP", 7)
    with Store(played, read_only=True) as store:
        tid = store.latest()
        assert export.write_export(store, tid, tmp_path / "g.parquet", "parquet") == 80
        assert export.write_export(store, tid, tmp_path / "g.csv", "csv") == 80
    assert pq.ParquetFile(tmp_path / "g.parquet").num_row_groups == 12  # 11 of 7 rows and one of 3
    streamed, flat = pd.read_parquet(tmp_path / "g.parquet"), pd.read_csv(tmp_path / "g.csv")
    assert len(streamed) == len(flat) == 80
    for column in ("board", "player", "outcome", "moves", "guesses", "bbbv_solved"):
        assert streamed[column].tolist() == flat[column].tolist(), column


def test_an_empty_export_is_a_valid_parquet_file(played: Path, tmp_path: Path) -> None:
    from arena.results.export import EXPORT_COLUMNS as COLUMNS
    from arena.results.export import export_rows, write_export
    from arena.results.store import Store

    with Store(played, read_only=True) as store:
        tid = store.latest()
        assert list(export_rows(store, tid, 0)) == []
        assert write_export(store, tid, tmp_path / "none.parquet", "parquet", 0) == 0
    frame = pd.read_parquet(tmp_path / "none.parquet")
    assert list(frame.columns) == list(COLUMNS) and len(frame) == 0
