"""numba without scipy's linear algebra: 29 MB and 43 modules per process that no game uses.

numba's ``numba.np.arraymath`` imports ``scipy.linalg.cython_blas`` when it is first loaded (at
the first compiled call of a process), only to choose how compiled ``np.correlate`` and
``np.convolve`` sum products: through BLAS when scipy is there, else in a plain loop. No kernel of
this project calls either (numpy's BLAS products stay in numpy, outside compiled code:
docs/solver.md), so every worker paid scipy.linalg's import (its modules and its own OpenBLAS)
for nothing. ``install`` puts a finder on ``sys.meta_path`` that waits for numba to import
arraymath (so a process that never runs compiled code, like a tournament's main process, does not
import it at all) and runs that one import with scipy's BLAS hidden; anything that imports
scipy.linalg later gets it as usual, and a compiled call that needs BLAS (``np.dot`` on arrays,
``np.linalg``) still imports it when it is compiled. ``tests/engine/test_numba_setup.py`` checks
that a worker's games leave scipy.linalg unimported.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["install"]

_BLAS = "scipy.linalg.cython_blas"
_ARRAYMATH = "numba.np.arraymath"


class _BlasHidden(importlib.abc.Loader):
    """``loader``, executing its module while ``scipy.linalg.cython_blas`` cannot be imported."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        hidden = _BLAS not in sys.modules
        if hidden:
            sys.modules[_BLAS] = None  # type: ignore[assignment]  # the import system's "not importable"
        try:
            self.loader.exec_module(module)
        finally:
            if hidden and sys.modules.get(_BLAS, 0) is None:
                del sys.modules[_BLAS]


class _ArraymathFinder(importlib.abc.MetaPathFinder):
    """Finds ``numba.np.arraymath`` as the path finder does, with a loader that hides BLAS; once."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != _ARRAYMATH:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _BlasHidden(spec.loader)
        return spec


def install() -> None:
    """Hide scipy's BLAS from numba's arraymath when it is imported (nothing if it already was)."""
    if _ARRAYMATH in sys.modules or _BLAS in sys.modules:
        return
    if not any(isinstance(finder, _ArraymathFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _ArraymathFinder())


install()
