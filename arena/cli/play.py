"""`arena play`: watch one player play one board, move by move."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import Annotated

import typer
from rich.console import Group
from rich.live import Live
from rich.panel import Panel

from arena.cli.common import (
    Difficulty,
    FirstClickOpt,
    JsonOpt,
    Mines,
    PluginOpt,
    Seed,
    Size,
    UsageError,
    board_from_options,
    cli_errors,
    console,
    print_json,
)
from arena.cli.render import board_text
from engine import Action, EngineError, Game, player_generator
from engine.layout import check_seed
from players import Registry


@cli_errors
def command(
    player: Annotated[str, typer.Option("--player", help="Registered player name.")] = "random",
    difficulty: Difficulty = None,
    size: Size = None,
    mines: Mines = None,
    first_click: FirstClickOpt = "safe",
    seed: Seed = 0,
    board: Annotated[int, typer.Option("--board", help="Board index within the seed.")] = 0,
    delay: Annotated[
        float | None, typer.Option("--delay", help="Seconds between moves (default 0.15 in a terminal, else 0).")
    ] = None,
    plugin: PluginOpt = None,
    json_out: JsonOpt = False,
) -> None:
    spec, rule = board_from_options(difficulty, size, mines, first_click)
    check_seed(board, "--board")
    if delay is not None and delay < 0:
        raise UsageError(f"--delay must be zero or more, got {delay}")
    registry = Registry([str(p) for p in plugin or []])
    bot = registry.create(player)
    game = Game(spec, rule, seed=seed, index=board)
    bot.reset(player_generator(seed, board, bot.name), spec, rule)
    pause = delay if delay is not None else (0.15 if sys.stdout.isatty() and not json_out else 0.0)
    moves: list[str] = []
    problem = ""

    def frame() -> Panel:
        status = f"{game.status.value} · move {game.moves} · {game.safe_left} safe cells left"
        last = f"last: {moves[-1]}" if moves else "first move"
        title = f"{bot.name} · {spec.label} · {rule.value} · seed {seed} board {board}"
        body = Group(board_text(game.final_grid() if game.over else game.grid, game.exploded), f"{status} · {last}")
        return Panel(body, title=title, expand=False)

    limit = 6 * spec.cells + 100
    answers = 0
    with Live(frame(), console=console, auto_refresh=False, transient=False) if not json_out else _Null() as live:

        def played(action: Action) -> None:
            moves.append(str(action))
            if live is not None:
                live.update(frame(), refresh=True)
                if pause:
                    time.sleep(pause)

        while not game.over:
            answers += 1
            if game.moves > limit or answers > limit:
                problem = f"no result after {limit} moves"
                break
            try:
                actions = _actions(bot.play(game.observation()))
            except Exception as error:  # the bot's own failure, shown as such
                problem = f"the player raised {type(error).__name__}: {error}"
                break
            if not actions:
                problem = "play() returned no action"
                break
            try:
                game.play_answer(actions, on_move=played)
            except EngineError as error:
                problem = f"illegal action: {error}"
                break
    if json_out:
        stats = game.stats()
        print_json(
            {
                "player": bot.name,
                "seed": seed,
                "board": board,
                "difficulty": spec.label,
                "rule": rule.value,
                "status": game.status.value,
                "problem": problem,
                "moves": moves,
                "bbbv": stats.bbbv,
                "bbbv_solved": stats.bbbv_solved,
            }
        )
    elif problem:
        console.print(f"[red]{problem}[/]", highlight=False)


def _actions(answer: object) -> list[Action]:
    """One action or several; anything else becomes an engine error in ``Game.apply``."""
    if answer is None:
        return []
    if isinstance(answer, Action | str) or not isinstance(answer, Iterable):
        return [answer]  # type: ignore[list-item]
    return list(answer)


class _Null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
