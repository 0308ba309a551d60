"""The course-shell adapter: a student's ``MyAI.py``, ``MyAI.java`` or ``MyAI.cpp`` plays as an engine bot,
unmodified (docs/courses.md).

    python host.py SHELL_DIR AGENT_DIR [BUILD_DIR]

The university courses' Minesweeper shell gives an agent a constructor ``MyAI(rowDimension,
colDimension, totalMines, startX, startY)`` and asks it ``getAction(number)`` for one
``Action(AI.Action.UNCOVER | FLAG | UNFLAG | LEAVE, x, y)`` at a time. This program speaks the arena's
line protocol (docs/protocol.md) on one side and that interface on the other. It runs inside the
sandbox, with the standard library only and nothing of the arena: ``SHELL_DIR`` holds the arena's
``AI.py`` and ``Action.py``, which the agent gets whatever copies its own folder holds (so the arena
knows the actions it returns), and ``AGENT_DIR`` the agent's folder, put first on ``sys.path``. A Java or C++
agent was built into ``BUILD_DIR`` (``arena.isolation.builds.shells``) with the arena's copies of its shell's
files and a driver; this program starts that driver as its child and asks it for each ``MyAI`` and each
``getAction`` (``Compiled``), so that every rule below is this file's for all three shells. The Java shell
counts x and y from 1, the others from 0 (``origin``).

The shell's conventions, kept here (the shell's World.py):

- x is the column, y the row counted from the *bottom* (the World draws row ``rowDimension`` on top),
  both from 0; the arena's (row, col) is ``(rowDimension - 1 - y, x)``;
- the start tile is a zero that the world has uncovered; the agent's first ``getAction`` gets its
  number, 0. Under the arena's ``zero`` rule it is the tile the arena opened (the first revealed zero
  in row-major order, which ``engine.layout.zero_start`` makes it); under another rule this program
  makes the first click itself, the board's centre, and gives that tile, whatever its number;
- ``number`` is the uncovered tile's number after ``UNCOVER`` and -1 after ``FLAG`` and ``UNFLAG``;
  ``UNCOVER`` of a flagged tile uncovers it; ``FLAG`` of a tile that is not covered, or with no flag
  left, and ``UNFLAG`` of a tile without a flag, change nothing;
- the move limit is twice the cells: the world stops once more moves than that were made.

The arena's reveal floods an opening; the shell's uncovers one tile. So the tiles a flood opened are
given, number and all, when the agent uncovers them, without spending a move (the first time: a
repeat counts, as in the shell). ``LEAVE`` before the board is cleared, an exception, an action that
is not one, or one off the board ends the game with the reason; whatever the agent prints goes to
stderr, its log, never into the protocol.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import traceback
from types import ModuleType
from typing import Any, TextIO

PROTOCOL = 1
#: The shell's move limit, in cells: the world stops once more moves than this many per cell were made.
MOVES_PER_CELL = 2
#: The trial construction at start-up (the start tile's x and y from the shell's origin): a constructor that
#: cannot build this agent fails every game.
TRIAL = (8, 8, 10, 0, 0)
#: What the build says of itself (``arena.isolation.builds.shells.BUILD_INFO``).
BUILD_INFO = "shell.json"
#: The compiled drivers' answer for each move, by the ordinal of the shell's action.
KINDS = ("LEAVE", "UNCOVER", "FLAG", "UNFLAG")


class GameEnd(Exception):
    """The agent's game ends without a win (the message is the reason the arena stores): ``illegal`` for an
    action that is not one, ``resign`` for an end the shell's rules make (LEAVE, the move limit), else an error."""

    def __init__(self, message: str, *, illegal: bool = False, resign: bool = False) -> None:
        super().__init__(message)
        self.illegal = illegal
        self.resign = resign

    def reply(self) -> dict[str, Any]:
        """The protocol's reply that ends the game so."""
        if self.illegal:
            return {"actions": [], "why": str(self)}
        return {"resign": str(self)} if self.resign else {"error": str(self)}


def where(error: BaseException) -> str:
    """``TYPE: message (FILE, line N)`` at the deepest frame of the agent's own files."""
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if not f.filename.endswith(os.path.basename(__file__))]
    place = f" ({os.path.basename(own[-1].filename)}, line {own[-1].lineno})" if own else ""
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}{place}" if text else f"{type(error).__name__}{place}"


def load_module(name: str, path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class Shell:
    """The agent's folder, loaded: its ``MyAI`` class and the arena's ``AI`` and ``Action``."""

    #: The shell's first x and y (the Java shell's are 1), its agent's file and method, for the rules and messages.
    origin = 0
    file = "MyAI.py"
    method = "MyAI.getAction"

    def __init__(self, shell_dir: str, agent_dir: str) -> None:
        self.ai = load_module("AI", os.path.join(shell_dir, "AI.py"))
        self.ai.seed = "0" * 32  # each game's own from its new_game on (``Game``)
        self.action = load_module("Action", os.path.join(shell_dir, "Action.py"))
        path = os.path.join(agent_dir, "MyAI.py")
        if not os.path.isfile(path):
            raise GameEnd(f"{path}: no MyAI.py in the agent's folder")
        sys.path.insert(0, agent_dir)
        try:
            module = load_module("MyAI", path)
        except BaseException as error:  # SyntaxError, ImportError, whatever its top level raised
            if isinstance(error, KeyboardInterrupt):
                raise
            raise GameEnd(f"MyAI.py: the import failed: {where(error)}") from None
        agent_class = getattr(module, "MyAI", None)
        if not isinstance(agent_class, type):
            raise GameEnd("MyAI.py: defines no class MyAI")
        self.agent_class = agent_class
        self.moves = self.ai.AI.Action

    def new_agent(self, height: int, width: int, mines: int, x: int, y: int) -> Any:
        try:
            return self.agent_class(height, width, mines, x, y)
        except Exception as error:
            raise GameEnd(f"MyAI.py: MyAI({height}, {width}, {mines}, {x}, {y}) raised {where(error)}") from None


class Compiled:
    """A Java or C++ agent, built into ``build_dir``: its driver runs as this program's child, asked one line at a
    time (``new ROWS COLS MINES X Y SEED``, ``get NUMBER``), its prints going to this program's stderr. Each
    ``getAction`` answer is made an ``Action`` of the arena's Python shell, so ``Game`` plays it by the same rules."""

    def __init__(self, shell_dir: str, agent_dir: str, build_dir: str) -> None:
        self.ai = load_module("AI", os.path.join(shell_dir, "AI.py"))
        self.ai.seed = "0" * 32
        self.action = load_module("Action", os.path.join(shell_dir, "Action.py"))
        self.moves = self.ai.AI.Action
        try:
            with open(os.path.join(build_dir, BUILD_INFO), encoding="utf-8") as file:
                info = json.load(file)
        except (OSError, ValueError):
            name = os.path.basename(agent_dir)
            raise GameEnd(f"{name}: the agent is not built (the arena builds it before it plays)") from None
        self.language = str(info["language"])
        self.origin = int(info["origin"])
        self.method = str(info["method"])
        self.file = "MyAI.java" if self.language == "java" else "MyAI.cpp"
        self.command = [str(word).replace("{build}", build_dir) for word in info["command"]]
        self.agent_dir = agent_dir
        self.process: subprocess.Popen[str] | None = None

    def ask(self, line: str, doing: str) -> str:
        """The driver's answer to ``line`` (started first if it is not running); ``GameEnd`` if it dies."""
        if self.process is None or self.process.poll() is not None:
            try:
                self.process = subprocess.Popen(
                    self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=self.agent_dir
                )
            except OSError as error:
                raise GameEnd(f"{self.file}: cannot start the built agent: {error}") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
            answer = self.process.stdout.readline()
        except OSError:
            answer = ""
        if not answer.endswith("\n"):
            code = self.process.wait()
            self.process = None
            ended = f"was killed by signal {-code} ({signal.Signals(-code).name})" if code < 0 else f"exited ({code})"
            raise GameEnd(f"the agent's program {ended} during {doing}")
        return answer.rstrip("\n")

    def new_agent(self, height: int, width: int, mines: int, x: int, y: int) -> Any:
        call = f"MyAI({height}, {width}, {mines}, {x}, {y})"
        answer = self.ask(f"new {height} {width} {mines} {x} {y} {self.ai.seed}", call)
        if answer != "ok":
            raise GameEnd(f"{self.file}: {call} raised {answer.removeprefix('error ')}")
        return CompiledAgent(self)


class CompiledAgent:
    """The ``MyAI`` of a compiled shell, as the Python shell's: ``getAction`` returns the arena's ``Action``."""

    def __init__(self, shell: Compiled) -> None:
        self.shell = shell

    def getAction(self, number: int) -> Any:
        shell = self.shell
        answer = shell.ask(f"get {number}", shell.method)
        words = answer.split(" ")
        if words[0] == "error":
            raise GameEnd(f"{shell.method} {'threw' if shell.language == 'cpp' else 'raised'} {answer[6:]}")
        if words[0] == "null":
            raise GameEnd(f"{shell.method} returned null, not an Action", illegal=True)
        kind, x, y = (int(w) for w in words[1:4])
        if not 0 <= kind < len(KINDS):
            kinds = ", ".join(KINDS)
            raise GameEnd(f"{shell.method} returned an action of kind {kind}, not one of {kinds}", illegal=True)
        return shell.action.Action(shell.moves[KINDS[kind]], x, y)


class Game:
    """One game of the agent's, between ``new_game`` and ``game_over``."""

    def __init__(self, shell: Shell | Compiled, message: dict[str, Any]) -> None:
        self.shell = shell
        self.height, self.width = int(message["height"]), int(message["width"])
        self.mines = int(message["mines"])
        self.rule = str(message.get("rule", "safe"))
        self.limit = MOVES_PER_CELL * self.height * self.width
        self.moves = 0
        self.flags_left = self.mines
        self.agent: Any = None
        self.clicked: tuple[int, int] | None = None  # this program's own first click (rules but zero)
        self.waiting: tuple[int, int] | None = None  # the tile whose number the next observation gives
        self.told: set[tuple[int, int]] = set()  # tiles the agent uncovered (a repeat spends a move)
        self.grid: list[str] = []
        seed = str(message.get("seed", "0"))
        random.seed(int(seed, 16) if all(ch in "0123456789abcdefABCDEF" for ch in seed) and seed else 0)
        shell.ai.seed = seed  # the game's seed, for an agent that wants the protocol's shared generator

    def start(self) -> tuple[int, int] | None:
        """The start tile: the first revealed zero under ``zero``, else this program's click."""
        if self.rule == "zero":
            for r, row in enumerate(self.grid):
                c = row.find("0")
                if c >= 0:
                    return r, c
        return self.clicked

    def observe(self, grid: list[str]) -> dict[str, Any]:
        """The reply to an observation: the agent's next engine action, asked for as often as it takes."""
        self.grid = grid
        if self.agent is None:
            start = self.start()
            if start is None:
                self.clicked = (self.height // 2, self.width // 2)
                return {"actions": [["reveal", *self.clicked]]}
            row, col = start
            o = self.shell.origin
            self.agent = self.shell.new_agent(self.height, self.width, self.mines, col + o, self.height - 1 - row + o)
            self.told.add(start)
            number = self.number(row, col)
        elif self.waiting is not None:
            number = self.number(*self.waiting)
            self.waiting = None
        else:
            number = -1
        while True:
            reply, number = self.step(number)
            if reply is not None:
                return reply

    def number(self, row: int, col: int) -> int:
        ch = self.grid[row][col]
        return int(ch) if ch.isdigit() else -1

    def step(self, number: int) -> tuple[dict[str, Any] | None, int]:
        """Ask the agent once: an engine reply, or None and the number its next question gets."""
        if self.moves > self.limit:
            raise GameEnd(
                f"no result after {self.moves} moves: the course shell's move limit is {self.limit}", resign=True
            )
        try:
            action = self.agent.getAction(number)
        except GameEnd:
            raise
        except Exception as error:
            raise GameEnd(f"MyAI.getAction raised {where(error)}") from None
        move, x, y = self.read(action)
        self.moves += 1
        kinds = self.shell.moves
        if move is kinds.LEAVE:
            covered = sum(row.count("#") + row.count("F") for row in self.grid) - self.mines
            raise GameEnd(f"the agent left the game (LEAVE) with {covered} safe tile(s) still covered", resign=True)
        o = self.shell.origin
        row, col = self.height - 1 - (y - o), x - o
        ch = self.grid[row][col]
        if move is kinds.UNCOVER:
            if ch.isdigit():
                if (row, col) not in self.told:  # opened by a flood: given without spending a move
                    self.moves -= 1
                self.told.add((row, col))
                return None, int(ch)
            self.told.add((row, col))
            self.waiting = (row, col)
            if ch == "F":  # the shell uncovers a flagged tile
                self.flags_left += 1
                return {"actions": [["unflag", row, col], ["reveal", row, col]]}, -1
            return {"actions": [["reveal", row, col]]}, -1
        if move is kinds.FLAG:
            if ch == "#" and self.flags_left > 0:
                self.flags_left -= 1
                return {"actions": [["flag", row, col]]}, -1
            return None, -1
        if ch == "F":  # UNFLAG
            self.flags_left += 1
            return {"actions": [["unflag", row, col]]}, -1
        return None, -1

    def read(self, action: Any) -> tuple[Any, int, int]:
        """The move and coordinates of what ``getAction`` returned, or the reason it is not an action."""
        try:
            move, x, y = action.getMove(), action.getX(), action.getY()
        except Exception:
            raise GameEnd(
                f"MyAI.getAction returned {type(action).__name__}, not an Action(AI.Action..., x, y)", illegal=True
            ) from None
        if not isinstance(move, self.shell.moves):
            raise GameEnd(f"MyAI.getAction returned an Action whose move is {move!r}, not an AI.Action", illegal=True)
        if move is self.shell.moves.LEAVE:
            return move, 0, 0
        if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, int) or not isinstance(y, int):
            raise GameEnd(f"MyAI.getAction returned {move.name} at ({x!r}, {y!r}): not whole numbers", illegal=True)
        o, method = self.shell.origin, self.shell.method
        if not (o <= x < self.width + o and o <= y < self.height + o):
            raise GameEnd(
                f"{method} returned {move.name} at ({x}, {y}), off the board: x runs {o}..{self.width - 1 + o} "
                f"(columns) and y {o}..{self.height - 1 + o} (rows, from the bottom)",
                illegal=True,
            )
        return move, x, y


def serve(shell_dir: str, agent_dir: str, protocol_out: TextIO, build_dir: str | None = None) -> None:
    """Answer the arena's messages on stdin until ``quit`` or its end (a compiled agent's from ``build_dir``)."""

    def send(reply: dict[str, Any]) -> None:
        protocol_out.write(json.dumps(reply) + "\n")
        protocol_out.flush()

    shell: Shell | Compiled | None = None
    broken = ""
    try:
        shell = Shell(shell_dir, agent_dir) if build_dir is None else Compiled(shell_dir, agent_dir, build_dir)
        height, width, mines, x, y = TRIAL
        shell.new_agent(height, width, mines, x + shell.origin, y + shell.origin)
    except GameEnd as failure:
        broken = str(failure)
    name = os.path.basename(os.path.abspath(agent_dir)) or "myai"
    game: Game | None = None
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            hello: dict[str, Any] = {"protocol": PROTOCOL, "name": name, "version": "myai"}
            if broken:
                hello["error"] = broken
            send(hello)
        elif kind == "new_game":
            game = Game(shell, message) if shell is not None and not broken else None
        elif kind == "observation":
            if game is None:
                send({"error": broken or "an observation before new_game"})
                continue
            try:
                send(game.observe(list(message["grid"])))
            except GameEnd as failure:
                send(failure.reply())
                game = None
        elif kind == "game_over":
            game = None
        elif kind == "quit":
            return


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: host.py SHELL_DIR AGENT_DIR [BUILD_DIR]", file=sys.stderr)
        return 2
    # The protocol keeps a descriptor of its own; the agent's prints (fd 1 too) go to stderr, its log.
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    shell_dir, agent_dir = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    build_dir = os.path.abspath(argv[2]) if len(argv) == 3 else None
    os.chdir(agent_dir)
    serve(shell_dir, agent_dir, protocol_out, build_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
