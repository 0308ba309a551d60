"""``--plugin ALIAS=PATH``: a plugin's player under another name, so that two versions of one bot play side by side;
an alias the arena would refuse is an error, never a warning."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from players import api
from players.registry import AliasError, Registry, plugin_spec, resolved_plugin

BOT = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer


class MyBot(RandomPlayer):
    name = "my-bot"
    version = "{version}"


@hookimpl
def register_players(register):
    register(MyBot)
"""

TWO = BOT.format(version="1").replace(
    "    register(MyBot)", "    register(MyBot)\n    register(type('Other', (MyBot,), {'name': 'other'}))"
)


def write(tmp_path: Path, folder: str, text: str) -> Path:
    path = tmp_path / folder / "my_bot.py"
    path.parent.mkdir()
    path.write_text(text)
    return path


def test_two_versions_under_two_aliases(tmp_path: Path) -> None:
    one, two = write(tmp_path, "v1", BOT.format(version="1")), write(tmp_path, "v2", BOT.format(version="2"))
    registry = Registry([f"base={one}", f"cand={two}", str(one)], entry_points=False)
    players = registry.players
    assert {name: players[name].version for name in ("base", "cand", "my-bot")} == {
        "base": "1",
        "cand": "2",
        "my-bot": "1",
    }
    # The source is the --plugin value that plays the player again: its alias with its file.
    assert players["base"].source == f"file base={one}" and players["cand"].source == f"file cand={two}"
    assert players["my-bot"].source == f"file {one}"
    assert players["base"].create().name == "base" and players["my-bot"].create().name == "my-bot"
    assert registry.failures == []
    # One file under two aliases: both.
    both = Registry([f"a={one}", f"b={one}"], entry_points=False).players
    assert {"a", "b"} <= set(both)


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("Base={path}", "the alias 'Base' must be"),
        ("random={path}", "already registered by builtin"),
        ("two={two}", "an alias names one player, and this plugin registers more than one"),
        ("base=", "needs a path"),
        ("base={tmp}/missing.py", "does not exist"),
    ],
)
def test_an_alias_the_arena_refuses_is_an_error(tmp_path: Path, spec: str, needle: str) -> None:
    path, two = write(tmp_path, "v1", BOT.format(version="1")), write(tmp_path, "two", TWO)
    registry = Registry([spec.format(path=path, two=two, tmp=tmp_path)], entry_points=False)
    with pytest.raises(Exception, match=needle) as error:
        registry.check_requested(["mean-constraint"])  # refused even when the alias is not asked for
    assert isinstance(error.value, AliasError) or "does not exist" in needle


def test_plugin_specs(tmp_path: Path) -> None:
    odd = tmp_path / "a=b.py"
    odd.write_text("")
    assert plugin_spec(str(odd)) == ("", str(odd))  # an existing path with '=' is a path
    assert plugin_spec("x.py") == ("", "x.py")
    assert plugin_spec("cand=v2/x.py") == ("cand", "v2/x.py")
    assert resolved_plugin("cand=x.py") == f"cand={Path('x.py').resolve()}"


HELPED = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer

import helpers
import {extra}


class MyBot(RandomPlayer):
    name = "my-bot"
    description = "helped by " + helpers.LABEL


@hookimpl
def register_players(register):
    register(MyBot)
"""


def test_two_versions_of_a_bot_of_several_files_each_import_their_own_helpers(tmp_path: Path) -> None:
    """``import helpers`` beside each version gets that version's ``helpers.py``, in one process; what only one
    version's folder holds (``only_v1``), and every module of the arena's, stays imported."""
    for version, extra in (("v1", "only_v1"), ("v2", "json")):
        folder = tmp_path / version
        folder.mkdir()
        (folder / "my_bot.py").write_text(HELPED.format(extra=extra))
        (folder / "helpers.py").write_text(f"LABEL = {version!r}\n")
        if version == "v1":
            (folder / "only_v1.py").write_text("")
    specs = [f"base={tmp_path / 'v1' / 'my_bot.py'}", f"cand={tmp_path / 'v2' / 'my_bot.py'}"]
    try:
        found = Registry(specs, entry_points=False).players
        assert (found["base"].description, found["cand"].description) == ("helped by v1", "helped by v2")
        assert sys.modules["only_v1"].__file__ == str(tmp_path / "v1" / "only_v1.py")
        assert sys.modules["players.api"] is api and "json" in sys.modules
    finally:
        for name in ("helpers", "only_v1"):
            sys.modules.pop(name, None)
