"""`arena tournament`: play every registered (or named) player on the same seeded boards."""

from __future__ import annotations

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
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from arena.analysis.leaderboard import build_leaderboard
from arena.cli import common, player_options
from arena.cli.common import UsageError, board_from_options, cli_errors, console, err_console, print_json
from arena.cli.player_options import checked_players, limits_from, player_catalog
from arena.cli.progress import RunDisplay
from arena.cli.render import print_leaderboard
from arena.config import PlayerRef, RecordMode, TournamentConfig, parse_player_list
from arena.limits import DEFAULT_LIMITS, Clock, Isolation, SandboxMode
from arena.play.tournament import (
    BackendUnavailable,
    TournamentError,
    TournamentInterrupted,
    plan_tournament,
    run_tournament,
)
from arena.results.store import Store
from engine.layout import check_seed


def resume_hint() -> str:
    return shlex.join(["arena", *sys.argv[1:]])


@cli_errors
def command(
    difficulty: common.Difficulty = None,
    size: common.Size = None,
    mines: common.Mines = None,
    first_click: common.FirstClickOpt = "safe",
    games: Annotated[int, typer.Option("--games", "-n", help="Number of boards; every player plays each.")] = 100,
    seed: common.Seed = 0,
    players: player_options.PlayersOpt = None,
    option: player_options.OptionOpt = None,
    workers: player_options.WorkersOpt = None,
    store: common.StoreOpt = None,
    all_versions: common.AllVersionsOpt = False,
    plugin: common.PluginOpt = None,
    json_out: common.JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    isolation: player_options.IsolationOpt = Isolation.AUTO,
    sandbox: player_options.SandboxOpt = SandboxMode.AUTO,
    move_time: player_options.MoveTimeOpt = DEFAULT_LIMITS.move_time,
    game_time: player_options.GameTimeOpt = DEFAULT_LIMITS.game_time,
    memory_mb: player_options.MemoryOpt = DEFAULT_LIMITS.memory_mb,
    clock: player_options.ClockOpt = Clock.WALL,
    engine_bot: player_options.EngineBotOpt = None,
    bot_dir: player_options.BotDirOpt = None,
    backend: player_options.BackendOpt = "local",
    address: player_options.AddressOpt = None,
    record: Annotated[
        RecordMode,
        typer.Option(
            "--record",
            help="moves: store every game's moves with its result (for replays and arena diff); "
            "none: results only, for huge runs.",
        ),
    ] = RecordMode.MOVES,
) -> None:
    player_options.check_backend(backend, address)
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
        plan = plan_tournament(config, db, registry, workers=workers, backend=backend, address=address)
        if plan.workers_note:
            err_console.print(escape(plan.workers_note), style="yellow", highlight=False, soft_wrap=True)
        started = time.perf_counter()
        try:
            if quiet or plan.to_play == 0:
                summary = run_tournament(plan, db, RunDisplay())
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
                    task = progress.add_task(config.difficulty, total=plan.to_play, rate="- games/s")
                    summary = run_tournament(plan, db, RunDisplay(progress, task, rate=True))
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
        leaderboard = build_leaderboard(db, config.id, games, all_versions=all_versions)
        stored_in = db.path.resolve()
    if json_out:
        data = leaderboard.model_dump()
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
    print_leaderboard(console, leaderboard, store=store)
    console.print(
        f"played {summary.played} games ({summary.skipped} already in the store) with {summary.workers} "
        f"worker(s) ({summary.backend}) in {elapsed:.1f}s",
        highlight=False,
    )
    console.print(f"results stored in {escape(str(stored_in))}", style="dim", highlight=False, soft_wrap=True)
