"""Keep numba's on-disk cache honest about compiled calls into other files.

numba decides whether a cached function is current from its own source file only, yet a compiled
call to a function of another file is linked into the caller's cache: after an edit of the callee,
the caller would keep running the old code from its cache. ``stamp_dependencies`` makes a module's
cached kernels go stale when any of the files they call into changes, by adding those files' hash
to numba's source stamp. (It goes through numba internals; should they change, the stamps stay
numba's own, and ``tests/players/test_solver_fast.py`` and ``tests/engine/test_compiled_game.py``
report it.)
"""

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
