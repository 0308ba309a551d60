"""The Jinja2 environment of the pages: one template per kind of page (``templates/``), escaping on everywhere.

Autoescape is on for every template, whatever its name: a player's name, version, options, notes and stderr
are text a bot controls, and reach the page only as escaped text. The only markup inserted as is comes from
the project itself: the replay viewer (``arena.analysis.replay.viewer_html``, which escapes the bot's words and puts
the game's data in a ``<script type="application/json">`` with every ``<`` escaped).
"""

from __future__ import annotations

import math
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from arena.analysis.replay import viewer_css, viewer_html
from arena.web.links import Links
from arena.web.pages import Page
from arena.web.public import shown_source

__all__ = ["environment", "render_error", "render_page", "static_files"]

#: The files of ``static/``, served at ``/static/`` and copied into a site's ``static/``.
STATIC = ("site.css", "site.js", "board.js")


def _pct(value: float | None, digits: int = 2) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.{digits}f}"


def _signed(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{100 * value:+.{digits}f}"


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:,.{digits}f}"


def _p(value: float | None) -> str:
    return "" if value is None else f"{value:.2g}"


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    value = round(value)
    hours, rest = divmod(value, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {seconds:02d}s" if minutes else f"{seconds}s"


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("arena.web", "templates"),
        autoescape=True,  # every template, whatever its file name
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(pct=_pct, signed=_signed, num=_num, p=_p, seconds=_seconds, source=shown_source)
    return env


def _replay_parts(page: Page) -> dict[str, Any]:
    if page.template != "game.html":
        return {}
    viewer = viewer_html(page.context["payload"], source=page.context.get("source"))
    return {"viewer": Markup(viewer), "viewer_css": Markup(viewer_css())}


def render_page(page: Page, links: Links) -> str:
    """The page as HTML, its addresses from ``links``."""
    template = environment().get_template(page.template)
    return template.render(
        page=page,
        title=page.title,
        crumbs=page.crumbs,
        links=links,
        live=page.live,
        **page.context,
        **_replay_parts(page),
    )


def render_error(status: int, message: str, links: Links) -> str:
    """The page of a request that has no page: 404 (no such thing), 400 (a malformed parameter), 503 (no store)."""
    heading = {400: "Bad request", 404: "Not found", 503: "The results store cannot be read"}.get(status, "Error")
    template = environment().get_template("error.html")
    return template.render(
        title=f"{status} {heading}",
        status=status,
        heading=heading,
        message=message,
        crumbs=[],
        links=links,
        live=False,
    )


@cache
def static_files() -> dict[str, bytes]:
    """The stylesheet and script every page links, by file name."""
    folder = resources.files("arena.web").joinpath("static")
    return {name: folder.joinpath(name).read_bytes() for name in STATIC}
