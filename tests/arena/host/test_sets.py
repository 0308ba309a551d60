"""Several board sets in ``arena host`` (``[[sets]]``, issue 36): every submission plays every set's public and
private boards, each set's private boards from the one committed seed (``SEED + i``), and the leaderboard ranks by
points with ``arena compete``'s scorer (arena/competition/standings.py), on the pages and in the API."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.competition.spec import load_competition
from arena.competition.standings import PlayedSet, standings
from arena.host import accounts
from arena.host.app import create_host_app
from arena.host.archive import pack
from arena.host.boards import BoardSets, close, private_seed
from arena.host.db import HostPaths, connect
from arena.kits.new_bot import new_bot
from arena.results.store import Store
from engine.layout import MAX_SEED

#: Two submissions built, checked and played by their jobs, each a process.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

SETS = textwrap.dedent(
    """\
    name = "Three sizes"
    sandbox = "auto"

    [[sets]]
    name = "small"
    width = 6
    height = 6
    mines = 4
    seed = 5
    count = 3

    [[sets]]
    name = "large"
    difficulty = "beginner"
    seed = 9
    count = 2
    points = 3

    [limits]
    move_time = 5.0

    [host]
    private_count = 2
    per_day = 40
    max_archive_mb = 1
    max_files = 200
    max_unpacked_mb = 4
    """
)


def test_every_set_is_played_and_ranked_by_points(tmp_path: Path) -> None:
    file = tmp_path / "cup" / "cup.toml"
    file.parent.mkdir()
    file.write_text(SETS)
    loaded = load_competition(file)
    paths = HostPaths.beside(file)
    db = connect(paths)
    tokens = {name: accounts.add_entrant(db, name, f"{name.title()} Owner") for name in ("ada", "bo")}
    seed = private_seed(db)
    sets = BoardSets(loaded.competition, seed)
    with TestClient(create_host_app(loaded, paths)) as client:
        ids = []
        for name, token in tokens.items():
            archive = pack(new_bot(name, "python", tmp_path / name).folder)
            answer = client.post("/api/submissions", content=archive, headers={"Authorization": f"Bearer {token}"})
            assert answer.status_code == 201, answer.text
            ids.append(answer.json()["id"])
        for sid in ids:  # each submission's job, as the scheduler starts it
            done = subprocess.run(
                [sys.executable, "-m", "arena.host.job", str(paths.folder), str(file), str(sid)],
                capture_output=True, text=True, timeout=900, check=False,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
        subs = {s: client.get(f"/api/submissions/{s}", headers={"Authorization": f"Bearer {t}"}).json()
                for s, t in zip(ids, tokens.values(), strict=True)}  # fmt: skip
        assert [s["state"] for s in subs.values()] == ["ranked", "ranked"], subs
        assert all(s["done"] == s["total"] == 3 + 2 + 2 + 2 for s in subs.values())
        data = client.get("/api/competition").json()
        home = client.get("/").text

        # Each set's public leaderboard has both entrants on its own boards.
        assert [s["name"] for s in data["sets"]] == ["small", "large"]
        assert [[r["games"] for r in s["leaderboard"]] for s in data["sets"]] == [[3, 3], [2, 2]]
        # The points table is arena compete's: standings over the same sets' leaderboards, not a second scorer.
        with Store(paths.public_store, read_only=True) as store:
            from arena.competition.publish import competition_leaderboard

            names = [r["player"].partition("@")[0] for r in data["sets"][0]["leaderboard"]]
            played = [
                PlayedSet(b, tid, competition_leaderboard(store, tid, names))
                for b, tid in zip(sets.sets, sets.ids(False), strict=True)
            ]
            expected = standings(store, played, {})
        points = data["points"]
        assert [(p["rank"], p["points"], p["points_low"], p["points_high"]) for p in points] == [
            (s.rank, s.points, s.points_low, s.points_high) for s in expected
        ]
        for row in points:  # a win on "large" is worth 3
            assert row["points"] == row["sets"]["small"]["wins"] + 3 * row["sets"]["large"]["wins"]
        assert {p["entrant"] for p in points} == {"ada", "bo"} and points[1]["diff"] is not None
        ranks = {s["entrant"]: s["rank"] for s in subs.values()}
        assert ranks == {p["entrant"]: p["rank"] for p in points}
        assert "large win rate" in home and "3 points a win" in home and "Ada Owner" in home
        assert data["final_points"] is None and all(s["private"]["seed"] is None for s in data["sets"])
        assert str(seed) not in client.get("/api/competition").text

        # The close: one seed revealed, each set's private boards from SEED + its place, ranked by points.
        close(db)
        fresh = {"Cookie": "fresh=1"}  # past the one-second cache of anonymous pages (arena/host/cache.py)
        data = client.get("/api/competition", headers=fresh).json()
        assert [s["private"]["seed"] for s in data["sets"]] == [seed, (seed + 1) % (MAX_SEED + 1)]
        assert [[r["games"] for r in s["final"]] for s in data["sets"]] == [[2, 2], [2, 2]]
        assert [p["rank"] for p in data["final_points"]] == [1, 2]
        with Store(paths.private_store, read_only=True) as store:
            seeds = {t.id: t.seed for t in store.tournaments()}
        assert [seeds[s["private"]["tournament"]] for s in data["sets"]] == [seed, (seed + 1) % (MAX_SEED + 1)]
        for tid in sets.ids(True):
            assert client.get(f"/t/{tid}/", headers=fresh).status_code == 200
    db.close()
