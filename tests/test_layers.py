"""The three layers (docs/architecture.md): engine <- players <- arena, no upward import, no import circle.

Read from the source (``ast``), not by importing. Every ``import`` that can run counts, at module level
or inside a function (a deferred import is still a dependency); only ``if TYPE_CHECKING:`` blocks are
left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
LAYERS = {"engine": 0, "players": 1, "arena": 2}


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
    for node in _runtime_nodes(ast.parse(path.read_text())):
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


def _runtime_nodes(node: ast.AST) -> list[ast.AST]:
    """Every node that can run, wherever it sits (functions included), but not ``if TYPE_CHECKING:``."""
    out: list[ast.AST] = [node]
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            out += [n for stmt in child.orelse for n in _runtime_nodes(stmt)]
            continue
        out += _runtime_nodes(child)
    return out


@pytest.mark.parametrize("name", sorted(_modules()))
def test_no_module_imports_a_layer_above_its_own(name: str) -> None:
    modules = _modules()
    layer = LAYERS[name.split(".")[0]]
    upward = sorted(m for m in _imports(modules[name], name) if LAYERS[m.split(".")[0]] > layer)
    assert not upward, f"{name} imports {upward}"


def test_no_import_circle() -> None:
    modules = _modules()
    graph = {name: {m for m in _imports(path, name) if m in modules and m != name} for name, path in modules.items()}
    # A package's __init__ importing its own submodules is how packages work: drop a module's edges
    # to the packages that contain it, which Python has already started importing.
    for name, targets in graph.items():
        graph[name] = {t for t in targets if not name.startswith(t + ".")}
    circles = _cycles(graph)
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)


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
