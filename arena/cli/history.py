"""`arena history NAME`: a player's win rate per version, and each version against the one before it."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.text import Text

from arena.analysis.history import BoardHistory, UnknownPlayer, VersionRow, history_json, player_history
from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console, plain_table, print_json
from arena.results.store import Store


@cli_errors
def command(
    name: Annotated[
        str,
        typer.Argument(help="The player: NAME, or NAME[KEY=VALUE,...] as leaderboards spell it.", show_default=False),
    ],
    store: common.StoreOpt = None,
    json_out: common.JsonOpt = False,
) -> None:
    with Store(store, read_only=True) as db:
        try:
            histories = player_history(db, name.strip())
        except UnknownPlayer as error:
            raise UsageError(str(error)) from None
    if json_out:
        print_json({"player": name, "boards": [history_json(h) for h in histories]})
        return
    for history in histories:
        console.print(_table(name, history))


def _pct(x: float) -> str:
    return f"{100 * x:.2f}"


def _versus(row: VersionRow) -> tuple[str, str, str]:
    cmp = row.vs_previous
    if cmp is None:
        return "-", "", ""
    interval = f"{100 * cmp.diff:+.1f} [{100 * cmp.diff_low:+.1f},{100 * cmp.diff_high:+.1f}]"
    return interval, f"{cmp.p_value:.2g}", str(cmp.games)


def _table(name: str, history: BoardHistory) -> Any:
    count = len(history.tournaments)
    table = plain_table(f"{name} · {history.title} · {count} tournament{'s' if count != 1 else ''}")
    table.add_column("version", overflow="fold")
    for column in ("games", "win %", "95% CI", "vs previous [95% CI]", "p", "paired"):
        table.add_column(column, justify="right", no_wrap=column != "vs previous [95% CI]")
    for row in history.versions:
        versus, p, paired = _versus(row)
        cells = (row.version, str(row.games), _pct(row.win_rate), f"{_pct(row.ci_low)}-{_pct(row.ci_high)}")
        table.add_row(*(Text(c) for c in (*cells, versus, p, paired)))
    return table
