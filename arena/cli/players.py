"""`arena players`: what is registered, where it comes from, and which plugins failed."""

from __future__ import annotations

from rich.table import Table

from arena.cli.common import JsonOpt, PluginOpt, cli_errors, console, print_json
from players import Registry


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
    table = Table(title="players", title_justify="left")
    for column in ("name", "description", "source", "status"):
        table.add_column(column)
    for r in rows:
        style = "red" if r["status"] != "ok" else None
        table.add_row(r["name"] or "-", r["description"], r["source"], r["status"], style=style)
    console.print(table)
