"""A person in a browser (Debian's Chromium through playwright): signs in with a token, uploads the Python kit,
and watches the submission go to ranked on a real ``arena host``; nothing of an entrant's text runs as script,
and no request leaves the server. Screenshots at 1280 and 390 pixels wide go to ``$ARENA_WEB_SCREENSHOTS`` when
set, else to a temporary folder."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from host_support import PAYLOAD, arena_bin, start_host, stop_host, write_cup
from web_support import chromium

from arena.host.archive import pack
from arena.kits.new_bot import new_bot


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


def shoot(page: Any, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("ARENA_WEB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / name), full_page=True)


@pytest.mark.timeout(1800)
def test_sign_in_upload_and_watch_it_rank(browser: Any, tmp_path: Path) -> None:
    file = write_cup(tmp_path / "cup", count=6, private=3)
    added = subprocess.run(
        [arena_bin(), "entrant", "add", str(file), "alice", "--owner", PAYLOAD, "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    token = __import__("json").loads(added.stdout)["token"]
    archive = tmp_path / "kitbot.tar.gz"
    archive.write_bytes(pack(new_bot("kitbot", "python", tmp_path / "kitbot").folder))
    host = start_host(file, None, "-w", "1")
    base = host.url.rstrip("/")
    requests: list[str] = []
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.on("request", lambda request: requests.append(request.url))
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(base + "/")
        shoot(page, "host-home-empty-1280.png", tmp_path)
        page.click("text=sign in")
        page.fill("#token", token)
        with page.expect_navigation():
            page.click("button:has-text('Sign in')")
        assert "alice" in page.inner_text("nav.top")
        page.goto(base + "/submit")
        page.set_input_files("#archive", str(archive))
        with page.expect_navigation(url="**/s/1"):
            page.click("button:has-text('Upload')")
        shoot(page, "host-submission-received-1280.png", tmp_path)
        page.wait_for_selector("#state.state-ranked", timeout=900_000)  # the page refreshes itself until then
        assert page.inner_text("#state") == "ranked"
        assert "rank 1" in page.inner_text("main")
        assert "ready: run.sh starts bot.py" in page.inner_text("#build-log")
        assert page.locator("table tbody tr").count() >= 10, "the checks' rows are missing"
        shoot(page, "host-submission-ranked-1280.png", tmp_path)
        page.goto(base + "/")
        assert "alice" in page.inner_text("table.board")
        assert PAYLOAD in page.inner_text("table.board"), "the owner is not shown as text"
        shoot(page, "host-home-1280.png", tmp_path)
        page.set_viewport_size({"width": 390, "height": 844})
        shoot(page, "host-home-390.png", tmp_path)
        page.goto(base + "/s/1")
        shoot(page, "host-submission-390.png", tmp_path)
        assert page.evaluate("window.pwned") is None, "an entrant's text ran as script"
    finally:
        context.close()
        stop_host(host)
    assert errors == [], errors
    outside = [url for url in requests if not url.startswith(base)]
    assert outside == [], outside
    assert len(requests) >= 10
