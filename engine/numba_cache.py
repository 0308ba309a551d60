"""Keep numba's on-disk cache honest about compiled calls into other files: an edit of a callee
recompiles its callers in other modules (docs/solver.md, "numba's cache")."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from numba.core.dispatcher import Dispatcher

__all__ = ["stamp_dependencies"]


def stamp_dependencies(module: ModuleType, files: Iterable[Path]) -> None:
    """Make the cached kernels defined in ``module`` depend on the contents of ``files`` too."""
    digest = hashlib.sha256(b"".join(Path(name).read_bytes() for name in files)).hexdigest()
    for kernel in vars(module).values():
        if isinstance(kernel, Dispatcher) and kernel.py_func.__module__ == module.__name__:
            cache_file = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
            stamp = getattr(cache_file, "_source_stamp", None)
            if stamp is not None and not (isinstance(stamp, tuple) and stamp[-1] == digest):
                cache_file._source_stamp = (stamp, digest)
