"""`rollout`: apex with its close guesses settled by rollouts on exact posterior samples.

Modules: ``player`` (the player and the race between candidates), ``sampler`` (exact samples of
the posterior over layouts), ``playout`` (the compiled base policy that plays a sample out).
"""

from __future__ import annotations

from players.builtin.rollout.player import RolloutPlayer

__all__ = ["RolloutPlayer"]
