"""Hostile builds sent to a real ``arena host`` (the build sandbox's hostile cases of
tests/arena/isolation/test_build.py, as entrants would send them): a build that reaches for the network, writes
outside its folder, forks without end, floods its log or never ends each ends as a failed build whose reason and
log say what happened, leaves no process behind, and the server keeps serving and ranks an honest kit meanwhile."""

from __future__ import annotations

import socket
import time
import uuid
from pathlib import Path

import pytest
from host_support import start_host, stop_host, wait_for, write_cup
from process_support import running_with

from arena.host import accounts
from arena.host.archive import pack
from arena.host.db import HostPaths, connect
from arena.kits.new_bot import new_bot

pytestmark = [pytest.mark.slow, pytest.mark.sandbox, pytest.mark.timeout(1800)]

#: Seconds a build may take here: the build that never ends is stopped after them.
BUILD_TIME = 25


def _folder(root: Path, name: str, build: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "build.sh").write_text("#!/bin/sh\n" + build)
    (folder / "run.sh").write_text("#!/bin/sh\nexec python3 bot.py\n")
    return folder


def test_hostile_builds_fail_with_their_reason_and_the_server_serves_on(tmp_path: Path) -> None:
    tag = f"95{uuid.uuid4().int % 10**6:06d}"
    home_file = Path.home() / f".arena-hosted-escape-{tag}"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    port = listener.getsockname()[1]
    root = tmp_path / "bots"
    bots = {
        "net": _folder(
            root, "net", f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)\"\n"
        ),
        "escape": _folder(root, "escape", f"set -e\necho ok > inside.txt\necho x > '{home_file}'\necho x > /usr/x\n"),
        "forkbomb": _folder(root, "forkbomb", f"i=0\nwhile :; do sleep {tag} & i=$((i+1)); done\n"),
        "flood": _folder(root, "flood", "yes flood\n"),
        "forever": _folder(root, "forever", f"echo waiting\nsleep {tag}1\n"),
        "honest": new_bot("honest", "python", root / "honest").folder,
    }
    file = write_cup(tmp_path / "cup", count=4, private=2, extra=f"build_time = {BUILD_TIME}\n")
    file.write_text(file.read_text().replace('sandbox = "auto"', "sandbox = true"))
    paths = HostPaths.beside(file)
    db = connect(paths)
    tokens = {name: accounts.add_entrant(db, name, name.title()) for name in bots}
    db.close()
    host = start_host(file, None, "-w", "2")
    try:
        client = host.client()
        ids = {}
        for name, folder in bots.items():
            answer = client.submit(pack(folder), tokens[name])
            assert answer.status == 201, answer.text
            ids[name] = answer.json()["id"]

        def ended() -> dict[str, dict] | None:
            assert client.get("/").status == 200  # the pages answer all the while
            got = {n: client.get(f"/api/submissions/{i}", tokens[n]).json() for n, i in ids.items()}
            return got if all(g["state"] in ("ranked", "failed") for g in got.values()) else None

        final = wait_for(ended, "every submission to end", timeout=1500, every=1.0)
        logs = {n: paths.build_log(i).read_text(errors="replace") for n, i in ids.items()}
    finally:
        stop_host(host)
        try:
            listener.accept()
            knocked = True
        except BlockingIOError:
            knocked = False
        listener.close()
        written = [p for p in (home_file, Path("/usr/x")) if p.exists()]
        for path in written:
            path.unlink()
    assert not knocked and written == []
    reasons = {n: final[n]["reason"] for n in bots}
    assert final["honest"]["state"] == "ranked" and final["honest"]["rank"] == 1, reasons
    hostile = [n for n in bots if n != "honest"]
    assert all(final[n]["state"] == "failed" and reasons[n].startswith("build: ") for n in hostile), reasons
    assert reasons["net"].startswith("build: exit 1") and "None" not in reasons["net"], reasons["net"]
    assert "ConnectionRefusedError" in logs["net"] or "Network is unreachable" in logs["net"], logs["net"]
    assert reasons["escape"].startswith("build: exit") and "Read-only file system" in logs["escape"]
    assert "Cannot fork" in logs["forkbomb"] or "Resource temporarily unavailable" in logs["forkbomb"]
    assert reasons["flood"].startswith("build: log cut at 1 MB") and logs["flood"].count("flood\n") > 100_000
    assert reasons["forever"] == f"build: timed out after {BUILD_TIME} s" and "waiting" in logs["forever"]
    deadline = time.monotonic() + 30
    while running_with(tag) and time.monotonic() < deadline:  # killed processes take a moment to be reaped
        time.sleep(0.2)
    assert running_with(tag) == []
    for name, log in logs.items():  # each log ends with the arena's own line, and names no folder of this machine
        assert log.splitlines()[-1].startswith("arena: "), name
        assert str(tmp_path) not in log and str(Path.home()) + "/" not in log, name
