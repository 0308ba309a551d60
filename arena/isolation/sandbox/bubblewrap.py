"""The Linux sandbox around an isolated bot: bubblewrap's command line, the probe, the process cap.

A sandboxed bot process (``arena.isolation.processes.bot_process``) runs as ``bwrap OPTIONS -- python -I -S launch.py
LIMITS -- COMMAND`` in namespaces of its own with a read-only view of only what it runs on; an arena
running as root also gives each sandbox a ``pids`` cgroup. What each mode protects against, and what it
does not: docs/isolation.md.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.metadata
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from arena.isolation.sandbox.botfiles import (
    Hidden,
    broad_folder,
    engine_bot_folder,
    hidden,
    plugin_folder,
    resolve_program,
    view,
)
from arena.limits import SandboxMode
from players.registry import plugin_path

__all__ = [
    "LAUNCHER",
    "Sandbox",
    "SandboxUnavailable",
    "bot_pid",
    "cache_dir",
    "engine_bot_files",
    "host_files",
    "minimal_environment",
    "unavailable",
    "use_sandbox",
]

#: The launcher that sets a bot's kernel limits and then ``exec``s it (``arena.isolation.processes.launch``).
LAUNCHER = Path(__file__).parents[1] / "processes" / "launch.py"
#: The project's own packages, which the arena's Python host imports (read-only in the sandbox).
_PACKAGES = ("arena", "engine", "players")
_SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: The few files of /etc a program needs to start (not the whole of /etc: it holds secrets).
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/alternatives")
_CGROUP_ROOT = Path("/sys/fs/cgroup")
_PROBE_TIME = 30.0
#: How long removing a bot's cgroup may wait for its killed processes to be gone.
_RELEASE_TIME = 5.0


class SandboxUnavailable(Exception):
    """``--sandbox require`` on a machine that cannot make the sandbox."""


def _realpaths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Existing absolute paths, each with its target when it is a symlink, without duplicates."""
    seen: dict[str, None] = {}
    for raw in paths:
        path = os.path.abspath(os.fspath(raw))
        if os.path.lexists(path):
            seen[path] = None
            real = os.path.realpath(path)
            if os.path.exists(real):
                seen[real] = None
    return list(seen)


def _outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` less those inside another of them (binding the parent shows them already)."""
    kept: list[str] = []
    for path in sorted(set(paths), key=len):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


def python_path() -> list[str]:
    """The folders on the arena's own ``PYTHONPATH`` (absolute, existing): code the user chose to make
    importable, so a bot may import from them too (read-only in the sandbox)."""
    entries = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    return [os.path.abspath(p) for p in entries if p and os.path.isdir(p)]


@functools.cache
def _python_files() -> tuple[str, ...]:
    """The interpreter, its standard library and installed packages, the folders on ``PYTHONPATH``
    and the project's packages."""
    import site

    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, sys.executable, *python_path()]
    with contextlib.suppress(AttributeError):  # old virtualenv's site module
        paths += site.getsitepackages()
    for name in _PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            paths += list(spec.submodule_search_locations)
    return tuple(p for p in _realpaths(paths) if p not in ("/", "/usr"))


@functools.cache
def _entry_point_files() -> tuple[str, ...]:
    """Where the installed plugins' top-level modules are (an editable install lives outside the
    packages folder), found without importing them."""
    from players.hookspecs import PROJECT

    paths: list[str] = []
    for entry in importlib.metadata.entry_points(group=PROJECT):
        top = entry.module.split(".")[0]
        with contextlib.suppress(ImportError, ValueError):
            spec = importlib.util.find_spec(top)
            if spec is not None:
                paths += list(spec.submodule_search_locations or ()) or [spec.origin or ""]
    return tuple(_realpaths(p for p in paths if p))


def host_files(plugin_files: Sequence[str], *, entry_points: bool) -> list[str]:
    """What the arena's Python host reads besides the interpreter: each plugin's folder (a bot is a
    folder: its helpers and data lie beside it), only the file where that folder is too broad to show
    (``botfiles.broad_folder``: the home folder, a system folder), and the installed plugins."""
    shown = []
    for plugin in plugin_files:
        path = Path(plugin_path(plugin)).expanduser().resolve()
        folder = plugin_folder(path)
        if broad_folder(folder) is None:
            shown.append(str(folder))
        elif path.is_dir():
            shown += [str(p) for p in (path / "__init__.py", path / "bot.py") if p.is_file()]
        else:
            shown.append(str(path))
    return [*shown, *(_entry_point_files() if entry_points else ())]


def command_files(command: Sequence[str], cwd: str | None = None) -> list[str]:
    """The files an engine bot's command names: its executable (looked up on ``PATH``) and every
    argument that is an existing path (a directory whole)."""
    base = cwd or os.getcwd()
    found = [shutil.which(command[0]) or ""] if command else []
    found += [os.path.join(base, arg) for arg in command if arg and os.path.exists(os.path.join(base, arg))]
    return [f for f in found if f]


def engine_bot_files(command: Sequence[str], cwd: str, folder: str | None = None) -> tuple[list[str], list[str]]:
    """What an engine bot's sandbox shows (the files its command names, its folder unless that is too
    broad, what its program needs to start: ``botfiles.resolve_program``) and the folders to put
    first on its ``PATH``. Raises ``ProgramError`` for a program that cannot run in the sandbox."""
    shown = command_files(command, cwd)
    own = engine_bot_folder(command, cwd, folder)
    if own is not None and broad_folder(own) is None:
        shown.append(str(own))
    program = resolve_program(command, cwd)
    return [*shown, *program.readable], program.path_first


def cache_dir(player: str) -> Path:
    """A writable folder of the sandboxed player's own for compiled-code caches (numba's): kept
    between runs, and never shared with the arena or another player, so nothing a bot writes there
    is loaded by anyone else."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path(os.path.expanduser("~")) / ".cache"
    return base / "minesweeper-arena" / "sandbox" / player


def seed_cache(cache: Path) -> int:
    """Copy the arena's own compiled code of the project's packages into a sandboxed player's cache
    folder, laid out as numba looks for it there (``NUMBA_CACHE_DIR``: one folder per source folder,
    ``<name>_<sha1 of its path>``), so that a bot need not compile again what the arena already has.
    Only files missing there or older than the arena's are copied; the bot's own compiles stay its
    own. Returns how many files were copied."""
    import numba
    from numba.core.caching import UserProvidedCacheLocator

    def subpath(source: Path) -> str:  # numba's own folder name for the kernels of the files in source
        return UserProvidedCacheLocator.get_suitable_cache_subpath(str(source / "__init__.py"))

    copied = 0
    for name in _PACKAGES:
        spec = importlib.util.find_spec(name)
        for root in (spec.submodule_search_locations or []) if spec else []:
            for source in [Path(root).resolve(), *(p.resolve() for p in Path(root).rglob("*") if p.is_dir())]:
                if source.name == "__pycache__":
                    continue
                own = source / "__pycache__"
                user = Path(numba.config.CACHE_DIR) / subpath(source) if numba.config.CACHE_DIR else None
                for folder in (own, user):
                    if folder is None or not folder.is_dir():
                        continue
                    for file in [*folder.glob("*.nbi"), *folder.glob("*.nbc")]:
                        target = cache / subpath(source) / file.name
                        with contextlib.suppress(OSError):
                            if not target.exists() or target.stat().st_mtime < file.stat().st_mtime:
                                target.parent.mkdir(parents=True, exist_ok=True)
                                shutil.copy2(file, target)
                                copied += 1
    return copied


def minimal_environment(extra: Mapping[str, str] | None = None, *, home: str | None = None) -> dict[str, str]:
    """A bot's whole environment: what a program needs to run, nothing of the arena's (no store
    path, no seed, no credentials). Python output unbuffered (a bot that forgets to flush still works)."""
    env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "PYTHONUNBUFFERED": "1"}
    for name in ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT"):
        if name in os.environ:
            env[name] = os.environ[name]
    env["HOME"] = home if home is not None else os.path.expanduser("~")
    env.update(extra or {})
    return env


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def cgroup_candidates(controller: str) -> list[Path]:
    """The folders of this process's own cgroups where a child cgroup with ``controller`` (``pids``,
    ``memory``) may be made: v1's hierarchy of that controller, or v2's unified one; in /proc's order."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    found: list[Path] = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            found.append(_CGROUP_ROOT / controller / path.lstrip("/"))
        elif controllers == "":
            found += [_CGROUP_ROOT / path.lstrip("/"), _CGROUP_ROOT / "unified" / path.lstrip("/")]
    return found


@functools.cache
def _pids_cgroup_base() -> Path | None:
    """A folder where this process may create ``pids`` cgroups (v1 hierarchy or v2 with the
    controller on), or None."""
    for base in cgroup_candidates("pids"):
        folder = base / f"minesweeper-arena-{os.getpid()}"
        try:
            folder.mkdir(exist_ok=True)
            if (folder / "pids.max").exists():
                atexit.register(remove_folder, folder)
                return folder
            folder.rmdir()
        except OSError:
            continue
    return None


def remove_folder(folder: Path) -> None:
    """Remove an empty folder (a cgroup's), if it still exists and is empty."""
    with contextlib.suppress(OSError):
        folder.rmdir()


def release_cgroups() -> None:
    """Remove this process's cgroup folder once its bots are gone (a pool worker leaves through
    ``os._exit``, which runs no ``atexit``); a later sandbox makes a new one."""
    if _pids_cgroup_base.cache_info().currsize:
        folder = _pids_cgroup_base()
        _pids_cgroup_base.cache_clear()
        if folder is not None:
            for child in [p for p in folder.iterdir() if p.is_dir()] if folder.is_dir() else []:
                Sandbox.release(child)
            remove_folder(folder)


class Sandbox:
    """Builds the sandboxed command of one bot process and cleans up after it."""

    def __init__(
        self,
        readable: Sequence[str] = (),
        writable: Sequence[str] = (),
        processes: int | None = 256,
        cwd: str = "/tmp",
        secret: Hidden | None = None,
    ):
        #: The working folder inside: the private /tmp, or the arena's (empty but for the bot's files,
        #: read-only) for an engine bot whose command names files relative to it.
        self.cwd = cwd
        #: The arena's files, hidden even inside the folders the bot sees (``arena.isolation.sandbox.botfiles``).
        self.secret = secret if secret is not None else hidden()
        self.readable = _outermost([*_python_files(), *_realpaths(readable), *_realpaths([LAUNCHER])])
        self.writable = [str(p) for p in writable]
        self.processes = processes
        self.bwrap = shutil.which("bwrap") or "bwrap"

    def command(self, command: Sequence[str], limits: Mapping[str, float | None]) -> tuple[list[str], Path | None]:
        """The argv that runs ``command`` sandboxed under ``limits`` (``launch.py``'s), and the
        cgroup it joins (to remove with ``release``), if any."""
        inner = {**limits, "processes": self.processes}
        argv = [self.bwrap, *self.options(), "--"]
        argv += [sys.executable, "-I", "-S", str(LAUNCHER), json.dumps(inner), "--", *command]
        cgroup = None
        base = _pids_cgroup_base() if _is_root() and self.processes else None
        if base is not None:
            cgroup = base / uuid.uuid4().hex[:12]
            try:
                cgroup.mkdir()
                (cgroup / "pids.max").write_text(str(self.processes))
            except OSError:
                cgroup = None
            else:
                outer = json.dumps({"cgroup": str(cgroup)})
                argv = [sys.executable, "-I", "-S", str(LAUNCHER), outer, "--", *argv]
        return argv, cgroup

    def options(self) -> list[str]:
        options = ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        # The private folders first: a file of the bot's under /tmp is bound on top of them.
        options += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
        options += ["--ro-bind", "/usr", "/usr"]
        for link in _SYSTEM_LINKS:
            if os.path.islink(link):
                options += ["--symlink", os.readlink(link), link]
            elif os.path.isdir(link):
                options += ["--ro-bind", link, link]
        for path in _ETC:
            options += ["--ro-bind-try", path, path]
        options += view([p for p in self.readable if not p.startswith("/usr/")], self.secret)
        for path in self.writable:
            options += ["--bind", path, path]
        if self.cwd != "/tmp":
            options += ["--dir", self.cwd]
        options += ["--remount-ro", "/", "--chdir", self.cwd]
        return options

    @staticmethod
    def release(cgroup: Path | None) -> None:
        """Kill whatever is left in ``cgroup`` and remove it."""
        if cgroup is None:
            return
        # Killed processes leave the cgroup only once the kernel has finished them off, which on a
        # busy machine takes a while: try for a few seconds (a bot left for good is killed again).
        deadline = time.monotonic() + _RELEASE_TIME
        while True:
            with contextlib.suppress(OSError, ValueError):
                for pid in (cgroup / "cgroup.procs").read_text().split():
                    with contextlib.suppress(OSError):
                        os.kill(int(pid), signal.SIGKILL)
            try:
                cgroup.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return  # left for release_cgroups
                time.sleep(0.005)


def bot_pid(bwrap_pid: int) -> int | None:
    """The host PID of the bot in the sandbox bwrap ``bwrap_pid`` runs: the first process below it
    that is not bwrap itself (its namespace's init), or None while there is none yet."""
    pid = bwrap_pid
    for _ in range(4):
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            if not children:
                return None
            pid = int(children[0])
            if Path(f"/proc/{pid}/comm").read_text().strip() != "bwrap":
                return pid
        except (OSError, ValueError):
            return None
    return None


@functools.cache
def unavailable() -> str | None:
    """Why this machine cannot make the sandbox, or None when it can: found once per process by
    running a trivial command in one, exactly as a bot would be run."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux (this is {sys.platform})"
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    argv, cgroup = Sandbox().command([sys.executable, "-I", "-S", "-c", "pass"], {})
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIME, env=minimal_environment(home="/tmp"))
    except (OSError, subprocess.SubprocessError) as error:
        return f"bwrap cannot run: {error}"
    finally:
        Sandbox.release(cgroup)
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap cannot make a sandbox here ({lines[-1] if lines else f'exit code {done.returncode}'})"
    return None


def process_cap_note() -> str | None:
    """What the sandbox lacks on this machine although it runs, for the one-line notice."""
    if _is_root() and _pids_cgroup_base() is None:
        return "running as root without a writable pids cgroup: sandboxed bots' process count is not capped"
    return None


def use_sandbox(mode: SandboxMode) -> bool:
    """Whether isolated players run sandboxed under ``mode`` on this machine. ``require`` on a
    machine without the sandbox raises ``SandboxUnavailable``."""
    if mode is SandboxMode.OFF:
        return False
    why = unavailable()
    if why is None:
        return True
    if mode is SandboxMode.REQUIRE:
        raise SandboxUnavailable(f"--sandbox require: {why}")
    return False
