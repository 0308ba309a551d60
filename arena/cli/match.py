"""`arena match CAND BASE`: play a candidate and a baseline on the same boards until a sequential test knows whether
the candidate is better, and say so in the exit code (0 better, 1 not better, 3 undecided, 2 an error) so that a
bot's own CI can gate on it. The candidate and baseline are any players a tournament takes: built-in, plugins
(with aliases and ``@REV``), installed packages and engine bots."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.analysis.pairs import split_boards
from arena.analysis.sequential import SprtState
from arena.analysis.stats import paired_difference
from arena.cli import common, player_options
from arena.cli.common import UsageError, board_from_options, cli_errors, console, err_console, print_json
from arena.cli.player_options import checked_players, games_stopped, limits_from, player_catalog
from arena.config import TournamentConfig
from arena.experiments.match import MatchEvents, parse_player_spec, run_match
from arena.limits import DEFAULT_LIMITS, Clock, Isolation, SandboxMode
from arena.results.store import Store
from engine.layout import check_seed

#: The exit codes, one per answer: a gate tells them apart (examples/ci_gate.sh); 2 is an error (bad input, a run
#: that failed), 130 an interrupt (the games so far are kept; the same command resumes).
EXIT_BETTER, EXIT_NOT_BETTER, EXIT_ERROR, EXIT_UNDECIDED = 0, 1, 2, 3
EXIT_CODES = {"better": EXIT_BETTER, "not_better": EXIT_NOT_BETTER, "continue": EXIT_UNDECIDED}


def verdict_line(state: SprtState, a: str, b: str, low: float, high: float) -> str:
    """The verdict in words, each claim one the boards show: "by at least DELTA" only when the whole 95%
    interval (``low``, ``high``, fractions) lies at DELTA or above, "not better by DELTA" only when it lies below,
    "worse" only when it lies below 0, "by less than DELTA" only when it lies between 0 and DELTA."""
    d = 100 * state.delta
    figures = f"{100 * state.difference:+.2f} points, 95% CI [{100 * low:+.2f}, {100 * high:+.2f}]"
    if state.verdict == "better":
        by = f" by at least {_points(d)}" if low >= state.delta else ""
        return f"better: {a} is better than {b}{by} ({figures})"
    if state.verdict == "not_better":
        if high < 0:
            return f"not better: {a} is worse than {b} ({figures})"
        if low > 0 and high < state.delta:
            return f"not better: {a} is better than {b} by less than {_points(d)} ({figures})"
        if high < state.delta:
            return f"not better: {a} is not better than {b} by {_points(d)} ({figures})"
        return f"not better: the test favours 'no better' over 'better by {_points(d)}' ({figures})"
    more = (
        "the interval lies above 0, but the test needs more boards to tell 'better by "
        f"{_points(d)} or more' from 'no better'"
        if low > 0
        else "the interval lies below 0, but the test needs more boards to call it"
        if high < 0
        else f"the boards do not yet tell 'better by {_points(d)} or more' from 'no better'"
    )
    return f"undecided after {state.boards} boards (--max-games): {figures}; {more}"


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
        float,
        typer.Option("--delta", help="The least difference that matters, in win-rate points (CAND minus BASE)."),
    ] = 1.0,
    alpha: Annotated[float, typer.Option("--alpha", help="Chance of 'better' when CAND is no better.")] = 0.05,
    beta: Annotated[
        float, typer.Option("--beta", help="Chance of 'not better' when CAND is better by --delta.")
    ] = 0.05,
    batch: Annotated[int, typer.Option("--batch", help="Boards between two looks at the test.")] = 200,
    max_games: Annotated[int, typer.Option("--max-games", help="Stop undecided after this many boards.")] = 1_000_000,
    difficulty: common.Difficulty = None,
    size: common.Size = None,
    mines: common.Mines = None,
    first_click: common.FirstClickOpt = "safe",
    seed: common.Seed = 0,
    option: player_options.OptionOpt = None,
    workers: player_options.WorkersOpt = None,
    isolation: player_options.IsolationOpt = Isolation.AUTO,
    sandbox: player_options.SandboxOpt = SandboxMode.AUTO,
    move_time: player_options.MoveTimeOpt = DEFAULT_LIMITS.move_time,
    game_time: player_options.GameTimeOpt = DEFAULT_LIMITS.game_time,
    memory_mb: player_options.MemoryOpt = DEFAULT_LIMITS.memory_mb,
    clock: player_options.ClockOpt = Clock.WALL,
    engine_bot: player_options.EngineBotOpt = None,
    bot_dir: player_options.BotDirOpt = None,
    backend: player_options.BackendOpt = "local",
    address: player_options.AddressOpt = None,
    store: common.StoreOpt = None,
    plugin: common.PluginOpt = None,
    json_out: common.JsonOpt = False,
) -> None:
    """Is CAND better than BASE? Both play the same boards until a sequential test decides.

    Exit code: 0 better, 1 not better (no better, or worse), 3 undecided at --max-games, 2 an error.
    """
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
        raise UsageError(f"CAND and BASE are the same player ({refs[0].key}); give one of them other options")
    limits = limits_from(move_time, game_time, memory_mb, clock)
    registry, bots = player_catalog(plugin, engine_bot, isolation, sandbox=sandbox, bot_dir=bot_dir)
    refs = checked_players(registry, refs, option)
    config = TournamentConfig.build(
        spec,
        rule,
        seed=seed,
        games=batch,
        players=refs,
        isolation=isolation,
        sandbox=sandbox,
        limits=limits,
        engine_bots=bots,
        purpose=f"match {refs[0].base} vs {refs[1].base}",
    )
    if not json_out:
        err_console.print(
            f"{refs[0].key} vs {refs[1].key} · {config.difficulty} · first click {rule.value} · seed {seed} · "
            f"'better by {_points(delta)} or more' against 'no better' · alpha {alpha:g}, beta {beta:g}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )

    class Shown(MatchEvents):
        """Each look at the test a line (none with --json); a note of the tournament's a warning."""

        def note(self, text: str) -> None:
            _warn(text)

        def looked(self, state: SprtState) -> None:
            if not json_out:
                err_console.print(_look_line(state), highlight=False, markup=False, soft_wrap=True)

    with Store(store) as db, games_stopped("match", error_code=EXIT_ERROR):
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
    code = EXIT_CODES[s.verdict]
    a_row, b_row = result.rows
    line = verdict_line(s, a_row, b_row, low, high)
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
                "effect_interval": [100 * s.effect_low, 100 * s.effect_high],
                "decided_by": s.rule,
                "verdict": "undecided" if s.verdict == "continue" else s.verdict,
                "exit_code": code,
                "says": line,
                "accepted": code == EXIT_BETTER,
                "played": result.played,
                "rows": list(result.rows),
                "paired_difference": {"diff": 100 * diff, "low": 100 * low, "high": 100 * high},
                "only_a_boards": split.only_a,
                "only_b_boards": split.only_b,
            }
        )
        raise typer.Exit(code)
    lines = [
        line,
        f"boards played: {s.boards} (tournament {result.tournament_id}, {result.played} games played now)",
        f"paired difference: {100 * diff:+.2f} points, 95% CI [{100 * low:+.2f}, {100 * high:+.2f}]",
        f"split boards: {_boards(split.only_a)} won by {a_row} only",
        f"              {_boards(split.only_b)} won by {b_row} only",
        f"sequential test: LLR {s.llr:+.3f}, bounds [{s.lower:+.3f}, {s.upper:+.3f}]; large-effect interval "
        f"[{100 * s.effect_low:+.2f}, {100 * s.effect_high:+.2f}]{_decided_by(s)}",
    ]
    for text in lines:
        console.print(text, highlight=False, markup=False, soft_wrap=True)
    raise typer.Exit(code)


def _decided_by(state: SprtState) -> str:
    return {"sprt": " (the ratio decided)", "effect": " (the large-effect rule decided)"}.get(state.rule, "")


def _warn(text: str) -> None:
    err_console.print(f"warning: {text}", highlight=False, markup=False, soft_wrap=True)


def _boards(boards: list[int], shown: int = 8) -> str:
    """``N (b1, b2, ...)``: how many boards, and the first ``shown`` of them (``--json`` lists all)."""
    if not boards:
        return "0"
    more = f", ... {len(boards) - shown} more" if len(boards) > shown else ""
    return f"{len(boards)} ({', '.join(map(str, boards[:shown]))}{more})"
