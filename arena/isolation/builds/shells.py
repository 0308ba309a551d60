"""Building a Java or C++ course-shell agent in the build sandbox, unmodified (docs/courses.md).

The student's folder holds ``MyAI.java`` (or ``MyAI.cpp`` and ``MyAI.hpp``) and their other sources. The build
is made in a folder of its own in the arena's cache (``arena.shells.build_folder``: named by the digest of what
goes into it, so an agent is built once), never in the student's folder: its sources are copied there beside the
arena's own copies of the shell's ``AI.java``/``Action.java`` (``Agent.hpp``), which replace any the folder holds,
and a small driver (``ArenaDriver.java``, ``arena_driver.cpp``) that answers the adapter
(``arena/isolation/myai/host.py``); the course's own world, main and other agents are left out. Then the
``build.sh`` written here runs in the build sandbox (``build_bot``: no network, only that folder writable, the
limits, the log kept), and ``shell.json`` says the adapter how to start what was built. A build is made in a
staging folder and renamed into place once it succeeded, so two arenas building the same agent never see half of
one, and a failed build leaves nothing but its log.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.isolation.builds.build import BUILD_SCRIPT, DEFAULT_BUILD_LIMITS, BuildLimits, BuildResult, build_bot
from arena.limits import SandboxMode
from arena.shells import CourseShell, agent_sources, build_folder, shell_of

__all__ = ["BUILD_INFO", "JVM_OPTIONS", "ShellBuild", "build_shell", "java_package"]

#: What a finished build holds for the adapter: its language, the command that starts the driver, the shell's words.
BUILD_INFO = "shell.json"
#: The log of the build that made the folder, kept beside it.
BUILD_LOG = "build.log"
#: The JVM kept small, so that it starts under a bot's address-space limit (``--memory-mb``, 2048 MB by default),
#: as the Java kit's ``run.sh`` keeps it; the stack large, for agents that recurse over the board.
JVM_OPTIONS = (
    "-Xmx512m",
    "-Xss8m",
    "-XX:+UseSerialGC",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:MaxMetaspaceSize=128m",
)
_PACKAGE = re.compile(r"^\s*package\s+([A-Za-z_][\w.]*)\s*;", re.MULTILINE)
_TEMPLATE_PACKAGE = "package src;\n"


@dataclass(frozen=True)
class ShellBuild:
    """A course-shell agent's build: how it went, and the folder it is in (which exists only when it went well)."""

    shell: CourseShell
    folder: Path
    result: BuildResult

    @property
    def ok(self) -> bool:
        return self.result.ok

    def summary(self) -> str:
        """One line: ``MyAI.java built in 3.1 s``, ``MyAI.java built before``, or why it failed with its first error."""
        if self.ok:
            return f"{self.shell.agent_file} {self.result.summary() if self.result.built else 'built before'}"
        return f"{self.shell.agent_file} failed to build ({self.result.summary()})"


def java_package(source: str) -> str | None:
    """The package ``MyAI.java`` declares (the course's shell puts it in ``src``), or None for the unnamed one."""
    found = _PACKAGE.search(re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.DOTALL))
    return found.group(1) if found else None


def build_shell(
    folder: Path | str,
    *,
    sandbox: SandboxMode = SandboxMode.REQUIRE,
    limits: BuildLimits = DEFAULT_BUILD_LIMITS,
    log_path: Path | None = None,
) -> ShellBuild:
    """Build the Java or C++ agent in ``folder`` (see the module), or find it built; its log goes to ``log_path``
    too. Raises ``ValueError`` for a folder of no compiled shell, ``SandboxUnavailable`` for ``require`` on a
    machine without the sandbox."""
    folder = Path(folder).expanduser().resolve()
    shell = shell_of(folder)
    if shell is None or not shell.compiled:
        raise ValueError(f"{folder} holds no MyAI.java or MyAI.cpp")
    target = build_folder(folder, shell)
    if (target / BUILD_INFO).is_file():
        log = (target / BUILD_LOG).read_text(errors="replace") if (target / BUILD_LOG).is_file() else ""
        if log_path is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log_path.write_text(log)
        return ShellBuild(shell, target, BuildResult(True, "", None, log, 0.0, built=False))
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        command = _stage(folder, shell, stage)
        result = build_bot(stage, limits=limits, sandbox=sandbox, log_path=log_path)
        if result.ok:
            (stage / BUILD_LOG).write_text(result.log)
            info = {"language": shell.language, "command": command, "origin": shell.origin, "method": shell.method}
            (stage / BUILD_INFO).write_text(json.dumps(info, indent=1) + "\n")
            try:
                stage.rename(target)
            except OSError:  # another arena finished the same build first: theirs is this one
                if not (target / BUILD_INFO).is_file():
                    raise
        return ShellBuild(shell, target, result)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _stage(folder: Path, shell: CourseShell, stage: Path) -> list[str]:
    """Copy the agent's sources and the arena's shell files into ``stage`` and write its ``build.sh``; the command
    that starts the driver, with ``{build}`` for the build's folder."""
    sources = agent_sources(folder, shell)
    for source in sources:
        shutil.copyfile(source, stage / source.name)
    if shell.language == "java":
        package = java_package((folder / shell.agent_file).read_text(encoding="utf-8", errors="replace"))
        own = []
        for file in sorted(shell.files.glob("*.java")):
            text = file.read_text(encoding="utf-8")
            declared = f"package {package};\n" if package else ""
            (stage / file.name).write_text(text.replace(_TEMPLATE_PACKAGE, declared, 1), encoding="utf-8")
            own.append(file.name)
        files = " ".join(shlex.quote(name) for name in [*(s.name for s in sources), *own])
        script = f"rm -rf classes && mkdir classes\njavac -encoding UTF-8 -nowarn -d classes {files}\n"
        main = f"{package}.ArenaDriver" if package else "ArenaDriver"
        command = ["java", *JVM_OPTIONS, "-cp", "{build}/classes", main]
    else:
        for file in shell.files.iterdir():
            shutil.copyfile(file, stage / file.name)
        units = [s.name for s in sources if s.suffix in (".cpp", ".cc")] + ["arena_driver.cpp"]
        files = " ".join(shlex.quote(name) for name in units)
        script = f"g++ -std=c++17 -O2 -o arena_agent {files}\n"
        command = ["{build}/arena_agent"]
    header = "#!/bin/sh\n# Written by the arena: builds a course-shell agent with the arena's shell files.\nset -e\n"
    (stage / BUILD_SCRIPT).write_text(header + script)
    (stage / BUILD_SCRIPT).chmod(0o755)
    return command
