"""Where an apex game's CPU time goes: each part of the player, timed inside real games.

apex plays ``--games`` boards (rule ``safe`` unless told) through ``arena.play.runner.play_game``, as a
tournament worker plays them, with the parts of the player wrapped in CPU-time counters
(``time.thread_time``). Each call is charged to the path of wrapped calls it runs in (the
lookahead's child analyses apart from the position's own analysis), exclusively: a part's figure
leaves out the wrapped parts it calls, which have rows of their own. What no wrapper covers (the
runner, the engine applying moves, building observations, ``play``'s own lines) is "runner,
engine and play's glue". The wrappers cost about a microsecond a call; the total is the runner's
per-game CPU (the leaderboard's ms/g) of the same games with the counters on.

The parts, in the order ``ApexPlayer.play`` reaches them: the first click; the single-cell rules
(``certain_actions``); the exact analysis of the position (``analyze``); the unavoidable 50/50
(``unavoidable_pair``); the endgame search (``solve_endgame``); the "50/50 or safe" patterns
(``pseudo_fifty``, with the analyses it asks for); the lookahead: the shortlist (``candidates``),
the what-if reveals (``Outlook.outcomes``), and the depth-3 re-scoring (``deep_score``: its
children's analyses and what-ifs are rows of their own).

    python benchmarks/studies/apex_profile.py [--difficulty expert] [--games 300] [--seed 7] [--label NAME]

Prints a table and writes benchmarks/studies/results/apex_profile_<difficulty>[_<label>].json.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.play.runner import play_game
from engine import PRESETS, FirstClick
from players.builtin.apex import outlook, patterns, player
from players.registry import Registry

RESULTS = Path(__file__).parent / "results"

_stack: list[str] = []
_spent: dict[tuple[str, ...], float] = defaultdict(float)
_calls: dict[tuple[str, ...], int] = defaultdict(int)


def _timed(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` charging its own CPU time (less that of the wrapped calls inside) to the path of labels."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        path = (*_stack, label)
        _stack.append(label)
        inner_before = _inner[0]
        start = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent = time.thread_time() - start
            inner = _inner[0] - inner_before
            _spent[path] += spent - inner
            _calls[path] += 1
            _stack.pop()
            _inner[0] = inner_before + spent

    return wrapper


_inner = [0.0]


def instrument() -> None:
    """Wrap the parts of ``ApexPlayer`` where its modules look them up."""
    p = player
    p.opening_move = _timed("first click", p.opening_move)
    p.certain_actions = _timed("single-cell rules", p.certain_actions)
    p.analyze = _timed("exact analysis", p.analyze)
    p.unavoidable_pair = _timed("50/50", p.unavoidable_pair)
    p.solve_endgame = _timed("endgame search", p.solve_endgame)
    p.pseudo_fifty = _timed("pseudo 50/50", p.pseudo_fifty)
    # What the patterns analyse with (first analyze, then probabilities_and_weight, now weight_then_probabilities).
    for name in ("weight_then_probabilities", "probabilities_and_weight", "analyze"):
        if hasattr(patterns, name):
            setattr(patterns, name, _timed("exact analysis", getattr(patterns, name)))
    p.Outlook = _timed("Outlook (index)", p.Outlook)
    cls = p.ApexPlayer
    cls.candidates = _timed("candidates", cls.candidates)
    cls.deep_score = _timed("depth 3", cls.deep_score)
    cls.best_by_lookahead = _timed("lookahead", cls.best_by_lookahead)
    outlook.Outlook.outcomes = _timed("what-if reveals", outlook.Outlook.outcomes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--difficulty", default="expert", choices=sorted(PRESETS))
    parser.add_argument("--rule", default="safe", choices=[r.value for r in FirstClick])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--label", default="", help="a suffix for the results file (e.g. before / after)")
    args = parser.parse_args()
    spec = PRESETS[args.difficulty]
    rule = FirstClick(args.rule)
    apex = Registry((), entry_points=False).create("apex")
    play_game(apex, "apex", spec, rule, args.seed + 1, 0)  # numba's code loaded before timing
    instrument()
    total = 0.0
    for board in range(args.games):
        total += play_game(apex, "apex", spec, rule, args.seed, board).cpu_ms
    wrapped = sum(_spent.values()) * 1000
    rows = sorted(_spent.items(), key=lambda kv: -kv[1])
    per_game = {" > ".join(path): round(seconds * 1000 / args.games, 3) for path, seconds in rows}
    per_game["runner, engine and play's glue"] = round((total - wrapped) / args.games, 3)
    calls = {" > ".join(path): round(_calls[path] / args.games, 2) for path, _ in rows}
    load = [round(x, 2) for x in os.getloadavg()]
    print(f"apex, {args.difficulty}, rule {args.rule}, {args.games} boards (seed {args.seed}), load {load}:")
    print(f"{total / args.games:.2f} ms of CPU a game (runner's thread time, counters on)")
    print(f"{'part (path of calls)':58} {'ms/game':>8} {'share':>6} {'calls/g':>8}")
    for name, ms in sorted(per_game.items(), key=lambda kv: -kv[1]):
        share = ms / (total / args.games) * 100
        print(f"{name[:58]:58} {ms:8.3f} {share:5.1f}% {calls.get(name, 0):8.2f}")
    out = {
        "difficulty": args.difficulty,
        "rule": args.rule,
        "games": args.games,
        "seed": args.seed,
        "cpu_ms_per_game": round(total / args.games, 3),
        "ms_per_game_by_part": per_game,
        "calls_per_game": calls,
        "load_average": load,
        "cpus": os.cpu_count(),
    }
    suffix = f"_{args.label}" if args.label else ""
    path = RESULTS / f"apex_profile_{args.difficulty}{suffix}.json"
    path.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
