"""The three layers and the arena's families (docs/architecture.md): engine <- players <- arena, no upward
import, no import circle between modules, and between the arena's families only the arrows the page's table
allows. An ``arena/`` whose top level stays short.

Read from the source (``ast``), not by importing. Every ``import`` counts, at module level, inside a
function (a deferred import is still a dependency) or under ``if TYPE_CHECKING:`` (a type a module
names is a dependency of its reader, and a circle there is one a refactoring trips over).
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "architecture.md"
LAYERS = {"engine": 0, "players": 1, "arena": 2}
#: How many modules arena's top level may hold besides ``__init__.py`` (the shared vocabulary).
TOP_LEVEL_MODULES = 6
#: The heading of the page's section whose table lists the arrows.
ARROWS_HEADING = "### Which family may import which"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in LAYERS for p in sorted((ROOT / package).rglob("*.py"))}


def _import_sites(path: Path, name: str) -> list[tuple[int, str]]:
    """(line, module) for each project module ``path`` imports (``from a.b import c`` counts as ``a.b``
    and ``a.b.c``: ``c`` may be a module or a name in ``a.b``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return [(line, m) for line, m in found if m.split(".")[0] in LAYERS]


def _imports(path: Path, name: str) -> set[str]:
    """The project modules ``path`` imports."""
    return {m for _, m in _import_sites(path, name)}


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


@pytest.mark.slow
def test_no_import_circle() -> None:
    graph = _graph()
    edges = sum(len(targets) for targets in graph.values())
    assert len(graph) >= 90 and edges >= 300, f"only {len(graph)} modules and {edges} imports examined"
    circles = _cycles(graph)
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)


# -- the arena's families and the arrows between them -----------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """A row of the page's table: a family's name, where its modules live and the families it may import."""

    name: str
    where: str  # a folder (``arena/play/``), the top level's modules (``arena/*.py``) or one file
    imports: frozenset[str]

    def holds(self, module: str) -> bool:
        path = module.replace(".", "/")
        if self.where == "arena/*.py":
            return module.count(".") == 1 and not (ROOT / path).is_dir()
        if self.where.endswith("/"):
            return (path + "/").startswith(self.where)
        return self.where in (path + ".py", path + "/__init__.py")


_CELL_CODE = re.compile(r"`([^`]+)`")


def _table(text: str) -> list[Family]:
    """The arrows table under ``ARROWS_HEADING``: ``| family | where | may import |``, a comma list of
    families (``-`` for none) in the last cell."""
    _, found, section = text.partition(ARROWS_HEADING)
    assert found, f"docs/architecture.md has no section {ARROWS_HEADING!r}"
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = list(itertools.takewhile(lambda line: line.startswith("|"), lines[start:]))
    families = []
    for row in rows[2:]:
        name, where, imports = (cell.strip() for cell in row.strip("|").split("|"))
        (folder,) = _CELL_CODE.findall(where)
        allowed = frozenset(part.strip().strip("`") for part in imports.split(",")) - {"-", ""}
        families.append(Family(name.strip("`"), folder, allowed))
    return families


def _families() -> list[Family]:
    return _table(DOC.read_text(encoding="utf-8"))


def _family_of(module: str, families: list[Family]) -> Family | None:
    """The family that holds ``module``: the row with the longest place (a room inside its family's folder)."""
    holders = [f for f in families if f.holds(module)]
    return max(holders, key=lambda f: len(f.where), default=None)


def _violations(modules: dict[str, Path], families: list[Family]) -> tuple[list[str], int]:
    """Each import from one family into another that the table does not allow, as ``file:line: ...``, and
    how many imports between families were examined. The lower layers (engine, players) are open to every
    family: the layer rule holds them."""
    found, examined = [], 0
    for name, path in sorted(modules.items()):
        if not name.startswith("arena"):
            continue
        source = _family_of(name, families)
        assert source is not None, f"{name} lies in no family of docs/architecture.md's table: add its row"
        for line, target in sorted(set(_import_sites(path, name))):
            if not target.startswith("arena") or target not in modules:
                continue
            into = _family_of(target, families)
            if into is None or into == source or name.startswith(target + "."):
                continue
            examined += 1
            if into.name not in source.imports:
                where = (path.relative_to(ROOT) if path.is_relative_to(ROOT) else path).as_posix()
                found.append(
                    f"{where}:{line}: imports {target}: needs the arrow {source.name} -> {into.name} "
                    "in docs/architecture.md's table (or the import goes)"
                )
    return found, examined


def test_every_arena_module_is_in_a_family_and_the_table_names_real_families() -> None:
    families = _families()
    names = {f.name for f in families}
    assert len(families) >= 10, f"only {len(families)} rows read from the table: has its format changed?"
    unknown = sorted({target for f in families for target in f.imports} - names)
    assert not unknown, f"the table's arrows name families it has no row for: {unknown}"
    missing = [f.where for f in families if f.where != "arena/*.py" and not (ROOT / f.where).exists()]
    assert not missing, f"the table places families where nothing is: {missing}"
    modules = [m for m in _modules() if m.startswith("arena")]
    homeless = [m for m in modules if _family_of(m, families) is None]
    assert not homeless, f"modules in no family of the table (a new family adds its row): {homeless}"


def test_every_import_between_families_is_an_arrow_of_the_table() -> None:
    found, examined = _violations(_modules(), _families())
    assert examined >= 150, f"only {examined} imports between families examined"
    assert not found, "imports the table does not allow:\n" + "\n".join(found)


def test_an_import_the_table_does_not_allow_is_reported_with_its_file_line_and_arrow(tmp_path: Path) -> None:
    """The check above is not vacuous: the results store importing the game loop is caught where it is."""
    modules = _modules()
    store = tmp_path / "store.py"
    store.write_text("from __future__ import annotations\n\n\nfrom arena.play.runner import play_game\n")
    found, examined = _violations(
        {"arena.results.store": store, "arena.play.runner": modules["arena.play.runner"]}, _families()
    )
    assert examined == 1 and len(found) == 1, found
    assert found[0].startswith(f"{store.as_posix()}:4: imports arena.play.runner: "), found[0]
    assert "needs the arrow results -> play in docs/architecture.md" in found[0], found[0]


def test_the_table_has_no_circle() -> None:
    """A family that imports another must not be imported back by it, through any path: otherwise the
    folders are not rooms but one room with walls drawn in."""
    families = _families()
    graph = {f.name: set(f.imports) for f in families}
    assert sum(len(targets) for targets in graph.values()) >= 20, graph
    circles = _cycles(graph)
    assert not circles, "circles in docs/architecture.md's arrows: " + "; ".join(" -> ".join(c) for c in circles)


def test_arena_top_level_is_short() -> None:
    """From the folder listing alone a newcomer finds where a thing lives: at most six modules stand
    at arena's top level besides ``__init__.py``, everything else is in a family's folder, and every
    folder is a family of the table."""
    top = sorted(p.name for p in (ROOT / "arena").glob("*.py") if p.name != "__init__.py")
    folders = sorted(f"arena/{p.name}/" for p in (ROOT / "arena").iterdir() if (p / "__init__.py").is_file())
    assert top and folders, "arena/ not found"
    assert len(top) <= TOP_LEVEL_MODULES, f"{len(top)} modules at arena/'s top level: {top}"
    places = {f.where for f in _families()}
    assert set(folders) <= places, f"folders with no row in the table: {sorted(set(folders) - places)}"


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
        for target in sorted(graph.get(node, ())):
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
