"""A competition's points table as a page of its site (``write_site(points=...)``, ``arena compete`` of several
board sets), in headless Chromium at a desktop's and a phone's width: every entrant's row, each set linked to its
tournament's leaderboard, and what an entrant wrote shown as text, never markup."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import arena, chromium

from arena.analysis.leaderboard import build_leaderboard
from arena.competition.spec import BoardSet
from arena.competition.standings import PlayedSet, standings
from arena.results.store import Store
from arena.web.site import write_site

EVIL = "<img src=x onerror=\"document.title='owned'\">"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("points")
    store = folder / "s.db"
    sets = [("small", "8x8", 10, 1.0), ("large", "16x16", 40, 2.0)]
    played = []
    for name, size, mines, points in sets:
        arena("tournament", "--size", size, "--mines", mines, "--first-click", "zero", "-n", "12", "-p",
              "random,mean-constraint", "--store", store, "-w", "1", "-q", "--json")  # fmt: skip
        with Store(store, create=False, read_only=True) as db:
            tid = db.latest()
            leaderboard = build_leaderboard(db, tid)
        height, width = map(int, size.split("x"))
        board_set = BoardSet(name=name, width=width, height=height, mines=mines, first_click="zero", points=points)
        played.append(PlayedSet(board_set, tid, leaderboard))
    with Store(store, create=False, read_only=True) as db:
        table = standings(db, played, {"random": EVIL, "mean-constraint": "staff"})
    data = {
        "competition": {"name": "Course <cup>"},
        "sets": [
            {"name": p.board_set.name, "points": p.board_set.points, "tournament_id": p.tournament_id} for p in played
        ],
        "points": [row.model_dump(mode="json") for row in table],
    }
    write_site(store, folder / "site", [p.tournament_id for p in played], points=data)
    return folder / "site", data


@pytest.mark.parametrize("width", [1280, 390])
def test_the_points_page_shows_every_entrant_and_links_every_set(
    browser: Any, site: tuple[Path, dict[str, Any]], width: int, tmp_path: Path
) -> None:
    folder, data = site
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto((folder / "points.html").as_uri())
    assert page.title().startswith("Course <cup>: points")  # text: the title element holds it escaped
    rows = page.locator("#points tbody tr")
    assert rows.count() == 2
    texts = [rows.nth(i).inner_text() for i in range(2)]
    assert [t.split()[0] for t in texts] == ["1", "2"]
    assert any(EVIL in t for t in texts), texts  # the owner's markup is shown as its text
    assert page.locator("#points img").count() == 0 and page.title() != "owned"
    links = page.locator("header.head a")
    assert [links.nth(i).inner_text() for i in range(links.count())] == ["small", "large"]
    page.screenshot(path=str(tmp_path / f"points-{width}.png"), full_page=True)
    links.nth(1).click()
    page.wait_for_load_state()
    assert f"t/{data['sets'][1]['tournament_id']}/index.html" in page.url
    page.close()


def test_the_points_page_is_in_the_sites_manifest(site: tuple[Path, dict[str, Any]]) -> None:
    folder, _ = site
    manifest = json.loads((folder / ".arena-site.json").read_text())
    assert "points.html" in manifest["files"]
