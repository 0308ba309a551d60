"""The addresses of the pages, for the served app and for the static site, from one list.

Every page has a place in the site's folder (``t/<tournament>/p/<player>/index.html``) and an address in the
app (``/t/<tournament>/p/<player>/``). Templates ask a ``Links`` object for the address of a page and get the
right one: an absolute path when served, a path relative to the page being written for the site, so the site
works from ``file://`` (where a folder does not open its ``index.html``) and from any folder of any host.

A static site has one game page per tournament (``t/<tournament>/game.html``), the replay viewer, which shows the
game its address names (``game.html?board=17&player=apex``, ``&vs=rref`` for two side by side) from the site's
data files, and one board page (``t/<tournament>/board.html?board=17``) for every player's game of a board. It
holds only the games ``arena site --replays`` chose: ``SiteLinks.game`` gives ``None`` for the others and the
page then shows the game without a link.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from functools import lru_cache
from urllib.parse import quote, urlencode

__all__ = ["Links", "ServeLinks", "SiteLinks", "site_path"]


def _q(segment: str) -> str:
    return quote(segment, safe="")


def site_path(kind: str, *args: str | int) -> str:
    """The file (relative to the site's root, ``/``-separated) of a page: ``kind`` and its parameters as for
    ``Links``; a game is the tournament's one game page with the board and players in its query. Tournament ids
    and player slugs are plain (letters, digits, ``_.-``), so they are file names and need no quoting."""
    a = [str(x) for x in args]
    match kind:
        case "home":
            return "index.html"
        case "sweeps":
            return "sweeps/index.html"
        case "leaderboard":
            return f"t/{a[0]}/index.html"
        case "leaderboard.json":
            return f"t/{a[0]}/leaderboard.json"
        case "versions":
            return f"t/{a[0]}/all-versions.html"
        case "history":
            return f"v/{a[0]}/index.html"
        case "pairs":
            return f"t/{a[0]}/pairs.html"
        case "match":
            return f"t/{a[0]}/match.html"
        case "convergence":
            return f"t/{a[0]}/convergence.html"
        case "download":
            return f"t/{a[0]}/{a[1]}"
        case "player":
            return f"t/{a[0]}/p/{a[1]}/index.html"
        case "games":
            return f"t/{a[0]}/p/{a[1]}/games-{a[2]}-{a[3]}.html"
        case "viewer":
            return f"t/{a[0]}/game.html"
        case "game":
            return f"t/{a[0]}/game.html?board={a[1]}&player={_q(a[2])}"
        case "pair":
            return f"t/{a[0]}/game.html?board={a[1]}&player={_q(a[2])}&vs={_q(a[3])}"
        case "games-data":
            return f"t/{a[0]}/games/{a[1]}.js"
        case "board-viewer":
            return f"t/{a[0]}/board.html"
        case "board":
            return f"t/{a[0]}/board.html?board={a[1]}"
        case "boards-data":
            return f"t/{a[0]}/boards/{a[1]}.js"
        case "diff":
            return f"t/{a[0]}/diff/{a[1]}/{a[2]}/index.html"
        case "static":
            return f"static/{a[0]}"
    raise ValueError(f"no page of kind {kind!r}")


@lru_cache(maxsize=4096)
def _relative(path: str, start: str) -> str:
    """``posixpath.relpath``, remembered: a site's pages link the same few files thousands of times."""
    return posixpath.relpath(path, start)


class Links:
    """The address of each kind of page (``ServeLinks`` or ``SiteLinks``); ``static`` for the stylesheet and
    scripts. ``live`` says whether pages may update themselves (only the served app can)."""

    live = False

    def _href(self, kind: str, *args: str | int) -> str:
        raise NotImplementedError

    def home(self) -> str:
        return self._href("home")

    def sweeps(self) -> str:
        return self._href("sweeps")

    def leaderboard(self, tid: str) -> str:
        return self._href("leaderboard", tid)

    def player(self, tid: str, slug: str) -> str:
        return self._href("player", tid, slug)

    def history(self, name: str) -> str | None:
        """A bot's versions, each against the one before (``arena history NAME``); ``name`` as a slug."""
        return self._href("history", name)

    def pairs(self, tid: str) -> str:
        """Every pair of players compared."""
        return self._href("pairs", tid)

    def match(self, tid: str) -> str:
        """A two-player tournament's sequential test (``arena match``)."""
        return self._href("match", tid)

    def convergence(self, tid: str) -> str:
        """Each player's win rate against games played."""
        return self._href("convergence", tid)

    def board(self, tid: str, board: int) -> str:
        """Board ``board`` across every player."""
        return self._href("board", tid, board)

    def board_pattern(self, tid: str) -> str:
        """A board's address with ``BOARD`` for its number: what the box that jumps to a board fills in."""
        return self._href("board", tid, "BOARD")

    def download(self, tid: str, name: str) -> str:
        """A tournament's file: ``leaderboard.csv``, ``leaderboard.json``, ``games.csv``."""
        return self._href("download", tid, name)

    def versions(self, tid: str) -> str:
        """The leaderboard with a row for every version of each player (``arena leaderboard --all-versions``)."""
        return self._href("versions", tid)

    def games(self, tid: str, slug: str, outcome: str = "all", page: int = 1) -> str | None:
        return self._href("games", tid, slug, outcome, page)

    def game(self, tid: str, board: int, slug: str) -> str | None:
        return self._href("game", tid, board, slug)

    def pair(self, tid: str, board: int, a: str, b: str) -> str | None:
        return self._href("pair", tid, board, a, b)

    def diff(self, tid: str, a: str, b: str) -> str:
        return self._href("diff", tid, a, b)

    def static(self, name: str) -> str:
        return self._href("static", name)

    def json(self, kind: str, *args: str | int) -> str | None:
        """The page's data as JSON, where there is a file or an address for it."""
        return None


class ServeLinks(Links):
    """Absolute addresses of the app (``arena serve``)."""

    live = True

    def live_status(self, tid: str) -> str:
        """The tournament's progress as JSON (``/t/<id>/live``), which its served pages ask while open."""
        return f"/t/{_q(tid)}/live"

    def _href(self, kind: str, *args: str | int) -> str:
        a = [_q(str(x)) for x in args]
        match kind:
            case "home":
                return "/"
            case "sweeps":
                return "/sweeps/"
            case "leaderboard":
                return f"/t/{a[0]}/"
            case "versions":
                return f"/t/{a[0]}/?versions=all"
            case "history":
                return f"/v/{a[0]}/"
            case "pairs":
                return f"/t/{a[0]}/pairs/"
            case "match":
                return f"/t/{a[0]}/match/"
            case "convergence":
                return f"/t/{a[0]}/convergence/"
            case "board":
                return f"/t/{a[0]}/b/{a[1]}/"
            case "download":
                return f"/t/{a[0]}/{a[1]}"
            case "player":
                return f"/t/{a[0]}/p/{a[1]}/"
            case "games":
                return f"/t/{a[0]}/p/{a[1]}/games?" + urlencode({"outcome": args[2], "page": args[3]})
            case "game":
                return f"/t/{a[0]}/g/{a[1]}/{a[2]}"
            case "pair":
                return f"/t/{a[0]}/g/{a[1]}/{a[2]}/vs/{a[3]}"
            case "diff":
                return f"/t/{a[0]}/diff/{a[1]}/{a[2]}/"
            case "static":
                return f"/static/{a[0]}"
        raise ValueError(f"no page of kind {kind!r}")

    def json(self, kind: str, *args: str | int) -> str | None:
        href = self._href(kind, *args)
        return href + ("&" if "?" in href else "?") + "format=json"


class SiteLinks(Links):
    """Addresses relative to the page ``here`` (its site path) of a static site; only the replays in
    ``replays`` (site paths; ``None``: every one) are linked, and the players' lists of games only with
    ``lists``."""

    def __init__(
        self, here: str, replays: Collection[str] | None = None, *, lists: bool = True, generated: str | None = None
    ) -> None:
        self.here = here
        self.replays = replays
        self.lists = lists
        #: When the site was written (UTC), which its pages say.
        self.generated = generated

    def games(self, tid: str, slug: str, outcome: str = "all", page: int = 1) -> str | None:
        return super().games(tid, slug, outcome, page) if self.lists else None

    def _href(self, kind: str, *args: str | int) -> str:
        path, _, query = site_path(kind, *args).partition("?")
        relative = _relative(path, posixpath.dirname(self.here) or ".")
        return f"{relative}?{query}" if query else relative

    def game(self, tid: str, board: int, slug: str) -> str | None:
        if self.replays is not None and site_path("game", tid, board, slug) not in self.replays:
            return None
        return super().game(tid, board, slug)

    def pair(self, tid: str, board: int, a: str, b: str) -> str | None:
        if self.replays is not None and site_path("pair", tid, board, a, b) not in self.replays:
            return None
        return super().pair(tid, board, a, b)

    def json(self, kind: str, *args: str | int) -> str | None:
        if kind == "leaderboard":
            return self._href("leaderboard.json", *args)
        return None
