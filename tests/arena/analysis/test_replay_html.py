"""Replays of recorded games: the replay reproduces the engine's states, the page's data holds the exact
analysis of every position, bad records are refused, and the page is self-contained (the browser tests in
``test_replay_browser.py`` open it for real)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from rich.console import Console

from arena.analysis.replay import (
    IndexEntry,
    ReplayError,
    ReplayGame,
    ReplayMove,
    build_index_html,
    build_replay_html,
    first_divergence,
    replay,
    replay_payload,
)
from arena.analysis.replay.page import decode_layout, decode_page_moves
from arena.cli.terminal_replay import replay_frames
from arena.outcome import Outcome
from engine import BEGINNER, COVERED, EXPERT, FLAGGED, INTERMEDIATE, Action, BoardSpec, FirstClick
from players import Player

SMALL = BoardSpec(6, 7, 8)


def page_data(page: str) -> dict:
    """The JSON a page carries (what its script reads)."""
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert match is not None
    return json.loads(match.group(1))


def without_flags(grid: np.ndarray) -> np.ndarray:
    out = grid.copy()
    out[out == FLAGGED] = COVERED
    return out


@pytest.mark.parametrize(
    ("player", "spec", "rule", "board"),
    [
        ("random", BEGINNER, "safe", 3),
        ("rref", BEGINNER, "opening", 1),
        ("enumeration", INTERMEDIATE, "safe", 2),
        ("max-single-constraint", SMALL, "none", 4),
        ("mean-constraint", BEGINNER, "windows", 5),
    ],
)
def test_replay_reproduces_every_state_of_the_game(record_game, player, spec, rule, board):
    played = record_game(player, spec, rule, seed=7, board=board)
    rep = replay(played.game)
    assert rep.moves == len(played.game.moves) == played.result.moves
    for k, step in enumerate(rep.steps):
        np.testing.assert_array_equal(step.grid, played.grids[k], err_msg=f"step {k}")
        if k:
            before, after = played.grids[k - 1].reshape(-1), played.grids[k].reshape(-1)
            assert set(step.opened) == set(np.flatnonzero((before < 0) & (after >= 0)).tolist())
    assert rep.outcome == played.result.outcome.value
    assert rep.bbbv == played.result.bbbv and rep.bbbv_solved == played.result.bbbv_solved


def test_page_data_holds_the_moves_and_the_layout(record_game):
    """The page carries the game compactly: its moves (kind, cell, guess mark) and the mine layout it was played
    on; the page plays them again and computes each position's odds (held equal to the Python reference by
    test_replay_js.py, and in the browser by test_replay_browser.py)."""
    played = record_game("rref", BEGINNER, "safe", seed=3, board=0)
    rep = replay(played.game, probabilities=False)
    data = page_data(build_replay_html([played.game]))
    (game,) = data["games"]
    assert data["version"] == 2 and game["w"] == 2
    moves = decode_page_moves(game["moves"], game["cols"], game["w"])
    assert moves == [(m.kind.value, m.row, m.col, m.guess) for m in played.game.moves]
    assert any(kind == "flag" for kind, *_ in moves), "the game should have flags to show"
    assert (decode_layout(game["layout"], 9, 9) == rep.layout).all() and rep.layout.sum() == BEGINNER.mines
    assert len(game["moves"]) == 2 * len(moves) and len(game["layout"]) == 14  # 81 cells, six to a digit
    assert "steps" not in game  # nothing per position: the page computes it


def test_a_flag_keeps_its_real_odds():
    """A flag is the player's claim, not information: the probabilities ignore it, so an unsure (or wrong)
    flag shows its real chance, and the page carries it for the flagged cell."""
    first = replay(ReplayGame("p", BEGINNER, "opening", 0, 0, [ReplayMove.from_action(Action.reveal(4, 4))]))
    grid = first.steps[1].grid
    far = [(r, c) for r in range(9) for c in range(9) if (grid[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2] < 0).all()]
    cell = far[0]
    moves = [ReplayMove.from_action(Action.reveal(4, 4)), ReplayMove.from_action(Action.flag(*cell))]
    game = ReplayGame("p", BEGINNER, "opening", 0, 0, moves)
    after_flag = replay(game).steps[2]
    assert after_flag.grid[cell] == FLAGGED
    p = after_flag.analysis.probabilities[cell]
    assert 0 < p < 1 and p == first.steps[1].analysis.probabilities[cell]


def test_the_first_click_has_the_uniform_odds_only_without_protection():
    moves = [ReplayMove.from_action(Action.reveal(2, 2))]
    protected = replay(ReplayGame("p", SMALL, "safe", 0, 0, moves))
    assert protected.steps[0].analysis is None and "safe" in protected.steps[0].analysis_note
    bare = replay(ReplayGame("p", SMALL, "none", 0, 0, moves))
    assert bare.steps[0].analysis is not None
    assert np.allclose(bare.steps[0].analysis.probabilities, SMALL.mines / SMALL.cells)


def test_a_record_that_does_not_replay_is_refused(record_game):
    played = record_game("random", BEGINNER, "safe", seed=1, board=0)
    game = played.game
    assert game.outcome in (Outcome.WON, Outcome.LOST)
    claim = Outcome.WON if game.outcome is Outcome.LOST else Outcome.LOST
    wrong_outcome = ReplayGame(game.player, game.spec, game.rule, game.seed, game.board, game.moves, claim)
    with pytest.raises(
        ReplayError, match=f"leave the game {game.outcome.value}, but the stored outcome is {claim.value}"
    ):
        replay(wrong_outcome)
    too_many = ReplayGame(game.player, game.spec, game.rule, game.seed, game.board, [*game.moves, game.moves[0]])
    with pytest.raises(ReplayError, match="goes on after the game ended"):
        replay(too_many)
    again = ReplayGame(game.player, game.spec, game.rule, game.seed, game.board, [game.moves[0], game.moves[0]])
    with pytest.raises(ReplayError, match=r"move 2 \(reveal 0,0\): .*already revealed"):
        replay(again)
    other_board = ReplayGame(game.player, game.spec, game.rule, game.seed, game.board + 1, game.moves, game.outcome)
    with pytest.raises(ReplayError, match=f"the record of random on board {game.board + 1} of seed 1"):
        replay(other_board)
    first = game.moves[0]
    lying = ReplayMove(first.kind, first.row, first.col, opened=((5, 5), (5, 6)))
    with pytest.raises(ReplayError, match="record says 2"):
        replay(ReplayGame(game.player, game.spec, game.rule, game.seed, game.board, [lying]))
    with pytest.raises(ReplayError, match="side by side needs one board"):
        build_replay_html([game, other_board])
    with pytest.raises(ReplayError, match="one game or two"):
        build_replay_html([game, game, game])


def test_a_game_the_bot_broke_replays_to_where_it_stopped(scripted):
    """An illegal action ends the game as the bot's fault: the record holds the moves before it."""
    script = iter([[Action.reveal(0, 0)], [Action.reveal(0, 0)]])
    from arena.play.runner import play_game

    played: list[ReplayMove] = []
    result = play_game(
        scripted(lambda observation: next(script)),
        "scripted",
        BEGINNER,
        FirstClick.SAFE,
        0,
        2,
        on_move=lambda game, action: played.append(ReplayMove.from_action(action)),
    )
    assert result.outcome is Outcome.ILLEGAL
    game = ReplayGame("scripted", BEGINNER, "safe", 0, 2, played, result.outcome, result.error)
    rep = replay(game)
    assert rep.status.value == "playing" and rep.layout is not None
    data = page_data(build_replay_html([game]))
    assert data["games"][0]["outcome"] == "illegal" and "already revealed" in data["games"][0]["error"]
    assert decode_layout(data["games"][0]["layout"], 9, 9).sum() == BEGINNER.mines


def test_first_divergence():
    a = [ReplayMove.from_action(x) for x in (Action.reveal(0, 0), Action.flag(1, 1), Action.reveal(2, 2))]
    same_but_marked = [ReplayMove.from_action(Action.reveal(0, 0, guess=True), note="hm"), a[1], a[2]]
    assert first_divergence(a, same_but_marked) is None
    assert first_divergence(a, [a[0], ReplayMove.from_action(Action.reveal(1, 1))]) == 1
    assert first_divergence(a, a[:2]) == 2
    assert first_divergence([], a) == 0


def test_notes_are_carried_as_text_and_cut():
    evil = "</script><script>alert(1)</script><!-- " + "x" * 1000
    moves = [ReplayMove.from_action(Action.reveal(0, 0), note={"note": evil, "p_mine": 0.123456789})]
    page = build_replay_html([ReplayGame("p", SMALL, "none", 0, 0, moves)], title="<b>t</b>")
    assert "<script>alert" not in page and "<b>t</b>" not in page and "&lt;b&gt;t&lt;/b&gt;" in page
    assert page.count("</script>") == 2  # the data and the viewer: nothing in the data closes a script
    note = page_data(page)["games"][0]["notes"]["0"]
    assert note.startswith("</script><script>alert(1)") and note.endswith("…") and len(note) == 300
    assert (
        "p_mine 0.123457"
        in replay_payload(
            [
                ReplayGame(
                    "p",
                    SMALL,
                    "none",
                    0,
                    0,
                    [ReplayMove.from_action(Action.reveal(0, 0), note={"note": "short", "p_mine": 0.123456789})],
                )
            ],
            "t",
        )["games"][0]["notes"]["0"]
    )


def test_the_page_is_self_contained(record_game):
    played = record_game("enumeration", BEGINNER, "safe", seed=2, board=1)
    page = build_replay_html([played.game])
    lowered = page.lower()
    for needle in ("http:", "https:", "//cdn", "src=", "@import", "url(", '<link rel="stylesheet', "fetch("):
        assert needle not in lowered, needle
    assert page.startswith("<!doctype html>") and '<meta charset="utf-8">' in page


def expert_marathon(record_game):
    """The longest honest Expert game there is: every mine flagged, then every safe cell revealed one at a
    time (a player handed the layout, which flood fill cannot shorten much: it clicks numbers first)."""

    class Marathon(Player):
        name = "marathon"

        def reset(self, rng, spec, rule):
            super().reset(rng, spec, rule)
            self.layout = None

        def play(self, observation):
            from engine import Game

            if self.layout is None:
                self.layout = Game(EXPERT, "safe", seed=5, index=0).mine_layout((0, 0))
                return Action.reveal(0, 0)
            grid = observation.grid
            for r, c in zip(*np.nonzero(self.layout & (grid == COVERED)), strict=True):
                return Action.flag(int(r), int(c))
            safe = np.argwhere(~self.layout & (grid == COVERED))
            numbers = [tuple(cell) for cell in safe if _number(self.layout, *cell) > 0]
            r, c = numbers[0] if numbers else tuple(safe[0])
            return Action.reveal(int(r), int(c))

    return record_game(Marathon(), EXPERT, "safe", seed=5, board=0)


def _number(layout: np.ndarray, r: int, c: int) -> int:
    return int(layout[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2].sum())


@pytest.mark.slow
def test_an_expert_replay_stays_under_two_megabytes(record_game):
    played = expert_marathon(record_game)
    assert played.result.outcome is Outcome.WON
    assert len(played.game.moves) > 350  # 99 flags and over 250 reveals
    size = len(build_replay_html([played.game]).encode("utf-8"))
    assert size < 2_000_000, size
    print(f"expert marathon: {len(played.game.moves)} moves, {size} bytes")


def test_a_game_as_long_as_the_move_limit_stays_small():
    """The longest game the arena lets a bot play: flags put up and taken down until the move limit. The page
    carries two characters a move, whatever the positions: the viewer and the game in under 100 kB."""
    from arena.play.runner import default_move_limit

    limit = default_move_limit(EXPERT)
    moves = [ReplayMove.from_action(Action.reveal(0, 0))]
    while len(moves) < limit:
        moves += [ReplayMove.from_action(Action.flag(15, 29)), ReplayMove.from_action(Action.unflag(15, 29))]
    page = build_replay_html([ReplayGame("flagger", EXPERT, "opening", 0, 0, moves[:limit])])
    assert len(page_data(page)["games"][0]["moves"]) == 2 * limit
    size = len(page.encode("utf-8"))
    assert size < 100_000, size
    print(f"expert flag-unflag game of {limit} moves: {size} bytes")


def test_index_page_links_each_replay_and_escapes_names():
    entries = [
        IndexEntry("board-3.html", 3, ("apex", "rref"), ("won", "lost"), diverged_at=12),
        IndexEntry("board-9.html", 9, ("apex", "<i>x</i>"), ("lost", "won"), note="a & b"),
    ]
    page = build_index_html(entries, "apex vs rref", subtitle="2 split boards")
    assert page.count('href="board-') == 2 and "move 12" in page
    assert "&lt;i&gt;x&lt;/i&gt;" in page and "a &amp; b" in page and "<i>x</i>" not in page
    assert "http:" not in page and "https:" not in page
    assert '<span class="badge won">won</span>' in page and '<span class="badge lost">lost</span>' in page
    assert "no replays" in build_index_html([], "nothing")


def test_terminal_frames_step_through_the_game(record_game):
    played = record_game("random", BEGINNER, "safe", seed=0, board=4)
    frames = list(replay_frames(played.game))
    assert len(frames) == len(played.game.moves) + 1
    console = Console(width=120, record=True, color_system=None)
    for frame in frames:
        console.print(frame)
    text = console.export_text()
    assert "move 0 / " in text and f"move {len(frames) - 1} / {len(frames) - 1}" in text
    assert "next, move 1: reveal" in text
    last = Console(width=120, record=True, color_system=None)
    last.print(frames[-1])
    assert last.export_text().count("✱") == BEGINNER.mines - int((played.grids[-1] == FLAGGED).sum())
    rep = replay(played.game)
    guesses = [rep.choice(k) for k in range(1, rep.moves + 1) if rep.steps[k].move.guess]
    if guesses:
        choice = guesses[-1]
        assert f"mine probability {100 * choice.probability:.2f}%" in text
    assert sum(1 for _ in replay_frames(played.game, probabilities=False)) == len(frames)


def test_a_record_error_is_one_line_and_exit_code_2(record_game):
    """What ``arena replay`` will say about a record that does not reproduce its game: one line, exit 2."""
    import typer
    from typer.testing import CliRunner

    from arena.cli.common import cli_errors

    played = record_game("random", BEGINNER, "safe", seed=1, board=0)
    game = played.game
    bad = ReplayGame(game.player, game.spec, game.rule, game.seed, game.board + 1, game.moves, game.outcome)
    app = typer.Typer()

    @app.command()
    @cli_errors
    def show() -> None:
        build_replay_html([bad])

    result = CliRunner().invoke(app, [])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: the record of random on board 1 of seed 1")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_terminal_choice_text_names_the_guess_and_the_safest():
    from arena.analysis.replay import Choice
    from arena.cli.terminal_replay import choice_text

    guess = ReplayMove.from_action(Action.reveal(1, 2, guess=True), note="felt lucky")
    overlooked = choice_text(Choice(5, guess, 0.5, None, 0.0, 2, True)).plain
    assert overlooked.startswith("next, move 5: reveal 1,2? guess · mine probability 50.00%")
    assert "2 cells certainly safe" in overlooked and "hits a mine" in overlooked
    assert "its note: felt lucky" in overlooked
    riskier = choice_text(Choice(7, guess, 0.25, None, 0.1, 3, False)).plain
    assert "mine probability 25.00% · safest available 10.00% (3 cells)" in riskier
    best = choice_text(Choice(7, guess, 0.1, None, 0.1, 3, False)).plain
    assert "the safest (tied with 2 more)" in best
    sure = choice_text(Choice(2, ReplayMove.from_action(Action.flag(0, 0)), 1.0, "mine", 0.0, 4, False)).plain
    assert sure == "next, move 2: flag 0,0 · certainly a mine"
