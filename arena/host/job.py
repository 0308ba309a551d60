"""One submission's way from where it stands to its end, in a process of its own: ``python -m arena.host.job``.

The host's scheduler starts one such process per submission it runs. The job picks up at the submission's
state, so a host killed at any moment and started again carries on where it was: a build is made again from the
archive in a fresh folder, the checks run again, and the games resume (the store plays only the games it lacks,
and a game is stored once whatever happens: ``INSERT OR IGNORE`` on its key). A lock on the submission keeps two
jobs off one submission, and the job dies with the host that started it (``PR_SET_PDEATHSIG``), so a host
restarted after a SIGKILL does not find an orphan still playing.

A job makes itself non-dumpable before it reads the private seed (``run_job``: ``make_undumpable``), so that no
process of the machine's user (a bot with the sandbox off, a build outside it) can read the seed from its memory
through ``/proc/PID/mem`` or ptrace; nothing it writes to the submission's state, events or log holds the seed
(``scrub``).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import fcntl
import json
import os
import shutil
import signal
import sqlite3
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.competition.spec import Competition, load_competition
from arena.config import PlayerRef
from arena.host import queue
from arena.host.archive import ArchiveRefused, archive_rules, extract
from arena.host.boards import BoardSets, LeaderboardCache, private_seed
from arena.host.db import HostPaths, connect
from arena.host.queue import State
from arena.isolation.check_bot.check import BotDidNotStart, as_json, check_bot, engine_target, plugin_target
from arena.isolation.discovery.catalog import PlayerCatalog
from arena.isolation.processes.bot_process import make_undumpable
from arena.isolation.sandbox import bubblewrap as sandboxes
from arena.isolation.sandbox.botfiles import ProgramError
from arena.limits import EngineBot, Isolation, Limits

__all__ = ["BUSY", "Bot", "Playing", "main", "run_job"]

#: The exit code of a job that found another job holding its submission.
BUSY = 75
#: How much a job lowers its CPU priority (``nice``), for itself and everything it starts (the build, the checks,
#: the bots): on a machine whose cores the games fill, the server that answers the pages comes first. A reader
#: of the leaderboard waits for a core otherwise (issue 35: pages within 100 ms while games are played).
NICENESS = 10
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Playing:
    """Where a job's games run: ``workers`` processes on this machine (``local``), or on the Dask cluster of
    ``$DASK_SCHEDULER_ADDRESS`` (``dask``; without one, a local cluster of ``workers``), as tournaments take it."""

    workers: int = 1
    backend: str = "local"


class Bot:
    """What a submission's folder runs as: a kit or a command folder (``run.sh``, built with its ``build.sh``
    when it has one) as an engine bot, or a Python plugin folder (``bot.py`` or ``__init__.py``)."""

    def __init__(self, player: str, folder: Path) -> None:
        self.player, self.folder = player, folder
        run = folder / "run.sh"
        if run.is_file():
            run.chmod(0o755)
            self.form = "kit" if (folder / "build.sh").is_file() else "command"
        elif (folder / "bot.py").is_file() or (folder / "__init__.py").is_file():
            self.form = "plugin"
        else:
            raise ValueError(
                "the archive has neither run.sh (a kit from arena new-bot, or a command) nor bot.py or __init__.py "
                "(a Python plugin) at its top"
            )

    @property
    def engine_bot(self) -> EngineBot | None:
        if self.form == "plugin":
            return None
        return EngineBot(name=self.player, command=(str(self.folder / "run.sh"),), folder=str(self.folder))

    @property
    def plugin(self) -> str | None:
        return f"{self.player}={self.folder}" if self.form == "plugin" else None


def scrub(text: str, *seeds: int) -> str:
    """``text`` without the private seeds in it (a message of the machinery quoting a configuration)."""
    for seed in sorted(seeds, key=lambda s: -len(str(s))):
        text = text.replace(str(seed), "<private seed>")
    return text


def _private_seeds(sets: BoardSets) -> list[int]:
    return [sets.seed_of(i, True) for i in range(len(sets.sets))]


def _die_with_parent(parent: int) -> None:
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the lock still keeps two jobs apart
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the host died before the line above ran
        os._exit(1)


def _build(sub: queue.Submission, bot: Bot, paths: HostPaths, competition: Competition) -> str | None:
    """Build the bot in the sandbox (``arena.isolation.builds.build``), its log kept; None, or why it failed."""
    from arena.isolation.builds.build import BuildLimits, build_bot

    host = competition.host
    assert host is not None
    limits = BuildLimits(seconds=host.build_time)
    result = build_bot(
        bot.folder, limits=limits, sandbox=competition.sandbox, log_path=paths.build_log(sub.id),
        hide=[(paths.folder, "<host>")],
    )  # fmt: skip
    if not result.built:
        paths.build_log(sub.id).write_text("no build.sh: nothing to build\n", encoding="utf-8")
    if result.ok:
        return None
    first = result.first_error
    where = f" ({first})" if first is not None else ""  # FILE:LINE: message, with the parts the log names
    return f"{result.reason}{where}"


def _check(bot: Bot, limits: Limits, sandboxed: bool) -> tuple[list[dict[str, Any]], str | None]:
    """``arena check-bot``'s checks as the games will run the bot: the results, and why it failed (or None)."""
    try:
        if bot.engine_bot is not None:
            target = engine_target(bot.engine_bot, limits, sandboxed)
        else:
            assert bot.plugin is not None
            target = plugin_target(bot.player, bot.plugin, limits, sandboxed)
        results = list(check_bot(target, limits))
    except ProgramError as error:
        return [], str(error)
    except BotDidNotStart as error:
        return [], f"did not start: {error}"
    failed = [r for r in results if not r.passed]
    if failed:
        first = failed[0]
        ids = ", ".join(r.id for r in failed)
        return as_json(results), f"failed {len(failed)} of {len(results)} checks ({ids}); {first.id}: {first.got}"
    return as_json(results), None


def _play(
    sets: BoardSets,
    bot: Bot,
    store_path: Path,
    private: bool,
    playing: Playing,
    progress: Callable[[int], None],
    owner: str = "",
) -> None:
    """Every board set of one side (public or private), one tournament each, in the file's order (a resumed job
    plays only the games each lacks)."""
    for index in range(len(sets.sets)):
        _play_set(sets, index, bot, store_path, private, playing, progress, owner)


def _play_set(
    sets: BoardSets,
    index: int,
    bot: Bot,
    store_path: Path,
    private: bool,
    playing: Playing,
    progress: Callable[[int], None],
    owner: str = "",
) -> None:
    from arena.play.plan import plan_tournament
    from arena.play.tournament import run_tournament
    from arena.results.store import Store

    engine = (bot.engine_bot,) if bot.engine_bot is not None else ()
    plugins = [bot.plugin] if bot.plugin is not None else []
    catalog = PlayerCatalog.for_tournament(plugins, engine, Isolation.AUTO, sets.competition.sandbox)
    config = sets.config(private, index, (PlayerRef(name=bot.player),), engine)
    with Store(store_path) as store:
        store.describe(config.id, name=sets.competition.name, owners={bot.player: owner})
        plan = plan_tournament(config, store, catalog, workers=playing.workers, backend=playing.backend)
        run_tournament(plan, store, _committed_events(progress))


def _committed_events(progress: Callable[[int], None]) -> Any:
    """The run's events as the job hears them: each committed batch counted into ``progress``."""
    from arena.play.events import TournamentEvents

    class Committed(TournamentEvents):
        def batch_done(self, results: Any) -> None:
            progress(len(results))

    return Committed()


class _Progress:
    """Counts games as they are committed and writes the count at most twice a second."""

    def __init__(self, db: sqlite3.Connection, submission: int, start: int) -> None:
        self.db, self.submission, self.done, self.written = db, submission, start, 0.0

    def __call__(self, games: int) -> None:
        self.done += games
        if time.monotonic() - self.written > 0.5:
            self.flush()

    def flush(self) -> None:
        queue.update(self.db, self.submission, done=self.done)
        self.written = time.monotonic()


def run_job(paths: HostPaths, file: Path, submission: int, playing: Playing | None = None) -> int:
    """Take ``submission`` from its state to its end; 0 when it ended, ``BUSY`` when another job holds it.
    Makes this process non-dumpable first: it is about to read the private seed."""
    make_undumpable()
    loaded = load_competition(file)
    competition = loaded.competition
    db = connect(paths)
    lock = (paths.work / f"{submission}.lock").open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return BUSY
    sub = queue.get(db, submission)
    if sub is None or sub.state.final:
        return 0
    seed = private_seed(db)
    sets = BoardSets(competition, seed)
    from arena.play.tournament import TournamentInterrupted

    try:
        return _run(db, paths, sets, sub, playing or Playing())
    except TournamentInterrupted:
        return 130  # stopped with the host: every finished game is stored, the next job resumes
    except Exception as error:  # the machinery's failure: said to the owner without the seed, then raised
        text = scrub(f"{type(error).__name__}: {error}", *_private_seeds(sets))
        print(f"job {submission}: {text}", file=sys.stderr)
        return 1


def _run(db: sqlite3.Connection, paths: HostPaths, sets: BoardSets, sub: queue.Submission, playing: Playing) -> int:
    competition = sets.competition
    host = competition.host
    assert host is not None
    folder = paths.work / str(sub.id)
    built = paths.work / f"{sub.id}.built"
    bot_folder = folder / "bot"
    if sub.state in (State.RECEIVED, State.BUILDING) or not built.exists():
        queue.advance(
            db, sub.id, set(State) - {State.RANKED, State.FAILED}, State.BUILDING, started=time.time(),
            attempts=sub.attempts + 1,
        )  # fmt: skip
        built.unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
        try:
            extract(paths.archive(sub.sha256), bot_folder, archive_rules(host))
            bot = Bot(sub.player, bot_folder)
        except (ArchiveRefused, ValueError, OSError) as error:
            queue.finish(db, sub.id, State.FAILED, f"unpack: {error}")
            return 0
        queue.update(db, sub.id, form=bot.form)
        failed = _build(sub, bot, paths, competition)
        if failed is not None:
            queue.finish(db, sub.id, State.FAILED, f"build: {failed}")
            return 0
        built.touch()
        queue.advance(db, sub.id, {State.BUILDING}, State.CHECKING)
    bot = Bot(sub.player, bot_folder)
    current = queue.get(db, sub.id)
    assert current is not None
    limits = competition.limits.limits()
    if current.state is State.CHECKING:
        results, failed = _check(bot, limits, sandboxes.use_sandbox(competition.sandbox))
        queue.update(db, sub.id, checks=json.dumps(results))
        if failed is not None:
            queue.finish(db, sub.id, State.FAILED, f"check: {scrub(failed, *_private_seeds(sets))}")
            return 0
        total = sets.public_count + sets.private_count
        queue.advance(db, sub.id, {State.CHECKING}, State.PLAYING, total=total, done=0)
    return _games(db, paths, sets, sub, bot, playing)


def _games(
    db: sqlite3.Connection, paths: HostPaths, sets: BoardSets, sub: queue.Submission, bot: Bot, playing: Playing
) -> int:
    current = queue.get(db, sub.id)
    assert current is not None
    found = db.execute("SELECT owner FROM entrants WHERE name = ?", (sub.entrant,)).fetchone()
    owner = str(found[0]) if found is not None else ""
    if not current.public_played:
        progress = _Progress(db, sub.id, 0)
        _play(sets, bot, paths.public_store, False, playing, progress, owner)
        progress.flush()
        queue.update(db, sub.id, public_played=1, done=sets.public_count)
        queue.update(db, sub.id, rank=public_rank(db, paths, sets, sub.player))
    progress = _Progress(db, sub.id, sets.public_count)
    _play(sets, bot, paths.private_store, True, playing, progress, owner)
    rank = public_rank(db, paths, sets, sub.player)
    queue.finish(db, sub.id, State.RANKED, done=sets.public_count + sets.private_count, rank=rank)
    return 0


def public_rank(db: sqlite3.Connection, paths: HostPaths, sets: BoardSets, player: str) -> int | None:
    """``player``'s rank on the public leaderboard (by points with several sets)."""
    rows = queue.entrant_rows(db)
    return LeaderboardCache(ttl=0).ranked(paths.public_store, sets, rows, private=False).rank(player)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.host.job", description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("file", type=Path)
    parser.add_argument("submission", type=int)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--backend", choices=("local", "dask"), default="local")
    parser.add_argument("--parent", type=int, default=0)
    parser.add_argument("--nice", type=int, default=NICENESS, help="lower the job's CPU priority by this much")
    args = parser.parse_args(argv)
    if args.parent:
        _die_with_parent(args.parent)
    if args.nice > 0:
        with contextlib.suppress(OSError, AttributeError):  # not POSIX: the job runs at the server's priority
            os.nice(args.nice)
    try:
        return run_job(HostPaths(args.folder), args.file, args.submission, Playing(args.workers, args.backend))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
