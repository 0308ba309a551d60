"""Write a starter kit: the template of one language, copied to a new folder with the bot's name in it.

Everything is checked before anything is written (a name the arena would refuse, an unknown language, a
folder that exists and is not empty), and the kit is written to a temporary folder beside the target and
renamed into place (an empty folder that exists is filled, not replaced), so a failure halfway leaves nothing
behind.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
import tempfile
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from players.api import NAME_PATTERN

__all__ = [
    "LANGUAGES",
    "SHELLS",
    "STRATEGY_FILES",
    "TEST_COMMANDS",
    "KitError",
    "NewBot",
    "engine_bot_option",
    "new_bot",
    "template_files",
]

#: The kits, in the order ``arena new-bot --help`` lists them.
LANGUAGES = ("python", "javascript", "cpp", "rust", "java")
#: The course shells: an agent's folder in a course's interface, played through the arena's adapter
#: (docs/courses.md), not a protocol client; the arena builds a Java or C++ agent itself.
SHELLS = ("myai-python", "myai-java", "myai-cpp")
#: The files of each shell the arena gives its agents (``arena/isolation/myai/``), written beside the agent.
SHELL_FILES = {
    "myai-python": ("AI.py", "Action.py"),
    "myai-java": ("java/AI.java", "java/Action.java"),
    "myai-cpp": ("cpp/Agent.hpp",),
}
#: The one file of each kit its author edits.
STRATEGY_FILES = {
    "python": "strategy.py",
    "javascript": "src/strategy.js",
    "cpp": "src/strategy.cpp",
    "rust": "src/strategy.rs",
    "java": "src/main/java/bot/Strategy.java",
    "myai-python": "MyAI.py",
    "myai-java": "MyAI.java",
    "myai-cpp": "MyAI.cpp",
}
#: Each kit's unit tests, run in its folder.
TEST_COMMANDS = {
    "python": "python3 -m unittest discover tests",
    "javascript": "node --test",
    "cpp": "make test",
    "rust": "cargo test",
    "java": "./test.sh",
    "myai-python": "python3 -c 'import MyAI'",
    "myai-java": "mkdir -p build && javac -d build *.java",
    "myai-cpp": "g++ -std=c++17 -fsyntax-only MyAI.cpp",
}
#: Placeholders in the templates' text.
NAME_TOKEN = "__BOT_NAME__"
CRATE_TOKEN = "__CRATE_NAME__"
#: Files a kit runs: written executable.
SCRIPTS = frozenset({"build.sh", "run.sh", "test.sh", "bot.py"})
#: What building or testing a template in place may leave, never copied.
_SKIP_PARTS = frozenset({"__pycache__", "node_modules", "target", "build", ".pytest_cache"})
_SKIP_NAMES = frozenset({"Cargo.lock"})
#: Names Cargo refuses for a package (Rust's own crates and keywords).
_RESERVED_CRATES = frozenset(
    (  # noqa: SIM905 (one string reads better than 70 lines)
        "alloc core proc_macro std test self super crate as break const continue else enum extern false fn for if "
        "impl in let loop match mod move mut pub ref return static struct trait true type unsafe use where while "
        "async await dyn abstract become box do final macro override priv typeof unsized virtual yield try"
    ).split()
)


class KitError(Exception):
    """A kit that cannot be written as asked (the message is one line, for the user)."""


@dataclass(frozen=True)
class NewBot:
    """A kit written to ``folder``: what to run next."""

    name: str
    language: str
    folder: Path
    files: tuple[Path, ...]

    @property
    def strategy_file(self) -> Path:
        return self.folder.joinpath(*STRATEGY_FILES[self.language].split("/"))

    @property
    def test_command(self) -> str:
        return TEST_COMMANDS[self.language]

    @property
    def shell(self) -> bool:
        """Whether this is a course shell's agent folder (played as ``NAME=FOLDER``), not a protocol kit."""
        return self.language in SHELLS

    @property
    def run_script(self) -> Path:
        return self.folder if self.shell else self.folder / "run.sh"

    @property
    def build_script(self) -> Path:
        return self.folder / "build.sh"


def engine_bot_option(name: str, run_script: Path | str) -> str:
    """``--engine-bot "NAME=PATH"`` as a shell takes it: the path quoted for the arena's split, the whole
    value quoted for the shell."""
    value = f"{name}={shlex.quote(str(run_script))}"
    if re.fullmatch(r"[\w./=+-]+", value):
        return f'--engine-bot "{value}"'
    return f"--engine-bot {shlex.quote(value)}"


def template_files(language: str) -> dict[str, Traversable]:
    """The template of ``language``, file by file, keyed by its path inside the kit (``/``-separated)."""
    if language not in LANGUAGES + SHELLS:
        raise KitError(f"unknown language {language!r}; choose one of: {', '.join(LANGUAGES + SHELLS)}")
    root = resources.files("arena.kits").joinpath("templates", language)
    files: dict[str, Traversable] = {}

    def walk(node: Traversable, prefix: str) -> None:
        for child in sorted(node.iterdir(), key=lambda c: c.name):
            path = f"{prefix}{child.name}"
            if child.name in _SKIP_PARTS or child.name in _SKIP_NAMES or child.name.endswith(".pyc"):
                continue
            if child.is_dir():
                walk(child, path + "/")
            else:
                files[path] = child

    walk(root, "")
    if language in SHELLS:
        shell = resources.files("arena.isolation").joinpath("myai")
        files.update({name.rpartition("/")[2]: shell.joinpath(*name.split("/")) for name in SHELL_FILES[language]})
    if not files:
        raise KitError(f"the {language} kit's template is missing from this installation of the arena")
    return files


def crate_name(name: str) -> str:
    """A Cargo package name for ``name``: Cargo takes letters, digits, '-' and '_', not a leading digit,
    and none of Rust's own names."""
    crate = name.replace(".", "_")
    if crate[0].isdigit() or crate.replace("-", "_") in _RESERVED_CRATES:
        crate = f"bot-{crate}"
    return crate


def _refused_name(name: str) -> str | None:
    """Why the arena would refuse ``name`` for ``--engine-bot``, or None."""
    if not NAME_PATTERN.match(name):
        allowed = "1-64 lower-case letters, digits, '.', '_' or '-' starting with a letter or digit"
        return f"bot name {name!r} must be {allowed}"
    from players.builtin import BUILTIN_PLAYERS  # the names --engine-bot may not take

    if name in {cls.name for cls in BUILTIN_PLAYERS}:
        return f"bot name {name!r} is a built-in player's; choose another"
    return None


def _check_folder(folder: Path) -> None:
    if folder.is_symlink() and not folder.exists():
        raise KitError(f"{folder} is a broken symbolic link; choose another --dir")
    if folder.exists():
        if not folder.is_dir():
            raise KitError(f"{folder} exists and is not a folder; choose another --dir")
        if any(folder.iterdir()):
            raise KitError(f"{folder} exists and is not empty; choose another --dir, or empty it")
    parent = folder.parent
    while not parent.exists() and parent != parent.parent:  # missing parents are created, as mkdir -p does
        parent = parent.parent
    if not parent.is_dir():
        raise KitError(f"{parent} is not a folder; choose another --dir")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise KitError(f"cannot write in {parent}; choose another --dir")


def new_bot(name: str, language: str, folder: Path | str | None = None) -> NewBot:
    """Write the ``language`` kit for a bot called ``name`` to ``folder`` (default: ``./NAME``).

    Raises ``KitError`` before writing anything when the name, the language or the folder will not do."""
    refused = _refused_name(name)
    if refused:
        raise KitError(refused)
    files = template_files(language)
    target = Path(folder) if folder is not None else Path(name)
    target = Path(os.path.abspath(target))
    _check_folder(target)
    replacements = {NAME_TOKEN: name, CRATE_TOKEN: crate_name(name)}
    missing = [parent for parent in target.parents if not parent.exists()]  # made here, removed on failure
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    except OSError as error:
        _remove_empty(missing)
        raise KitError(f"cannot write {target}: {error.strerror or error}; choose another --dir") from None
    moved: list[Path] = []
    try:
        written = []
        for relative, source in files.items():
            text = source.read_text(encoding="utf-8")
            for token, value in replacements.items():
                text = text.replace(token, value)
            path = staging.joinpath(*relative.split("/"))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            mode = 0o755 if path.name in SCRIPTS else 0o644
            path.chmod(mode)
            written.append(target.joinpath(*relative.split("/")))
        for sub in [staging, *(p for p in staging.rglob("*") if p.is_dir())]:
            sub.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
        if target.is_dir():  # empty (checked): filled, not replaced, for it may be a shell's working folder
            _fill(staging, target, moved)
        else:
            os.replace(staging, target)
    except BaseException as error:
        shutil.rmtree(staging, ignore_errors=True)
        for path in moved:  # what a failure halfway through filling an empty folder had moved in
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        _remove_empty(missing)
        if isinstance(error, OSError):  # a full disk, a folder made read-only meanwhile: one line, not the staging path
            raise KitError(f"cannot write {target}: {error.strerror or error}; choose another --dir") from None
        raise
    return NewBot(name, language, target, tuple(written))


def _fill(staging: Path, target: Path, moved: list[Path]) -> None:
    """Move the kit's top-level entries from ``staging`` into the empty folder ``target`` (noting each in
    ``moved``), then remove ``staging``. Renaming ``staging`` over ``target`` would be atomic, but it would
    leave a shell whose working folder is ``target`` (``arena new-bot NAME --dir .``) in a deleted folder."""
    for entry in sorted(staging.iterdir()):
        os.replace(entry, target / entry.name)
        moved.append(target / entry.name)
    staging.rmdir()


def _remove_empty(folders: list[Path]) -> None:
    """Remove the parents ``new_bot`` made (deepest first) when they are still empty: a failure writes nothing."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return
