"""docs/architecture.md stays true: every path it cites exists, every code name it cites is defined in the
project, and its front-door example runs."""

from __future__ import annotations

import ast
import builtins
import importlib
import re
import typing
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = ("engine", "players", "arena")

#: Inline code spans outside fenced blocks.
_SPAN = re.compile(r"`([^`\n]+)`")
_PATH = re.compile(r"^[\w./-]+\.(py|md)$|^[\w.-]+/[\w./-]*$")
_NAME = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*(\(\))?$")


def _lines() -> list[str]:
    return re.sub(r"```.*?```", "", DOC.read_text(encoding="utf-8"), flags=re.S).splitlines()


def _spans() -> list[str]:
    return [span for line in _lines() for span in _SPAN.findall(line)]


def _resolve(dotted: str) -> bool:
    """Whether ``a.b.c`` names something: the longest prefix that imports, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                target = getattr(target, part)
        except AttributeError:
            return False
        return True
    return False


def _defined_names() -> set[str]:
    """Every module, class, function, method, constant and attribute name the project's packages define."""
    names: set[str] = set(dir(builtins)) | set(dir(typing))
    for package in (*PACKAGES, "tests"):
        for path in (ROOT / package).rglob("*.py"):
            names.update(path.relative_to(ROOT).with_suffix("").parts)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(node.name)
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names.update(t.id for t in targets if isinstance(t, ast.Name))
                    names.update(t.attr for t in targets if isinstance(t, ast.Attribute))
    return names


def test_every_path_the_page_cites_exists() -> None:
    """A path is the repository's, a doc beside this one, or, in a row of the rooms table, the row's folder's."""
    paths, missing = [], []
    for line in _lines():
        spans = _SPAN.findall(line)
        folder = ROOT / spans[0] if line.startswith("| `") and spans and spans[0].endswith("/") else ROOT
        for path in (s for s in spans if _PATH.match(s) and "NAME" not in s):
            paths.append(path)
            if not any((base / path).exists() for base in (ROOT, DOC.parent, folder)):
                missing.append(path)
    assert not missing, f"docs/architecture.md cites paths that do not exist: {missing}"
    assert len(paths) >= 40, f"only {len(paths)} paths found: has the page's format changed?"


@pytest.mark.slow
def test_every_code_name_the_page_cites_is_defined() -> None:
    defined = _defined_names()
    names = [s.removesuffix("()") for s in _spans() if _NAME.match(s) and not _PATH.match(s)]
    checked, missing = 0, []
    for name in names:
        parts = name.split(".")
        if (parts[0] not in defined and len(parts) > 1) or parts[0] in PACKAGES:  # a module path: it must resolve
            checked += 1
            missing += [] if _resolve(name) else [name]
            continue
        if not any(c == "_" or c.isupper() for c in name) and "." not in name:
            continue  # a plain word (a table, a column, an outcome): not a code name
        checked += 1
        missing += [name] if not all(part in defined for part in parts) else []
    assert not missing, f"docs/architecture.md cites names the project does not define: {missing}"
    assert checked >= 40, f"only {checked} names checked: has the page's format changed?"


def test_the_front_door_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    example = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert example is not None
    monkeypatch.chdir(tmp_path)
    exec(compile(example.group(1), "architecture.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("1 ") and lines[1].startswith("2 ")
    assert (tmp_path / "results.db").is_file()


def test_the_front_door_exports_what_it_lists() -> None:
    import arena

    for name in arena.__all__:
        assert getattr(arena, name) is not None
    assert sorted(arena.__all__) == sorted(arena._HOMES) and len(arena.__all__) >= 15
    with pytest.raises(AttributeError):
        arena.no_such_name  # noqa: B018
