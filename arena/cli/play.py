"""`arena play`: watch one player play one board, move by move.

The game runs exactly as it would in a tournament: the player comes from the same catalogue
(built-ins, ``--plugin`` files, ``--engine-bot`` commands), is run by the same worker code (a plugin
or engine bot in a process of its own, under the time and memory limits) and plays through the
tournament's game loop; this command only draws the board after every move. A game the bot loses
by misbehaving (an exception, an illegal action, a crash, a timeout) exits with code 1, so a script
can tell a broken bot from an unlucky one.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.console import Group
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from arena.cli import common, player_options
from arena.cli.common import UsageError, board_from_options, cli_errors, console, err_console, print_json
from arena.cli.player_options import checked_players, limits_from, player_catalog
from arena.cli.render import BoardView, board_text
from arena.cli.stored import stored_game, tournament_id
from arena.cli.terminal_replay import replay_frames
from arena.config import PlayerRef, TournamentConfig
from arena.isolation.discovery.catalog import PlayerCatalog
from arena.limits import DEFAULT_LIMITS, Clock, EngineBot, Isolation, SandboxMode
from arena.outcome import DIAGNOSTICS, GameResult, Outcome
from arena.play.agents import agent_for, close_agents
from arena.play.runner import play_game
from arena.play.signals import Terminated, sigterm_stops
from arena.play.worker import init_worker
from arena.results.store import Store
from engine import COVERED, FLAGGED, MINE, Action, BoardSpec, FirstClick, Game
from engine.layout import check_seed

#: The player when none is named and no --plugin or --engine-bot offers one.
DEFAULT_PLAYER = "random"
#: Seconds between the frames of a terminal unless --delay says otherwise (a pipe gets the last frame only).
TERMINAL_DELAY = 0.15


@cli_errors
def command(
    player: Annotated[
        str | None,
        typer.Option(
            "--player",
            "-p",
            help=f"Player name; default: the one --engine-bot or --plugin player given, else {DEFAULT_PLAYER}.",
            show_default=False,
        ),
    ] = None,
    difficulty: common.Difficulty = None,
    size: common.Size = None,
    mines: common.Mines = None,
    first_click: common.FirstClickOpt = "safe",
    seed: common.Seed = 0,
    board: Annotated[int, typer.Option("--board", help="Board index within the seed.")] = 0,
    delay: Annotated[
        float | None,
        typer.Option(
            "--delay", help=f"Seconds between moves in a terminal (default {TERMINAL_DELAY}).", show_default=False
        ),
    ] = None,
    option: player_options.OptionOpt = None,
    plugin: common.PluginOpt = None,
    engine_bot: player_options.EngineBotOpt = None,
    bot_dir: player_options.BotDirOpt = None,
    isolation: player_options.IsolationOpt = Isolation.AUTO,
    sandbox: player_options.SandboxOpt = SandboxMode.AUTO,
    move_time: player_options.MoveTimeOpt = DEFAULT_LIMITS.move_time,
    game_time: player_options.GameTimeOpt = DEFAULT_LIMITS.game_time,
    memory_mb: player_options.MemoryOpt = DEFAULT_LIMITS.memory_mb,
    clock: player_options.ClockOpt = Clock.WALL,
    json_out: common.JsonOpt = False,
    replay_of: Annotated[
        str | None,
        typer.Option(
            "--replay",
            help="Step through the stored game of --player on --board of this tournament (`latest`: the latest).",
            show_default=False,
        ),
    ] = None,
    store: common.StoreOpt = None,
) -> None:
    if delay is not None and delay < 0:
        raise UsageError(f"--delay must be zero or more, got {delay}")
    if replay_of is not None:
        if json_out:
            raise UsageError("--json does not go with --replay; `arena replay` writes a stored game as HTML")
        _replay(replay_of, player, board, store, TERMINAL_DELAY if delay is None else delay)
        return
    spec, rule = board_from_options(difficulty, size, mines, first_click)
    check_seed(seed, "--seed")
    check_seed(board, "--board")
    limits = limits_from(move_time, game_time, memory_mb, clock)
    try:
        with sigterm_stops():  # SIGTERM ends the game as Ctrl-C does, and the bot with it
            catalog, bots = player_catalog(plugin, engine_bot, isolation, probe=False, sandbox=sandbox, bot_dir=bot_dir)
            name = player or _default_player(catalog, bots)
            (ref,) = checked_players(catalog, (PlayerRef(name=name),), option)
            config = TournamentConfig.build(
                spec,
                rule,
                seed=seed,
                games=1,
                players=(ref,),
                isolation=isolation,
                sandbox=sandbox,
                limits=limits,
                engine_bots=bots,
            )
            view = _View(ref.key, spec, rule, seed, board, TERMINAL_DELAY if delay is None else delay)
            result = _play(view, ref, config, catalog.plugin_files, live=not json_out and console.is_terminal)
            if not json_out and not console.is_terminal:
                console.print(view.frame())  # a pipe or a log gets the last frame only
    except KeyboardInterrupt as stop:
        signum = signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT
        err_console.print(f"[yellow]{'terminated' if signum == signal.SIGTERM else 'interrupted'}[/]", highlight=False)
        raise typer.Exit(128 + signum) from None
    if json_out:
        print_json(
            {
                "player": ref.key,
                "seed": seed,
                "board": board,
                "difficulty": spec.label,
                "rule": rule.value,
                "status": result.outcome.value,
                "problem": result.error,
                "moves": view.moves,
                "bbbv": result.bbbv,
                "bbbv_solved": result.bbbv_solved,
            }
        )
    if result.outcome not in (Outcome.WON, Outcome.LOST):
        err_console.print(
            f"[bold red]error:[/] {escape(ref.key)} failed ({result.outcome.value}): {escape(_reason(result.error))}",
            highlight=False,
            soft_wrap=True,  # one line, however long
        )
        raise typer.Exit(1)


def _replay(tournament: str, player: str | None, board: int, store: Path | None, pause: float) -> None:
    """A stored game, frame by frame in a terminal (``pause`` seconds apart); a pipe or a log gets the last
    frame, the finished board with its hidden mines. The store is only read."""
    with Store(store, read_only=True) as db:
        tid = tournament_id(db, None if tournament == "latest" else tournament)
        if player is None:
            names = [p.key for p in db.players(tid)]
            if len(names) != 1:
                raise UsageError(f"name the player with -p; tournament {tid} has players {', '.join(names)}")
            player = names[0]
        game = stored_game(db, tid, player, board)
    live = console.is_terminal
    frames = list(replay_frames(game, probabilities=live))  # the odds of the next move show in a terminal only
    if not live:
        console.print(frames[-1])
        return
    try:
        with Live(frames[0], console=console, auto_refresh=False) as screen:
            for frame in frames[1:]:
                if pause:
                    time.sleep(pause)
                screen.update(frame, refresh=True)
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted[/]", highlight=False)
        raise typer.Exit(130) from None


def _reason(error: str) -> str:
    """A failed game's error column in one line: the arena's message, and the last line the bot wrote
    to stderr when that says more (a crashed bot's own last words are usually the cause)."""
    message, _, stderr = error.partition(DIAGNOSTICS)
    reason = " ".join(line.strip() for line in message.splitlines() if line.strip()) or "no reason given"
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if lines and lines[-1] not in reason:
        reason += f" (its stderr ends: {lines[-1]})"
    return reason


def _default_player(catalog: PlayerCatalog, bots: tuple[EngineBot, ...]) -> str:
    """The player a newcomer means: the one engine bot, else the one player of the --plugin files."""
    if bots:
        if len(bots) > 1:
            raise UsageError(f"several engine bots ({', '.join(b.name for b in bots)}): choose one with --player")
        return bots[0].name
    if catalog.plugin_files:
        found = sorted(n for n, e in catalog.players.items() if e.source.startswith("file "))
        if not found:
            catalog.check_requested(())  # a missing file, or one that cannot be loaded: say which, and why
            raise UsageError("the --plugin files register no player")
        if len(found) > 1:
            raise UsageError(f"the --plugin files offer players {', '.join(found)}: choose one with --player")
        return found[0]
    return DEFAULT_PLAYER


def _play(
    view: _View, ref: PlayerRef, config: TournamentConfig, plugin_files: tuple[str, ...], *, live: bool
) -> GameResult:
    """The game, as a tournament worker plays it (``arena.play.worker``), drawn after each move when ``live``."""
    init_worker(plugin_files, single_thread=False, pool=False)  # no busy-waiting pipes: a person is watching
    try:
        with Live(view.frame(), console=console, auto_refresh=False) if live else _NoLive() as screen:
            view.screen = screen
            try:
                agent = agent_for(ref, config)
            except Exception as exc:  # a constructor that raises: the player's failure, as in a tournament
                error = f"could not set up the player: {type(exc).__name__}: {exc}"
                result = GameResult.failed(ref.key, view.board, Outcome.ERROR, error)
            else:
                result = play_game(
                    agent,
                    ref.key,
                    config.spec,
                    config.rule,
                    config.seed,
                    view.board,
                    move_limit=config.move_limit,
                    limits=config.limits,
                    compiled=False,
                    on_move=view.moved,
                )
            view.finish(result)
    finally:
        close_agents()  # an isolated player's process ends with the command, Ctrl-C or not
    return result


class _View:
    """What the screen shows: the game as the arena sees it (the layout only once it is over)."""

    def __init__(self, key: str, spec: BoardSpec, rule: FirstClick, seed: int, board: int, pause: float) -> None:
        self.key, self.spec, self.rule, self.seed, self.board, self.pause = key, spec, rule, seed, board, pause
        self.game = Game(spec, rule, seed=seed, index=board)  # until the first move: every cell covered
        self.moves: list[str] = []
        self.result: GameResult | None = None
        self.screen: Live | None = None

    def moved(self, game: Game, action: Action) -> None:
        self.game = game
        self.moves.append(str(action))
        if self.screen is not None:
            self.screen.update(self.frame(), refresh=True)
            if self.pause:
                time.sleep(self.pause)

    def finish(self, result: GameResult) -> None:
        self.result = result
        if self.screen is not None:
            self.screen.update(self.frame(), refresh=True)

    def frame(self) -> Panel:
        game = self.game
        state = self.result.outcome.value if self.result is not None else game.status.value
        status = f"{state} · move {game.moves} · {game.safe_left} safe cells left"
        last = f"last: {self.moves[-1]}" if self.moves else "first move"
        title = f"{escape(self.key)} · {self.spec.label} · {self.rule.value} · seed {self.seed} board {self.board}"
        grid = BoardView(game.final_grid() if game.over else game.grid, game.exploded)
        return Panel(Group(grid, Text(f"{status} · {last}"), legend()), title=title, expand=False)


def legend() -> Text:
    """What the board's symbols mean, drawn by the board's own renderer so the two cannot disagree."""

    def cell(value: int, *, hit: bool = False) -> Text:
        text = board_text(np.array([[value]], dtype=np.int8), (0, 0) if hit else None)
        text.rstrip()
        return text

    lines = [
        [(cell(COVERED), "covered"), (cell(0), "no mine around"), (Text.assemble(cell(1), "-", cell(8)), "mines near")],
        [(cell(FLAGGED), "flag"), (cell(MINE), "mine"), (cell(MINE, hit=True), "the mine that was hit")],
    ]
    text = Text()
    for row, line in enumerate(lines):
        text.append("\n" if row else "")
        for number, (symbol, meaning) in enumerate(line):
            text.append("  " if number else "")
            text.append_text(symbol)
            text.append(f" {meaning}", style="dim")
    return text


class _NoLive:
    """Stands in for ``Live`` under --json: nothing is drawn."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
