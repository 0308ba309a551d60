"""``--plugin PATH@REV``: a plugin as it was at a git revision of the repository that holds it.

A bot author's everyday question is whether the change they are making is better than what they had, so the
arena plays a bot at a revision beside (or instead of) the one in the work tree:
``--plugin base=bots/my_bot.py@HEAD~1 --plugin cand=bots/my_bot.py``. The plugin's folder at that revision (a
bot is a folder: its helpers lie beside it) is read with git (``git archive`` of the folder's tree) into the
arena's cache folder (``arena.paths.revisions_dir``), and the plugin is loaded from there. Nothing is checked out: the
user's work tree, index and ``HEAD`` are untouched, and git is only asked to read.

A folder is kept per content (the commit that last changed the bot's folder, and that folder's tree), so the
same bot at two revisions is read once, and a tournament resumed later reads the same files. Beside it,
``revision.json`` says where it came from; the arena shows that revision wherever it shows the player: its
version gets ``+g`` and the short hash of that commit (``1+g3f2a1bc``: setuptools-scm's form), so two revisions
of one bot are two versions (``arena.results.entrants``), and its description ends with the path and revision.

A path that exists is a path, even with an ``@`` in its name; otherwise the longest part before an ``@`` that
exists is the path (else the part before the first ``@``: a bot gone from the work tree) and the rest the
revision, so ``bots/my_bot.py@HEAD@{1}`` works.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.paths import revisions_dir
from players.api import PlayerError
from players.registry import FILE_SOURCE, PlayerEntry, plugin_path, plugin_spec

__all__ = [
    "REVISION_FILE",
    "PluginRevision",
    "RevisionError",
    "materialize_plugins",
    "revision_of",
    "shown_at_revision",
    "split_revision",
]

#: Beside each folder read at a revision: where it came from (``PluginRevision`` as JSON).
REVISION_FILE = "revision.json"
_FIELDS = ("repo", "folder", "commit", "changed")
#: How long a git command may take (reading a large folder of a large repository included).
_GIT_TIME = 120.0


class RevisionError(PlayerError):
    """A ``--plugin PATH@REV`` that cannot be read: no git repository, no such revision, no such path at it."""


@dataclass(frozen=True, slots=True)
class PluginRevision:
    """A plugin read at a revision: its repository (the work tree's top folder), its path there, the commit the
    revision named when it was first read, and the commit that last changed the plugin's folder (its version)."""

    repo: str
    path: str
    commit: str
    changed: str

    @property
    def short(self) -> str:
        """The short hash a user sees: of the commit that last changed the bot (as ``git log --oneline``)."""
        return self.changed[:7]

    @property
    def label(self) -> str:
        """``bots/my_bot.py at 3f2a1bc``: the plugin's path in its repository and the version it was read at."""
        return f"{self.path} at {self.short}"


def split_revision(text: str) -> tuple[str, str] | None:
    """``(path, rev)`` of a ``--plugin`` path (its alias removed) that names a revision, else None. An existing
    path is a path, whatever its name; else the last ``@`` whose left part exists splits it (the longest path
    that exists), else the first ``@`` (a path gone from the work tree; a revision may hold ``@``: ``HEAD@{1}``)."""
    if "@" not in text or Path(text).expanduser().exists():
        return None
    places = [i for i, char in enumerate(text) if char == "@"]
    at = next((i for i in reversed(places) if i and Path(text[:i]).expanduser().exists()), places[0])
    return text[:at], text[at + 1 :]


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    # GIT_OPTIONAL_LOCKS=0: reading never takes the index lock (``git status`` elsewhere would refresh it).
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        return subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, timeout=_GIT_TIME, env=env, check=False
        )
    except FileNotFoundError:
        raise RevisionError("--plugin PATH@REV reads the plugin with git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise RevisionError(f"git {args[0]} in {folder} took more than {_GIT_TIME:g} s") from None


def _out(result: subprocess.CompletedProcess[bytes]) -> str:
    return result.stdout.decode("utf-8", "replace").strip()


def _read(given: str, path_text: str, rev: str) -> tuple[PluginRevision, str, str, str]:
    """What ``path_text@rev`` names: the revision, the object's kind (blob or tree), the plugin folder's
    path in the repository ("" for its top) and that folder's tree."""
    if not path_text:
        raise RevisionError(f"--plugin {given!r}: PATH@REV needs a path before the '@'")
    if not rev:
        raise RevisionError(f"--plugin {given!r}: PATH@REV needs a revision after the '@'")
    absolute = Path(os.path.abspath(Path(path_text).expanduser()))
    folder = next((p for p in (absolute, *absolute.parents) if p.is_dir()), Path("/"))
    top_run = _git(folder, "rev-parse", "--show-toplevel")
    if top_run.returncode != 0 or not _out(top_run):
        raise RevisionError(f"--plugin {given!r}: {path_text} is not in a git repository")
    top = Path(_out(top_run))
    real_parent = Path(os.path.realpath(absolute.parent))
    try:
        relative = (real_parent / absolute.name).relative_to(Path(os.path.realpath(top)))
    except ValueError:
        raise RevisionError(f"--plugin {given!r}: {path_text} is not in the repository at {top}") from None
    inside = relative.as_posix() if str(relative) != "." else ""
    commit_run = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    if commit_run.returncode != 0 or rev.startswith("-"):
        raise RevisionError(f"--plugin {given!r}: revision {rev!r} does not exist in the repository at {top}")
    commit = _out(commit_run)
    kind = _out(_git(top, "cat-file", "-t", f"{commit}:{inside}")) if inside else "tree"
    if kind not in ("blob", "tree"):
        raise RevisionError(
            f"--plugin {given!r}: {inside or path_text} does not exist at revision {rev} ({commit[:7]})"
        )
    plugin_folder = inside if kind == "tree" else relative.parent.as_posix()
    plugin_folder = "" if plugin_folder == "." else plugin_folder
    tree = _out(_git(top, "rev-parse", f"{commit}:{plugin_folder}"))
    changed = _out(_git(top, "log", "-1", "--format=%H", commit, "--", plugin_folder or ".")) or commit
    revision = PluginRevision(str(top), inside or ".", commit, changed)
    return revision, kind, plugin_folder, tree


def _materialize(given: str) -> str:
    """``given`` (a ``--plugin`` value) with a ``PATH@REV`` read into the cache: ``[ALIAS=]CACHED_PATH``."""
    alias, path_text = plugin_spec(given)
    split = split_revision(path_text)
    if split is None:
        return given
    revision, kind, folder, tree = _read(given, *split)
    top = Path(revision.repo)
    name = Path(folder).name if folder else top.name
    key = f"{revision.changed[:12]}-{tree[:12]}"
    home = revisions_dir() / key
    if not (home / REVISION_FILE).is_file():
        _extract(top, tree, home, name, folder, revision)
    cached = home / name
    if kind == "blob":
        cached = cached / Path(revision.path).name
    return f"{alias}={cached}" if alias else str(cached)


def _extract(top: Path, tree: str, home: Path, name: str, folder: str, revision: PluginRevision) -> None:
    """Read ``tree`` into ``home/name`` with ``revision.json`` beside it, all at once (a folder renamed into place:
    two arenas reading the same revision at once both end with the same complete folder)."""
    archive = _git(top, "archive", "--format=tar", tree)
    if archive.returncode != 0:
        why = archive.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RevisionError(f"git archive of {revision.label} failed: {why[0] if why else 'no reason given'}")
    home.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".reading-", dir=home.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(staging / name, filter="data")
        fields = {"repo": revision.repo, "folder": folder, "commit": revision.commit, "changed": revision.changed}
        (staging / REVISION_FILE).write_text(json.dumps(fields, indent=2) + "\n")
        try:
            staging.rename(home)
        except OSError:  # read meanwhile by another arena (the same content), or left half-read by a crash
            if not (home / REVISION_FILE).is_file():
                shutil.rmtree(home, ignore_errors=True)
                staging.rename(home)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def materialize_plugins(plugins: Iterable[str | os.PathLike[str]]) -> list[str]:
    """The ``--plugin`` values with each ``[ALIAS=]PATH@REV`` read at its revision into the arena's cache and
    named by its cached path (the others as given, as text). ``RevisionError`` names the first that cannot be
    read. Idempotent: a cached path is an existing path."""
    return [_materialize(os.fspath(plugin)) for plugin in plugins]


@functools.lru_cache(maxsize=256)
def _revision_file(home: str) -> dict[str, str] | None:
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(Path(home, REVISION_FILE).read_text())
        if isinstance(data, dict) and all(
            isinstance(data.get(k), str) for k in ("repo", "folder", "commit", "changed")
        ):
            return data
    return None


def revision_of(path: str | os.PathLike[str]) -> PluginRevision | None:
    """The revision a plugin path (file or folder) was read at, when it lies in ``revisions_dir``; else None."""
    root = os.path.realpath(revisions_dir())
    real = os.path.realpath(path)
    if not real.startswith(root + os.sep):
        return None
    key, *rest = Path(real).relative_to(root).parts
    data = _revision_file(os.path.join(root, key))
    if data is None or not rest:
        return None
    inside = "/".join(p for p in (data["folder"], *rest[1:]) if p) or "."
    return PluginRevision(data["repo"], inside, data["commit"], data["changed"])


def shown_at_revision(entry: PlayerEntry) -> PlayerEntry:
    """``entry`` as the arena shows a plugin read at a revision: its version with ``+g`` and the short hash of the
    commit that last changed it (``.g`` after a version that has a ``+`` already), its description with its
    path and that hash; any other entry as it is."""
    if not entry.source.startswith(FILE_SOURCE):
        return entry
    revision = revision_of(plugin_path(entry.source.removeprefix(FILE_SOURCE)))
    if revision is None:
        return entry
    version = f"{entry.version}{'.' if '+' in entry.version else '+'}g{revision.short}"
    description = f"{entry.description} ({revision.label})" if entry.description else revision.label
    return dataclasses.replace(entry, version=version, description=description)
