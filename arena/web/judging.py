"""A player's losses by class (``arena losses``) for the pages: judged once per state of the store and
cached; for a large player, in a process of its own while the page says so (``Pending``).

Judging replays every lost game and analyses each guess exactly: about 400 Beginner or 80 Expert games a
second, far too slow for a page to wait on a large tournament's player.
"""

from __future__ import annotations

import datetime as dt
import logging
import multiprocessing
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from arena.analysis.losses import LossReport, tournament_losses
from arena.analysis.replay import ReplayError
from arena.results.records import RecordError, RecordMissing
from arena.results.store import Store
from arena.web.data import CACHE, Signature, reading, signature

__all__ = ["SYNC_LOSS_GAMES", "Pending", "losses"]

log = logging.getLogger("arena.web")

#: A player with more games than this has its losses judged in the background (``Pending`` until then): about
#: 400 Beginner or 80 Expert games a second, so a page would otherwise wait for minutes on a large tournament.
SYNC_LOSS_GAMES = 2000


@dataclass(frozen=True, slots=True)
class Pending:
    """A player's losses being judged in the background: ``games`` games, since ``started`` (a UTC time)."""

    games: int
    started: str


_JOBS: dict[tuple[Any, ...], tuple[Signature, Pending]] = {}
_JOBS_LOCK = threading.Lock()


def _judge(db: Store, tid: str, key: str) -> LossReport | str:
    try:
        return tournament_losses(db, tid, key)
    except RecordMissing as error:
        return str(error)
    except (RecordError, ReplayError) as error:
        return f"the losses cannot be judged: {error}"


def losses(db: Store, tid: str, key: str, *, background: bool = False) -> LossReport | str | Pending:
    """``arena losses`` of one player, cached; or, when its games were stored without records, why not.

    With ``background``, a player of more than ``SYNC_LOSS_GAMES`` games is judged in a thread of its own (with
    its own read-only connection) and ``Pending`` is returned until its report is in the cache."""
    sig = signature(db, tid)
    cache_key = ("losses", str(db.path.resolve()), tid, key)
    with CACHE.lock:
        found = CACHE.values.get(cache_key)
    if found is not None and found[0] == sig:
        return found[1]  # type: ignore[no-any-return]
    if background:
        count = db.count_games(tid, key)
        if count > SYNC_LOSS_GAMES:
            return _in_background(db.path, tid, key, sig, cache_key, count)
    return CACHE.get(cache_key, sig, lambda: _judge(db, tid, key))


def _judge_apart(path: str, tid: str, key: str, out: Connection) -> None:
    """In a process of its own: judge the losses and send the report back."""
    with reading(Path(path)) as db:
        out.send(_judge(db, tid, key))
    out.close()


def _in_background(path: Path, tid: str, key: str, sig: Signature, cache_key: tuple[Any, ...], games: int) -> Pending:
    """Judge in a process of its own (a thread would hold the GIL for minutes, and every other page would
    wait), started fresh (``spawn``: forking a threaded server is unsafe) and daemonic (it ends with the app);
    a thread of the app waits for its report and caches it."""
    with _JOBS_LOCK:
        job = _JOBS.get(cache_key)
        if job is not None and job[0] == sig:
            return job[1]
        pending = Pending(games, dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
        _JOBS[cache_key] = (sig, pending)
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_judge_apart, args=(str(path), tid, key, send), daemon=True)
    process.start()
    send.close()

    def wait() -> None:
        try:
            CACHE.put(cache_key, sig, receive.recv())
        except (EOFError, OSError):  # the judge died: the page stays pending until the store changes
            log.warning("judging the losses of %s in %s failed (exit code %s)", key, tid, process.exitcode)
        finally:
            receive.close()
            process.join()
            with _JOBS_LOCK:
                if _JOBS.get(cache_key, (None,))[0] == sig:
                    del _JOBS[cache_key]

    threading.Thread(target=wait, name=f"losses {key}", daemon=True).start()
    return pending
