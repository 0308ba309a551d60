"""``arena host``'s commands that do not serve (in process): ``--close`` publishes the seed it committed to,
``--new-organizer-token`` replaces the organizer's token, and a file without ``[host]`` is one line."""

from __future__ import annotations

import hashlib
from pathlib import Path

from host_support import write_cup
from typer.testing import CliRunner

from arena.cli import app
from arena.host import accounts
from arena.host.boards import closed_at, private_seed
from arena.host.db import HostPaths, connect


def test_close_publishes_the_seed_it_committed_to(tmp_path: Path) -> None:
    file = write_cup(tmp_path / "cup")
    db = connect(HostPaths.beside(file))
    seed = private_seed(db)
    assert closed_at(db, load_host(file)) is None
    done = CliRunner().invoke(app, ["host", str(file), "--close"])
    assert done.exit_code == 0, done.output
    assert str(seed) in done.stdout and hashlib.sha256(str(seed).encode()).hexdigest() in done.stdout
    assert closed_at(db, load_host(file)) is not None


def test_a_new_organizer_token(tmp_path: Path) -> None:
    file = write_cup(tmp_path / "cup")
    db = connect(HostPaths.beside(file))
    old = accounts.organizer_token(db)
    assert old is not None
    done = CliRunner().invoke(app, ["host", str(file), "--new-organizer-token"])
    assert done.exit_code == 0, done.output
    new = done.stdout.strip().split()[-1]
    assert accounts.authenticate(db, old) is None
    principal = accounts.authenticate(db, new)
    assert principal is not None and principal.organizer


def test_a_file_without_host_is_one_line(tmp_path: Path, one_error_line) -> None:  # type: ignore[no-untyped-def]
    plain = tmp_path / "plain.toml"
    plain.write_text('name = "x"\n[boards]\ndifficulty = "beginner"\n[[entrants]]\nname = "a"\nowner = "A"\n'
                     'command = "true"\n')  # fmt: skip
    line = one_error_line(CliRunner().invoke(app, ["host", str(plain)]))
    assert "no [host] table" in line


def load_host(file: Path):  # type: ignore[no-untyped-def]
    from arena.competition.spec import load_competition

    return load_competition(file).competition.host
