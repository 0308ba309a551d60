"""The plugin host: built-ins through the hook, loud duplicates, isolated failures, lazy loading.

Plugins here are small files written into ``tmp_path`` and loaded as ``--plugin`` files would be,
or fake entry points. Registries are built with ``entry_points=False`` unless a test is about entry
points, so that whatever else is installed in the environment cannot change the results.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import players.builtin
from arena.cli import app
from players import Player, hookimpl
from players.api import NAME_PATTERN, PlayerError, PlayerOptionsError
from players.builtin import MaxSingleConstraintPlayer, MeanConstraintPlayer, RandomPlayer
from players.hookspecs import PROJECT
from players.registry import (
    DuplicatePlayerError,
    PluginFailure,
    PluginLoadError,
    PluginNotFoundError,
    Registry,
    UnknownPlayerError,
)

OneErrorLine = Callable[..., str]

#: Whatever the built-in hook registers today; the baselines below are always among them.
BUILTINS = {cls.name for cls in players.builtin.BUILTIN_PLAYERS}
BASELINES = {"random", "max-single-constraint", "mean-constraint"}

HEADER = """\
from engine import Action
from players import Player, hookimpl
"""


def good_plugin(name: str = "good-bot") -> str:
    return HEADER + textwrap.dedent(
        f"""
        class GoodBot(Player):
            name = {name!r}
            description = "a plugin that works"

            def play(self, observation):
                return Action.reveal(0, 0)


        @hookimpl
        def register_players(register):
            register(GoodBot)
        """
    )


def write(directory: Path, filename: str, source: str) -> Path:
    path = directory / filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return path


def failures_by_source(registry: Registry) -> dict[str, str]:
    return {f.source: f.error for f in registry.failures}


# -- built-ins -----------------------------------------------------------------------------


def test_builtins_register_through_the_hook() -> None:
    registry = Registry(entry_points=False)
    assert set(registry.players) == BUILTINS
    assert set(registry.players) >= BASELINES
    assert registry.failures == []
    for entry in registry.players.values():
        assert entry.source == "builtin"
        assert entry.description
        assert NAME_PATTERN.match(entry.name)
    assert registry.get("random").cls is RandomPlayer
    # The same pluggy marker a third-party plugin uses, on the same hook.
    assert hasattr(players.builtin.register_players, f"{PROJECT}_impl")


def test_builtins_come_from_the_hook_not_from_a_side_list(monkeypatch: pytest.MonkeyPatch) -> None:
    # The hook reads BUILTIN_PLAYERS when it is called: shrink it and the registry follows.
    monkeypatch.setattr(players.builtin, "BUILTIN_PLAYERS", (MeanConstraintPlayer,))
    assert set(Registry(entry_points=False).players) == {"mean-constraint"}


def test_builtin_players_create_with_default_options() -> None:
    registry = Registry(entry_points=False)
    for name in BUILTINS:
        player = registry.create(name)
        assert isinstance(player, Player)
        assert player.name == name
    assert isinstance(registry.create("max-single-constraint"), MaxSingleConstraintPlayer)


# -- duplicates ----------------------------------------------------------------------------


def test_duplicate_name_across_plugins_is_refused_and_the_first_stays(tmp_path: Path) -> None:
    first = write(tmp_path, "first.py", good_plugin("dup-bot"))
    second = write(tmp_path, "second.py", good_plugin("dup-bot"))
    registry = Registry([first, second], entry_points=False)
    assert registry.players["dup-bot"].source == f"file {first}"
    failures = registry.failures
    assert len(failures) == 1
    assert failures[0].source == f"file {second}"
    assert failures[0].error.startswith("DuplicatePlayerError: ")
    assert "'dup-bot'" in failures[0].error
    assert f"file {first}" in failures[0].error  # says who has the name already
    assert set(registry.players) == BUILTINS | {"dup-bot"}


def test_duplicate_of_a_builtin_name_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "impostor.py", good_plugin("random"))
    registry = Registry([path], entry_points=False)
    assert registry.players["random"].cls is RandomPlayer
    assert registry.players["random"].source == "builtin"
    error = failures_by_source(registry)[f"file {path}"]
    assert error.startswith("DuplicatePlayerError: ") and "builtin" in error


def test_duplicate_within_one_plugin_rejects_the_whole_plugin(tmp_path: Path) -> None:
    source = HEADER + textwrap.dedent(
        """
        class One(Player):
            name = "twin"
            def play(self, observation):
                return Action.reveal(0, 0)

        class Two(One):
            pass

        class Other(One):
            name = "not-a-twin"

        @hookimpl
        def register_players(register):
            register(Other)
            register(One)
            register(Two)
        """
    )
    path = write(tmp_path, "twins.py", source)
    registry = Registry([path], entry_points=False)
    assert failures_by_source(registry)[f"file {path}"].startswith("DuplicatePlayerError: ")
    # A plugin registers all of its players or none: no half-loaded plugin on a leaderboard.
    assert set(registry.players) == BUILTINS


def test_duplicate_error_type() -> None:
    assert issubclass(DuplicatePlayerError, PlayerError)


# -- broken plugins are reported and skipped -----------------------------------------------

BROKEN = {
    "syntax-error": ("def register_players(:\n", "SyntaxError"),
    "import-error": ("import no_such_module_for_arena_tests\n", "ModuleNotFoundError"),
    "raise-import-error": ("raise ImportError('needs a GPU library')\n", "ImportError: needs a GPU library"),
    "sys-exit": ("import sys\nsys.exit(3)\n", "SystemExit"),
    "hook-raises": (
        HEADER + "\n@hookimpl\ndef register_players(register):\n    raise RuntimeError('cannot register')\n",
        "RuntimeError: cannot register",
    ),
    "not-a-player": (
        HEADER + "\nclass NotAPlayer:\n    name = 'nope'\n\n"
        "@hookimpl\ndef register_players(register):\n    register(NotAPlayer)\n",
        "PlayerError: register() takes a Player subclass",
    ),
    "an-instance": (
        good_plugin("instance-bot").replace("register(GoodBot)", "register(GoodBot())"),
        "PlayerError: register() takes a Player subclass",
    ),
    "bad-name": (good_plugin("Bad Name"), "PlayerError: GoodBot.name must be"),
    "no-name": (
        HEADER + "\nclass Nameless(Player):\n    def play(self, observation):\n        return Action.reveal(0, 0)\n\n"
        "@hookimpl\ndef register_players(register):\n    register(Nameless)\n",
        "PlayerError: Nameless.name must be",
    ),
    "abstract": (
        HEADER + "\nclass Abstract(Player):\n    name = 'abstract-bot'\n\n"
        "@hookimpl\ndef register_players(register):\n    register(Abstract)\n",
        "PlayerError: Abstract does not implement play(observation)",
    ),
    "options-not-a-model": (
        good_plugin("optionless").replace('description = "a plugin that works"', "Options = dict"),
        "PlayerError: GoodBot.Options must be a pydantic model",
    ),
    "no-hook": (
        HEADER + "\nclass Forgot(Player):\n    name = 'forgot'\n",
        "PlayerError: it defines no register_players",
    ),
    "undecorated-hook": (
        good_plugin("undecorated").replace("@hookimpl\n", ""),
        "PlayerError: it defines no register_players",
    ),
    "wrong-hook-argument": (
        good_plugin("wrong-arg").replace("register_players(register)", "register_players(callback)"),
        "PluginValidationError",
    ),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_broken_plugin_is_reported_and_skipped(tmp_path: Path, kind: str) -> None:
    source, expected = BROKEN[kind]
    before = write(tmp_path, "before.py", good_plugin("before-bot"))
    broken = write(tmp_path, f"broken_{kind.replace('-', '_')}.py", source)
    after = write(tmp_path, "after.py", good_plugin("after-bot"))
    registry = Registry([before, broken, after], entry_points=False)
    assert set(registry.players) == BUILTINS | {"before-bot", "after-bot"}
    failures = registry.failures
    assert [f.source for f in failures] == [f"file {broken}"]
    assert failures[0].error.startswith(expected), failures[0].error
    assert "\n" not in failures[0].error  # one line for the table; the traceback is in .detail
    assert failures[0].detail


def test_missing_plugin_file_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.py"
    registry = Registry([missing], entry_points=False)
    assert set(registry.players) == BUILTINS
    assert failures_by_source(registry)[f"file {missing}"].startswith("PluginNotFoundError: plugin file")
    assert registry.failures[0].kind == "missing"


def test_failed_file_import_leaves_no_half_module_behind(tmp_path: Path) -> None:
    path = write(tmp_path, "half.py", good_plugin("half-bot") + "\nraise RuntimeError('late failure')\n")
    before = set(sys.modules)
    registry = Registry([path], entry_points=False)
    assert registry.failures[0].error == "RuntimeError: late failure"
    assert not [m for m in set(sys.modules) - before if m.startswith("_arena_plugin_half_")]


def test_same_file_twice_loads_once(tmp_path: Path) -> None:
    path = write(tmp_path, "twice.py", good_plugin("twice-bot"))
    registry = Registry([path, path], entry_points=False)
    assert registry.failures == []
    assert registry.players["twice-bot"].source == f"file {path}"


def test_files_with_the_same_stem_in_different_folders_both_load(tmp_path: Path) -> None:
    a = write(tmp_path / "a", "bot.py", good_plugin("bot-a"))
    b = write(tmp_path / "b", "bot.py", good_plugin("bot-b"))
    registry = Registry([a, b], entry_points=False)
    assert registry.failures == []
    assert {"bot-a", "bot-b"} <= set(registry.players)


# -- entry points ----------------------------------------------------------------------------


def fake_distribution(site: Path, name: str, entry_points: dict[str, str]) -> None:
    """A minimal installed distribution: what pip leaves in site-packages, metadata only."""
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    lines = "".join(f"{key} = {value}\n" for key, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{PROJECT}]\n{lines}")


def test_entry_point_plugins_load_and_broken_ones_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "arena_test_ep_good.py", good_plugin("ep-bot"))
    write(tmp_path, "arena_test_ep_broken.py", "raise ImportError('missing dependency')\n")
    fake_distribution(tmp_path, "arena-test-good", {"good": "arena_test_ep_good"})
    fake_distribution(tmp_path, "arena-test-broken", {"broken": "arena_test_ep_broken"})
    fake_distribution(tmp_path, "arena-test-absent", {"absent": "arena_test_ep_absent_module"})
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry()
    assert {"ep-bot", *BUILTINS} <= set(registry.players)
    assert registry.players["ep-bot"].source == "package arena-test-good (arena_test_ep_good)"
    errors = failures_by_source(registry)
    assert errors["package arena-test-broken (arena_test_ep_broken)"] == "ImportError: missing dependency"
    assert errors["package arena-test-absent (arena_test_ep_absent_module)"].startswith("ModuleNotFoundError")
    assert "ep-bot" not in Registry(entry_points=False).players


def test_two_distributions_may_use_the_same_entry_point_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Entry point names are chosen by each author independently (many will keep the example's):
    # only player names must be unique.
    write(tmp_path, "arena_test_same_a.py", good_plugin("same-a"))
    write(tmp_path, "arena_test_same_b.py", good_plugin("same-b"))
    fake_distribution(tmp_path, "arena-test-same-a", {"example": "arena_test_same_a"})
    fake_distribution(tmp_path, "arena-test-same-b", {"example": "arena_test_same_b"})
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry()
    assert not [f for f in registry.failures if "arena-test-same" in f.source], registry.failures
    assert {"same-a", "same-b"} <= set(registry.players)


# -- laziness ------------------------------------------------------------------------------


def marker_plugin(marker: Path) -> str:
    return (
        f"from pathlib import Path\n"
        f"_marker = Path({str(marker)!r})\n"
        f"_marker.write_text(_marker.read_text() + 'x' if _marker.exists() else 'x')\n" + good_plugin("lazy-bot")
    )


def test_plugins_load_only_when_asked_and_only_once(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    path = write(tmp_path, "lazy.py", marker_plugin(marker))
    registry = Registry([path])
    assert not marker.exists()  # constructing the registry runs no plugin code
    assert registry.plugin_files == (str(path),)
    assert not marker.exists()
    assert "lazy-bot" in registry.players
    assert marker.read_text() == "x"
    registry.load()
    registry.failures  # noqa: B018
    registry.get("lazy-bot")
    assert marker.read_text() == "x"


def test_load_is_triggered_by_failures_and_get(tmp_path: Path) -> None:
    for trigger in ("failures", "get", "load"):
        marker = tmp_path / f"imported-{trigger}"
        path = write(tmp_path / trigger, "lazy.py", marker_plugin(marker))
        registry = Registry([path])
        assert not marker.exists()
        if trigger == "failures":
            assert registry.failures == []
        elif trigger == "get":
            assert registry.get("lazy-bot").name == "lazy-bot"
        else:
            registry.load()
        assert marker.exists()


@pytest.mark.slow
def test_importing_the_cli_and_building_a_registry_imports_no_player(tmp_path: Path) -> None:
    code = textwrap.dedent(
        """
        import sys
        import arena.cli
        from players.registry import Registry
        Registry()
        print(sorted(m for m in sys.modules if m.startswith("players.builtin")))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# -- the command line ----------------------------------------------------------------------

runner = CliRunner()


def test_cli_players_lists_a_plugin_file(tmp_path: Path) -> None:
    path = write(tmp_path, "mine.py", good_plugin("cli-bot"))
    result = runner.invoke(app, ["players", "--plugin", str(path), "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert rows["cli-bot"]["source"] == f"file {path}"
    assert rows["cli-bot"]["status"] == "ok"
    assert rows["cli-bot"]["description"] == "a plugin that works"
    assert set(rows) >= BUILTINS


def test_cli_players_reports_a_broken_plugin_and_exits_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = write(tmp_path, "broken.py", "raise ImportError('needs a GPU library')\n")
    good = write(tmp_path, "good.py", good_plugin("still-here"))
    result = runner.invoke(app, ["players", "--plugin", str(broken), "--plugin", str(good), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    errors = [r for r in rows if r["source"] == f"file {broken}"]
    assert len(errors) == 1
    assert errors[0]["name"] is None
    assert errors[0]["status"] == "error: ImportError: needs a GPU library"
    assert {"still-here", *BUILTINS} <= {r["name"] for r in rows}

    # The table at a width of the test's own, not the terminal's: at 80 columns the error wraps in its cell.
    from arena.cli import common

    monkeypatch.setattr(common.console, "_width", 160)
    table = runner.invoke(app, ["players", "--plugin", str(broken)], env={"COLUMNS": "160"})
    assert table.exit_code == 0, table.output
    assert "needs a GPU library" in table.stdout


def test_cli_tournament_unknown_player_exits_2_with_one_line(tmp_path: Path) -> None:
    store = tmp_path / "results.db"
    result = runner.invoke(app, ["tournament", "-p", "missing", "-n", "2", "--store", str(store), "--json"])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: unknown player 'missing'; registered players: ")
    assert "random" in lines[0]
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["tournament", "play"])
def test_cli_a_broken_plugin_named_with_plugin_is_one_error_line(
    tmp_path: Path, command: str, one_error_line: OneErrorLine
) -> None:
    """Not a warning and then "unknown player": the line says which plugin and why, and nothing is played."""
    broken = write(tmp_path, "broken.py", "import helpers_that_are_not_there\n")
    good = write(tmp_path, "good.py", good_plugin("corner-zero"))
    args = [command, "-p", "corner-zero", "--plugin", str(broken), "--plugin", str(good)]
    if command == "tournament":
        args += ["-n", "1", "--workers", "1", "-q", "--store", str(tmp_path / "s.db")]
    line = one_error_line(runner.invoke(app, args))
    assert line == (
        f"error: plugin {broken.resolve()} cannot be loaded: "
        "ModuleNotFoundError: No module named 'helpers_that_are_not_there'"
    )
    assert not (tmp_path / "s.db").exists()


def test_a_plugin_of_two_files_imports_its_helper_and_a_plugin_folder_loads(tmp_path: Path) -> None:
    """A bot is a folder: ``my_bot.py`` imports ``helpers.py`` beside it; ``--plugin DIR`` loads the
    folder's ``bot.py``, or the folder as a package whose modules import each other relatively."""
    split = tmp_path / "split"
    split.mkdir()
    write(split, "split_helpers.py", "CORNER = 'from-helper'\n")
    source = good_plugin("split-bot").replace(
        'description = "a plugin that works"', "from split_helpers import CORNER as description"
    )
    write(split, "my_bot.py", source)
    folder = tmp_path / "folder_bot"
    folder.mkdir()
    write(folder, "bot.py", good_plugin("folder-bot"))
    package = tmp_path / "package_bot"
    package.mkdir()
    write(package, "strategy.py", good_plugin("package-bot"))
    write(package, "__init__.py", "from .strategy import register_players\n")
    registry = Registry([split / "my_bot.py", folder, package], entry_points=False)
    assert registry.failures == []
    assert registry.get("split-bot").description == "from-helper"
    assert registry.get("folder-bot").source == f"file {folder}"
    assert registry.get("package-bot").name == "package-bot"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(PluginNotFoundError, match=r"has neither __init__\.py nor bot\.py"):
        Registry([empty], entry_points=False).check_requested([])


def test_cli_tournament_refuses_unknown_player_options(tmp_path: Path) -> None:
    args = ["tournament", "-n", "1", "-p", "random", "-o", "random.bogus=1", "--workers", "1", "-q"]
    result = runner.invoke(app, [*args, "--store", str(tmp_path / "s.db")])
    assert result.exit_code == 2
    assert "bogus" in result.stderr and "random" in result.stderr
    assert "Traceback" not in result.output


# -- options and lookups -------------------------------------------------------------------


def test_unknown_options_are_refused() -> None:
    registry = Registry(entry_points=False)
    with pytest.raises(PlayerOptionsError, match=r"player 'random': bogus: Extra inputs are not permitted"):
        registry.create("random", {"bogus": 1})
    with pytest.raises(PlayerOptionsError, match="random_first_click"):
        registry.create("random", {"random_first_click": "sometimes"})
    assert registry.create("random", {"random_first_click": True}).options.random_first_click is True
    assert registry.create("random").options.random_first_click is False
    with pytest.raises(PlayerOptionsError, match="player 'mean-constraint'"):
        registry.create("mean-constraint", {"anything": 0})


def test_options_error_is_a_value_error_and_a_player_error() -> None:
    assert issubclass(PlayerOptionsError, ValueError)
    assert issubclass(PlayerOptionsError, PlayerError)


def test_unknown_player_lists_the_registered_ones(tmp_path: Path) -> None:
    path = write(tmp_path, "extra.py", good_plugin("extra-bot"))
    registry = Registry([path], entry_points=False)
    with pytest.raises(UnknownPlayerError) as info:
        registry.get("nobody")
    message = str(info.value)
    assert message.startswith("unknown player 'nobody'; registered players: ")
    assert message.endswith(", ".join(sorted(BUILTINS | {"extra-bot"})))
    assert isinstance(info.value, LookupError)
    with pytest.raises(UnknownPlayerError):
        registry.create("nobody")


def test_hookimpl_is_the_projects_marker() -> None:
    @hookimpl
    def register_players(register: object) -> None: ...

    assert hasattr(register_players, f"{PROJECT}_impl")


# -- known gaps, recorded: each test fails loudly (XPASS strict) once the gap is closed ----------


def test_options_that_ignore_unknown_keys_are_not_accepted(tmp_path: Path) -> None:
    source = good_plugin("lax-options").replace(
        'description = "a plugin that works"',
        "from pydantic import BaseModel as _Model\n\n    class Options(_Model):\n        depth: int = 2",
    )
    registry = Registry([write(tmp_path, "lax.py", source)], entry_points=False)
    if "lax-options" in registry.players:
        with pytest.raises(PlayerOptionsError):
            registry.create("lax-options", {"bogus": 1})


def test_a_player_whose_constructor_raises_does_not_crash_the_tournament(tmp_path: Path) -> None:
    source = good_plugin("bad-init").replace(
        'description = "a plugin that works"',
        "def __init__(self, options=None):\n        raise RuntimeError('constructor exploded')",
    )
    path = write(tmp_path, "bad_init.py", source)
    args = ["tournament", "-n", "1", "-p", "bad-init,random", "--workers", "1", "-q", "--json"]
    result = runner.invoke(app, [*args, "--plugin", str(path), "--store", str(tmp_path / "s.db")])
    assert result.exit_code in (0, 2), result.exception


# -- mistakes that stop a tournament -------------------------------------------------------------------------------


def test_check_requested_refuses_a_missing_file_and_a_taken_name_that_is_asked_for(tmp_path: Path) -> None:
    missing = tmp_path / "missing.py"
    with pytest.raises(PluginNotFoundError, match="does not exist"):
        Registry([missing], entry_points=False).check_requested(["random"])
    impostor = Registry([write(tmp_path, "impostor.py", good_plugin("random"))], entry_points=False)
    failure = impostor.failures[0]
    assert (failure.kind, failure.names) == ("duplicate", ("random",))
    with pytest.raises(
        DuplicatePlayerError, match=r"player name 'random' from file .*impostor.py is already registered by builtin"
    ) as info:
        impostor.check_requested(["rref", "random"])
    assert "leave 'random' out of --players" in str(info.value)
    impostor.check_requested(["rref"])  # a name nobody asked for: the warning is enough
    broken = Registry([write(tmp_path, "broken.py", "raise ImportError('gpu')\n")], entry_points=False)
    with pytest.raises(PluginLoadError, match=r"^plugin .*broken.py cannot be loaded: ImportError: gpu$"):
        broken.check_requested(["random"])  # named with --plugin: its failure is the user's to fix first


def test_warnings_name_what_was_skipped_without_a_doubled_word() -> None:
    discovery = PluginFailure("plugin discovery", "listing the plugins' players failed (killed)", kind="discovery")
    assert discovery.summary == "third-party players skipped: listing the plugins' players failed (killed)"
    assert PluginFailure("file x.py", "ImportError: gpu").summary == "plugin file x.py skipped: ImportError: gpu"
    engine = PluginFailure("engine bot b (./b)", "it did not start", kind="engine")
    assert engine.summary == "engine bot b (./b) skipped: it did not start"


@pytest.mark.parametrize("isolation", ["auto", "trusted"])
def test_cli_tournament_refuses_a_missing_plugin_file(
    one_error_line: OneErrorLine, tmp_path: Path, isolation: str
) -> None:
    store = tmp_path / "s.db"
    args = ["tournament", "-n", "2", "-p", "random", "-w", "1", "-q", "--isolation", isolation]
    result = runner.invoke(app, [*args, "--plugin", str(tmp_path / "missing.py"), "--store", str(store)])
    assert "missing.py' does not exist" in one_error_line(result)
    assert not store.exists()


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ["auto", "trusted"])
def test_cli_tournament_refuses_a_plugin_that_takes_a_played_name(
    one_error_line: OneErrorLine, tmp_path: Path, isolation: str
) -> None:
    impostor = write(tmp_path, "impostor.py", good_plugin("random"))
    base = ["tournament", "-n", "2", "-w", "1", "-q", "--json", "--isolation", isolation, "--plugin", str(impostor)]
    for chosen in (["-p", "random"], []):  # asked for by name, or as one of every registered player
        line = one_error_line(runner.invoke(app, [*base, *chosen, "--store", str(tmp_path / "a.db")]))
        assert "player name 'random'" in line and "impostor.py" in line and "builtin" in line
    assert not (tmp_path / "a.db").exists()
    # A tournament without that name plays, and says what it skipped.
    result = runner.invoke(app, [*base, "-p", "mean-constraint", "--store", str(tmp_path / "b.db")])
    assert result.exit_code == 0, result.output
    assert f"warning: plugin file {impostor} skipped: DuplicatePlayerError" in result.stderr.replace("\n", "")


def test_cli_tournament_refuses_two_plugins_with_one_name(one_error_line: OneErrorLine, tmp_path: Path) -> None:
    first = write(tmp_path, "first.py", good_plugin("dup-bot"))
    second = write(tmp_path, "second.py", good_plugin("dup-bot"))
    args = ["tournament", "-n", "2", "-w", "1", "-q", "-p", "dup-bot,random", "--isolation", "trusted"]
    result = runner.invoke(
        app, [*args, "--plugin", str(first), "--plugin", str(second), "--store", str(tmp_path / "s")]
    )
    line = one_error_line(result)
    assert "'dup-bot'" in line and "second.py" in line and "first.py" in line


#: Every command that takes ``--plugin`` and plays or checks its player, with what else it needs.
PLUGIN_COMMANDS = {
    "tournament": ["tournament", "-n", "2", "-w", "1", "-q"],
    "play": ["play", "-d", "beginner", "--json"],
    "check-bot": ["check-bot", "--json"],
    "match": ["match", "a", "b"],
    "sweep": ["sweep", "--size", "5x5", "--density", "0.1:0.2:0.1", "-n", "2"],
}


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(PLUGIN_COMMANDS))
@pytest.mark.parametrize(
    ("source", "cause"),
    [
        ("import no_such_module_here\n", "ModuleNotFoundError: No module named 'no_such_module_here'"),
        ("x = (\n", "SyntaxError: '(' was never closed"),
        (None, "does not exist"),
    ],
    ids=["import-error", "syntax-error", "missing"],
)
def test_a_plugin_that_cannot_be_loaded_is_one_line_with_its_cause_in_every_command(
    one_error_line: OneErrorLine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    source: str | None,
    cause: str,
) -> None:
    """Not a warning then "unknown player", nor "register no player" without saying why (issue 27)."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "broken.py" if source is None else write(tmp_path, "broken.py", source)
    store = tmp_path / "s.db"
    extra = [] if command == "check-bot" else ["--store", str(store)]
    line = one_error_line(runner.invoke(app, [*PLUGIN_COMMANDS[command], "--plugin", str(path), *extra]))
    assert str(path) in line and cause in line, line
    assert not store.exists()
