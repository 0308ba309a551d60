"""The ``[host]`` table of a competition file (arena/competition/hosting.py): its keys and their checks, and a
hosted file's entrants coming from `arena entrant add` rather than ``[[entrants]]``."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from arena.competition.spec import CompetitionError, load_competition

HEAD = 'name = "Cup"\n[boards]\ndifficulty = "beginner"\n'
ENTRANT = '[[entrants]]\nname = "a"\nowner = "A"\ncommand = "true"\n'


def load(tmp_path: Path, text: str) -> object:
    file = tmp_path / "cup.toml"
    file.write_text(text, encoding="utf-8")
    return load_competition(file)


def test_a_hosted_file_with_its_defaults(tmp_path: Path) -> None:
    loaded = load(tmp_path, HEAD + "[host]\n")
    host = loaded.competition.host  # type: ignore[attr-defined]
    assert host is not None and loaded.competition.entrants == []  # type: ignore[attr-defined]
    assert (host.per_day, host.max_files, host.deadline, host.invitation) == (20, 2000, None, None)
    assert host.max_archive_bytes == 20 * 1024 * 1024 and host.max_unpacked_bytes == 200 * 1024 * 1024


def test_a_deadline_without_an_offset_is_utc(tmp_path: Path) -> None:
    loaded = load(tmp_path, HEAD + "[host]\ndeadline = 2027-03-31T23:59:00\nprivate_count = 500\n")
    host = loaded.competition.host  # type: ignore[attr-defined]
    assert host.deadline == dt.datetime(2027, 3, 31, 23, 59, tzinfo=dt.UTC) and host.private_count == 500


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (HEAD + "[host]\nper_dya = 3\n", "host.per_dya: unknown key"),
        (HEAD + "[host]\nper_day = 0\n", "host.per_day"),
        (HEAD + '[host]\ninvitation = "short"\n', "host.invitation"),
        (HEAD + "[host]\n" + ENTRANT, "not from [[entrants]]"),
        (HEAD, "at least one [[entrants]] (or a [host] table"),
    ],
)
def test_bad_host_tables_are_one_line(tmp_path: Path, text: str, words: str) -> None:
    with pytest.raises(CompetitionError) as caught:
        load(tmp_path, text)
    assert words in str(caught.value) and "\n" not in str(caught.value)
