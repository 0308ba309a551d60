"""What the pages may say about the machine that made them: a file's name, never where it lies.

A player's source is stored as its ``--plugin`` value (``file /home/NAME/bots/my_bot.py``): a page shows the file's
name (``file my_bot.py``), which is what a reader needs and does not wrap a table row four lines high. A static site
goes further: it is published, so no file of it may hold a path of the machine that wrote it, not even inside text a
bot wrote (a traceback names its files). ``Redactor`` replaces every path under the machine's own folders (home,
temporary folder, working folder, the store's folder) by the file's name, in every page and data file
``arena site`` writes.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = ["Redactor", "machine_folders", "shown_source"]

#: An absolute path inside a source (``file /a/b.py``, ``file alias=/a/b.py@HEAD~1``), up to a space or ``@``.
_SOURCE_PATH = re.compile(r"(?<![\w.])(/[^\s@]*/)([^\s/@]+)")
#: The characters a path goes on with, inside text (a quote, a space or markup ends it).
_PATH_CHARS = r"[^\s\"'<>&`|;,()\[\]{}]*"


def shown_source(source: str) -> str:
    """A player's source as a page shows it: each absolute path by its file's name (``file my_bot.py``)."""
    return _SOURCE_PATH.sub(lambda m: m.group(2), source or "")


def machine_folders(*more: str | Path | None) -> list[str]:
    """The folders of this machine whose paths a published page must not show: the home and temporary folders,
    the working folder, and ``more`` (a store's folder), each as given and resolved; never ``/`` itself."""
    found: list[str] = []
    candidates: list[str | Path | None] = [
        Path.home(),
        tempfile.gettempdir(),
        os.environ.get("TMPDIR"),
        "/tmp",
        "/var/tmp",
        Path.cwd(),
        *more,
    ]
    for folder in candidates:
        if not folder:
            continue
        for form in (str(folder), str(Path(folder).resolve()) if Path(folder).exists() else str(folder)):
            form = form.rstrip("/")
            if form and form != "/" and form not in found:
                found.append(form)
    return sorted(found, key=len, reverse=True)


class Redactor:
    """Replaces each path under one of ``folders`` by its last part (a file's name) in text."""

    def __init__(self, folders: Iterable[str]) -> None:
        names = [re.escape(f) for f in folders if f and f != "/"]
        self._pattern = re.compile(rf"(?:{'|'.join(names)})(?=/|\b|$){_PATH_CHARS}") if names else None

    def _name(self, match: re.Match[str]) -> str:
        path = match.group(0).rstrip("/.:")
        tail = match.group(0)[len(path) :]
        name = path.rsplit("/", 1)[-1]
        return (name or "…") + tail

    def __call__(self, text: str) -> str:
        return text if self._pattern is None else self._pattern.sub(self._name, text)
