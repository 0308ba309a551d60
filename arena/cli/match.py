"""`arena match CAND BASE`: play a candidate and a baseline on the same boards until a sequential test knows whether
the candidate is better, and say so in the exit code (0 accepted as better, 1 not, 2 on error) so that a bot's own
CI can gate on it."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.analysis.pairs import split_boards
from arena.analysis.sequential import SprtState
from arena.analysis.stats import paired_difference
from arena.cli import common, player_options
from arena.cli.common import UsageError, board_from_options, cli_errors, console, err_console, print_json
from arena.cli.player_options import checked_players, games_stopped, player_catalog
from arena.config import TournamentConfig
from arena.experiments.match import MatchEvents, MatchResult, parse_player_spec, run_match
from arena.limits import Clock, Isolation, Limits
from arena.results.store import Store
from engine.layout import check_seed


def _verdict_line(result: MatchResult, a: str, b: str) -> str:
    s = result.state
    if s.verdict == "H1":
        return f"{a} is better than {b} by at least {_points(100 * s.delta)} (H1 accepted)"
    if s.verdict == "H0":
        return f"{a} is not better than {b} by {_points(100 * s.delta)} (H0 accepted)"
    return f"undecided after {s.boards} boards (--max-games); the difference is below what this many boards can show"


def _look_line(s: SprtState) -> str:
    return (
        f"{s.boards:>8} boards  only A {s.only_a:>5}  only B {s.only_b:>5}  {100 * s.difference:+6.2f} points  "
        f"LLR {s.llr:+.2f} [{s.lower:+.2f}, {s.upper:+.2f}]"
    )


def _points(delta: float) -> str:
    return f"{delta:g} point" + ("" if delta == 1 else "s")


@cli_errors
def command(
    a: Annotated[
        str, typer.Argument(metavar="CAND", help="The candidate: NAME or NAME[KEY=VALUE,...].", show_default=False)
    ],
    b: Annotated[str, typer.Argument(metavar="BASE", help="The baseline the candidate must beat.", show_default=False)],
    delta: Annotated[
        float, typer.Option("--delta", help="The least difference that matters, in win-rate points (A minus B).")
    ] = 1.0,
    alpha: Annotated[float, typer.Option("--alpha", help="Chance of calling A better when it is not.")] = 0.05,
    beta: Annotated[float, typer.Option("--beta", help="Chance of missing a difference of --delta.")] = 0.05,
    batch: Annotated[int, typer.Option("--batch", help="Boards between two looks at the test.")] = 200,
    max_games: Annotated[int, typer.Option("--max-games", help="Stop undecided after this many boards.")] = 1_000_000,
    difficulty: common.Difficulty = None,
    size: common.Size = None,
    mines: common.Mines = None,
    first_click: common.FirstClickOpt = "safe",
    seed: common.Seed = 0,
    workers: player_options.WorkersOpt = None,
    clock: player_options.ClockOpt = Clock.WALL,
    backend: player_options.BackendOpt = "local",
    address: player_options.AddressOpt = None,
    store: common.StoreOpt = None,
    plugin: common.PluginOpt = None,
    engine_bot: player_options.EngineBotOpt = None,
    json_out: common.JsonOpt = False,
) -> None:
    spec, rule = board_from_options(difficulty, size, mines, first_click)
    check_seed(seed, "--seed")
    if not 0 < delta < 100:
        raise UsageError(f"--delta is in points and must lie between 0 and 100, got {delta}")
    for name, value in (("--alpha", alpha), ("--beta", beta)):
        if not 0 < value < 0.5:
            raise UsageError(f"{name} must lie between 0 and 0.5, got {value}")
    if batch < 1 or max_games < batch:
        raise UsageError(f"need 1 <= --batch <= --max-games, got --batch {batch} and --max-games {max_games}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    player_options.check_backend(backend, address)
    try:
        refs = (parse_player_spec(a), parse_player_spec(b))
    except ValueError as error:
        raise UsageError(str(error)) from None
    if refs[0].key == refs[1].key:
        raise UsageError(f"A and B are the same player ({refs[0].key}); give one of them other options")
    registry, bots = player_catalog(plugin, engine_bot, Isolation.AUTO)
    refs = checked_players(registry, refs)
    config = TournamentConfig.build(
        spec, rule, seed=seed, games=batch, players=refs, limits=Limits(clock=clock), engine_bots=bots
    )
    if not json_out:
        err_console.print(
            f"{refs[0].key} vs {refs[1].key} · {config.difficulty} · first click {rule.value} · seed {seed} · "
            f"H1: A better by {_points(delta)}, H0: no better · alpha {alpha:g}, beta {beta:g}",
            highlight=False,
            markup=False,
        )

    class Shown(MatchEvents):
        """Each look at the test a line (none with --json); a note of the tournament's a warning."""

        def note(self, text: str) -> None:
            _warn(text)

        def looked(self, state: SprtState) -> None:
            if not json_out:
                err_console.print(_look_line(state), highlight=False, markup=False)

    with Store(store) as db, games_stopped("match", error_code=2):
        result = run_match(
            config,
            db,
            registry,
            delta=delta / 100,
            alpha=alpha,
            beta=beta,
            batch=batch,
            max_games=max_games,
            workers=workers,
            backend=backend,
            address=address,
            events=Shown(),
        )
        split = split_boards(db, result.tournament_id, *result.rows, 0, result.state.boards)
    s = result.state
    diff, low, high = paired_difference(s.only_a, s.only_b, s.boards)
    code = 0 if s.verdict == "H1" else 1
    if json_out:
        print_json(
            {
                "a": refs[0].key,
                "b": refs[1].key,
                "tournament": result.tournament_id,
                "delta": delta,
                "alpha": alpha,
                "beta": beta,
                "boards": s.boards,
                "only_a": s.only_a,
                "only_b": s.only_b,
                "difference": 100 * s.difference,
                "llr": s.llr,
                "lower": s.lower,
                "upper": s.upper,
                "verdict": {"H1": "a_better", "H0": "not_better", "continue": "undecided"}[s.verdict],
                "accepted": code == 0,
                "played": result.played,
                "rows": list(result.rows),
                "paired_difference": {"diff": 100 * diff, "low": 100 * low, "high": 100 * high},
                "only_a_boards": split.only_a,
                "only_b_boards": split.only_b,
            }
        )
        raise typer.Exit(code)
    a_row, b_row = result.rows
    lines = [
        ("accepted: " if code == 0 else "not accepted: ") + _verdict_line(result, a_row, b_row),
        f"boards played: {s.boards} (tournament {result.tournament_id}, {result.played} games played now)",
        f"paired difference: {100 * diff:+.2f} points, 95% CI [{100 * low:+.2f}, {100 * high:+.2f}]",
        f"split boards: {_boards(split.only_a)} won by {a_row} only",
        f"              {_boards(split.only_b)} won by {b_row} only",
        f"sequential test: LLR {s.llr:+.3f}, bounds [{s.lower:+.3f}, {s.upper:+.3f}]",
    ]
    for line in lines:
        console.print(line, highlight=False, markup=False)
    raise typer.Exit(code)


def _warn(text: str) -> None:
    err_console.print(f"warning: {text}", highlight=False, markup=False, soft_wrap=True)


def _boards(boards: list[int], shown: int = 8) -> str:
    """``N (b1, b2, ...)``: how many boards, and the first ``shown`` of them (``--json`` lists all)."""
    if not boards:
        return "0"
    more = f", ... {len(boards) - shown} more" if len(boards) > shown else ""
    return f"{len(boards)} ({', '.join(map(str, boards[:shown]))}{more})"
