"""``arena site``: the pages of ``arena serve`` written as static files, for ``file://`` and any static host.

The same page values (``arena.web.pages``) and templates, with ``SiteLinks``: every link relative, every asset
(stylesheet, script) inside the folder, nothing fetched from anywhere. Replays would be the heavy part; the
site has one replay viewer per tournament and its games as compact data files (``arena.web.site_data``): those
of lost and failed games and of the boards two players split (``replays="losses"``, the default), every game
(``"all"``) or none; a page links a game's replay only when the site holds it.

The folder is the site's own: a manifest (``.arena-site.json``) lists what ``arena site`` wrote there, a folder
holding other files is refused unless forced (it may be someone's work), and writing again removes the pages
of the last run that this one no longer has.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.web import board_data, data, follow, games_data, pages, pages_more, player_pages, site_data, sweep_page
from arena.web.links import SiteLinks, site_path
from arena.web.public import Redactor, machine_folders, shown_source
from arena.web.render import render_page, static_files

__all__ = ["JUDGED_GAMES", "LOSSES", "MANIFEST", "REPLAYS", "SiteError", "SiteSummary", "write_site"]

MANIFEST = ".arena-site.json"
#: Which games get a replay page.
REPLAYS = ("losses", "all", "none")
#: Whose losses the players' pages judge: ``auto``, players of at most ``JUDGED_GAMES`` games.
LOSSES = ("auto", "all", "none")
#: Judging a game's losses replays it and analyses every guess: the 30,000 games of six players on 5,000 Expert
#: boards take three minutes of CPU (benchmarks/results/site_scale_losses_all.json). ``--losses all`` judges them.
JUDGED_GAMES = 2000


class SiteError(Exception):
    """A site that cannot be written as asked: an unknown tournament, a folder that holds other files."""


@dataclass(frozen=True, slots=True)
class SiteSummary:
    """What ``write_site`` wrote: files and their bytes, tournaments, and the games its replay viewer can show."""

    folder: Path
    files: int
    bytes: int
    tournaments: int
    replays: int


def _existing(folder: Path) -> set[str]:
    if not folder.exists():
        return set()
    if not folder.is_dir():
        raise SiteError(f"{folder} exists and is not a folder")
    found = set()
    for root, _, names in os.walk(folder):
        for name in names:
            found.add(Path(root, name).relative_to(folder).as_posix())
    return found


def _manifest(folder: Path) -> set[str]:
    try:
        listed = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    return {str(name) for name in listed}


def _check_folder(folder: Path, force: bool) -> set[str]:
    """What the last ``arena site`` wrote here; ``SiteError`` when the folder holds files it did not write."""
    existing = _existing(folder)
    ours = _manifest(folder)
    foreign = sorted(existing - ours - {MANIFEST})
    if foreign and not force:
        shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        raise SiteError(
            f"{folder} holds {len(foreign)} file(s) arena site did not write ({shown}); "
            "choose an empty or new folder, or pass --force to write into it anyway"
        )
    return ours


def _replays(
    db: data.Store, tid: str, slugs: dict[str, str], mode: str
) -> tuple[set[str], dict[tuple[str, int], tuple[str, str]]]:
    """The addresses of the replays the site links, and the games its data holds (``(player, board)`` -> its
    outcome and stored error): ``mode`` ``losses`` gives every game not won and both games of every board two
    players split (their side-by-side replay); ``all`` every game as well."""
    if mode == "none":
        return set(), {}
    won: dict[str, dict[int, bool]] = {}
    results: dict[tuple[str, int], tuple[str, str]] = {}
    for game in db.iter_games(tid):
        won.setdefault(game.player, {})[game.board] = game.won
        results[(game.player, game.board)] = (game.outcome.value, game.error)
    paths = set()
    chosen = set()
    for key, boards in won.items():
        slug = slugs[key]
        for board, ok in boards.items():
            if mode == "all" or not ok:
                paths.add(site_path("game", tid, board, slug))
                chosen.add((key, board))
    for a, b in itertools.combinations(sorted(won), 2):
        first, second = sorted((slugs[a], slugs[b]))
        for board in won[a].keys() & won[b].keys():
            if won[a][board] != won[b][board]:
                paths.add(site_path("pair", tid, board, first, second))
                chosen.update(((a, board), (b, board)))
    return paths, {game: results[game] for game in chosen}


def _not_judged(mode: str, games: int, tid: str, key: str) -> str | None:
    """Why a player's losses are not judged for the site (``None``: they are), and the command that judges them."""
    if mode == "all" or (mode == "auto" and games <= JUDGED_GAMES):
        return None
    command = f"arena losses {tid} -p {shlex.quote(key)}"
    if mode == "none":
        return f"Not judged for this site (arena site --losses none). {command} judges them."
    return (
        f"Not judged for this site: {games:,} games are more than arena site judges a player by default "
        f"({JUDGED_GAMES:,}; each game is replayed and every guess analysed). {command} judges them, or arena site "
        "--losses all."
    )


def _public(leaderboard: dict[str, object]) -> dict[str, object]:
    """``arena leaderboard --json`` as a site publishes it: each source by its file's name."""
    rows = leaderboard.get("rows")
    if isinstance(rows, list):
        leaderboard["rows"] = [{**row, "source": shown_source(str(row.get("source") or ""))} for row in rows]
    return leaderboard


#: A competition's points table, at the site's top (``write_site(points=...)``).
POINTS_PAGE = "points.html"


def _points_page(points: Mapping[str, Any], links: SiteLinks) -> pages.Page:
    """The points table of a competition of several board sets, from its results' data: every value an entrant
    wrote (a name, an owner) is text, escaped by the templates."""
    sets = [
        {"name": s["name"], "points": f"{s['points']:g}", "href": links.leaderboard(s["tournament_id"])}
        for s in points["sets"]
    ]
    title = f"{points['competition']['name']}: points"
    context = {"name": points["competition"]["name"], "sets": sets, "rows": points["points"]}
    return pages.Page(
        "points.html", title, context, points["points"], crumbs=[("tournaments", links.home()), ("points", None)]
    )


def write_site(
    store: str | Path | None,
    folder: str | Path,
    tournaments: Sequence[str] = (),
    *,
    replays: str = "losses",
    losses: str = "auto",
    lists: bool = True,
    force: bool = False,
    progress: Callable[[str], None] | None = None,
    points: Mapping[str, Any] | None = None,
) -> SiteSummary:
    """Write the pages of ``tournaments`` (default: every stored one) into ``folder``. ``lists=False``: no
    player's list of games and no comparison's list of boards, for a small site of the figures. ``points``: a
    competition of several board sets (its ``leaderboard.json``'s data: ``arena compete``) also gets its points
    table, ``points.html``, each set linked to its tournament's leaderboard."""
    if replays not in REPLAYS:
        raise SiteError(f"--replays must be one of {', '.join(REPLAYS)}, got {replays!r}")
    if losses not in LOSSES:
        raise SiteError(f"--losses must be one of {', '.join(LOSSES)}, got {losses!r}")
    folder = Path(folder)
    previous = _check_folder(folder, force)
    written: dict[str, int] = {}
    # A site is published: no file of it names a folder of this machine, even in text a bot wrote.
    redact = Redactor(machine_folders(Path(store).parent if store is not None else None, folder.resolve().parent))

    def put(path: str, content: str | bytes) -> None:
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        raw = redact(content).encode("utf-8") if isinstance(content, str) else content
        target.write_bytes(raw)
        written[path] = len(raw)

    generated = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M")

    def page(path: str, build: Callable[[SiteLinks], pages.Page], replay_paths: set[str]) -> None:
        links = SiteLinks(path, replay_paths, lists=lists, generated=generated)
        put(path, render_page(build(links), links))

    replay_count = 0
    with data.reading(Path(store) if store is not None else None) as db:
        known = [info.id for info in data.tournaments(db)]
        ids = list(dict.fromkeys(tournaments)) or known
        unknown = [tid for tid in ids if tid not in known]
        if unknown:
            raise SiteError(f"no tournament {unknown[0]!r} in {db.path}; `arena leaderboard --list` shows them")
        every: set[str] = set()
        names: set[str] = set()
        plans = {}
        for tid in ids:
            slugs = {row["player"]: slug for slug, row in data.players(db, tid).items()}
            paths, chosen = _replays(db, tid, slugs, replays)
            plans[tid] = (slugs, chosen)
            every |= paths
        page(site_path("home"), lambda links: pages.home_page(db, links, set(ids)), every)
        sweeps = sweep_page.sweeps_page(db, SiteLinks(site_path("sweeps"), every, lists=lists), set(ids))
        if sweeps.data:
            page(site_path("sweeps"), lambda links: sweep_page.sweeps_page(db, links, set(ids)), every)
        for tid in ids:
            slugs, chosen = plans[tid]
            if progress is not None:
                progress(f"tournament {tid}: {len(slugs)} players, {len(chosen):,} games to replay")
            page(site_path("leaderboard", tid), lambda links, tid=tid: pages.leaderboard_page(db, tid, links), every)
            if data.leaderboard(db, tid).hidden_versions:
                page(
                    site_path("versions", tid),
                    lambda links, tid=tid: pages.leaderboard_page(db, tid, links, all_versions=True),
                    every,
                )
            public = _public(data.leaderboard(db, tid).model_dump())
            put(site_path("leaderboard.json", tid), json.dumps(public, indent=2))
            put(site_path("download", tid, "leaderboard.csv"), pages_more.leaderboard_csv(db, tid, public=True))
            put(site_path("download", tid, "games.csv"), pages_more.games_csv(db, tid))
            page(site_path("pairs", tid), lambda links, tid=tid: pages_more.pairs_page(db, tid, links), every)
            page(site_path("convergence", tid), lambda links, tid=tid: follow.convergence_page(db, tid, links), every)
            if follow.match_players(db, tid) is not None:
                page(site_path("match", tid), lambda links, tid=tid: follow.match_page(db, tid, links), every)
            for key in slugs:
                names.add(data.find_player(db, tid, slugs[key])["name"])
            counts = {key: sum(n.values()) for key, n in db.outcome_counts(tid).items()}
            for key, slug in slugs.items():
                why = _not_judged(losses, counts.get(key, 0), tid, key)
                page(
                    site_path("player", tid, slug),
                    lambda ln, t=tid, s=slug, w=why: player_pages.player_page(db, t, s, ln, not_judged=w),
                    every,
                )
                for outcome in games_data.OUTCOME_FILTERS if lists else ():
                    number, pages_of = 1, 1
                    while number <= pages_of:
                        path = site_path("games", tid, slug, outcome, number)
                        built = player_pages.games_page(
                            db, tid, slug, outcome, number, SiteLinks(path, every), judge=why is None
                        )
                        put(path, render_page(built, SiteLinks(path, every)))
                        pages_of = built.context["found"].pages
                        number += 1
                for other in slugs.values():
                    if other != slug:
                        path = site_path("diff", tid, slug, other)
                        page(
                            path,
                            lambda ln, t=tid, a=slug, b=other: pages.diff_page(db, t, a, b, ln, boards=lists),
                            every,
                        )
            page(site_path("board-viewer", tid), lambda ln, t=tid: pages_more.board_viewer_page(db, t, ln), every)
            board_data.write_boards(
                db,
                tid,
                slugs,
                lambda key, board, t=tid, s=slugs: site_path("game", t, board, s[key]) in every,
                put,
                lambda n, t=tid: site_path("boards-data", t, n),
            )
            if chosen:
                viewer = site_path("viewer", tid)
                lost: dict[str, list[int]] = {}
                for (key, board), (outcome, _) in sorted(chosen.items(), key=lambda item: item[0][1]):
                    if outcome == "lost":
                        lost.setdefault(slugs[key], []).append(board)
                source = site_data.viewer_source(db, tid, slugs, SiteLinks(viewer).leaderboard(tid), lost)
                page(viewer, lambda ln, t=tid, src=source: pages.viewer_page(db, t, src, ln), every)
                wrote = site_data.write_games(
                    db, tid, chosen, slugs, put, lambda n, t=tid: site_path("games-data", t, n)
                )
                replay_count += wrote.games
                if progress is not None and wrote.unreadable:
                    progress(f"tournament {tid}: {wrote.unreadable} game records could not be read; not replayed")
        for name in sorted(names):
            page(
                site_path("history", data.player_slug(name)),
                lambda links, n=name: pages_more.versions_page(db, n, links, set(ids)),
                every,
            )
        if points is not None:
            page(POINTS_PAGE, lambda links: _points_page(points, links), every)
    for name, content in static_files().items():
        put(site_path("static", name), content)
    for stale in sorted(previous - set(written)):
        target = folder / stale
        if target.is_file():
            target.unlink()
    manifest = json.dumps({"generator": "arena site", "files": sorted(written)}, indent=0)
    (folder / MANIFEST).write_text(manifest, encoding="utf-8")
    return SiteSummary(folder, len(written), sum(written.values()), len(ids), replay_count)
