"""How players run, as values: the isolation mode, the limits, and external engine bots.

These travel inside ``TournamentConfig`` so that every worker (local or remote) applies the same
rules without extra plumbing, but they are not part of the tournament id: for an honest,
deterministic player they change timings only, never a game.
"""

from __future__ import annotations

import enum
import math
import os
import shlex
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from arena.shells import SHELL_DIR, SHELLS, build_folder, shell_of
from players.api import NAME_PATTERN, PlayerError

__all__ = ["DEFAULT_LIMITS", "SHELL_DIR", "Clock", "EngineBot", "EngineBotError", "Isolation", "Limits", "SandboxMode"]


class EngineBotError(PlayerError, ValueError):
    """An ``--engine-bot`` that cannot be read."""


class Isolation(enum.StrEnum):
    """Where a player's code runs."""

    #: Built-in players trusted, everything else (plugins, entry points, engine bots) isolated.
    AUTO = "auto"
    #: In the worker process, as a plain object: fastest, but the player could reach the layout.
    TRUSTED = "trusted"
    #: In its own process, seeing only observations: a crash, a hang or a cheat stays there.
    ISOLATED = "isolated"


class SandboxMode(enum.StrEnum):
    """Whether isolated players run in a Linux sandbox (``arena.isolation.sandbox.bubblewrap``, docs/isolation.md)."""

    #: In the sandbox where this machine can make one; else today's isolation, said once on stderr.
    AUTO = "auto"
    #: In the sandbox, or not at all: a machine without one is an error.
    REQUIRE = "require"
    #: Never: isolated players run as plain processes under their limits.
    OFF = "off"


class Clock(enum.StrEnum):
    """What a move's time limit counts (``--clock``)."""

    #: Seconds on the wall: what the bot's opponent would wait, but a busy machine's load is billed to the bot.
    WALL = "wall"
    #: CPU seconds of the bot's own process tree, read from the kernel: the bot's thinking whatever the load, with
    #: wall time as a backstop (``Limits.backstop`` times the limit) for a bot that waits instead of thinking.
    CPU = "cpu"


class Limits(BaseModel):
    """Time and resource limits of isolated players (trusted code is trusted to finish: it could not
    be stopped anyway). Wall time is enforced while waiting for each reply; memory and CPU are kernel
    limits on the process, because a wall clock caps neither a memory blow-up nor a busy thread."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Seconds a player may think about one observation.
    move_time: float = Field(default=10.0, gt=0)
    #: Seconds a player may think in one game, all moves together.
    game_time: float = Field(default=300.0, gt=0)
    #: Added to every deadline: scheduling jitter and pipe latency are not the player's fault.
    grace: float = Field(default=0.5, ge=0)
    #: Address-space limit (RLIMIT_AS) of an isolated player's process; None for none.
    memory_mb: int | None = Field(default=2048, ge=64)
    #: CPU seconds an isolated process may use per game (RLIMIT_CPU); None: ``game_time``.
    cpu_time: float | None = Field(default=None, gt=0)
    #: Processes (threads count) a sandboxed player may have at once: a fork bomb is refused beyond.
    processes: int | None = Field(default=256, ge=16)
    #: Seconds an isolated process may take to start and answer the handshake (imports, warm-up).
    startup_time: float = Field(default=60.0, gt=0)
    #: What ``move_time`` and ``game_time`` count: wall seconds, or the bot's CPU seconds (a store written before
    #: the choice existed reads ``wall``).
    clock: Clock = Clock.WALL
    #: Under the CPU clock, a move may also take at most this many times its budget on the wall.
    backstop: float = Field(default=5.0, ge=1.0)

    @property
    def warm_up_time(self) -> float:
        """Seconds the Python host may spend on its warm-up game before its hello: half the start-up
        budget, the other half being the interpreter's start and the imports. Part of the start-up,
        never of a move: loading compiled code takes several times longer on a busy machine, and a
        warm-up cut short bills the rest of the loading to the first real move, which an honest bot
        then loses as a timeout."""
        return self.startup_time / 2

    @property
    def cpu_per_game(self) -> float:
        return self.cpu_time if self.cpu_time is not None else self.game_time

    @property
    def cpu_rlimit(self) -> int:
        """The process-lifetime RLIMIT_CPU: two games' worth. The process is recycled before a game
        once it has used one game's worth, so every game starts with at least ``cpu_per_game`` left,
        and a bot that burns CPU in the background between moves is still stopped."""
        return math.ceil(2 * self.cpu_per_game) + 1

    def budget(self, used: float) -> float:
        """Seconds the next move may take, grace included, after ``used`` seconds of this game."""
        return max(0.0, min(self.move_time, self.game_time - used)) + self.grace


DEFAULT_LIMITS = Limits()


class EngineBot(BaseModel):
    """An external executable that speaks the line protocol (docs/protocol.md), registered under
    ``name``. It always runs isolated."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    command: tuple[str, ...]
    #: The bot's folder, which it sees read-only in the sandbox (``--bot-dir NAME=DIR``); None: the
    #: folder of the program its command starts, or of the first file its command names.
    folder: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if not NAME_PATTERN.match(name):
            raise ValueError(
                f"engine bot name {name!r} must be 1-64 lower-case letters, digits, '.', '_' or '-' "
                "starting with a letter or digit"
            )
        return name

    @field_validator("command")
    @classmethod
    def _command(cls, command: tuple[str, ...]) -> tuple[str, ...]:
        if not command or not command[0]:
            raise ValueError("an engine bot needs a command to run")
        return command

    @classmethod
    def parse(cls, text: str, cwd: str | None = None) -> EngineBot:
        """``NAME=COMMAND ARGS...`` as ``--engine-bot`` takes it (the command is split like a shell), or
        ``NAME=FOLDER``: a course-shell agent's folder (``MyAI.py``), played through its adapter."""
        name, sep, command = text.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise EngineBotError(f"--engine-bot {text!r} is not of the form NAME=COMMAND [ARGS...] or NAME=FOLDER")
        try:
            argv = tuple(shlex.split(command))
        except ValueError as error:  # shlex: an unclosed quote
            raise EngineBotError(f"--engine-bot {text!r}: cannot split the command: {error}") from None
        folder = Path(cwd or os.getcwd(), os.path.expanduser(argv[0])) if len(argv) == 1 else None
        try:
            if folder is not None and folder.is_dir():
                return cls.shell(name.strip(), folder)
            return cls(name=name.strip(), command=argv)
        except ValidationError as error:
            problems = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in error.errors())
            raise EngineBotError(f"--engine-bot {text!r}: {problems}") from None

    @classmethod
    def shell(cls, name: str, folder: str | os.PathLike[str]) -> EngineBot:
        """The course-shell agent in ``folder`` (its ``MyAI.py``, ``MyAI.java`` or ``MyAI.cpp``) as an engine bot:
        the adapter ``arena/isolation/myai/host.py`` runs it in the sandbox with the arena's ``AI`` and ``Action``
        (docs/courses.md); a Java or C++ agent from its build, which ``arena.isolation.builds.shells`` makes before
        it plays (this names the build's folder and builds nothing). Raises ``EngineBotError`` (one line, naming the
        file) for a folder without an agent of a shell the arena supports."""
        path = Path(folder).expanduser().resolve()
        shell = shell_of(path)
        if shell is None:
            within = next((path / "src" for s in SHELLS if (path / "src" / s.agent_file).is_file()), None)
            hint = f"; the course's project keeps it in src: give {within}" if within is not None else ""
            raise EngineBotError(
                f"{path / 'MyAI.py'}: no MyAI.py, MyAI.java or MyAI.cpp there (a course-shell agent's folder holds "
                f"one; an engine bot's command is a program){hint}"
            )
        command = [sys.executable, str(SHELL_DIR / "host.py"), str(SHELL_DIR), str(path)]
        if shell.compiled:
            command.append(str(build_folder(path, shell)))
        return cls(name=name, command=tuple(command), folder=str(path))

    @property
    def shell_folder(self) -> str | None:
        """The agent's folder when this bot is a course-shell agent, else None."""
        if len(self.command) in (4, 5) and self.command[1] == str(SHELL_DIR / "host.py"):
            return self.command[3]
        return None

    @property
    def shell_build(self) -> str | None:
        """The folder of a Java or C++ course-shell agent's build (``arena.shells.build_folder``), else None."""
        return self.command[4] if self.shell_folder is not None and len(self.command) == 5 else None

    @property
    def label(self) -> str:
        if self.shell_folder is not None:
            return f"MyAI {self.shell_folder}"
        return shlex.join(self.command)
