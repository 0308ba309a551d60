"""Replays of stored games: the moves played again on the engine, exact probabilities at every step, and the
self-contained HTML page that shows them (``build_replay_html``), one game or two on the same board side by side.
"""

from __future__ import annotations

from arena.analysis.replay.model import (
    NOTE_SHOWN,
    TIE,
    Choice,
    Note,
    Replay,
    ReplayError,
    ReplayGame,
    ReplayMove,
    Step,
    first_divergence,
    note_text,
    replay,
)
from arena.analysis.replay.page import (
    IndexEntry,
    build_index_html,
    build_replay_html,
    replay_payload,
    viewer_css,
    viewer_html,
)

__all__ = [
    "NOTE_SHOWN",
    "TIE",
    "Choice",
    "IndexEntry",
    "Note",
    "Replay",
    "ReplayError",
    "ReplayGame",
    "ReplayMove",
    "Step",
    "build_index_html",
    "build_replay_html",
    "first_divergence",
    "note_text",
    "replay",
    "replay_payload",
    "viewer_css",
    "viewer_html",
]
