"""`apex`: exact weighted probabilities, lookahead on near-safest guesses, 50/50s, endgame search.

Modules: ``player`` (decisions and options), ``outlook`` (exact what-if reveals), ``endgame``
(exact game-tree search over few layouts), ``patterns`` (unavoidable 50/50s).
"""

from __future__ import annotations

from players.builtin.apex.player import ApexPlayer

__all__ = ["ApexPlayer"]
