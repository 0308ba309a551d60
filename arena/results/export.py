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

__all__ = ["EXPORT_COLUMNS", "FORMATS", "ROW_GROUP", "ExportError", "export_rows", "write_export"]

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


#: Rows per Parquet row group: the most the export holds in memory at once.
ROW_GROUP = 65_536


class ExportError(Exception):
    """The export cannot be written as asked (an unknown format, a missing optional library)."""


def export_rows(store: Store, tournament_id: str, games: int | None = None) -> Iterator[dict[str, Any]]:
    """The tournament's games as export rows, by player then board.

    ``clicks`` counts the left clicks a person would make (reveals and chords); ``safe_opened`` is
    the fraction of the board's safe cells the player revealed (1.0 for a win)."""
    stored = store.tournament(tournament_id)
    spec = stored.spec
    players = {p.key: p for p in store.players(tournament_id)}
    safe_cells = spec.cells - spec.mines
    for game in store.iter_games(tournament_id, games):
        player = players.get(game.player)
        yield {
            "tournament": tournament_id,
            "seed": stored.seed,
            "board": game.board,
            "height": spec.height,
            "width": spec.width,
            "mines": spec.mines,
            "rule": stored.rule.value,
            "player": game.player,
            "name": player.name if player else game.player,
            "version": player.version if player else "",
            "options": json.dumps(player.options if player else {}, sort_keys=True),
            "outcome": game.outcome.value,
            "won": game.won,
            "bbbv": game.bbbv,
            "bbbv_solved": game.bbbv_solved,
            "clicks": game.reveals + game.chords,
            "moves": game.moves,
            "reveals": game.reveals,
            "flags": game.flags,
            "chords": game.chords,
            "guesses": game.guesses,
            "safe_opened": game.revealed_cells / safe_cells,
            "first_row": game.first_row,
            "first_col": game.first_col,
            "cpu_ms": game.cpu_ms,
            "error": game.error,
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
    # Row groups of ROW_GROUP rows, each written as it fills: the memory of a group, not of the tournament.
    schema = pa.schema([(name, pa.type_for_alias(kind)) for name, kind in EXPORT_COLUMNS.items()])
    count = 0
    with pq.ParquetWriter(path, schema) as writer:
        for group in _groups(rows, ROW_GROUP):
            columns = {name: [row[name] for row in group] for name in EXPORT_COLUMNS}
            writer.write_table(pa.table(columns, schema=schema))
            count += len(group)
        if not count:
            writer.write_table(schema.empty_table())
    return count


def _groups(rows: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    group: list[dict[str, Any]] = []
    for row in rows:
        group.append(row)
        if len(group) == size:
            yield group
            group = []
    if group:
        yield group
