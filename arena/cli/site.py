"""`arena site OUT [TOURNAMENT...]`: the pages of `arena serve` as static files (relative links, every asset
inside OUT), for `file://` or any static web host. The store is opened read-only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console, err_console
from arena.cli.serve import EXTRA


@cli_errors
def command(
    out: Annotated[Path, typer.Argument(help="The folder to write the site into.", show_default=False)],
    tournaments: Annotated[
        list[str] | None,
        typer.Argument(help="Tournament ids (see `arena leaderboard --list`); default: every one.", show_default=False),
    ] = None,
    replays: Annotated[
        str,
        typer.Option("--replays", help="Replays of: losses (lost, failed and split games), all, or none."),
    ] = "losses",
    losses: Annotated[
        str,
        typer.Option(
            "--losses",
            help="Judge the losses of: auto (players of at most 2,000 games: a larger tournament takes minutes), "
            "all, or none.",
        ),
    ] = "auto",
    lists: Annotated[
        bool,
        typer.Option(
            "--lists/--no-lists",
            help="The players' lists of games and the comparisons' lists of boards (--no-lists: a small site).",
        ),
    ] = True,
    force: Annotated[
        bool, typer.Option("--force", help="Write into a folder that holds files arena site did not write.")
    ] = False,
    store: common.StoreOpt = None,
) -> None:
    try:
        from arena.web.site import SiteError, write_site
    except ImportError as error:
        raise UsageError(f"arena site needs the web extra ({error.name} is missing): {EXTRA}") from None
    try:
        summary = write_site(
            store,
            out,
            tournaments or (),
            replays=replays,
            losses=losses,
            lists=lists,
            force=force,
            progress=lambda text: err_console.print(Text(text), soft_wrap=True),
        )
    except SiteError as error:
        raise UsageError(str(error)) from None
    except Exception as error:  # the store's own errors (missing, not a store) are one line too
        if type(error).__name__ == "Unavailable":
            raise UsageError(str(error)) from None
        raise
    size = summary.bytes / 1e6
    console.print(
        Text(
            f"wrote {summary.files} files ({size:.1f} MB) to {summary.folder}: {summary.tournaments} tournament(s), "
            f"{summary.replays:,} games replayable; open {summary.folder / 'index.html'}"
        ),
        soft_wrap=True,
    )
