"""What a move costs a bot written with each starter kit: the protocol's round trip in each language,
and the starting strategy's time per game, against the Python example (``examples/standalone_bot.py``).

Every kit (``arena new-bot``, built by its own ``build.sh``) and the example play the same Expert boards
through the arena's own game loop (``arena.play.runner.play_game``) and engine-bot agent, as in a
tournament without the sandbox (``--sandbox off``: the sandbox's cost is the same for every language and
is measured by ``isolation_overhead.py``). Per bot:

- ``protocol_us``: the median round trip of a game's first observation (the whole Expert grid, 591
  bytes, every cell covered: the strategy's answer is immediate), from the arena writing it to the
  arena holding the bot's actions: encoding, the pipe both ways, the bot's JSON parsing and board,
  its reply's JSON. What the protocol costs in that language.
- ``move_us``: the median round trip of every observation of the games: the protocol plus the starting
  strategy (the single-cell rules over the whole board).
- ``ms_per_game``: the wall time of a game as the arena's loop measures it (``wall_ms``): per game the
  fastest of its rounds, averaged over the games (every bot plays the same games, move for move, so the
  means compare like with like; most Expert games of this strategy end at an early guess, so the median
  game is short and ``median_ms_per_game`` says little about the long ones), and ``round_trips`` per game.
- ``start_ms``: from starting the process to its ``hello`` (the JVM's start, the interpreter's imports):
  paid once per process, which plays every game of a tournament. Each process first plays a few
  untimed games (``--warmup``): JavaScript's and Java's JIT compilers are slow for their first games,
  and a tournament's process soon leaves them behind.

All of them must play the same moves (the kits' shared generator and strategy): the benchmark checks
that every bot's games are the example's, move for move. Target (issue 27): no kit's starting strategy
slower per game than the Python example.

Blocking pipes, as tournaments with more workers than cores use. The machine may be shared: each bot
plays in several interleaved rounds, and the fastest counts (noise only ever adds time): the fastest
round's median for round trips, each game's fastest round for game times; the load average is recorded.

    python benchmarks/kits_speed.py [--games 100] [--rounds 5] [--warmup 30] [--kits python,cpp] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from arena.isolation.protocol.bot_command import bot_environment
from arena.isolation.protocol.remote import RemoteAgent
from arena.kits import LANGUAGES, new_bot
from arena.kits.toolchains import build, missing_toolchain
from arena.limits import Limits
from arena.play.runner import play_game
from engine import PRESETS, FirstClick, Observation

RESULTS = Path(__file__).parent / "results" / "kits_speed.json"
ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = "python-example"
#: Every bot plays under this name: the arena derives each game's seed from it (same name, same games).
NAME = "kit"
SEED = 27


class TimedAgent:
    """The arena's agent for an engine bot, with each round trip timed (``act_live`` as the runner calls it)."""

    def __init__(self, agent: RemoteAgent) -> None:
        self.agent = agent
        self.name = agent.name
        self.trips: list[tuple[int, float]] = []  # (moves before it, seconds)

    def __getattr__(self, name: str) -> Any:  # prepare, start, finish, cpu_seconds, ...: the agent's own
        return getattr(self.agent, name)

    def act_live(self, grid: np.ndarray, flags: int, moves: int, budget: float) -> Any:
        began = time.perf_counter()
        answer = self.agent.act_live(grid, flags, moves, budget)
        self.trips.append((moves, time.perf_counter() - began))
        return answer

    def act(self, observation: Observation, budget: float) -> Any:
        began = time.perf_counter()
        answer = self.agent.act(observation, budget)
        self.trips.append((observation.moves, time.perf_counter() - began))
        return answer


def bots(kits: list[str], folder: Path) -> dict[str, list[str]]:
    """The command of every bot to time: the example, then each kit that builds here."""
    commands = {EXAMPLE: [sys.executable, str(ROOT / "examples" / "standalone_bot.py")]}
    for language in kits:
        reason = missing_toolchain(language)
        if reason:
            print(f"skipped: {reason}")
            continue
        started = time.perf_counter()
        kit = new_bot(NAME, language, folder / language)
        build(kit.folder)
        print(f"built the {language} kit in {time.perf_counter() - started:.1f} s")
        commands[language] = [str(kit.run_script)]
    return commands


def play_round(command: list[str], games: int, warmup: int) -> dict[str, Any]:
    """One process plays ``warmup`` Expert boards untimed (a JIT compiles the hot paths, as it has
    long done in a tournament's process), then ``games`` boards: its start, round trips, game times
    and moves."""
    limits = Limits()
    agent = TimedAgent(RemoteAgent(NAME, command, limits, env=bot_environment()))
    spec, rule = PRESETS["expert"], FirstClick.SAFE
    try:
        began = time.perf_counter()
        agent.prepare()
        start_ms = (time.perf_counter() - began) * 1000
        for board in range(games, games + warmup):  # other boards than the timed ones
            play_game(agent, NAME, spec, rule, SEED, board, limits=limits)  # type: ignore[arg-type]
        agent.trips.clear()
        walls, records, outcomes = [], [], []
        for board in range(games):
            result = play_game(agent, NAME, spec, rule, SEED, board, limits=limits, record=True)  # type: ignore[arg-type]
            walls.append(result.wall_ms)
            outcomes.append(result.outcome.value)
            records.append(result.record)
    finally:
        agent.close()
    first = [seconds for moves, seconds in agent.trips if moves == 0]
    return {
        "start_ms": start_ms,
        "protocol_us": statistics.median(first) * 1e6,
        "move_us": statistics.median(seconds for _, seconds in agent.trips) * 1e6,
        "walls": walls,
        "round_trips": len(agent.trips) / games,
        "outcomes": outcomes,
        "records": records,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="Expert boards per round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the fastest counts")
    parser.add_argument("--warmup", type=int, default=30, help="untimed games before each round's")
    parser.add_argument("--kits", default=",".join(LANGUAGES), help="comma-separated languages")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="kits-speed-") as tmp:
        commands = bots([k for k in args.kits.split(",") if k], Path(tmp))
        rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in commands}
        for number in range(args.rounds):
            for name, command in commands.items():
                rounds[name].append(play_round(command, args.games, args.warmup))
            print(f"round {number + 1} of {args.rounds} done")
    load_after = os.getloadavg()

    reference = rounds[EXAMPLE][0]
    results: dict[str, Any] = {}
    for name, played in rounds.items():
        # Per game, its fastest round (a load spike seldom hits one game in every round).
        best = [min(walls) for walls in zip(*(r["walls"] for r in played), strict=True)]
        same = all(r["records"] == reference["records"] and r["outcomes"] == reference["outcomes"] for r in played)
        results[name] = {
            "start_ms": round(min(r["start_ms"] for r in played), 1),
            "protocol_us": round(min(r["protocol_us"] for r in played), 1),
            "move_us": round(min(r["move_us"] for r in played), 1),
            "ms_per_game": round(statistics.fmean(best), 3),
            "median_ms_per_game": round(statistics.median(best), 3),
            "round_trips_per_game": round(played[0]["round_trips"], 2),
            "wins": played[0]["outcomes"].count("won"),
            "same_moves_as_example": same,
        }
    example = results[EXAMPLE]
    for row in results.values():
        row["protocol_vs_example"] = round(row["protocol_us"] / example["protocol_us"], 2)
        row["per_game_vs_example"] = round(row["ms_per_game"] / example["ms_per_game"], 2)
    target = {
        "rule": "no kit's starting strategy slower per game (ms_per_game) than the Python example",
        "met": all(r["ms_per_game"] <= example["ms_per_game"] for r in results.values()),
        "all_same_moves": all(r["same_moves_as_example"] for r in results.values()),
    }
    data = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in load_after],
        },
        "board": "expert (16x30, 99 mines), first click safe",
        "games_per_round": args.games,
        "warmup_games": args.warmup,
        "rounds": args.rounds,
        "bots": results,
        "target": target,
    }
    args.out.write_text(json.dumps(data, indent=2) + "\n")

    header = f"{'bot':<15}{'start ms':>9}{'protocol us':>12}{'x ex.':>6}{'move us':>9}{'ms/game':>9}{'x ex.':>6}"
    print(f"\nExpert, {args.games} games x {args.rounds} rounds (the fastest of each), blocking pipes")
    print(header + f"{'trips/g':>8}{'same':>6}")
    for name, r in results.items():
        print(
            f"{name:<15}{r['start_ms']:>9.1f}{r['protocol_us']:>12.1f}{r['protocol_vs_example']:>6.2f}"
            f"{r['move_us']:>9.1f}{r['ms_per_game']:>9.3f}{r['per_game_vs_example']:>6.2f}"
            f"{r['round_trips_per_game']:>8.1f}{'yes' if r['same_moves_as_example'] else 'NO':>6}"
        )
    print(f"target ({target['rule']}): {'met' if target['met'] else 'NOT met'}")
    print(f"load average {load_before} -> {load_after}; wrote {args.out}")


if __name__ == "__main__":
    main()
