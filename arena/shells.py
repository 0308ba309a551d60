"""The course shells the arena plays (docs/courses.md): which one an agent's folder is written for, its sources,
and where its build is kept.

A student's folder holds ``MyAI.py`` (the Python shell), ``MyAI.java`` (the Java shell) or ``MyAI.cpp`` with
``MyAI.hpp`` (the C++ shell). Python runs as it is; Java and C++ are compiled, with the arena's own copies of the
shell's ``AI``/``Action`` (``Agent.hpp``) and a small driver that the adapter (``arena/isolation/myai/host.py``)
talks to, in the build sandbox (``arena.isolation.builds.shells``). The shell's other files (its world, its main,
its manual and random agents) are the course's, not the student's: a folder that still holds them builds without
them, as the course's own tournament does.

The build of a folder is named by a digest of what goes into it (the agent's sources and the arena's shell files),
so a changed agent is built again and an unchanged one never is; it lives in the arena's cache, where the bot's
sandbox shows it (``arena.isolation.sandbox.botfiles.hidden``) and nothing else does. Vocabulary: ``EngineBot.shell``
names the build's folder without building anything.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from arena.paths import shell_builds_dir

__all__ = ["SHELLS", "SHELL_DIR", "CourseShell", "agent_sources", "build_folder", "shell_of"]

#: The course-shell adapter, the Python shell's ``AI`` and ``Action`` modules and the Java and C++ shells' files.
SHELL_DIR = Path(__file__).resolve().parent / "isolation" / "myai"


@dataclass(frozen=True)
class CourseShell:
    """One course shell: its language, the agent's file, and what of a course folder is the course's own."""

    language: str
    #: The agent's own file, whose presence says a folder is this shell's.
    agent_file: str
    #: The suffixes of the sources built with the agent (every such file at the folder's top level).
    suffixes: tuple[str, ...]
    #: The shell's own files, which the arena provides (``AI``/``Action``/``Agent``) or leaves out (the course's
    #: world, main and other agents): a student's folder may still hold them.
    course_files: frozenset[str]
    #: The first coordinate of the shell's x and y: the Java shell counts from 1, the Python and C++ ones from 0.
    origin: int
    #: How the agent's method is named in messages.
    method: str

    @property
    def compiled(self) -> bool:
        return self.language != "python"

    @property
    def files(self) -> Path:
        """The arena's files of this shell (the Python shell's are in ``SHELL_DIR`` itself)."""
        return SHELL_DIR if self.language == "python" else SHELL_DIR / self.language


SHELLS = (
    CourseShell("python", "MyAI.py", (".py",), frozenset({"AI.py", "Action.py"}), 0, "MyAI.getAction"),
    CourseShell(
        "java",
        "MyAI.java",
        (".java",),
        frozenset({"AI.java", "Action.java", "World.java", "Main.java", "ManualAI.java", "RandomAI.java"}),
        1,
        "MyAI.getAction",
    ),
    CourseShell(
        "cpp",
        "MyAI.cpp",
        (".cpp", ".cc", ".hpp", ".h"),
        frozenset(
            {"Agent.hpp", "World.cpp", "World.hpp", "Main.cpp", "ManualAI.cpp", "ManualAI.hpp"}
            | {"RandomAI.cpp", "RandomAI.hpp"}
        ),
        0,
        "MyAI::getAction",
    ),
)


def shell_of(folder: str | os.PathLike[str]) -> CourseShell | None:
    """The shell ``folder``'s agent is written for (the first of Python, Java, C++ whose agent file it holds), or
    None."""
    path = Path(folder)
    return next((s for s in SHELLS if (path / s.agent_file).is_file()), None)


def agent_sources(folder: str | os.PathLike[str], shell: CourseShell) -> list[Path]:
    """The student's sources that a compiled shell builds: every file of the shell's suffixes at the folder's top
    level, but the course's own files; sorted by name."""
    path = Path(folder)
    return sorted(
        p
        for p in path.iterdir()
        if p.is_file() and p.suffix in shell.suffixes and p.name not in shell.course_files and p.name[0] != "."
    )


def build_folder(folder: str | os.PathLike[str], shell: CourseShell) -> Path:
    """Where the build of ``folder``'s agent is kept: named by the digest of its sources and the arena's shell
    files (names and bytes), so that the same agent is built once and a changed one again."""
    digest = hashlib.sha256(shell.language.encode())
    for file in [*sorted(p for p in shell.files.iterdir() if p.is_file()), *agent_sources(folder, shell)]:
        digest.update(b"\0" + file.name.encode() + b"\0")
        digest.update(file.read_bytes())
    return shell_builds_dir() / f"{shell.language}-{digest.hexdigest()[:20]}"
