"""Each numba kernel is compiled once per set of argument types, not again for a literal or a read-only flag.

numba compiles a function again for every literal argument a compiled caller passes (``f(x, 0)``
and ``f(x, n)`` are two compilations) and for read-only arrays (a global table, an observation's
grid) apart from writable ones: each copy costs compile time on a new machine (issue 15, "the first
hour"). Callers pass ``np.int64(...)`` / ``np.bool_(...)`` constants and one kind of array instead.
Copies only show when compiling (a cached caller brings its callees along), so the games run in a
process of their own with an empty numba cache. That process compiles without LLVM's optimisations
(``NUMBA_OPT=0``): which copies exist is decided when numba types a call, before LLVM optimises anything
(a literal argument gives a second signature at any level), and skipping the optimiser cuts the test's
CPU time by about 40% (80 s to 47 s on this project's 92 kernels).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Kernels left with copies that differ by a literal only, and why.
KNOWN: set[str] = set()

SCRIPT = """
import json, sys
# No numba cache at all, neither read nor written: every kernel is compiled here (a cached caller would bring
# its callees along unseen), and writing the cache (serialising each kernel's machine code) cost about 5 s
# of this process's 51 s of CPU.
from numba.core.dispatcher import Dispatcher
Dispatcher.enable_caching = lambda self: None
from numba.core import types
from numba.core.registry import CPUDispatcher
from arena.results import records
from arena.play.runner import play_game
from engine import BEGINNER, FirstClick, Game
from players.registry import Registry

def plain(signature):
    out = []
    for ty in signature:
        ty = types.unliteral(ty)
        if isinstance(ty, types.Array) and not ty.mutable:
            ty = ty.copy(readonly=False)
        out.append(ty)
    return tuple(out)

registry = Registry((), entry_points=False)
for name in sys.argv[1:]:
    player = registry.create(name, {})
    for board in range(8):
        result = play_game(player, name, BEGINNER, FirstClick.SAFE, 3, board, record=True)
        records.decode(result.record)
        play_game(player, name, BEGINNER, FirstClick.SAFE, 3, board, record=True, compiled=False)
copies = {}
inspected = set()
for module_name, module in list(sys.modules.items()):
    if module_name.split(".")[0] not in ("engine", "players", "arena"):
        continue
    for name, kernel in vars(module).items():
        if isinstance(kernel, CPUDispatcher) and kernel.__module__ == module_name:
            if kernel.signatures:
                inspected.add(module_name + "." + name)
            kinds = [plain(s) for s in kernel.signatures]
            if len(set(kinds)) < len(kinds):
                copies[module_name + "." + name] = [str(s) for s in kernel.signatures]
# The check itself, in this process and at its optimisation level: a kernel called with a literal from
# one compiled caller and with a variable from another must show as copies.
from numba import njit
import numpy as np
probe = njit(lambda x, n: x[:n].sum())
both = njit(lambda x, n: probe(x, 0) + probe(x, n))
both(np.ones(3), np.int64(2))
seen = [plain(s) for s in probe.signatures]
print(json.dumps({"copies": copies, "inspected": sorted(inspected), "probe_found": len(set(seen)) < len(seen)}))
"""

#: At least this many compiled kernels must be found (the two players' games compile about 80): a walk
#: that finds none (a renamed dispatcher class, a module not imported) would otherwise pass.
MIN_KERNELS = 50


@pytest.mark.slow
@pytest.mark.timeout(1200)  # compiles every kernel from cold: 329 s at load 15 (before NUMBA_OPT=0), past 300 s
def test_no_kernel_is_compiled_twice_for_the_same_types(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "NUMBA_OPT": "0"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "enumeration", "random"], env=env, capture_output=True, text=True, check=True
    )
    found = json.loads(done.stdout.splitlines()[-1])
    inspected, copies = found["inspected"], found["copies"]
    print(f"{len(inspected)} compiled kernels inspected")
    assert len(inspected) >= MIN_KERNELS, f"only {len(inspected)} compiled kernels inspected: {inspected}"
    assert any(name.startswith("players.") for name in inspected), inspected
    assert any(name.startswith("engine.") for name in inspected), inspected
    assert found["probe_found"], "a kernel compiled for a literal and for a variable was not seen as copies"
    assert not {name: found for name, found in copies.items() if name not in KNOWN}
