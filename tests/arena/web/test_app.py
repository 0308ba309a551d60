"""The served app through Starlette's TestClient: each page's HTML and JSON, the JSON equal to the CLI's
``--json``, a hostile bot's words shown as text, and 404/400/503 pages instead of tracebacks."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner
from web_support import COMPETITION, IMAGE, OWNERS, PLAYERS, SCRIPT, Stored

from arena.cli import app as cli_app
from arena.web.data import player_slug

runner = CliRunner()


def cli_json(*args: str | Path) -> Any:
    result = runner.invoke(cli_app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def no_markup_from_bots(text: str) -> None:
    """The bot's payloads never appear as markup; where they appear, they are escaped text (or, in a replay's
    data, JSON with no ``<`` that could end its script element)."""
    data = re.findall(r'<script type="application/json" id="replay-data">(.*?)</script>', text, re.S)
    assert all("<" not in part for part in data)
    text = re.sub(r'(<script type="application/json" id="replay-data">).*?(</script>)', r"\1\2", text, flags=re.S)
    assert SCRIPT not in text and IMAGE not in text
    assert "<script>window" not in text and "onerror=" not in text.replace("onerror=&#34;", "")


@pytest.mark.slow
def test_home_lists_the_tournament(client, stored: Stored):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert f'data-tournament="{stored.tournament}"' in page.text
    data = client.get("/?format=json").json()
    cli = cli_json("leaderboard", "--list", "--json", "--store", stored.path)
    assert [row["id"] for row in data] == [row["id"] for row in cli] == [stored.tournament]
    for ours, theirs in zip(data, cli, strict=True):
        assert {k: ours[k] for k in theirs} == theirs  # the CLI's shape, with more fields
        assert ours["players"] == sorted(PLAYERS) and ours["live"] is False


def test_leaderboard_json_is_the_clis(client, stored: Stored):
    data = client.get(f"/t/{stored.tournament}/?format=json").json()
    assert data == cli_json("leaderboard", stored.tournament, "--json", "--store", stored.path)
    assert len(data["rows"]) == 3


def test_leaderboard_html_shows_every_row_and_figure(client, stored: Stored):
    text = client.get(f"/t/{stored.tournament}/").text
    board = client.get(f"/t/{stored.tournament}/?format=json").json()
    assert "beginner (9x9, 10 mines) · first click safe · seed 5 · 24 boards" in text
    checked = 0
    for row in board["rows"]:
        block = text.split(f'<tr data-player="{row["player"]}">')[1].split("</tr>")[0]
        assert f'data-field="win_rate">{100 * row["win_rate"]:.2f}<' in block
        assert f'data-v="{row["win_rate"]!r}"' in block
        assert f'data-v="{row["ci_low"]!r}"' in block and f'data-high="{row["ci_high"]!r}"' in block
        assert f'data-v="{row["guesses_per_game"]!r}"' in block and f'data-v="{row["ms_per_game"]!r}"' in block
        assert 'data-field="failed" title="' in block
        assert f'href="/t/{stored.tournament}/p/{player_slug(row["player"])}/"' in block
        if row["diff"] is not None:
            assert f'data-v="{row["diff"]!r}"' in block and f'data-v="{row["p_value"]!r}"' in block
        checked += 1
    assert checked == 3
    evil = text.split('<tr data-player="evil">')[1].split("</tr>")[0]
    assert "v&lt;script&gt;window.pwned=1&lt;/script&gt;" in evil
    no_markup_from_bots(text)


def test_player_page_and_its_json(client, stored: Stored):
    base = f"/t/{stored.tournament}/p/evil/"
    data = client.get(base + "?format=json").json()
    losses = cli_json("losses", stored.tournament, "-p", "evil", "--json", "--store", stored.path)
    assert data["losses"] == losses
    errors = cli_json("errors", stored.tournament, "-p", "evil", "--json", "--store", stored.path, "--limit", "20")
    theirs = errors["players"][0]
    ours = data["failures"]
    for failure in theirs["failures"]:
        failure["reproduce"] = None
    assert ours == theirs and ours["failed"] > 0
    assert data["version"] == SCRIPT
    text = client.get(base).text
    no_markup_from_bots(text)
    assert "ValueError: &lt;script&gt;window.pwned=1&lt;/script&gt;" in text  # the failure's message
    assert "&lt;img src=x onerror=&#34;window.pwned=2&#34;&gt;" in text  # its stderr
    # Each class of loss lists its boards, each linked to its replay.
    links = re.findall(r'href="(/t/[0-9a-f]+/g/(\d+)/evil)" data-board="\d+" data-class="(\w+)"', text)
    judged = {kind: boards for kind, boards in losses["boards"].items() if boards}
    assert sorted((int(b), k) for _, b, k in links) == sorted((b, k) for k, bs in judged.items() for b in bs[:40])
    assert links


def test_games_are_paged_and_filtered(client, stored: Stored):
    base = f"/t/{stored.tournament}/p/random/games"
    first = client.get(base + "?outcome=all&page=1&format=json").json()
    assert first["total"] == 24 and first["pages"] == 1 and [g["board"] for g in first["games"]] == list(range(24))
    lost = client.get(base + "?outcome=lost&format=json").json()
    won = client.get(base + "?outcome=won&format=json").json()
    assert lost["total"] + won["total"] == 24 and all(g["outcome"] == "lost" for g in lost["games"])
    text = client.get(base + "?outcome=lost").text
    assert len(re.findall(r'class="replay-link"', text)) == lost["total"]
    assert client.get(base + "?outcome=lost&page=2").status_code == 404


def test_a_game_page_is_the_replay_viewer(client, stored: Stored):
    board = next(
        g["board"] for g in client.get(f"/t/{stored.tournament}/p/evil/games?outcome=lost&format=json").json()["games"]
    )
    page = client.get(f"/t/{stored.tournament}/g/{board}/evil")
    assert page.status_code == 200
    assert 'id="replay-data"' in page.text and 'id="slider"' in page.text
    no_markup_from_bots(page.text)
    data = client.get(f"/t/{stored.tournament}/g/{board}/evil?format=json").json()
    notes = list(data["games"][0]["notes"].values())
    assert notes and all(SCRIPT in note for note in notes)  # in the JSON as data, escaped in the page
    pair = client.get(f"/t/{stored.tournament}/g/{board}/evil/vs/random?format=json").json()
    assert [g["player"] for g in pair["games"]] == ["evil", "random"]


def test_diff_json_is_the_clis(client, stored: Stored):
    data = client.get(f"/t/{stored.tournament}/diff/mean-constraint/random/?format=json").json()
    cli = cli_json("diff", stored.tournament, "mean-constraint", "random", "--json", "--store", stored.path)
    assert data == cli
    text = client.get(f"/t/{stored.tournament}/diff/mean-constraint/random/").text
    assert text.count('class="replay-link"') == len(cli["only_a"]) + len(cli["only_b"])


@pytest.mark.parametrize(
    ("url", "status", "says"),
    [
        ("/t/0123456789abcdef/", 404, "no tournament"),
        ("/t/{t}/p/nobody/", 404, "no player"),
        ("/t/{t}/g/999/random", 404, "no board 999"),
        ("/t/{t}/g/3/nobody", 404, "no player"),
        ("/t/{t}/diff/random/nobody/", 404, "no player"),
        ("/no/such/page", 404, "no page"),
        ("/t/{t}/g/abc/random", 400, "board must be a whole number"),
        ("/t/{t}/g/-1/random", 400, "board must be 0 or more"),
        ("/t/{t}/p/random/games?page=x", 400, "page must be a whole number"),
        ("/t/{t}/p/random/games?outcome=maybe", 400, "outcome must be one of"),
        ("/t/{t}/?format=xml", 400, "format must be html or json"),
        ("/t/{t}/diff/random/random/", 400, "two different players"),
        ("/t/{t}/g/2/random/vs/random", 400, "two different players"),
    ],
)
def test_bad_addresses_are_pages_not_tracebacks(client, stored: Stored, url: str, status: int, says: str):
    page = client.get(url.format(t=stored.tournament))
    assert page.status_code == status
    assert says in page.text and "Traceback" not in page.text and "<nav" in page.text
    as_json = client.get(url.format(t=stored.tournament) + ("&" if "?" in url else "?") + "format=json")
    if "format=xml" not in url:
        assert as_json.status_code == status and says in as_json.json()["error"]


def test_nothing_but_get(client, stored: Stored):
    for method in ("post", "put", "delete"):
        page = getattr(client, method)(f"/t/{stored.tournament}/")
        assert page.status_code == 405 and "GET requests only" in page.text


def test_pages_forbid_other_hosts(client, stored: Stored):
    policy = client.get(f"/t/{stored.tournament}/").headers["content-security-policy"]
    assert "default-src 'self'" in policy and "connect-src 'self'" in policy


def test_the_store_is_only_read(client, stored: Stored, tmp_path: Path):
    """Every page of the tournament leaves the store's bytes as they were."""
    before = stored.path.read_bytes()
    for url in (
        "/",
        f"/t/{stored.tournament}/",
        f"/t/{stored.tournament}/p/random/",
        f"/t/{stored.tournament}/g/1/random",
    ):
        assert client.get(url).status_code == 200
    assert stored.path.read_bytes() == before


def test_a_replaced_store_is_read_anew_and_a_broken_one_refused(stored: Stored, tmp_path: Path):
    from starlette.testclient import TestClient

    from arena.web.app import create_app

    path = tmp_path / "copy.db"
    with sqlite3.connect(stored.path) as source, sqlite3.connect(path) as target:
        source.backup(target)
    client = TestClient(create_app(path), raise_server_exceptions=False)
    assert client.get(f"/t/{stored.tournament}/").status_code == 200
    path.unlink()
    missing = client.get(f"/t/{stored.tournament}/")
    assert missing.status_code == 503 and "no results store" in missing.text
    path.write_bytes(b"this is not a database" * 100)
    broken = client.get("/?format=json")
    assert broken.status_code == 503 and "results store" in broken.json()["error"]
    path.unlink()
    shutil.copy(stored.path, path)
    assert client.get(f"/t/{stored.tournament}/").status_code == 200


def test_unknown_static_file(client):
    assert client.get("/static/site.css").headers["content-type"].startswith("text/css")
    assert client.get("/static/nope.js").status_code == 404


@pytest.mark.slow
def test_sweeps_page_is_the_sweeps_json(swept):
    from starlette.testclient import TestClient

    from arena.web.app import create_app

    path, cli = swept
    client = TestClient(create_app(path), raise_server_exceptions=False)
    (sweep,) = client.get("/sweeps/?format=json").json()
    assert {k: sweep[k] for k in ("rule", "seed", "games")} == {k: cli[k] for k in ("rule", "seed", "games")}
    key = lambda cell: (cell["mines"], cell["player"])  # noqa: E731
    assert sorted(sweep["cells"], key=key) == sorted(cli["cells"], key=key) and len(cli["cells"]) == 6
    text = client.get("/sweeps/").text
    # A line and a band per player, in each of the two drawings (a wide window's and a phone's).
    assert text.count("<polyline") == 4 and text.count("<polygon") == 4
    by_player = lambda h: h["player"]  # noqa: E731
    assert sorted(sweep["half_density"], key=by_player) == sorted(cli["half_density"], key=by_player)
    assert len(cli["half_density"]) == 2
    assert 'href="/sweeps/"' in client.get("/").text
    for cell in cli["cells"]:
        assert f'href="/t/{cell["tournament"]}/"' in text


@pytest.mark.slow
def test_a_large_players_losses_are_judged_in_the_background(stored: Stored, monkeypatch):
    """Above ``SYNC_LOSS_GAMES`` games the page does not wait: it says the losses are being judged, follows
    itself live, and shows them (the report of ``arena losses``) once the background judge is done."""
    import time

    from starlette.testclient import TestClient

    from arena.web import data, judging
    from arena.web.app import create_app

    monkeypatch.setattr(judging, "SYNC_LOSS_GAMES", 5)
    data.CACHE.values.clear()
    client = TestClient(create_app(stored.path), raise_server_exceptions=False)
    url = f"/t/{stored.tournament}/p/mean-constraint/"
    first = client.get(url)
    assert first.status_code == 200
    if "Judging its 24 games" in first.text:  # else the judge was done before the page was made
        assert 'data-live="1"' in first.text
    deadline = time.monotonic() + 120
    while "pending" in (report := client.get(url + "?format=json").json()["losses"]):
        assert time.monotonic() < deadline, "the losses were never judged"
        time.sleep(0.2)
    assert report == cli_json("losses", stored.tournament, "-p", "mean-constraint", "--json", "--store", stored.path)
    text = client.get(url).text
    assert "Judging" not in text and 'data-live="1"' not in text and "Expected losses" in text


@pytest.mark.slow
def test_a_player_with_options_has_its_own_pages(tmp_path: Path):
    """``random[subsets=true]``: its options are shown, and its address (a slug with a hash) leads to it."""
    from starlette.testclient import TestClient
    from web_support import arena

    from arena.web.app import create_app

    store = tmp_path / "options.db"
    for options in ([], ["-o", "random.subsets=true"]):  # the second run adds a row to the same boards
        arena("tournament", "-d", "beginner", "-n", "6", "-p", "random", *options, "--store", store, "--workers", "1")
    client = TestClient(create_app(store), raise_server_exceptions=False)
    (tournament,) = client.get("/?format=json").json()
    keys = sorted(tournament["players"])
    assert keys == ["random", "random[subsets=true]"]
    slug = player_slug("random[subsets=true]")
    assert slug.startswith("random-subsets-true-") and slug != player_slug("random")
    board = client.get(f"/t/{tournament['id']}/").text
    assert f'href="/t/{tournament["id"]}/p/{slug}/"' in board and '<span class="opt">subsets=True</span>' in board
    page = client.get(f"/t/{tournament['id']}/p/{slug}/")
    assert page.status_code == 200 and "<h1>random[subsets=true]</h1>" in page.text
    assert client.get(f"/t/{tournament['id']}/p/{slug}/?format=json").json()["options"] == {"subsets": True}


def test_a_sweep_point_reused_from_a_larger_tournament_is_on_the_sweeps_page(tmp_path):
    """``arena sweep`` reuses a stored tournament of the same board set, even one with more boards and another
    player: the page shows that point too, counted over the sweep's boards, as the sweep printed it."""
    from starlette.testclient import TestClient
    from web_support import arena

    from arena.web.app import create_app

    path = tmp_path / "reused.db"
    players = "random,mean-constraint,max-single-constraint"  # one player more than the sweep's, 40 boards not 20
    arena("tournament", "--size", "6x6", "--mines", "6", "-n", "40", "-p", players,
          "--workers", "1", "--store", path, "--seed", "0")  # fmt: skip
    result = arena("sweep", "--size", "6x6", "--mines", "4,6,8", "-p", "random,mean-constraint", "-n", "20",
                   "--workers", "1", "--store", path, "--json")  # fmt: skip
    cli = json.loads(result.stdout)
    client = TestClient(create_app(path), raise_server_exceptions=False)
    (sweep,) = client.get("/sweeps/?format=json").json()
    key = lambda cell: (cell["mines"], cell["player"])  # noqa: E731
    mine = {key(c): c for c in sweep["cells"]}
    for cell in cli["cells"]:  # every point the command printed, with its figures
        assert mine[key(cell)] == cell, cell
    assert len(cli["cells"]) == 6 and {c["mines"] for c in sweep["cells"]} == {4, 6, 8}
    text = client.get("/sweeps/").text
    assert text.count('<tr data-mines="') == 3  # pivoted as the command prints it: a row per mine count


def test_a_competitions_name_and_owners_are_shown_as_text(client, stored: Stored):
    """The session's store is labelled as ``arena compete`` labels a competition's tournament: its name titles the
    tournament's pages and the index, each owner stands beside its entrant on the leaderboard and its player page;
    both are text a stranger wrote, escaped everywhere."""
    t = stored.tournament
    text = client.get(f"/t/{t}/").text
    assert '<h1 data-field="name">Evil cup &lt;script&gt;window.pwned=1&lt;/script&gt;</h1>' in text
    assert "<title>Evil cup &lt;script&gt;window.pwned=1&lt;/script&gt; · beginner" in text
    checked = 0
    for key, owner in OWNERS.items():
        block = text.split(f'<tr data-player="{key}">')[1].split("</tr>")[0]
        shown = owner.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
        assert f'<span class="owner" data-field="owner" title="owner">{shown}</span>' in block, key
        page = client.get(f"/t/{t}/p/{player_slug(key)}/")
        assert f'<span class="owner" data-field="owner">entered by {shown}</span>' in page.text
        assert client.get(f"/t/{t}/p/{player_slug(key)}/?format=json").json()["owner"] == owner
        no_markup_from_bots(page.text)
        checked += 1
    assert checked == 3
    home = client.get("/").text
    assert ">Evil cup &lt;script&gt;window.pwned=1&lt;/script&gt;</a>" in home and COMPETITION not in home
    no_markup_from_bots(text)
    no_markup_from_bots(home)


def test_a_board_page_lists_every_players_game_with_its_layout(client, stored: Stored):
    """Board 5: every player's game as the store holds it, each linked to its replay, and each first click's mine
    layout, drawn as the engine draws it (the replay's own layout, checked for one game)."""
    from arena.analysis.replay import replay
    from arena.web import data, games_data

    t = stored.tournament
    page = client.get(f"/t/{t}/b/5/?format=json").json()
    assert sorted(g["player"] for g in page["games"]) == sorted(PLAYERS)
    with data.reading(stored.path) as db:
        for game in page["games"]:
            stored_game = db.game(t, game["player"], 5)
            assert (game["outcome"], game["moves"]) == (stored_game.outcome.value, stored_game.moves)
        drawn = replay(games_data.replay_game(db, t, "random", 5), probabilities=False).layout
    (layout,) = [layout for layout in page["layouts"] if "random" in layout["players"]]
    assert layout["rows"] == ["".join("*" if c else "." for c in row) for row in drawn.tolist()]
    assert all("".join(lay["rows"]).count("*") == 10 for lay in page["layouts"])
    text = client.get(f"/t/{t}/b/5/").text
    assert text.count('class="replay-link"') == 3 and f'href="/t/{t}/b/4/"' in text and f'href="/t/{t}/b/6/"' in text
    no_markup_from_bots(text)
    assert client.get(f"/t/{t}/b/24/").status_code == 404


def test_a_match_page_shows_the_settings_the_match_was_run_with(tmp_path: Path):
    """``run_match`` stores its test's settings with the match's tournament and the page shows them (the address
    may try others, and the page says so); a store from before they were kept says the match's are unknown."""
    from starlette.testclient import TestClient

    from arena.config import PlayerRef, TournamentConfig
    from arena.experiments.match import run_match
    from arena.results.store import Store
    from arena.web.app import create_app
    from engine import BEGINNER, FirstClick
    from players.registry import Registry

    refs = (PlayerRef(name="mean-constraint"), PlayerRef(name="random"))
    config = TournamentConfig.build(BEGINNER, FirstClick.SAFE, seed=8, games=6, players=refs, purpose="match")
    path = tmp_path / "match.db"
    with Store(path) as store:
        result = run_match(config, store, Registry(), delta=0.4, alpha=0.1, beta=0.2, batch=6, max_games=12,
                           workers=1)  # fmt: skip
    client = TestClient(create_app(path), raise_server_exceptions=False)
    url = f"/t/{result.tournament_id}/match/"
    got = client.get(url + "?format=json").json()
    assert (got["delta"], got["alpha"], got["beta"], got["batch"], got["max_games"]) == (40, 0.1, 0.2, 6, 12)
    assert got["settings_stored"] and got["assumed"] == [] and got["changed_by_address"] == []
    text = client.get(url).text
    assert "δ 40 points, α 0.1, β 0.2, a look every 6 boards, at most 12 boards" in text and 'id="assumed"' not in text
    tried = client.get(url + "?delta=10").text
    assert 'id="changed"' in tried and "changes delta" in tried
    with sqlite3.connect(path) as db:  # as a store written before the settings were kept
        db.execute("DELETE FROM match_settings")
    old = client.get(url + "?format=json").json()
    assert not old["settings_stored"] and old["assumed"] == ["delta", "alpha", "beta", "batch"]
    assert (
        "the match&#39;s own are unknown" in client.get(url).text
        or "the match's own are unknown" in client.get(url).text
    )
