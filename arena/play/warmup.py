"""Compile the tournament's players before the first game: once, visibly, and so that Ctrl-C works.

``stale_players`` finds the trusted players whose compiled code has no valid compile stamp (a small
file saying which cache files a complete compile left, with their sizes and times);
``compile_players`` warms exactly those up in processes of their own, each kernel compiled by one
process only, and reports progress. Why and how: docs/architecture.md (the compile step).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from multiprocessing import connection
from pathlib import Path
from typing import Any

from arena.config import PlayerRef, TournamentConfig
from arena.limits import Isolation
from arena.play.agents import isolation_of
from arena.play.backends.local import init_pool_worker, start_method
from arena.play.worker import prepare_player
from engine import PRESETS

__all__ = ["STAMP_DIR_ENV", "CompileEvent", "compile_players", "stale_players", "stamp_dir"]

#: Environment variable naming the folder of the compile stamps (default: the user's cache folder).
STAMP_DIR_ENV = "ARENA_CACHE_DIR"
#: Throwaway games each player plays on the tournament's board after its warm-up game: enough for the
#: code paths a Beginner warm-up misses (rref's row reduction, say) to be compiled here, not mid-game.
_GAMES = 10


@dataclass(frozen=True, slots=True)
class CompileEvent:
    """What ``compile_players`` reports. ``kind``: ``begin`` (``keys``: the players about to be
    prepared), ``compiling`` (``key`` has started compiling: not sent when its code is cached),
    ``done`` (``key`` is ready, or ``error`` says why not), ``end``."""

    kind: str
    key: str = ""
    keys: tuple[str, ...] = ()
    #: Wall seconds (for ``end``: of the whole phase), and CPU seconds the compile processes spent on it.
    seconds: float = 0.0
    cpu: float = 0.0
    error: str = ""


def stamp_dir() -> Path:
    """Where the compile stamps live: ``$ARENA_CACHE_DIR``, else ``$XDG_CACHE_HOME`` or ``~/.cache``."""
    configured = os.environ.get(STAMP_DIR_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "minesweeper-arena" / "compiled"


def _stamp_path(key: str, config: TournamentConfig) -> Path:
    import numba

    # Keyed by everything that makes numba's cache another one: its version, Python's, and its folder.
    board = config.spec.name if config.spec.name in PRESETS else "custom"
    cache = os.environ.get("NUMBA_CACHE_DIR", "")
    what = json.dumps([key, board, config.rule.value, numba.__version__, sys.version, sys.prefix, cache])
    return stamp_dir() / f"{hashlib.sha256(what.encode()).hexdigest()[:24]}.json"


def _stats(paths: Iterable[str]) -> dict[str, list[int]] | None:
    stats = {}
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            return None
        stats[path] = [st.st_mtime_ns, st.st_size]
    return stats


def _is_stamped(key: str, config: TournamentConfig) -> bool:
    try:
        stamp = json.loads(_stamp_path(key, config).read_text(encoding="utf-8"))
        files = stamp["files"]
        return _stats(files) == files
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _write_stamp(key: str, config: TournamentConfig, files: Sequence[str]) -> None:
    """Best effort: without a stamp the next run only prepares the player again."""
    stats = _stats(files)
    if stats is None:  # a file went away meanwhile: no stamp, the next run prepares the player again
        return
    path = _stamp_path(key, config)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"key": key, "files": stats}), encoding="utf-8")
        os.replace(temporary, path)


def stale_players(config: TournamentConfig, keys: Iterable[str]) -> list[PlayerRef]:
    """The players among ``keys`` that run inside the workers and have no valid compile stamp."""
    wanted = set(keys)
    return [
        ref
        for ref in config.players
        if ref.key in wanted and isolation_of(ref, config) is Isolation.TRUSTED and not _is_stamped(ref.key, config)
    ]


# -- in the compile processes -------------------------------------------------------------------------


def _used_files() -> list[str]:
    """The cache index files of every kernel this process has compiled or loaded, and their sources."""
    from numba.core.dispatcher import Dispatcher

    files: set[str] = set()
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            if isinstance(value, Dispatcher) and value.overloads:
                index = getattr(getattr(getattr(value, "_cache", None), "_cache_file", None), "_index_path", None)
                if index and os.path.exists(index):
                    files.add(index)
                    files.add(value.py_func.__code__.co_filename)
    return sorted(files)


def _lock_kernels() -> None:
    """Let one process at a time compile each kernel: another one waits for the lock, then loads
    the kernel from the cache instead of compiling it too. Locks follow the call graph (a caller's
    compile takes its callees' locks), which has no cycles, so two processes cannot deadlock; a
    process that already holds a kernel's lock (a recursive compile) does not take it again."""
    try:
        import fcntl
    except ImportError:  # not on a POSIX system: processes may compile a kernel twice, nothing worse
        return

    from numba.core import caching, event

    held: dict[str, Any] = {}
    load, save = caching.Cache.load_overload, caching.Cache.save_overload

    def release(path: str) -> None:
        handle = held.pop(path, None)
        if handle is not None:
            handle.close()  # closing the file releases the lock

    def locked_load(self: Any, sig: Any, target_context: Any) -> Any:
        data = load(self, sig, target_context)
        path = getattr(getattr(self, "_cache_file", None), "_index_path", None)
        if data is not None or path is None or path in held:
            return data
        try:
            self._impl.locator.ensure_cache_path()
            handle = open(path + ".lock", "a")  # noqa: SIM115 (held across calls, closed by release)
        except OSError:
            return None
        fcntl.flock(handle, fcntl.LOCK_EX)
        held[path] = handle
        data = load(self, sig, target_context)  # compiled by another process while we waited?
        if data is not None:
            release(path)
        return data

    def locked_save(self: Any, sig: Any, data: Any) -> None:
        try:
            save(self, sig, data)
        finally:
            release(getattr(getattr(self, "_cache_file", None), "_index_path", ""))

    class Unlock(event.Listener):
        """A compile that fails never saves: release its lock when the compile ends badly."""

        def on_start(self, ev: Any) -> None:
            pass

        def on_end(self, ev: Any) -> None:
            if ev.data and getattr(ev, "exc_details", (None,))[0] is not None:
                cache = getattr(ev.data.get("dispatcher"), "_cache", None)
                release(getattr(getattr(cache, "_cache_file", None), "_index_path", ""))

    caching.Cache.load_overload = locked_load  # type: ignore[method-assign]
    caching.Cache.save_overload = locked_save  # type: ignore[method-assign]
    event.register("numba:compile", Unlock())


def _next(pipe: Any) -> str | None:
    """The next player to prepare; None when there is none, or the arena is gone."""
    try:
        return pipe.recv()
    except (EOFError, OSError):
        return None


def _compile_process(
    config: TournamentConfig, plugin_files: tuple[str, ...], parent: int, workers: int, pipe: Any
) -> None:
    """A compile process: prepare each player the parent sends (None: stop), reporting on ``pipe``."""
    if "fork" in multiprocessing.get_all_start_methods():
        # numba's threading layer makes a lock in the default context, which here is the arena's
        # (forkserver): such a lock is the resource tracker's to remove, and a compile process killed
        # by a Ctrl-C would leave the user a warning about it. A fork-context lock needs no tracker.
        multiprocessing.set_start_method("fork", force=True)
    # As a pool worker: ignores Ctrl-C (the parent decides) and exits with the arena process.
    init_pool_worker(plugin_files, parent, workers)
    from numba.core import event

    _lock_kernels()
    current = {"key": "", "told": False}

    class Tell(event.Listener):
        def on_start(self, ev: Any) -> None:
            if current["key"] and not current["told"]:
                current["told"] = True
                pipe.send(("compiling", current["key"], 0.0, 0.0, "", ()))

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", Tell())
    refs = {ref.key: ref for ref in config.players}
    cpu = 0.0  # the first player is billed for starting the process too
    while (key := _next(pipe)) is not None:
        current.update(key=key, told=False)
        started = time.perf_counter()
        error = ""
        try:
            prepare_player(refs[key], config, _GAMES)
        except Exception as exc:  # the workers meet the same error and record it per game
            error = f"{type(exc).__name__}: {exc}"
        files = () if error else tuple(_used_files())
        used = time.process_time() - cpu
        cpu += used
        pipe.send(("done", key, time.perf_counter() - started, used, error, files))


# -- in the tournament's process ----------------------------------------------------------------------


def compile_players(
    config: TournamentConfig,
    refs: Sequence[PlayerRef],
    plugin_files: tuple[str, ...],
    processes: int,
    report: Callable[[CompileEvent], None] | None = None,
) -> None:
    """Prepare ``refs`` (from ``stale_players``) in up to ``processes`` processes, handing each the
    next player as soon as it is free. A KeyboardInterrupt (Ctrl-C) kills them at once and goes on."""
    tell = report or (lambda event: None)
    todo = [ref.key for ref in refs]
    if not todo:
        return
    keys = tuple(todo)
    tell(CompileEvent("begin", keys=keys))
    context = multiprocessing.get_context(start_method())
    started = time.perf_counter()
    running: dict[Any, Any] = {}  # our end of each process's pipe -> the process
    files: dict[str, tuple[str, ...]] = {}
    busy: dict[Any, str] = {}
    total_cpu = 0.0
    try:
        for _ in range(max(1, min(processes, len(todo)))):
            ours, theirs = context.Pipe()
            process = context.Process(
                target=_compile_process,
                args=(config, plugin_files, os.getpid(), processes, theirs),
                name="arena-compile",
            )
            process.start()
            theirs.close()
            running[ours] = process
            busy[ours] = todo.pop(0)
            ours.send(busy[ours])
        while busy:
            for pipe in connection.wait(list(busy)):
                try:
                    kind, key, seconds, cpu, error, used = pipe.recv()
                except EOFError:  # the process died: its player is not prepared (the workers will say why)
                    tell(CompileEvent("done", key=busy.pop(pipe), error="the compile process died"))
                    continue
                if kind == "done":
                    total_cpu += cpu
                    if not error:
                        files[key] = used
                    if todo:
                        busy[pipe] = todo.pop(0)
                        pipe.send(busy[pipe])
                    else:
                        del busy[pipe]
                        pipe.send(None)
                tell(CompileEvent(kind, key=key, seconds=seconds, cpu=cpu, error=error))
    finally:
        for pipe, process in running.items():
            if busy:  # interrupted, or an error of our own: stop at once
                process.kill()
            process.join()
            pipe.close()
    for key, used in files.items():  # now that every process is done: the files no longer change
        _write_stamp(key, config, used)
    tell(CompileEvent("end", keys=keys, seconds=time.perf_counter() - started, cpu=total_cpu))
