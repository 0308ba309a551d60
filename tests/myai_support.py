"""The course-shell adapter (arena/isolation/myai/host.py) loaded as a module of the test's process.

In the arena it runs as a program of its own inside the sandbox; the tests of its rules call its functions
directly, so both rooms that test it load it here, once.
"""

from __future__ import annotations

import importlib.util
from types import ModuleType

from arena.limits import SHELL_DIR

__all__ = ["load_adapter"]


def load_adapter() -> ModuleType:
    """The adapter's module, loaded from its file (it is not a package module the arena imports)."""
    spec = importlib.util.spec_from_file_location("myai_host_under_test", SHELL_DIR / "host.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
