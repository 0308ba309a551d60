"""``arena site``: the pages of ``arena serve`` written as static files, for ``file://`` and any static host.

The same page values (``arena.web.pages``) and templates, with ``SiteLinks``: every link relative, every asset
(stylesheet, script) inside the folder, nothing fetched from anywhere. Replays are the heavy part (a page per
game, its positions and probabilities inside), so the site holds those of lost and failed games and of the
boards two players split (``replays="losses"``, the default), every game's (``"all"``) or none; a page links a
game's replay only when the site holds it.

The folder is the site's own: a manifest (``.arena-site.json``) lists what ``arena site`` wrote there, a folder
holding other files is refused unless forced (it may be someone's work), and writing again removes the pages
of the last run that this one no longer has.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.web import data, pages
from arena.web.links import SiteLinks, site_path
from arena.web.render import render_page, static_files

__all__ = ["MANIFEST", "REPLAYS", "SiteError", "SiteSummary", "write_site"]

MANIFEST = ".arena-site.json"
#: Which games get a replay page.
REPLAYS = ("losses", "all", "none")


class SiteError(Exception):
    """A site that cannot be written as asked: an unknown tournament, a folder that holds other files."""


@dataclass(frozen=True, slots=True)
class SiteSummary:
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


def _replays(db: data.Store, tid: str, slugs: dict[str, str], mode: str) -> set[str]:
    """The site paths of the replays to write: ``mode`` ``losses`` gives every game not won and a side-by-side
    page of every board two players split; ``all`` every game as well."""
    if mode == "none":
        return set()
    won: dict[str, dict[int, bool]] = {}
    for game in db.games(tid):
        won.setdefault(game.player, {})[game.board] = game.won
    paths = set()
    for key, boards in won.items():
        slug = slugs[key]
        for board, ok in boards.items():
            if mode == "all" or not ok:
                paths.add(site_path("game", tid, board, slug))
    for a, b in itertools.combinations(sorted(won), 2):
        first, second = sorted((slugs[a], slugs[b]))
        for board in won[a].keys() & won[b].keys():
            if won[a][board] != won[b][board]:
                paths.add(site_path("pair", tid, board, first, second))
    return paths


def write_site(
    store: str | Path | None,
    folder: str | Path,
    tournaments: Sequence[str] = (),
    *,
    replays: str = "losses",
    force: bool = False,
    progress: Callable[[str], None] | None = None,
) -> SiteSummary:
    """Write the pages of ``tournaments`` (default: every stored one) into ``folder``."""
    if replays not in REPLAYS:
        raise SiteError(f"--replays must be one of {', '.join(REPLAYS)}, got {replays!r}")
    folder = Path(folder)
    previous = _check_folder(folder, force)
    written: dict[str, int] = {}

    def put(path: str, content: str | bytes) -> None:
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        raw = content.encode("utf-8") if isinstance(content, str) else content
        target.write_bytes(raw)
        written[path] = len(raw)

    def page(path: str, build: Callable[[SiteLinks], pages.Page], replay_paths: set[str]) -> None:
        links = SiteLinks(path, replay_paths)
        put(path, render_page(build(links), links))

    replay_count = 0
    with data.reading(Path(store) if store is not None else None) as db:
        known = [info.id for info in data.tournaments(db)]
        ids = list(dict.fromkeys(tournaments)) or known
        unknown = [tid for tid in ids if tid not in known]
        if unknown:
            raise SiteError(f"no tournament {unknown[0]!r} in {db.path}; `arena leaderboard --list` shows them")
        every: set[str] = set()
        plans = {}
        for tid in ids:
            slugs = {row["player"]: slug for slug, row in data.players(db, tid).items()}
            plans[tid] = (slugs, _replays(db, tid, slugs, replays))
            every |= plans[tid][1]
        page(site_path("home"), lambda links: pages.home_page(db, links, set(ids)), every)
        sweeps = pages.sweeps_page(db, SiteLinks(site_path("sweeps"), every), set(ids))
        if sweeps.data:
            page(site_path("sweeps"), lambda links: pages.sweeps_page(db, links, set(ids)), every)
        for tid in ids:
            slugs, replay_paths = plans[tid]
            if progress is not None:
                progress(f"tournament {tid}: {len(slugs)} players, {len(replay_paths)} replays")
            page(site_path("leaderboard", tid), lambda links, tid=tid: pages.leaderboard_page(db, tid, links), every)
            put(site_path("leaderboard.json", tid), json.dumps(data.leaderboard(db, tid).model_dump(), indent=2))
            for slug in slugs.values():
                page(site_path("player", tid, slug), lambda ln, t=tid, s=slug: pages.player_page(db, t, s, ln), every)
                for outcome in data.OUTCOME_FILTERS:
                    number, pages_of = 1, 1
                    while number <= pages_of:
                        path = site_path("games", tid, slug, outcome, number)
                        built = pages.games_page(db, tid, slug, outcome, number, SiteLinks(path, every))
                        put(path, render_page(built, SiteLinks(path, every)))
                        pages_of = built.context["found"].pages
                        number += 1
                for other in slugs.values():
                    if other != slug:
                        path = site_path("diff", tid, slug, other)
                        page(path, lambda ln, t=tid, a=slug, b=other: pages.diff_page(db, t, a, b, ln), every)
            for path in sorted(replay_paths):
                parts = path.removesuffix(".html").split("/")  # t/TID/g/BOARD/A[/vs/B]
                board, names = int(parts[3]), [parts[4]] + ([parts[6]] if len(parts) > 5 else [])
                page(path, lambda ln, t=tid, b=board, n=names: pages.game_page(db, t, b, n, ln), every)
                replay_count += 1
    for name, content in static_files().items():
        put(site_path("static", name), content)
    for stale in sorted(previous - set(written)):
        target = folder / stale
        if target.is_file():
            target.unlink()
    manifest = json.dumps({"generator": "arena site", "files": sorted(written)}, indent=0)
    (folder / MANIFEST).write_text(manifest, encoding="utf-8")
    return SiteSummary(folder, len(written), sum(written.values()), len(ids), replay_count)
