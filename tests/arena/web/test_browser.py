"""The pages as a person meets them: Debian's Chromium driven by playwright through the served app (uvicorn on
127.0.0.1) and through the static site (``file://``), every request watched (none may leave 127.0.0.1 or the
site's folder), the pages' errors collected, and the hostile bot's payloads checked never to run.

Screenshots of each kind of page at 1280 and 390 pixels wide go to ``$ARENA_WEB_SCREENSHOTS`` when set (to be
looked at), else to a temporary folder.
"""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from web_support import IMAGE, SCRIPT, SLOW_SOURCE, Stored, arena

from arena.web.board_data import CHUNK as BOARD_CHUNK
from arena.web.site import write_site
from arena.web.site_data import CHUNK

#: The hostile bot (tests/web_support.py): a page showing one of its games is opened in Chromium for each way its
#: game ended.
HOSTILE = "evil"


@dataclass
class Tab:
    page: Any
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def site(stored: Stored, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site") / "out"
    write_site(stored.path, folder)
    return folder


@pytest.fixture
def open_tab(browser) -> Iterator[Callable[..., Tab]]:
    """``open_tab(allowed_prefix, width)``: a page whose every request outside ``allowed_prefix`` is aborted."""
    opened: list[tuple[Any, Tab]] = []

    def open_(allowed: str, width: int = 1280) -> Tab:
        context = browser.new_context(viewport={"width": width, "height": 900})
        tab = Tab(page=None)
        context.on("request", lambda request: tab.requests.append(request.url))
        context.route(
            "**/*", lambda route: route.continue_() if route.request.url.startswith(allowed) else route.abort()
        )
        page = context.new_page()
        page.on("pageerror", lambda error: tab.errors.append(str(error)))
        page.on("console", lambda message: tab.errors.append(message.text) if message.type == "error" else None)
        tab.page = page
        opened.append((context, tab))
        return tab

    yield open_
    for context, tab in opened:
        context.close()
        assert tab.errors == [], tab.errors


def shoot(tab: Tab, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("ARENA_WEB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(folder / name), full_page=True)


def follow(tab: Tab, target: Any) -> None:
    """Click a link (a selector or a locator) and wait until its page has loaded: reading the page straight
    after a click could read the page before it."""
    with tab.page.expect_navigation():
        if isinstance(target, str):
            tab.page.click(target)
        else:
            target.click()


def not_pwned(tab: Tab) -> None:
    assert tab.page.evaluate("() => window.pwned === undefined")


def figures(tab: Tab) -> dict[str, dict[str, str]]:
    """The leaderboard's rows as the DOM holds them: player -> field -> data-v."""
    return tab.page.evaluate(
        """() => Object.fromEntries(Array.from(document.querySelectorAll('#leaderboard tr[data-player]')).map(tr => [
            tr.dataset.player,
            Object.fromEntries(Array.from(tr.querySelectorAll('[data-field]')).map(e => [e.dataset.field,
                e.dataset.v === undefined ? e.textContent.trim() : e.dataset.v]).concat(
                Array.from(tr.querySelectorAll('[data-high]')).map(e => ['ci_high', e.dataset.high])))]))"""
    )


def origins(served, site: Path) -> list[tuple[str, str, str]]:
    """(name, allowed prefix, leaderboard address) for the served app and the static site."""
    return [
        ("served", served.url + "/", served.url + "/"),
        ("site", site.as_uri() + "/", (site / "index.html").as_uri()),
    ]


@pytest.mark.slow
def test_leaderboard_numbers_equal_the_cli(open_tab, served, site, stored: Stored):
    cli = json.loads(arena("leaderboard", stored.tournament, "--json", "--store", stored.path).stdout)
    for name, allowed, home in origins(served, site):
        tab = open_tab(allowed)
        tab.page.goto(home)
        follow(tab, f'tr[data-tournament="{stored.tournament}"] a')
        shown = figures(tab)
        assert list(shown) == [row["player"] for row in cli["rows"]], name
        for row in cli["rows"]:
            mine = shown[row["player"]]
            assert int(mine["rank"]) == row["rank"] and int(mine["games"]) == row["games"]
            for key in ("win_rate", "ci_low", "ci_high", "guesses_per_game", "ms_per_game", "bbbv_solved_fraction"):
                assert float(mine[key]) == row[key], (name, row["player"], key)
            assert int(mine["failed"]) == row["failed"]
            if row["diff"] is not None:
                assert float(mine["diff"]) == row["diff"] and float(mine["p_value"]) == row["p_value"]
        assert tab.page.inner_text('#leaderboard tr[data-player="evil"] [data-field="version"]') == (
            "v<script>window.pwned=1</script>"
        )
        not_pwned(tab)
        assert all(url.startswith(allowed) for url in tab.requests), tab.requests


@pytest.mark.slow
def test_sorting_by_a_column(open_tab, served, stored: Stored):
    tab = open_tab(served.url + "/")
    tab.page.goto(f"{served.url}/t/{stored.tournament}/")
    before = tab.page.eval_on_selector_all("#leaderboard tr[data-player]", "rows => rows.map(r => r.dataset.player)")
    tab.page.click("#leaderboard th:has-text('ms/g')")
    tab.page.click("#leaderboard th:has-text('ms/g')")  # descending
    ms = tab.page.eval_on_selector_all('#leaderboard [data-field="ms_per_game"]', "els => els.map(e => +e.dataset.v)")
    assert ms == sorted(ms, reverse=True) and len(ms) == len(before) == 3


@pytest.mark.slow
def test_leaderboard_to_player_to_a_loss_to_its_replay(open_tab, served, site, stored: Stored):
    for _name, allowed, home in origins(served, site):
        tab = open_tab(allowed)
        tab.page.goto(home)
        follow(tab, f'tr[data-tournament="{stored.tournament}"] a')
        follow(tab, '#leaderboard tr[data-player="random"] a[data-field="player"]')
        assert tab.page.inner_text("h1") == "random"
        loss = tab.page.locator("#losses a.board-link").first
        board = loss.get_attribute("data-board")
        follow(tab, loss)
        tab.page.wait_for_selector("body[data-ready='1']")  # the site's viewer loads the game's data file first
        assert f"random · beginner board {board} of seed 5" in tab.page.inner_text("#title")
        tab.page.keyboard.press("End")
        assert tab.page.get_attribute("#step", "data-step") != "0"
        assert tab.page.query_selector_all('.cell[data-fatal="1"]') or "failed" in tab.page.inner_text("body")
        not_pwned(tab)
        assert all(url.startswith(allowed) for url in tab.requests), tab.requests


def _per_board(url: str) -> tuple[int, tuple[str, ...]] | None:
    """The board of a page drawn for one board (a replay: ``/t/T/g/N/a[/vs/b]`` served, ``game.html?board=N&player=a
    [&vs=b]`` in the site; a board's page: ``/t/T/b/N/``, ``board.html?board=N``) and the page's kind (which page,
    whose games, its query's keys: everything but the board); None for any other page."""
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qs(parts.query)
    keys = tuple(sorted(k for k in query if k not in ("board", "player", "vs")))
    name = parts.path.rsplit("/", 1)[-1]
    if name in ("game.html", "board.html") and "board" in query:
        return int(query["board"][0]), (name, *query.get("player", []), *query.get("vs", []), *keys)
    found = re.search(r"/t/[^/]+/(?:g/(\d+)/([^/]+)(?:/vs/([^/]+))?|b/(\d+))/?$", parts.path)
    if found is None:
        return None
    board, a, b, shown = found.groups()
    if shown is not None:
        return int(shown), ("board", *keys)
    return int(board), ("game", *(urllib.parse.unquote(n) for n in (a, b) if n), *keys)


def hostile_outcomes(site: Path) -> dict[int, str]:
    """The hostile bot's outcome on each board, from the site's board data (the site and the server show one
    store)."""
    outcomes: dict[int, str] = {}
    for data in site.glob("t/*/boards/*.js"):
        text = data.read_text(encoding="utf-8").strip()
        for board, shown in json.loads(text[len("ArenaBoardData(") : -2])["boards"].items():
            outcomes.update({int(board): game[1] for game in shown["games"] if game[0] == HOSTILE})
    return outcomes


def _check_cheaply(url: str, board: int, kind: tuple[str, ...]) -> list[str]:
    """A page drawn for one board, of a kind Chromium has already opened for a board where the hostile bot's game
    (if it shows one) ended the same way, checked without the browser; its links.

    Served: the page answers 200, is not the error page and holds neither payload unescaped (the competition's
    name, on every page, is one). Site: every replay is the one viewer page and every board's page the one board
    page (each opened in Chromium for its first board of each kind), over data files; the file of the address's
    board holds the game of each player it names (else the page could not show it)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file":
        folder = Path(urllib.parse.unquote(parts.path)).parent
        if kind[0] == "board.html":
            data, call = folder / "boards" / f"{board // BOARD_CHUNK}.js", "ArenaBoardData("
        else:
            data, call = folder / "games" / f"{board // CHUNK}.js", "ArenaReplayData("
        text = data.read_text(encoding="utf-8").strip()
        assert text.startswith(call) and text.endswith(");"), data
        shown = json.loads(text[len(call) : -2])["boards"][str(board)]["games"]
        players = {game[0] for game in shown} if kind[0] == "board.html" else set(shown)
        named = urllib.parse.parse_qs(parts.query)
        assert set(named.get("player", []) + named.get("vs", [])) <= players, (url, sorted(players))
        return []
    with urllib.request.urlopen(url) as answer:
        assert answer.status == 200, (url, answer.status)
        page = answer.read().decode("utf-8")
    assert 'class="head error"' not in page, url
    assert SCRIPT not in page and IMAGE not in page, f"a payload unescaped in {url}"
    anchors = re.findall(r"<a\s([^>]*)>", page)
    hrefs = [re.search(r'href="([^"]*)"', a) for a in anchors if not re.search(r"\bdownload\b", a)]
    return [urllib.parse.urljoin(url, html.unescape(h[1])).split("#")[0] for h in hrefs if h]


def crawl(tab: Tab, start: str, allowed: str, outcomes: dict[int, str]) -> tuple[int, int]:
    """Open every page linked from ``start`` (within ``allowed``); each must be a page, not an error page.

    A page drawn for one board (a replay, a board's page) is opened in Chromium for the first board of its kind
    on which the hostile bot's game ended each way (``outcomes``: an error with its message and stderr, a loss,
    a win, each with its notes; none for a page without its games); the same kind of page for another board
    differs only in the moves shown, the hostile bot's texts being the same in every game, and is checked by
    ``_check_cheaply``. Returns (pages, pages opened in Chromium)."""
    seen: set[str] = set()
    viewed: set[tuple[object, ...]] = set()
    opened = 0
    todo = [start]
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        drawn = _per_board(url)
        if drawn is not None:
            board, kind = drawn
            key = (*kind, outcomes[board] if HOSTILE in kind or kind[0] in ("board", "board.html") else None)
            if key in viewed:
                todo.extend(h for h in _check_cheaply(url, board, kind) if h.startswith(allowed) and h not in seen)
                continue
            viewed.add(key)
        opened += 1
        answer = tab.page.goto(url)
        assert answer is None or answer.status == 200, (url, answer.status)
        assert tab.page.query_selector(".head.error") is None, url
        not_pwned(tab)
        # Every link but the downloads (leaderboard.csv and the rest: files, not pages).
        hrefs = tab.page.eval_on_selector_all("a[href]:not([download])", "els => els.map(e => e.href.split('#')[0])")
        todo.extend(h for h in hrefs if h.startswith(allowed) and h not in seen)
    return len(seen), opened


@pytest.mark.slow
def test_a_crawl_finds_no_error_page(open_tab, served, site):
    outcomes = hostile_outcomes(site)
    assert {"error", "lost"} <= set(outcomes.values()), outcomes  # the hostile bot's texts of each kind are shown
    for name, allowed, home in origins(served, site):
        tab = open_tab(allowed)
        pages, opened = crawl(tab, home, allowed, outcomes)
        print(f"{name}: {pages} pages, {opened} opened in Chromium")
        assert pages > 60, (name, pages)  # every leaderboard, player, games list, comparison, board and replay
        assert opened < pages / 2, (name, opened, pages)  # the other boards' pages of each kind: checked cheaply
        assert all(url.startswith(allowed) for url in tab.requests), tab.requests
    site_pages = {p for p in site.rglob("*.html")}
    assert len(site_pages) > 20  # the replays are one page, game.html?board=N&player=NAME, crawled at each address


@pytest.mark.slow
def test_screenshots_of_each_kind_of_page(open_tab, served, stored: Stored, tmp_path: Path):
    t = stored.tournament
    base = served.url
    games = json.loads(urllib.request.urlopen(f"{base}/t/{t}/p/random/games?outcome=lost&format=json").read())
    lost = games["games"][0]["board"]
    diff = json.loads(urllib.request.urlopen(f"{base}/t/{t}/diff/mean-constraint/random/?format=json").read())
    split = (diff["only_a"] + diff["only_b"])[0]
    kinds = {
        "tournaments": "/",
        "leaderboard": f"/t/{t}/",
        "player": f"/t/{t}/p/evil/",
        "player-random": f"/t/{t}/p/random/",
        "games": f"/t/{t}/p/random/games?outcome=lost",
        "game": f"/t/{t}/g/{lost}/random",
        "pair": f"/t/{t}/g/{split}/mean-constraint/vs/random",
        "diff": f"/t/{t}/diff/mean-constraint/random/",
        "pairs": f"/t/{t}/pairs/",
        "convergence": f"/t/{t}/convergence/",
        "board": f"/t/{t}/b/{lost}/",
        "versions": "/v/evil/",
        "not-found": f"/t/{t}/p/nobody/",
    }
    for width in (1280, 390):
        tab = open_tab(base + "/", width)
        for kind, path in kinds.items():
            tab.page.goto(base + path)
            if kind in ("game", "pair"):
                tab.page.keyboard.press("End")
            # Nothing wider than the window but the tables' own scrolling boxes.
            overflow = tab.page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, (kind, width, overflow)
            if kind == "tournaments":  # the index's few columns fit a phone: no scrolling to see when
                table = "document.querySelector('#tournaments table')"
                assert tab.page.evaluate(f"() => {table}.scrollWidth - {table}.parentElement.clientWidth") <= 0
            shoot(tab, f"{kind}-{width}.png", tmp_path)
            not_pwned(tab)
            if kind == "not-found":  # the browser logs the 404 it was shown: the one error expected
                assert tab.errors == ["Failed to load resource: the server responded with a status of 404 (Not Found)"]
                tab.errors.clear()


@pytest.mark.slow
def test_a_live_page_follows_a_tournament_played_by_another_process(open_tab, serve, tmp_path: Path):
    """A tournament runs in another process; its leaderboard page, served, shows its game count rise by itself.

    The tournament is far longer than the test (it is stopped at the end): one that had played all its games when
    the page opened would still be live for a few seconds (the page's live window), with a count that never
    rises (3,000 games, played at about 170 a second on an idle machine, once ended so in a loaded run)."""
    plugin = tmp_path / "slow_bot.py"
    plugin.write_text(SLOW_SOURCE, encoding="utf-8")
    store = tmp_path / "live.db"
    command = [sys.executable, "-c", "from arena.cli import main; main()", "tournament", "-d", "beginner", "-n",
               "100000", "-p", "slow", "--plugin", str(plugin), "--sandbox", "off", "--workers", "1",
               "--store", str(store)]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with serve(store) as app:
            tab = watch(app.url, process, open_tab, tmp_path)
            tab.page.goto("about:blank")  # a served page asks its server every few seconds: leave it first
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=120)


def watch(base: str, process: subprocess.Popen[str], open_tab: Callable[..., Tab], tmp_path: Path) -> Tab:
    """Wait for the tournament to have games, open its leaderboard, and see the count rise on the page."""
    deadline = time.monotonic() + 300
    tid, status = None, {"live": False, "stored": 0}
    while tid is None or not status["live"] or status["stored"] == 0:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, "the tournament did not start"
        time.sleep(0.2)
        try:
            listed = json.loads(urllib.request.urlopen(base + "/?format=json").read())
        except OSError:
            continue
        if listed:
            tid = listed[0]["id"]
            status = json.loads(urllib.request.urlopen(f"{base}/t/{tid}/live").read())
    tab = open_tab(base + "/")
    tab.page.goto(f"{base}/t/{tid}/")
    assert tab.page.get_attribute("body", "data-live") == "1"
    assert tab.page.query_selector("#status .live-badge") is not None
    first = int(tab.page.inner_text('#status [data-field="stored"] b').replace(",", ""))
    # The page fetches itself again and swaps in the new figures; no reload by the test.
    count = "+document.querySelector('#status [data-field=\"stored\"] b').textContent.replace(/,/g, '')"
    tab.page.wait_for_function(f"() => {count} > {first}", timeout=120_000)
    later = int(tab.page.inner_text('#status [data-field="stored"] b').replace(",", ""))
    games = int(tab.page.inner_text('#leaderboard [data-field="games"]').replace(",", ""))
    assert later > first and games >= first
    assert "games/s" in tab.page.inner_text("#status")
    assert all(url.startswith(base + "/") for url in tab.requests), tab.requests
    shoot(tab, "leaderboard-live-1280.png", tmp_path)
    return tab


@pytest.mark.slow
def test_sweeps_page(open_tab, serve, swept, tmp_path: Path):
    path, cli = swept
    with serve(path) as app:
        for width in (1280, 390):
            tab = open_tab(app.url + "/", width)
            tab.page.goto(app.url + "/")
            follow(tab, "text=sweeps")
            kind = "wide" if width == 1280 else "narrow"
            assert tab.page.locator(f"svg.chart-{kind} polyline").count() == 2
            assert tab.page.locator(f"svg.chart-{kind}").is_visible()
            # Drawn for the width it is shown at: its tick labels at least 11 pixels high on the screen.
            heights = tab.page.eval_on_selector_all(
                f"svg.chart-{kind} text.tick", "els => els.map(e => e.getBoundingClientRect().height)"
            )
            assert len(heights) >= 5 and min(heights) >= 11, heights
            rows = tab.page.locator(".sweep tbody tr").count()
            assert rows * 2 == len(cli["cells"]) == 6  # pivoted: a row per mine count, a column per player
            assert tab.page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
            shoot(tab, f"sweeps-{width}.png", tmp_path)
            tab.page.goto("about:blank")  # a served page asks its server every few seconds: leave it first


@pytest.mark.slow
def test_the_sites_replay_viewer_plays_the_stored_game(open_tab, site, stored: Stored, tmp_path: Path):
    """The static site's one game page, opened from ``file://`` at a game's address: it loads the game's data
    file (nothing else), shows the stored game move by move with the exact probabilities the Python solver gives,
    shows the hostile bot's notes as text, and says so when the address names a game the site does not hold."""
    from arena.analysis.replay import replay
    from arena.web import data, games_data

    t = stored.tournament
    with data.reading(stored.path) as db:
        games = [g for g in db.iter_games(t, player="evil") if g.outcome.value == "lost"]
        lost = [max(games, key=lambda g: g.moves).board]  # its longest loss: the most positions to compare
        game = games_data.replay_game(db, t, "evil", lost[0])
    rep = replay(game)
    viewer = site / "t" / t / "game.html"
    allowed = site.as_uri() + "/"
    checked = 0
    for width in (1280, 390):
        tab = open_tab(allowed, width)
        tab.page.goto(f"{viewer.as_uri()}?board={lost[0]}&player=evil")
        tab.page.wait_for_selector("body[data-ready='1']")
        assert tab.page.inner_text("#title") == f"evil · beginner board {lost[0]} of seed 5"
        assert tab.page.inner_text("nav.crumbs, nav.top").count("evil") >= 1
        for k in range(rep.moves):
            tab.page.evaluate(f"() => document.getElementById('slider').value = '{k}'")
            tab.page.dispatch_event("#slider", "input")
            step = rep.steps[k]
            shown = tab.page.eval_on_selector_all(
                "#board-0 .cell", "cells => cells.map(c => c.dataset.p === undefined ? null : +c.dataset.p)"
            )
            states = tab.page.eval_on_selector_all("#board-0 .cell", "cells => cells.map(c => c.dataset.s)")
            assert "".join(states) == "".join("#" if v == -1 else "F" if v == -2 else str(v) for v in step.grid.flat)
            if step.analysis is not None:
                expected = step.analysis.probabilities.reshape(-1)
                for i, value in enumerate(shown):
                    if step.grid.flat[i] < 0:
                        assert value == pytest.approx(expected[i], abs=1e-9), (k, i)
                        checked += 1
            note = tab.page.inner_text("#board-0 .note-line")
            if k < rep.moves and rep.steps[k + 1].move.note:
                assert "<script>window.pwned=1</script>" in note  # the note, as text
        tab.page.keyboard.press("End")
        assert tab.page.query_selector('.cell[data-fatal="1"]') is not None
        tab.page.keyboard.press("Home")
        tab.page.keyboard.press("ArrowRight")
        shoot(tab, f"site-game-{width}.png", tmp_path)
        not_pwned(tab)
        assert all(url.startswith(allowed) for url in tab.requests), tab.requests
        assert any(url.endswith("/games/0.js") for url in tab.requests)
    assert checked > 50
    tab = open_tab(allowed)
    tab.page.goto(f"{viewer.as_uri()}?board=999&player=evil")
    tab.page.wait_for_function("() => document.body.dataset.failed === '1'")
    assert "not in this site" in tab.page.inner_text("#banner")
    tab.errors.clear()  # the browser logs the missing data file: the error expected
    tab.page.goto(f"{viewer.as_uri()}")
    assert "its address names the board and the player" in tab.page.inner_text("#banner")
