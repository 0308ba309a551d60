"""Where each key of a TOML document is: its line, for errors that name the place.

``tomllib`` reads a document into plain values and forgets where they were, and pydantic reports a bad value by
its path (``("entrants", 2, "plugin")``). ``key_lines`` reads the text once more, after ``tomllib`` accepted it,
and records the line of every key and table header by the same kind of path: arrays of tables get their
element's index (``[[entrants]]`` counts from 0, as pydantic does). It follows strings (one-line and multi-line,
basic and literal), comments and values that span lines (arrays, inline tables), so that text inside a value
never reads as a key. Keys inside an inline table or an array of them are not recorded: ``line_of`` answers
with the line of the longest recorded prefix of a path, which is the line of the value holding them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

__all__ = ["key_lines", "line_of"]

Path = tuple[str | int, ...]


def _split_key(text: str) -> list[str]:
    """The parts of a (possibly dotted, possibly quoted) key: ``a."b.c".d`` is ``a``, ``b.c``, ``d``."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\" and quote == '"' and i + 1 < len(text):
                current.append(text[i : i + 2])
                i += 2
                continue
            if char == quote:
                quote = ""
            else:
                current.append(char)
        elif char in "\"'":
            quote = char
        elif char == ".":
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        i += 1
    parts.append("".join(current).strip())
    return [_unescape(part) for part in parts]


def _unescape(part: str) -> str:
    if "\\" not in part:
        return part
    try:
        return str(json.loads(f'"{part}"'))
    except ValueError:
        return part


def _key_end(line: str) -> int:
    """The index of the ``=`` that ends the key of a key/value line (outside quotes), or -1."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote and not (quote == '"' and line[i - 1] == "\\"):
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "=":
            return i
        elif char == "#":
            return -1
    return -1


def _header_end(line: str, start: int, close: str) -> int:
    """The index of the ``]`` (or ``]]``) that closes a table header begun at ``start``."""
    quote = ""
    i = start
    while i < len(line):
        char = line[i]
        if quote:
            if char == quote and not (quote == '"' and line[i - 1] == "\\"):
                quote = ""
        elif char in "\"'":
            quote = char
        elif line.startswith(close, i):
            return i
        i += 1
    return len(line)


class _Scanner:
    """The state of a value across lines: an open multi-line string, or open brackets."""

    def __init__(self) -> None:
        self.multiline = ""  # '"""' or "'''" while inside one
        self.depth = 0

    @property
    def inside(self) -> bool:
        return bool(self.multiline) or self.depth > 0

    def scan(self, text: str) -> None:
        i = 0
        while i < len(text):
            if self.multiline:
                end = text.find(self.multiline, i)
                while end > 0 and self.multiline == '"""' and _escaped(text, end):
                    end = text.find(self.multiline, end + 1)
                if end < 0:
                    return
                i = end + 3
                while i < len(text) and text[i] == self.multiline[0]:  # """" closes with a quote inside
                    i += 1
                self.multiline = ""
                continue
            char = text[i]
            if text.startswith('"""', i) or text.startswith("'''", i):
                self.multiline = text[i : i + 3]
                i += 3
                continue
            if char in "\"'":
                i += 1
                while i < len(text) and text[i] != char:
                    i += 2 if char == '"' and text[i] == "\\" else 1
            elif char == "#":
                return
            elif char in "[{":
                self.depth += 1
            elif char in "]}":
                self.depth -= 1
            i += 1


def _escaped(text: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and text[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def key_lines(text: str) -> dict[Path, int]:
    """Every key and table header of the (valid) TOML ``text`` by path, with its line (from 1)."""
    lines: dict[Path, int] = {}
    arrays: dict[tuple[str, ...], int] = {}  # an array of tables' plain path -> its last element's index
    table: Path = ()
    scanner = _Scanner()

    def indexed(parts: Sequence[str]) -> Path:
        """``parts`` with the current element's index after each array of tables among its prefixes."""
        path: list[str | int] = []
        for n, part in enumerate(parts):
            path.append(part)
            plain = tuple(parts[: n + 1])
            if plain in arrays:
                path.append(arrays[plain])
        return tuple(path)

    for number, line in enumerate(text.splitlines(), 1):
        if scanner.inside:
            scanner.scan(line)
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("[["):
            parts = _split_key(stripped[2 : _header_end(stripped, 2, "]]")])
            plain = tuple(parts)
            arrays[plain] = arrays.get(plain, -1) + 1
            for longer in [k for k in arrays if len(k) > len(plain) and k[: len(plain)] == plain]:
                del arrays[longer]  # a new element starts its nested arrays afresh
            table = indexed(parts)
            lines.setdefault(table[:-1], number)
            lines[table] = number
            continue
        if stripped.startswith("["):
            table = indexed(_split_key(stripped[1 : _header_end(stripped, 1, "]")]))
            lines.setdefault(table, number)
            continue
        end = _key_end(stripped)
        if end < 0:
            continue
        path = table
        for part in _split_key(stripped[:end]):
            path = (*path, part)
            lines.setdefault(path, number)
        scanner.scan(stripped[end + 1 :])
    return lines


def line_of(lines: Mapping[Path, int], path: Sequence[str | int]) -> int | None:
    """The line of ``path``, or of its longest prefix that has one (a key inside an inline table is on its
    table's line); None when not even its first part has a line (a key the document lacks)."""
    path = tuple(path)
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None
