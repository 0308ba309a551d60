"""How the arena starts a bot: the command line that runs a registered Python player behind the protocol
(``host_command``), the environment every bot process gets (``bot_environment``) and the sandbox around it
(``sandbox_for``, ``engine_bot_sandbox``).

Apart from ``RemoteAgent`` (``arena.isolation.protocol.remote``), which talks to the bot once it runs, because
the listing process (``arena.isolation.discovery.catalog``), ``arena check-bot`` and the tournament's agents
start bots the same way and only the last of them speaks to the bot through a ``RemoteAgent``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from arena.isolation.sandbox.bubblewrap import (
    Sandbox,
    cache_dir,
    engine_bot_files,
    minimal_environment,
    python_path,
    seed_cache,
)
from arena.limits import DEFAULT_LIMITS, EngineBot
from arena.paths import PROJECT_ROOT
from players.registry import resolved_plugin

__all__ = ["bot_environment", "engine_bot_sandbox", "host_command", "sandbox_for"]


def bot_environment(extra: Mapping[str, str] | None = None, *, sandboxed: bool = False) -> dict[str, str]:
    """The environment of a bot process: a minimal one (``sandbox.minimal_environment``: nothing of
    the arena's, which may name the store), with the project importable for the Python host; in the
    sandbox, home is the private ``/tmp``. The arena's own ``PYTHONPATH`` is kept after the project:
    a plugin installed into a folder on it (``pip install --target``) must be found by the bot too."""
    root = str(PROJECT_ROOT)
    env = minimal_environment(home="/tmp" if sandboxed else None)
    env["PYTHONPATH"] = os.pathsep.join([root, *python_path()])
    env.update(extra or {})
    return env


def sandbox_for(
    name: str, readable: Sequence[str], processes: int | None, cwd: str = "/tmp"
) -> tuple[Sandbox, dict[str, str]]:
    """Player ``name``'s sandbox (reading ``readable`` besides the system) and its environment: one
    writable folder of its own for compiled code, seeded with the arena's, as ``NUMBA_CACHE_DIR``."""
    cache = cache_dir(name)
    cache.mkdir(parents=True, exist_ok=True)
    seed_cache(cache)
    box = Sandbox(readable, [str(cache)], processes=processes, cwd=cwd)
    return box, bot_environment({"NUMBA_CACHE_DIR": str(cache)}, sandboxed=True)


def engine_bot_sandbox(bot: EngineBot, processes: int | None, cwd: str | None = None) -> tuple[Sandbox, dict[str, str]]:
    """Engine bot ``bot``'s sandbox and environment: it sees its folder and what its program needs
    (``sandbox.engine_bot_files``), in the arena's working folder (``cwd``), with a version manager's
    real program found before its shim on ``PATH``. Raises ``botfiles.ProgramError``."""
    cwd = cwd or os.getcwd()
    readable, first = engine_bot_files(bot.command, cwd, bot.folder)
    box, env = sandbox_for(bot.name, readable, processes, cwd=cwd)
    if first:
        env["PATH"] = os.pathsep.join([*first, env["PATH"]])
    return box, env


def host_command(
    name: str,
    options: Mapping[str, Any] | None = None,
    *,
    plugin_files: Sequence[str] = (),
    entry_points: bool = True,
    threads: int = 1,
    warm_up_time: float = DEFAULT_LIMITS.warm_up_time,
    spin: float = 0.0,
) -> list[str]:
    """The command that runs registered player ``name`` behind the protocol (``arena.isolation.protocol.bot_host``).
    ``warm_up_time`` bounds the warm-up game the host plays before its hello (0: none); it is part
    of the start-up budget (``Limits.warm_up_time``), not of a move's. ``spin`` is how long the host
    keeps reading before it blocks (``arena.isolation.processes.spin``)."""
    command = [sys.executable, "-m", "arena.isolation.protocol.bot_host", "--player", name, "--threads", str(threads)]
    command += ["--warm-up-time", f"{warm_up_time:g}"]
    if spin > 0:
        command += ["--spin-us", f"{spin * 1e6:g}"]
    if options:
        command += ["--options", json.dumps(dict(options), sort_keys=True)]
    for path in plugin_files:
        command += ["--plugin", resolved_plugin(path)]
    if not entry_points:
        command.append("--no-entry-points")
    return command
