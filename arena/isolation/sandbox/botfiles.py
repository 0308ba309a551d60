"""What a sandboxed bot sees of the filesystem: its own folder, the program its command starts, and
never the arena's files.

A bot is a folder more often than a file: a plugin imports its helpers from beside it, a Java bot
loads its classes from a folder, a starter kit's ``run.sh`` starts the program built beside it. So the
sandbox (``arena.isolation.sandbox.bubblewrap``) shows a bot its folder, read-only. The arena's own files stay
hidden even inside that folder (a plugin beside ``arena.db`` in one working folder is the common
case): the results stores this machine's arena uses, with their journals and recovery copies, and
the arena's data and cache folders. A folder that holds one of them is shown entry by entry as it was
when the bot started, without them (so a journal or a recovery copy written later never shows either).

The program an engine bot's command starts must run in the sandbox too: a version manager's shim
(pyenv's ``python3``) is a script that runs the manager, whose installation the sandbox does not
show. The shim is resolved here, as the manager would resolve it in the arena's folder, and the real
interpreter's installation is shown instead (its folder first on the bot's ``PATH``); a shim that
cannot be resolved is a one-line error saying how to name the interpreter. What a bot sees, in full:
docs/isolation.md.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.paths import protected_folders, protected_paths, revisions_dir, shell_builds_dir

__all__ = [
    "MAX_SPLIT",
    "Hidden",
    "Program",
    "ProgramError",
    "broad_folder",
    "engine_bot_folder",
    "hidden",
    "is_arena_store",
    "plugin_folder",
    "resolve_program",
    "view",
]

#: The SQLite header and the application id that marks a results store (``arena.results.guard``).
_SQLITE = b"SQLite format 3\x00"
_APPLICATION_ID = (0x4D534152).to_bytes(4, "big")
#: A store's companions: SQLite's journals, and the copies the arena saves when it loses the store.
_COMPANIONS = ("-wal", "-shm", "-journal")
_RECOVERED = ".recovered-"
#: Folders that are never a bot's folder, whole: they hold far more than one bot.
_SYSTEM = frozenset(
    [
        *("/", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/var", "/tmp", "/opt", "/srv", "/proc", "/sys"),
        *("/dev", "/run", "/boot", "/mnt", "/media", "/home", "/root", "/usr/bin", "/usr/local", "/usr/local/bin"),
        "/var/tmp",
    ]
)
#: Entries of a folder shown one by one at most; a larger folder that holds an arena file is shown
#: whole with the arena's files there covered (files written later there would show).
MAX_SPLIT = 2000
#: How long a version manager may take to say which program its shim runs.
_RESOLVE_TIME = 20.0
#: A version manager's shim: ``exec "<root>/libexec/pyenv" exec "$program"`` (pyenv, rbenv, nodenv,
#: goenv...) or ``exec <...>/asdf exec ...``.
_ENV_SHIM = re.compile(r'exec\s+"?([^"\s]+/libexec/([a-z]+env))"?\s+exec\b')
_ASDF_SHIM = re.compile(r'exec\s+"?([^"\s]*\basdf)"?\s+exec\b')
_EXPORT = re.compile(r'^\s*export\s+([A-Z_]+_ROOT)="([^"]*)"', re.MULTILINE)


def is_arena_store(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a results store of the arena's (an SQLite file with its application id)."""
    try:
        with open(path, "rb") as file:
            header = file.read(72)
    except OSError:
        return False
    return header.startswith(_SQLITE) and header[68:72] == _APPLICATION_ID


@dataclass(frozen=True)
class Hidden:
    """The arena's files a bot never sees: results stores (each with its companions, whether they
    exist yet or not) and whole folders."""

    stores: frozenset[str] = frozenset()
    folders: frozenset[str] = frozenset()
    #: Folders inside a hidden folder whose contents are bots' own files, which a bot may be shown: the plugins
    #: the arena read at a git revision (``arena.paths.revisions_dir``) and the course-shell agents it built
    #: (``arena.paths.shell_builds_dir``). Only a bot's own folder there is shown.
    bots: frozenset[str] = frozenset()

    def covers(self, path: str) -> bool:
        """Whether ``path`` (absolute, resolved) is one of the hidden files or inside a hidden folder (and not a
        bot's folder in ``bots``)."""
        if any(path.startswith(f.rstrip("/") + "/") for f in self.bots):
            return False
        if any(path == f or path.startswith(f.rstrip("/") + "/") for f in self.folders):
            return True
        parent, name = os.path.split(path)
        for store in self.stores:
            folder, base = os.path.split(store)
            if folder == parent and (
                name == base or name in {base + c for c in _COMPANIONS} or name.startswith(base + _RECOVERED)
            ):
                return True
        return False

    def inside(self, folder: str) -> bool:
        """Whether anything hidden lies inside ``folder`` (or is it)."""
        prefix = folder.rstrip("/") + "/"
        return any(p == folder or p.startswith(prefix) for p in (*self.stores, *self.folders))

    def with_stores_in(self, folder: str) -> Hidden:
        """Also the results stores found in ``folder`` itself (by their content, whatever their name)."""
        found = set()
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.is_file(follow_symlinks=False) and is_arena_store(entry.path):
                        found.add(os.path.realpath(entry.path))
        return Hidden(self.stores | found, self.folders, self.bots) if found else self


def _resolved(path: str | os.PathLike[str]) -> str:
    """``path`` absolute with its folder's symlinks resolved (the file itself need not exist)."""
    absolute = os.path.abspath(os.fspath(path))
    return os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))


def hidden(extra_stores: Iterable[str | os.PathLike[str]] = ()) -> Hidden:
    """The arena's files on this machine: the stores it uses (``arena.paths.protected_paths``: the one
    in use, the default one) and its data and cache folders."""
    stores = {_resolved(p) for p in [*protected_paths(), *extra_stores]}
    folders = {os.path.realpath(p) for p in protected_folders()}
    bots = [os.path.realpath(revisions_dir()), os.path.realpath(shell_builds_dir())]
    return Hidden(frozenset(stores), frozenset(folders), frozenset(bots))


def view(paths: Sequence[str], secret: Hidden) -> list[str]:
    """bwrap options that show ``paths`` (absolute, existing, none inside another) read-only, less
    ``secret``: a path is shown whole unless something hidden lies inside it, in which case it is
    shown entry by entry (recursively where needed), as it is now."""
    options: list[str] = []
    for path in paths:
        _show(path, secret, options, top=True)
    return options


def _show(path: str, secret: Hidden, options: list[str], *, top: bool = False) -> None:
    real = os.path.realpath(path)
    if secret.covers(path) or secret.covers(real):
        return
    if os.path.islink(path) and not top:
        options += ["--symlink", os.readlink(path), path]
        return
    if not os.path.isdir(path):
        if os.path.isfile(path) or top:
            options += ["--ro-bind", path, path]
        return  # sockets, pipes and devices of a folder are not a bot's business
    secret = secret.with_stores_in(path)
    if not secret.inside(real) and not secret.inside(path):
        options += ["--ro-bind", path, path]
        return
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return
    if len(names) > MAX_SPLIT:
        options += ["--ro-bind", path, path]
        for name in names:  # cover what exists now with an empty file
            child = os.path.join(path, name)
            if secret.covers(child) and os.path.isfile(child):
                options += ["--ro-bind", "/dev/null", child]
        return
    # A folder of its own (read-only once filled, even under the private /tmp), with the entries in it.
    options += ["--tmpfs", path]
    for name in names:
        _show(os.path.join(path, name), secret, options)
    options += ["--remount-ro", path]


def broad_folder(folder: str | os.PathLike[str]) -> str | None:
    """Why ``folder`` is too much to show a bot whole (the root, a system folder, the home folder or
    one above it, a folder that holds the arena's own data), or None when it may be a bot's folder."""
    real = os.path.realpath(folder)
    home = os.path.realpath(os.path.expanduser("~"))
    if real == home or home.startswith(real.rstrip("/") + "/"):
        return f"{real} is the home folder" if real == home else f"{real} holds the home folder"
    if real in _SYSTEM:
        return f"{real} is a system folder"
    for own in protected_folders():
        mine = os.path.realpath(own)
        if mine == real or mine.startswith(real.rstrip("/") + "/"):
            return f"{real} holds the arena's own files ({mine})"
    return None


def plugin_folder(plugin: str | os.PathLike[str]) -> Path:
    """A ``--plugin``'s folder: the file's, or the folder itself for ``--plugin DIR``."""
    path = Path(plugin).expanduser().resolve()
    return path if path.is_dir() else path.parent


def engine_bot_folder(command: Sequence[str], cwd: str, named: str | None = None) -> Path | None:
    """An engine bot's folder: the one named (``--bot-dir``), else the folder of the program its command
    starts when the command names it by a path (``./run.sh``, ``bots/x/run.sh``), else the folder of
    the first file among its arguments (``python3 bot.py``, ``node dist/bot.js``), else none."""
    if named:
        return Path(cwd, os.path.expanduser(named)).resolve()
    if not command:
        return None
    arguments = [arg for arg in command[1:] if arg and not arg.startswith("-")]
    if "/" in command[0]:
        program = Path(cwd, os.path.expanduser(command[0]))
        if not program.is_file():
            return None  # a program named by a path that is not there: the start will say so
        if not _installed(program) or not any(Path(cwd, os.path.expanduser(a)).is_file() for a in arguments):
            return program.resolve().parent
    for arg in arguments:
        path = Path(cwd, os.path.expanduser(arg))
        if path.is_file():
            return path.resolve().parent
    return None


def _installed(program: Path) -> bool:
    """Whether ``program`` is an installed interpreter or tool (``/usr/bin/python3``, a virtualenv's
    ``bin/python``, a version manager's ``.../bin/node``) rather than a bot's own program: it lies in a
    ``bin`` folder, as named or once its links are followed. Its arguments then name the bot's files."""
    return any(folder.name == "bin" or str(folder) in _SYSTEM for folder in (program.parent, program.resolve().parent))


class ProgramError(Exception):
    """The program an engine bot's command starts cannot run in the sandbox, and why, in one line."""


@dataclass
class Program:
    """What running a command's program in the sandbox needs: files to show, and folders to put first
    on its ``PATH`` (a shim's real program, found before the shim)."""

    readable: list[str] = field(default_factory=list)
    path_first: list[str] = field(default_factory=list)


def _head(path: str) -> str:
    """The start of a script (its text), or '' for a binary or an unreadable file."""
    try:
        with open(path, "rb") as file:
            data = file.read(4096)
    except OSError:
        return ""
    if not data.startswith(b"#!"):
        return ""
    return data.decode("utf-8", "replace")


def _shebang(text: str) -> list[str]:
    return text.splitlines()[0][2:].split() if text else []


def _installation(program: str) -> str | None:
    """The folder a real program from a version manager or a virtualenv lives in (``<prefix>/bin/x``:
    ``<prefix>``), which it needs at run time (its standard library), when that is not a system folder."""
    folder = os.path.dirname(program)
    if os.path.basename(folder) != "bin":
        return None
    prefix = os.path.dirname(folder)
    return None if prefix in _SYSTEM or broad_folder(prefix) else prefix


def _shim_manager(text: str) -> list[str] | None:
    """The command that asks a shim's version manager which program it runs, or None (not a shim)."""
    for pattern in (_ENV_SHIM, _ASDF_SHIM):
        match = pattern.search(text)
        if match:
            return [match.group(1), "which"]
    return None


@functools.cache
def _which_of_manager(ask: tuple[str, ...], environment: tuple[tuple[str, str], ...], cwd: str) -> str:
    """The manager's answer, once per question, folder and environment (a worker asks for every bot
    process it starts)."""
    env = dict(environment)
    done = subprocess.run(list(ask), capture_output=True, text=True, cwd=cwd, env=env, timeout=_RESOLVE_TIME)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines or not os.path.isfile(lines[-1]):
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise ProgramError(why)
    return lines[-1]


def resolve_program(command: Sequence[str], cwd: str, path: str | None = None) -> Program:
    """What the sandbox needs to show for ``command``'s program to start as it does outside: the
    program found on ``path`` as the sandbox will find it, its symlinks, the interpreter of a script
    (``#!``, ``/usr/bin/env NAME`` looked up in turn), and for a version manager's shim the real
    program it runs (resolved by the manager in ``cwd``) with its installation. Raises
    ``ProgramError`` when a shim cannot be resolved."""
    search = path if path is not None else os.environ.get("PATH", os.defpath)
    program = Program()
    _resolve(command[0] if command else "", cwd, search, program, depth=0)
    return program


def _resolve(name: str, cwd: str, search: str, program: Program, depth: int) -> None:
    if not name or depth > 4:
        return
    found = os.path.join(cwd, name) if "/" in name else shutil.which(name, path=search)
    if not found or not os.path.exists(found):
        return  # the start says "cannot run"
    real = os.path.realpath(found)
    program.readable += [found, real]
    text = _head(real)
    ask = _shim_manager(text)
    if ask is not None:
        base = os.path.basename(found)
        roots = tuple(sorted(_EXPORT.findall(text)))
        asked = " ".join([os.path.basename(ask[0]), "which", base])
        try:
            environment = {**os.environ, **dict(roots), "PATH": search}
            target = _which_of_manager((*ask, base), tuple(sorted(environment.items())), cwd)
        except (ProgramError, OSError, subprocess.SubprocessError) as error:
            raise ProgramError(
                f"{name} is a version manager's shim ({found}), which cannot run in the sandbox, and "
                f"`{asked}` did not say which program it runs ({error}); name the program by its full "
                f"path instead (the path `{asked}` prints)"
            ) from None
        target_real = os.path.realpath(target)
        program.readable += [target, target_real]
        program.readable += [i for i in {_installation(target), _installation(target_real)} if i]
        program.path_first.append(os.path.dirname(target))
        return
    words = _shebang(text)
    if not words:
        with contextlib.suppress(IndexError):  # a virtualenv's interpreter needs its virtualenv
            if os.path.isfile(os.path.join(os.path.dirname(os.path.dirname(found)), "pyvenv.cfg")):
                program.readable.append(os.path.dirname(os.path.dirname(found)))
        return
    if os.path.basename(words[0]) == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        _resolve(rest[0] if rest else "", cwd, search, program, depth + 1)
    else:
        _resolve(words[0], cwd, search, program, depth + 1)
