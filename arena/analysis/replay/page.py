"""The HTML replay: one self-contained file per game (or per pair of games on one board), and an index page.

Everything the page needs is inside it: the stylesheet, the script, the icons (inline SVG data) and the game
itself as compact JSON, so it opens from ``file://`` with no network, today and in ten years. The game is its
mine layout and its moves (``game_data``: about two characters a move); the page plays the moves again on the
layout and computes the exact mine probabilities of the position it shows, when it shows it (``solver.js``,
held equal to ``players.solver.analyze`` by tests/arena/analysis/test_replay_js.py). So a replay weighs a few
kilobytes however long the game, and ``arena site`` can hold tens of thousands of them as data for one shared
viewer. Each covered cell keeps its exact value in its ``data-p`` attribute, where a test or a curious reader finds
it.

The HTML, CSS and JavaScript live beside this module (``assets/``) as package data.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from arena.analysis.replay.model import Replay, ReplayError, ReplayGame, first_divergence, note_text, replay

__all__ = [
    "IndexEntry",
    "build_index_html",
    "build_replay_html",
    "decode_layout",
    "decode_page_moves",
    "encode_layout",
    "encode_page_moves",
    "error_line",
    "game_data",
    "move_width",
    "replay_payload",
    "script_json",
    "viewer_css",
    "viewer_html",
    "viewer_js",
]

#: The digits of the compact game data: 64 characters that need no escaping in JSON, HTML or an address.
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_~"
#: Bumped when the page's JSON changes shape (the page itself reads only its own version). Version 2: the moves
#: and the mine layout, compact; the page plays them and computes each position's probabilities itself.
PAYLOAD_VERSION = 2
#: A move's kind as the compact moves number it (``solver.js`` reads the same order).
_KIND_CODE = {"reveal": 0, "flag": 1, "unflag": 2, "chord": 3}


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


def script_json(data: Any) -> str:
    """JSON that is safe inside a ``<script>`` element (no ``<`` can close it or open a comment) and inside a
    script file (ASCII only: no line separator a JavaScript parser could trip on)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True, allow_nan=False).replace("<", "\\u003c")


def _digits(value: int, width: int) -> str:
    out = []
    for _ in range(width):
        value, digit = divmod(value, len(ALPHABET))
        out.append(ALPHABET[digit])
    return "".join(reversed(out))


def encode_layout(layout: np.ndarray) -> str:
    """A boolean mine layout as text: one bit per cell in row-major order, six to a digit of ``ALPHABET``, the
    first cell in a digit's highest bit (80 characters for an Expert board)."""
    bits = np.asarray(layout, dtype=bool).reshape(-1)
    padded = np.zeros(-(-bits.size // 6) * 6, dtype=np.uint8)
    padded[: bits.size] = bits
    values = padded.reshape(-1, 6) @ np.array([32, 16, 8, 4, 2, 1], dtype=np.uint8)
    return "".join(ALPHABET[int(v)] for v in values.tolist())


def move_width(cells: int) -> int:
    """Digits per move for a board of ``cells`` cells: a move is ``cell * 8 + kind * 2 + guess``."""
    width = 1
    while len(ALPHABET) ** width < cells * 8:
        width += 1
    return width


def encode_page_moves(moves: Sequence[tuple[str, int, int, bool]], cols: int, width: int) -> str:
    """Moves ``(kind, row, col, guess)`` as ``width`` digits each (``move_width``)."""
    return "".join(
        _digits((row * cols + col) * 8 + _KIND_CODE[str(kind)] * 2 + int(bool(guess)), width)
        for kind, row, col, guess in moves
    )


def decode_layout(text: str, height: int, width: int) -> np.ndarray:
    """``encode_layout`` read back (what the page's ``decodeLayout`` does): the boolean (height, width) layout."""
    values = np.array([ALPHABET.index(ch) for ch in text], dtype=np.uint8)
    bits = np.unpackbits(values[:, None], axis=1)[:, 2:].reshape(-1)
    return bits[: height * width].astype(bool).reshape(height, width)


def decode_page_moves(text: str, cols: int, width: int) -> list[tuple[str, int, int, bool]]:
    """``encode_page_moves`` read back (what the page's ``decodeMoves`` does): ``(kind, row, col, guess)`` per move."""
    kinds = list(_KIND_CODE)
    out = []
    for at in range(0, len(text), width):
        value = 0
        for ch in text[at : at + width]:
            value = value * len(ALPHABET) + ALPHABET.index(ch)
        cell = value // 8
        out.append((kinds[(value >> 1) & 3], cell // cols, cell % cols, bool(value & 1)))
    return out


def game_data(game: ReplayGame, layout: np.ndarray | None) -> dict[str, Any]:
    """One game as the viewer reads it: who, which board, how it ended, the mine layout it was played on
    (``None`` when no cell was ever revealed: it was never drawn), the moves and their notes (as text, cut)."""
    spec = game.spec
    width = move_width(spec.cells)
    notes = {str(i): text for i, move in enumerate(game.moves) if (text := note_text(move.note))}
    return {
        "player": game.player,
        "rows": spec.height,
        "cols": spec.width,
        "mines": spec.mines,
        "label": spec.label,
        "rule": game.rule.value,
        "seed": game.seed,
        "board": game.board,
        "outcome": game.outcome.value if game.outcome is not None else "",
        "error": error_line(game.error),
        "layout": None if layout is None else encode_layout(layout),
        "w": width,
        "moves": encode_page_moves([(m.kind.value, m.row, m.col, m.guess) for m in game.moves], spec.width, width),
        "notes": notes,
    }


def error_line(error: str) -> str:
    """The first line of a failed game's stored reason, cut to 300 characters."""
    return error.strip().splitlines()[0][:300] if error.strip() else ""


def _replays(games: Sequence[ReplayGame | Replay]) -> list[Replay]:
    if not 1 <= len(games) <= 2:
        raise ReplayError(f"a replay shows one game or two on the same board; got {len(games)}")
    records = [g.game if isinstance(g, Replay) else g for g in games]
    if len(records) == 2:
        a, b = records
        if (a.spec, a.rule, a.seed, a.board) != (b.spec, b.rule, b.seed, b.board):
            raise ReplayError(f"side by side needs one board: {a.label} and {b.label} are different boards")
    return [g if isinstance(g, Replay) else replay(g, probabilities=False) for g in games]


def replay_payload(games: Sequence[ReplayGame | Replay], title: str, *, probabilities: bool = False) -> dict[str, Any]:
    """The JSON the page is built from: each game's moves and mine layout (``game_data``). Games given as
    ``ReplayGame`` are replayed here first, without probabilities, so a record that does not reproduce its game
    is refused (``ReplayError``); the page computes the probabilities of the position it shows."""
    replays = _replays(games)
    data = []
    for rep in replays:
        entry = game_data(rep.game, rep.layout)
        if not entry["outcome"]:
            entry["outcome"] = rep.outcome
        data.append(entry)
    divergence = first_divergence(replays[0].game, replays[1].game) if len(replays) == 2 else None
    return {
        "version": PAYLOAD_VERSION,
        "title": title,
        "probabilities": bool(probabilities),
        "divergence": divergence,
        "games": data,
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


def viewer_html(payload: dict[str, Any] | None, *, source: dict[str, Any] | None = None) -> str:
    """The viewer itself (title, controls, boards, legend, data and script): the body of ``build_replay_html``'s
    page, of the game page of ``arena serve`` and of the one game page of each tournament of ``arena site``, which
    put it under their own navigation with ``viewer_css``. One template, so they cannot drift apart.

    ``payload`` (``replay_payload``) is the game(s) shown, inside the page. Without it, ``source`` tells the
    page where to find the game its address names (``arena site``: chunks of games loaded as scripts, which
    work from ``file://``).
    """
    if payload is not None:
        data = f'<script type="application/json" id="replay-data">{script_json(payload)}</script>'
        title = html.escape(str(payload["title"]))
    else:
        data = f'<script type="application/json" id="replay-source">{script_json(source or {})}</script>'
        title = "Replay"
    code = f"<script>\n{viewer_js()}\n</script>"
    values = {"TITLE": title, "LEGEND": _asset("legend.html"), "DATA": data, "SCRIPT": code}
    return _fill(_asset("viewer.html"), values)


def viewer_js() -> str:
    """The viewer's script: the engine and solver (``solver.js``) and the page (``replay.js``)."""
    return _asset("solver.js") + "\n" + _asset("replay.js")


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
