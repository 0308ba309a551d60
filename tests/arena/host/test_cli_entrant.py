"""``arena entrant`` and the bad input of ``arena host`` and ``arena submit``: one ``error:`` line, exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from host_support import arena_bin, write_cup
from typer.testing import CliRunner

from arena.cli import app

#: `arena` run as processes, a dozen of them.
pytestmark = pytest.mark.slow


def arena(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [arena_bin(), *map(str, args)], capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})}
    )


def bad_input(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def test_add_list_revoke(tmp_path: Path) -> None:
    file = write_cup(tmp_path / "cup")
    added = arena("entrant", "add", file, "alice", "--owner", "Alice A.")
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip().splitlines()[-1]
    assert len(token) > 50 and "." in token
    listed = json.loads(arena("entrant", "list", file, "--json").stdout)
    assert [(e["name"], e["owner"], e["revoked"]) for e in listed] == [("alice", "Alice A.", False)]
    assert token not in arena("entrant", "list", file).stdout
    assert "exists already" in bad_input(arena("entrant", "add", file, "alice", "--owner", "X"))
    revoked = arena("entrant", "revoke", file, "alice")
    assert revoked.returncode == 0 and "revoked" in revoked.stdout
    assert json.loads(arena("entrant", "list", file, "--json").stdout)[0]["revoked"] is True


def test_bad_input_is_one_line(tmp_path: Path, one_error_line: Any) -> None:
    """Each bad input is one ``error:`` line and exit code 2. The cases run in-process (typer's CliRunner: the
    same commands and checks, without starting Python and importing the arena eleven times); one of them also
    runs as the real ``arena`` process, which proves the exit code and the absence of a traceback end to end."""
    file = write_cup(tmp_path / "cup")
    plain = tmp_path / "plain.toml"
    plain.write_text('name = "x"\n[boards]\ndifficulty = "beginner"\n[[entrants]]\nname = "a"\nowner = "A"\n'
                     'command = "true"\n')  # fmt: skip
    both = tmp_path / "both.toml"
    both.write_text(file.read_text() + '\n[[entrants]]\nname = "a"\nowner = "A"\ncommand = "true"\n')
    typo = tmp_path / "typo.toml"
    typo.write_text(file.read_text().replace("per_day", "per_dya"))

    def cli(*args: str | Path, env: dict[str, str] | None = None) -> str:
        return one_error_line(CliRunner().invoke(app, [str(arg) for arg in args], env=env))

    lines = {
        "no owner": cli("entrant", "add", file, "bob"),
        "bad name": cli("entrant", "add", file, "Bob!", "--owner", "B"),
        "no name": cli("entrant", "revoke", file),
        "unknown": cli("entrant", "revoke", file, "nobody"),
        "not hosted": cli("host", plain),
        "both": cli("entrant", "list", both),
        "typo": cli("host", typo),
        "compete": cli("compete", file),
        "no token": cli("submit", "http://127.0.0.1:9/", tmp_path, env={"ARENA_TOKEN": ""}),
        "bad url": cli("submit", "ftp://x", tmp_path, env={"ARENA_TOKEN": "t"}),
        "no folder": cli("submit", "http://127.0.0.1:9/", tmp_path / "nope", env={"ARENA_TOKEN": "t"}),
    }
    assert "--owner" in lines["no owner"] and "not an entrant name" in lines["bad name"]
    assert "no [host] table" in lines["not hosted"] and "arena compete" in lines["not hosted"]
    assert "[[entrants]]" in lines["both"] and "unknown key" in lines["typo"] and "per_dya" in lines["typo"]
    assert "arena host" in lines["compete"] and "ARENA_TOKEN" in lines["no token"]
    assert len(lines) == 11
    # The real process: the same line on stderr, exit code 2, no traceback.
    assert bad_input(arena("entrant", "list", both)) == lines["both"]
