"""Hostile: seven players, each tries one way out of the sandbox, then plays at random; raises with what
it got if its way worked.

A template: the test fills in ``STORE`` (the results store), ``TOKEN`` (a secret in the arena's environment),
``OUTSIDE`` (a folder of the test's) and ``PORT`` (a socket the test listens on). On its first move,
``escaper-daemon`` daemonizes a child (setsid and a double fork) that sleeps for ever; ``escaper-fork-bomb``
forks until refused; ``escaper-proc`` reads /proc of its parent and of PID 1; ``escaper-store`` opens the
store (and tries to write it); ``escaper-channels`` scans /dev/shm and /proc/*/fd for channels other than
its own; ``escaper-network`` connects to the test's port and resolves a name; ``escaper-write-outside``
writes outside its /tmp.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from pathlib import Path

from players import Action, Observation, Player, hookimpl

STORE = "@STORE@"
TOKEN = "@TOKEN@"
OUTSIDE = "@OUTSIDE@"
PORT = int("@PORT@")
SECRETS = (STORE, TOKEN)


def _sleep_for_ever() -> None:
    while True:
        time.sleep(3600)


def daemonize() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            _sleep_for_ever()
        os._exit(0)


def fork_until_refused() -> int:
    made = 0
    try:
        while made < 5000:
            if os.fork() == 0:
                _sleep_for_ever()
            made += 1
    except OSError:
        pass
    return made


def read_proc() -> list[str]:
    found = []
    for pid in (str(os.getppid()), "1"):
        for name in ("cmdline", "environ", "mem"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    data = f.read(1 << 20)
            except OSError:
                continue
            text = data.decode("utf-8", "replace")
            found += [f"/proc/{pid}/{name} holds {s!r}" for s in SECRETS if s in text]
    return found


def open_store() -> list[str]:
    found = []
    default = os.path.expanduser("~/.local/share/minesweeper-arena/arena.db")
    for path in (STORE, os.environ.get("ARENA_STORE", ""), default):
        if path and os.path.exists(path):
            found.append(f"store visible at {path}")
            try:
                with sqlite3.connect(path) as db:
                    db.execute("CREATE TABLE hacked (x)")
                found.append(f"store written at {path}")
            except sqlite3.Error:
                pass
    return found


def scan_channels() -> list[str]:
    found = [f"/dev/shm holds {name}" for name in os.listdir("/dev/shm")] if os.path.isdir("/dev/shm") else []
    inodes = set()
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        try:
            if "memfd" in os.readlink(fd):
                inodes.add(os.stat(fd).st_ino)
        except OSError:
            continue
    if len(inodes) > 1:
        found.append(f"{len(inodes)} shared-memory channels")
    return found


def network() -> list[str]:
    found = []
    try:
        with socket.create_connection(("127.0.0.1", PORT), timeout=2):
            found.append("connected to the arena's machine")
    except OSError:
        pass
    try:
        socket.getaddrinfo("example.com", 80)
        found.append("resolved example.com")
    except OSError:
        pass
    return found


def write_outside() -> list[str]:
    import arena

    found = []
    folders = (OUTSIDE, os.path.expanduser("~"), os.getcwd(), str(Path(arena.__file__).parents[1]))
    for folder in folders:
        target = os.path.join(folder, "escaper-was-here")
        try:
            Path(target).write_text("x")
        except OSError:
            continue
        if folder == OUTSIDE or not folder.startswith("/tmp"):
            found.append(f"wrote {target}")
    return found


def daemon() -> list[str]:
    daemonize()  # what must not happen is checked from outside: no process of it outlives the tournament
    return []


def fork_bomb() -> list[str]:
    return ["never refused a fork"] if fork_until_refused() >= 5000 else []


#: One player per way out: each is recorded with its own outcome.
ATTACKS = {
    "daemon": daemon,
    "fork-bomb": fork_bomb,
    "proc": read_proc,
    "store": open_store,
    "channels": scan_channels,
    "network": network,
    "write-outside": write_outside,
}


class Escaper(Player):
    """Tries its way out on its first move, then plays at random; raises with what it got if it worked."""

    attack = "daemon"
    found: list[str] | None = None

    def play(self, observation: Observation) -> list[Action]:
        if self.found is None:
            self.found = ATTACKS[self.attack]()
        if self.found:
            raise RuntimeError("escaped: " + "; ".join(self.found))
        covered = (observation.grid == Observation.COVERED).nonzero()
        pick = self.rng.integers(len(covered[0]))
        return [Action.reveal(int(covered[0][pick]), int(covered[1][pick]), guess=True)]


ESCAPERS = [
    type(f"Escaper_{key}", (Escaper,), {"name": f"escaper-{key}", "description": f"tries: {key}", "attack": key})
    for key in ATTACKS
]


@hookimpl
def register_players(register):
    for cls in ESCAPERS:
        register(cls)
