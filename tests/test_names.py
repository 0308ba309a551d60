"""One meaning per name (issue 25): a public function or class name is defined in one module of ``arena/``, so
that ``split_boards`` or ``decode_moves`` means one thing wherever it is read. The names below stand in several
modules on purpose, each for the same role in its own room; a new one is a rename, or a reason added here.

Read from the source (``ast``), not by importing; the kits' templates (an author's code, not the arena's) are
left out.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
#: Names several modules define, and why that is one meaning.
SHARED = {
    "command": "each arena/cli/ module's one command (arena.cli registers them by module)",
    "main": "the entry point of each program the arena starts: the CLI, the bot host, the sandbox launcher",
    "build": "running a kit's build.sh: for one folder (arena.kits) and for a competition's entrants",
    "discover": "listing the players plugins offer: for a tournament and for a competition's entrants",
    "games_page": "a page of a player's games: its data (arena.web.games_data) and its page (arena.web.player_pages)",
    "to_markdown": "a leaderboard as markdown, and a competition's results (its leaderboard and entrants)",
    "Action": "the course shell's action (arena/isolation/myai/Action.py: the shell fixes the name its agents import)"
    " and what `arena entrant` does",
}


def _definitions() -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted((ROOT / "arena").rglob("*.py")):
        if "templates" in path.relative_to(ROOT).parts:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and not node.name.startswith(
                "_"
            ):
                found[node.name].append(path.relative_to(ROOT).as_posix())
    return found


@pytest.mark.slow
def test_a_public_name_is_defined_once_in_the_arena() -> None:
    definitions = _definitions()
    assert len(definitions) >= 400, f"only {len(definitions)} public names found: has arena/ moved?"
    twice = {name: where for name, where in definitions.items() if len(where) > 1 and name not in SHARED}
    assert not twice, f"one name, several definitions (rename, or say why in SHARED): {twice}"
    assert all(len(definitions[name]) > 1 for name in SHARED), "a SHARED name is now defined once: remove it"
