"""The HTML replay: one self-contained file per game (or per pair of games on one board), and an index page.

Everything the page needs is inside it: the stylesheet, the script, the icons (inline SVG data) and the game
itself as compact JSON, so it opens from ``file://`` with no network, today and in ten years. Per step the page
carries the visible grid as a string (the position format of ``arena analyze``, rows run together) and the
exact mine probabilities as an index string into that step's few distinct values, written with full float
precision (JSON numbers round-trip doubles exactly): the overlay shows them rounded, and each covered cell keeps
the exact value in its ``data-p`` attribute, where a test or a curious reader finds it.

The HTML, CSS and JavaScript live beside this module (``assets/``) as package data.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from arena.analysis.replay.model import Replay, ReplayError, ReplayGame, Step, first_divergence, note_text, replay
from engine.layout import format_position

__all__ = ["IndexEntry", "build_index_html", "build_replay_html", "replay_payload", "viewer_css", "viewer_html"]

#: The digits of a probability index: 64 characters that need no escaping in JSON or HTML.
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_~"
#: Markers of a cell with no index: revealed (no probability), certainly safe, certainly a mine.
NO_VALUE, SAFE, MINE = ".", "-", "!"
#: Bumped when the page's JSON changes shape (the page itself reads only its own version).
PAYLOAD_VERSION = 1


@cache
def _asset(name: str) -> str:
    return resources.files("arena.analysis.replay").joinpath("assets", name).read_text(encoding="utf-8")


def _fill(template: str, values: dict[str, str]) -> str:
    """Put each ``{{NAME}}`` of ``template`` in one pass, so text inside a value is never read as a marker."""
    return re.sub(r"\{\{([A-Z_]+)\}\}", lambda m: values[m.group(1)], template)


def _page(template: str, title: str, css: str, values: dict[str, str]) -> str:
    """The asset page ``template`` with the document head every page shares (``page_head.html``)."""
    head = _fill(_asset("page_head.html"), {"TITLE": title, "CSS": _asset(css)})
    return _fill(_asset(template), {"PAGE_HEAD": head, "TITLE": title, **values})


def _script_json(data: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<`` can close it or open a comment."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")


def _position(grid: np.ndarray) -> str:
    """The grid as one line of the position format (``#`` covered, ``F`` flag, ``0``-``8``): rows run together."""
    return format_position(grid).replace("\n", "")


def _digits(index: int, width: int) -> str:
    out = []
    for _ in range(width):
        index, digit = divmod(index, len(ALPHABET))
        out.append(ALPHABET[digit])
    return "".join(reversed(out))


def _probabilities(step: Step) -> dict[str, Any]:
    """A step's analysis as ``{"p": index string, "v": distinct values, "w": characters per cell}``.

    Certain cells are marked from the analysis' own lists of certain cells (exact integer reasoning), not
    from their float value; every other cell holds the index of its exact probability in ``v``.
    """
    if step.analysis is None:
        return {"x": step.analysis_note} if step.analysis_note else {}
    analysis = step.analysis
    width = analysis.probabilities.shape[1]
    values = analysis.probabilities.reshape(-1)
    certain = {r * width + c: SAFE for r, c in analysis.safe}
    certain.update({r * width + c: MINE for r, c in analysis.mines})
    known = ~np.isnan(values)
    distinct = sorted({float(values[i]) for i in np.flatnonzero(known) if int(i) not in certain})
    digits = 1
    while len(ALPHABET) ** digits < len(distinct):
        digits += 1
    lookup = {value: _digits(index, digits) for index, value in enumerate(distinct)}
    parts = []
    for i, value in enumerate(values.tolist()):
        mark = certain.get(i)
        if mark is not None:
            parts.append(mark * digits)
        elif math.isnan(value):
            parts.append(NO_VALUE * digits)
        else:
            parts.append(lookup[value])
    return {"p": "".join(parts), "v": distinct, "w": digits}


def _steps(rep: Replay) -> list[dict[str, Any]]:
    """Each step's grid, and its probabilities; a step whose analysis an earlier step already carries (the
    positions differ only in flags) names that step (``"r"``) instead: a bot that flags and unflags all game
    long makes a long replay, not a heavy one."""
    steps = []
    first_with: dict[int, int] = {}
    for step in rep.steps:
        entry: dict[str, Any] = {"g": _position(step.grid)}
        if step.analysis is not None and id(step.analysis) in first_with:
            entry["r"] = first_with[id(step.analysis)]
        else:
            entry.update(_probabilities(step))
            if step.analysis is not None:
                first_with[id(step.analysis)] = step.number
        steps.append(entry)
    return steps


def _game_payload(rep: Replay) -> dict[str, Any]:
    game = rep.game
    spec = game.spec
    moves = []
    for step in rep.steps[1:]:
        move = step.move
        assert move is not None
        moves.append([move.kind.value, move.row, move.col, int(move.guess), note_text(move.note) or None])
    layout = None
    if rep.layout is not None:
        layout = "".join("1" if mine else "0" for mine in rep.layout.reshape(-1).tolist())
    exploded = None if rep.exploded is None else rep.exploded[0] * spec.width + rep.exploded[1]
    return {
        "player": game.player,
        "rows": spec.height,
        "cols": spec.width,
        "mines": spec.mines,
        "label": spec.label,
        "rule": game.rule.value,
        "seed": game.seed,
        "board": game.board,
        "outcome": rep.outcome,
        "status": rep.status.value,
        "error": game.error.splitlines()[0][:300] if game.error.strip() else "",
        "bbbv": rep.bbbv,
        "bbbv_solved": rep.bbbv_solved,
        "moves": moves,
        "opened": [list(step.opened) for step in rep.steps[1:]],
        "steps": _steps(rep),
        "layout": layout,
        "exploded": exploded,
    }


def _replays(games: Sequence[ReplayGame | Replay]) -> list[Replay]:
    if not 1 <= len(games) <= 2:
        raise ReplayError(f"a replay shows one game or two on the same board; got {len(games)}")
    records = [g.game if isinstance(g, Replay) else g for g in games]
    if len(records) == 2:
        a, b = records
        if (a.spec, a.rule, a.seed, a.board) != (b.spec, b.rule, b.seed, b.board):
            raise ReplayError(f"side by side needs one board: {a.label} and {b.label} are different boards")
    return [g if isinstance(g, Replay) else replay(g) for g in games]


def replay_payload(games: Sequence[ReplayGame | Replay], title: str, *, probabilities: bool = False) -> dict[str, Any]:
    """The JSON the page is built from (exposed for tests and for tools that want the numbers)."""
    replays = _replays(games)
    divergence = first_divergence(replays[0].game, replays[1].game) if len(replays) == 2 else None
    return {
        "version": PAYLOAD_VERSION,
        "title": title,
        "probabilities": bool(probabilities),
        "divergence": divergence,
        "games": [_game_payload(r) for r in replays],
    }


def build_replay_html(
    games: Sequence[ReplayGame | Replay], title: str | None = None, *, probabilities: bool = False
) -> str:
    """One self-contained HTML page replaying ``games``: one game, or two games of the same board side by side.

    Games given as ``ReplayGame`` are replayed here (``ReplayError`` when a record does not reproduce its
    game); pass ``Replay`` objects to reuse replays already made. ``probabilities`` opens the page with the
    probability overlay on (the reader toggles it with the P key either way).
    """
    replays = _replays(games)
    if title is None:
        game = replays[0].game
        players = " vs ".join(r.game.player for r in replays)
        title = f"{players} · {game.spec.label} board {game.board} of seed {game.seed}"
    payload = replay_payload(replays, title, probabilities=probabilities)
    return _page("replay.html", html.escape(title), "replay.css", {"VIEWER": viewer_html(payload)})


def viewer_html(payload: dict[str, Any]) -> str:
    """The viewer itself (title, controls, boards, legend, data and script) for a ``replay_payload``: the body
    of ``build_replay_html``'s page, and of the game page of ``arena serve`` and ``arena site``, which put it
    under their own navigation with ``viewer_css``. One template, so the two cannot drift apart."""
    values = {
        "TITLE": html.escape(str(payload["title"])),
        "LEGEND": _asset("legend.html"),
        "DATA": _script_json(payload),
        "JS": _asset("replay.js"),
    }
    return _fill(_asset("viewer.html"), values)


def viewer_css() -> str:
    """The viewer's stylesheet (``viewer_html`` needs it on its page)."""
    return _asset("replay.css")


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One line of an index page: a replay file (``href``, relative to the index) and what it shows.

    ``outcomes`` go with ``players`` in order; ``diverged_at`` is the 1-based move where the two players' play
    first differed (``None``: not compared, or the same play).
    """

    href: str
    board: int
    players: tuple[str, ...]
    outcomes: tuple[str, ...]
    diverged_at: int | None = None
    note: str = ""


def build_index_html(entries: Sequence[IndexEntry], title: str, *, subtitle: str = "") -> str:
    """A self-contained page linking replay files, one row per board (for ``arena diff --html DIR``)."""
    players = max((len(e.players) for e in entries), default=1)
    head = "".join(f"<th>player {i + 1}</th>" for i in range(players)) if players > 1 else "<th>player</th>"
    rows = []
    for entry in entries:
        cells = []
        for i in range(players):
            if i < len(entry.players):
                outcome = entry.outcomes[i] if i < len(entry.outcomes) else ""
                badge = f' <span class="badge {_badge(outcome)}">{html.escape(outcome)}</span>' if outcome else ""
                cells.append(f"<td>{html.escape(entry.players[i])}{badge}</td>")
            else:
                cells.append("<td></td>")
        diverged = "" if entry.diverged_at is None else f"move {entry.diverged_at}"
        rows.append(
            f'<tr><td class="num">{entry.board}</td>{"".join(cells)}<td class="num">{diverged}</td>'
            f"<td>{html.escape(entry.note)}</td>"
            f'<td><a href="{html.escape(entry.href, quote=True)}">replay</a></td></tr>'
        )
    body = "\n".join(rows) if rows else f'<tr><td colspan="{players + 4}">no replays</td></tr>'
    count = f"{len(entries)} replay{'' if len(entries) == 1 else 's'}"
    values = {"SUBTITLE": html.escape(subtitle), "HEAD": head, "ROWS": body, "COUNT": count}
    return _page("index.html", html.escape(title), "index.css", values)


def _badge(outcome: str) -> str:
    return {"won": "won", "lost": "lost"}.get(outcome, "failed")
