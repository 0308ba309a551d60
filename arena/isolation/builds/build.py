"""Building a bot's folder with its ``build.sh`` inside the sandbox: a stranger's build script is code from a stranger.

A kit from ``arena new-bot`` has a ``build.sh`` (a folder without one needs no build). ``build_bot`` runs it in the
bot's bubblewrap sandbox (``arena.isolation.sandbox.bubblewrap``): no network, the bot's own folder writable and
nothing else of the machine's files visible beyond the toolchains (``/usr``, where the JDK, node, g++ and Debian's
packaged Rust crates live; the JDK's settings in ``/etc``; rustup's toolchain when ``cargo`` is rustup's; the
Python interpreter ``python3`` starts), a private ``/tmp`` that is also ``HOME`` and ``CARGO_HOME``, and limits on
time, memory, processes, file size and output. Every process of the build is killed at the end (``runner`` takes
down what ``build.sh`` leaves running, and says so in the log), and the log is kept. A failed build says why in one
line (``exit 2``, ``timed out after 600 s``, ``log cut at 1 MB``) and names its first error with its file and line
(``errors``). What each limit protects: ``BuildLimits``, docs/isolation.md.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.isolation.builds.errors import ARENA_PREFIX, BuildError, first_error
from arena.isolation.builds.hidepaths import PathMask, StreamMask
from arena.isolation.sandbox.botfiles import ProgramError, broad_folder, hidden, resolve_program
from arena.isolation.sandbox.bubblewrap import (
    LAUNCHER,
    Sandbox,
    SandboxUnavailable,
    cgroup_candidates,
    minimal_environment,
    remove_folder,
    use_sandbox,
)
from arena.limits import SandboxMode

__all__ = [
    "BUILD_SCRIPT",
    "DEFAULT_BUILD_LIMITS",
    "BuildError",
    "BuildLimits",
    "BuildResult",
    "SandboxUnavailable",
    "build_bot",
    "size_text",
]

#: The script a bot's folder builds with; a folder without one needs no build.
BUILD_SCRIPT = "build.sh"
#: The first process of a build (run by path, standard library only).
RUNNER = Path(__file__).with_name("runner.py")
#: The programs a build may start, looked up as the arena finds them (a version manager's shim resolved) so that the
#: sandbox shows their installation: the kits' toolchains and the shell.
TOOLCHAIN_PROGRAMS = ("sh", "make", "g++", "c++", "gcc", "cc", "python3", "node", "javac", "java", "cargo", "rustc")
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: The JDK's settings: Debian's JDK links its ``conf`` files there.
_JDK_SETTINGS = "/etc/java-*"
_RUSTUP_TIME = 20.0
#: How long the end of a killed build may take to reach the log (its last processes dying).
_DRAIN_TIME = 5.0
_MB = 1024 * 1024
_GB = 1024 * _MB


def size_text(size: int) -> str:
    """``1 MB``, ``2 GB``, ``512 kB``: a limit as a person reads it (powers of 1024)."""
    for unit, scale in (("GB", _GB), ("MB", _MB), ("kB", 1024)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"


@dataclass(frozen=True)
class BuildLimits:
    """What a build may use. Each limit protects the machine (and the builds after it) from one kind of build."""

    #: Wall-clock seconds for the whole build: protects the queue from a build that never ends (a loop, a wait on
    #: the network it does not have). A Rust kit's first build on a busy 2-core machine takes about a minute.
    seconds: float = 600.0
    #: Memory of all the build's processes together (a memory cgroup, where the machine has one; else each
    #: process's data): protects the machine's other work from a build that swells (a template explosion, a JVM).
    memory_bytes: int = 4 * _GB
    #: Processes and threads at once: protects the machine from a fork bomb (a compiler's threads count too).
    processes: int = 512
    #: The log kept of the build's output (stdout and stderr together): protects the disk and the author's page
    #: from a build that floods its output; a build that prints more is stopped.
    log_bytes: int = 1 * _MB
    #: The largest file the build may write: protects the disk from a build that writes one endless file. The
    #: private /tmp (and HOME) is memory, and counts in ``memory_bytes``.
    file_bytes: int = 1 * _GB
    #: How much the bot's folder may grow: protects the disk from a build that writes many files, checked while it
    #: runs (every ``seconds`` / 100, at least each second) and at its end; a build past it is stopped.
    disk_bytes: int = 2 * _GB

    def describe(self) -> str:
        return (
            f"{self.seconds:g} s, {size_text(self.memory_bytes)} of memory, {self.processes} processes, "
            f"{size_text(self.log_bytes)} of log, files up to {size_text(self.file_bytes)}, "
            f"{size_text(self.disk_bytes)} more in the folder"
        )


#: The limits of ``arena compete``'s builds and of the kits' tests.
DEFAULT_BUILD_LIMITS = BuildLimits()


@dataclass(frozen=True)
class BuildResult:
    """How a build went."""

    ok: bool
    #: "" when ok; else one line: ``exit 2``, ``timed out after 600 s``, ``log cut at 1 MB``.
    reason: str
    #: The first error a person should read, for a failed build whose log names one.
    first_error: BuildError | None
    #: The whole log (the arena's own lines start with ``arena: ``), at most ``limits.log_bytes`` of the build's.
    log: str
    seconds: float
    #: Whether the build ran in the sandbox.
    sandboxed: bool = True
    #: Whether the folder had a build script at all (a folder without one needs no build: ``ok``, empty log).
    built: bool = True

    def summary(self) -> str:
        """One line: ``built in 3.2 s``, or why it failed and its first error (``exit 1; src/a.cpp:3: ...``)."""
        if self.ok:
            return f"built in {self.seconds:.1f} s" if self.built else "nothing to build"
        return f"{self.reason}; {self.first_error}" if self.first_error is not None else self.reason


@functools.cache
def _rustup_toolchain() -> str | None:
    """The folder of the toolchain rustup's ``cargo`` runs (asked in ``/``: a bot's ``rust-toolchain.toml`` does not
    choose it, nor make rustup download one), or None when ``cargo`` is not rustup's."""
    cargo = shutil.which("cargo")
    if cargo is None or os.path.basename(os.path.realpath(cargo)) != "rustup":
        return None
    try:
        done = subprocess.run(
            [os.path.realpath(cargo), "which", "cargo"],
            cwd="/",
            capture_output=True,
            text=True,
            timeout=_RUSTUP_TIME,
            check=False,
            env={**os.environ, "RUSTUP_AUTO_INSTALL": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    real = os.path.realpath(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else ""
    return os.path.dirname(os.path.dirname(real)) if os.path.isfile(real) else None


@functools.cache
def toolchain_files() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a build's sandbox shows besides ``/usr`` (read-only) and the folders to put first on its ``PATH``."""
    readable: list[str] = [p for p in glob.glob(_JDK_SETTINGS) if os.path.isdir(p)]
    first: list[str] = []
    rust = _rustup_toolchain()
    if rust is not None:
        readable.append(rust)
        first.append(os.path.join(rust, "bin"))
    for name in TOOLCHAIN_PROGRAMS:
        if name in ("cargo", "rustc") and rust is not None:
            continue
        with contextlib.suppress(ProgramError, OSError):
            program = resolve_program([name], "/", _PATH + os.pathsep + os.environ.get("PATH", ""))
            readable += [p for p in program.readable if not p.startswith(("/usr/", "/bin/", "/sbin/", "/lib"))]
            first += [p for p in program.path_first if p not in first]
    return tuple(dict.fromkeys(readable)), tuple(first)


def _environment(sandboxed: bool, path_first: tuple[str, ...]) -> dict[str, str]:
    """The build's whole environment in the sandbox: the toolchains on ``PATH``, a private ``HOME`` and
    ``CARGO_HOME`` (cargo keeps nothing of the machine's), the locale, nothing of the arena's."""
    if not sandboxed:
        return dict(os.environ)  # the old way: the organizer's own environment, as a build they run themselves
    env = minimal_environment(home="/tmp")
    env["PATH"] = os.pathsep.join([*path_first, _PATH])
    env.update({"CARGO_HOME": "/tmp/.cargo", "TMPDIR": "/tmp", "CARGO_NET_OFFLINE": "true"})
    return env


def _folder_size(folder: Path) -> int:
    """Bytes the files under ``folder`` take on disk (links not followed)."""
    total = 0
    stack = [str(folder)]
    while stack:
        with contextlib.suppress(OSError), os.scandir(stack.pop()) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        total += entry.stat(follow_symlinks=False).st_blocks * 512
    return total


class _MemoryCgroup:
    """A memory cgroup around the whole build, where this machine lets the arena make one (as root): the limit of
    all its processes together, and the kernel's count of the processes it killed for memory."""

    def __init__(self, limit: int):
        self.folder: Path | None = None
        base = _memory_cgroup_base()
        if base is None:
            return
        folder = base / f"minesweeper-arena-build-{uuid.uuid4().hex[:12]}"
        try:
            folder.mkdir()
            if (folder / "memory.max").exists():
                (folder / "memory.max").write_text(str(limit))
                with contextlib.suppress(OSError):
                    (folder / "memory.swap.max").write_text("0")
            else:
                (folder / "memory.limit_in_bytes").write_text(str(limit))
                with contextlib.suppress(OSError):
                    (folder / "memory.memsw.limit_in_bytes").write_text(str(limit))
        except OSError:
            with contextlib.suppress(OSError):
                folder.rmdir()
            return
        self.folder = folder

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of the build for its memory."""
        if self.folder is None:
            return False
        for name in ("memory.events", "memory.oom_control"):
            with contextlib.suppress(OSError):
                for line in (self.folder / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and value.strip().isdigit() and int(value) > 0:
                        return True
        return False

    def release(self) -> None:
        if self.folder is not None:
            Sandbox.release(self.folder)
            self.folder = None


@functools.cache
def _memory_cgroup_base() -> Path | None:
    """This process's own memory cgroup (v1's memory hierarchy, or v2 with the controller on for its children),
    where each build gets a cgroup of its own (removed after it: nothing is left behind, even by a process that
    leaves through ``os._exit``), or None (not root, no cgroups)."""
    if not (hasattr(os, "geteuid") and os.geteuid() == 0):
        return None
    for base in cgroup_candidates("memory"):
        probe = base / f"minesweeper-arena-probe-{uuid.uuid4().hex[:12]}"
        try:
            probe.mkdir()
        except OSError:
            continue
        usable = (probe / "memory.max").exists() or (probe / "memory.limit_in_bytes").exists()
        remove_folder(probe)
        if usable:
            return base
    return None


class _Log:
    """The build's output as it comes, kept up to ``limit`` bytes of it (and written to ``path`` as it comes), with
    the arena's own lines besides; every line without this machine's paths (``mask``), before it is kept."""

    def __init__(self, limit: int, path: Path | None, mask: PathMask):
        self.limit = limit
        self.stream = StreamMask(mask)
        self.data = bytearray()
        #: Bytes of the build's own output kept (the arena's lines do not count).
        self.kept = 0
        self.cut = False
        self.file = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.file = open(path, "wb")  # noqa: SIM115  (closed by close())

    def note(self, text: str) -> None:
        """A line of the arena's own (never cut)."""
        self._write(self.stream.flush())
        line = self.stream.mask.bytes((ARENA_PREFIX + text + "\n").encode())
        if self.data and not self.data.endswith(b"\n"):
            line = b"\n" + line
        self._write(line)

    def add(self, chunk: bytes) -> None:
        room = self.limit - self.kept
        if len(chunk) > room:
            chunk = chunk[: max(room, 0)]
            self.cut = True
        self.kept += len(chunk)
        self._write(self.stream.feed(chunk))

    def _write(self, data: bytes) -> None:
        self.data += data
        if self.file is not None:
            self.file.write(data)
            self.file.flush()

    def close(self) -> None:
        self._write(self.stream.flush())
        if self.file is not None:
            self.file.close()

    def text(self) -> str:
        """What is kept so far (a line still coming included)."""
        self._write(self.stream.flush())
        return self.data.decode("utf-8", "replace")


def _fail(reason: str, log: str, started: float, sandboxed: bool) -> BuildResult:
    return BuildResult(False, reason, None, log, time.monotonic() - started, sandboxed)


def build_bot(
    folder: Path,
    *,
    limits: BuildLimits = DEFAULT_BUILD_LIMITS,
    sandbox: SandboxMode = SandboxMode.REQUIRE,
    log_path: Path | None = None,
    hide: Iterable[tuple[Path, str]] = (),
) -> BuildResult:
    """Run ``folder/build.sh`` in ``folder``, in the sandbox (``sandbox``: ``require`` the default, an error where
    this machine cannot make one; ``auto`` builds outside it there; ``off`` always outside, with the caller's
    rights, files and network), under ``limits``. The log goes to ``log_path`` as it comes, when given. Raises
    ``SandboxUnavailable`` for ``require`` on a machine without the sandbox; every other failure is the result's.
    The log holds no path of this machine (``hidepaths``): the folder's files by their relative names, the home,
    temporary and Python folders as tokens, and each ``(folder, token)`` of ``hide`` as its token."""
    started = time.monotonic()
    folder = Path(folder).expanduser().resolve()
    sandboxed = use_sandbox(sandbox)
    script = folder / BUILD_SCRIPT
    if not script.is_file():
        if log_path is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log_path.write_text("")
        return BuildResult(True, "", None, "", 0.0, sandboxed, built=False)
    broad = broad_folder(folder)
    # The build may write anywhere in its folder: one that holds a results store (the competition's, beside its
    # file, found by content) or another of the arena's files is not built.
    if sandboxed and broad is None and hidden().with_stores_in(str(folder)).inside(str(folder)):
        broad = f"{folder} holds the arena's own files (a results store)"
    log = _Log(limits.log_bytes, log_path, PathMask(folder, extra=hide))
    try:
        if sandboxed and broad is not None:
            reason = f"cannot build in the sandbox: {broad}; give the bot a folder of its own"
            log.note(reason)
            return _fail(reason, log.text(), started, True)
        return _run(folder, limits, sandboxed, log, started)
    finally:
        log.close()


def _run(folder: Path, limits: BuildLimits, sandboxed: bool, log: _Log, started: float) -> BuildResult:
    readable, path_first = toolchain_files() if sandboxed else ((), ())
    where = "in the sandbox (no network, only this folder writable)" if sandboxed else "OUTSIDE the sandbox"
    log.note(f"building {BUILD_SCRIPT} {where}: {limits.describe()}")
    memory = _MemoryCgroup(limits.memory_bytes)
    runner_options: dict[str, int] = {"file_bytes": limits.file_bytes}
    if memory.folder is None:
        runner_options["data_bytes"] = limits.memory_bytes
    # As its author runs it: by its own #! line (bash, say) when it is executable; else with sh.
    script = [f"./{BUILD_SCRIPT}"] if os.access(folder / BUILD_SCRIPT, os.X_OK) else ["/bin/sh", f"./{BUILD_SCRIPT}"]
    inner = [sys.executable, "-I", "-S", str(RUNNER), json.dumps(runner_options), "--", *script]
    cgroup = None
    if sandboxed:
        box = _BuildSandbox(limits, readable=[*readable, str(RUNNER)], writable=[str(folder)], cwd=str(folder))
        argv, cgroup = box.command(inner, {})
    else:
        argv = inner
    if memory.folder is not None:
        argv = [sys.executable, "-I", "-S", str(LAUNCHER), json.dumps({"cgroup": str(memory.folder)}), "--", *argv]
    size_before = _folder_size(folder)
    try:
        process = subprocess.Popen(
            argv,
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=_environment(sandboxed, path_first),
            start_new_session=True,
        )
    except OSError as error:
        memory.release()
        Sandbox.release(cgroup)
        log.note(f"cannot start the build: {error}")
        return _fail(f"cannot start the build: {error}", log.text(), started, sandboxed)
    try:
        stopped = _watch(process, folder, limits, log, size_before)
    finally:
        _kill(process)
        Sandbox.release(cgroup)
        out_of_memory = memory.out_of_memory()
        memory.release()
    code = process.returncode
    seconds = time.monotonic() - started
    if not stopped and out_of_memory:
        stopped = f"out of memory (more than {size_text(limits.memory_bytes)})"
    if not stopped and _folder_size(folder) - size_before > limits.disk_bytes:
        stopped = f"wrote more than {size_text(limits.disk_bytes)} into its folder"
    if stopped:
        log.note(f"the build was stopped: {stopped}")
        reason = stopped
    elif code != 0:
        reason = f"exit {code}" if code > 0 else f"killed by signal {-code} ({signal.Signals(-code).name})"
        log.note(f"{BUILD_SCRIPT} failed: {reason} after {seconds:.1f} s")
    else:
        log.note(f"built in {seconds:.1f} s")
        return BuildResult(True, "", None, log.text(), seconds, sandboxed)
    text = log.text()
    error = first_error(text, folder)
    if stopped and not stopped.startswith("log cut") and (error is None or error.file is None):
        error = None  # the reason is what to read: the log's last line is where the build was when it was stopped
    return BuildResult(False, reason, error, text, seconds, sandboxed)


def _watch(process: subprocess.Popen[bytes], folder: Path, limits: BuildLimits, log: _Log, size_before: int) -> str:
    """Read the build's output until it ends; why it was stopped, or "" when it ended by itself."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    deadline = time.monotonic() + limits.seconds
    every = max(1.0, limits.seconds / 100)
    next_check = time.monotonic() + every
    while True:
        now = time.monotonic()
        if now >= deadline:
            return f"timed out after {limits.seconds:g} s"
        if now >= next_check:
            next_check = now + every
            if _folder_size(folder) - size_before > limits.disk_bytes:
                return f"wrote more than {size_text(limits.disk_bytes)} into its folder"
        ready, _, _ = select.select([fd], [], [], min(deadline, next_check) - now)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        log.add(chunk)
        if log.cut:
            return f"log cut at {size_text(limits.log_bytes)}"
    try:
        process.wait(timeout=max(deadline - time.monotonic(), 0.1))
    except subprocess.TimeoutExpired:
        return f"timed out after {limits.seconds:g} s"
    return ""


def _kill(process: subprocess.Popen[bytes]) -> None:
    """End the build's session for good: the sandbox's namespace dies with it, and so does every process in it."""
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        process.wait(timeout=_DRAIN_TIME)
    if process.stdout is not None:
        process.stdout.close()


class _BuildSandbox(Sandbox):
    """The bot sandbox with a private /tmp capped in size (it is memory) and the build's process count."""

    def __init__(self, limits: BuildLimits, **kwargs: object):
        super().__init__(processes=limits.processes, **kwargs)  # type: ignore[arg-type]
        self.tmp_bytes = limits.memory_bytes

    def options(self) -> list[str]:
        options = super().options()
        index = options.index("--tmpfs")
        return [*options[:index], "--size", str(self.tmp_bytes), *options[index:]]
