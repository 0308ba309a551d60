"""The competition's pages: ``arena serve`` (a read-only web app over the results store) and ``arena site``
(the same pages written as static files that open from ``file://`` or any static host).

``data`` (a tournament as a whole), ``games_data`` (single games) and ``board_data`` (one board across every
player) read the store; ``pages``, ``player_pages``, ``pages_more`` and ``follow`` turn what they read into one
value per kind of page; ``render`` fills the templates (``templates/``, Jinja2, escaping on); ``links`` gives
each page its address in the app and in a site; ``app`` and ``site`` serve or write them. Needs the ``web`` extra
(Starlette, Jinja2, uvicorn).
"""

from __future__ import annotations

__all__: list[str] = []
