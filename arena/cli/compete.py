"""`arena compete competition.toml`: run a competition as its file says (docs/competitions.md).

It reads and checks the file (bad input is one line naming FILE:LINE and the key, exit 2, nothing stored), builds
the kits in the sandbox (``--build-outside-sandbox``: as the user, the old way), each build's log kept in the
results folder's ``builds/``, checks every entrant with `arena check-bot`'s checks (one that fails is left out,
with the reason, and the others play), plays the tournament, resumably, in the competition's own store, and
publishes the leaderboard as markdown, JSON and, with the web extra, a static site. Commands and paths in the file
are relative to the file's folder, and the commands run there.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from arena.cli import common, player_options
from arena.cli.common import UsageError, cli_errors, console, err_console, plain_table, print_json
from arena.cli.player_options import check_sandbox, checked_players, games_stopped, player_catalog
from arena.cli.render import print_leaderboard
from arena.competition.prepare import (
    BUILD_LOGS,
    Prepared,
    build,
    check,
    discover,
    engine_bot_options,
    prepare,
    seen_by,
)
from arena.competition.publish import competition_leaderboard, results_data, write_results
from arena.competition.spec import CompetitionError, Loaded, load_competition
from arena.competition.standings import PlayedSet, Standing, standings, write_grades
from arena.config import PlayerRef, RecordMode, TournamentConfig
from arena.isolation.sandbox import bubblewrap as sandboxes
from arena.limits import Isolation, SandboxMode

if TYPE_CHECKING:
    from arena.analysis.leaderboard import Leaderboard
    from arena.play.plan import TournamentSummary

__all__ = ["command", "default_paths"]

#: How to get the static site when the web extra is missing.
WEB_EXTRA = "python -m pip install -e '.[web]'"


def default_paths(loaded: Loaded) -> tuple[Path, Path]:
    """The competition's own store and results folder, beside its file: ``NAME.db`` and ``NAME-results/`` for
    ``NAME.toml``."""
    stem = loaded.file.stem
    return loaded.folder / f"{stem}.db", loaded.folder / f"{stem}-results"


@contextlib.contextmanager
def working_folder(folder: Path) -> Iterator[None]:
    """Run in ``folder`` (the competition file's: its commands' relative paths are relative to it), then return."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _say(text: str, *, quiet: bool = False) -> None:
    if not quiet:
        err_console.print(Text(text), soft_wrap=True)


def _report(item: Prepared, stage: str, done: bool, *, quiet: bool, sandboxed: bool = True) -> None:
    """A line as each entrant's build or check begins, and one saying how it went (a build: where its log is)."""
    if not done:
        where = "in the sandbox" if sandboxed else "OUTSIDE the sandbox"
        _say(
            f"building {item.name}: {item.kit}/build.sh, {where}" if stage == "build" else f"checking {item.name}",
            quiet=quiet,
        )
        return
    _say(f"  {item.name}: " + (item.notes[-1][1] if item.playing else f"left out: {item.reason}"), quiet=quiet)
    if stage == "build" and item.build_log is not None:
        # Where a failed build's author reads why, even with --quiet: the reason above is its first error only.
        _say(f"  {item.name}: whole build log: {item.build_log}", quiet=quiet and item.playing)


def _entrants_table(prepared: list[Prepared]) -> Any:
    table = plain_table("entrants", show_lines=False)
    table.add_column("entrant", overflow="fold", ratio=2)
    table.add_column("owner", overflow="fold", ratio=2)
    table.add_column("entered as", overflow="fold", ratio=3)
    table.add_column("status", overflow="fold", ratio=4)
    for item in prepared:
        status = Text("ready", style="green") if item.playing else Text("left out: " + item.reason, style="red")
        table.add_row(Text(item.name), Text(item.entrant.owner), Text(item.entrant.given), status)
    return table


@cli_errors
def command(
    file: Annotated[Path, typer.Argument(help="The competition file (docs/competitions.md).", show_default=False)],
    store: Annotated[
        Path | None,
        typer.Option(
            "--store",
            help="SQLite results store. Default: the competition's own, NAME.db beside NAME.toml (not $ARENA_STORE).",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Folder for leaderboard.md, leaderboard.json, the kits' build logs (builds/) and the site/ "
            "(default: NAME-results beside the file).",
            show_default=False,
        ),
    ] = None,
    workers: player_options.WorkersOpt = None,
    grades: Annotated[
        Path | None,
        typer.Option(
            "--grades",
            help="Also write a CSV with one row per entrant: owner, each set's wins and games, points, rank.",
            show_default=False,
        ),
    ] = None,
    json_out: common.JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, only the results.")] = False,
    build_outside_sandbox: Annotated[
        bool,
        typer.Option(
            "--build-outside-sandbox",
            help="Run each kit's build.sh as you, outside the sandbox: with your rights, your files, your "
            "environment and the network. Only for kits whose build scripts you trust (the default builds each kit "
            "in the sandbox, with its own folder writable and nothing else).",
        ),
    ] = False,
) -> None:
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    try:
        loaded = load_competition(file)
    except CompetitionError as error:
        raise UsageError(str(error)) from None
    c = loaded.competition
    if c.host is not None:
        raise UsageError(f"{loaded.file} is a hosted competition ([host]): run it with `arena host {file}`")
    own_store, own_out = default_paths(loaded)
    store_path = (store.expanduser().resolve() if store is not None else own_store).resolve()
    out_dir = (out.expanduser().resolve() if out is not None else own_out).resolve()
    quiet = quiet or json_out
    sets, limits = c.board_sets, c.limits.limits()
    with working_folder(loaded.folder):
        check_sandbox(c.sandbox)
        prepared = prepare(loaded)
        if any(p.kit is not None for p in prepared) and not build_outside_sandbox:
            why = sandboxes.unavailable()
            if why is not None:
                raise UsageError(
                    f"the kits are built in the sandbox, which this machine cannot make ({why}); "
                    "--build-outside-sandbox builds them as you, with your rights, files and network"
                )
        exposed = seen_by(prepared, out_dir, loaded.folder) if sandboxes.use_sandbox(c.sandbox) else None
        if exposed is not None:
            raise UsageError(
                f"the results folder {out_dir} is inside the folder entrant {exposed.name!r} sees in the sandbox, "
                "and its pages show the boards: give each bot a folder of its own, or --out another folder"
            )
        try:
            discover(loaded, prepared, c.sandbox)
        except CompetitionError as error:
            raise UsageError(str(error)) from None
        _say(f"{c.name}: {len(c.entrants)} entrant{'s' if len(c.entrants) != 1 else ''}", quiet=quiet)
        for board_set in sets:
            spec = board_set.spec
            _say(
                (f"{board_set.name}: " if c.sets is not None else "")
                + f"{spec.label} ({spec.height}x{spec.width}, {spec.mines} mines), first click "
                f"{board_set.first_click.value}, seed {board_set.seed}, {board_set.count} boards"
                + (f", {board_set.points:g} point{'s' if board_set.points != 1 else ''} a win" if c.sets else ""),
                quiet=quiet,
            )
        build_mode = SandboxMode.OFF if build_outside_sandbox else SandboxMode.REQUIRE
        report = functools.partial(_report, quiet=quiet, sandboxed=not build_outside_sandbox)
        try:
            build(prepared, out_dir / BUILD_LOGS, build_mode, report)
            check(prepared, limits, sandboxes.use_sandbox(c.sandbox), report)
        except KeyboardInterrupt:
            err_console.print(
                "interrupted before the games: nothing was played; the same command starts again",
                highlight=False,
                markup=False,
            )
            raise typer.Exit(130) from None
        if not json_out:
            console.print(_entrants_table(prepared))
        playing_now = [p for p in prepared if p.playing]
        if not playing_now:
            err_console.print("error: no entrant passed its checks; nothing was played", highlight=False, markup=False)
            raise typer.Exit(1)
        engine, folders = engine_bot_options(playing_now)
        plugins = [Path(p.plugin) for p in playing_now if p.plugin is not None]
        catalog, bots = player_catalog(
            plugins, engine, Isolation.AUTO, sandbox=c.sandbox, bot_dir=folders, require_commands=False
        )
        refs = checked_players(catalog, [PlayerRef(name=p.name) for p in playing_now])
        played: list[PlayedSet] = []
        totals = [0, 0, 0.0]
        workers_used = 0
        for board_set in sets:
            config = TournamentConfig.build(
                board_set.spec,
                board_set.first_click,
                seed=board_set.seed,
                games=board_set.count,
                players=refs,
                isolation=Isolation.AUTO,
                sandbox=c.sandbox,
                limits=limits,
                engine_bots=bots,
                record=c.record,
            )
            if len(sets) > 1:
                _say(f"playing {board_set.name}", quiet=quiet)
            names = [p.name for p in playing_now]
            named = f"{c.name}: {board_set.name}" if len(sets) > 1 else c.name
            owned = {p.name: p.entrant.owner for p in playing_now}
            summary, leaderboard, seconds = _play(config, catalog, store_path, workers, quiet, names, (named, owned))
            played.append(PlayedSet(board_set, config.id, leaderboard))
            totals[0] += summary.played
            totals[1] += summary.skipped
            totals[2] += seconds
            workers_used = max(workers_used, summary.workers)
        owners = {p.name: p.entrant.owner for p in prepared}
        from arena.results.store import Store

        with Store(store_path, create=False, read_only=True) as db:
            table = standings(db, played, owners)
    data = results_data(loaded, prepared, played[0].leaderboard if len(played) == 1 else None, played, table)
    written = write_results(out_dir, data)
    if grades is not None:
        written.append(write_grades(grades.expanduser().resolve(), sets, table, c.entrants))
    logs = sorted(p.build_log for p in prepared if p.build_log is not None and p.build_log.is_file())
    ids = [item.tournament_id for item in played]
    site = _site(
        store_path,
        out_dir / "site",
        ids,
        replays=c.record is RecordMode.MOVES,
        points=data if len(played) > 1 else None,
    )
    data["run"] = {
        "played": totals[0],
        "skipped": totals[1],
        "workers": workers_used,
        "seconds": round(totals[2], 3),
        "store": str(store_path),
        "published": [str(p) for p in [*written, *logs]] + ([str(site)] if isinstance(site, Path) else []),
        "site": str(site) if isinstance(site, Path) else None,
        "site_note": site if isinstance(site, str) else None,
    }
    if json_out:
        print_json(data)
        return
    if len(played) == 1:
        print_leaderboard(console, played[0].leaderboard, store=store_path)
    else:
        for item in played:
            console.print(Text(f"{item.board_set.name}: {item.board_set.points:g} points a win", style="bold"))
            print_leaderboard(console, item.leaderboard, store=store_path)
        console.print(points_table(played, table))
    console.print(
        f"played {totals[0]} games ({totals[1]} already in the store) with {workers_used} "
        f"worker(s) in {totals[2]:.1f}s",
        highlight=False,
    )
    console.print(Text(f"results stored in {store_path}"), style="dim", soft_wrap=True)
    for path in written:
        console.print(Text(f"wrote {path}"), soft_wrap=True)
    if logs:
        count = f"{len(logs)} build log{'s' if len(logs) != 1 else ''}"
        console.print(Text(f"wrote {count} in {out_dir / BUILD_LOGS}"), soft_wrap=True)
    if isinstance(site, Path):
        opened = "points.html" if len(played) > 1 else "index.html"
        console.print(Text(f"wrote the site: open {site / opened}"), soft_wrap=True)
    else:
        err_console.print(Text(f"note: {site}"), soft_wrap=True)


def points_table(played: list[PlayedSet], table: list[Standing]) -> Any:
    """The points table for a terminal of 80 columns: rank, entrant, points with their interval, the comparison
    with the leader, and each set's win rate over its interval (a figure is never cut within itself)."""
    out = plain_table("points (95% CI: the sets' intervals combined; vs #1: on the boards both played)")
    out.add_column("#", justify="right", no_wrap=True)
    out.add_column("entrant", overflow="fold", ratio=2)
    out.add_column("points\n95% CI", justify="right", no_wrap=True)
    out.add_column("vs #1\n95% CI, p", justify="right", no_wrap=True)
    for item in played:
        out.add_column(f"{item.board_set.name}\nwin %", justify="right", overflow="fold", ratio=1)
    for s in table:
        vs = "leader" if s.diff is None else f"{s.diff:+g}\n{s.diff_low:+.1f}..{s.diff_high:+.1f}\np {s.p_value:.2g}"
        cells = []
        for item in played:
            cell = s.sets.get(item.board_set.name)
            cells.append(
                "-" if cell is None else f"{100 * cell.win_rate:.1f}\n{100 * cell.ci_low:.1f}-{100 * cell.ci_high:.1f}"
            )
        points = f"{s.points:g}\n{s.points_low:.1f}-{s.points_high:.1f}"
        out.add_row(str(s.rank), Text(s.entrant), points, vs, *cells)
    return out


def _play(
    config: TournamentConfig,
    catalog: Any,
    store_path: Path,
    workers: int | None,
    quiet: bool,
    names: list[str],
    labels: tuple[str, dict[str, str]],
) -> tuple[TournamentSummary, Leaderboard, float]:
    """Play what the store lacks (``arena tournament``'s machinery: resumable, each version its own entrant),
    then read the competition's leaderboard. ``labels``: the tournament's name and each entrant's owner, stored
    first, so that its pages say whose competition it is while it plays."""
    from arena.cli.progress import RunDisplay
    from arena.play.tournament import plan_tournament, run_tournament
    from arena.results.store import Store

    store_path.parent.mkdir(parents=True, exist_ok=True)
    with Store(store_path) as db, games_stopped("competition"):
        db.describe(config.id, name=labels[0], owners=labels[1])
        plan = plan_tournament(config, db, catalog, workers=workers)
        if plan.workers_note:
            err_console.print(escape(plan.workers_note), style="yellow", highlight=False, soft_wrap=True)
        started = time.perf_counter()
        if quiet or plan.to_play == 0:
            summary = run_tournament(plan, db, RunDisplay())
        else:
            columns = (
                TextColumn("[bold]games"),
                BarColumn(bar_width=30),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
            )
            with Progress(*columns, console=err_console, transient=True) as progress:
                task = progress.add_task("games", total=plan.to_play)
                summary = run_tournament(plan, db, RunDisplay(progress, task))
        seconds = time.perf_counter() - started
        leaderboard = competition_leaderboard(db, config.id, names)
    return summary, leaderboard, seconds


def _site(
    store_path: Path, folder: Path, tournament_ids: list[str], *, replays: bool, points: dict[str, Any] | None = None
) -> Path | str:
    """Write the static site (``arena site``'s writer) of the competition's tournament, with the replays of lost,
    failed and split games when the games were recorded (``record = "moves"``); what stopped it, else."""
    try:
        from arena.web.site import SiteError, write_site
    except ImportError as error:
        return f"no static site: it needs the web extra ({error.name} is missing): {WEB_EXTRA}"
    try:
        write_site(store_path, folder, tournament_ids, replays="losses" if replays else "none", points=points)
    except SiteError as error:
        return f"no static site: {error}"
    return folder
