"""How fast the pages are: the leaderboard and a player's page of a 100,000-game tournament, through the app.

Issue 26 asks for the leaderboard of a 100,000-game tournament in at most 0.5 s the first time and 50 ms when
nothing changed and a player's page of it in at most 1 s. This prints each figure beside its target. (`arena
site` of a 5,000-board, six-player Expert tournament: benchmarks/site_scale.py.)

1. A Beginner tournament of 20,000 boards and five players (100,000 games) is played into ``--store`` (it
   resumes: a second run only measures). Each page is asked through the app (Starlette's TestClient, so the
   request, the store's opening, the page's making and its rendering are all counted): first with the caches
   empty ("first"), then ``--rounds`` times more ("again": the median).

    python benchmarks/web_speed.py [--store PATH] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.config import PlayerRef, TournamentConfig
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.store import Store
from engine import PRESETS, FirstClick
from players.registry import Registry

RESULTS = Path(__file__).parent / "results" / "web_speed.json"
SEED = 0
BIG_PLAYERS = ("random", "mean-constraint", "max-single-constraint", "rref", "enumeration")


def play(store: Path, difficulty: str, boards: int, players: tuple[str, ...], workers: int) -> str:
    config = TournamentConfig.build(
        PRESETS[difficulty], FirstClick.SAFE, seed=SEED, games=boards, players=tuple(PlayerRef(name=p) for p in players)
    )
    with Store(store) as db:
        run_tournament(plan_tournament(config, db, Registry(), workers=workers), db)
    return config.id


def timed(client: Any, url: str, rounds: int) -> dict[str, float]:
    from arena.web import data

    data.CACHE.values.clear()
    start = time.perf_counter()
    answer = client.get(url)
    first = time.perf_counter() - start
    assert answer.status_code == 200, (url, answer.status_code, answer.text[:300])
    again = []
    for _ in range(rounds):
        start = time.perf_counter()
        assert client.get(url).status_code == 200
        again.append(time.perf_counter() - start)
    return {"first_s": round(first, 4), "again_s": round(statistics.median(again), 4), "bytes": len(answer.content)}


def player(client: Any, url: str, rounds: int) -> dict[str, float]:
    """A player's page: the first answer (its losses still being judged in the background when the player has
    more than ``SYNC_LOSS_GAMES`` games), the time until they are judged, then the whole page again."""
    from arena.web import data

    data.CACHE.values.clear()
    start = time.perf_counter()
    answer = client.get(url)
    first = time.perf_counter() - start
    assert answer.status_code == 200
    pending = "Judging its" in answer.text
    while "pending" in client.get(url + "?format=json").json()["losses"]:
        time.sleep(0.5)
    ready = time.perf_counter() - start
    again = []
    for _ in range(rounds):
        start = time.perf_counter()
        assert "Expected losses" in client.get(url).text
        again.append(time.perf_counter() - start)
    return {
        "first_s": round(first, 4),
        "first_was_pending": pending,
        "losses_ready_s": round(ready, 2),
        "again_s": round(statistics.median(again), 4),
        "bytes": len(answer.content),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path(tempfile.gettempdir()) / "arena-web-speed.db")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    from starlette.testclient import TestClient

    from arena.web.app import create_app

    big = play(args.store, "beginner", 20_000, BIG_PLAYERS, args.workers)
    client = TestClient(create_app(args.store))
    with Store(args.store, read_only=True) as db:
        games = db.count_games(big)
    pages = {
        "leaderboard": timed(client, f"/t/{big}/", args.rounds),
        "leaderboard_json": timed(client, f"/t/{big}/?format=json", args.rounds),
        "player_random": player(client, f"/t/{big}/p/random/", args.rounds),
        "player_enumeration": player(client, f"/t/{big}/p/enumeration/", args.rounds),
        "games_list": timed(client, f"/t/{big}/p/random/games?outcome=lost&page=3", args.rounds),
        "game": timed(client, f"/t/{big}/g/17/enumeration", args.rounds),
        "tournaments": timed(client, "/", args.rounds),
    }

    result = {
        "tournament": big,
        "games": games,
        "pages": pages,
        "targets": {
            "leaderboard_first_s": 0.5,
            "leaderboard_again_s": 0.05,
            "player_first_s": 1.0,
        },
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load": os.getloadavg()[0]},
    }
    report(result, args.rounds)


def report(result: dict[str, Any], rounds: int) -> None:
    pages, games, big = result["pages"], result["games"], result["tournament"]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"{games:,} games (tournament {big}), Beginner, five players; through the app, first / again (median of "
          f"{rounds}):")  # fmt: skip
    for name, figure in pages.items():
        ready = (
            f"  (losses judged in the background: ready after {figure['losses_ready_s']} s)"
            if (figure.get("first_was_pending"))
            else ""
        )
        print(f"  {name:20} {figure['first_s']:8.3f} s  {1000 * figure['again_s']:8.1f} ms  {figure['bytes']:>9,} bytes"
              f"{ready}")  # fmt: skip
    print("  targets: leaderboard 0.5 s first, 50 ms again; a player's page 1 s")
    print(f"peak memory {result['peak_rss_mb']} MB; results in {RESULTS}")


if __name__ == "__main__":
    main()
