"""`arena diff`: the boards where two players split, the only boards that say which of them is better.

On a paired design the boards both players won, or both lost, carry no information about the difference; the
boards exactly one of them won (the discordant pairs of the leaderboard's McNemar test) carry all of it. This
lists them, each with the move where the two players' play first diverged, and on request writes one
side-by-side HTML replay per split board with an index page. The store is opened read-only.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from arena.analysis.pairs import Split, split_boards
from arena.analysis.replay import IndexEntry, build_index_html, build_replay_html, first_divergence
from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console, plain_table, print_json
from arena.cli.stored import check_player, file_slug, stored_game, tournament_id
from arena.results.store import Store


@cli_errors
def command(
    args: Annotated[list[str], typer.Argument(help="[TOURNAMENT] A B", show_default=False, metavar="[TOURNAMENT] A B")],
    html_dir: Annotated[
        Path | None,
        typer.Option("--html", help="Write index.html and one side-by-side replay per split board here."),
    ] = None,
    store: common.StoreOpt = None,
    json_out: common.JsonOpt = False,
) -> None:
    if len(args) not in (2, 3):
        raise UsageError(f"expected [TOURNAMENT] A B, got {len(args)} argument(s)")
    tournament, a, b = (None, *args) if len(args) == 2 else args
    if a == b:
        raise UsageError(f"compare two different players, got {a!r} twice")
    with Store(store, read_only=True) as db:
        tid = tournament_id(db, tournament)
        a, b = check_player(db, tid, a), check_player(db, tid, b)  # ``my-bot@1`` as --all-versions shows it
        if a == b:
            raise UsageError(f"compare two different players, got {args[-2]!r} and {args[-1]!r}: the same row")
        split = split_boards(db, tid, a, b)
        diverged = {board: _diverged_at(db, tid, a, b, board) for board in sorted(split.only_a + split.only_b)}
        games = {}
        if html_dir is not None:
            games = {board: [stored_game(db, tid, p, board) for p in (a, b)] for board in diverged}
    if html_dir is not None:
        index = write_html(html_dir, tid, a, b, games, diverged)
        if not json_out:
            console.print(Text(f"wrote {index} and {len(games)} replay(s)"), soft_wrap=True)
    if json_out:
        print_json({"tournament": tid, "a": a, "b": b, **dataclasses.asdict(split), "diverged_at": diverged})
        return
    _print_table(tid, a, b, split, diverged)


def _diverged_at(db: Store, tid: str, a: str, b: str, board: int) -> int | None:
    """The 1-based move where the two games first differ (``RecordMissing`` when a game has no record)."""
    index = first_divergence(db.game_record(tid, a, board).moves, db.game_record(tid, b, board).moves)
    return None if index is None else index + 1


def write_html(directory: Path, tid: str, a: str, b: str, games: dict[int, list[Any]], diverged: dict) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    entries = []
    for board, pair in games.items():
        name = f"board-{board}-{file_slug(a)}-vs-{file_slug(b)}.html"
        (directory / name).write_text(build_replay_html(pair), encoding="utf-8")
        outcomes = tuple(str(game.outcome) for game in pair)
        entries.append(IndexEntry(name, board, (a, b), outcomes, diverged[board]))
    index = directory / "index.html"
    title = f"{a} vs {b}: the boards one of them won"
    index.write_text(build_index_html(entries, title, subtitle=f"tournament {tid}"), encoding="utf-8")
    return index


def _print_table(tid: str, a: str, b: str, split: Split, diverged: dict[int, int | None]) -> None:
    rows = [(board, a) for board in split.only_a] + [(board, b) for board in split.only_b]
    table = plain_table(f"boards only one of {a} and {b} won · tournament {tid}")
    table.caption = Text(
        f"only {a}: {len(split.only_a)} · only {b}: {len(split.only_b)} · "
        f"both won: {split.both} · neither: {split.neither}"
    )
    table.caption_justify = "left"
    table.add_column("board", justify="right", no_wrap=True)
    table.add_column("won by")
    table.add_column("play diverged at", justify="right", no_wrap=True)
    for board, winner in sorted(rows):
        at = diverged[board]
        table.add_row(Text(str(board)), Text(winner), Text("-" if at is None else f"move {at}"))
    console.print(table)
