"""``build_bot``: the five kits build in the sandbox, a broken kit names its first error's file and line, and hostile
builds are contained, each saying so in its log or its reason (arena/isolation/builds/build.py)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import time
import uuid
from pathlib import Path

import pytest
from process_support import running_with

from arena.isolation.builds.build import BuildLimits, SandboxUnavailable, build_bot
from arena.isolation.sandbox import bubblewrap as sandbox
from arena.kits import new_bot
from arena.kits.toolchains import missing_toolchain
from arena.limits import SandboxMode

#: A first build of the C++, Rust or Java kit on a busy machine (tests/conftest.py gives kit tests as long).
KIT_TIMEOUT = 1200
#: Where each kit's build puts what run.sh starts.
BUILT = {
    "python": "bot.py",
    "javascript": "src/main.js",
    "cpp": "build/bot",
    "rust": "target/release/bot",
    "java": "build/classes/bot/Main.class",
}
#: A line that breaks each kit, the file it goes in and the line it becomes there (what the first error must name).
BROKEN = {
    "python": ("strategy.py", 16, "def broken(:"),
    "javascript": ("src/strategy.js", 12, "const broken = ;"),
    "cpp": ("src/strategy.cpp", 15, "int broken = undefined_name;"),
    "rust": ("src/strategy.rs", 13, "fn broken() -> i32 { undefined_name }"),
    "java": ("src/main/java/bot/Strategy.java", 16, "    int broken = undefined_name;"),
}
#: What each toolchain says of that line, in the first error's message.
SAYS = {
    "python": "SyntaxError",
    "javascript": "SyntaxError",
    "cpp": "undefined_name",
    "rust": "E0425",
    "java": "cannot find symbol",
}


def _kit(language: str, folder: Path) -> Path:
    reason = missing_toolchain(language)
    if reason:
        pytest.skip(reason)
    new_bot("kit", language, folder)
    return folder


def _script(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "build.sh").write_text("#!/bin/sh\n" + body)
    (folder / "build.sh").chmod(0o755)
    return folder


def _gone(tag: str, within: float = 10.0) -> bool:
    """Whether every process of ``tag`` is gone (killed processes take a moment to be reaped on a busy machine)."""
    deadline = time.monotonic() + within
    while running_with(tag):
        if time.monotonic() > deadline:
            for pid in running_with(tag):  # do not leave them to the next test
                os.kill(pid, signal.SIGKILL)
            return False
        time.sleep(0.05)
    return True


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.kits
@pytest.mark.timeout(KIT_TIMEOUT)
@pytest.mark.parametrize("language", sorted(BUILT))
def test_each_kit_builds_in_the_sandbox(language: str, tmp_path: Path) -> None:
    folder = _kit(language, tmp_path / "bot")
    log_path = tmp_path / "logs" / "build.log"
    result = build_bot(folder, sandbox=SandboxMode.REQUIRE, log_path=log_path)
    assert result.ok, result.log
    assert (result.reason, result.first_error, result.sandboxed, result.built) == ("", None, True, True)
    assert (folder / BUILT[language]).is_file()
    assert "in the sandbox" in result.log.splitlines()[0]
    assert result.log.splitlines()[-1].startswith("arena: built in ")
    assert log_path.read_text() == result.log
    assert result.summary().startswith("built in ")


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.kits
@pytest.mark.timeout(KIT_TIMEOUT)
@pytest.mark.parametrize("language", sorted(BROKEN))
def test_a_broken_kit_names_the_file_and_line_of_its_first_error(language: str, tmp_path: Path) -> None:
    folder = _kit(language, tmp_path / "bot")
    name, line, text = BROKEN[language]
    lines = (folder / name).read_text().splitlines(keepends=True)
    lines.insert(line - 1, text + "\n")
    (folder / name).write_text("".join(lines))
    result = build_bot(folder)
    assert not result.ok
    assert result.reason.startswith("exit "), result.reason
    error = result.first_error
    assert error is not None, result.log
    assert (error.file, error.line) == (name, line), result.log
    assert SAYS[language] in error.message
    assert str(folder) not in error.message
    assert str(error).startswith(f"{name}:{line}: ")
    assert result.summary() == f"{result.reason}; {error}"


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_build_script_runs_by_its_own_interpreter_line_or_with_sh(tmp_path: Path) -> None:
    folder = _script(tmp_path / "bash", "")
    (folder / "build.sh").write_text("#!/bin/bash\n[[ -n $BASH_VERSION ]] && echo bash-ok\n")
    result = build_bot(folder)
    assert result.ok and "bash-ok" in result.log, result.log
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "build.sh").write_text("echo sh-ok\n")  # not executable
    result = build_bot(plain)
    assert result.ok and "sh-ok" in result.log, result.log


def test_a_folder_without_build_script_needs_no_build(tmp_path: Path) -> None:
    result = build_bot(tmp_path)
    assert (result.ok, result.built, result.log, result.reason) == (True, False, "", "")
    assert result.summary() == "nothing to build"


def test_require_on_a_machine_without_the_sandbox_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "unavailable", lambda: "bubblewrap (bwrap) is not installed")
    _script(tmp_path, "touch built\n")
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        build_bot(tmp_path, sandbox=SandboxMode.REQUIRE)
    assert not (tmp_path / "built").exists()


def test_off_builds_outside_the_sandbox_and_says_so(tmp_path: Path) -> None:
    folder = _script(tmp_path / "bot", 'echo "$HOME" > home.txt\nexit 3\n')
    result = build_bot(folder, sandbox=SandboxMode.OFF)
    assert (result.ok, result.reason, result.sandboxed) == (False, "exit 3", False)
    assert "OUTSIDE the sandbox" in result.log.splitlines()[0]
    assert (folder / "home.txt").read_text().strip() == os.path.expanduser("~")


@pytest.mark.slow
@pytest.mark.sandbox
def test_the_home_folder_is_never_a_bot_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = _script(tmp_path / "home", "touch built\n")
    monkeypatch.setenv("HOME", str(home))
    result = build_bot(home)
    reason = f"cannot build in the sandbox: {home} is the home folder; give the bot a folder of its own"
    assert (result.ok, result.reason) == (False, reason)
    assert not (home / "built").exists()


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_folder_holding_a_results_store_is_not_built(tmp_path: Path) -> None:
    from arena.results.store import Store

    folder = _script(tmp_path / "cup", "touch built\n")
    with Store(folder / "cup.db"):
        pass
    result = build_bot(folder, log_path=tmp_path / "cup.log")
    assert not result.ok and "holds the arena's own files (a results store)" in result.reason
    assert not (folder / "built").exists()
    # The log says it without the machine's paths (the folder is ``.`` there); the organizer's reason names it.
    assert (tmp_path / "cup.log").read_text() == result.log == f"arena: {result.reason.replace(str(folder), '.')}\n"
    assert str(folder) in result.reason and str(tmp_path) not in result.log


# Hostile builds: each contained, and the log or the reason says what happened.


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_build_cannot_reach_the_network(tmp_path: Path) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        port = server.getsockname()[1]
        folder = _script(
            tmp_path / "bot",
            "python3 - <<'EOF'\nimport socket\n"
            f"socket.create_connection(('127.0.0.1', {port}), timeout=5)\nprint('reached the arena')\nEOF\n"
            "python3 -c \"import socket; socket.getaddrinfo('pypi.org', 443)\"\n",
        )
        result = build_bot(folder)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody knocked
    assert not result.ok
    assert "reached the arena" not in result.log
    assert "ConnectionRefusedError" in result.log or "Network is unreachable" in result.log, result.log
    assert "socket.gaierror" in result.log
    assert "no network" in result.log.splitlines()[0]


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_build_cannot_read_the_home_folder_or_other_files(tmp_path: Path) -> None:
    secret = uuid.uuid4().hex
    in_home = Path.home() / f".arena-build-marker-{secret[:8]}"
    beside = tmp_path / "marker.txt"
    beside.write_text(secret)
    in_home.write_text(secret)
    try:
        folder = _script(tmp_path / "bot", f"cat '{in_home}'\ncat '{beside}'\nls -a ~\ncat /etc/shadow\necho done\n")
        result = build_bot(folder)
    finally:
        in_home.unlink()
    assert result.ok, result.log
    assert secret not in result.log
    assert result.log.count("No such file or directory") == 3, result.log
    assert in_home.name not in result.log.splitlines()  # ls ~ lists the build's own HOME


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_build_cannot_write_outside_its_folder(tmp_path: Path) -> None:
    sibling = tmp_path / "sibling.txt"
    home_file = Path.home() / f".arena-build-written-{uuid.uuid4().hex[:8]}"
    tmp_file = Path("/tmp") / f"arena-build-written-{uuid.uuid4().hex[:8]}"
    folder = _script(
        tmp_path / "bot",
        f"echo x > ../escaped.txt\necho x > '{sibling}'\necho x > '{home_file}'\necho x > '{tmp_file}'\n"
        "echo x > /usr/arena-escaped\necho ok > built.txt\n",
    )
    result = build_bot(folder)
    outside = (tmp_path / "escaped.txt", sibling, home_file, tmp_file, Path("/usr/arena-escaped"))
    written = [p for p in outside if p.exists()]
    for path in written:
        path.unlink()
    assert written == []
    assert (folder / "built.txt").read_text() == "ok\n"  # its own folder is writable
    assert result.ok, result.log
    # The home folder and /usr are read-only; /tmp (and the bot folder's parents there) is the build's own, a
    # private memory folder: those writes succeed inside and vanish with it.
    assert result.log.count("Read-only file system") == 2, result.log


@pytest.mark.slow
@pytest.mark.sandbox
def test_processes_a_build_leaves_running_are_killed_and_named(tmp_path: Path) -> None:
    tag = f"98{uuid.uuid4().int % 10**6:06d}"
    folder = _script(
        tmp_path / "bot",
        f"sleep {tag} &\nsetsid sh -c 'sleep {tag}1 & sleep {tag}2' > /dev/null 2>&1 &\n"
        f"(sleep {tag}3 &) \necho started\n",
    )
    result = build_bot(folder)
    assert result.ok, result.log
    assert _gone(tag)
    note = next(line for line in result.log.splitlines() if "exited leaving" in line)
    assert note.startswith("arena: ./build.sh exited leaving ") and "running, killed: " in note


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_build_that_runs_forever_is_stopped(tmp_path: Path) -> None:
    tag = f"97{uuid.uuid4().int % 10**6:06d}"
    folder = _script(tmp_path / "bot", f"echo waiting\nsleep {tag} &\nwhile :; do :; done\n")
    result = build_bot(folder, limits=BuildLimits(seconds=2))
    assert (result.ok, result.reason, result.first_error) == (False, "timed out after 2 s", None)
    assert "arena: the build was stopped: timed out after 2 s" in result.log
    assert "waiting" in result.log
    assert _gone(tag)


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_build_that_floods_its_log_is_cut_and_stopped(tmp_path: Path) -> None:
    folder = _script(tmp_path / "bot", "yes flood\n")
    log_path = tmp_path / "build.log"
    result = build_bot(folder, limits=BuildLimits(log_bytes=64 * 1024), log_path=log_path)
    assert (result.ok, result.reason) == (False, "log cut at 64 kB")
    floods = result.log.count("flood\n")
    assert 64 * 1024 // 6 - 2 <= floods <= 64 * 1024 // 6
    assert result.log.splitlines()[-1] == "arena: the build was stopped: log cut at 64 kB"
    assert log_path.stat().st_size < 65 * 1024


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_build_that_swells_is_stopped_for_its_memory(tmp_path: Path) -> None:
    folder = _script(tmp_path / "bot", "python3 -c 'b = bytearray(1 << 30); b[::4096] = b\"x\" * (1 << 18)'\n")
    result = build_bot(folder, limits=BuildLimits(memory_bytes=128 * 1024 * 1024))
    assert not result.ok
    assert result.reason == "out of memory (more than 128 MB)" or "MemoryError" in result.log, result.log


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_fork_bomb_meets_the_process_limit(tmp_path: Path) -> None:
    tag = f"96{uuid.uuid4().int % 10**6:06d}"
    folder = _script(tmp_path / "bot", f"for i in $(seq 1 60); do sleep {tag} & done\nwait\n")
    result = build_bot(folder, limits=BuildLimits(processes=16, seconds=20))
    assert "Cannot fork" in result.log or "Resource temporarily unavailable" in result.log, result.log
    assert _gone(tag)


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_build_cannot_fill_the_disk(tmp_path: Path) -> None:
    big = _script(tmp_path / "big", "head -c 2000000 /dev/zero > big.bin\n")
    result = build_bot(big, limits=BuildLimits(file_bytes=1024 * 1024))
    assert not result.ok and "File too large" in result.log, result.log
    assert (big / "big.bin").stat().st_size <= 1024 * 1024
    many = _script(tmp_path / "many", "i=0\nwhile :; do i=$((i+1)); head -c 100000 /dev/zero > f$i.bin; done\n")
    result = build_bot(many, limits=BuildLimits(disk_bytes=2 * 1024 * 1024, seconds=60))
    assert (result.ok, result.reason) == (False, "wrote more than 2 MB into its folder")
    shutil.rmtree(many)
