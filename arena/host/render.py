"""The host's pages: Jinja2 templates (``templates/``) with autoescape on for every one of them.

Everything an entrant or a bot controls (an entrant's name and owner, a build log, a check's output, a
refusal's reason) reaches a page as escaped text; nothing here marks any of it safe. The stylesheet is
``arena serve``'s (``/static/site.css``) plus a few rules of the host's own; the one script (the upload form)
is a file, so the pages' Content-Security-Policy allows no inline script.
"""

from __future__ import annotations

import datetime as dt
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.requests import Request

from arena.web.render import environment as serve_environment

if TYPE_CHECKING:
    from arena.host.server import HostApp

__all__ = ["ERROR_HEADINGS", "page", "static_file"]

ERROR_HEADINGS = {
    400: "Bad request",
    401: "Not signed in",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    413: "Too large",
    429: "Too many requests",
    500: "Error",
}
_STATIC = {"host.css": "text/css; charset=utf-8", "host.js": "text/javascript; charset=utf-8"}


def _when(stamp: float | None) -> str:
    if stamp is None:
        return "-"
    return dt.datetime.fromtimestamp(stamp, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@cache
def host_environment() -> Environment:
    env = Environment(
        loader=PackageLoader("arena.host", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(serve_environment().filters)
    env.filters["when"] = _when
    return env


def page(state: HostApp, request: Request, template: str, title: str, **context: Any) -> str:
    """``template`` rendered with who is signed in (from the session cookie) and the competition's name."""
    session = state.session(request)
    who = None
    csrf = ""
    organizer = False
    if session is not None:
        principal, csrf = session
        organizer = principal.organizer
        who = "the organizer" if organizer else principal.name
    values: dict[str, Any] = {
        "title": title,
        "competition": state.competition.name,
        "who": who,
        "organizer": organizer,
        "csrf": csrf,
        "signup": state.host.invitation is not None,
        "refresh": None,
    }
    values.update(context)
    return host_environment().get_template(template).render(**values)


def static_file(name: str) -> tuple[bytes, str] | None:
    # Only the known names reach the cache: a cached miss per requested name would grow without end.
    return _static_file(name) if name in _STATIC else None


@cache
def _static_file(name: str) -> tuple[bytes, str]:
    return resources.files("arena.host").joinpath("static", name).read_bytes(), _STATIC[name]
