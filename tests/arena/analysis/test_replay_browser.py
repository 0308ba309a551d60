"""The HTML replay in a real browser: Debian's Chromium, headless, driven by playwright's Python API.

Each page is opened from ``file://`` with every request watched and any but the file itself aborted, and the
tests read what the page shows from the DOM: each cell's state (``data-s``), its exact mine probability
(``data-p``), its classes. They skip, saying why, when playwright or Chromium is missing (``.ci/run`` installs
Chromium with apt-get; playwright comes with the test extra and never downloads a browser of its own).

Screenshots go to ``tmp_path``, or to ``$ARENA_REPLAY_SCREENSHOTS`` when set, to be looked at.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner
from web_support import chromium

from arena.analysis.replay import ReplayGame, ReplayMove, build_replay_html, first_divergence, replay
from arena.cli import app
from engine import BEGINNER, COVERED, EXPERT, FLAGGED, INTERMEDIATE, Action
from engine.layout import format_position
from players.solver import analyze


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@dataclass
class Viewer:
    """A replay page open in the browser, and every request it made."""

    page: Any
    url: str
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def step(self) -> int:
        return int(self.page.get_attribute("#step", "data-step"))

    def go(self, k: int) -> None:
        self.page.fill("#slider", str(k))
        assert self.step() == k

    def cells(self, board: int = 0) -> str:
        return self.page.eval_on_selector_all(f"#board-{board} .cell", "els => els.map(e => e.dataset.s).join('')")

    def probabilities(self, board: int = 0) -> list[float | None]:
        values = self.page.eval_on_selector_all(
            f"#board-{board} .cell", "els => els.map(e => e.dataset.p === undefined ? null : e.dataset.p)"
        )
        return [None if v is None else float(v) for v in values]

    def classes(self, board: int = 0) -> list[set[str]]:
        names = self.page.eval_on_selector_all(f"#board-{board} .cell", "els => els.map(e => e.className)")
        return [set(name.split()) for name in names]

    def texts(self, board: int = 0) -> list[str]:
        return self.page.eval_on_selector_all(f"#board-{board} .cell", "els => els.map(e => e.textContent)")


@pytest.fixture
def open_page(browser, tmp_path) -> Iterator[Callable[..., Viewer]]:
    """``open_page(html, width=1400)``: the page from a file, with every request but the file's own aborted."""
    opened: list[tuple[Any, Viewer]] = []

    def open_(html: str, *, width: int = 1400, name: str = "replay.html") -> Viewer:
        path = tmp_path / name
        path.write_text(html, encoding="utf-8")
        context = browser.new_context(viewport={"width": width, "height": 1000})
        viewer = Viewer(page=None, url=path.as_uri())
        context.on("request", lambda request: viewer.requests.append(request.url))
        context.route("**/*", lambda route: route.continue_() if route.request.url == viewer.url else route.abort())
        page = context.new_page()
        page.on("pageerror", lambda error: viewer.errors.append(str(error)))
        page.on("console", lambda message: viewer.errors.append(message.text) if message.type == "error" else None)
        page.goto(viewer.url)
        viewer.page = page
        opened.append((context, viewer))
        return viewer

    yield open_
    for context, viewer in opened:
        context.close()
        assert viewer.errors == [], viewer.errors


def position(grid: np.ndarray) -> str:
    return format_position(grid).replace("\n", "")


def screenshot(viewer: Viewer, tmp_path: Path, name: str) -> Path:
    folder = Path(os.environ.get("ARENA_REPLAY_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    viewer.page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return path


@pytest.mark.slow
def test_the_network_guard_sees_a_request(open_page):
    """The guard the other tests rely on: a page that fetches anything is caught."""
    viewer = open_page('<!doctype html><link rel="icon" href="data:,"><img src="https://example.invalid/x.png">')
    assert viewer.requests == [viewer.url, "https://example.invalid/x.png"]
    assert any("ERR_FAILED" in error for error in viewer.errors)  # aborted: the page logs its failure
    viewer.errors.clear()


@pytest.mark.slow
def test_stepping_shows_the_engines_state_after_each_move(open_page, record_game):
    played = record_game("rref", INTERMEDIATE, "safe", seed=4, board=2)
    n = len(played.game.moves)
    assert n > 10 and any(m.kind.value == "flag" for m in played.game.moves)
    viewer = open_page(build_replay_html([played.game]))
    assert viewer.step() == 0 and viewer.cells() == position(played.grids[0])
    for k in sorted({1, 2, n // 3, n // 2, n - 1, n}):
        viewer.go(k)
        assert viewer.cells() == position(played.grids[k]), f"step {k}"
        assert int(viewer.page.get_attribute("#board-0", "data-step")) == k
    # The end shows the hidden layout: every mine not flagged, and only those.
    rep = replay(played.game)
    shown = {i for i, cls in enumerate(viewer.classes()) if "mine" in cls}
    hidden = rep.layout.reshape(-1) & (played.grids[n].reshape(-1) == COVERED)
    assert shown == set(np.flatnonzero(hidden).tolist()) and (shown or played.result.won)
    assert viewer.requests == [viewer.url]


@pytest.mark.slow
def test_probability_overlay_matches_arena_analyze(open_page, record_game):
    played = record_game("enumeration", INTERMEDIATE, "safe", seed=1, board=3)
    n = len(played.game.moves)
    viewer = open_page(build_replay_html([played.game]))
    runner = CliRunner()
    checked = 0
    for k in sorted({1, 2, n // 4, n // 2, 3 * n // 4, n - 1}):
        viewer.go(k)
        grid = played.grids[k]
        shown = viewer.probabilities()
        result = runner.invoke(
            app, ["analyze", "-", "--mines", str(INTERMEDIATE.mines), "--json"], input=format_position(grid)
        )
        assert result.exit_code == 0, result.output
        cli = json.loads(result.stdout)["probabilities"]
        no_flags = grid.copy()
        no_flags[no_flags == FLAGGED] = COVERED
        exact = analyze(no_flags, INTERMEDIATE.mines)
        for i, value in enumerate(grid.reshape(-1).tolist()):
            r, c = divmod(i, INTERMEDIATE.width)
            if value >= 0:
                assert shown[i] is None
            elif value == COVERED:
                assert shown[i] == pytest.approx(cli[r][c], abs=1e-9), (k, r, c)
                assert shown[i] == pytest.approx(exact.probabilities[r, c], abs=1e-9)  # the page computes it
            else:  # a flag: its own odds, flags taken off
                assert shown[i] == pytest.approx(exact.probabilities[r, c], abs=1e-9)  # the page computes it
        # The overlay: off at first, then every covered cell coloured, certain cells marked.
        if k == 1:
            assert not any("prob" in cls for cls in viewer.classes())
            viewer.page.keyboard.press("p")
            assert viewer.page.is_checked("#toggle-p")
        classes, texts = viewer.classes(), viewer.texts()
        safe = {r * INTERMEDIATE.width + c for r, c in exact.safe}
        mines = {r * INTERMEDIATE.width + c for r, c in exact.mines if grid[r, c] == COVERED}
        assert {i for i, cls in enumerate(classes) if "p-safe" in cls} == safe
        assert {i for i, cls in enumerate(classes) if "p-mine" in cls} == mines
        for i in np.flatnonzero(grid.reshape(-1) == COVERED).tolist():
            assert "prob" in classes[i]
            if i not in safe and i not in mines:
                pct = 100 * shown[i]
                expected = "<1" if pct < 1 else ">99" if 99 < pct < 100 else str(round(pct))
                assert texts[i] == expected or abs(float(texts[i]) - pct) <= 0.5, (texts[i], pct)
        checked += 1
    assert checked >= 5


def test_the_losing_move_is_highlighted(open_page, record_game):
    played = next(
        p
        for board in range(40)
        if len((p := record_game("random", BEGINNER, "safe", seed=2, board=board)).game.moves) > 3 and not p.result.won
    )
    n = len(played.game.moves)
    rep = replay(played.game)
    r, c = rep.exploded
    viewer = open_page(build_replay_html([played.game]))
    viewer.page.keyboard.press("End")
    assert viewer.step() == n
    fatal = viewer.page.query_selector_all('#board-0 .cell[data-fatal="1"]')
    assert len(fatal) == 1
    assert (fatal[0].get_attribute("data-r"), fatal[0].get_attribute("data-c")) == (str(r), str(c))
    assert "exploded" in fatal[0].get_attribute("class").split()
    assert "hit a mine" in viewer.page.inner_text("#board-0 .last")
    assert "x" in viewer.page.get_attribute(f"#board-0 .moves li:nth-child({n})", "class").split()
    viewer.page.keyboard.press("ArrowLeft")
    move = played.game.moves[-1]
    chosen = viewer.page.query_selector_all("#board-0 .cell.chosen")
    assert len(chosen) == 1 and "fatal-next" in chosen[0].get_attribute("class").split()
    assert (chosen[0].get_attribute("data-r"), chosen[0].get_attribute("data-c")) == (str(move.row), str(move.col))
    assert "hits a mine" in viewer.page.inner_text("#board-0 .next")
    assert viewer.page.query_selector_all('#board-0 .cell[data-fatal="1"]') == []


@pytest.mark.slow
def test_a_guess_shows_its_probability_beside_the_safest(open_page, record_game):
    """Random guesses where better cells were known: its page shows each such guess's odds beside the best it
    could have had (a probability, or the certainly safe cells it overlooked)."""
    found: dict[bool, tuple[Any, Any]] = {}
    for board in range(60):
        played = record_game("random", INTERMEDIATE, "safe", seed=9, board=board)
        rep = replay(played.game)
        for k in range(2, rep.moves + 1):
            choice = rep.choice(k)
            if choice.riskier:
                found.setdefault(choice.safest == 0, (played, choice))
        if len(found) == 2:
            break
    assert found.keys() == {False, True}
    for played, choice in found.values():
        viewer = open_page(build_replay_html([played.game]))
        viewer.go(choice.number - 1)
        chosen = viewer.page.query_selector_all("#board-0 .cell.chosen")
        assert [(e.get_attribute("data-r"), e.get_attribute("data-c")) for e in chosen] == [
            (str(choice.move.row), str(choice.move.col))
        ]
        assert viewer.page.inner_text('#board-0 .next [data-role="p"]') == f"{100 * choice.probability:.2f}%"
        safest = viewer.page.inner_text('#board-0 .next [data-role="safest"]')
        cells = f"{choice.safest_cells} cell{'s' if choice.safest_cells > 1 else ''}"
        if choice.safest == 0:
            assert safest == f"{cells} certainly safe"
        else:
            assert safest == f"{100 * choice.safest:.2f}%"
            assert f"({cells})" in viewer.page.inner_text("#board-0 .next")


@pytest.mark.slow
def test_arrow_keys_buttons_and_slider_step_the_game(open_page, record_game):
    played = record_game("rref", INTERMEDIATE, "safe", seed=4, board=2)
    n = len(played.game.moves)
    assert n > 30
    viewer = open_page(build_replay_html([played.game]))
    keys = viewer.page.keyboard
    for _ in range(3):
        keys.press("ArrowRight")
    assert viewer.step() == 3 and viewer.cells() == position(played.grids[3])
    keys.press("Shift+ArrowRight")
    assert viewer.step() == 13
    keys.press("ArrowLeft")
    assert viewer.step() == 12 and viewer.cells() == position(played.grids[12])
    keys.press("End")
    assert viewer.step() == n
    keys.press("ArrowRight")
    assert viewer.step() == n
    keys.press("Home")
    assert viewer.step() == 0
    viewer.page.click("#next")
    viewer.page.click("#next")
    assert viewer.step() == 2
    viewer.page.click("#prev")
    assert viewer.step() == 1
    # The slider: a click at its right end, then arrow keys while it has the focus (one step each, not two).
    box = viewer.page.locator("#slider").bounding_box()
    viewer.page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
    assert viewer.step() == n
    keys.press("ArrowLeft")
    assert viewer.step() == n - 1 and viewer.cells() == position(played.grids[n - 1])
    viewer.page.mouse.click(box["x"] + 2, box["y"] + box["height"] / 2)
    assert viewer.step() == 0
    viewer.page.click("#last")
    assert viewer.step() == n
    assert viewer.page.inner_text("#step") == f"{n} / {n}"
    # Play runs the moves by itself from the start (waiting on the page, not on a clock), and pauses.
    viewer.page.click("#play")
    viewer.page.wait_for_function("Number(document.getElementById('step').dataset.step) >= 2", timeout=60_000)
    viewer.page.click("#play")
    paused = viewer.step()
    assert 2 <= paused <= n and viewer.page.inner_text("#play") == "play"
    assert viewer.cells() == position(played.grids[paused])
    assert viewer.requests == [viewer.url]


@pytest.mark.slow
def test_a_game_without_a_move_opens(open_page):
    """A bot that failed before its first move still has a page: the empty board and the reason."""
    game = ReplayGame("broken", BEGINNER, "safe", 0, 0, [], "error", "ValueError: no idea\nmore")
    viewer = open_page(build_replay_html([game]))
    assert viewer.step() == 0 and viewer.cells() == "#" * BEGINNER.cells
    assert "ValueError: no idea" in viewer.page.inner_text("#board-0 .last")
    viewer.page.keyboard.press("ArrowRight")
    assert viewer.step() == 0
    assert "equally likely" not in viewer.page.inner_text("#subtitle")
    windows = ReplayGame("broken", BEGINNER, "windows", 0, 0, [], "error", "ValueError")
    caveat = open_page(build_replay_html([windows]), name="windows.html").page.inner_text("#subtitle")
    assert "equally likely" in caveat  # the windows rule's moved mine makes the odds only nearly uniform


@pytest.mark.slow
def test_two_players_side_by_side_show_where_their_play_parts(open_page, record_game, tmp_path):
    spec = INTERMEDIATE
    for board in range(40):
        a = record_game("enumeration", spec, "safe", seed=6, board=board)
        b = record_game("random", spec, "safe", seed=6, board=board)
        d = first_divergence(a.game, b.game)
        if d is not None and d >= 1 and len(a.game.moves) > d + 3 and len(b.game.moves) > d + 1:
            break
    viewer = open_page(build_replay_html([a.game, b.game]), width=1700)
    panels = [viewer.page.locator(f"#board-{i}").bounding_box() for i in range(2)]
    assert panels[0]["y"] == panels[1]["y"] and panels[0]["x"] + panels[0]["width"] <= panels[1]["x"]
    assert viewer.page.inner_text("#board-0 h2").startswith("enumeration")
    assert viewer.page.inner_text("#board-1 h2").startswith("random")
    assert f"differs at move {d + 1}" in viewer.page.inner_text("#banner")
    viewer.page.click("#goto-divergence")
    assert viewer.step() == d
    for i, played in enumerate((a, b)):
        assert viewer.cells(i) == position(played.grids[d])
        move = played.game.moves[d]
        chosen = viewer.page.query_selector_all(f"#board-{i} .cell.chosen")
        assert [(e.get_attribute("data-r"), e.get_attribute("data-c")) for e in chosen] == [
            (str(move.row), str(move.col))
        ]
    assert (a.game.moves[d].row, a.game.moves[d].col, a.game.moves[d].kind) != (
        b.game.moves[d].row,
        b.game.moves[d].col,
        b.game.moves[d].kind,
    )
    viewer.page.keyboard.press("p")
    screenshot(viewer, tmp_path, "replay-two-players-divergence.png")
    # Stepped together: past the shorter game, it stays at its last position.
    viewer.page.keyboard.press("End")
    total = max(len(a.game.moves), len(b.game.moves))
    assert viewer.step() == total
    for i, played in enumerate((a, b)):
        n = len(played.game.moves)
        assert int(viewer.page.get_attribute(f"#board-{i}", "data-step")) == n
        assert viewer.cells(i) == position(played.grids[n])
    screenshot(viewer, tmp_path, "replay-two-players-end.png")
    assert viewer.requests == [viewer.url]


def test_a_note_is_shown_as_text(open_page):
    note = '<img src="https://example.invalid/n.png"> p looked low'
    moves = [ReplayMove.from_action(Action.reveal(0, 0), note={"note": note, "p_mine": 0.25})]
    viewer = open_page(build_replay_html([ReplayGame("noter", BEGINNER, "none", 0, 0, moves)]))
    assert viewer.page.inner_text("#board-0 .note-line .note") == f"{note} · p_mine 0.25"
    assert viewer.page.query_selector_all("#board-0 img") == []
    assert viewer.requests == [viewer.url]


@pytest.mark.slow
def test_screenshot_of_an_expert_game(open_page, record_game, tmp_path):
    """An Expert game mid-way with the overlay on, and at its end: to be looked at, not only asserted."""
    played = next(
        p
        for board in range(10)
        if len((p := record_game("enumeration", EXPERT, "safe", seed=1, board=board)).game.moves) > 100
    )
    page = build_replay_html([played.game], probabilities=True)
    assert len(page.encode("utf-8")) < 2_000_000
    viewer = open_page(page, width=1300)
    assert viewer.page.is_checked("#toggle-p")
    n = len(played.game.moves)
    viewer.go(n // 3)
    assert viewer.cells() == position(played.grids[n // 3])
    screenshot(viewer, tmp_path, "replay-expert-middle.png")
    viewer.page.keyboard.press("End")
    screenshot(viewer, tmp_path, "replay-expert-end.png")
    assert viewer.requests == [viewer.url]
