"""`arena losses`: why a player lost, game by game, from the stored game records."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Group
from rich.text import Text

from arena.analysis.losses import CLASS_MEANING, LossReport, tournament_losses
from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console, plain_table, print_json
from arena.results.store import Store

#: Board numbers shown per class in the table (all of them are in --json).
SHOWN = 6


@cli_errors
def command(
    tournament: common.TournamentArg = None,
    player: Annotated[str, typer.Option("--player", "-p", help="The player whose losses to classify.")] = "",
    store: common.StoreOpt = None,
    json_out: common.JsonOpt = False,
) -> None:
    if not player:
        raise UsageError("--player NAME is required (see `arena leaderboard` for the tournament's players)")
    with Store(store, read_only=True) as db:
        report = tournament_losses(db, tournament or db.latest(), player)
    if json_out:
        print_json(report.as_json())
    else:
        console.print(render(report))


def render(report: LossReport) -> Group:
    """The classes with their boards, then the regret, the guesses and the calibration check; 80 columns."""
    table = plain_table(f"losses of {report.player} · {report.tournament} · {report.label}")
    table.add_column("class", no_wrap=True)
    table.add_column("games", justify="right", no_wrap=True)
    table.add_column("meaning")
    table.add_column(f"boards (first {SHOWN})")
    boards = report.boards
    for name, count in report.classes.items():
        if name == "unanalysed" and not count:
            continue
        shown = ", ".join(str(b) for b in boards[name][:SHOWN]) + (", …" if count > SHOWN else "")
        table.add_row(name, str(count), CLASS_MEANING[name], shown)
    table.add_row(Text("lost or failed", style="bold"), Text(str(report.losses), style="bold"), "", "")
    regret = report.regret
    expected = report.expected_losses
    guesses = report.guesses_per_game
    histogram = ", ".join(f"{n}: {games}" for n, games in guesses["histogram"].items())
    verdict = "within" if expected["consistent"] else "OUTSIDE"
    lines = [
        Text(f"{len(report.games)} games; regret of the suboptimal clicks {regret['total']:.3f} mines in total"),
        Text(f"guesses per game: mean {guesses['mean']:.2f}; games by number of guesses: {histogram}"),
        Text(
            f"expected losses {expected['expected']:.1f} (95% interval {expected['low']:.1f} to "
            f"{expected['high']:.1f}, from {expected['guesses']} guesses); observed {expected['observed']}: "
            f"{verdict} the interval"
        ),
        Text(f"open one: arena replay {report.tournament} -p {report.player} -b BOARD", style="dim"),
    ]
    return Group(table, *lines)
