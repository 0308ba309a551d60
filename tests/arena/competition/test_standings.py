"""Several board sets for points (``[[sets]]``, ``arena.competition.standings``): the file's sets and their
clashes, and a course's tournament end to end: MyAI agents and an engine command on three sizes, ranked by
points, with the leaderboard's files and the grades a course takes."""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from repo import BOTS, EXAMPLES

from arena.competition import prepare
from arena.competition.spec import CompetitionError, load_competition

SETS = """\
name = "CS 171 tournament"
sandbox = "auto"

[[sets]]
name = "small"
width = 8
height = 8
mines = 10
first_click = "zero"
seed = 1
count = 12
points = 1

[[sets]]
name = "medium"
difficulty = "intermediate"
first_click = "zero"
count = 6
points = 2

[[sets]]
name = "large"
width = 30
height = 16
mines = 99
first_click = "zero"
count = 4
points = 3
"""
ENTRANTS = """
[[entrants]]
name = "ann"
owner = "Ann <b>Lee</b>"
myai = "ann"

[[entrants]]
name = "ben"
owner = "=Ben"
myai = "ben"

[[entrants]]
name = "ref"
owner = "course staff"
command = "python3 ref/standalone_bot.py"

[[entrants]]
name = "cal"
owner = "Cal"
myai = "cal"
"""


def _course(folder: Path, sets: str = SETS, entrants: str = ENTRANTS) -> Path:
    shutil.copytree(BOTS / "myai" / "queue", folder / "ann")
    shutil.copytree(BOTS / "myai" / "standalone", folder / "ben")
    shutil.copytree(BOTS / "myai" / "import_fails", folder / "cal")
    (folder / "ref").mkdir()
    shutil.copy(EXAMPLES / "standalone_bot.py", folder / "ref" / "standalone_bot.py")
    path = folder / "course.toml"
    path.write_text(sets + entrants)
    return path


def _line(path: Path, text: str, occurrence: int = 1) -> int:
    return [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line][occurrence - 1]


def test_the_sets_load_and_one_board_set_is_a_set_of_its_own(tmp_path: Path) -> None:
    loaded = load_competition(_course(tmp_path))
    sets = loaded.competition.board_sets
    assert [(s.name, s.spec.size, s.first_click.value, s.count, s.points) for s in sets] == [
        ("small", "8x8", "zero", 12, 1.0),
        ("medium", "16x16", "zero", 6, 2.0),
        ("large", "16x30", "zero", 4, 3.0),
    ]
    assert [e.form for e in loaded.competition.entrants] == ["myai", "myai", "command", "myai"]
    single = load_competition(EXAMPLES / "competition" / "competition.toml").competition.board_sets
    assert [(s.name, s.count, s.points) for s in single] == [("beginner", 20, 1.0)]


@pytest.mark.parametrize(
    ("change", "marker", "key", "message"),
    [
        (('name = "medium"', 'name = "small"'), 'name = "small"#2', "sets[2].name",
         "'small' is the name of the set on line 5 already; give each set its own name"),
        (("points = 2", "points = 0"), "points = 0", "sets[2].points", "must be a positive number"),
        (("points = 3", 'points = "three"'), "points = \"three\"", "sets[3].points", "must be a positive number"),
        (("points = 2", "points = -1.5"), "points = -1.5", "sets[2].points", "got -1.5"),
        (('difficulty = "intermediate"', "width = 8\nheight = 8\nmines = 10\nseed = 1"), "[[sets]]#2", "sets[2]",
         "the same boards as the set on line 4 (size, mines, first-click rule and seed): give it another seed"),
        (("[[sets]]\nname = \"small\"", "[boards]\ndifficulty = \"beginner\"\n[[sets]]\nname = \"small\""), "",
         "", "give [boards] (one board set) or [[sets]] (several, for points), exactly one of them"),
    ],
    ids=["two-names", "zero-points", "text-points", "negative-points", "same-boards", "boards-and-sets"],
)  # fmt: skip
def test_sets_that_clash_name_the_file_line_and_key(
    tmp_path: Path, change: tuple[str, str], marker: str, key: str, message: str
) -> None:
    path = _course(tmp_path, SETS.replace(*change, 1))
    with pytest.raises(CompetitionError) as caught:
        load_competition(path)
    if marker:
        text, _, occurrence = marker.partition("#")
        assert str(caught.value).startswith(f"{path}:{_line(path, text, int(occurrence or 1))}: {key}: "), caught.value
    assert message in str(caught.value)


def test_a_myai_entrant_without_its_agent_is_bad_input(tmp_path: Path, cli, one_error_line) -> None:
    path = _course(tmp_path)
    (tmp_path / "ann" / "MyAI.py").unlink()
    line = one_error_line(cli("compete", path))
    where = _line(path, 'myai = "ann"')
    assert line == (
        f"error: {path}:{where}: entrants[1].myai: {tmp_path / 'ann' / 'MyAI.py'}: no MyAI.py, "
        "MyAI.java or MyAI.cpp there (a course-shell agent's folder holds one; an engine bot's command is a program)"
    )
    assert not list(tmp_path.glob("*.db*"))


@pytest.mark.slow  # check-bot's checks of four entrants, 66 games: 45 s in the fast tier
def test_a_course_tournament_ranks_by_points_and_writes_the_grades_and_fits_80_columns(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _course(tmp_path)
    grades = tmp_path / "grades.csv"
    # The first run checks each entrant with check-bot's real checks; the second gives each the same verdicts
    # (the same bots, the same checks: about 20 s of timed checks on a quiet machine, for nothing new).
    real, verdicts = prepare.check_bot, {}

    def recording(target: Any, limits: Any) -> Iterator[Any]:
        verdicts[target.name] = []
        for result in real(target, limits):
            verdicts[target.name].append(result)
            yield result

    monkeypatch.setattr(prepare, "check_bot", recording)
    result = cli("compete", path, "--workers", "1", "--grades", grades, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # The queue agent's LEAVE is a resignation; an agent that cannot be imported is left out, in one line.
    assert [e["status"] for e in data["entrants"]] == ["played"] * 3 + ["left out"]
    assert data["entrants"][3]["reason"] == (
        "check: MyAI.py: the import failed: ModuleNotFoundError: No module named 'helpers' (MyAI.py, line 5)"
    )
    assert data["leaderboard"] is None and [s["name"] for s in data["sets"]] == ["small", "medium", "large"]
    assert data["run"]["played"] == 3 * (12 + 6 + 4)
    table = data["points"]
    assert [r["rank"] for r in table] == [1, 2, 3]
    assert [r["points"] for r in table] == sorted((r["points"] for r in table), reverse=True)
    checked = 0
    for row in table:
        expected = sum(cell["wins"] * {"small": 1, "medium": 2, "large": 3}[name] for name, cell in row["sets"].items())
        assert row["points"] == expected
        assert row["points_low"] <= row["points"] <= row["points_high"]
        assert {name: cell["games"] for name, cell in row["sets"].items()} == {"small": 12, "medium": 6, "large": 4}
        assert (row["diff"] is None) == (row["rank"] == 1)
        if row["rank"] > 1:
            assert row["diff"] == row["points"] - table[0]["points"]
            assert row["diff_low"] <= row["diff"] <= row["diff_high"] and 0 < row["p_value"] <= 1
        checked += 1
    assert checked == 3
    ann = next(r for r in table if r["entrant"] == "ann")
    assert ann["points"] == 0  # it never guesses: it leaves every board its queue cannot clear
    with grades.open(newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0] == ["entrant", "owner", "small wins", "small games", "medium wins", "medium games", "large wins",
                       "large games", "points", "rank"]  # fmt: skip
    by_name = {row[0]: row for row in rows[1:]}
    assert len(rows) == 5 and by_name["cal"] == ["cal", "Cal", "0", "0", "0", "0", "0", "0", "0", ""]
    assert by_name["ben"][1] == "'=Ben"  # a spreadsheet shows it as text, never as a formula
    for row in table:
        line = by_name[row["entrant"]]
        assert line[2:8] == [str(row["sets"][s][k]) for s in ("small", "medium", "large") for k in ("wins", "games")]
        assert (float(line[8]), int(line[9])) == (row["points"], row["rank"])
    # The same grades from the published leaderboard.json, without playing: byte for byte, to a file or stdout.
    published = tmp_path / "course-results" / "leaderboard.json"
    again = cli("grades", published, "--out", tmp_path / "again.csv")
    assert again.exit_code == 0, again.output
    assert (tmp_path / "again.csv").read_bytes() == grades.read_bytes()
    printed = cli("grades", published)
    assert printed.exit_code == 0 and printed.stdout.replace("\r\n", "\n") == grades.read_text()
    markdown = (tmp_path / "course-results" / "leaderboard.md").read_text()
    assert "## Points" in markdown and "| 1 | " in markdown
    assert all(f"## {name}" in markdown for name in ("small", "medium", "large"))
    assert json.loads((tmp_path / "course-results" / "leaderboard.json").read_text())["points"] == table
    assert "Ann &lt;b&gt;Lee&lt;/b&gt;" in markdown and "<b>" not in markdown
    if data["run"]["site"] is not None:  # the web extra: the points table is a page of the site too
        page = (tmp_path / "course-results" / "site" / "points.html").read_text()
        assert "Ann &lt;b&gt;Lee&lt;/b&gt;" in page and "<b>Lee" not in page
        assert sum(f">{name}<" in page for name in ("ann", "ben", "ref")) == 3
        for item in data["sets"]:  # each set's name links to its tournament's leaderboard
            assert f'href="t/{item["tournament_id"]}/index.html">{item["name"]}</a>' in page

    # The same competition again, at 80 columns: nothing left to play, the points table fits.
    assert sorted(verdicts) == ["ann", "ben", "cal", "ref"], verdicts
    monkeypatch.setattr(prepare, "check_bot", lambda target, limits: iter(verdicts[target.name]))
    result = cli("compete", path, "--workers", "1", columns=80)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("points ("))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("└"))
    table_lines = lines[start : end + 1]
    assert any("ann" in line for line in table_lines) and any("leader" in line for line in table_lines)
    assert len(table_lines) >= 10 and max(len(line) for line in table_lines) <= 80, "\n".join(table_lines)
    assert "played 0 games (66 already in the store)" in result.stdout


def _results(**changes: object) -> dict[str, object]:
    """A competition's published results, as ``arena compete`` writes them, of one set and two entrants."""
    data: dict[str, object] = {
        "competition": {"name": "c", "sets": [{"name": "small", "points": 1.0}]},
        "entrants": [{"name": "ann", "owner": "Ann"}, {"name": "cal", "owner": "Cal"}],
        "points": [
            {
                "rank": 1, "entrant": "ann", "owner": "Ann", "points": 3.0, "points_low": 1.0, "points_high": 4.0,
                "sets": {"small": {"wins": 3, "games": 4, "win_rate": 0.75, "ci_low": 0.3, "ci_high": 0.95,
                                   "points": 3.0}},
            }
        ],
    }  # fmt: skip
    data.update(changes)
    return data


def test_grades_from_a_results_file_left_out_entrants_included(tmp_path: Path, cli) -> None:
    path = tmp_path / "leaderboard.json"
    path.write_text(json.dumps(_results()))
    result = cli("grades", path)
    assert result.exit_code == 0, result.output
    assert list(csv.reader(result.stdout.splitlines())) == [
        ["entrant", "owner", "small wins", "small games", "points", "rank"],
        ["ann", "Ann", "3", "4", "3", "1"],
        ["cal", "Cal", "0", "0", "0", ""],
    ]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "leaderboard.json: no such file"),
        ("{not json", "leaderboard.json:1: not JSON: Expecting property name enclosed in double quotes"),
        ("[1, 2]", "not a competition's results: the file holds no JSON object"),
        (
            json.dumps({"rows": [], "config": {}}),
            "not a competition's results (arena compete's leaderboard.json): no 'competition', 'entrants', 'points' "
            "(a tournament's leaderboard has no points table)",
        ),
        (
            json.dumps(_results(points=[{"rank": 1}])),
            "(arena compete's leaderboard.json): points[0].entrant: Field required",
        ),
        (
            json.dumps(_results(competition={"sets": [{"name": "large"}]})),
            "the points table of 'ann' names set 'small', which the competition has not",
        ),
    ],
)
def test_grades_from_anything_else_is_one_line_exit_2(
    tmp_path: Path, cli, one_error_line, content: str | None, words: str
) -> None:
    path = tmp_path / "leaderboard.json"
    if content is not None:
        path.write_text(content)
    line = one_error_line(cli("grades", path))
    assert line.startswith(f"error: {path}") and words in line, line
