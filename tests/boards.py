"""Shared test helper: the mine layout of a tournament's board for one first click, as a game draws it."""

from __future__ import annotations

import numpy as np

from engine import BoardSpec, FirstClick, Game


def draw_layout(spec: BoardSpec, rule: FirstClick | str, seed: int, index: int, click: tuple[int, int]) -> np.ndarray:
    """The (height, width) boolean layout of board ``index`` of ``seed`` when the first click is ``click``."""
    return Game(spec, rule, seed=seed, index=index).mine_layout(click)
