"""The first error of a build log, with its file and line: what a person should read first.

A failed build's last line is rarely the one to read (``make: *** [Makefile:9: build/bot] Error 1``, ``error: could
not compile `bot```, ``Node.js v20.20.2``). This finds the first error in the usual formats of the kits' toolchains:

- g++, clang, javac, make: ``FILE:LINE:COL: error: MESSAGE``, ``FILE:LINE: error: MESSAGE``, ``FILE:LINE: *** MESSAGE``
  (``fatal error`` too; warnings are not errors); the linker's ``undefined reference to ...`` (without a line);
- rustc through cargo: ``error[E0425]: MESSAGE`` and, a few lines below, ``--> FILE:LINE:COL``;
- node: ``FILE:LINE`` alone on a line, then the source line and a caret, then ``SyntaxError: MESSAGE``;
- python: a traceback's last ``File "FILE", line N`` before ``SyntaxError: MESSAGE`` (any ``...Error:``).

The file is made relative to the bot's folder (a compiler prints what it was given, node an absolute path): never an
absolute path of this machine. An error in a file outside the folder (a system header) counts only when no error in
the bot's own files does, and then without its file. A log with none of these gives its first line that says
``error`` or, failing that, its last line (not make's summary), without a file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ARENA_PREFIX", "BuildError", "first_error"]

#: Lines the arena itself writes into a build log start with this; they are never the bot's error.
ARENA_PREFIX = "arena: "
#: How many lines below rustc's ``error:`` its ``-->`` location may come, and node's error below its ``FILE:LINE``.
_LOOKAHEAD = 8
_MESSAGE_CHARS = 300

_COMPILER = re.compile(
    r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?:fatal )?error:\s*(?P<message>.+)$", re.IGNORECASE
)
_MAKE = re.compile(r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+): \*\*\* (?P<message>.+?)\.?\s*(?:Stop\.)?$")
_RUST = re.compile(r"^error(?:\[(?P<code>E\d+)\])?: (?P<message>.+)$")
_RUST_AT = re.compile(r"^\s*--> (?P<file>.+?):(?P<line>\d+)(?::\d+)?\s*$")
#: rustc's summaries, never the first error a person should read.
_RUST_SUMMARY = re.compile(r"^(?:could not compile|aborting due to|build failed|failed to run custom build)")
_NODE_AT = re.compile(r"^(?P<file>\S.*?\.(?:js|mjs|cjs|ts)):(?P<line>\d+)\s*$")
_EXCEPTION = re.compile(r"^(?P<kind>[A-Za-z_][\w.]*(?:Error|Exception)): ?(?P<message>.*)$")
_PYTHON_AT = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')
#: The linker's ``main.cpp:(.text+0x1f): undefined reference to `foo'`` (no line: the object file has none).
_LINKER = re.compile(r"(?:^|: )(?P<message>(?:undefined reference to|multiple definition of) .+)$")
_JAVA_SYMBOL = re.compile(r"^\s*symbol:\s+\S")
_ANY_ERROR = re.compile(r"\berror\b", re.IGNORECASE)
_MAKE_SUMMARY = re.compile(r"^make(?:\[\d+\])?: \*\*\* \[.*\] Error \d+$")


@dataclass(frozen=True)
class BuildError:
    """The first error a person should read in a build's log."""

    #: The file it is in, relative to the bot's folder (``src/strategy.cpp``); None when the log names none.
    file: str | None
    #: Its line in that file (1-based); None when the log names none.
    line: int | None
    message: str

    def __str__(self) -> str:
        """``FILE:LINE: message``, as compilers print it (the parts that are known)."""
        where = ":".join(str(p) for p in (self.file, self.line) if p is not None)
        return f"{where}: {self.message}" if where else self.message


def _relative(name: str, folder: Path) -> str | None:
    """``name`` as a path relative to ``folder`` (the build runs there), or None when it lies outside it."""
    name = name.strip()
    if name.startswith("./"):
        name = name[2:]
    path = name if os.path.isabs(name) else os.path.join(folder, name)
    normal = os.path.normpath(path)
    for base in {os.path.normpath(folder), os.path.realpath(folder)}:
        if normal == base:
            return None
        if normal.startswith(base.rstrip("/") + "/"):
            return normal[len(base.rstrip("/")) + 1 :]
    return None


def _clean(message: str, folder: Path) -> str:
    """The message on one line, without the folder's absolute path, not too long."""
    text = " ".join(message.split())
    for base in sorted({str(folder), os.path.realpath(folder)}, key=len, reverse=True):
        text = text.replace(base.rstrip("/") + "/", "")
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 3] + "..."


@dataclass(frozen=True)
class _Found:
    """An error at line ``index`` of the log, its file as the log gives it."""

    index: int
    file: str | None
    line: int | None
    message: str


def _found_at(lines: list[str], index: int) -> _Found | None:
    """The error that starts at ``lines[index]``, if one does."""
    text = lines[index]
    if text.startswith(ARENA_PREFIX):
        return None
    match = _COMPILER.match(text) or _MAKE.match(text)
    if match is not None:
        message = match["message"]
        if message.strip() == "cannot find symbol":  # javac names the symbol a few lines below
            symbol = next((b for b in lines[index + 1 : index + 1 + _LOOKAHEAD] if _JAVA_SYMBOL.match(b)), None)
            if symbol is not None:
                message += ": " + " ".join(symbol.split()[1:])
        return _Found(index, match["file"], int(match["line"]), message)
    match = _LINKER.search(text)
    if match is not None:
        return _Found(index, None, None, match["message"])
    match = _RUST.match(text)
    if match is not None and not _RUST_SUMMARY.match(match["message"]):
        message = f"{match['code']}: {match['message']}" if match["code"] else match["message"]
        for below in lines[index + 1 : index + 1 + _LOOKAHEAD]:
            at = _RUST_AT.match(below)
            if at is not None:
                return _Found(index, at["file"], int(at["line"]), message)
            if _RUST.match(below):
                break
        return _Found(index, None, None, message)
    match = _NODE_AT.match(text)
    if match is not None:
        for below in lines[index + 1 : index + 1 + _LOOKAHEAD]:
            raised = _EXCEPTION.match(below)
            if raised is not None:
                return _Found(index, match["file"], int(match["line"]), f"{raised['kind']}: {raised['message']}")
        return None
    match = _EXCEPTION.match(text)
    if match is not None:
        where = None
        for above in reversed(lines[max(0, index - 4 * _LOOKAHEAD) : index]):
            where = _PYTHON_AT.match(above)
            if where is not None:
                break
            if _EXCEPTION.match(above):
                break
        message = f"{match['kind']}: {match['message']}".rstrip(": ")
        if where is not None:
            return _Found(index, where["file"], int(where["line"]), message)
        return _Found(index, None, None, message)
    return None


def first_error(log: str, folder: Path) -> BuildError | None:
    """The first error in ``log`` (a build of the bot in ``folder``), or None for a log with no line at all."""
    lines = log.splitlines()
    outside: BuildError | None = None
    for index in range(len(lines)):
        found = _found_at(lines, index)
        if found is None:
            continue
        if found.file is None:
            return BuildError(None, None, _clean(found.message, folder))
        relative = _relative(found.file, folder)
        if relative is not None:
            return BuildError(relative, found.line, _clean(found.message, folder))
        if outside is None:
            outside = BuildError(None, None, _clean(f"{os.path.basename(found.file)}: {found.message}", folder))
    if outside is not None:
        return outside
    own = [line for line in lines if line.strip() and not line.startswith(ARENA_PREFIX)]
    told = [line for line in own if not _MAKE_SUMMARY.match(line.strip())] or own
    for line in told:
        if _ANY_ERROR.search(line):
            return BuildError(None, None, _clean(line, folder))
    return BuildError(None, None, _clean(told[-1], folder)) if told else None
