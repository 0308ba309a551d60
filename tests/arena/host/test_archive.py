"""The archive rules (arena/host/archive.py): every hostile archive refused with its rule, as it streams in, having
read no further than needed; a bot's folder packed deterministically and read back whole."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.host.archive import ArchiveRefused, ArchiveRules, extract, pack, read_archive
from arena.kits.new_bot import new_bot

RULES = ArchiveRules(max_bytes=1024 * 1024, max_files=100, max_unpacked=4 * 1024 * 1024)


class Counting:
    """A body handed over in chunks, counting the bytes the reader took."""

    def __init__(self, data: bytes, size: int = 4096) -> None:
        self.data, self.size, self.taken = data, size, 0

    def __call__(self) -> bytes:
        chunk = self.data[self.taken : self.taken + self.size]
        self.taken += len(chunk)
        return chunk


def tar_gz(add: Callable[[tarfile.TarFile], None], level: int = 9) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=level) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        add(tar)
    return buffer.getvalue()


def member(
    name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"", link: str = ""
) -> Callable[[tarfile.TarFile], None]:
    def add(tar: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.type, info.linkname, info.size = kind, link, len(data) if kind == tarfile.REGTYPE else 0
        tar.addfile(info, io.BytesIO(data))

    return add


def refused(data: bytes, rules: ArchiveRules = RULES) -> tuple[ArchiveRefused, Counting]:
    body = Counting(data)
    with pytest.raises(ArchiveRefused) as caught:
        read_archive(body, rules)
    return caught.value, body


@pytest.mark.parametrize(
    ("add", "rule", "words"),
    [
        (member("../outside.txt", data=b"x"), "path", "leads out"),
        (member("bot/../../outside.txt", data=b"x"), "path", "leads out"),
        (member("/etc/cron.d/evil", data=b"x"), "path", "absolute"),
        (member("link", tarfile.SYMTYPE, link="/etc/passwd"), "type", "link"),
        (member("hard", tarfile.LNKTYPE, link="/home/user/.ssh/id_rsa"), "type", "link"),
        (member("dev", tarfile.CHRTYPE), "type", "device"),
        (member("fifo", tarfile.FIFOTYPE), "type", "pipe"),
    ],
)
def test_a_hostile_member_is_refused_naming_its_rule(
    add: Callable[[tarfile.TarFile], None], rule: str, words: str
) -> None:
    error, _ = refused(tar_gz(add))
    assert error.rule == rule
    assert str(error).startswith(f"{rule}: ") and words in str(error)
    assert "\n" not in str(error)


def test_a_zip_bomb_is_stopped_at_the_limit_without_inflating_it() -> None:
    """300 MiB of zeros in one member, some hundreds of KiB compressed: refused from its header, the first
    chunk of the body read."""

    class Zeros(io.RawIOBase):
        left = 300 * 1024 * 1024

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
            n = min(len(buffer), self.left)
            buffer[:n] = bytes(n)
            self.left -= n
            return n

    def add(tar: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("bomb.bin")
        info.size = Zeros.left
        tar.addfile(info, io.BufferedReader(Zeros()))

    bomb = tar_gz(add, level=1)
    error, body = refused(bomb, ArchiveRules(max_bytes=len(bomb) + 1, max_files=10, max_unpacked=64 * 1024 * 1024))
    assert error.rule == "unpacked"
    assert body.taken < 64 * 1024, f"read {body.taken} of {len(bomb)} bytes before refusing"


def test_a_bomb_of_headers_is_stopped_by_the_decompressed_count() -> None:
    """A pax header claiming gigabytes cannot make the reader inflate them: the stream itself is counted."""
    rules = ArchiveRules(max_bytes=50 * 1024 * 1024, max_files=10, max_unpacked=1024 * 1024)
    plain = gzip.compress(b"\0" * 512 * 3 + b"A" * (8 * 1024 * 1024), compresslevel=1)
    error, _ = refused(plain, rules)
    assert error.rule in ("unpacked", "format")


def test_ten_thousand_files_are_refused_at_the_limit() -> None:
    def add(tar: tarfile.TarFile) -> None:
        for n in range(10_000):
            member(f"f{n}.txt", data=b"x")(tar)

    archive = tar_gz(add)
    error, body = refused(archive, ArchiveRules(max_bytes=10**8, max_files=2000, max_unpacked=10**8))
    assert error.rule == "files" and "2000" in str(error)
    assert body.taken < len(archive), "the reader went on to the end"


def test_the_size_limit_counts_the_bytes_read() -> None:
    noise = bytes(range(256)) * 8192  # 2 MiB that gzip barely shrinks
    archive = tar_gz(member("noise.bin", data=noise), level=0)
    error, body = refused(archive, ArchiveRules(max_bytes=1024 * 1024, max_files=10, max_unpacked=10**8))
    assert error.rule == "size" and error.status == 413
    assert body.taken <= 1024 * 1024 + 4096


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"not an archive at all" * 20, "gzip"),
        (gzip.compress(b"plain text, not a tar" * 40, mtime=0), "tar"),
        (b"", "empty"),
    ],
    ids=["not-gzip", "gzip-not-tar", "empty"],  # a test id must not hold bytes that differ between xdist workers
)
def test_what_is_not_a_tar_gz_is_refused(data: bytes, words: str) -> None:
    error, _ = refused(data)
    assert error.rule == "format"
    assert words in str(error) or "no files" in str(error) or "truncated" in str(error)


def test_a_truncated_archive_is_refused(tmp_path: Path) -> None:
    bot = new_bot("kitbot", "python", tmp_path / "kitbot").folder
    whole = pack(bot)
    error, _ = refused(whole[: len(whole) // 2])
    assert error.rule == "format"


def test_the_python_kit_packs_the_same_twice_and_unpacks_whole(tmp_path: Path) -> None:
    bot = new_bot("kitbot", "python", tmp_path / "kitbot").folder
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"compiled")
    (bot / ".git").mkdir()
    (bot / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    first, second = pack(bot), pack(bot)
    assert first == second, "packing is not deterministic: the same folder would be two submissions"
    received = read_archive(Counting(first), RULES)
    archive = tmp_path / "kit.tar.gz"
    archive.write_bytes(first)
    out = tmp_path / "out"
    extract(archive, out, RULES)
    sent = sorted(
        p.relative_to(bot).as_posix() for p in bot.rglob("*") if "__pycache__" not in p.parts and ".git" not in p.parts
    )
    got = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    assert got == sent and len(got) == received.files >= 9
    assert (out / "run.sh").stat().st_mode & 0o100, "run.sh lost its executable bit"
    assert (out / "bot.py").read_bytes() == (bot / "bot.py").read_bytes()


def test_pack_refuses_a_link_inside(tmp_path: Path) -> None:
    bot = new_bot("kitbot", "python", tmp_path / "kitbot").folder
    (bot / "secrets").symlink_to("/etc/passwd")
    with pytest.raises(ValueError, match="secrets is a link"):
        pack(bot)


_PART = st.sampled_from(["a", "b.py", "..", ".", "src", "x y", "ü"])


@given(parts=st.lists(_PART, min_size=1, max_size=4), absolute=st.booleans())
def test_a_path_is_taken_exactly_when_it_stays_inside(parts: list[str], absolute: bool) -> None:
    name = ("/" if absolute else "") + "/".join(parts)
    archive = tar_gz(member(name, data=b"x"))
    stays = not absolute and ".." not in parts
    try:
        read_archive(Counting(archive), RULES)
        taken = True
    except ArchiveRefused as error:
        taken = False
        assert error.rule == "path", str(error)
    assert taken == stays, name


def _tar_without_end(name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"", link: str = "") -> bytes:
    """One member's header and data, without the two zero blocks that end a tar: what a second gzip stream
    glued behind the first would carry on from."""
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, link, len(data) if kind == tarfile.REGTYPE else 0
    block = info.tobuf(tarfile.GNU_FORMAT)
    padding = b"\0" * (-len(data) % tarfile.BLOCKSIZE)
    return block + data + padding


@pytest.mark.parametrize("gap", [b"", b"x" * 3])
def test_a_second_gzip_stream_behind_the_first_is_refused(gap: bytes) -> None:
    # gzip readers read every stream of a file, tarfile's included: what follows the first stream would be
    # unpacked unchecked, so anything after it (another stream, or stray bytes) is refused.
    first = gzip.compress(_tar_without_end("run.sh", data=b"#!/bin/sh\n"), mtime=0)
    second = gzip.compress(tar_gz(member("link", tarfile.SYMTYPE, link="/etc/passwd")), mtime=0)
    error, _ = refused(first + gap + second)
    assert error.rule == "format" and "after the end of the gzip stream" in str(error)


def test_a_header_tarfile_cannot_parse_is_a_refusal_not_a_crash() -> None:
    info = tarfile.TarInfo("bot.py")
    info.pax_headers = {"GNU.sparse.map": "x,y", "GNU.sparse.size": "10"}
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        tar.addfile(info, io.BytesIO(b""))
    error, _ = refused(buffer.getvalue())
    assert error.rule in {"format", "type"}


def test_an_archive_accepted_is_the_archive_unpacked(tmp_path: Path) -> None:
    archive = tmp_path / "bot.tar.gz"
    archive.write_bytes(tar_gz(lambda tar: (member("a.py", data=b"1")(tar), member("b/c.py", data=b"22")(tar))))
    received = extract(archive, tmp_path / "out", RULES)
    unpacked = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert unpacked == ["a.py", "b/c.py"]
    assert received.files == 2
