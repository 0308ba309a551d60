"""The plugin host: finds players (the built-ins through the same hook, entry points in the
``minesweeper_arena`` group, ``--plugin`` files), validates them, and records a plugin that fails
as a failure instead of failing: one broken plugin never takes the command line down."""

from __future__ import annotations

import abc
import contextlib
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import sys
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import pluggy
from pydantic import BaseModel

from players import hookspecs
from players.api import NAME_PATTERN, Player, PlayerError

__all__ = [
    "AliasError",
    "DuplicatePlayerError",
    "FailureKind",
    "PlayerEntry",
    "PlayerLookup",
    "PluginFailure",
    "PluginLoadError",
    "PluginNotFoundError",
    "Registry",
    "UnknownPlayerError",
    "plugin_entry",
    "plugin_path",
    "plugin_spec",
    "resolved_plugin",
]

BUILTIN_MODULE = "players.builtin"
#: How a ``--plugin`` file's players name their source: ``file PATH``, or ``file ALIAS=PATH`` for a player played
#: under an alias, so that the source is the ``--plugin`` value that plays it again (``arena errors``' replay
#: command); ``plugin_path`` of what follows is the file either way.
FILE_SOURCE = "file "


class DuplicatePlayerError(PlayerError):
    """Two plugins claim the same player name; leaderboards could not tell them apart."""

    def __init__(self, message: str, name: str = "") -> None:
        super().__init__(message)
        self.name = name


class PluginNotFoundError(PlayerError):
    """A ``--plugin`` file (or folder) that does not exist: a typo on the command line, not a broken plugin."""


class PluginLoadError(PlayerError):
    """A ``--plugin`` the user named that could not be imported or registered: the user asked for it,
    so playing on without it (and then calling its player unknown) would hide the cause."""


class UnknownPlayerError(PlayerError, LookupError):
    """A player name that no loaded plugin provides."""


class AliasError(PlayerError):
    """A ``--plugin ALIAS=PATH`` the arena refuses: an alias that is not a player name, one already taken, or a
    plugin of more than one player."""


def plugin_spec(text: str) -> tuple[str, str]:
    """``(alias, path)`` of a ``--plugin`` value: ``PATH``, or ``ALIAS=PATH`` to play the plugin's player under the
    name ``ALIAS`` (two versions of one bot side by side); alias "" for none. A path that exists is a path, even
    with an ``=`` in it. ``AliasError`` for an alias that is not a player name."""
    if "=" not in text or Path(text).expanduser().exists():
        return "", text
    alias, _, path = text.partition("=")
    if not NAME_PATTERN.match(alias):
        raise AliasError(
            f"--plugin {text!r}: the alias {alias!r} must be 1-64 lower-case letters, digits, '.', '_' or '-' "
            "starting with a letter or digit"
        )
    if not path:
        raise AliasError(f"--plugin {text!r}: ALIAS=PATH needs a path after the '='")
    return alias, path


def resolved_plugin(text: str) -> str:
    """A ``--plugin`` value with its path made absolute (for another process, in another folder), alias kept."""
    alias, path = plugin_spec(text)
    resolved = str(Path(path).expanduser().resolve())
    return f"{alias}={resolved}" if alias else resolved


def plugin_path(text: str) -> str:
    """The file of a ``--plugin`` value, without its alias."""
    return plugin_spec(text)[1]


@dataclass(frozen=True, slots=True)
class PlayerEntry:
    name: str
    cls: type[Player]
    description: str
    source: str
    version: str
    #: Where the player's code came from when ``source`` is a copy of it (a plugin read at a git revision into
    #: the arena's cache: ``file ALIAS=/repo/bots/my_bot.py@3f2a1bc4d5e6``): what a store records and shows; ""
    #: when ``source`` is the place itself.
    origin: str = ""

    def create(self, options: Mapping[str, Any] | None = None) -> Player:
        return self.cls(options)


#: ``error``: the plugin failed to import or register; ``missing``: a ``--plugin`` file that does not
#: exist; ``duplicate``: it registers a name another source has (``names``); ``discovery``: listing the
#: third-party players failed; ``engine``: an engine bot did not start; ``alias``: a ``--plugin ALIAS=PATH`` the
#: arena refuses (always an error: the user named that player).
FailureKind = Literal["error", "missing", "duplicate", "discovery", "engine", "alias"]


@dataclass(frozen=True, slots=True)
class PluginFailure:
    source: str
    error: str
    detail: str = ""
    kind: FailureKind = "error"
    #: For ``duplicate``: the player names that were taken already.
    names: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        """One line for a warning: what was skipped, and why."""
        if self.kind == "discovery":
            return f"third-party players skipped: {self.error}"
        subject = self.source if self.kind == "engine" else f"plugin {self.source}"
        return f"{subject} skipped: {self.error}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


class PlayerLookup(abc.ABC):
    """Lookup by name over a ``players`` mapping, shared by every kind of player catalogue."""

    @property
    @abc.abstractmethod
    def players(self) -> dict[str, PlayerEntry]:
        """Every player the catalogue offers, by name."""

    def get(self, name: str) -> PlayerEntry:
        players = self.players
        if name not in players:
            known = ", ".join(sorted(players)) or "none"
            raise UnknownPlayerError(f"unknown player {name!r}; registered players: {known}")
        return players[name]

    def create(self, name: str, options: Mapping[str, Any] | None = None) -> Player:
        return self.get(name).create(options)

    @property
    @abc.abstractmethod
    def failures(self) -> list[PluginFailure]:
        """The plugins (or bots) that were skipped, and why."""

    def check_requested(self, names: Iterable[str]) -> None:
        """Refuse the failures that would make a tournament of ``names`` play something else than
        asked (a missing ``--plugin`` file, one that cannot be loaded, a name taken twice); other
        failures (an installed plugin that is broken) stay warnings."""
        wanted = set(names)
        for failure in self.failures:
            message = failure.error.partition(": ")[2] or failure.error  # without the exception type
            if failure.kind == "missing":
                raise PluginNotFoundError(message)
            if failure.kind == "alias":
                raise AliasError(message)
            if failure.kind == "error" and failure.source.startswith(FILE_SOURCE):
                raise PluginLoadError(
                    f"plugin {failure.source.removeprefix(FILE_SOURCE)} cannot be loaded: {failure.error}"
                )
            taken = [name for name in failure.names if name in wanted]
            if failure.kind == "duplicate" and taken:
                raise DuplicatePlayerError(
                    f"{message}; rename the player in that plugin, or leave {taken[0]!r} out of --players", taken[0]
                )


class Registry(PlayerLookup):
    """Players by name, loaded lazily from every plugin source."""

    def __init__(self, plugin_files: Iterable[str | Path] = (), *, entry_points: bool = True) -> None:
        self.plugin_files = tuple(str(p) for p in plugin_files)
        self.use_entry_points = entry_points
        self._players: dict[str, PlayerEntry] | None = None
        self._failures: list[PluginFailure] = []
        self._manager = pluggy.PluginManager(hookspecs.PROJECT)
        self._manager.add_hookspecs(hookspecs)

    # -- loading --------------------------------------------------------------------------
    def load(self) -> Registry:
        if self._players is not None:
            return self
        self._players = {}
        self._load_module(BUILTIN_MODULE, "builtin", lambda: importlib.import_module(BUILTIN_MODULE))
        if self.use_entry_points:
            for ep in sorted(importlib.metadata.entry_points(group=hookspecs.PROJECT), key=lambda e: e.name):
                dist = ep.dist.name if ep.dist is not None else "unknown distribution"
                release = ep.dist.version if ep.dist is not None else ""
                self._load_module(f"entrypoint:{dist}:{ep.name}", f"package {dist} ({ep.value})", ep.load, release)
        for spec in self.plugin_files:
            try:
                alias, path = plugin_spec(spec)
            except AliasError as error:
                self._failures.append(PluginFailure(f"{FILE_SOURCE}{spec}", _first_line(error), kind="alias"))
                continue
            self._load_module(
                f"file:{spec}",
                f"{FILE_SOURCE}{alias}={path}" if alias else f"{FILE_SOURCE}{path}",
                lambda path=path, alias=alias: _import_file(path, alias),
                alias=alias,
            )
        return self

    def _load_module(self, plugin_name: str, source: str, importer: Any, release: str = "", alias: str = "") -> None:
        try:
            module = importer()
            if self._manager.is_registered(module):
                return
            self._manager.register(module, name=plugin_name)
            impls = [i for i in self._manager.hook.register_players.get_hookimpls() if i.plugin is module]
            if not impls:
                raise PlayerError("it defines no register_players hook (decorate it with @hookimpl)")
            for impl in impls:
                staged: list[PlayerEntry] = []

                def register(cls: Any, staged: list[PlayerEntry] = staged) -> None:
                    if alias and staged:
                        raise AliasError(
                            f"--plugin {source.removeprefix(FILE_SOURCE)}: an alias names one player, and this"
                            " plugin registers more than one"
                        )
                    staged.append(self._check(_renamed(cls, alias), source, staged, release))

                impl.function(register=register)
                for entry in staged:
                    self._players[entry.name] = entry  # type: ignore[index]
        except (Exception, SystemExit) as error:  # a plugin's failure is reported, never fatal
            kind: FailureKind = "error"
            names: tuple[str, ...] = ()
            if isinstance(error, PluginNotFoundError):
                kind = "missing"
            elif isinstance(error, AliasError) or (alias and isinstance(error, DuplicatePlayerError)):
                kind = "alias"
            elif isinstance(error, DuplicatePlayerError):
                kind, names = "duplicate", (error.name,)
            detail = traceback.format_exc(limit=-3)
            self._failures.append(PluginFailure(source, _first_line(error), detail, kind, names))

    def _check(self, cls: Any, source: str, staged: list[PlayerEntry], release: str = "") -> PlayerEntry:
        if not (inspect.isclass(cls) and issubclass(cls, Player)):
            raise PlayerError(f"register() takes a Player subclass, got {cls!r}")
        name = getattr(cls, "name", "")
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise PlayerError(
                f"{cls.__name__}.name must be 1-64 lower-case letters, digits, '.', '_' or '-' "
                f"starting with a letter or digit; got {name!r}"
            )
        if inspect.isabstract(cls):
            raise PlayerError(f"{cls.__name__} does not implement play(observation)")
        if not (inspect.isclass(cls.Options) and issubclass(cls.Options, BaseModel)):
            raise PlayerError(f"{cls.__name__}.Options must be a pydantic model")
        if cls.Options.model_config.get("extra") != "forbid":
            raise PlayerError(
                f"{cls.__name__}.Options must refuse unknown options: subclass Player.Options "
                "(or set model_config extra='forbid')"
            )
        assert self._players is not None
        clash = self._players.get(name) or next((e for e in staged if e.name == name), None)
        if clash is not None:
            raise DuplicatePlayerError(
                f"player name {name!r} from {source} is already registered by {clash.source}; "
                "player names must be unique",
                name,
            )
        description = (cls.description or (inspect.getdoc(cls) or "").split("\n")[0]).strip()
        return PlayerEntry(name, cls, description, source, _version(cls, release))

    # -- queries --------------------------------------------------------------------------
    @property
    def players(self) -> dict[str, PlayerEntry]:
        self.load()
        assert self._players is not None
        return dict(self._players)

    @property
    def failures(self) -> list[PluginFailure]:
        self.load()
        return list(self._failures)


def _version(cls: type[Player], release: str) -> str:
    """A player's version: its class's ``version``; for a player of an installed package (``release``: the
    package's version), the package's version when the class declares none, else both (``CLASS+PACKAGE``), so
    that a new release of the package is a new version of its players even when the class was not bumped."""
    own = str(getattr(cls, "version", Player.version))
    if not release:
        return own
    declared = any("version" in vars(k) for k in cls.__mro__ if k is not Player and issubclass(k, Player))
    return f"{own}+{release}" if declared else release


def _renamed(cls: Any, alias: str) -> Any:
    """``cls`` playing under the name ``alias`` (a subclass, so that the plugin's own class is left as it is)."""
    if not alias or not (inspect.isclass(cls) and issubclass(cls, Player)):
        return cls
    return type(cls.__name__, (cls,), {"name": alias, "__module__": cls.__module__, "__doc__": cls.__doc__})


def plugin_entry(path: str | Path) -> tuple[Path, bool]:
    """The file a ``--plugin`` names and whether it is a package: a file as it is; a folder through its
    ``__init__.py`` (a package: its modules import each other relatively) or else its ``bot.py``."""
    given = Path(path).expanduser()
    if given.is_dir():
        if (given / "__init__.py").is_file():
            return given / "__init__.py", True
        if (given / "bot.py").is_file():
            return given / "bot.py", False
        raise PluginNotFoundError(f"plugin folder {str(path)!r} has neither __init__.py nor bot.py")
    if not given.is_file():
        raise PluginNotFoundError(f"plugin file {str(path)!r} does not exist")
    return given, False


#: The folders of the file plugins imported in this process (their own modules are imported from there).
_plugin_folders: set[str] = set()
_PLUGIN_MODULE = "_arena_plugin_"


def _own_folder_first(folder: str) -> None:
    """Put a file plugin's ``folder`` first on ``sys.path``, and forget the modules of the names it holds
    (``helpers.py`` beside it) that were imported from beside another file plugin: two versions of one bot
    (``--plugin base=v1/my_bot.py --plugin cand=v2/my_bot.py``) each ``import helpers``, and each must get its own
    (the plugin that imported the other keeps it). Only those names: a plugin's folder may hold far more."""
    others = tuple(f.rstrip(os.sep) + os.sep for f in _plugin_folders if f != folder)
    if others:
        mine = _module_names(folder)
        own = folder.rstrip(os.sep) + os.sep
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if name.partition(".")[0] not in mine or name.startswith(_PLUGIN_MODULE) or not isinstance(file, str):
                continue
            real = os.path.realpath(file)
            if real.startswith(others) and not real.startswith(own):
                del sys.modules[name]
    with contextlib.suppress(ValueError):
        sys.path.remove(folder)
    sys.path.insert(0, folder)
    _plugin_folders.add(folder)


def _module_names(folder: str) -> set[str]:
    """The top-level module names a folder on ``sys.path`` offers: its modules' and its packages' names."""
    names = set()
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            stem, _, suffix = entry.name.partition(".")
            if stem.isidentifier() and (suffix in ("py", "pyc") or suffix.endswith(("so", "pyd")) or entry.is_dir()):
                names.add(stem)
    return names


def _import_file(path: str, alias: str = "") -> ModuleType:
    """Import a local plugin (a file, or a folder: ``plugin_entry``) under a name unique to its path (and
    alias), so two plugins may share a name and one plugin may play under two aliases. As for a script, the
    plugin's folder goes on ``sys.path``, so that a bot of several files imports its own modules (``import
    helpers`` beside ``my_bot.py``)."""
    file, package = plugin_entry(path)
    resolved = file.resolve()
    stem = resolved.parent.name if package else resolved.stem
    key = f"{alias}={resolved}" if alias else str(resolved)
    digest = hashlib.sha1(key.encode()).hexdigest()[:10]
    module_name = f"{_PLUGIN_MODULE}{stem}_{digest}".replace("-", "_").replace(".", "_")
    if module_name in sys.modules:
        return sys.modules[module_name]
    locations = [str(resolved.parent)] if package else None
    spec = importlib.util.spec_from_file_location(module_name, resolved, submodule_search_locations=locations)
    if spec is None or spec.loader is None:
        raise PlayerError(f"plugin {path!r} is not a Python module")
    if not package:
        _own_folder_first(str(resolved.parent))
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module
