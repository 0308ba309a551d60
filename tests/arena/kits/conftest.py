"""Built starter kits, for the tests that run them: each kit is written by ``new_bot`` and built by its own
``build.sh`` once, then reused.

Builds are cached in a temporary folder (``$ARENA_KIT_CACHE``, default ``<tmp>/minesweeper-arena-kits``),
one per language and content of its template, so a second test session (or a rerun after an unrelated
change) does not compile C++, Rust and Java again. A kit whose toolchain is missing is skipped with the
reason and what installs it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.kits import new_bot, template_files
from arena.kits.toolchains import KitBuildFailed, build, missing_toolchain

#: The name every kit is written and played under: the arena derives each game's seed from it, so kits
#: that play the same moves must play under the same name.
KIT_NAME = "kit"
CACHE = Path(os.environ.get("ARENA_KIT_CACHE") or Path(tempfile.gettempdir()) / "minesweeper-arena-kits")


def _digest(language: str) -> str:
    """The template's content and the code that writes it: a change of either builds again."""
    digest = hashlib.sha256()
    for name, source in sorted(template_files(language).items()):
        digest.update(name.encode() + b"\0" + source.read_bytes() + b"\0")
    digest.update(Path(new_bot.__code__.co_filename).read_bytes())
    return digest.hexdigest()[:16]


class KitBuilds:
    """``get(language)``: the folder of a built kit, or a skip saying why it cannot be built here."""

    def __init__(self) -> None:
        self._built: dict[str, Path] = {}
        self._failed: dict[str, str] = {}

    def get(self, language: str) -> Path:
        if language in self._built:
            return self._built[language]
        if language in self._failed:
            pytest.fail(self._failed[language])
        reason = missing_toolchain(language)
        if reason:
            pytest.skip(reason)
        CACHE.mkdir(parents=True, exist_ok=True)
        folder = CACHE / f"{language}-{_digest(language)}"
        with open(CACHE / f"{language}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another session building the same kit: wait for it
            if not (folder / ".built").exists():
                shutil.rmtree(folder, ignore_errors=True)
                new_bot(KIT_NAME, language, folder)
                try:
                    build(folder)
                except KitBuildFailed as error:
                    self._failed[language] = str(error)
                    pytest.fail(str(error))
                (folder / ".built").write_text("built by tests/arena/kits\n")
        self._built[language] = folder
        return folder

    @contextlib.contextmanager
    def in_place(self, language: str) -> Iterator[Path]:
        """The built kit's folder, for a command that writes there (its unit tests' builds): meanwhile no
        ``copy`` of it is taken, which could catch a half-written binary newer than its sources."""
        folder = self.get(language)
        with open(CACHE / f"{language}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield folder

    def copy(self, language: str, folder: Path) -> Path:
        """A copy of the built kit at ``folder``, its files' times kept (make and cargo rebuild only what a
        later change touches), taken while no ``in_place`` command writes there."""
        with self.in_place(language) as built:
            shutil.copytree(built, folder, symlinks=True)
        return folder


@pytest.fixture(scope="session")
def kit_builds() -> Iterator[KitBuilds]:
    yield KitBuilds()
