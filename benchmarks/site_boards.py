"""The board pages of `arena site` at scale: every board of a 5,000-board, six-player Expert tournament written
as the site's board data files (``arena.web.board_data``), timed and weighed.

`benchmarks/site_scale.py` measures the whole site of such a tournament (24 s and 40 MB before the board pages,
benchmarks/results/site_scale.json), after playing it (many minutes of Expert games). The board pages' part
depends only on the games' rows, not on how they were played: so this stores 30,000 made-up games (each player
clicking first at a cell of its own on every board: six layouts a board, the most data a board can have), then
writes the board data and the site's board page as `arena site` does, and prints the time, the bytes and the
files, beside the rest of the site as site_scale.json measured it.

    python benchmarks/site_boards.py [--boards 5000] [--players 6]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

from arena.config import PlayerRef, TournamentConfig
from arena.outcome import GameResult, Outcome
from arena.results.store import Store
from arena.web import board_data, data, pages_more
from arena.web.links import SiteLinks, site_path
from arena.web.render import render_page
from engine import PRESETS, FirstClick

RESULTS = Path(__file__).parent / "results" / "site_boards.json"
SITE_SCALE = Path(__file__).parent / "results" / "site_scale.json"


def fill(store: Path, boards: int, players: int) -> str:
    """A tournament of ``boards`` Expert boards and ``players`` players, its games made up (seeded)."""
    names = tuple(PlayerRef(name=f"bot{i}") for i in range(players))
    config = TournamentConfig.build(PRESETS["expert"], FirstClick.SAFE, seed=0, games=boards, players=names)
    rng = np.random.default_rng(0)
    outcomes = (Outcome.WON, Outcome.LOST, Outcome.LOST, Outcome.ERROR)
    with Store(store) as db:
        db.ensure_tournament(config, {})
        for start in range(0, boards, 500):
            games = []
            for board in range(start, min(boards, start + 500)):
                for i, ref in enumerate(names):
                    outcome = outcomes[int(rng.integers(len(outcomes)))]
                    row, col = (i * 2) % 16, (i * 5) % 30  # a first click of its own: a layout of its own
                    error = "ValueError: a made-up failure\nTraceback ..." if outcome is Outcome.ERROR else ""
                    moves = int(rng.integers(1, 300))
                    games.append(
                        GameResult(ref.key, board, outcome, moves, moves, 0, 0, int(rng.integers(0, 5)), 150,
                                   int(rng.integers(0, 150)), 200, row, col, float(rng.random() * 50), 1.0, error)
                    )  # fmt: skip
            db.save(config.id, games)
    return config.id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=5000)
    parser.add_argument("--players", type=int, default=6)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="arena-site-boards-"))
    tid = fill(folder / "arena.db", args.boards, args.players)
    written: dict[str, int] = {}

    def put(path: str, content: str) -> None:
        target = folder / "site" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        raw = content.encode("utf-8")
        target.write_bytes(raw)
        written[path] = len(raw)

    start = time.perf_counter()
    cpu = time.process_time()
    with data.reading(folder / "arena.db") as db:
        slugs = {row["player"]: slug for slug, row in data.players(db, tid).items()}
        files = board_data.write_boards(
            db, tid, slugs, lambda key, board: False, put, lambda n: site_path("boards-data", tid, n)
        )
        viewer = site_path("board-viewer", tid)
        put(viewer, render_page(pages_more.board_viewer_page(db, tid, SiteLinks(viewer)), SiteLinks(viewer)))
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    size = sum(written.values())
    before = json.loads(SITE_SCALE.read_text(encoding="utf-8"))["site"] if SITE_SCALE.is_file() else None
    result = {
        "boards": args.boards,
        "players": args.players,
        "games": args.boards * args.players,
        "layouts_per_board": args.players,
        "board_files": files + 1,
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu_seconds, 2),
        "megabytes": round(size / 1e6, 2),
        "largest_file_kb": round(max(written.values()) / 1e3, 1),
        "site_before": {k: before[k] for k in ("seconds", "megabytes", "files")} if before else None,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load": os.getloadavg()[0]},
    }
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(
        f"board pages of {args.boards:,} Expert boards, {args.players} players ({args.players} layouts a board): "
        f"{files + 1} files, {size / 1e6:.2f} MB (largest {result['largest_file_kb']} kB) in {seconds:.2f} s "
        f"({cpu_seconds:.2f} s CPU), load {result['machine']['load']:.1f}"
    )
    if before:
        print(
            f"the rest of such a site (site_scale.json): {before['seconds']} s, {before['megabytes']} MB, "
            f"{before['files']:,} files"
        )
    print(f"results in {RESULTS}")


if __name__ == "__main__":
    main()
