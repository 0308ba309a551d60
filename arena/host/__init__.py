"""Hosting a competition people submit their bots to (``arena host``, docs/hosting.md).

``db`` (the folder and ``host.db``), ``accounts`` (entrants, tokens, sessions, the throttle), ``archive`` (packing,
the streaming check, unpacking), ``queue`` (the submissions' states and the fair pick), ``boards`` (public and
private board sets, the seed's commitment, the close, the leaderboards), ``job`` (one submission's build, checks
and games, in a process of its own), ``scheduler`` (the jobs), ``server``, ``routes``, ``render``, ``cache`` and ``app``
(the web app), ``client`` (``arena submit``).
"""

from __future__ import annotations
