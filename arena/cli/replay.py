"""`arena replay`: one stored game (or two players' games of one board, side by side) as a self-contained HTML
page that opens offline, with the exact mine probability of every covered cell at every step (computed by the
page for the position it shows).

The store is opened read-only: a replay never changes a result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from arena.analysis.replay import build_replay_html, replay
from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console
from arena.cli.stored import check_player, file_slug, split_players, stored_game, tournament_id
from arena.results.store import Store


@cli_errors
def command(
    tournament: common.TournamentArg = None,
    players: Annotated[
        str, typer.Option("--player", "-p", help="Player, or two players A,B side by side on the same board.")
    ] = "",
    board: Annotated[int | None, typer.Option("--board", "-b", help="Board index.", show_default=False)] = None,
    latest_loss: Annotated[
        bool, typer.Option("--latest-loss", help="The last board the (first) player lost or failed.")
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", help="HTML file to write; default: replay-<board>-<players>.html here."),
    ] = None,
    probabilities: Annotated[
        bool,
        typer.Option(
            "--probabilities/--no-probabilities",
            help="Open the page with the exact mine probabilities shown (the page computes them; P toggles them).",
        ),
    ] = True,
    store: common.StoreOpt = None,
) -> None:
    if not players:
        raise UsageError("name the player to replay with -p NAME (or -p A,B for two side by side)")
    names = split_players(players)
    if len(names) > 2 or len(set(names)) != len(names):
        raise UsageError(f"-p takes one player or two different ones, got {players!r}")
    if latest_loss == (board is not None):
        raise UsageError("give either --board N or --latest-loss")
    with Store(store, read_only=True) as db:
        tid = tournament_id(db, tournament)
        names = [check_player(db, tid, name) for name in names]  # ``my-bot@1`` as --all-versions shows it
        if latest_loss:
            board = last_loss(db, tid, names[0])
        assert board is not None
        games = [stored_game(db, tid, name, board) for name in names]
    replays = [replay(game, probabilities=False) for game in games]  # checked here; the page computes the odds
    path = output if output is not None else Path(f"replay-{board}-{'-vs-'.join(map(file_slug, names))}.html")
    path.write_text(build_replay_html(replays, probabilities=probabilities), encoding="utf-8")
    console.print(Text(str(path)), soft_wrap=True)


def last_loss(db: Store, tid: str, player: str) -> int:
    """The highest board ``player`` did not win (lost, or failed by misbehaving)."""
    check_player(db, tid, player)
    lost = [game.board for game in db.games(tid) if game.player == player and not game.won]
    if not lost:
        raise UsageError(f"{player!r} lost no board of tournament {tid}")
    return max(lost)
