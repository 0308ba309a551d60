"""`arena site` at scale: a 5,000-board, six-player Expert tournament written as a static site, timed and weighed.

Issue 26 asks for `arena site` of such a tournament in at most 60 s and 50 MB with `--replays losses` (the
default). This plays the tournament into ``--store`` with the six built-in players (it resumes: a second run
only measures), then runs `arena site OUT` as a user would, in a process of its own, and prints its wall time,
the bytes it wrote (and the disk they take), its files, and the process's peak memory (its maximum resident set).

The pages are not all the work a reader's browser does: the replay viewer computes a position's probabilities
when it shows it. So this also runs the viewer's engine and solver (``solver.js``) in node on every position of
the games of the site's first data file and prints the time per position (median, 99th percentile, worst).

    python benchmarks/site_scale.py [--store PATH] [--boards 5000] [--workers 2] [--losses auto|all]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.config import PlayerRef, TournamentConfig
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.store import Store
from engine import PRESETS, FirstClick
from players.registry import Registry

RESULTS = Path(__file__).parent / "results" / "site_scale.json"
SEED = 0
PLAYERS = ("random", "mean-constraint", "max-single-constraint", "rref", "enumeration", "apex")
TARGET_SECONDS, TARGET_MB = 60, 50

#: Times the viewer's analysis of every position of the games of one data file (node; prints JSON).
NODE_TIMER = r"""
const [solver, chunk, sourceText] = process.argv.slice(2);
require(solver);
const S = globalThis.ArenaSolver;
const source = JSON.parse(sourceText);
let data = null;
globalThis.ArenaReplayData = (d) => { data = d; };
require(chunk);
const times = [];
let games = 0;
for (const entry of Object.values(data.boards)) {
  for (const game of Object.values(entry.games)) {
    const g = Object.assign({}, source.board, game, { layout: game.l === null ? null : entry.layouts[game.l] });
    g.moves = S.decodeMoves(g.moves, g.w, g.cols, g.notes);
    const start = process.hrtime.bigint();
    const played = S.play(g);
    const playMs = Number(process.hrtime.bigint() - start) / 1e6;
    games++;
    played.steps.forEach((step, k) => {
      if (k === played.steps.length - 1 && played.status !== "playing") return;
      const t = process.hrtime.bigint();
      S.positionAnalysis(step.grid, g.rows, g.cols, g.mines, g.rule);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    });
    times.playMs = (times.playMs || 0) + playMs;
  }
}
const sorted = times.slice().sort((a, b) => a - b);
const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
console.log(JSON.stringify({ games, positions: sorted.length, median_ms: at(0.5), p99_ms: at(0.99),
  max_ms: sorted[sorted.length - 1], play_ms_per_game: times.playMs / games }));
"""


def play(store: Path, boards: int, workers: int) -> str:
    config = TournamentConfig.build(
        PRESETS["expert"], FirstClick.SAFE, seed=SEED, games=boards, players=tuple(PlayerRef(name=p) for p in PLAYERS)
    )
    with Store(store) as db:
        run_tournament(plan_tournament(config, db, Registry(), workers=workers), db)
    return config.id


def disk_usage(folder: Path) -> tuple[int, int, int]:
    """(bytes of the files, bytes of disk they take, files) under ``folder``."""
    size = disk = files = 0
    for path in folder.rglob("*"):
        if path.is_file():
            stat = path.stat()
            size += stat.st_size
            disk += stat.st_blocks * 512
            files += 1
    return size, disk, files


def write_site(store: Path, tid: str, out: Path, losses: str) -> dict[str, Any]:
    """`arena site` in a process of its own: its wall time and peak memory (the children's maximum RSS)."""
    command = [sys.executable, "-c", "from arena.cli import main; main()", "site", str(out), tid]
    command += ["--store", str(store), "--replays", "losses", "--losses", losses]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    size, disk, files = disk_usage(out)
    return {
        "losses": losses,
        "seconds": round(seconds, 2),
        "cpu_seconds": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
        "megabytes": round(size / 1e6, 2),
        "disk_megabytes": round(disk / 1e6, 2),
        "files": files,
        "peak_rss_mb": round(after.ru_maxrss / 1024, 1),
        "said": result.stdout.strip().splitlines()[-1],
    }


def time_viewer(out: Path, tid: str) -> dict[str, Any] | None:
    node = shutil.which("node")
    if node is None:
        return None
    from importlib import resources

    from arena.web import site_data

    solver = resources.files("arena.analysis.replay").joinpath("assets", "solver.js")
    page = (out / "t" / tid / "game.html").read_text(encoding="utf-8")
    start = page.index('id="replay-source">') + len('id="replay-source">')
    source = page[start : page.index("</script>", start)]
    first = out / "t" / tid / "games" / "0.js"
    script = Path(tempfile.mkdtemp()) / "timer.js"
    script.write_text(NODE_TIMER, encoding="utf-8")
    answer = subprocess.run(
        [node, str(script), str(solver), str(first), source], capture_output=True, text=True, check=True
    )
    found = json.loads(answer.stdout)
    found["boards"] = site_data.CHUNK
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path(tempfile.gettempdir()) / "arena-site-scale.db")
    parser.add_argument("--boards", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--losses",
        default="auto",
        choices=("auto", "all"),
        help="all: judge every player's losses too (minutes); results in site_scale_losses_all.json.",
    )
    args = parser.parse_args()

    start = time.perf_counter()
    tid = play(args.store, args.boards, args.workers)
    played = time.perf_counter() - start
    with Store(args.store, read_only=True) as db:
        games = int(db.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ?", (tid,)).fetchone()[0])
        lost = int(
            db.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ? AND won = 0", (tid,)).fetchone()[0]
        )
    out = Path(tempfile.mkdtemp(prefix="arena-site-scale-")) / "site"
    site = write_site(args.store, tid, out, args.losses)
    viewer = time_viewer(out, tid)
    shutil.rmtree(out.parent)
    result = {
        "tournament": tid,
        "boards": args.boards,
        "players": len(PLAYERS),
        "games": games,
        "games_not_won": lost,
        "play_seconds_this_run": round(played, 1),
        "site": site,
        "viewer": viewer,
        "targets": {"seconds": TARGET_SECONDS, "megabytes": TARGET_MB},
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load": os.getloadavg()[0]},
    }
    results = RESULTS if args.losses == "auto" else RESULTS.with_name("site_scale_losses_all.json")
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(
        f"Expert, {args.boards:,} boards, {len(PLAYERS)} players: {games:,} games, {lost:,} not won (tournament {tid})"
    )
    print(
        f"arena site --replays losses --losses {args.losses}: {site['seconds']} s wall ({site['cpu_seconds']} s CPU), "
        f"{site['megabytes']} MB in {site['files']:,} files ({site['disk_megabytes']} MB on disk), "
        f"peak memory {site['peak_rss_mb']} MB; target {TARGET_SECONDS} s and {TARGET_MB} MB"
    )
    print(f"  it said: {site['said']}")
    if viewer is not None:
        print(
            f"the viewer (node), {viewer['games']} games of {viewer['boards']} boards, {viewer['positions']:,} "
            f"positions: {viewer['median_ms']:.2f} ms a position (median), {viewer['p99_ms']:.2f} ms (99%), "
            f"{viewer['max_ms']:.1f} ms worst; {viewer['play_ms_per_game']:.2f} ms to play a game's moves"
        )
    print(f"results in {results}")


if __name__ == "__main__":
    main()
