"""`apex`: exact weighted probabilities, lookahead on near-safest guesses, 50/50s, endgame search."""

from __future__ import annotations

from players.builtin.apex.player import ApexPlayer

__all__ = ["ApexPlayer"]
