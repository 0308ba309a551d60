"""A build's log holds no path of this machine (arena/isolation/builds/hidepaths.py): the bot's folder is relative,
the home, temporary and Python folders and the host's own folder are tokens, whatever pieces the output comes in."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.isolation.builds.build import build_bot
from arena.isolation.builds.hidepaths import PathMask, StreamMask
from arena.limits import SandboxMode

FOLDER = "/srv/cups/spring-host/work/17/bot"
HOST = "/srv/cups/spring-host"


def test_each_kind_of_path_becomes_relative_or_a_token() -> None:
    mask = PathMask(FOLDER, extra=[(HOST, "<host>")])
    home = os.path.expanduser("~")
    cases = {
        f"{FOLDER}/src/strategy.cpp:15:3: error: x": "src/strategy.cpp:15:3: error: x",
        f"cd {FOLDER} && make": "cd . && make",
        f"'{FOLDER}/../escaped.txt': denied": "'../escaped.txt': denied",
        f"{HOST}/work/17/bot.built": "<host>/work/17/bot.built",
        f"{home}/.rustup/toolchains/x/lib.rs:3": "~/.rustup/toolchains/x/lib.rs:3",
        f"{tempfile.gettempdir()}/cc1.s": "$TMPDIR/cc1.s",
        # Not a path of this machine, or not where a path starts or ends: left alone.
        "/usr/include/c++/12/vector:3: note": "/usr/include/c++/12/vector:3: note",
        f"{home}fs/x and x{home}/y": f"{home}fs/x and x{home}/y",
    }
    for given_line, expected in cases.items():
        assert mask.text(given_line) == expected, given_line
    assert len(cases) == 8


PARTS = [f"{FOLDER}/a.c:1: e ", f" {HOST}/x ", "\n", "plain text ", "é", "/usr/lib/ "]


@given(
    st.lists(st.sampled_from(PARTS), max_size=30),
    st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_output_in_any_pieces_is_masked_as_if_whole(parts: list[str], cuts: list[int]) -> None:
    data = "".join(parts).encode()
    mask = PathMask(FOLDER, extra=[(HOST, "<host>")])
    stream = StreamMask(mask)
    points = sorted({min(c, len(data)) for c in cuts})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    out = b"".join(stream.feed(piece) for piece in pieces) + stream.flush()
    assert out == mask.bytes(data)
    assert FOLDER.encode() not in out and HOST.encode() not in out


def test_a_build_log_names_no_folder_of_this_machine(tmp_path: Path) -> None:
    """A build that prints every place it could learn: its folder, the host's, home, temp, the Python it was given."""
    host = tmp_path / "cup-host"
    folder = host / "work" / "3" / "bot"
    folder.mkdir(parents=True)
    home = os.path.expanduser("~")
    places = [str(folder), str(host), home, tempfile.gettempdir(), sys.prefix, str(tmp_path)]
    lines = "".join(f"echo '{p}/x.c:1: error: here'\n" for p in places)
    (folder / "build.sh").write_text(f'#!/bin/sh\npwd\n{lines}echo "$PWD/src/main.c" >&2\nexit 3\n')
    log_path = tmp_path / "logs" / "3.build.log"
    result = build_bot(folder, sandbox=SandboxMode.AUTO, log_path=log_path, hide=[(host, "<host>")])
    assert not result.ok and result.reason == "exit 3"
    stored = log_path.read_text()
    assert stored == result.log
    checked = [p for p in {*places, os.path.realpath(folder)} if p not in ("/", "/usr")]
    for place in checked:
        assert place not in stored, place
    assert len(checked) >= 5
    assert "\nx.c:1: error: here" in stored and "\n.\n" in stored and "src/main.c" in stored
    assert "<host>/x.c" in stored and "$TMPDIR/x.c" in stored
    assert result.first_error is not None and result.first_error.file == "x.c"


@pytest.mark.parametrize("token", ["~", "<python>"])
def test_tokens_stand_for_the_home_and_the_environment(token: str) -> None:
    mask = PathMask(FOLDER)
    if token == "<python>" and sys.prefix == sys.base_prefix:
        pytest.skip("not in a virtual environment: the system's Python is everyone's")
    assert token in mask.places.values()
