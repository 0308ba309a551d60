"""The pages' fixes of issue 37 as a competitor and an organizer meet them, in Debian's Chromium: a store of a
plugin bot with two versions and an Expert tournament, served and written as a site; what the pages said wrongly
(an absolute path, an old version's page, the sort of numbers and of the index), a page that follows the store
(opened before a tournament starts, and a tournament stopped by SIGTERM marked incomplete with the command that
resumes it), and a phone at 390 pixels (the replay of an Expert loss with its fatal cell in view, a tapped cell's
exact probability, the controls under the thumb; the leaderboard's few figures with the rest one tap away).

Screenshots go to ``$ARENA_WEB_SCREENSHOTS`` when set, else to the test's temporary folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import SLOW_SOURCE, arena

from arena.web.site import write_site

VERSIONED = """
from players import hookimpl
from players.builtin.random_player import RandomPlayer


class Versioned(RandomPlayer):
    name = "versioned"
    description = "random, in two versions"
    version = "{version}"


@hookimpl
def register_players(register):
    register(Versioned)
"""


class Shop:
    """The module's store: its path, the versions tournament, the Expert tournament, and the plugin."""

    def __init__(self, path: Path, versions: str, expert: str, plugin: Path) -> None:
        self.path, self.versions, self.expert, self.plugin = path, versions, expert, plugin


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Shop:
    folder = tmp_path_factory.mktemp("pages-store")
    plugin = folder / "versioned_bot.py"
    path = folder / "arena.db"
    for version in ("1", "2"):  # the same bot, run again at a new version: two rows, the latest shown
        plugin.write_text(VERSIONED.format(version=version), encoding="utf-8")
        arena("tournament", "-d", "beginner", "-n", "12", "-p", "versioned,random", "--plugin", plugin,
              "--sandbox", "off", "--workers", "1", "--store", path, "--seed", "3")  # fmt: skip
    arena("tournament", "-d", "expert", "-n", "4", "-p", "random", "--workers", "1", "--store", path, "--seed", "2")
    listed = {
        t["difficulty"]: t["id"] for t in json.loads(arena("leaderboard", "--list", "--json", "--store", path).stdout)
    }
    return Shop(path, listed["beginner"], listed["expert"], plugin)


@pytest.fixture(scope="module")
def shop_site(shop: Shop, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pages-site") / "out"
    write_site(shop.path, folder)
    return folder


@pytest.fixture(scope="module")
def site_of_stored(stored: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of the hostile bot's store (``conftest.stored``)."""
    folder = tmp_path_factory.mktemp("pages-evil-site") / "out"
    write_site(stored.path, folder)
    return folder


def shoot(page: Any, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("ARENA_WEB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / name), full_page=True)


@pytest.fixture
def tab(browser) -> Iterator[Callable[..., Any]]:
    """``tab(allowed_prefix, width)``: a page whose requests outside ``allowed_prefix`` are aborted, its errors
    collected (none may happen)."""
    opened: list[tuple[Any, list[str]]] = []

    def open_(allowed: str, width: int = 1280, height: int = 860) -> Any:
        if allowed == "close":  # tab("close"): leave every page (a served page asks its server every few seconds)
            for context, _ in opened:
                for page in context.pages:
                    page.goto("about:blank")
            return None
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=width < 600)
        context.route(
            "**/*", lambda route: route.continue_() if route.request.url.startswith(allowed) else route.abort()
        )
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        opened.append((context, errors))
        return page

    yield open_
    for context, errors in opened:
        context.close()
        assert errors == [], errors


@pytest.fixture
def serve_here(serve, tab) -> Callable[[Path], Any]:
    """``with serve_here(path) as app:`` conftest's ``serve``, every page left before the server stops."""

    @contextlib.contextmanager
    def run(path: Path) -> Iterator[Any]:
        with serve(path) as app:
            try:
                yield app
            finally:
                tab("close")

    return run


def homes(served: Any, site: Path) -> list[tuple[str, str, Callable[[str], str]]]:
    """(name, allowed prefix, address of a site path) for the served app and the static site."""
    return [
        ("served", served.url + "/", lambda p: served.url + "/" + p.replace("index.html", "")),
        ("site", site.as_uri() + "/", lambda p: (site / p).as_uri()),
    ]


def test_what_the_pages_said_wrongly(tab, serve_here, shop: Shop, shop_site: Path, tmp_path: Path):
    t = shop.versions
    with serve_here(shop.path) as served:
        for name, allowed, at in homes(served, shop_site):
            page = tab(allowed)
            # The index: sorted by the latest activity it shows, newest first.
            page.goto(at("index.html"))
            shown = page.eval_on_selector_all('#tournaments [data-field="last"]', "els => els.map(e => e.dataset.v)")
            assert len(shown) == 2 and shown == sorted(shown, reverse=True), (name, shown)
            # A plugin's source: its file's name, never the folder it lies in.
            page.goto(at(f"t/{t}/index.html"))
            source = page.inner_text('#leaderboard tr[data-player="versioned@2"] [data-field="source"]')
            assert source == "file versioned_bot.py", (name, source)
            assert str(shop.plugin.parent) not in page.content()
            # The older version: said, and one click away.
            note = page.inner_text("#versions-note")
            assert "1 row of older versions not shown" in note, (name, note)
            # Numbers: the first click puts the best first.
            page.click("#leaderboard th[data-key='win']")
            rates = page.eval_on_selector_all(
                '#leaderboard [data-field="win_rate"]', "els => els.map(e => +e.dataset.v)"
            )
            assert rates == sorted(rates, reverse=True) and len(rates) == 2, (name, rates)
            page.click("#leaderboard th[data-key='ms']")
            ms = page.eval_on_selector_all(
                '#leaderboard [data-field="ms_per_game"]', "els => els.map(e => +e.dataset.v)"
            )
            assert ms == sorted(ms), (name, ms)
            # The sort is in the address: the same address shows the same order.
            assert "sort-leaderboard-table=ms.asc" in page.url, page.url
            order = page.eval_on_selector_all(
                "#leaderboard tbody tr[data-player]", "rows => rows.map(r => r.dataset.player)"
            )
            again = tab(allowed)
            again.goto(page.url)
            assert (
                again.eval_on_selector_all(
                    "#leaderboard tbody tr[data-player]", "rows => rows.map(r => r.dataset.player)"
                )
                == order
            )
            with page.expect_navigation():
                page.click("#versions-note a")
            players = page.eval_on_selector_all(
                "#leaderboard tbody tr[data-player]", "rows => rows.map(r => r.dataset.player)"
            )
            assert sorted(players) == ["random", "versioned", "versioned@2"], (name, players)
            with page.expect_navigation():
                page.click('#leaderboard tr[data-player="versioned"] a[data-field="player"]')
            text = page.inner_text("main")
            assert "No game stored yet" not in text and "An older version" in text, (name, text[:300])
            assert page.inner_text('[data-field="win_rate"]').endswith("%")
            shoot(page, f"older-version-{name}-1280.png", tmp_path)


def test_a_page_follows_the_store_and_says_when_a_tournament_stopped(tab, serve_here, shop: Shop, tmp_path: Path):
    """An index opened before a tournament starts shows it once it does; its leaderboard, open while it runs,
    says "incomplete" with the command that resumes it once the run is stopped by SIGTERM; a finished tournament's
    page shows the new count when the tournament is extended: no reload by hand."""
    plugin = tmp_path / "slow_bot.py"
    plugin.write_text(SLOW_SOURCE, encoding="utf-8")
    store = tmp_path / "follow.db"
    # The store exists (one finished tournament) before the page is opened.
    arena("tournament", "-d", "beginner", "-n", "3", "-p", "random", "--workers", "1", "--store", store)
    with serve_here(store) as served:
        index = tab(served.url + "/")
        index.goto(served.url + "/")
        assert index.locator("#tournaments tbody tr").count() == 1
        command = [sys.executable, "-c", "from arena.cli import main; main()", "tournament", "--size", "8x8",
                   "--mines", "10", "-n", "100000", "-p", "slow", "--plugin", str(plugin), "--sandbox", "off",
                   "--workers", "1", "--store", str(store)]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            index.wait_for_function("() => document.querySelectorAll('#tournaments tbody tr').length === 2",
                                    timeout=300_000)  # fmt: skip
            listed = json.loads(urllib.request.urlopen(served.url + "/?format=json").read())
            tid = next(t["id"] for t in listed if t["height"] == 8)
            leaderboard = tab(served.url + "/")
            leaderboard.goto(f"{served.url}/t/{tid}/")
            leaderboard.wait_for_selector("#status .live-badge", timeout=120_000)
            count = "+document.querySelector('#status [data-field=\"stored\"] b').textContent.replace(/,/g, '')"
            leaderboard.wait_for_function(f"() => {count} > 0", timeout=300_000)  # it refreshes itself while live
            shoot(leaderboard, "leaderboard-live-1280.png", tmp_path)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)
        leaderboard.wait_for_selector("#status [data-field='incomplete']", timeout=120_000)
        resume = leaderboard.inner_text("#status [data-field='resume'] code")
        assert resume.startswith(
            "arena tournament --size 8x8 --mines 10 --seed 0 -n 100000 -p slow --plugin slow_bot.py"
        )
        assert "--sandbox off" in resume and str(tmp_path) not in resume
        stored = int(leaderboard.inner_text('#status [data-field="stored"] b').replace(",", ""))
        assert 0 < stored < 100000
        index.wait_for_selector(f'#tournaments tr[data-tournament="{tid}"] .incomplete-badge', timeout=120_000)
        shoot(leaderboard, "leaderboard-incomplete-1280.png", tmp_path)
        # A finished tournament extended with a larger -n: its page, open and not live, shows the new count.
        small = next(t["id"] for t in listed if t["height"] == 9)
        finished = tab(served.url + "/")
        finished.goto(f"{served.url}/t/{small}/")
        assert finished.inner_text('#status [data-field="stored"] b') == "3"
        arena("tournament", "-d", "beginner", "-n", "7", "-p", "random", "--workers", "1", "--store", store)
        finished.wait_for_function(
            "() => document.querySelector('#status [data-field=\"stored\"] b').textContent === '7'", timeout=120_000
        )
        assert finished.locator('#leaderboard [data-field="games"]').inner_text() == "7"


def test_a_phone_replays_an_expert_loss_with_its_fatal_cell_in_view(tab, serve_here, shop: Shop, shop_site: Path,
                                                                    tmp_path: Path):  # fmt: skip
    """At 390 pixels the Expert board scrolls in its own box with readable cells; opened at the last move, the
    mine hit is on the screen; a tap on a cell gives its exact probability; the controls are at the bottom."""
    with serve_here(shop.path) as served:
        lost = json.loads(urllib.request.urlopen(
            f"{served.url}/t/{shop.expert}/p/random/games?outcome=lost&format=json").read())["games"]  # fmt: skip
        assert lost
        board = lost[-1]["board"]
        for name, allowed, address in (
            ("served", served.url + "/", f"{served.url}/t/{shop.expert}/g/{board}/random?move=end"),
            ("site", shop_site.as_uri() + "/",
             (shop_site / "t" / shop.expert / "game.html").as_uri() + f"?board={board}&player=random&move=end"),
        ):  # fmt: skip
            page = tab(allowed, 390, 844)
            page.goto(address)
            page.wait_for_selector("body[data-ready='1']")
            total = int(page.get_attribute("#slider", "max"))
            assert page.get_attribute("#step", "data-step") == str(total) > "0"
            fatal = page.locator('#board-0 .cell[data-fatal="1"]')
            assert fatal.count() == 1
            box = fatal.bounding_box()
            assert box is not None and box["width"] >= 26, box  # readable, and a finger hits it
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (name, box)
            controls = page.locator("#controls").bounding_box()  # on the screen, not under the controls
            assert box["y"] >= 0 and box["y"] + box["height"] <= controls["y"], (name, box, controls)
            scroller = page.locator("#board-0 .board-scroll").bounding_box()
            assert scroller["x"] <= box["x"] and box["x"] + box["width"] <= scroller["x"] + scroller["width"] + 1
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
            # The controls are at the bottom of the screen, under the thumb.
            for control in ("#next", "#prev", "#slider"):
                where = page.locator(control).bounding_box()
                assert where["y"] > 844 * 0.7 and where["y"] + where["height"] <= 844, (control, where)
            # One move back, a tap on a covered cell: its exact probability, and the move in the address.
            page.click("#prev")
            assert f"move={total - 1}" in page.url
            covered = page.locator('#board-0 .cell[data-s="#"][data-p]').first
            covered.tap()
            said = page.inner_text("#board-0 .tapped")
            assert ("mine probability" in said and said.endswith("%")) or "certainly" in said, said
            shoot(page, f"phone-expert-replay-{name}-390.png", tmp_path)
            # The previous lost game of the same player, opened at its end.
            if len(lost) > 1:
                with page.expect_navigation():
                    page.click("#lost-prev")
                page.wait_for_selector("body[data-ready='1']")
                assert f"board {lost[-2]['board']} of seed" in page.inner_text("#title")
                assert page.get_attribute("#step", "data-step") == page.get_attribute("#slider", "max")
                assert page.locator("#lost-next").inner_text().startswith(f"lost board {board}")


def test_a_phone_shows_the_figures_that_matter(tab, serve_here, shop: Shop, tmp_path: Path):
    t = shop.versions
    with serve_here(shop.path) as served:
        page = tab(served.url + "/", 390)
        page.goto(f"{served.url}/t/{t}/")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        table = page.locator("#leaderboard table").bounding_box()
        assert table["width"] <= 390
        row = page.locator('#leaderboard tr[data-player="random"]')
        assert row.locator('[data-field="ms_per_game"]').is_hidden()
        assert (
            row.locator('[data-field="win_rate"]').is_visible()
            and "–" in row.locator('[data-field="win_rate"]').inner_text()
        )
        details = page.locator('#leaderboard tr.details[data-for="random"]')
        assert details.is_hidden()
        row.locator("button.more").tap()
        assert details.is_visible() and "ms/game" in details.inner_text()
        shoot(page, "leaderboard-phone-open-390.png", tmp_path)
        page.goto(f"{served.url}/t/{t}/p/random/games?outcome=lost")
        link = page.locator("#games tbody tr a.replay-link").first
        where = link.bounding_box()
        assert where["x"] + where["width"] <= 390 and link.inner_text().isdigit()
        assert page.locator("#games tbody tr td.why").first.inner_text() != ""
        shoot(page, "games-phone-390.png", tmp_path)


def not_pwned(page: Any) -> None:
    assert page.evaluate("() => window.pwned === undefined")


def test_the_new_pages_served_and_in_a_site(tab, serve_here, shop: Shop, shop_site: Path, stored, site_of_stored,
                                            tmp_path: Path):  # fmt: skip
    """A bot's versions, every pair, convergence, what a tournament was, and the downloads, served and in a site;
    the hostile bot's text stays text on each of them."""
    t = shop.versions
    cli = json.loads(arena("leaderboard", t, "--json", "--store", shop.path).stdout)
    history = json.loads(arena("history", "versioned", "--json", "--store", shop.path).stdout)
    with serve_here(shop.path) as served:
        for name, allowed, at in homes(served, shop_site):
            page = tab(allowed)
            page.goto(at(f"t/{t}/index.html"))
            assert "s a move" in page.inner_text('[data-field="limits"]')
            assert page.inner_text('[data-field="sandbox"]') == "sandbox off"
            assert (page.locator('[data-field="generated"]').count() == 1) == (name == "site")
            # A bot's versions, linked from its row.
            with page.expect_navigation():
                page.click('#leaderboard tr[data-player="versioned@2"] a[data-field="version"]')
            rows = page.eval_on_selector_all("tbody tr[data-version]", "rows => rows.map(r => r.dataset.version)")
            assert rows == [v["version"] for v in history["boards"][0]["versions"]] == ["1", "2"], (name, rows)
            second = history["boards"][0]["versions"][1]["vs_previous"]
            shown = page.inner_text('tr[data-version="2"] [data-field="vs_previous"]')
            assert shown.startswith(f"{100 * second['diff']:+.1f}"), (name, shown, second)
            shoot(page, f"versions-{name}-1280.png", tmp_path)
            # Every pair, the leader's pair's p the leaderboard's.
            page.goto(at(f"t/{t}/index.html"))
            with page.expect_navigation():
                page.click("#pairs-link")
            pairs = page.locator("#pairs tbody tr")
            assert pairs.count() == len(cli["rows"]) * (len(cli["rows"]) - 1) // 2 == 1
            assert float(pairs.first.locator('[data-field="p"]').get_attribute("data-v")) == cli["rows"][1]["p_value"]
            tied = page.eval_on_selector_all("#ties .tie", "els => els.map(e => e.dataset.player)")
            expected = [r["player"] for r in cli["rows"] if r["rank"] == 1 or r["p_value"] >= 0.05]
            assert sorted(tied) == sorted(expected), (tied, expected)
            # Convergence: a line per player in each drawing, ending at the leaderboard's win rate.
            page.goto(at(f"t/{t}/index.html"))
            with page.expect_navigation():
                page.click("#convergence-link")
            assert page.locator("svg.chart-wide polyline").count() == len(cli["rows"])
            for row in cli["rows"]:
                assert f"{100 * row['win_rate']:.2f}%" in page.inner_text(f'.halves li[data-player="{row["player"]}"]')
            shoot(page, f"convergence-{name}-1280.png", tmp_path)
        # Downloads: the leaderboard as CSV and JSON, the games as `arena export` writes them.
        export = tmp_path / "games.csv"
        arena("export", t, "--format", "csv", "--output", export, "--store", shop.path)
        got = urllib.request.urlopen(f"{served.url}/t/{t}/games.csv").read().decode()
        assert got == export.read_text() == (shop_site / "t" / t / "games.csv").read_text()
        lines = urllib.request.urlopen(f"{served.url}/t/{t}/leaderboard.csv").read().decode().splitlines()
        assert len(lines) == 1 + len(cli["rows"]) and lines[0].startswith("rank,player,version,source")
        published = json.loads(urllib.request.urlopen(f"{served.url}/t/{t}/leaderboard.json").read())
        assert published["rows"] == cli["rows"]
        assert (shop_site / "t" / t / "leaderboard.csv").read_text().count("\n") == 1 + len(cli["rows"])
    # The hostile bot: its version, errors and notes are text on every new page, served and in a site.
    with serve_here(stored.path) as served:
        e = stored.tournament
        for name, allowed, at in homes(served, site_of_stored):
            page = tab(allowed)
            for path in (f"t/{e}/pairs.html", f"t/{e}/convergence.html", "v/evil/index.html"):
                address = at(path)
                if name == "served":
                    address = address.replace("pairs.html", "pairs/").replace("convergence.html", "convergence/")
                page.goto(address)
                assert page.locator(".head.error").count() == 0, address
                not_pwned(page)
            assert "<script>window.pwned=1</script>" in page.inner_text("tbody")  # the version, as text
            # The failed count links to the failures; each shows its error.
            page.goto(at(f"t/{e}/index.html"))
            with page.expect_navigation():
                page.click('#leaderboard tr[data-player="evil"] a.failed-link')
            whys = page.eval_on_selector_all("#games td.why", "els => els.map(e => e.textContent)")
            assert whys and all("ValueError: <script>window.pwned=1</script>" in w for w in whys), whys
            not_pwned(page)
        page = tab(served.url + "/")
        page.goto(f"{served.url}/t/{e}/")
        page.fill("#jump-board", "5")
        with page.expect_navigation():
            page.click("form.jump button")
        assert page.url.endswith(f"/t/{e}/b/5/")
        players = page.eval_on_selector_all("#players tbody tr", "rows => rows.map(r => r.dataset.player)")
        assert sorted(players) == ["evil", "mean-constraint", "random"]
        assert page.locator("#players a.replay-link").count() == 3
        mines = page.eval_on_selector_all(".mines", "ms => ms.map(m => m.querySelectorAll('span.m').length)")
        assert mines and set(mines) == {10}
        not_pwned(page)
        shoot(page, "board-1280.png", tmp_path)
        served_links = page.locator("#players a.replay-link").count()
    # The site's board page: the same board from the site's data, its replays where the site holds them.
    for width in (1280, 390):
        page = tab(site_of_stored.as_uri() + "/", width)
        page.goto((site_of_stored / "t" / e / "index.html").as_uri())
        page.fill("#jump-board", "5")
        with page.expect_navigation():
            page.click("form.jump button")
        assert page.url.endswith(f"/t/{e}/board.html?board=5")
        page.wait_for_selector("#players tbody tr")
        players = page.eval_on_selector_all("#players tbody tr", "rows => rows.map(r => r.dataset.player)")
        assert sorted(players) == ["evil", "mean-constraint", "random"]
        assert page.inner_text("#board-title") == "Board 5"
        assert 1 <= page.locator("#players a.replay-link").count() <= served_links
        mines = page.eval_on_selector_all(".mines", "ms => ms.map(m => m.querySelectorAll('span.m').length)")
        assert mines and set(mines) == {10}
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        not_pwned(page)
        shoot(page, f"board-site-{width}.png", tmp_path)


def test_a_match_page_follows_the_test_live(tab, serve_here, tmp_path: Path):
    """``arena match`` in another process: its page, opened while it plays, shows the boards rise and the LLR
    against them, then the verdict the command printed."""
    plugin = tmp_path / "slow_bot.py"
    plugin.write_text(SLOW_SOURCE, encoding="utf-8")
    store = tmp_path / "match.db"
    command = [sys.executable, "-c", "from arena.cli import main; main()", "match", "slow", "random", "--plugin",
               str(plugin), "-d", "beginner", "--delta", "40", "--batch", "20", "--max-games", "1500",
               "--workers", "1", "--store", str(store), "--json"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with serve_here(store) as served:
            deadline = time.monotonic() + 300
            tid = None
            while tid is None:
                assert process.poll() is None or tid, process.stderr.read() if process.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.2)
                try:
                    listed = json.loads(urllib.request.urlopen(served.url + "/?format=json").read())
                except OSError:
                    continue
                tid = listed[0]["id"] if listed and len(listed[0]["players"]) == 2 else None
            page = tab(served.url + "/")
            page.goto(f"{served.url}/t/{tid}/match/")  # the settings the match was run with, as it stored them
            said = page.inner_text('[data-field="verdict"]')
            assert "undecided after" in said or "decided after" in said
            url = f"{served.url}/t/{tid}/match/?format=json"
            first = json.loads(urllib.request.urlopen(url).read())
            if process.poll() is None and first["verdict"] is None:
                # It refreshes itself: the boards counted rise without a reload.
                rose = """(before) => {
                    const text = document.querySelector('[data-field=verdict]').textContent;
                    const found = /after ([\\d,]+) board/.exec(text);
                    return (found && +found[1].replace(/,/g, '') > before) || /^\\s*(better|not better)/.test(text);
                }"""
                page.wait_for_function(rose, arg=first["boards"], timeout=300_000)
            out, _ = process.communicate(timeout=600)
            page.wait_for_function("() => !document.body.dataset.live", timeout=120_000)
            final = json.loads(urllib.request.urlopen(url).read())
            assert final["assumed"] == [] and final["settings_stored"]
            assert (final["delta"], final["batch"], final["max_games"]) == (40, 20, 1500)
            assert "δ 40 points, α 0.05, β 0.05, a look every 20 boards" in page.inner_text("#settings")
            cli = json.loads(out)  # the page's test is the command's: the same boards, LLR and bounds
            assert final["boards"] == cli["boards"] and final["llr"] == pytest.approx(cli["llr"])
            assert final["upper"] == pytest.approx(cli["upper"]) and final["lower"] == pytest.approx(cli["lower"])
            decided = cli["verdict"] not in ("undecided", "continue")
            assert (final["verdict"] is not None) == decided, (final, cli)
            text = page.inner_text('[data-field="verdict"]')
            assert (f"decided after {cli['boards']:,} boards" in text) if decided else ("undecided after" in text)
            assert page.locator("svg.chart-wide polyline.llr").count() == 1
            assert page.locator("svg.chart-wide circle.look").count() == len(final["looks"]) > 0
            shoot(page, "match-1280.png", tmp_path)
            page.set_viewport_size({"width": 390, "height": 844})
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
            assert page.locator("svg.chart-narrow").is_visible() and page.locator("svg.chart-wide").is_hidden()
            shoot(page, "match-390.png", tmp_path)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)
