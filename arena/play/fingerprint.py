"""Fingerprints of what ran as a player: a hash of its files, recorded with its version.

A version is what a bot says it is; the fingerprint is what the arena saw. A plugin is its file (or its folder),
an installed package the files of its distribution (for an editable install, the folder it points to), an engine
bot the files its command names (its executable and every argument that is an existing path). Built-in players
are the arena's own code and have none. The same version with another fingerprint is said once
(``arena.results.entrants``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from arena.config import TournamentConfig
from arena.isolation.sandbox.bubblewrap import command_files
from players.registry import FILE_SOURCE, plugin_path

__all__ = ["fingerprint_files", "fingerprint_of"]

#: Folders that are never what ran: caches, version control, build output of other languages' tools.
_SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
#: A folder named on a command line may be large (a checkout): past this many files or bytes, the rest counts by
#: name and size only.
MAX_FILES = 5000
MAX_BYTES = 256 * 1024 * 1024


def _walk(path: Path) -> Iterable[Path]:
    if path.is_file():
        yield path
        return
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(files):
            if not name.endswith((".pyc", ".pyo")):
                yield Path(root) / name


def fingerprint_files(paths: Iterable[str | Path]) -> str:
    """A short hash of the contents of ``paths`` (folders whole, caches left out), each named relative to the path
    given, so that the same files elsewhere have the same fingerprint. "" when there is no file at all."""
    digest = hashlib.sha256()
    files = read = 0
    for given in sorted({Path(p) for p in paths}, key=str):
        if not given.exists():
            continue
        for file in _walk(given):
            name = file.name if file == given else str(file.relative_to(given))
            digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
            try:
                size = file.stat().st_size
                if files < MAX_FILES and read + size <= MAX_BYTES:
                    digest.update(hashlib.sha256(file.read_bytes()).digest())
                    read += size
                else:
                    digest.update(str(size).encode())
            except OSError:
                digest.update(b"unreadable")
            files += 1
    return digest.hexdigest()[:16] if files else ""


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


def fingerprint_of(source: str, name: str, config: TournamentConfig) -> str:
    """The fingerprint of player ``name`` whose source the registry gives as ``source`` (``file [ALIAS=]PATH``,
    ``package DIST (ENTRY)``, ``engine COMMAND``; ``builtin`` has none)."""
    if source.startswith(FILE_SOURCE):
        return fingerprint_files([plugin_path(source.removeprefix(FILE_SOURCE))])  # ``file ALIAS=PATH`` too
    if source.startswith("package "):
        return fingerprint_files(_package_files(source.removeprefix("package ").partition(" ")[0]))
    bot = next((b for b in config.engine_bots if b.name == name), None)
    if bot is not None:
        return fingerprint_files(_command_paths(bot.command))
    return ""


def _command_paths(command: Sequence[str]) -> list[str]:
    return command_files(command)
