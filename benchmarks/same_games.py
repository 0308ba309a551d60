"""One hash of every built-in player's games: the check that a refactoring changed no game.

Every built-in player (default options) plays the same boards on each difficulty and first-click
rule; each game contributes its outcome and every move it played (kind, cell, guess mark), in
order. The SHA-256 of all of them is the figure: equal before and after a change means every
player played exactly the same games. The notes and probabilities a player attaches to its moves
are left out (floating-point sums may change their last digit without changing a move).

``tests/players/test_same_games.py`` holds a small slice of it to a stored hash on every run.

    python benchmarks/same_games.py [--boards 300]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

from arena.play.runner import play_game
from arena.results.records import decode
from engine import PRESETS, FirstClick
from players.registry import Registry

RESULTS = Path(__file__).parent / "results" / "same_games.json"
SEED = 20261126
#: The rules the hash is of, named so that a rule added later (``zero``, the arena's opening click) leaves it as it
#: was: every game of these rules must stay the same. ``tests/engine/test_zero_rule.py`` holds the zero rule.
RULES = (FirstClick.SAFE, FirstClick.OPENING, FirstClick.NONE, FirstClick.WINDOWS)


def games_digest(boards: int, players: list[str] | None = None, seed: int = SEED) -> dict[str, str]:
    """Per player, the SHA-256 of its games on ``boards`` boards of every difficulty and rule, and
    ``all``: the hash of those hashes."""
    registry = Registry((), entry_points=False)
    names = players or sorted(registry.players)
    digests = {}
    for name in names:
        player = registry.create(name)
        h = hashlib.sha256()
        for difficulty, spec in PRESETS.items():
            for rule in RULES:
                for board in range(boards):
                    result = play_game(player, name, spec, rule, seed, board, record=True)
                    moves = decode(result.record).moves
                    h.update(f"{difficulty} {rule.value} {board} {result.outcome.value} {len(moves)}\n".encode())
                    h.update(",".join(f"{m.kind.value}{m.row}.{m.col}{'g' if m.guess else ''}" for m in moves).encode())
        digests[name] = h.hexdigest()
    digests["all"] = hashlib.sha256("".join(digests[n] for n in names).encode()).hexdigest()
    return digests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=300, help="boards per difficulty and rule")
    args = parser.parse_args()
    start = time.perf_counter()
    digests = games_digest(args.boards)
    seconds = time.perf_counter() - start
    for name, digest in digests.items():
        print(f"{name:24} {digest}")
    print(f"{args.boards} boards x 3 difficulties x 4 rules per player, seed {SEED}: {seconds:.0f} s")
    RESULTS.write_text(json.dumps({"boards": args.boards, "seed": SEED, "digests": digests}, indent=2) + "\n")


if __name__ == "__main__":
    main()
