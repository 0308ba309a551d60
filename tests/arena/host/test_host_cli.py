"""``arena host``, ``arena entrant`` and ``arena submit`` as people run them: real processes, real HTTP, the Python
kit built in the sandbox, checked and played; a host killed with SIGKILL during a build and during play carries
on with every submission ending once and no game stored twice; the close publishes the private seed."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import sqlite3
import subprocess
from collections import deque
from pathlib import Path

import pytest
from host_support import HostProcess, arena_bin, job_processes, start_host, stop_host, wait_for, write_cup

from arena.host.db import HostPaths
from arena.kits.new_bot import new_bot

#: Real `arena host` processes, builds, checks and games: seconds to minutes on a busy machine.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def arena(
    *args: str | Path, env: dict[str, str] | None = None, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [arena_bin(), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def add_entrant(file: Path, name: str) -> Path:
    done = arena("entrant", "add", file, name, "--owner", f"{name.title()} Example", "--json")
    assert done.returncode == 0, done.stderr
    token = json.loads(done.stdout)["token"]
    path = file.parent / f"{name}.token"
    path.write_text(token + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def state(host: HostProcess, token_file: Path, submission: int) -> dict:
    token = token_file.read_text().strip()
    answer = host.client().get(f"/api/submissions/{submission}", token)
    assert answer.status == 200, answer.text
    return answer.json()


def crawl(host: HostProcess, limit: int = 300) -> dict[str, str]:
    """Every page reachable from the home page by its links (and the API's competition answer)."""
    client = host.client()
    seen: dict[str, str] = {}
    todo = deque(["/", "/api/competition"])
    while todo and len(seen) < limit:
        path = todo.popleft()
        if path in seen:
            continue
        answer = client.get(path)
        seen[path] = answer.text
        for link in re.findall(r'(?:href|src)="(/[^"#]*)"', answer.text):
            link = link.replace("&amp;", "&")
            if link not in seen:
                todo.append(link)
    return seen


def test_submit_wait_exit_codes_crawl_and_close(tmp_path: Path) -> None:
    file = write_cup(tmp_path / "cup", count=8, private=4)
    alice = add_entrant(file, "alice")
    kit = new_bot("kitbot", "python", tmp_path / "kitbot").folder
    broken = new_bot("broken", "python", tmp_path / "broken").folder
    (broken / "build.sh").write_text("#!/bin/sh\necho 'bot.py:3: error: expected an indented block' >&2\nexit 1\n")
    host = start_host(file, None, "-w", "1")
    try:
        assert "organizer token" in host.output()
        done = arena("submit", host.url, kit, "--token-file", alice, "--wait")
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert lines[0].startswith("submission 1: ") and lines[-1] == "ranked: 1", lines
        # --wait polls: a short stage may pass unseen, but what it says comes in the submission's order
        order = ["received", "building", "checking", "playing", "ranked"]
        said = [order.index(line.split()[0].rstrip(":")) for line in lines[1:]]
        assert said == sorted(said) and len(said) >= 3, lines
        assert all(re.fullmatch(r"playing \d+ of 12", line) for line in lines if line.startswith("playing")), lines
        events = [e["state"] for e in state(host, alice, 1)["events"]]
        assert events == order, events
        failed = arena("submit", host.url, broken, "--wait", env={"ARENA_TOKEN": alice.read_text().strip()})
        assert failed.returncode == 1, failed.stdout + failed.stderr
        assert "failed: build:" in failed.stdout and "bot.py" in failed.stdout
        page = host.client()
        log = state(host, alice, 2)
        assert log["state"] == "failed" and log["reason"].startswith("build: ")
        no_token = arena("submit", host.url, kit, env={"ARENA_TOKEN": ""})
        assert no_token.returncode == 2 and no_token.stderr.startswith("error: no token")
        seed = int(sqlite3.connect(HostPaths.beside(file).db).execute(
            "SELECT value FROM settings WHERE key = 'private_seed'").fetchone()[0])  # fmt: skip
        private_id = _private_tournament(HostPaths.beside(file))
        pages = crawl(host)
        assert len(pages) >= 10, sorted(pages)
        assert any(path.startswith("/t/") for path in pages), "the public boards' pages were not reached"
        for path, text in pages.items():
            assert str(seed) not in text, f"the private seed is in {path}"
            assert private_id not in text, f"the private tournament is named in {path}"
        assert page.get(f"/t/{private_id}/").status == 404, "the private boards' pages are served before the close"
        commitment = page.get("/api/competition").json()["private"]["seed_sha256"]
        assert commitment == hashlib.sha256(str(seed).encode()).hexdigest()
        closed = arena("host", file, "--close")
        assert closed.returncode == 0 and str(seed) in closed.stdout
        # public pages are kept a second (arena.host.cache): the close shows within a reading or two
        after = wait_for(lambda: (now := page.get("/api/competition").json())["closed"] and now, "the close")
        assert after["closed"] and after["private"]["seed"] == seed
        assert after["final"] and after["final"][0]["entrant"] == "alice" and after["final"][0]["games"] == 4
        assert wait_for(lambda: str(seed) in page.get("/").text, "the seed on the page")
        assert after["private"]["tournament"] == private_id
        revealed = page.get(f"/t/{private_id}/")
        assert (
            revealed.status == 200 and "alice.1" in revealed.text and f'href="/t/{private_id}/"' in page.get("/").text
        )
        assert 'by <span class="owner" data-field="owner" title="owner">Alice Example</span>' in revealed.text
        boards = arena("boards", "-d", "beginner", "--seed", str(seed), "-n", "4", "--json")
        assert boards.returncode == 0 and len(json.loads(boards.stdout)) == 4
        (kit / "new.txt").write_text("a change\n")
        refused = arena("submit", host.url, kit, "--token-file", alice)
        assert refused.returncode == 2 and "closed" in refused.stderr
    finally:
        stop_host(host)
    assert host.process.returncode == 0, host.output()
    assert "stopped; every submission received is kept" in host.output()


def _private_tournament(paths: HostPaths) -> str:
    with sqlite3.connect(paths.private_store) as db:
        return str(db.execute("SELECT id FROM tournaments").fetchone()[0])


def _games(store: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(store) as db:
        return [tuple(r) for r in db.execute("SELECT tournament_id, player, board FROM games")]


def test_sigkill_during_a_build_and_during_play_then_restart(tmp_path: Path) -> None:
    file = write_cup(tmp_path / "cup", count=40, private=6)
    paths = HostPaths.beside(file)
    alice, bob = add_entrant(file, "alice"), add_entrant(file, "bob")
    slow = new_bot("slowbuild", "python", tmp_path / "slowbuild").folder
    script = (slow / "build.sh").read_text()
    (slow / "build.sh").write_text(script.replace("#!/bin/sh\n", "#!/bin/sh\necho slow build starts\nsleep 8\n", 1))
    kit = new_bot("kitbot", "python", tmp_path / "kitbot").folder
    host = start_host(file, None, "-w", "2")
    port = host.port
    try:
        first = arena("submit", host.url, slow, "--token-file", alice)
        second = arena("submit", host.url, kit, "--token-file", bob)
        assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
        wait_for(lambda: "slow build starts" in _log(paths, 1), "the slow build to start")
        assert state(host, alice, 1)["state"] == "building"
        host.process.send_signal(signal.SIGKILL)
        host.process.wait()
        wait_for(lambda: not job_processes(paths.folder), "the jobs to die with their host", timeout=60)
        host = start_host(file, port, "-w", "2")
        wait_for(lambda: state(host, bob, 2)["done"] > 0 and state(host, bob, 2)["state"] == "playing", "bob's games")
        host.process.send_signal(signal.SIGKILL)
        host.process.wait()
        wait_for(lambda: not job_processes(paths.folder), "the jobs to die with their host", timeout=60)
        host = start_host(file, port, "-w", "2")
        for token, sid in ((alice, 1), (bob, 2)):
            ended = wait_for(
                lambda t=token, s=sid: state(host, t, s)["state"] in ("ranked", "failed") and state(host, t, s),
                f"submission {sid}",
            )
            assert ended["state"] == "ranked", ended
            ranked = [e for e in ended["events"] if e["state"] in ("ranked", "failed")]
            assert len(ranked) == 1, ended["events"]
        events = state(host, alice, 1)["events"]
        # Built again after the first kill; the second kill (while bob plays) may catch alice's rebuild too,
        # when it is still sleeping: a third build then, depending on the machine's speed, not a fault.
        assert [e["state"] for e in events].count("building") in (2, 3), "the killed build was not made again"
    finally:
        stop_host(host)
    public, private = _games(paths.public_store), _games(paths.private_store)
    assert len(public) == len(set(public)) == 2 * 40, len(public)
    assert len(private) == len(set(private)) == 2 * 6, len(private)
    assert {p for _, p, _ in public} == {"alice.1", "bob.1"}


def _log(paths: HostPaths, submission: int) -> str:
    path = paths.build_log(submission)
    return path.read_text(errors="replace") if path.exists() else ""


def test_backend_dask_plays_a_submission(tmp_path: Path) -> None:
    """``arena host --backend dask``: the games of a submission run on Dask (a local cluster here, as
    ``arena tournament --backend dask`` makes one without ``$DASK_SCHEDULER_ADDRESS``)."""
    file = write_cup(tmp_path / "cup", count=6, private=2)
    alice = add_entrant(file, "alice")
    kit = new_bot("kitbot", "python", tmp_path / "kitbot").folder
    host = start_host(file, None, "-w", "1", "--backend", "dask")
    try:
        done = arena("submit", host.url, kit, "--token-file", alice, "--wait")
        assert done.returncode == 0, done.stdout + done.stderr + host.output()
    finally:
        stop_host(host)
    public = _games(HostPaths.beside(file).public_store)
    assert len(public) == len(set(public)) == 6
