"""``--plugin PATH@REV`` (``arena.isolation.discovery.revisions``): a plugin as it was at a git revision, read with
git into the arena's cache and never checked out; two revisions of one bot are two versions, the revision's short hash
in the version and the description; a revision that cannot be read is one line, exit 2, nothing stored.

The repository is made here: a bot of two files (``my_bot.py`` importing ``helpers.py`` beside it) whose helper
says which commit it is, three commits, and a change left uncommitted in the work tree.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.cli.errors import plugin_argument
from arena.isolation.discovery.catalog import PlayerCatalog
from arena.isolation.discovery.revisions import (
    REVISION_FILE,
    RevisionError,
    materialize_plugins,
    revision_of,
    split_revision,
)
from arena.isolation.sandbox import bubblewrap as sandbox
from arena.isolation.sandbox.botfiles import hidden
from arena.limits import Isolation
from arena.paths import revisions_dir, user_cache_dir
from arena.results.store import Store

BOT = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer

import helpers


class MyBot(RandomPlayer):
    name = "my-bot"
    version = "1"
    description = "my bot " + helpers.LABEL


@hookimpl
def register_players(register):
    register(MyBot)
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose bot's helper says ``one``, ``two``, ``three`` at HEAD~2, HEAD~1, HEAD, and ``work`` in
    the work tree (uncommitted); the arena's cache folder in ``tmp_path``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "repo"
    (root / "bots" / "pkg").mkdir(parents=True)
    git(root, "init", "-q")
    git(root, "config", "user.email", "bot@example.org")
    git(root, "config", "user.name", "bot")
    (root / "bots" / "my_bot.py").write_text(BOT)
    for label in ("one", "two", "three"):
        (root / "bots" / "helpers.py").write_text(f"LABEL = {label!r}\n")
        (root / "bots" / "pkg" / "bot.py").write_text(BOT.replace("my-bot", "folder-bot"))
        (root / "bots" / "pkg" / "helpers.py").write_text(f"LABEL = {label!r}\n")
        (root / "README").write_text(label)  # a change outside the bot's folder too
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", label)
    (root / "bots" / "helpers.py").write_text("LABEL = 'work'\n")
    return root


def state(repo: Path) -> tuple[str, str, bytes]:
    """What reading a revision must leave as it was: ``git status``, HEAD, and the index file's bytes."""
    return (
        git(repo, "status", "--porcelain=v1", "-uall"),
        git(repo, "rev-parse", "HEAD"),
        (repo / ".git/index").read_bytes(),
    )


@pytest.mark.slow
def test_a_revision_is_read_into_the_cache_and_the_work_tree_index_and_head_are_untouched(repo: Path) -> None:
    before = state(repo)
    assert before[0] == "M bots/helpers.py"
    bot = repo / "bots" / "my_bot.py"
    specs = materialize_plugins([f"base={bot}@HEAD~1", f"{bot}@HEAD~2", str(bot), f"pkg={repo}/bots/pkg@HEAD"])
    assert state(repo) == before  # nothing checked out, nothing staged, HEAD where it was
    base, old, work, pkg = specs
    assert work == str(bot)  # a path without a revision is left as given
    cached = Path(base.removeprefix("base="))
    assert (
        cached.is_file() and cached.is_relative_to(revisions_dir()) and revisions_dir().is_relative_to(user_cache_dir())
    )
    assert cached.read_text() == BOT and (cached.parent / "helpers.py").read_text() == "LABEL = 'two'\n"
    assert (Path(old).parent / "helpers.py").read_text() == "LABEL = 'one'\n"
    assert Path(pkg.removeprefix("pkg=")).is_dir() and (Path(pkg.removeprefix("pkg=")) / "bot.py").is_file()
    revision = revision_of(cached)
    assert revision is not None and revision.path == "bots/my_bot.py" and revision.repo == str(repo)
    assert revision.commit == git(repo, "rev-parse", "HEAD~1") == revision.changed
    assert revision_of(bot) is None
    meta = json.loads((cached.parents[1] / REVISION_FILE).read_text())
    assert meta["folder"] == "bots"
    # Read again: the same folder, nothing written anew.
    stamp = cached.stat().st_mtime_ns
    assert materialize_plugins([f"base={bot}@HEAD~1"]) == [base] and cached.stat().st_mtime_ns == stamp


@pytest.mark.slow
def test_two_revisions_of_one_bot_are_two_versions_with_their_own_helpers(repo: Path) -> None:
    bot = repo / "bots" / "my_bot.py"
    specs = [f"base={bot}@HEAD~1", f"cand={bot}", f"head={bot}@HEAD", f"old={repo}/bots/pkg@HEAD~2"]
    players = PlayerCatalog.for_tournament(specs, (), Isolation.TRUSTED).players
    short = {rev: git(repo, "rev-parse", "--short=7", rev) for rev in ("HEAD~2", "HEAD~1", "HEAD")}
    seen = {name: (players[name].version, players[name].description) for name in ("base", "cand", "head", "old")}
    assert seen == {
        "base": (f"1+g{short['HEAD~1']}", f"my bot two (bots/my_bot.py at {short['HEAD~1']})"),
        "cand": ("1", "my bot work"),
        "head": (f"1+g{short['HEAD']}", f"my bot three (bots/my_bot.py at {short['HEAD']})"),
        "old": (f"1+g{short['HEAD~2']}", f"my bot one (bots/pkg at {short['HEAD~2']})"),
    }


def test_the_version_is_the_commit_that_last_changed_the_bots_folder(repo: Path) -> None:
    """A commit that changed nothing of the bot names the same version (and the same cached folder)."""
    git(repo, "commit", "-q", "--allow-empty", "-m", "nothing of the bot")
    bot = repo / "bots" / "my_bot.py"
    players = PlayerCatalog.for_tournament([f"a={bot}@HEAD", f"b={bot}@HEAD~1"], (), Isolation.TRUSTED).players
    assert players["a"].version == players["b"].version == f"1+g{git(repo, 'rev-parse', '--short=7', 'HEAD~1')}"
    assert players["a"].source.replace("file a=", "") == players["b"].source.replace("file b=", "")  # one folder


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("{repo}/bots/my_bot.py@nope", "revision 'nope' does not exist in the repository at {repo}"),
        ("{repo}/bots/my_bot.py@--help", "revision '--help' does not exist"),
        ("{repo}/bots/gone.py@HEAD", "bots/gone.py does not exist at revision HEAD"),
        ("{outside}/my_bot.py@HEAD", "{outside}/my_bot.py is not in a git repository"),
        ("{repo}/bots/my_bot.py@", "needs a revision after the '@'"),
    ],
)
def test_a_revision_that_cannot_be_read_is_one_line_exit_2_and_nothing_stored(
    repo: Path, tmp_path: Path, cli: Callable[..., Any], one_error_line: Callable[[Any], str], spec: str, needle: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "my_bot.py").write_text(BOT)
    text = spec.format(repo=repo, outside=outside)
    with pytest.raises(RevisionError, match=needle.format(repo=repo, outside=outside).replace("'", ".")):
        materialize_plugins([text])
    store = tmp_path / "arena.db"
    before = state(repo)
    line = one_error_line(cli("tournament", "--store", store, "-n", "2", "--plugin", f"base={text}", "-p", "random"))
    assert needle.format(repo=repo, outside=outside) in line
    assert not store.exists() and state(repo) == before
    assert not revisions_dir().exists() or not any(revisions_dir().iterdir())


def test_a_player_read_at_a_revision_is_replayed_from_its_repository_at_that_commit(repo: Path) -> None:
    """``arena errors``' command that plays a failed game again names the bot in its repository at the commit it
    was read at (not the arena's cache), with its alias; read again, that names the same cached files."""
    bot = repo / "bots" / "my_bot.py"
    (spec,) = materialize_plugins([f"base={bot}@HEAD~1"])
    changed = git(repo, "rev-parse", "HEAD~1")[:12]
    assert plugin_argument(spec) == f"base={bot}@{changed}"
    assert materialize_plugins([plugin_argument(spec)]) == [spec]
    assert plugin_argument(f"cand={bot}") == f"cand={bot}" and plugin_argument(str(bot)) == str(bot)


def test_an_existing_path_with_an_at_sign_is_a_path(tmp_path: Path) -> None:
    odd = tmp_path / "bot@v2.py"
    odd.write_text("")
    assert split_revision(str(odd)) is None
    assert split_revision(f"{odd}@HEAD~1") == (str(odd), "HEAD~1")
    assert split_revision(f"{tmp_path}/bot.py@HEAD@{{1}}") == (f"{tmp_path}/bot.py", "HEAD@{1}")
    assert split_revision(str(tmp_path / "missing.py")) is None
    assert materialize_plugins([str(odd), f"x={odd}"]) == [str(odd), f"x={odd}"]


@given(
    name=st.text(st.sampled_from("ab@._-"), min_size=1, max_size=8).filter(lambda s: s not in (".", "..")),
    rev=st.text(st.sampled_from("HEAD~^@{}12ab"), min_size=1, max_size=8),
)
def test_a_path_that_exists_is_never_split_and_its_revision_is_all_after_it(name: str, rev: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text("")
        assert split_revision(str(path)) is None
        assert split_revision(f"{path}@{rev}") == (str(path), rev)


def test_the_sandbox_shows_a_bots_folder_read_at_a_revision_and_nothing_else_of_the_cache(repo: Path) -> None:
    (spec,) = materialize_plugins([f"{repo}/bots/my_bot.py@HEAD"])
    secret = hidden()
    assert not secret.covers(str(Path(spec).parent)) and not secret.covers(spec)
    assert secret.covers(str(revisions_dir())) and secret.covers(str(user_cache_dir() / "compiled" / "x.json"))
    assert sandbox.host_files([spec], entry_points=False) == [str(Path(spec).parent)]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "off"])
def test_a_tournament_plays_two_revisions_side_by_side_isolated(
    repo: Path, tmp_path: Path, cli: Callable[..., Any], mode: str
) -> None:
    """In the sandbox (``auto``: where this machine has one) and out of it: each version plays from its own folder
    (its host loads only its own plugin), the versions tell the revisions apart, the repository is untouched."""
    before = state(repo)
    store = tmp_path / "arena.db"
    bot = repo / "bots" / "my_bot.py"
    args = ["--store", store, "-n", "2", "-w", "1", "-p", "base,cand", "--sandbox", mode]
    result = cli("tournament", *args, "--plugin", f"base={bot}@HEAD~1", "--plugin", f"cand={bot}@HEAD")
    assert result.exit_code == 0, result.output
    assert state(repo) == before
    with Store(store, read_only=True) as db:
        (tournament,) = db.tournaments()
        players = {p.key: p for p in db.players(tournament.id)}
    short = {rev: git(repo, "rev-parse", "--short=7", rev) for rev in ("HEAD~1", "HEAD")}
    expected = {"base": f"1+g{short['HEAD~1']}", "cand": f"1+g{short['HEAD']}"}
    assert {key: p.version for key, p in players.items()} == expected
    # A plugin's fingerprint is its folder: the same my_bot.py with another helpers.py beside it is other code.
    assert players["base"].fingerprint != players["cand"].fingerprint
    assert sorted(players["base"].files) == ["helpers.py", "my_bot.py", "pkg/bot.py", "pkg/helpers.py"]
    assert players["base"].files["my_bot.py"] == players["cand"].files["my_bot.py"]
    board = cli("leaderboard", "--store", store, "--json")
    versions = {row["player"]: row["version"] for row in json.loads(board.stdout)["rows"]}
    assert versions == expected
    # The source names the file in its repository and the revision, never the arena's cached copy.
    sources = {row["player"]: row["source"] for row in json.loads(board.stdout)["rows"]}
    for key, rev in (("base", "HEAD~1"), ("cand", "HEAD")):
        assert sources[key] == f"file {key}={bot}@{git(repo, 'rev-parse', rev)[:12]}", sources
        assert str(revisions_dir()) not in sources[key]


def test_an_isolated_host_loads_only_the_plugin_its_alias_names(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.play import agents

    monkeypatch.setattr(agents, "_plugin_files", ("base=/v1/my_bot.py", "cand=/v2/my_bot.py", "/x/a.py", "/y/b.py"))
    assert agents._plugins_for("base") == (("base=/v1/my_bot.py",), False)
    assert agents._plugins_for("cand") == (("cand=/v2/my_bot.py",), False)
    assert agents._plugins_for("a-player") == (("/x/a.py", "/y/b.py"), True)


@pytest.mark.slow
def test_check_bot_takes_a_revision(
    repo: Path, cli: Callable[..., Any], one_error_line: Callable[[Any], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot checked is the folder read at the revision (the checks themselves: check_bot/test_check.py)."""
    from arena.cli import check_bot

    targets: list[Any] = []

    def run(target: Any, limits: Any, what: str, *, live: bool) -> list[Any]:
        targets.append(target)
        return []

    monkeypatch.setattr(check_bot, "_run", run)
    result = cli("check-bot", "--plugin", f"{repo}/bots/pkg@HEAD~1", "--json")
    assert result.exit_code == 0, result.output
    (target,) = targets
    plugin = target.command[target.command.index("--plugin") + 1]
    assert target.name == "folder-bot" and Path(plugin).is_relative_to(revisions_dir())
    assert (Path(plugin) / "helpers.py").read_text() == "LABEL = 'two'\n"
    line = one_error_line(cli("check-bot", "--plugin", f"{repo}/bots/pkg@HEAD~9"))
    assert "revision 'HEAD~9' does not exist" in line
