"""`arena host` under load: one submission to its leaderboard row, a burst of submissions, pages while they play.

Issue 35 asks, on 2 cores: from `arena submit` of the Python kit to its row on a 200-public-board leaderboard in at
most 60 s; 30 submissions arriving in one minute all played; pages answering within 100 ms at the 95th percentile
for 20 concurrent readers while games are played. This runs a real `arena host` on 127.0.0.1 (loopback only) in a
temporary folder and measures the three, each loop bounded:

1. ``--boards`` public boards (Beginner), ``-w --workers``: `arena submit` of the Python kit, timed from the
   command's start to the entrant's row on `/api/competition` (its build in the sandbox, its checks, its games);
2. ``--burst`` submissions (``--entrants`` entrants, each sending its kit with a different comment) sent within a
   minute, on a competition of ``--burst-boards`` public boards: the time until every one has ended, and how
   many ranked;
3. while (2) plays, ``--readers`` threads each read the competition page, its JSON and the public leaderboard
   page ``--reads`` times; the latency's median, 95th percentile and worst; then the same once every game is
   played (``idle_``), which tells the pages' own cost from that of the games sharing the cores. Each page's
   first read (which makes it: nothing is kept yet) is timed apart (``first_read_ms``). Meanwhile each
   submission's state is asked once a second with its entrant's token, as ``arena submit --wait`` does; the
   machine's load is sampled every few seconds (``load_during``).

    python benchmarks/host_speed.py [--boards 200] [--burst 30] [--entrants 10] [--readers 20] [--workers 2]

Results go to benchmarks/results/host_speed.json.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from arena.host.client import upload
from arena.kits.new_bot import new_bot

RESULTS = Path(__file__).parent / "results" / "host_speed.json"
ARENA = str(Path(sys.executable).with_name("arena"))
TARGET_ROW_SECONDS, TARGET_P95_MS = 60.0, 100.0


def cup(folder: Path, boards: int, private: int) -> Path:
    folder.mkdir(parents=True)
    file = folder / "cup.toml"
    file.write_text(
        f'name = "Speed cup"\nsandbox = "auto"\n\n[boards]\ndifficulty = "beginner"\nseed = 1\ncount = {boards}\n\n'
        f"[host]\nprivate_count = {private}\nper_day = 1000\n",
        encoding="utf-8",
    )
    return file


def entrant(file: Path, name: str) -> str:
    done = subprocess.run(
        [ARENA, "entrant", "add", str(file), name, "--owner", name.title(), "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return str(json.loads(done.stdout)["token"])


def get(port: int, path: str, token: str | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})
    answer = connection.getresponse()
    body = answer.read()
    connection.close()
    return answer.status, body


class Host:
    def __init__(self, file: Path, port: int, workers: int) -> None:
        self.port = port
        self.log = (file.parent / "host.log").open("wb")
        self.process = subprocess.Popen(
            [ARENA, "host", str(file), "--port", str(port), "-w", str(workers)], stdout=self.log, stderr=self.log
        )
        deadline = time.monotonic() + 120
        while True:
            try:
                if get(port, "/api/competition")[0] == 200:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise SystemExit("arena host did not start")
            time.sleep(0.2)

    def competition(self) -> dict[str, Any]:
        return dict(json.loads(get(self.port, "/api/competition")[1]))

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(120)
        self.log.close()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def submit(url: str, folder: Path, token: str) -> int:
    done = subprocess.run(
        [ARENA, "submit", url, str(folder)], capture_output=True, text=True, env={**os.environ, "ARENA_TOKEN": token}
    )
    if done.returncode != 0:
        raise SystemExit(f"arena submit failed: {done.stderr}")
    return int(done.stdout.split()[1].rstrip(":"))


def one_row(root: Path, boards: int, workers: int) -> dict[str, Any]:
    file = cup(root / "row", boards, private=max(1, boards // 10))
    token = entrant(file, "alice")
    kit = new_bot("kitbot", "python", root / "row-kit").folder
    host = Host(file, free_port(), workers)
    try:
        started = time.perf_counter()
        submit(f"http://127.0.0.1:{host.port}/", kit, token)
        while True:
            rows = host.competition()["leaderboard"] or []
            if any(r["entrant"] == "alice" and r["games"] == boards for r in rows):
                break
            if time.perf_counter() - started > 1800:
                raise SystemExit("the row did not appear within 30 minutes")
            time.sleep(0.25)
        seconds = time.perf_counter() - started
        _, body = get(host.port, "/api/submissions/1", token)
        events = json.loads(body)["events"]
        first = events[0]["at"]
        stages = {e["state"]: round(e["at"] - first, 1) for e in events}
    finally:
        host.stop()
    return {"boards": boards, "workers": workers, "seconds_to_row": round(seconds, 1), "stages_at": stages}


def burst(root: Path, count: int, entrants: int, boards: int, readers: int, reads: int, workers: int) -> dict[str, Any]:
    file = cup(root / "burst", boards, private=max(1, boards // 5))
    tokens = [entrant(file, f"e{n}") for n in range(entrants)]
    kit = new_bot("kitbot", "python", root / "burst-kit").folder
    host = Host(file, free_port(), workers)
    url = f"http://127.0.0.1:{host.port}/"
    latencies: list[float] = []
    idle: list[float] = []
    by_path: dict[str, list[float]] = {}
    failures: list[str] = []
    lock = threading.Lock()
    tid = host.competition()["public"]["tournament"]

    def reader(latencies: list[float]) -> None:
        for n in range(reads):
            path = ("/", "/api/competition", f"/t/{tid}/")[n % 3]
            started = time.perf_counter()
            status, _ = get(host.port, path)
            took = time.perf_counter() - started
            with lock:
                latencies.append(took)
                if latencies is not idle:
                    by_path.setdefault(path.split("/")[1] or "/", []).append(took)
                if status >= 500:
                    failures.append(f"{path}: {status}")
            time.sleep(0.05)

    try:
        folders = []
        for n in range(count):
            folder = root / f"burst-{n}"
            shutil.copytree(kit, folder)
            (folder / "strategy.py").write_text(
                (kit / "strategy.py").read_text() + f"\n# variant {n}\n", encoding="utf-8"
            )
            folders.append(folder)
        started = time.perf_counter()
        # They arrive within the minute, one every 60/count seconds (`arena submit`'s packing and upload, in this
        # process: what is measured is the server, not the start-up of thirty `arena` processes).
        for n, folder in enumerate(folders):
            upload(url, folder, tokens[n % entrants])
            time.sleep(max(0.0, started + (n + 1) * 60 / count - time.perf_counter()))
        sent = time.perf_counter() - started
        # Each page's first read makes it (the page cache has nothing yet): timed apart, as what one visitor waits
        # once; the readers then measure the pages as a competition serves them all day, while games are played.
        cold = {}
        for path in ("/", "/api/competition", f"/t/{tid}/"):
            before = time.perf_counter()
            get(host.port, path)
            cold[path] = round(1000 * (time.perf_counter() - before), 1)
        threads = [threading.Thread(target=reader, args=(latencies,)) for _ in range(readers)]
        for thread in threads:
            thread.start()
        loads: list[float] = []
        while True:
            loads.append(os.getloadavg()[0])
            states = []
            for n in range(count):
                _, body = get(host.port, f"/api/submissions/{n + 1}", tokens[n % entrants])
                states.append(json.loads(body)["state"])
            if all(s in ("ranked", "failed") for s in states):
                break
            if time.perf_counter() - started > 3600:
                raise SystemExit("the burst did not end within an hour")
            time.sleep(1.0)
        ended = time.perf_counter() - started
        for thread in threads:
            thread.join()
        # The same readers once every game is played: what the pages cost with the cores free of games.
        threads = [threading.Thread(target=reader, args=(idle,)) for _ in range(readers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        host.stop()
    ms = sorted(1000 * x for x in latencies)
    quiet = sorted(1000 * x for x in idle)
    return {
        "submissions": count,
        "entrants": entrants,
        "public_boards": boards,
        "workers": workers,
        "seconds_to_send": round(sent, 1),
        "seconds_until_all_ended": round(ended, 1),
        "ranked": states.count("ranked"),
        "failed": states.count("failed"),
        "readers": readers,
        "reads": len(ms),
        "read_ms_median": round(statistics.median(ms), 1),
        "read_ms_p95": round(ms[int(0.95 * (len(ms) - 1))], 1),
        "read_ms_worst": round(ms[-1], 1),
        "first_read_ms": cold,
        "read_ms_p95_by_path": {k: round(1000 * sorted(v)[int(0.95 * (len(v) - 1))], 1) for k, v in by_path.items()},
        "read_errors": failures[:10],
        "load_during": [round(min(loads), 1), round(statistics.mean(loads), 1), round(max(loads), 1)],
        "idle_read_ms_median": round(statistics.median(quiet), 1),
        "idle_read_ms_p95": round(quiet[int(0.95 * (len(quiet) - 1))], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--burst", type=int, default=30)
    parser.add_argument("--entrants", type=int, default=10)
    parser.add_argument("--burst-boards", type=int, default=20)
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--reads", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--skip-row", action="store_true", help="Measure the burst only (the last row is kept).")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="host-speed-"))
    result: dict[str, Any] = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(), "load": os.getloadavg()},
        "targets": {"seconds_to_row": TARGET_ROW_SECONDS, "read_ms_p95": TARGET_P95_MS},
    }
    try:
        if not args.skip_row:
            result["row"] = one_row(root, args.boards, args.workers)
            print(json.dumps(result["row"]), flush=True)
        elif RESULTS.exists():  # the last run's row is kept
            result["row"] = json.loads(RESULTS.read_text(encoding="utf-8")).get("row")
        result["burst"] = burst(
            root, args.burst, args.entrants, args.burst_boards, args.readers, args.reads, args.workers
        )
        print(json.dumps(result["burst"]), flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    result["machine"]["load_after"] = os.getloadavg()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
