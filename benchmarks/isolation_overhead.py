"""What isolation costs: games/s and ms per game of `random` and `enumeration` on Expert, trusted (an
object in this process) vs isolated (its own process behind the line protocol), on the same boards.
Isolated four ways: by lines or through the shared-memory segment (``arena.isolation.protocol.shared``, how
the arena's own Python host runs by default on Linux x86-64), each with blocking waits (``isolated``,
``shared``: full pools, Dask) and with short busy waits first (``_spin``: a worker and its bot with a
core each).

Also the protocol's own costs: the overhead per move and per game (isolated minus trusted, over the
round trips actually made), a bare pipe round trip with an Expert observation, the encoders, and the
start of a bot process (interpreter, imports, warm-up, handshake).

Target (issue 5): isolated costs <= 20% more than trusted for `enumeration` on Expert. "Trusted"
here is the same move-by-move loop in this process (``TrustedAgent``), so the difference is the
protocol's. A player that can also play whole games in compiled code (``Player.play_compiled``;
``enumeration`` does) does so when it runs trusted in a tournament: that is timed as well
(``trusted_compiled``), with the isolated modes' cost over it. An isolated player cannot take that
path (its process never holds the layout), so against it isolation costs the whole Python loop.

Both sides run numba on one thread, as a pool worker does. The machine may be shared: the load
average is recorded with the results, and each configuration is timed in several interleaved rounds
(the fastest round counts: noise from other processes only ever adds time). Eight by default: on the
2-core virtual machine here a busy-waiting pair sometimes runs at half speed for a few rounds in a
row (the bot's CPU time stays the same while the wall time doubles: it is not being run), whatever
the code, so three rounds could all land there.

Where bubblewrap runs, the same four isolated modes again inside the sandbox (``sandboxed_*``): the
target (issue 18) is a per-move overhead within 10% of the same mode unsandboxed; the start of a
sandboxed bot is reported beside the plain one.

Then whole tournaments (worker and bot start, store included) with 1 and 2 local workers, trusted and
isolated as the arena runs them by default.

    python benchmarks/isolation_overhead.py [--games 300] [--rounds 8] [--players random,enumeration]
                                            [--tournament-games 4000]
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
import timeit
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numba
import numpy as np

from arena.config import PlayerRef, TournamentConfig
from arena.isolation.processes.bot_process import BotProcess
from arena.isolation.processes.spin import DEFAULT_SPIN
from arena.isolation.protocol import messages as proto
from arena.isolation.protocol.bot_command import bot_environment, host_command, sandbox_for
from arena.isolation.protocol.remote import RemoteAgent
from arena.isolation.sandbox import bubblewrap as sandbox
from arena.limits import Isolation, Limits
from arena.outcome import Outcome
from arena.play.agents import Agent, TrustedAgent
from arena.play.runner import play_game, warm_up
from arena.play.tournament import plan_tournament, run_tournament
from arena.results.store import Store
from engine import EXPERT, Action, BoardSpec, FirstClick, Game, Observation
from players import Player
from players.registry import Registry

RESULTS = Path(__file__).parent / "results" / "isolation_overhead.json"
SEED = 20261122
LIMITS = Limits(move_time=60, game_time=600)


class Counting:
    """An agent that counts round trips (the same thin wrapper on both sides)."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name
        self.moves = 0
        if hasattr(inner, "act_live"):  # as the runner would call the inner agent
            self.act_live = self._act_live

    def prepare(self) -> None:
        self.inner.prepare()

    def start(self, spec: BoardSpec, rule: FirstClick, seed: int, limits: Limits) -> None:
        self.inner.start(spec, rule, seed, limits)

    def act(self, observation: Observation, budget: float) -> Any:
        self.moves += 1
        return self.inner.act(observation, budget)

    def _act_live(self, *args: Any) -> Any:
        self.moves += 1
        return self.inner.act_live(*args)  # type: ignore[attr-defined]

    def finish(self, outcome: Outcome, message: str) -> None:
        self.inner.finish(outcome, message)

    def cpu_seconds(self) -> float:
        return self.inner.cpu_seconds()

    def diagnostics(self) -> list[str]:
        return self.inner.diagnostics()


def play_all(agent: Counting | Player, name: str, boards: Iterable[int]) -> tuple[float, list[tuple[Any, ...]]]:
    """Seconds to play ``boards`` one after the other, and each game's deterministic summary."""
    games = []
    start = time.perf_counter()
    for board in boards:
        result = play_game(agent, name, EXPERT, FirstClick.SAFE, SEED, board, limits=LIMITS)  # type: ignore[arg-type]
        games.append((result.outcome.value, result.moves, result.guesses, result.revealed_cells))
    return time.perf_counter() - start, games


def remote_agent(name: str, spin: float, shared: bool, boxed: bool) -> RemoteAgent:
    """``name`` behind the protocol as a tournament's worker starts it (``boxed``: in the sandbox, its
    cache folder seeded with the arena's compiled code)."""
    command = host_command(name, entry_points=False, threads=1, spin=spin)
    box, env = sandbox_for(name, (), LIMITS.processes) if boxed else (None, bot_environment())
    return RemoteAgent(name, command, LIMITS, env=env, spin=spin, shared=shared, sandbox=box)


def bench_start(name: str, starts: int = 10) -> dict[str, float]:
    """Milliseconds from starting a bot to its first answer (start, warm-up game, handshake), plain and
    sandboxed in alternation, after one untimed start of each (caches warm): medians, and the difference."""
    times: dict[str, list[float]] = {"plain": [], "sandboxed": []}
    for attempt in range(starts + 1):
        for label in times:
            started = time.perf_counter()
            agent = remote_agent(name, 0.0, True, label == "sandboxed")
            agent.prepare()
            agent.close()
            if attempt:
                times[label].append(1000 * (time.perf_counter() - started))
    medians = {label: round(statistics.median(values), 1) for label, values in times.items()}
    return {**{f"{label}_ms": value for label, value in medians.items()},
            "extra_ms": round(medians["sandboxed"] - medians["plain"], 1), "starts": starts}  # fmt: skip


def bench_player(name: str, games: int, rounds: int, spin: float, tournament_games: int) -> dict[str, Any]:
    """Trusted against isolated, the pipes blocking at once and busy-waiting ``spin`` seconds first."""
    player = Registry().create(name)
    warm_up(player)
    agents: dict[str, Counting] = {"trusted": Counting(TrustedAgent(player))}
    remotes: list[RemoteAgent] = []
    startup: dict[str, float] = {}
    modes = [
        ("isolated", 0.0, False, False),
        ("isolated_spin", spin, False, False),
        ("shared", 0.0, True, False),
        ("shared_spin", spin, True, False),
    ]
    if sandbox.unavailable() is None:  # the same four in the bubblewrap sandbox
        modes += [(f"sandboxed_{label}", window, shared, True) for label, window, shared, _ in modes]
    for label, window, shared, boxed in modes:
        started = time.perf_counter()
        remote = remote_agent(name, window, shared, boxed)
        agents[label] = Counting(remote)
        agents[label].prepare()
        startup[label] = round(time.perf_counter() - started, 3)
        remotes.append(remote)
    times: dict[str, list[float]] = {label: [] for label in agents}
    outcomes: dict[str, list[Any]] = {}
    moves: dict[str, int] = {}
    # A player that plays its in-process games whole in compiled code (``Player.play_compiled``)
    # does so in tournaments: timed too, as ``trusted_compiled`` (the same games).
    compiled = type(player).play_compiled is not Player.play_compiled
    if compiled:
        times["trusted_compiled"] = []
    for _ in range(rounds):
        for label, agent in agents.items():
            agent.moves = 0
            seconds, summary = play_all(agent, name, range(games))
            times[label].append(seconds)
            outcomes[label] = summary
            moves[label] = agent.moves
        if compiled:
            seconds, outcomes["trusted_compiled"] = play_all(player, name, range(games))
            times["trusted_compiled"].append(seconds)
    for remote in remotes:
        remote.close()
    if any(summary != outcomes["trusted"] for summary in outcomes.values()):
        raise SystemExit(f"{name}: trusted and isolated games differ; the comparison is meaningless")
    best = {label: min(values) for label, values in times.items()}
    per_game = {label: best[label] / games * 1000 for label in best}
    row: dict[str, Any] = {
        "player": name,
        "games": games,
        "rounds": rounds,
        "wins": sum(o[0] == "won" for o in outcomes["trusted"]),
        "round_trips_per_game": moves["trusted"] / games,
        "spin_us": round(spin * 1e6, 1),
        "seconds": {label: [round(t, 4) for t in values] for label, values in times.items()},
        "games_per_s": {label: round(games / best[label], 1) for label in best},
        "ms_per_game": {label: round(value, 3) for label, value in per_game.items()},
        "process_start_s": startup,
    }
    for label, _, _, _ in modes:
        extra = best[label] - best["trusted"]
        row[label] = {
            "extra_percent": round(100 * extra / best["trusted"], 1),
            "overhead_ms_per_game": round(extra / games * 1000, 3),
            "overhead_us_per_round_trip": round(extra / moves["trusted"] * 1e6, 1),
            # With this many round trips per game, isolation costs <= 20% once a game takes this long trusted.
            "twenty_percent_at_trusted_ms_per_game": round(5 * extra / games * 1000, 2),
        }
        if compiled:
            row[label]["extra_percent_over_compiled"] = round(
                100 * (best[label] - best["trusted_compiled"]) / best["trusted_compiled"], 1
            )
    for label, _, _, boxed in modes:
        if boxed:  # what the sandbox adds to the same mode unsandboxed, per round trip and in all
            plain = label.removeprefix("sandboxed_")
            row[label]["sandbox_extra_us_per_round_trip"] = round(
                (best[label] - best[plain]) / moves["trusted"] * 1e6, 1
            )
            row[label]["overhead_vs_plain_percent"] = round(
                100 * (row[label]["overhead_ms_per_game"] / row[plain]["overhead_ms_per_game"] - 1), 1
            )
    if any(boxed for *_, boxed in modes):
        row["sandbox_start"] = bench_start(name)
    row["tournament"] = tournament_seconds(name, tournament_games) if tournament_games else {}
    return row


def tournament_seconds(name: str, games: int) -> dict[str, dict[str, float]]:
    """Whole ``run_tournament`` runs of ``games`` boards with 1 and 2 local workers, trusted and
    isolated (by default settings: shared memory, busy waits only with 1 worker on 2 cores), worker
    and bot start and the store included: seconds and games/s."""
    rows: dict[str, dict[str, float]] = {}
    for workers in (1, 2):
        for isolation in (Isolation.TRUSTED, Isolation.ISOLATED):
            config = TournamentConfig.build(
                EXPERT,
                FirstClick.SAFE,
                seed=SEED + 1,
                games=games,
                players=(PlayerRef(name=name),),
                isolation=isolation,
            )
            with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "bench.db") as store:
                start = time.perf_counter()
                run_tournament(plan_tournament(config, store, Registry(), workers=workers), store)
                seconds = time.perf_counter() - start
            rows[f"{isolation.value}_{workers}_worker{'s' if workers > 1 else ''}"] = {
                "seconds": round(seconds, 3),
                "games_per_s": round(games / seconds, 1),
            }
    return rows


def bench_pipe(spin: float, samples: int = 2000) -> dict[str, float]:
    """A bare round trip: an Expert observation out, a one-action reply back, from a minimal echo bot
    (both ends busy-waiting ``spin`` seconds before they block)."""
    reply = '{"actions":[["reveal",0,0]]}'
    echo = (
        "import os\nfrom arena.isolation.processes.spin import LineReader\n"
        f"for line in LineReader(0, {spin!r}):\n    os.write(1, {reply!r}.encode() + bytes([10]))"
    )
    process = BotProcess([sys.executable, "-c", echo], spin=spin)
    process.start()
    game = Game(EXPERT, FirstClick.SAFE, seed=SEED, index=0)
    game.reveal(0, 0)
    line = proto.observation(game.observation())
    for _ in range(100):
        process.send(line, time.monotonic() + 5)
        process.receive(time.monotonic() + 5)
    laps = []
    for _ in range(samples):
        start = time.perf_counter()
        process.send(line, time.monotonic() + 5)
        process.receive(time.monotonic() + 5)
        laps.append(time.perf_counter() - start)
    process.close()
    return {
        "samples": samples,
        "median_us": round(float(np.median(laps)) * 1e6, 1),
        "p90_us": round(float(np.percentile(laps, 90)) * 1e6, 1),
        "observation_bytes": len(line) + 1,
    }


def bench_codecs() -> dict[str, float]:
    """Per-call costs of the codecs, and of the alternative grid encoding (a list of lists of numbers)."""
    game = Game(EXPERT, FirstClick.SAFE, seed=SEED, index=0)
    game.reveal(0, 0)
    observation = game.observation()
    line = proto.observation(observation)
    message = json.loads(line)
    as_lists = json.dumps({**message, "grid": observation.grid.tolist()}, separators=(",", ":"))
    reply = proto.encode_answer([Action.reveal(r, c) for r in range(4) for c in range(10)])

    def per_call(func: Any, number: int = 5000) -> float:
        return round(timeit.timeit(func, number=number) / number * 1e6, 2)

    return {
        "encode_observation_us": per_call(lambda: proto.observation(observation)),
        "decode_observation_us": per_call(lambda: proto.observation_from(json.loads(line), 16, 30, FirstClick.SAFE)),
        "encode_grid_as_lists_us": per_call(
            lambda: json.dumps({**message, "grid": observation.grid.tolist()}, separators=(",", ":"))
        ),
        "decode_grid_as_lists_us": per_call(lambda: np.array(json.loads(as_lists)["grid"], dtype=np.int8)),
        "observation_bytes_rows": len(line) + 1,
        "observation_bytes_lists": len(as_lists) + 1,
        "encode_reply_40_actions_us": per_call(
            lambda: proto.encode_answer([Action.reveal(r, c) for r in range(4) for c in range(10)])
        ),
        "decode_reply_40_actions_us": per_call(lambda: proto.decode_reply(reply)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--players", default="random,enumeration")
    parser.add_argument(
        "--tournament-games", type=int, default=4000, help="boards of the whole-tournament runs (0: none)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the JSON goes")
    parser.add_argument("--spin-us", type=float, default=DEFAULT_SPIN * 1e6, help="busy-wait window of the spin runs")
    args = parser.parse_args()
    numba.set_num_threads(1)
    spin = args.spin_us * 1e-6
    load_before = os.getloadavg()
    rows = [
        bench_player(name, args.games, args.rounds, spin, args.tournament_games) for name in args.players.split(",")
    ]
    pipe = {"blocking": bench_pipe(0.0), "spinning": bench_pipe(spin)}
    codecs = bench_codecs()
    load_after = os.getloadavg()
    data = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in load_after],
            "note": "see the load averages: on an idle machine, waking a blocked reader dominates a round trip",
        },
        "board": "expert 16x30/99, first click safe",
        "players": rows,
        "pipe_round_trip": pipe,
        "codecs": codecs,
        "target": (
            "isolated <= 20% more than trusted for enumeration on Expert;"
            " sandboxed per-move overhead within 10% of the same mode unsandboxed"
        ),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=2) + "\n")
    for row in rows:
        print(
            f"{row['player']:12s} trusted {row['games_per_s']['trusted']:8.1f} games/s "
            f"({row['ms_per_game']['trusted']:.2f} ms/game), {row['round_trips_per_game']:.1f} round trips/game, "
            f"process start {row['process_start_s']} s"
        )
        if "trusted_compiled" in row["ms_per_game"]:
            print(
                f"  {'compiled':13s} {row['games_per_s']['trusted_compiled']:8.1f} games/s "
                f"({row['ms_per_game']['trusted_compiled']:.2f} ms/game): trusted, whole games in compiled code"
            )
        for label in [k for k in row["ms_per_game"] if k not in ("trusted", "trusted_compiled")]:
            extra = row[label]
            over = extra.get("extra_percent_over_compiled")
            print(
                f"  {label:13s} {row['games_per_s'][label]:8.1f} games/s ({row['ms_per_game'][label]:.2f} ms/game)"
                f"  +{extra['extra_percent']}%  {extra['overhead_us_per_round_trip']} us/round trip"
                + (f"  (+{over}% over compiled)" if over is not None else "")
            )
            if "overhead_vs_plain_percent" in extra:
                print(
                    f"  {'':13s} sandbox: per-move overhead {extra['overhead_vs_plain_percent']:+.1f}% of the same"
                    f" mode unsandboxed ({extra['sandbox_extra_us_per_round_trip']:+.1f} us/round trip)"
                )
        if "sandbox_start" in row:
            start = row["sandbox_start"]
            print(
                f"  start to first answer (median of {start['starts']}): plain {start['plain_ms']} ms,"
                f" sandboxed {start['sandboxed_ms']} ms ({start['extra_ms']:+.1f} ms)"
            )
        if row["tournament"]:
            print(
                f"  whole tournaments of {args.tournament_games} boards (games/s): "
                + ", ".join(f"{label} {run['games_per_s']:.0f}" for label, run in row["tournament"].items())
            )
    for label, lap in pipe.items():
        print(f"bare pipe round trip, {label}: median {lap['median_us']} us, p90 {lap['p90_us']} us")
    print("codecs (us):", json.dumps(codecs))
    print(f"load average {load_before} -> {load_after}; wrote {args.out}")


if __name__ == "__main__":
    main()
