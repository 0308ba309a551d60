"""A stored game in the terminal: one rich frame per step, for ``arena play --replay``.

The frames come from the same replay as the HTML page (``arena.analysis.replay``) and draw the board with the same
renderer as ``arena play`` (``board_text``), so a game looks alike wherever it is watched. Under each board:
the move just played and the cells it opened, and the move to come with what was exactly known when it was
chosen (its mine probability beside the safest available one, for a guess).
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from arena.analysis.replay import Choice, Replay, ReplayGame, note_text, replay
from arena.cli.render import BoardView

__all__ = ["choice_text", "replay_frames"]


def _pct(p: float) -> str:
    x = 100 * p
    if 0 < x < 0.01:
        return "<0.01%"
    return f"{x:.2f}%"


def choice_text(choice: Choice) -> Text:
    """The move to come, and what was known: "reveal 3,4? guess · mine probability 23.41% · safest 12.10% (4 cells)"."""
    text = Text.assemble((f"next, move {choice.number}: ", "dim"), str(choice.move))
    if choice.move.guess:
        text.append(" guess", style="bold yellow")
    if choice.certain == "safe":
        text.append(" · certainly safe", style="bold green")
    elif choice.certain == "mine":
        text.append(" · certainly a mine", style="bold green" if choice.move.kind == "flag" else "bold red")
    elif choice.probability is not None:
        text.append(" · mine probability ")
        text.append(_pct(choice.probability), style="bold red" if choice.riskier else "bold")
        if choice.riskier and choice.safest is not None:
            cells = f"{choice.safest_cells} cell{'s' if choice.safest_cells != 1 else ''}"
            if choice.safest == 0:
                text.append(f" · {cells} certainly safe", style="green")
            else:
                text.append(f" · safest available {_pct(choice.safest)} ({cells})", style="green")
        elif choice.safest is not None and choice.move.kind == "reveal":
            tied = f" (tied with {choice.safest_cells - 1} more)" if choice.safest_cells > 1 else ""
            text.append(f" · the safest{tied}", style="green")
    if choice.fatal:
        text.append(" — hits a mine", style="bold red")
    note = note_text(choice.move.note)
    if note:
        text.append(f"\n  its note: {note}", style="italic")
    return text


def replay_frames(game: ReplayGame | Replay, *, probabilities: bool = True) -> Iterator[RenderableType]:
    """One panel per step (step 0: nothing played yet; the last shows the hidden mines). ``probabilities=False``
    skips the analysis, and with it the "next move" odds: only the board and the moves."""
    rep = game if isinstance(game, Replay) else replay(game, probabilities=probabilities)
    g = rep.game
    title = escape(f"{g.player} · {g.spec.label} · {g.rule} · seed {g.seed} board {g.board} · {rep.outcome}")
    for step in rep.steps:
        end = step.number == rep.moves
        grid = rep.final_grid() if end else step.grid
        covered = int((step.grid < 0).sum())
        status = Text(f"move {step.number} / {rep.moves}", style="bold")
        if step.move is not None:
            status.append(f" · {step.move}")
            if end and rep.exploded is not None:
                status.append(" — hit a mine", style="bold red")
            elif step.opened:
                status.append(f" — opened {len(step.opened)} cell{'s' if len(step.opened) != 1 else ''}")
        status.append(f" · flags {step.flags} · safe cells left {max(0, covered - g.spec.mines)}", style="dim")
        if end:
            status.append(f" · {rep.outcome}", style="bold green" if rep.outcome == "won" else "bold red")
            if g.error.strip():
                status.append(f": {g.error.strip().splitlines()[0]}")
        parts: list[RenderableType] = [BoardView(grid, rep.exploded if end else None), status]
        choice = rep.choice(step.number + 1)
        if choice is not None:
            parts.append(choice_text(choice))
        yield Panel(Group(*parts), title=title, expand=False)
