"""A competition as a file: ``competition.toml`` read, validated and checked, every error naming its place.

The format is documented in docs/competitions.md. The file is read with ``tomllib`` and validated by the pydantic
models below (unknown keys refused); ``load_competition`` then checks what a model cannot see: two entrants with
one name, paths relative to the file that do not exist, a kit folder without its scripts, a package that is not
installed. Every error is a ``CompetitionError`` whose one line reads ``FILE:LINE: KEY: what is wrong``, the line
found by ``arena.competition.locate`` (``tomllib`` keeps none).
"""

from __future__ import annotations

import importlib.metadata
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from arena.competition.hosting import HostSpec
from arena.competition.locate import key_lines, line_of
from arena.config import RecordMode
from arena.isolation.sandbox.botfiles import broad_folder
from arena.limits import DEFAULT_LIMITS, Clock, Limits, SandboxMode
from engine import BoardSpec, FirstClick
from engine.board import resolve_board
from engine.errors import BoardConfigError
from engine.layout import MAX_SEED
from players.api import NAME_PATTERN
from players.hookspecs import PROJECT

__all__ = ["FORMS", "Boards", "Competition", "CompetitionError", "Entrant", "LimitsSpec", "Loaded", "load_competition"]

#: The ways an entrant can be given, exactly one per entrant.
FORMS = ("plugin", "package", "command", "kit")
#: What a kit folder must hold (``arena new-bot`` writes both).
KIT_SCRIPTS = ("build.sh", "run.sh")
#: Arguments of a command that name a file to run, checked like paths.
_SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".jar", ".sh", ".rb", ".pl")
#: How pydantic names the member of a union it tried, in an error's location.
_UNION_TAG = re.compile(r"str|int|float|bool|list\[.*\]|dict\[.*\]")
_NAME_RULE = "1-64 lower-case letters, digits, '.', '_' or '-' starting with a letter or digit"


class CompetitionError(Exception):
    """A competition file that cannot be played as written: ``FILE:LINE: KEY: message`` (one line)."""

    def __init__(self, file: Path | str, line: int | None, key: str, message: str) -> None:
        where = f"{file}:{line}" if line is not None else str(file)
        super().__init__(f"{where}: {key}: {message}" if key else f"{where}: {message}")
        self.file, self.line, self.key, self.message = str(file), line, key, message


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Boards(_Strict):
    """The board set: a preset ``difficulty`` or ``width``, ``height`` and ``mines``; rule, seed and count."""

    difficulty: str | None = None
    width: int | None = Field(default=None, ge=1)
    height: int | None = Field(default=None, ge=1)
    mines: int | None = Field(default=None, ge=1)
    first_click: FirstClick = FirstClick.SAFE
    seed: int = Field(default=0, ge=0, le=MAX_SEED)
    count: int = Field(default=100, ge=1, le=100_000_000)

    @field_validator("first_click", mode="before")
    @classmethod
    def _rule(cls, value: Any) -> FirstClick:
        try:
            return FirstClick.parse(value)
        except BoardConfigError as error:
            raise ValueError(str(error)) from None

    @model_validator(mode="after")
    def _board(self) -> Boards:
        size = (self.width, self.height, self.mines)
        if self.difficulty is not None and any(v is not None for v in size):
            raise ValueError("give difficulty, or width, height and mines, not both")
        if self.difficulty is None and any(v is None for v in size):
            raise ValueError("give difficulty (beginner, intermediate, expert), or width, height and mines")
        try:
            self.spec.check_rule(self.first_click)
        except BoardConfigError as error:
            raise ValueError(str(error)) from None
        return self

    @property
    def spec(self) -> BoardSpec:
        try:
            if self.difficulty is not None:
                return resolve_board(self.difficulty)
            return resolve_board(None, f"{self.height}x{self.width}", self.mines)
        except BoardConfigError as error:
            raise ValueError(str(error)) from None


class LimitsSpec(_Strict):
    """The isolated bots' limits, as ``arena tournament`` takes them (``--move-time`` and the rest)."""

    move_time: float = Field(default=DEFAULT_LIMITS.move_time, gt=0)
    game_time: float = Field(default=DEFAULT_LIMITS.game_time, gt=0)
    #: MiB of address space (0: no limit).
    memory_mb: int = Field(default=DEFAULT_LIMITS.memory_mb or 0, ge=0)
    clock: Clock = Clock.WALL

    @field_validator("memory_mb")
    @classmethod
    def _memory(cls, value: int) -> int:
        if 0 < value < 64:
            raise ValueError("must be 0 (no limit) or at least 64")
        return value

    def limits(self) -> Limits:
        return Limits(
            move_time=self.move_time, game_time=self.game_time, memory_mb=self.memory_mb or None, clock=self.clock
        )


class Entrant(_Strict):
    """Who plays: its ``name`` (the name it plays under), its ``owner``, and exactly one form."""

    name: str
    owner: str = Field(min_length=1)
    plugin: str | None = None
    package: str | None = None
    command: str | list[str] | None = None
    #: With ``command``: the bot's folder, which it sees in the sandbox (default: its program's, as --bot-dir).
    folder: str | None = None
    kit: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if not NAME_PATTERN.match(name):
            raise ValueError(f"{name!r} is not a player name: {_NAME_RULE}")
        from players.builtin import BUILTIN_PLAYERS

        if name in {cls.name for cls in BUILTIN_PLAYERS}:
            raise ValueError(f"{name!r} is a built-in player's name; choose another")
        return name

    @field_validator("command")
    @classmethod
    def _command(cls, command: str | list[str] | None) -> str | list[str] | None:
        if command is None:
            return None
        try:
            parts = shlex.split(command) if isinstance(command, str) else command
        except ValueError as error:
            raise ValueError(f"cannot split the command: {error}") from None
        if not parts or not parts[0]:
            raise ValueError("an engine bot needs a command to run")
        return command

    @model_validator(mode="after")
    def _one_form(self) -> Entrant:
        given = [form for form in FORMS if getattr(self, form) is not None]
        if len(given) != 1:
            found = f"got {' and '.join(given)}" if given else "got none"
            raise ValueError(f"an entrant needs exactly one of {', '.join(FORMS)} ({found})")
        if self.folder is not None and self.command is None:
            raise ValueError("folder goes with command (a plugin's or a kit's folder is the one it lies in)")
        return self

    @property
    def form(self) -> Literal["plugin", "package", "command", "kit"]:
        return next(f for f in FORMS if getattr(self, f) is not None)  # type: ignore[return-value]

    @property
    def argv(self) -> tuple[str, ...]:
        """A ``command`` entrant's command, split like a shell when written as one string."""
        assert self.command is not None
        return tuple(shlex.split(self.command) if isinstance(self.command, str) else self.command)

    @property
    def given(self) -> str:
        """The entrant's form as written: ``plugin bots/alice.py``."""
        value = getattr(self, self.form)
        return f"{self.form} {shlex.join(value) if isinstance(value, list) else value}"


class Competition(_Strict):
    """The whole file."""

    name: str = Field(min_length=1)
    boards: Boards
    limits: LimitsSpec = Field(default_factory=LimitsSpec)
    #: true: the sandbox or an error (``require``); false: never (``off``); or ``auto``, ``require``, ``off``.
    sandbox: SandboxMode = SandboxMode.AUTO
    record: RecordMode = RecordMode.MOVES
    entrants: list[Entrant] = Field(default_factory=list)
    #: ``arena host``'s table (docs/hosting.md): with it, entrants submit instead of being listed here.
    host: HostSpec | None = None

    @field_validator("sandbox", mode="before")
    @classmethod
    def _sandbox(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return SandboxMode.REQUIRE if value else SandboxMode.OFF
        return value

    @model_validator(mode="after")
    def _entrants(self) -> Competition:
        if self.host is None and not self.entrants:
            raise ValueError("a competition needs at least one [[entrants]] (or a [host] table: docs/hosting.md)")
        if self.host is not None and self.entrants:
            raise ValueError(
                "a hosted competition ([host]) takes its entrants from `arena entrant add` and sign-up, "
                "not from [[entrants]]"
            )
        return self


@dataclass(frozen=True)
class Loaded:
    """A checked competition: the model, the file, its folder (paths in the file are relative to it) and each
    entrant's line."""

    competition: Competition
    file: Path
    lines: dict[tuple[str | int, ...], int]

    @property
    def folder(self) -> Path:
        return self.file.parent

    def line(self, *path: str | int) -> int | None:
        return line_of(self.lines, path)

    def error(self, index: int, key: str, message: str) -> CompetitionError:
        """An error about entrant ``index`` (from 0) and its ``key`` ("" for the entrant itself)."""
        path: tuple[str | int, ...] = ("entrants", index, key) if key else ("entrants", index)
        return CompetitionError(self.file, self.line(*path), _key_text(path), message)

    def path(self, value: str) -> Path:
        """A path written in the file, relative to its folder."""
        return (self.folder / Path(value).expanduser()).resolve()


def _key_text(path: tuple[str | int, ...]) -> str:
    """``entrants[2].plugin`` (entrants counted from 1, as a reader counts them)."""
    text = ""
    for part in path:
        text += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _validation_error(file: Path, lines: dict[tuple[str | int, ...], int], error: ValidationError) -> CompetitionError:
    first = error.errors()[0]
    path = tuple(first["loc"])
    while len(path) > 1 and isinstance(path[-1], str) and _UNION_TAG.fullmatch(path[-1]):
        path = path[:-1]  # the member of a union pydantic tried (``str``, ``list[str]``): not a key of the file
    message = str(first["msg"]).removeprefix("Value error, ")
    if len(first["loc"]) > len(path):
        message = "must be a string (split like a shell) or a list of strings" if path[-1] == "command" else message
    if first["type"] == "extra_forbidden":
        message = "unknown key (see docs/competitions.md for the keys a competition file takes)"
    elif first["type"] == "missing":
        message = "missing: this key is required"
    elif first["type"] == "enum":
        message = f"{first.get('input')!r} is not one of {first.get('ctx', {}).get('expected', '')}"
        if path == ("sandbox",):
            message += ", true (require) or false (off)"
    return CompetitionError(file, line_of(lines, path), _key_text(path), message)


def load_competition(file: str | Path) -> Loaded:
    """Read and check ``file``: a ``Loaded``, or ``CompetitionError`` naming the first problem's place."""
    file = Path(file).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CompetitionError(file, None, "", "no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CompetitionError(file, None, "", f"cannot be read: {error}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CompetitionError(file, _toml_line(error), "", f"not valid TOML: {error}") from None
    lines = key_lines(text)
    try:
        competition = Competition.model_validate(data)
    except ValidationError as error:
        raise _validation_error(file, lines, error) from None
    loaded = Loaded(competition, file.resolve(), lines)
    _check_entrants(loaded)
    return loaded


def _toml_line(error: tomllib.TOMLDecodeError) -> int | None:
    found = re.search(r"line (\d+)", str(error))
    return int(found.group(1)) if found else None


def _check_entrants(loaded: Loaded) -> None:
    """What the models cannot see: names given twice, paths that are not there, packages not installed."""
    seen: dict[str, int] = {}
    for index, entrant in enumerate(loaded.competition.entrants):
        if entrant.name in seen:
            first = loaded.line("entrants", seen[entrant.name], "name")
            raise loaded.error(index, "name", f"{entrant.name!r} is taken already by the entrant on line {first}")
        seen[entrant.name] = index
        if entrant.plugin is not None:
            path = loaded.path(entrant.plugin)
            if not path.exists():
                raise loaded.error(index, "plugin", f"{path} does not exist")
            if path.is_dir() and not any((path / n).is_file() for n in ("__init__.py", "bot.py")):
                raise loaded.error(index, "plugin", f"folder {path} has neither __init__.py nor bot.py")
        elif entrant.kit is not None:
            folder = loaded.path(entrant.kit)
            if not folder.is_dir():
                raise loaded.error(index, "kit", f"{folder} is not a folder (`arena new-bot` writes a kit)")
            missing = [name for name in KIT_SCRIPTS if not (folder / name).is_file()]
            if missing:
                raise loaded.error(
                    index, "kit", f"{folder} has no {' and no '.join(missing)}; a kit is a folder made by arena new-bot"
                )
            _check_own_folder(loaded, index, "kit", folder)
        elif entrant.package is not None:
            _check_package(loaded, index, entrant.package)
        else:
            _check_command(loaded, index, entrant)


def _check_own_folder(loaded: Loaded, index: int, key: str, folder: Path) -> None:
    why = broad_folder(folder)
    if why:
        raise loaded.error(index, key, f"{why}, which a bot may not see whole; give the bot a folder of its own")


def _check_package(loaded: Loaded, index: int, name: str) -> None:
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise loaded.error(index, "package", f"{name!r} is not installed (pip install it first)") from None
    if not any(ep.group == PROJECT for ep in dist.entry_points):
        raise loaded.error(index, "package", f"{name!r} has no entry point in the {PROJECT!r} group: not a bot")


def _check_command(loaded: Loaded, index: int, entrant: Entrant) -> None:
    if entrant.folder is not None:
        folder = loaded.path(entrant.folder)
        if not folder.is_dir():
            raise loaded.error(index, "folder", f"{folder} is not a folder")
        _check_own_folder(loaded, index, "folder", folder)
    for n, arg in enumerate(entrant.argv):
        # The program when given as a path, and every argument that names a file: a path, or a script's name.
        named = ("/" in arg or arg.endswith(_SCRIPT_SUFFIXES)) if n else ("/" in arg or arg.startswith("."))
        if named and not arg.startswith("-") and not loaded.path(arg).exists():
            raise loaded.error(index, "command", f"{loaded.path(arg)} does not exist")
