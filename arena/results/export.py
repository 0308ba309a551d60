"""A stored tournament as a flat table, one row per (board, player), for pandas, R or a spreadsheet.

Every row carries what is needed to read it alone: the tournament and the rules it was played
under, the player with its version and options, and the game's figures. CSV needs nothing beyond
the standard library; Parquet needs pyarrow (the ``export`` extra).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.results.store import Store

__all__ = ["EXPORT_COLUMNS", "FORMATS", "ExportError", "export_rows", "write_export"]

FORMATS = ("csv", "parquet")

#: The exported columns, in order, with the type Parquet stores them as.
EXPORT_COLUMNS: dict[str, str] = {
    "tournament": "string",
    "seed": "int64",
    "board": "int64",
    "height": "int64",
    "width": "int64",
    "mines": "int64",
    "rule": "string",
    "player": "string",
    "name": "string",
    "version": "string",
    "options": "string",
    "outcome": "string",
    "won": "bool",
    "bbbv": "int64",
    "bbbv_solved": "int64",
    "clicks": "int64",
    "moves": "int64",
    "reveals": "int64",
    "flags": "int64",
    "chords": "int64",
    "guesses": "int64",
    "safe_opened": "float64",
    "first_row": "int64",
    "first_col": "int64",
    "cpu_ms": "float64",
    "error": "string",
}


class ExportError(Exception):
    """The export cannot be written as asked (an unknown format, a missing optional library)."""


def export_rows(store: Store, tournament_id: str, games: int | None = None) -> Iterator[dict[str, Any]]:
    """The tournament's games as export rows, by player then board.

    ``clicks`` counts the left clicks a person would make (reveals and chords); ``safe_opened`` is
    the fraction of the board's safe cells the player revealed (1.0 for a win)."""
    meta = store.tournament(tournament_id)
    players = {p["player"]: p for p in store.players(tournament_id)}
    safe_cells = meta["height"] * meta["width"] - meta["mines"]
    for game in store.games(tournament_id, games):
        player = players.get(game["player"], {})
        yield {
            "tournament": tournament_id,
            "seed": meta["seed"],
            "board": game["board"],
            "height": meta["height"],
            "width": meta["width"],
            "mines": meta["mines"],
            "rule": meta["rule"],
            "player": game["player"],
            "name": player.get("name", game["player"]),
            "version": player.get("version", ""),
            "options": json.dumps(json.loads(player.get("options") or "{}"), sort_keys=True),
            "outcome": game["outcome"],
            "won": bool(game["won"]),
            "bbbv": game["bbbv"],
            "bbbv_solved": game["bbbv_solved"],
            "clicks": game["reveals"] + game["chords"],
            "moves": game["moves"],
            "reveals": game["reveals"],
            "flags": game["flags"],
            "chords": game["chords"],
            "guesses": game["guesses"],
            "safe_opened": game["revealed_cells"] / safe_cells,
            "first_row": game["first_row"],
            "first_col": game["first_col"],
            "cpu_ms": game["cpu_ms"],
            "error": game["error"],
        }


def write_export(store: Store, tournament_id: str, path: Path, fmt: str, games: int | None = None) -> int:
    """Write the export to ``path`` in ``fmt`` (``csv`` or ``parquet``); returns the number of rows."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    store.tournament(tournament_id)  # an unknown tournament fails before any file is written
    rows = export_rows(store, tournament_id, games)
    if fmt == "csv":
        count = 0
        with path.open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=list(EXPORT_COLUMNS))
            writer.writeheader()
            for row in rows:
                writer.writerow(row)
                count += 1
        return count
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ExportError("--format parquet needs pyarrow: python -m pip install 'minesweeper-arena[export]'") from None
    columns: dict[str, list[Any]] = {name: [] for name in EXPORT_COLUMNS}
    for row in rows:
        for name in EXPORT_COLUMNS:
            columns[name].append(row[name])
    schema = pa.schema([(name, pa.type_for_alias(kind)) for name, kind in EXPORT_COLUMNS.items()])
    pq.write_table(pa.table(columns, schema=schema), path)
    return len(columns["board"])
