"""The host's queue runner: a thread that starts a job process (``arena.host.job``) per submission it runs.

``slots`` jobs run at once (``arena host -w``), each playing with one worker process of its own, and
``queue.pick`` chooses which submission takes a free slot: the oldest, unless its entrant already holds its
share. A job that fails (a crash of the machinery, not a bot's failure, which is the submission's state) is
tried again up to ``ATTEMPTS`` times, then its submission fails with the reason. Stopping the host stops the
jobs (SIGTERM: every finished game is kept) and the submissions stay where they were, for the next start.

The scheduler also closes the competition when its deadline passes (``boards.closed_at``).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from arena.competition.hosting import HostSpec
from arena.host import queue
from arena.host.boards import closed_at
from arena.host.db import HostPaths, connect
from arena.host.job import BUSY

__all__ = ["ATTEMPTS", "Scheduler"]

log = logging.getLogger("arena.host")

#: Times a submission's job may fail (the machinery's failure) before the submission fails.
ATTEMPTS = 3


@dataclass
class _Running:
    submission: queue.Submission
    process: subprocess.Popen[bytes]


@dataclass
class Scheduler:
    paths: HostPaths
    file: Path
    host: HostSpec
    slots: int = 1
    #: Where the jobs' games run: ``local`` (each job one worker process) or ``dask`` (``arena host --backend``).
    backend: str = "local"
    poll: float = 0.5
    _running: dict[int, _Running] = field(default_factory=dict)
    _crashes: dict[int, int] = field(default_factory=dict)
    _wake: threading.Event = field(default_factory=threading.Event)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="arena-host-scheduler", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Look at the queue now (a submission arrived)."""
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop taking work, stop the jobs (SIGTERM, then SIGKILL after ``timeout``), and wait for the thread."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout + 5)

    @property
    def running(self) -> list[int]:
        return sorted(self._running)

    def _loop(self) -> None:
        db = connect(self.paths)
        try:
            while not self._stopping.is_set():
                self._reap(db)
                closed_at(db, self.host)
                self._fill(db)
                self._wake.wait(self.poll)
                self._wake.clear()
        except Exception:  # the scheduler must say why it stopped; the server keeps serving pages
            log.exception("the queue stopped")
        finally:
            self._stop_jobs()
            db.close()

    def _fill(self, db: object) -> None:
        waiting = queue.unfinished(db)  # type: ignore[arg-type]
        while True:
            running = [r.submission for r in self._running.values()]
            chosen = queue.pick(waiting, running, self.slots)
            if chosen is None:
                return
            self._start(chosen)
            waiting = [s for s in waiting if s.id != chosen.id]

    def _start(self, submission: queue.Submission) -> None:
        job_log = self.paths.logs / f"{submission.id}.job.log"
        with job_log.open("ab") as err:
            process = subprocess.Popen(
                [
                    sys.executable, "-m", "arena.host.job", str(self.paths.folder), str(self.file),
                    str(submission.id), "--workers", "1", "--backend", self.backend, "--parent", str(os.getpid()),
                ],
                stdin=subprocess.DEVNULL,
                stdout=err,
                stderr=err,
                start_new_session=True,  # a Ctrl-C in the host's terminal reaches the host, which stops the jobs
            )  # fmt: skip
        self._running[submission.id] = _Running(submission, process)

    def _reap(self, db: object) -> None:
        for sid, item in list(self._running.items()):
            code = item.process.poll()
            if code is None:
                continue
            del self._running[sid]
            if code in (0, BUSY) or self._stopping.is_set():
                continue
            if code in (130, -signal.SIGTERM, -signal.SIGINT):
                continue
            self._crashes[sid] = self._crashes.get(sid, 0) + 1
            log.warning("the job of submission %d ended with exit code %d", sid, code)
            if self._crashes[sid] >= ATTEMPTS:
                queue.finish(
                    db,  # type: ignore[arg-type]
                    sid,
                    queue.State.FAILED,
                    f"host error: its job failed {ATTEMPTS} times (the organizer has logs/{sid}.job.log)",
                )

    def _stop_jobs(self, timeout: float = 30.0) -> None:
        for item in self._running.values():
            if item.process.poll() is None:
                item.process.send_signal(signal.SIGTERM)
        for item in self._running.values():
            try:
                item.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(item.process.pid, signal.SIGKILL)
                item.process.wait()
        self._running.clear()
