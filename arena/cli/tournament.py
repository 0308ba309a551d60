"""`arena tournament`: play every registered (or named) player on the same seeded boards."""

from __future__ import annotations

import functools
import shlex
import signal
import sys
import time
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from arena.analysis.leaderboard import build_leaderboard
from arena.cli import common, playing
from arena.cli.common import UsageError, board_from_options, cli_errors, console, err_console, print_json
from arena.cli.playing import checked_players, limits_from, player_catalog
from arena.cli.render import print_leaderboard
from arena.config import PlayerRef, RecordMode, TournamentConfig, parse_player_list
from arena.limits import DEFAULT_LIMITS, Clock, Isolation, SandboxMode
from arena.play.tournament import (
    BackendUnavailable,
    TournamentError,
    TournamentInterrupted,
    entrants,
    pending_work,
    plan_workers,
    run_tournament,
)
from arena.play.warmup import CompileEvent
from arena.results.store import Store
from engine.layout import check_seed


def _note(text: str) -> None:
    """A note of the tournament's (a version that runs with other files than before), on stderr."""
    err_console.print(f"[yellow]warning:[/] {escape(text)}", highlight=False, soft_wrap=True)


def resume_hint() -> str:
    return shlex.join(["arena", *sys.argv[1:]])


class CompileDisplay:
    """Shows the first run's compile (``arena.play.warmup``): a line when the first player starts compiling,
    then, beside the games' bar, a row counting the players ready; a line at the end. A run whose players
    are already compiled shows nothing. ``progress`` and ``games`` (its games' task) are None under --quiet."""

    def __init__(self, progress: Progress | None, games: TaskID | None) -> None:
        self.progress, self.games = progress, games
        self.keys: tuple[str, ...] = ()
        self.compiling: list[str] = []
        self.ready = 0
        self.task: TaskID | None = None
        self.shown = False

    def __call__(self, event: CompileEvent) -> None:
        if event.kind == "begin":
            self.keys = event.keys
        elif event.kind == "compiling":
            self.compiling.append(event.key)
            if not self.shown:
                self.shown = True
                err_console.print(
                    "compiling the players' numba code, first run only (cached for the next runs): "
                    + ", ".join(self.keys),
                    highlight=False,
                    soft_wrap=True,
                )
                if self.progress is not None:
                    self.task = self.progress.add_task("compiling", total=len(self.keys), rate="players")
        elif event.kind == "done":
            self.ready += 1
            if event.key in self.compiling:
                self.compiling.remove(event.key)
            if event.error:
                err_console.print(
                    f"[yellow]warning:[/] preparing {escape(event.key)} failed: {escape(event.error)}",
                    highlight=False,
                    soft_wrap=True,
                )
        elif event.kind == "end" and self.shown:
            err_console.print(f"compiled in {event.seconds:.1f}s ({event.cpu:.1f}s of CPU)", highlight=False)
        if self.progress is None or self.task is None:
            return
        if event.kind == "end":
            self.progress.remove_task(self.task)
            self.task = None
            if self.games is not None:
                self.progress.reset(self.games, rate="- games/s")  # the games' clock starts now
        else:
            names = ", ".join(self.compiling)
            self.progress.update(self.task, description=f"compiling {names}".strip(), completed=self.ready)


@cli_errors
def command(
    difficulty: common.Difficulty = None,
    size: common.Size = None,
    mines: common.Mines = None,
    first_click: common.FirstClickOpt = "safe",
    games: Annotated[int, typer.Option("--games", "-n", help="Number of boards; every player plays each.")] = 100,
    seed: common.Seed = 0,
    players: playing.PlayersOpt = None,
    option: playing.OptionOpt = None,
    workers: playing.WorkersOpt = None,
    store: common.StoreOpt = None,
    all_versions: common.AllVersionsOpt = False,
    plugin: common.PluginOpt = None,
    json_out: common.JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    isolation: playing.IsolationOpt = Isolation.AUTO,
    sandbox: playing.SandboxOpt = SandboxMode.AUTO,
    move_time: playing.MoveTimeOpt = DEFAULT_LIMITS.move_time,
    game_time: playing.GameTimeOpt = DEFAULT_LIMITS.game_time,
    memory_mb: playing.MemoryOpt = DEFAULT_LIMITS.memory_mb,
    clock: playing.ClockOpt = Clock.WALL,
    engine_bot: playing.EngineBotOpt = None,
    bot_dir: playing.BotDirOpt = None,
    backend: playing.BackendOpt = "local",
    address: playing.AddressOpt = None,
    record: Annotated[
        RecordMode,
        typer.Option(
            "--record",
            help="moves: store every game's moves with its result (for replays and arena diff); "
            "none: results only, for huge runs.",
        ),
    ] = RecordMode.MOVES,
) -> None:
    playing.check_backend(backend, address)
    spec, rule = board_from_options(difficulty, size, mines, first_click)
    check_seed(seed, "--seed")
    if games < 1:
        raise UsageError(f"--games must be at least 1, got {games}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    limits = limits_from(move_time, game_time, memory_mb, clock)
    registry, bots = player_catalog(plugin, engine_bot, isolation, sandbox=sandbox, bot_dir=bot_dir)
    refs = parse_player_list(players) or tuple(PlayerRef(name=n) for n in sorted(registry.players))
    refs = checked_players(registry, refs, option)
    config = TournamentConfig.build(
        spec,
        rule,
        seed=seed,
        games=games,
        players=refs,
        isolation=isolation,
        sandbox=sandbox,
        limits=limits,
        engine_bots=bots,
        record=record,
    )
    with Store(store) as db:
        work = pending_work(entrants(config, db, registry)[0], db)[0]
        todo = sum(len(keys) for _, keys in work)
        workers, note = plan_workers(workers, len(work), backend, address)
        if note:
            err_console.print(escape(note), style="yellow", highlight=False, soft_wrap=True)
        started = time.perf_counter()
        run = functools.partial(
            run_tournament, config, db, registry, workers=workers, backend=backend, address=address, notify=_note
        )
        try:
            if quiet or todo == 0:
                summary = run(on_compile=CompileDisplay(None, None))
            else:
                columns = (
                    TextColumn("[bold]{task.description}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TextColumn("{task.fields[rate]}"),
                    TimeElapsedColumn(),
                    TextColumn("ETA"),
                    TimeRemainingColumn(),
                )
                with Progress(*columns, console=err_console, transient=json_out) as progress:
                    task = progress.add_task(config.difficulty, total=todo, rate="- games/s")

                    def advance(n: int) -> None:
                        progress.advance(task, n)
                        done = progress.tasks[0].completed
                        elapsed = progress.tasks[0].elapsed or 0.0  # since the games began (after compiling)
                        progress.update(task, rate=f"{done / elapsed:,.0f} games/s" if elapsed > 0 else "- games/s")

                    summary = run(progress=advance, on_compile=CompileDisplay(progress, task))
        except TournamentInterrupted as stop:
            word = "terminated" if stop.signum == signal.SIGTERM else "interrupted"
            err_console.print(
                f"[yellow]{word}:[/] {stop.recorded} games committed this run. Resume with:\n  {escape(resume_hint())}",
                highlight=False,
                soft_wrap=True,  # the command must stay one line, to copy and paste
            )
            raise typer.Exit(128 + stop.signum) from None
        except BackendUnavailable as error:
            raise UsageError(str(error)) from None
        except TournamentError as error:
            err_console.print("[bold red]error:[/]", escape(str(error)), highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None
        elapsed = time.perf_counter() - started
        board = build_leaderboard(db, config.id, games, all_versions=all_versions)
        stored_in = db.path.resolve()
    if json_out:
        data = board.model_dump()
        data["run"] = {
            "played": summary.played,
            "skipped": summary.skipped,
            "workers": summary.workers,
            "backend": summary.backend,
            "isolation": isolation.value,
            "sandbox": sandbox.value,
            "record": record.value,
            "clock": clock.value,
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
