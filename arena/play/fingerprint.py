"""Fingerprints of what ran as a player: a hash of the files it can run, recorded with its version.

A version is what a bot says it is; the fingerprint is what the arena saw: the files the bot can run, as its
sandbox shows them. A plugin is its folder (helpers beside it included; its file alone when the folder is too
broad to show a bot: ``botfiles.broad_folder``), an installed package the files of its distribution (for an
editable install, the folder it points to), an engine bot its folder (``botfiles.engine_bot_folder``: a kit's
folder, with the strategy its author edits) and the files its command names. What a kit's ``.gitignore`` names
(build output: ``target/``, ``build/``, ``node_modules/``) and caches are left out: building again changes no
fingerprint. Built-in players are the arena's own code and have none.

Beside the hash, the fingerprint keeps each file's own short hash (``Fingerprint.files``), so that a version
that runs with other files can be told which files changed (``arena.results.entrants``).
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.metadata
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.config import TournamentConfig
from arena.isolation.sandbox.botfiles import Hidden, broad_folder, engine_bot_folder, hidden, plugin_folder
from arena.isolation.sandbox.bubblewrap import command_files
from players.registry import FILE_SOURCE, plugin_path

__all__ = ["Fingerprint", "fingerprint_files", "fingerprint_of", "scan"]

#: Folders that are never what ran: caches, version control, build output of other languages' tools.
_SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
#: A folder named on a command line may be large (a checkout): past this many files or bytes, the rest counts by
#: name and size only.
MAX_FILES = 5000
MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """The hash of the files that ran ("" when none is known) and each file's short hash by its name."""

    hash: str = ""
    files: Mapping[str, str] = field(default_factory=dict)


def _ignored_patterns(folder: Path) -> list[str]:
    """The patterns of ``folder/.gitignore`` (what a kit names as its build output), negations left out."""
    try:
        text = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith(("#", "!"))]


def _ignored(relative: str, is_dir: bool, patterns: Sequence[str]) -> bool:
    """Whether ``relative`` (a path under the folder, with ``/``) is matched by one of ``patterns``, gitignore's
    common cases: ``name``, ``*.ext``, ``dir/`` (folders only), ``/top`` and ``sub/path`` (from the top)."""
    name = relative.rsplit("/", 1)[-1]
    for pattern in patterns:
        only_dirs = pattern.endswith("/")
        body = pattern.rstrip("/")
        if only_dirs and not is_dir:
            continue
        if "/" in body:
            if fnmatch.fnmatchcase(relative, body.lstrip("/")):
                return True
        elif fnmatch.fnmatchcase(name, body):
            return True
    return False


def _walk(path: Path, secret: Hidden) -> Iterable[tuple[Path, str]]:
    """Each file under ``path`` with its name relative to it (a file given alone: its own name), in a fixed
    order; caches, version control, what the folder's ``.gitignore`` names and what the sandbox hides from a bot
    (results stores, whatever their name, and the arena's own folders) left out: a store beside a plugin
    changes with every game, and is no part of the bot."""
    if path.is_file():
        yield path, path.name
        return
    patterns = _ignored_patterns(path)
    for root, dirs, files in os.walk(path):
        here = Path(root)
        secret = secret.with_stores_in(root)
        prefix = "" if here == path else str(here.relative_to(path)).replace(os.sep, "/") + "/"
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not _ignored(prefix + d, True, patterns))
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")) or _ignored(prefix + name, False, patterns):
                continue
            if secret.covers(os.path.realpath(here / name)):
                continue
            yield here / name, prefix + name


def scan(paths: Iterable[str | Path]) -> Fingerprint:
    """The fingerprint of ``paths`` (folders whole, less what is left out): each file named relative to the path
    given, so that the same files elsewhere (a copy, a checkout at a revision) have the same fingerprint."""
    digest = hashlib.sha256()
    files: dict[str, str] = {}
    read = 0
    secret = hidden()
    for given in sorted({Path(p) for p in paths}, key=str):
        if not given.exists():
            continue
        for file, name in _walk(given, secret):
            digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
            try:
                size = file.stat().st_size
                if len(files) < MAX_FILES and read + size <= MAX_BYTES:
                    own = hashlib.sha256(file.read_bytes()).digest()
                    read += size
                else:
                    own = hashlib.sha256(f"size {size}".encode()).digest()
            except OSError:
                own = hashlib.sha256(b"unreadable").digest()
            digest.update(own)
            files[name] = own.hex()[:12]
    return Fingerprint(digest.hexdigest()[:16], files) if files else Fingerprint()


def fingerprint_files(paths: Iterable[str | Path]) -> str:
    """The short hash of ``scan(paths)``; "" when there is no file at all."""
    return scan(paths).hash


def _package_files(dist_name: str) -> list[Path]:
    """The files of an installed distribution; an editable install's source folder instead of its ``.pth``."""
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        return []
    direct = dist.read_text("direct_url.json")
    if direct:
        try:
            data = json.loads(direct)
            if data.get("dir_info", {}).get("editable") and str(data.get("url", "")).startswith("file://"):
                return [Path(data["url"].removeprefix("file://"))]
        except (ValueError, AttributeError):
            pass
    return [Path(str(dist.locate_file(f))) for f in dist.files or () if not str(f).endswith((".pyc", "RECORD"))]


def fingerprint_of(source: str, name: str, config: TournamentConfig) -> Fingerprint:
    """The fingerprint of player ``name`` whose source the registry gives as ``source`` (``file [ALIAS=]PATH``,
    ``package DIST (ENTRY)``, ``engine COMMAND``; ``builtin`` has none)."""
    if source.startswith(FILE_SOURCE):
        return scan([_plugin_files(plugin_path(source.removeprefix(FILE_SOURCE)))])  # ``file ALIAS=PATH`` too
    if source.startswith("package "):
        return scan(_package_files(source.removeprefix("package ").partition(" ")[0]))
    bot = next((b for b in config.engine_bots if b.name == name), None)
    if bot is not None:
        return scan(_engine_bot_files(bot.command, bot.folder))
    return Fingerprint()


def _plugin_files(path: str) -> Path:
    """What a plugin can run: its folder (``--plugin DIR``, or the file's folder with the helpers beside it), or
    its file alone where the folder is too broad to show it."""
    folder = plugin_folder(path)
    if Path(path).expanduser().is_dir() or broad_folder(folder) is None:
        return folder
    return Path(path).expanduser().resolve()


def _engine_bot_files(command: Sequence[str], folder: str | None) -> list[str]:
    """What an engine bot can run: its folder (unless too broad) and the files its command names outside it,
    installed programs (an interpreter on the PATH) left out: a Python upgrade is not a change of the bot."""
    cwd = os.getcwd()
    own = engine_bot_folder(command, cwd, folder)
    paths = [str(own)] if own is not None and broad_folder(own) is None else []
    named = [f for f in command_files(command[1:], cwd) if os.path.exists(f)]
    if command and "/" in command[0]:
        named.append(os.path.join(cwd, os.path.expanduser(command[0])))
    inside = str(own) + os.sep if paths else None
    return paths + [f for f in named if not (inside and os.path.realpath(f).startswith(inside))]
