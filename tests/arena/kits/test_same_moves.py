"""Every starter kit and ``examples/standalone_bot.py`` play exactly the same moves on the same boards.

They share one generator and one starting strategy (docs/protocol.md), so the game records (every move,
its guess mark and its note) and the outcomes of all of them must be identical, game for game. A kit
whose client reads a message wrongly, orders its moves differently or draws from the generator otherwise
fails here. Each bot plays through ``arena tournament --engine-bot``, as an author's bot would, under the
same player name (the arena derives each game's seed from it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from repo import ROOT

from arena.kits import LANGUAGES
from arena.results.store import Store

from .conftest import KIT_NAME

STANDALONE = f"{sys.executable} {ROOT / 'examples' / 'standalone_bot.py'}"
#: (label, tournament options): 200 Beginner boards, and a few boards of the other first-click rules
#: (an opening click away from the corner; a first click that is a guess, with its note) on larger boards.
RUNS = {
    "beginner": ("-d", "beginner", "-n", "200"),
    "intermediate-opening": ("-d", "intermediate", "--first-click", "opening", "-n", "20"),
    "expert-none": ("-d", "expert", "--first-click", "none", "-n", "20"),
}
#: Kits run as a tournament runs them: in the sandbox where the machine has one (a kit's run.sh starts the
#: program built beside it, in the bot's own folder, which the sandbox shows).
SANDBOX = "auto"

Games = dict[str, list[tuple[int, str, tuple[Any, ...]]]]


def play(command: str, tmp: Path) -> Games:
    """Every run of ``command`` as the engine bot ``kit``: per run, (board, outcome, moves) by board; a game that
    did not end won or lost has its error beside its outcome ("crashed: ..."), so that a failure says why."""
    games: Games = {}
    for label, options in RUNS.items():
        store = tmp / f"{label}.db"
        result = subprocess.run(
            [sys.executable, "-c", "from arena.cli import main; main()", "tournament", *options,
             "--engine-bot", f"{KIT_NAME}={command}", "-p", KIT_NAME, "--store", str(store),
             "--sandbox", SANDBOX, "-w", "1", "-q", "--json"],
            capture_output=True, text=True, timeout=900, check=False, cwd=tmp,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-2000:]
        with Store(store, create=False, read_only=True) as db:
            tournament = db.latest()
            games[label] = [
                (
                    row.board,
                    row.outcome.value if row.outcome.value in ("won", "lost") else f"{row.outcome.value}: {row.error}",
                    tuple(db.game_record(tournament, KIT_NAME, row.board).moves),
                )
                for row in db.games(tournament)
            ]
    return games


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Games:
    """The standalone example's games."""
    return play(STANDALONE, tmp_path_factory.mktemp("standalone"))


@pytest.mark.slow
def test_the_reference_games_are_complete_and_exercise_the_generator(reference: Games) -> None:
    for label, options in RUNS.items():
        games = reference[label]
        assert [board for board, _, _ in games] == list(range(int(options[-1]))), label
        assert {outcome for _, outcome, _ in games} <= {"won", "lost"}, f"{label}: a game failed"
    moves = [move for games in reference.values() for _, _, record in games for move in record]
    guesses = [move for move in moves if move.guess]
    assert len(guesses) > 200 and all(move.note for move in guesses), "every guess carries its note"
    assert any(move.note == "first click: no rule makes it safe" for move in guesses)
    assert any(move.kind.value == "flag" for move in moves)
    beginner = reference["beginner"]
    assert 0 < sum(outcome == "won" for _, outcome, _ in beginner) < 200


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_kit_plays_the_same_moves_as_the_standalone_example(
    kit_builds, reference: Games, language: str, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    folder = kit_builds.get(language)
    games = play(str(folder / "run.sh"), tmp_path)
    for label in RUNS:
        mine, theirs = games[label], reference[label]
        assert len(mine) == len(theirs), label
        for (board, outcome, moves), (_, expected_outcome, expected_moves) in zip(mine, theirs, strict=True):
            assert outcome in ("won", "lost"), (
                f"{label} board {board}: the {language} kit's game ended {outcome[-1500:]}"
            )
            if moves != expected_moves:
                at = next(
                    (i for i, (a, b) in enumerate(zip(moves, expected_moves, strict=False)) if a != b),
                    min(len(moves), len(expected_moves)),
                )
                got = moves[at] if at < len(moves) else "nothing"
                expected = expected_moves[at] if at < len(expected_moves) else "nothing"
                pytest.fail(f"{label} board {board}, move {at}: the {language} kit played {got}, expected {expected}")
            assert outcome == expected_outcome, f"{label} board {board}"
