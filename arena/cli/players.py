"""`arena players`: what is registered, where it comes from, and which plugins failed."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from arena.cli.common import JsonOpt, PluginOpt, cli_errors, console, print_json
from arena.cli.render import plain_table
from players.registry import Registry


@cli_errors
def command(plugin: PluginOpt = None, json_out: JsonOpt = False) -> None:
    registry = Registry([str(p) for p in plugin or []])
    rows = [
        {"name": e.name, "description": e.description, "source": e.source, "version": e.version, "status": "ok"}
        for e in sorted(registry.players.values(), key=lambda e: e.name)
    ]
    rows += [
        {"name": None, "description": "", "source": f.source, "version": "", "status": f"error: {f.error}"}
        for f in registry.failures
    ]
    if json_out:
        print_json(rows)
        return
    console.print(players_table(rows))


def players_table(rows: list[dict[str, Any]]) -> Table:
    """Names stay whole (they are what ``-p`` takes); a broken plugin's error takes the description's
    room, where it can wrap, and long paths fold instead of being cut."""
    table = plain_table("players")
    table.add_column("name", style="bold", no_wrap=True)
    table.add_column("description", overflow="fold")
    table.add_column("source", overflow="fold")
    table.add_column("status", no_wrap=True)
    for r in rows:
        if r["status"] == "ok":
            cells, style = (r["name"], r["description"], r["source"], "ok"), None
        else:
            cells, style = ("-", r["status"].removeprefix("error: "), r["source"], "error"), "red"
        table.add_row(*(Text(str(c)) for c in cells), style=style)
    return table
