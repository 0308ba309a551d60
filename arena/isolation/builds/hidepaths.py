"""A build's log without this machine's paths: what an entrant reads of a build must not map the organizer's disk.

A compiler prints the paths it was given (absolute ones, as the build runs in its folder's real place), node and
Python print where their files are, rustc where rustup keeps the standard library, a build outside the sandbox its
real home. ``PathMask`` rewrites each of the places that say something about the machine: the bot's folder becomes
relative (``/srv/cup-host/work/7/bot/src/a.cpp`` -> ``src/a.cpp``, the folder itself ``.``), and the home folder,
the temporary folder, the Python environment, the arena's own installation and any folder the caller names become
short tokens (``~``, ``$TMPDIR``, ``<python>``, ``<arena>``, ``<host>``). A path is rewritten only where it begins
and ends a path (``/rootfs`` is not ``/root`` + ``fs``). ``StreamMask`` does it to output as it comes, whole lines
at a time, so that a path split between two reads is still found.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = ["PathMask", "StreamMask"]

#: The arena's installation (the folder holding the ``arena`` package).
_ARENA = Path(__file__).resolve().parents[3]
#: Folders too general to stand for this machine (a build's own ``/tmp`` is a fresh one; ``/usr`` is everyone's).
_GENERAL = {"/", "/usr", "/usr/local", "/opt", "/bin", "/lib", "/etc", "/var", "/home"}
#: The longest line kept back while waiting for its end (a path is shorter than this, so one is never cut).
_HOLD = 8192


def _forms(path: str | os.PathLike[str]) -> set[str]:
    text = os.path.normpath(str(path))
    return {text, os.path.realpath(text)}


class PathMask:
    """Rewrites the machine's paths in a build's output (see the module); built once per build."""

    def __init__(self, folder: str | os.PathLike[str], *, extra: Iterable[tuple[str | os.PathLike[str], str]] = ()):
        places: dict[str, str] = {}

        def add(path: str | os.PathLike[str] | None, token: str) -> None:
            if not path:
                return
            for form in _forms(path):
                if form not in _GENERAL and form not in places:
                    places[form] = token

        add(folder, ".")
        for path, token in extra:
            add(path, token)
        if sys.prefix != sys.base_prefix:  # a virtual environment: somebody's folder, unlike /usr
            add(sys.prefix, "<python>")
        add(_ARENA, "<arena>")
        add(tempfile.gettempdir(), "$TMPDIR")
        add(os.environ.get("HOME") or os.path.expanduser("~"), "~")
        self.places = places
        # Longest first, so a folder inside another is rewritten as the inner one.
        ordered = sorted(places, key=len, reverse=True)
        alternatives = b"|".join(re.escape(p.encode()) for p in ordered)
        self._pattern = re.compile(rb"(?<![\w./\-])(" + alternatives + rb")(?:(/)|(?![\w.\-]))") if ordered else None
        self._tokens = {p.encode(): t.encode() for p, t in places.items()}

    def _replace(self, match: re.Match[bytes]) -> bytes:
        token, slash = self._tokens[match.group(1)], match.group(2) or b""
        if token == b".":  # the bot's folder: its files by their relative names
            return b"" if slash else b"."
        return token + slash

    def bytes(self, data: bytes) -> bytes:
        return data if self._pattern is None else self._pattern.sub(self._replace, data)

    def text(self, text: str) -> str:
        return self.bytes(text.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape")


class StreamMask:
    """``PathMask`` over output that comes in pieces: ``feed`` returns what can be written now (whole lines, or
    all but the last ``_HOLD`` bytes of a very long line), ``flush`` the rest."""

    def __init__(self, mask: PathMask) -> None:
        self.mask = mask
        self._held = b""

    def feed(self, data: bytes) -> bytes:
        self._held += data
        end = self._held.rfind(b"\n") + 1
        if end == 0 and len(self._held) > 2 * _HOLD:
            masked = self.mask.bytes(self._held)
            out, self._held = masked[:-_HOLD], masked[-_HOLD:]
            return out
        out, self._held = self._held[:end], self._held[end:]
        return self.mask.bytes(out)

    def flush(self) -> bytes:
        out, self._held = self._held, b""
        return self.mask.bytes(out)
