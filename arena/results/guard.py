"""Watches the results store's file while the arena writes it, so that a store replaced, deleted,
overwritten or truncated under a running tournament stops it instead of passing unnoticed.

SQLite cannot tell: its connection keeps writing to the file it opened (a replaced or deleted one
lives on, unreachable), and in WAL mode it need not read the main file again before the next
checkpoint, which then writes pages into whatever is there now. So before each commit the store
compares the file at its path with the one it opened (device and inode) and checks that file's
SQLite header; ``arena.results.store`` does the rest (a recovery copy, a one-line error).
Standard library only.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import time
from pathlib import Path
from typing import NamedTuple

__all__ = ["APPLICATION_ID", "FileGuard", "Problem", "create_private", "recovery_path"]

#: ``PRAGMA application_id`` of a results store ("MSAR"): names the file's format (``file`` shows it)
#: and tells a results store from another SQLite database written over it.
APPLICATION_ID = 0x4D534152
_MAGIC = b"SQLite format 3\x00"
_HEADER = 100
#: Seconds to wait, one after the other, for a file short of its header's size to grow (see ``problem``).
_SETTLE = (0.05, 0.2, 1.0)


class Problem(NamedTuple):
    """What happened to the store's file. ``in_place``: its own content was destroyed (overwritten,
    truncated); otherwise another file took its path or none did, and this process still holds the
    original, intact."""

    text: str
    in_place: bool


def create_private(path: Path) -> None:
    """Create ``path`` empty and readable by its owner only (0600), unless it exists: results and the
    bots' error messages are nobody else's business. SQLite gives its ``-wal`` and ``-shm`` files the
    same mode."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def recovery_path(path: Path) -> Path:
    """A new file next to the store for what could be saved of it: ``<store>.recovered-<UTC time>.db``."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    candidate = path.with_name(f"{path.name}.recovered-{stamp}.db")
    number = 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}.recovered-{stamp}-{number}.db")
    return candidate


def _header_size(header: bytes) -> int:
    """The database size the header records (bytes), or 0 when SQLite would not trust it either
    (the change counter at offset 24 must equal the version-valid-for number at offset 92)."""
    if header[24:28] != header[92:96]:
        return 0
    page = int.from_bytes(header[16:18], "big")
    return (65536 if page == 1 else page) * int.from_bytes(header[28:32], "big")


class FileGuard:
    """The store file as this process opened it: its identity, and a handle of our own to read its
    header (the same file SQLite writes as long as the identity holds)."""

    def __init__(self, path: Path) -> None:
        self.path = path.absolute()
        self._file = open(self.path, "rb", buffering=0)  # noqa: SIM115 - held for the store's lifetime
        status = os.fstat(self._file.fileno())
        self._identity = (status.st_dev, status.st_ino)
        self._application_id = self._read_header()[68:72]

    def _read_header(self) -> bytes:
        self._file.seek(0)
        return self._file.read(_HEADER)

    def problem(self) -> Problem | None:
        """What is wrong with the file at the path, or None while it is still the database we opened."""
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            return Problem("was deleted", in_place=False)
        except OSError as error:
            return Problem(f"can no longer be reached ({error.strerror or error})", in_place=False)
        if (status.st_dev, status.st_ino) != self._identity:
            return Problem("was replaced by another file", in_place=False)
        header = self._read_header()
        if len(header) < _HEADER:
            return Problem(f"was truncated to {status.st_size} bytes", in_place=True)
        if not header.startswith(_MAGIC):
            return Problem("was overwritten: it is no longer an SQLite database", in_place=True)
        if header[68:72] not in (self._application_id, APPLICATION_ID.to_bytes(4, "big")):
            return Problem("was overwritten by another SQLite database", in_place=True)
        # Another arena writing the same store checkpoints page 1, with the new size, before the pages that
        # grow the file: a file short of its header's size is truncated only if it stays short.
        for wait in (*_SETTLE, None):
            expected = _header_size(header)
            if status.st_size >= expected:
                return None
            if wait is None:
                return Problem(f"was truncated to {status.st_size} of its {expected} bytes", in_place=True)
            time.sleep(wait)
            status, header = os.fstat(self._file.fileno()), self._read_header()
        return None

    def close(self) -> None:
        self._file.close()
