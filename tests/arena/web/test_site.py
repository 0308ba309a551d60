"""`arena site`: the pages as files (relative links, every asset inside), what it refuses, and its manifest."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from repo import ROOT
from web_support import Stored

from arena.web.site import MANIFEST


def written(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_writes_every_page_with_links_that_stay_inside(cli, stored: Stored, tmp_path: Path):
    out = tmp_path / "site"
    result = cli("site", out, "--store", stored.path)
    assert result.exit_code == 0, result.output
    line = result.stdout.strip().splitlines()[-1]
    files = written(out)
    size = sum((out / f).stat().st_size for f in files if f != MANIFEST)
    assert line.startswith(f"wrote {len(files) - 1} files ({size / 1e6:.1f} MB) to {out}: 1 tournament(s), ")
    t = stored.tournament
    pages = ["index.html", "static/site.css", "static/site.js", f"t/{t}/index.html", f"t/{t}/leaderboard.json"]
    pages += [f"t/{t}/p/evil/index.html", f"t/{t}/p/random/games-lost-1.html", f"t/{t}/diff/random/evil/index.html"]
    pages += [f"t/{t}/game.html", f"t/{t}/games/0.js"]  # the one replay viewer, and its games as data
    pages += [f"t/{t}/board.html", f"t/{t}/boards/0.js", "static/board.js"]  # the one board page, its boards
    for page in pages:
        assert page in files, page
    published = json.loads((out / f"t/{t}/leaderboard.json").read_text())
    cli_leaderboard = json.loads(cli("leaderboard", t, "--json", "--store", stored.path).stdout)
    for row in cli_leaderboard["rows"]:  # a published source is the file's name, not where it lay on this machine
        row["source"] = row["source"].replace(str(stored.plugin), stored.plugin.name)
    assert published == cli_leaderboard and any(r["source"] == "file evil_bot.py" for r in published["rows"])
    # Every link and asset of every page is relative and names a file of the site: nothing from elsewhere.
    checked = 0
    for name in files:
        if not name.endswith(".html"):
            continue
        text = (out / name).read_text(encoding="utf-8")
        for ref in re.findall(r'(?:href|src)="([^"]*)"', text):
            if ref.startswith("data:"):
                continue
            assert not urlparse(ref).scheme and not ref.startswith("/"), (name, ref)
            target = (out / name).parent / unquote(ref.split("#")[0].split("?")[0])
            assert target.resolve().is_file(), (name, ref)
            checked += 1
    assert checked > 300


def test_no_file_of_a_site_names_a_folder_of_this_machine(cli, stored: Stored, tmp_path: Path):
    """Every file ``arena site`` writes (pages, leaderboard.json, the replays' data), searched for the home and
    temporary folders, the working folder and the store's: none is there, though the plugin's source, and the
    tracebacks its errors wrote, name its file under the temporary folder."""
    import os
    import tempfile

    out = tmp_path / "public"
    assert cli("site", out, "--store", stored.path, "--replays", "all").exit_code == 0
    folders = {str(Path.home()), tempfile.gettempdir(), str(Path.cwd()), str(stored.path.parent), "/tmp/"}
    folders |= {os.path.realpath(f) for f in folders}
    assert str(stored.plugin).startswith(tempfile.gettempdir())  # what there is to hide
    searched = 0
    for name in written(out):
        text = (out / name).read_bytes().decode("utf-8", errors="replace")
        for folder in folders:
            assert folder not in text, (name, folder)
        searched += 1
    assert searched > 20
    page = (out / f"t/{stored.tournament}/index.html").read_text(encoding="utf-8")
    assert "file evil_bot.py" in page


def site_games(out: Path, tid: str) -> dict[tuple[str, int], dict]:
    """The games a site's data files hold: (player slug, board) -> the game's data."""
    found = {}
    for chunk in sorted((out / "t" / tid / "games").glob("*.js")):
        text = chunk.read_text(encoding="utf-8")
        assert text.startswith("ArenaReplayData(") and text.endswith(");\n")
        for board, entry in json.loads(text[len("ArenaReplayData(") : -3])["boards"].items():
            assert int(board) // 100 == int(chunk.stem)
            for slug, game in entry["games"].items():
                found[(slug, int(board))] = game
    return found


def links_to_replays(out: Path) -> set[str]:
    return {
        unquote(ref).replace("&amp;", "&").rsplit("/", 1)[-1]
        for page in out.rglob("*.html")
        for ref in re.findall(r'href="([^"]*game\.html\?[^"]*)"', page.read_text(encoding="utf-8"))
    }


@pytest.mark.slow
def test_replays_of_losses_and_splits_by_default(cli, stored: Stored, client, tmp_path: Path):
    t = stored.tournament
    data, links = {}, {}
    for mode in ("losses", "all", "none"):
        out = tmp_path / mode
        assert cli("site", out, "--store", stored.path, "--replays", mode).exit_code == 0
        data[mode], links[mode] = site_games(out, t) if mode != "none" else {}, links_to_replays(out)
    won = {}
    for player in ("random", "mean-constraint", "evil"):
        for game in client.get(f"/t/{t}/p/{player}/games?format=json&outcome=all").json()["games"]:
            won[(player, game["board"])] = game["outcome"] == "won"
            single = f"game.html?board={game['board']}&player={player}"
            assert (single in links["losses"]) == (game["outcome"] != "won"), (player, game["board"])
            assert single in links["all"] and single not in links["none"]
            assert data["all"][(player, game["board"])]["outcome"] == game["outcome"]
    # The data holds every game not won, and both games of every board two players split (their side by side).
    split = {
        key
        for (player, board), ok in won.items()
        for other in ("random", "mean-constraint", "evil")
        if (other, board) in won and won[(other, board)] != ok
        for key in ((player, board), (other, board))
    }
    assert set(data["losses"]) == {key for key, ok in won.items() if not ok} | split
    assert (
        len(data["all"]) == len(won) == 72
        and not links["none"]
        and not (tmp_path / "none" / "t" / t / "games").exists()
    )
    pairs = client.get(f"/t/{t}/diff/mean-constraint/random/?format=json").json()
    side = {link for link in links["losses"] if "&player=mean-constraint&vs=random" in link}
    assert len(side) == len(pairs["only_a"]) + len(pairs["only_b"]) > 0


def test_refuses_a_folder_with_other_files(cli, one_error_line, stored: Stored, tmp_path: Path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    line = one_error_line(cli("site", out, "--store", stored.path, "--replays", "none"))
    assert "holds 1 file(s) arena site did not write (notes.txt)" in line and "--force" in line
    assert written(out) == {"notes.txt"}
    assert cli("site", out, "--store", stored.path, "--replays", "none", "--force").exit_code == 0
    assert "notes.txt" in written(out) and "index.html" in written(out)


@pytest.mark.slow
def test_writing_again_removes_its_own_stale_pages(cli, stored: Stored, tmp_path: Path):
    out = tmp_path / "again"
    assert cli("site", out, "--store", stored.path, "--replays", "all").exit_code == 0
    many = written(out)
    assert cli("site", out, "--store", stored.path, "--replays", "none").exit_code == 0
    few = written(out)
    assert few < many and not any("/games/" in f or f.endswith("game.html") for f in few)
    assert set(json.loads((out / MANIFEST).read_text())["files"]) == few - {MANIFEST}


def test_bad_input_is_one_line(cli, one_error_line, stored: Stored, tmp_path: Path):
    assert "no tournament 'nope'" in one_error_line(cli("site", tmp_path / "a", "nope", "--store", stored.path))
    assert "no results store" in one_error_line(cli("site", tmp_path / "b", "--store", tmp_path / "none.db"))
    assert "--replays must be one of" in one_error_line(
        cli("site", tmp_path / "c", "--store", stored.path, "--replays", "some")
    )
    assert "--losses must be one of" in one_error_line(
        cli("site", tmp_path / "d", "--store", stored.path, "--losses", "some")
    )
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert "is not a folder" in one_error_line(cli("site", tmp_path / "file", "--store", stored.path))
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists() and not (tmp_path / "d").exists()


def test_a_small_site_without_lists(cli, stored: Stored, tmp_path: Path):
    """``--no-lists --replays none``: the figures only (leaderboards, players, comparisons' counts), every link
    still naming a file of the site: what the repository publishes of its leaderboards."""
    out = tmp_path / "small"
    assert (
        cli("site", out, "--store", stored.path, "--replays", "none", "--no-lists", "--losses", "none").exit_code == 0
    )
    files = written(out)
    t = stored.tournament
    assert not any("/games-" in f or "/games/" in f or f.endswith("game.html") for f in files)
    assert f"t/{t}/p/random/index.html" in files and f"t/{t}/diff/random/evil/index.html" in files
    player = (out / f"t/{t}/p/random/index.html").read_text(encoding="utf-8")
    assert '<span class="chip">lost <b>' in player and "games-lost-1.html" not in player
    assert f"Not judged for this site (arena site --losses none). arena losses {t} -p random judges them." in player
    assert "Expected losses" not in player
    diff = (out / f"t/{t}/diff/random/evil/index.html").read_text(encoding="utf-8")
    assert f"<code>arena diff {t} random evil</code> lists them" in diff and "<tbody>" not in diff
    checked = 0
    for name in files:
        if name.endswith(".html"):
            for ref in re.findall(r'href="([^"]*)"', (out / name).read_text(encoding="utf-8")):
                if not ref.startswith("data:"):
                    assert ((out / name).parent / unquote(ref.split("#")[0])).resolve().is_file(), (name, ref)
                    checked += 1
    assert checked > 50


def test_the_published_site_shows_the_published_leaderboards() -> None:
    """leaderboards/site/ is the four published tournaments written by `arena site`: each tournament's page holds
    the same players with the same games, wins and intervals as its leaderboards/*.json (ms per game is the
    machine's and may differ), so the committed pages cannot drift from the committed figures."""
    root = ROOT / "leaderboards"
    checked = 0
    for published in sorted(root.glob("*.json")):
        board = json.loads(published.read_text())
        page = root / "site" / "t" / board["config"]["tournament_id"] / "leaderboard.json"
        assert page.is_file(), f"{published.name}: its tournament is not in leaderboards/site"
        shown = {row["player"]: row for row in json.loads(page.read_text())["rows"]}
        for row in board["rows"]:
            for figure in ("games", "wins", "win_rate", "ci_low", "ci_high", "failed", "paired_games"):
                assert shown[row["player"]][figure] == row[figure], (published.name, row["player"], figure)
            checked += 1
    assert checked >= 20, checked  # four tournaments of five or more players


def test_every_board_is_in_the_site_as_the_served_page_shows_it(client, cli, stored: Stored, tmp_path: Path):
    """A site's one board page reads every board from its data files: each board's games are the served board
    page's (outcome, moves, first click, layouts), a game's replay is marked where the site holds it, and the
    games lists link each board's page. Nothing a bot wrote is markup in the data (no ``<`` at all)."""
    from arena.web.board_data import CHUNK

    out = tmp_path / "site"
    assert cli("site", out, "--store", stored.path).exit_code == 0
    t = stored.tournament
    text = (out / f"t/{t}/boards/0.js").read_text(encoding="utf-8")
    assert text.startswith("ArenaBoardData(") and "<" not in text and CHUNK >= 24
    boards = json.loads(text[len("ArenaBoardData(") : -len(");\n")])["boards"]
    assert sorted(map(int, boards)) == list(range(24))
    viewer = (out / f"t/{t}/game.html").read_text(encoding="utf-8")
    held = json.loads((out / MANIFEST).read_text())["files"]
    checked = 0
    for board, entry in boards.items():
        served = client.get(f"/t/{t}/b/{board}/?format=json").json()
        ours = {row[0]: row for row in entry["games"]}
        assert sorted(ours) == sorted(g["player"] for g in served["games"])  # slugs are the keys here
        for game in served["games"]:
            row = ours[game["player"]]
            assert (row[1], row[2], row[7] or "-") == (game["outcome"], game["moves"], game["first"])
            if game["outcome"] != "won":  # every game not won has its replay in the site
                assert row[9] == 1, (board, game)
            checked += 1
        assert len(entry["layouts"]) == len(served["layouts"])
    assert checked == 24 * 3 and viewer and held
    games_list = (out / f"t/{t}/p/random/games-all-1.html").read_text(encoding="utf-8")
    assert games_list.count('href="../../board.html?board=') == 24
