"""`arena tournament`: play every registered (or named) player on the same seeded boards."""

from __future__ import annotations

import shlex
import sys
import time
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from arena.backends.dask_cluster import ADDRESS_ENV, INSTALL_HINT, dask_available
from arena.cli.common import (
    Difficulty,
    FirstClickOpt,
    JsonOpt,
    Mines,
    PluginOpt,
    Seed,
    Size,
    StoreOpt,
    UsageError,
    board_from_options,
    cli_errors,
    console,
    err_console,
    print_json,
)
from arena.cli.playing import (
    EngineBotOpt,
    GameTimeOpt,
    IsolationOpt,
    MemoryOpt,
    MoveTimeOpt,
    OptionOpt,
    check_plugins,
    limits_from,
    parse_options,
    player_catalog,
)
from arena.cli.render import print_leaderboard
from arena.config import PlayerRef, RecordMode, TournamentConfig, parse_player_list
from arena.isolation import Isolation
from arena.leaderboard import build_leaderboard
from arena.store import Store
from arena.tournament import (
    BackendUnavailable,
    TournamentError,
    TournamentInterrupted,
    pending_work,
    plan_workers,
    run_tournament,
)

NAME = "tournament"
HELP = "Play a tournament: every player on the same seeded boards; prints the leaderboard."


def resume_hint() -> str:
    return shlex.join(["arena", *sys.argv[1:]])


@cli_errors
def command(
    difficulty: Difficulty = None,
    size: Size = None,
    mines: Mines = None,
    first_click: FirstClickOpt = "safe",
    games: Annotated[int, typer.Option("--games", "-n", help="Number of boards; every player plays each.")] = 100,
    seed: Seed = 0,
    players: Annotated[
        str | None, typer.Option("--players", "-p", help="NAME[,NAME...]; default: every registered player.")
    ] = None,
    option: OptionOpt = None,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", help="Worker processes; default: one per core.")
    ] = None,
    store: StoreOpt = None,
    plugin: PluginOpt = None,
    json_out: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    isolation: IsolationOpt = Isolation.AUTO,
    move_time: MoveTimeOpt = 10.0,
    game_time: GameTimeOpt = 300.0,
    memory_mb: MemoryOpt = 2048,
    engine_bot: EngineBotOpt = None,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            help="local: worker processes on this machine; dask: a Dask cluster (--address, else a LocalCluster "
            "of --workers processes). Needs the 'dask' extra.",
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            help=f"Dask scheduler, e.g. tcp://host:8786 (default: ${ADDRESS_ENV}; none: start a LocalCluster).",
            show_default=False,
        ),
    ] = None,
    record: Annotated[
        RecordMode,
        typer.Option(
            "--record",
            help="moves: store every game's moves with its result (for replays and arena diff); "
            "none: results only, for huge runs.",
        ),
    ] = RecordMode.MOVES,
) -> None:
    if backend not in ("local", "dask"):
        raise UsageError(f"--backend must be local or dask, got {backend!r}")
    if backend == "dask" and not dask_available():
        raise UsageError(INSTALL_HINT)
    if address and backend != "dask":
        raise UsageError("--address needs --backend dask")
    spec, rule = board_from_options(difficulty, size, mines, first_click)
    if games < 1:
        raise UsageError(f"--games must be at least 1, got {games}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    limits = limits_from(move_time, game_time, memory_mb)
    registry, bots = player_catalog(plugin, engine_bot, isolation)
    refs = parse_player_list(players) or tuple(PlayerRef(name=n) for n in sorted(registry.players))
    check_plugins(registry, (ref.name for ref in refs))
    for ref in refs:
        registry.get(ref.name)
    options = parse_options(option, {r.name for r in refs})
    refs = tuple(PlayerRef(name=r.name, options=options.get(r.name, {})) for r in refs)
    for ref in refs:
        registry.get(ref.name).cls.parse_options(ref.options)  # refuse bad options before touching the store
    config = TournamentConfig.build(
        spec,
        rule,
        seed=seed,
        games=games,
        players=refs,
        isolation=isolation,
        limits=limits,
        engine_bots=bots,
        record=record,
    )
    with Store(store) as db:
        work = pending_work(config, db)[0]
        todo = sum(len(keys) for _, keys in work)
        workers, note = plan_workers(workers, len(work), backend, address)
        if note:
            err_console.print(escape(note), style="yellow", highlight=False, soft_wrap=True)
        started = time.perf_counter()
        try:
            if quiet or todo == 0:
                summary = run_tournament(config, db, registry, workers=workers, backend=backend, address=address)
            else:
                columns = (
                    TextColumn("[bold]{task.description}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TextColumn("{task.fields[rate]} games/s"),
                    TimeElapsedColumn(),
                    TextColumn("ETA"),
                    TimeRemainingColumn(),
                )
                with Progress(*columns, console=err_console, transient=json_out) as progress:
                    task = progress.add_task(config.difficulty, total=todo, rate="-")

                    def advance(n: int) -> None:
                        progress.advance(task, n)
                        done = progress.tasks[0].completed
                        elapsed = time.perf_counter() - started
                        progress.update(task, rate=f"{done / elapsed:,.0f}" if elapsed > 0 else "-")

                    summary = run_tournament(
                        config, db, registry, workers=workers, progress=advance, backend=backend, address=address
                    )
        except TournamentInterrupted as stop:
            err_console.print(
                f"[yellow]interrupted:[/] {stop.recorded} games committed this run. Resume with:\n"
                f"  {escape(resume_hint())}",
                highlight=False,
                soft_wrap=True,  # the command must stay one line, to copy and paste
            )
            raise typer.Exit(130) from None
        except BackendUnavailable as error:
            raise UsageError(str(error)) from None
        except TournamentError as error:
            err_console.print("[bold red]error:[/]", escape(str(error)), highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None
        elapsed = time.perf_counter() - started
        board = build_leaderboard(db, config.id, games)
        stored_in = db.path.resolve()
    if json_out:
        data = board.model_dump()
        data["run"] = {
            "played": summary.played,
            "skipped": summary.skipped,
            "workers": summary.workers,
            "backend": summary.backend,
            "isolation": isolation.value,
            "record": record.value,
            "seconds": round(elapsed, 3),
            "store": str(stored_in),
        }
        print_json(data)
        return
    print_leaderboard(console, board, store=store)
    console.print(
        f"played {summary.played} games ({summary.skipped} already in the store) with {summary.workers} "
        f"worker(s) ({summary.backend}) in {elapsed:.1f}s",
        highlight=False,
    )
    console.print(f"results stored in {escape(str(stored_in))}", style="dim", highlight=False, soft_wrap=True)
