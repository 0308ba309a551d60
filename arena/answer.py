"""What a Python player's ``play`` returned, as would-be actions: one reading for every mode.

The game loop (``arena.play.runner``) and the isolated Python host (``arena.isolation.protocol.bot_host``) both
take a player's answer through ``as_actions``, so a mistake is refused in the same words whichever
way the player runs. Here, apart from both, so that the host does not import the game loop.
"""

from __future__ import annotations

from typing import Any

from engine import Action, Actions, InvalidActionError

__all__ = ["EXPECTED", "WARM_UP_SEED", "as_actions"]

#: The tournament seed of the throwaway game a player plays before its first real one (a warm-up).
WARM_UP_SEED = 2**62 + 12345

#: What a Python player's ``play`` must return, said the same way by every mode that runs one.
EXPECTED = "expected an Action or a list of Actions"


def as_actions(answer: Any) -> list[Any] | Actions:
    """A player's answer as a list of would-be actions (one action, or an iterable of them; an
    ``Actions`` as it is). The items are checked by the engine when played.

    Raises ``InvalidActionError`` in Python terms (the player is Python code, trusted here or
    behind ``arena.isolation.protocol.bot_host``) for an answer that holds no action at all: None (a ``play`` that
    falls off its end), an empty list, text, or anything that is not iterable."""
    if answer is None:
        raise InvalidActionError(f"play() returned None, {EXPECTED} (does every path through play() return?)")
    if type(answer) is Actions:
        if not len(answer):
            raise InvalidActionError("play() returned an empty Actions; return at least one action")
        return answer
    if isinstance(answer, Action) or (isinstance(answer, tuple) and answer and isinstance(answer[0], str)):
        return [answer]
    if isinstance(answer, str | bytes):
        raise InvalidActionError(f"play() returned {_shown(answer)}, {EXPECTED}")
    try:
        actions = list(answer)
    except TypeError:
        raise InvalidActionError(f"play() returned {_shown(answer)}, {EXPECTED}") from None
    if not actions:
        raise InvalidActionError(f"play() returned an empty {type(answer).__name__}; return at least one action")
    return actions


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
