"""A submission's archive: packed by ``arena submit``, checked by the server while it streams in, unpacked by a job.

An archive is a gzip-compressed tar of plain files and folders. The server never trusts one: ``read_archive``
pulls the body chunk by chunk and walks the tar's headers as the bytes arrive (``tarfile``'s stream mode reads
from a file-like view of the decompressed stream), so a rule broken early is refused early, without reading
the rest of the body, and nothing is ever unpacked on the way. The rules, each named in the refusal:

- ``size``: at most ``max_bytes`` of compressed body (counted as read, whatever the request claims);
- ``files``: at most ``max_files`` files and folders;
- ``unpacked``: at most ``max_unpacked`` bytes unpacked, counted on the decompressed stream itself, so a zip
  bomb is stopped at the limit, not after inflating;
- ``path``: no absolute path, no ``..``;
- ``type``: plain files and folders only: no symbolic or hard link, no device, no pipe;
- ``format``: a gzip-compressed tar holding at least one file.

``pack`` makes the archive deterministically (sorted, times and owners zeroed), so the same folder packs to the
same bytes and a submission sent twice is recognised by its SHA-256.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import stat
import tarfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from arena.competition.hosting import HostSpec

__all__ = ["EXCLUDED", "ArchiveRefused", "ArchiveRules", "Received", "archive_rules", "extract", "pack", "read_archive"]

#: Left out of an archive by ``pack``: version control, caches and build outputs (the server builds).
EXCLUDED = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".venv",
        "venv",
        "node_modules",
        "target",
        "build",
        "dist",
        ".DS_Store",
    }
)
_EXCLUDED_SUFFIXES = (".pyc", ".pyo", ".o", ".class")
#: Bytes of tar headers allowed per member on top of its data (a header, a long-name or pax header).
_HEADER_ROOM = 2048
_CHUNK = 1 << 16


class ArchiveRefused(Exception):
    """An archive that breaks ``rule``: the message is one line naming it."""

    def __init__(self, rule: str, message: str, status: int = 400) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule, self.status = rule, status


@dataclass(frozen=True)
class ArchiveRules:
    max_bytes: int = 20 * 1024 * 1024
    max_files: int = 2000
    max_unpacked: int = 200 * 1024 * 1024

    @property
    def max_stream(self) -> int:
        """Decompressed bytes a valid archive can take: its files, their headers, the end blocks."""
        return self.max_unpacked + _HEADER_ROOM * (self.max_files + 1) + 20 * 512


def archive_rules(host: HostSpec) -> ArchiveRules:
    """The rules of a competition's ``[host]`` table."""
    return ArchiveRules(host.max_archive_bytes, host.max_files, host.max_unpacked_bytes)


@dataclass(frozen=True)
class Received:
    sha256: str
    bytes: int
    files: int
    unpacked: int


def _mib(n: int) -> str:
    return f"{n / 1024 / 1024:g} MiB"


class _Inflating(io.RawIOBase):
    """The decompressed stream of a body that ``pull`` hands over chunk by chunk (b'' at its end), counting
    both sides against the rules and copying the raw bytes to ``sink``."""

    def __init__(self, pull: Callable[[], bytes], rules: ArchiveRules, sink: BinaryIO | None) -> None:
        self.pull, self.rules, self.sink = pull, rules, sink
        self.raw_bytes = 0
        self.inflated = 0
        self.sha = hashlib.sha256()
        self._zlib = zlib.decompressobj(wbits=31)  # gzip only
        self._pending = b""  # compressed bytes not yet inflated
        self._buffer = bytearray()
        self._body_done = False

    def readable(self) -> bool:
        return True

    def _take_raw(self) -> bool:
        chunk = self.pull()
        if not chunk:
            self._body_done = True
            return False
        self.raw_bytes += len(chunk)
        if self.raw_bytes > self.rules.max_bytes:
            raise ArchiveRefused("size", f"the archive is larger than {_mib(self.rules.max_bytes)}", 413)
        self.sha.update(chunk)
        if self.sink is not None:
            self.sink.write(chunk)
        self._pending += chunk
        return True

    def _inflate(self, wanted: int) -> None:
        while len(self._buffer) < wanted:
            if not self._pending and not self._zlib.unconsumed_tail and (self._zlib.eof or not self._take_raw()):
                return
            data = self._zlib.unconsumed_tail or self._pending
            from_pending = not self._zlib.unconsumed_tail
            if from_pending:
                self._pending = b""
            try:
                out = self._zlib.decompress(data, _CHUNK)
            except zlib.error:
                raise ArchiveRefused("format", "not a gzip-compressed tar archive (tar czf)") from None
            self.inflated += len(out)
            if self.inflated > self.rules.max_stream:
                raise ArchiveRefused("unpacked", f"the archive unpacks to more than {_mib(self.rules.max_unpacked)}")
            self._buffer += out
            if self._zlib.eof:
                # One gzip stream and nothing after it: gzip readers go on into a second stream, which the
                # unpacking would then read unchecked.
                if self._zlib.unused_data or self._pending:
                    raise ArchiveRefused("format", "data after the end of the gzip stream (one .tar.gz only)")
                return

    def readinto(self, target: bytearray | memoryview) -> int:  # type: ignore[override]
        self._inflate(len(target))
        n = min(len(target), len(self._buffer))
        target[:n] = self._buffer[:n]
        del self._buffer[:n]
        return n

    def drain(self) -> None:
        """Read the rest of the body (after the tar's end): counted, hashed and kept like the rest. The rest of
        the gzip stream is inflated (and counted against the limits) to its end, and nothing may follow it."""
        while not self._zlib.eof:
            self._buffer.clear()  # the tar's padding after its end marker: counted, not kept
            self._inflate(_CHUNK)
            if not self._zlib.eof and not self._buffer:
                return  # the body ended inside the gzip stream: tarfile already read the whole tar
        self._buffer.clear()
        while not self._body_done and self._take_raw():
            if self._pending:
                raise ArchiveRefused("format", "data after the end of the gzip stream (one .tar.gz only)")


def _check_member(member: tarfile.TarInfo) -> None:
    name = member.name
    path = PurePosixPath(name)
    if name.startswith("/") or path.is_absolute():
        raise ArchiveRefused("path", f"{name!r} is an absolute path")
    if ".." in path.parts:
        raise ArchiveRefused("path", f"{name!r} leads out of the folder ('..')")
    if "\\" in name or any(ord(c) < 32 for c in name):
        raise ArchiveRefused("path", f"{name!r} is not a plain path")
    if member.issym() or member.islnk():
        raise ArchiveRefused("type", f"{name!r} is a link; only plain files and folders are taken")
    if member.ischr() or member.isblk() or member.isfifo():
        raise ArchiveRefused("type", f"{name!r} is a device or a pipe; only plain files and folders are taken")
    if not (member.isreg() or member.isdir()) or member.sparse is not None:
        raise ArchiveRefused("type", f"{name!r} is not a plain file or folder")


def read_archive(pull: Callable[[], bytes], rules: ArchiveRules, sink: BinaryIO | None = None) -> Received:
    """Check the archive ``pull`` hands over (chunks, then b''), copying its bytes to ``sink``; raises
    ``ArchiveRefused`` at the first rule broken, having read no further."""
    stream = _Inflating(pull, rules, sink)
    files = unpacked = 0
    try:
        with tarfile.open(fileobj=io.BufferedReader(stream, _CHUNK), mode="r|") as tar:
            for member in tar:
                _check_member(member)
                files += 1
                if files > rules.max_files:
                    raise ArchiveRefused("files", f"the archive holds more than {rules.max_files} files and folders")
                unpacked += member.size
                if unpacked > rules.max_unpacked:
                    raise ArchiveRefused("unpacked", f"the archive unpacks to more than {_mib(rules.max_unpacked)}")
    except tarfile.TarError as error:
        if stream.raw_bytes == 0:
            raise ArchiveRefused("format", "the body is empty: send the bot's folder as a .tar.gz") from None
        raise ArchiveRefused("format", f"not a readable tar archive: {error}") from None
    except EOFError:
        raise ArchiveRefused("format", "the archive ends before its end (truncated)") from None
    except (ValueError, OverflowError, UnicodeError):
        # tarfile's own parsers raise these for headers it cannot read (a malformed sparse or PAX header).
        raise ArchiveRefused("format", "not a readable tar archive (a header tarfile cannot parse)") from None
    if files == 0:
        raise ArchiveRefused("format", "the archive holds no files")
    stream.drain()
    return Received(stream.sha.hexdigest(), stream.raw_bytes, files, unpacked)


def file_puller(handle: BinaryIO) -> Callable[[], bytes]:
    return lambda: handle.read(_CHUNK)


def extract(archive: Path, folder: Path, rules: ArchiveRules) -> Received:
    """Unpack ``archive`` into the new folder ``folder``, checked again by the same rules first (the file was
    checked on arrival, but unpacking trusts nothing), then by ``tarfile``'s ``data`` filter."""
    with archive.open("rb") as handle:
        received = read_archive(file_puller(handle), rules)
    folder.mkdir(mode=0o700, parents=True)
    with tarfile.open(archive, mode="r:gz") as tar:
        tar.extractall(folder, filter="data")
    return received


def _excluded(name: str) -> bool:
    return name in EXCLUDED or name.endswith(_EXCLUDED_SUFFIXES)


def pack(folder: Path) -> bytes:
    """``folder`` as a deterministic tar.gz (see the module), without ``EXCLUDED`` names. Raises ``ValueError``
    naming a link or a special file inside, which the server would refuse."""
    folder = folder.resolve()
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for root, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not _excluded(d))
            base = Path(root)
            for name in sorted(dirs) + sorted(n for n in names if not _excluded(n)):
                path = base / name
                info = path.lstat()
                relative = path.relative_to(folder).as_posix()
                if stat.S_ISLNK(info.st_mode):
                    raise ValueError(f"{relative} is a link; the server takes plain files and folders only")
                if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
                    raise ValueError(f"{relative} is not a plain file or folder")
                entry = tarfile.TarInfo(relative)
                entry.mtime, entry.uid, entry.gid, entry.uname, entry.gname = 0, 0, 0, "", ""
                if stat.S_ISDIR(info.st_mode):
                    entry.type, entry.mode = tarfile.DIRTYPE, 0o755
                    tar.addfile(entry)
                else:
                    entry.size, entry.mode = info.st_size, 0o755 if info.st_mode & 0o111 else 0o644
                    with path.open("rb") as handle:
                        tar.addfile(entry, handle)
    return buffer.getvalue()
