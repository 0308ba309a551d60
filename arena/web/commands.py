"""The commands a page gives its reader: the one that resumes a stopped tournament, the one that prints a page's
figures in a terminal.

A tournament stopped half-way (Ctrl-C, SIGTERM, a closed laptop) is resumed by running the same command again:
its id is its board set, and the store plays only the games it lacks. The page cannot know the exact command
that was typed, but the store keeps the tournament's config of its latest run (board, rule, seed, boards,
players with their options, limits, sandbox): from it comes a command that plays the same games. A plugin is
named by its file's name (``--plugin my_bot.py``): where it lay is the organizer's business, and a published
page must not say (``arena.web.public``).
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from arena.web.public import shown_source

__all__ = ["resume_command"]

#: The difficulties ``-d`` names; any other board is ``--size HxW --mines M``.
_NAMED = ("beginner", "intermediate", "expert")


def _board(meta: dict[str, Any]) -> list[str]:
    if meta["difficulty"] in _NAMED:
        return ["-d", str(meta["difficulty"])]
    return ["--size", f"{meta['height']}x{meta['width']}", "--mines", str(meta["mines"])]


def resume_command(meta: dict[str, Any], players: list[dict[str, Any]]) -> str:
    """``arena tournament ...`` that plays the games ``meta`` (a tournament's listing) still lacks, for its
    ``players`` (the store's rows: ``name``, ``options``, ``source``)."""
    words = ["arena", "tournament", *_board(meta)]
    if meta.get("rule") and meta["rule"] != "safe":
        words += ["--first-click", str(meta["rule"])]
    words += ["--seed", str(meta["seed"]), "-n", str(meta["games"])]
    names = list(dict.fromkeys(str(p["name"]) for p in players))
    if names:
        words += ["-p", ",".join(names)]
    for p in players:
        for key, value in sorted((p.get("options") or {}).items()):
            text = str(value).lower() if isinstance(value, bool) else str(value)
            words += ["-o", f"{p['name']}.{key}={text}"]
    plugins: list[str] = []
    for p in players:
        source = shown_source(str(p.get("source") or ""))
        if source.startswith("file "):
            plugins.append(source.removeprefix("file ").split("@", 1)[0])
    for plugin in dict.fromkeys(plugins):
        words += ["--plugin", plugin]
    try:
        config = json.loads(meta.get("config") or "{}")
    except ValueError:
        config = {}
    sandbox = config.get("sandbox")
    if sandbox and sandbox != "auto":
        words += ["--sandbox", str(sandbox)]
    return shlex.join(words)
