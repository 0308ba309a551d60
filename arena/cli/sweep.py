"""`arena sweep`: win rate against mine density, every player on the same boards at every density."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from arena.cli import common, player_options
from arena.cli.common import UsageError, cli_errors, console, err_console, print_json
from arena.cli.player_options import checked_players, games_stopped, player_catalog
from arena.config import PlayerRef, parse_player_list
from arena.experiments.sweep import (
    Cell,
    SweepError,
    SweepEvents,
    density_range,
    half_densities,
    plan_cells,
    run_sweep,
    write_csv,
    write_plot,
)
from arena.limits import Isolation
from arena.play.plan import TournamentSummary
from arena.results.store import Store
from engine import FirstClick
from engine.layout import check_seed

_SIZE = re.compile(r"^\s*(\d+)\s*x\s*(\d+)\s*$", re.IGNORECASE)


def _sizes(texts: list[str] | None) -> list[tuple[int, int]]:
    sizes = []
    for text in texts or ["16x30"]:
        for part in text.split(","):
            match = _SIZE.match(part)
            if match is None:
                raise UsageError(f"--size {part!r} is not of the form HxW (rows x columns, e.g. 16x30)")
            sizes.append((int(match.group(1)), int(match.group(2))))
    return sizes


def _mines(text: str | None) -> list[int]:
    if not text:
        return []
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"--mines {text!r}: expected whole numbers separated by commas, e.g. 50,60,70") from None
    if not counts or min(counts) < 1:
        raise UsageError(f"--mines {text!r}: every mine count must be at least 1")
    return counts


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


@cli_errors
def command(
    size: Annotated[
        list[str] | None,
        typer.Option("--size", help="Board HxW (rows x columns); repeatable or comma-separated. Default 16x30."),
    ] = None,
    density: Annotated[
        str | None,
        typer.Option("--density", help="Densities START:STOP:STEP (both ends included), e.g. 0.10:0.25:0.01."),
    ] = None,
    mines: Annotated[
        str | None, typer.Option("--mines", help="Mine counts instead of densities, e.g. 50,60,70.")
    ] = None,
    players: player_options.PlayersOpt = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Boards per point; every player plays each.")] = 1000,
    first_click: common.FirstClickOpt = "safe",
    seed: common.Seed = 0,
    workers: player_options.WorkersOpt = None,
    csv_out: Annotated[Path | None, typer.Option("--csv", help="Write the grid as CSV.", show_default=False)] = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Draw win rate against density: FILE.svg or FILE.png (needs the 'plot' extra)."),
    ] = None,
    store: common.StoreOpt = None,
    plugin: common.PluginOpt = None,
    json_out: common.JsonOpt = False,
) -> None:
    if (density is None) == (mines is None):
        raise UsageError("give the points of the sweep: --density START:STOP:STEP or --mines M1,M2,...")
    if games < 1:
        raise UsageError(f"--games must be at least 1, got {games}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    if plot is not None and plot.suffix.lower() not in (".svg", ".png"):
        raise UsageError(f"--plot {str(plot)!r}: the file must end in .svg or .png")
    check_seed(seed, "--seed")
    rule = FirstClick.parse(first_click)
    try:
        cells = plan_cells(_sizes(size), rule, density_range(density) if density else (), _mines(mines))
    except SweepError as error:
        raise UsageError(str(error)) from None
    registry, _ = player_catalog(plugin, None, Isolation.AUTO)
    refs = parse_player_list(players) or tuple(PlayerRef(name=n) for n in sorted(registry.players))
    refs = checked_players(registry, refs)
    if plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError("--plot needs matplotlib: python -m pip install 'minesweeper-arena[plot]'") from None

    class Shown(SweepEvents):
        """A line per cell as it is done (none with --json)."""

        def cell_done(self, cell: Cell, summary: TournamentSummary) -> None:
            if not json_out:
                err_console.print(
                    f"{cell.size} {cell.mines:>4} mines ({_pct(cell.density)}%): played {summary.played}, "
                    f"{summary.skipped} already stored",
                    highlight=False,
                    markup=False,
                )

    with Store(store) as db, games_stopped("sweep"):
        results = run_sweep(cells, rule, refs, games, seed, db, registry, workers=workers, events=Shown())
    halves = half_densities(results)
    if csv_out is not None:
        write_csv(results, rule, csv_out)
    if plot is not None:
        write_plot(results, rule, plot)
    if json_out:
        print_json(
            {
                "rule": rule.value,
                "seed": seed,
                "games": games,
                "cells": [
                    {
                        "size": r.cell.size,
                        "mines": r.cell.mines,
                        "density": r.cell.density,
                        "player": r.player,
                        "games": r.games,
                        "wins": r.wins,
                        "win_rate": r.win_rate,
                        "ci_low": r.interval[0],
                        "ci_high": r.interval[1],
                        "tournament": r.tournament_id,
                    }
                    for r in results
                ],
                "half_density": [
                    {"player": h.player, "size": h.size, "density": h.density, "low": h.low, "high": h.high}
                    for h in halves
                ],
            }
        )
        return
    keys = [ref.key for ref in refs]
    table = Table(title=f"win % by density · first click {rule.value} · seed {seed} · {games} boards a point")
    table.add_column("size")
    table.add_column("mines", justify="right")
    table.add_column("density", justify="right")
    for key in keys:
        table.add_column(Text(key), justify="right", overflow="fold")  # a name is text, never markup
    by_cell: dict[tuple[str, int], dict[str, str]] = {}
    for r in results:
        by_cell.setdefault((r.cell.size, r.cell.mines), {})[r.player] = _pct(r.win_rate)
    for cell in cells:
        row = by_cell[(cell.size, cell.mines)]
        table.add_row(cell.size, str(cell.mines), f"{_pct(cell.density)}%", *(row[k] for k in keys))
    console.print(table)
    for h in halves:
        if h.density is None:
            text = "the swept densities do not bracket 50% wins"
        elif h.low is None:
            text = f"{_pct(h.density)}% (interval unbounded: too few points near 50%)"
        else:
            text = f"{_pct(h.density)}% [{_pct(h.low)}, {_pct(h.high)}]"
        console.print(f"{h.player} on {h.size}: 50% wins at density {text}", highlight=False, markup=False)
    for path in (csv_out, plot):
        if path is not None:
            console.print(f"wrote {path}", highlight=False, markup=False)
