"""The three layers (docs/architecture.md): engine <- players <- arena, no upward import, no import circle
(between modules, nor between arena's families), and an ``arena/`` whose top level stays short.

Read from the source (``ast``), not by importing. Every ``import`` counts, at module level, inside a
function (a deferred import is still a dependency) or under ``if TYPE_CHECKING:`` (a type a module
names is a dependency of its reader, and a circle there is one a refactoring trips over).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
LAYERS = {"engine": 0, "players": 1, "arena": 2}
#: arena's families (docs/architecture.md): a folder each.
FAMILIES = (
    "arena.play",
    "arena.results",
    "arena.analysis",
    "arena.experiments",
    "arena.isolation",
    "arena.web",
    "arena.cli",
    "arena.kits",
    "arena.competition",
    "arena.host",
)
#: How many modules arena's top level may hold besides ``__init__.py`` (the shared vocabulary).
TOP_LEVEL_MODULES = 6


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in LAYERS for p in sorted((ROOT / package).rglob("*.py"))}


def _imports(path: Path, name: str) -> set[str]:
    """The project modules ``path`` imports (``from a.b import c`` counts as ``a.b`` and ``a.b.c``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {m for m in found if m.split(".")[0] in LAYERS}


@pytest.mark.parametrize("name", sorted(_modules()))
def test_no_module_imports_a_layer_above_its_own(name: str) -> None:
    modules = _modules()
    layer = LAYERS[name.split(".")[0]]
    upward = sorted(m for m in _imports(modules[name], name) if LAYERS[m.split(".")[0]] > layer)
    assert not upward, f"{name} imports {upward}"


def _graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports. A package's ``__init__`` importing its own submodules is
    how packages work: a module's edges to the packages that contain it (which Python has already
    started importing) are left out."""
    modules = _modules()
    graph = {name: {m for m in _imports(path, name) if m in modules and m != name} for name, path in modules.items()}
    return {name: {t for t in targets if not name.startswith(t + ".")} for name, targets in graph.items()}


def test_every_layer_is_examined() -> None:
    """The parametrized test above passes vacuously on an empty list: the walk finds every layer."""
    modules = _modules()
    counts = {layer: sum(1 for name in modules if name.split(".")[0] == layer) for layer in LAYERS}
    assert counts["engine"] >= 8 and counts["players"] >= 20 and counts["arena"] >= 50, counts


def test_no_import_circle() -> None:
    graph = _graph()
    edges = sum(len(targets) for targets in graph.values())
    assert len(graph) >= 90 and edges >= 300, f"only {len(graph)} modules and {edges} imports examined"
    circles = _cycles(graph)
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)


def _family(name: str) -> str:
    """The family a module belongs to: engine and players as wholes, arena's subpackages, and each of
    arena's top-level modules (and ``arena`` itself) on its own."""
    parts = name.split(".")
    if parts[0] != "arena":
        return parts[0]
    if len(parts) >= 2 and (ROOT / "arena" / parts[1]).is_dir():
        return f"arena.{parts[1]}"
    return name


def test_no_import_circle_between_families() -> None:
    """A family that imports another must not be imported back by it, through any path: otherwise
    the folders are not rooms but one room with walls drawn in."""
    families: dict[str, set[str]] = {}
    for name, targets in _graph().items():
        families.setdefault(_family(name), set()).update(_family(t) for t in targets)
    graph = {family: targets - {family} for family, targets in families.items()}
    edges = sum(len(targets) for targets in graph.values())
    assert set(FAMILIES) | {"engine", "players"} <= set(graph), sorted(graph)
    assert edges >= 20, f"only {edges} imports between {len(graph)} families examined"
    circles = _cycles(graph)
    assert not circles, "import circles between families: " + "; ".join(" -> ".join(c) for c in circles)


def test_arena_top_level_is_short() -> None:
    """From the folder listing alone a newcomer finds where a thing lives: at most six modules stand
    at arena's top level besides ``__init__.py``, everything else is in a family's folder."""
    top = sorted(p.name for p in (ROOT / "arena").glob("*.py") if p.name != "__init__.py")
    folders = sorted(p.name for p in (ROOT / "arena").iterdir() if (p / "__init__.py").is_file())
    assert top and folders, "arena/ not found"
    assert len(top) <= TOP_LEVEL_MODULES, f"{len(top)} modules at arena/'s top level: {top}"
    assert sorted(f"arena.{f}" for f in folders) == sorted(FAMILIES), folders


def test_the_records_codec_depends_on_the_engine_only() -> None:
    """A stored game's moves are read back by anything that reads the store (pages, replays, exports): the
    codec must not drag the arena (or the players) in with it."""
    name = "arena.results.records"
    found = _imports(_modules()[name], name)
    assert found and all(m.split(".")[0] == "engine" for m in found), sorted(found)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found
