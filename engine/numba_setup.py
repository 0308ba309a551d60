"""numba without scipy's linear algebra: 29 MB and 43 modules per process that no game uses.

numba's ``numba.np.arraymath`` imports ``scipy.linalg.cython_blas`` when it is first loaded (at
the first compiled call of a process), only to choose how compiled ``np.correlate`` and
``np.convolve`` sum products: through BLAS when scipy is there, else in a plain loop. No kernel of
this project calls either (numpy's BLAS products stay in numpy, outside compiled code:
docs/solver.md), so every worker paid scipy.linalg's import (its modules and its own OpenBLAS)
for nothing. ``load`` imports arraymath once with that one module hidden; anything that imports
scipy.linalg later gets it as usual, and a compiled call that needs BLAS (``np.dot`` on arrays,
``np.linalg``) still imports it when it is compiled. ``tests/engine/test_numba_setup.py`` checks
that a worker's games leave scipy.linalg unimported.
"""

from __future__ import annotations

import sys

__all__ = ["load"]

_BLAS = "scipy.linalg.cython_blas"


def load() -> None:
    """Import ``numba.np.arraymath`` with scipy's BLAS hidden, unless something imported either already."""
    if "numba.np.arraymath" in sys.modules or _BLAS in sys.modules:
        return
    sys.modules[_BLAS] = None  # type: ignore[assignment]  # import machinery: None means "not importable"
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if sys.modules.get(_BLAS, 0) is None:
            del sys.modules[_BLAS]


load()
