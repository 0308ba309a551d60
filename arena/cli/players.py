"""`arena players`: what is registered, where it comes from, and which plugins failed.

The players are found as ``arena tournament`` and ``arena play`` find them (``player_catalog``):
the built-ins in this process, third-party plugins listed by a process of their own, so listing a
plugin never runs its code in the arena's process, and a plugin that hangs or crashes at import
shows as a failed row instead of taking the command down.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from arena.cli import common, player_options
from arena.cli.common import cli_errors, console, plain_table, print_json
from arena.cli.player_options import player_catalog
from arena.limits import Isolation


@cli_errors
def command(
    plugin: common.PluginOpt = None, engine_bot: player_options.EngineBotOpt = None, json_out: common.JsonOpt = False
) -> None:
    catalog, _ = player_catalog(plugin, engine_bot, Isolation.AUTO)
    rows = [
        {"name": e.name, "description": e.description, "source": e.source, "version": e.version, "status": "ok"}
        for e in sorted(catalog.players.values(), key=lambda e: e.name)
    ]
    rows += [
        {"name": None, "description": "", "source": f.source, "version": "", "status": f"error: {f.error}"}
        for f in catalog.failures
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
