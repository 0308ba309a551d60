"""numpy's own float64 ``exp`` and ``matmul`` loops, called from compiled code (``numpy_loops``): numpy's
numbers, because numpy's loops are what run and they get the arguments numpy passes them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from players.solver import numpy_loops
from players.solver.analysis import piece_probabilities, unconstrained_probability

ROOT = Path(__file__).resolve().parents[2]


def test_numpys_loops_are_found() -> None:
    """On the numpy this project installs, both loops are found (else the guesses go to Python, slower)."""
    assert numpy_loops.AVAILABLE
    assert numpy_loops.loop_index(np.exp, "d->d") == np.exp.types.index("d->d")
    assert numpy_loops.loop_index(np.matmul, "dd->d") == np.matmul.types.index("dd->d")


def test_loops_it_cannot_vouch_for_are_refused() -> None:
    assert numpy_loops.loop_index(np.exp, "l->l") is None  # no such loop
    assert numpy_loops.loop_index(np.exp, "O->O") is None  # the object loop takes data (the function)
    assert numpy_loops.loop_index(np.frompyfunc(abs, 1, 1), "O->O") is None  # data, too


@pytest.mark.slow
@given(st.lists(st.one_of(st.floats(-800.0, 0.0), st.just(-np.inf)), min_size=0, max_size=70))
@settings(max_examples=300, deadline=None)
def test_exp_is_numpys(values: list[float]) -> None:
    x = np.array(values, dtype=np.float64)
    assert numpy_loops.exp(x).tobytes() == np.exp(x).tobytes()
    assert numpy_loops.exp(x[::2]).tobytes() == np.exp(x[::2]).tobytes()  # another stride


def test_exp_agrees_where_a_reimplementation_does_not() -> None:
    """The check has teeth: on these numbers numba's own ``np.exp`` differs from numpy's in the last bit
    (on this machine's numpy, in thousands of places), numpy's loop called from compiled code nowhere."""
    x = -np.random.default_rng(5).exponential(5.0, 100_000)
    assert (numpy_loops.exp(x) == np.exp(x)).all()
    assert len(x) == 100_000


@given(
    st.integers(0, 12),
    st.integers(0, 12),
    st.integers(0, 2**32 - 1),
)
@settings(max_examples=300, deadline=None)
def test_vector_matrix_products_are_numpys(rows: int, cols: int, seed: int) -> None:
    """``x @ a.reshape(rows, cols)``, sizes 0 and 1 included (numpy's loop takes no BLAS, or ``ddot``)."""
    generator = np.random.default_rng(seed)
    shares = generator.random(rows + 3) * generator.choice([1e-300, 1.0, 1e300])
    ratios = generator.random(rows * cols + 2) * generator.integers(1, 1000)
    x, a = shares[1 : 1 + rows], ratios[2:]
    out = np.full(cols, np.nan)
    numpy_loops.vecmat_into(x, a, rows, cols, out)
    assert out.tobytes() == (x @ a.reshape(rows, cols)).tobytes()


def _random_parts(generator: np.random.Generator) -> tuple:
    """``fast.guess_parts``' last five pieces for random components and frontier totals."""
    count = int(generator.integers(0, 4))
    exponents, ratios, spans = [], [], []
    for _ in range(count):
        rows, cols = int(generator.integers(1, 9)), int(generator.integers(1, 9))
        a, c = len(exponents), len(ratios)
        exponents += list(-generator.exponential(3.0, rows))
        ratios += list(generator.random(rows * cols))
        spans += [a, a + rows, c, c + rows * cols, rows, cols]
    totals = int(generator.integers(1, 9))
    at = len(exponents)
    exponents += list(-generator.exponential(3.0, totals))
    flat = np.array(exponents)
    flat[generator.random(flat.shape[0]) < 0.2] = -np.inf
    feasible = np.sort(generator.choice(totals, int(generator.integers(1, totals + 1)), replace=False)) + at
    rest = generator.integers(0, 60, feasible.shape[0]).astype(np.int64)
    return flat, np.array(ratios, np.float64), np.array(spans, np.int64), feasible.astype(np.int64), rest


@pytest.mark.slow
@given(st.integers(0, 2**32 - 1), st.integers(-1, 1), st.integers(0, 40))
@settings(max_examples=400, deadline=None)
def test_guess_probabilities_are_the_python_handovers(seed: int, u_state: int, unconstrained: int) -> None:
    """``guess_probabilities`` gives what ``_guess_pending`` computes in Python, to the bit."""
    exponents, ratios, spans, feasible_at, rest = _random_parts(np.random.default_rng(seed))
    shares = np.exp(exponents)
    want_p = piece_probabilities(shares, ratios, spans.tolist())
    want_u = unconstrained_probability(shares, feasible_at, rest, u_state, unconstrained)
    piece_p, u = numpy_loops.guess_probabilities(exponents, ratios, spans, feasible_at, rest, u_state, unconstrained)
    assert piece_p.tobytes() == np.asarray(want_p, np.float64).tobytes()
    assert np.float64(u).tobytes() == np.float64(want_u).tobytes()


_RECORDED = r"""
import ctypes, json, sys
import numpy as np
from players.solver import numpy_loops as nl

LOOP = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_ssize_t), ctypes.POINTER(ctypes.c_ssize_t),
                        ctypes.POINTER(ctypes.c_ssize_t), ctypes.c_void_p)
calls = []

def recorder(kind, real, n_args, n_dims, n_steps):
    forward = LOOP(real)
    def loop(args, dims, steps, data):
        calls.append({"kind": kind, "args": [args[i] for i in range(n_args)], "dims": [dims[i] for i in range(n_dims)],
                      "steps": [steps[i] for i in range(n_steps)], "data": data})
        forward(args, dims, steps, data)
    return LOOP(loop)

exp_at, matmul_at = nl.loop_index(np.exp, "d->d"), nl.loop_index(np.matmul, "dd->d")
exp_head, matmul_head = nl._UFuncHead.from_address(id(np.exp)), nl._UFuncHead.from_address(id(np.matmul))
real = exp_head.functions[exp_at], matmul_head.functions[matmul_at]
stand_ins = recorder("exp", real[0], 2, 1, 2), recorder("matmul", real[1], 3, 4, 9)
addresses = [ctypes.cast(f, ctypes.c_void_p).value for f in stand_ins]
exp_head.functions[exp_at], matmul_head.functions[matmul_at] = addresses  # numpy now calls the recorders
nl.link(*addresses)  # and so do the kernels, loaded after this
out = []
try:
    floats = np.random.default_rng(1).random(200)
    for n in (1, 2, 3, 8, 9, 33):
        x = -floats[5 : 5 + n] * 30
        for who, f in (("numpy", np.exp), ("kernel", nl.exp)):
            del calls[:]
            y = f(x)
            out.append([who, "exp", n, calls[:], x.ctypes.data, y.ctypes.data, y.tolist()])
    for rows in (1, 2, 5):
        for cols in (1, 2, 5):
            x, a = floats[3 : 3 + rows], floats[50 : 50 + rows * cols]
            del calls[:]
            y = x @ a.reshape(rows, cols)
            out.append(["numpy", "vecmat", [rows, cols], calls[:], 0, 0, y.tolist()])
            del calls[:]
            y = np.empty(cols)
            nl.vecmat_into(x, a, rows, cols, y)
            out.append(["kernel", "vecmat", [rows, cols], calls[:], 0, 0, y.tolist()])
    for n in (1, 2, 5):
        x, rest = floats[100 : 100 + n], np.arange(3, 3 + n, dtype=np.int64)
        del calls[:]
        y = float(x @ rest)
        out.append(["numpy", "dot", n, calls[:], 0, 0, y])
        del calls[:]
        y = np.empty(1)
        nl.vecmat_into(x, rest.astype(np.float64), n, 1, y)
        out.append(["kernel", "dot", n, calls[:], 0, 0, float(y[0])])
finally:
    exp_head.functions[exp_at], matmul_head.functions[matmul_at] = real
print(json.dumps(out))
"""


@pytest.mark.slow
def test_numpy_runs_these_loops_and_the_kernels_pass_numpys_arguments() -> None:
    """In a fresh process, numpy's loop table entries are replaced by recorders that pass the call on to
    the real loop: ``np.exp`` and ``@`` call them (so the entry read is the loop numpy runs), and the kernels,
    linked to the same recorders, make the same calls: one each, the same dimensions and core strides (the
    outer ones only step past the single iteration), no loop data, an output apart from the input."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _RECORDED], capture_output=True, text=True, env=env, check=True)
    rows = json.loads(done.stdout)
    assert len(rows) == 2 * (6 + 9 + 3)
    for numpys, kernels in zip(rows[::2], rows[1::2], strict=True):
        assert numpys[0] == "numpy" and kernels[0] == "kernel" and numpys[1:3] == kernels[1:3]
        assert len(numpys[3]) == len(kernels[3]) == 1, numpys[:3]
        theirs, ours = numpys[3][0], kernels[3][0]
        assert ours["data"] is None and theirs["data"] is None
        assert ours["dims"] == theirs["dims"]
        if numpys[1] == "exp":
            assert ours["steps"] == theirs["steps"]
            assert ours["args"][0] == theirs["args"][0] == kernels[4]  # the input itself
            assert ours["args"][1] == kernels[5] != kernels[4]
        else:
            assert ours["dims"][0] == 1  # one outer iteration
            assert ours["steps"][3:] == theirs["steps"][3:]
        assert numpys[6] == kernels[6]


@pytest.mark.parametrize("loops", [True, False])
def test_the_fallback_switch_is_read_at_each_call(loops: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """With numpy's loops off (as when they are not found), a guess whose shares need numpy is handed to
    Python; with them on, none is."""
    from engine import BEGINNER, FirstClick
    from engine.compiled_game import CompiledGame
    from engine.layout import name_key
    from players.builtin import enumeration_compiled as compiled
    from players.builtin.common import ThreadingOptions

    steps: list[int] = []
    original = compiled._python_step
    monkeypatch.setattr(compiled, "_python_step", lambda *a: steps.append(a[3]) or original(*a))
    monkeypatch.setattr(compiled, "NUMPY_LOOPS", loops)
    game = CompiledGame(BEGINNER, FirstClick.SAFE, 5, 0, record=True)
    figures = np.zeros((64, compiled.BOARD_COLUMNS), np.int64)
    logs, ends = np.zeros(64 * game.log.shape[0], np.int32), np.zeros(64, np.int64)
    key = name_key("enumeration")
    compiled.play_boards(game, 5, np.arange(64), key, 1000, ThreadingOptions(), figures, logs, ends)
    assert figures[:, compiled.DONE].sum() == 64
    assert (steps.count(compiled.GUESS) > 3) is not loops


_FALLBACK = r"""
import hashlib, sys
import numpy as np
from players.solver import numpy_loops as nl
from engine import BEGINNER, FirstClick
from engine.compiled_game import CompiledGame
from engine.layout import name_key
from players.builtin import enumeration_compiled as c
from players.builtin.common import ThreadingOptions

if sys.argv[1] == "stand-ins":  # as when numpy's loops are not found: the kernels link to the do-nothing loop
    nl.link(nl._placeholder, nl._placeholder)
    c.NUMPY_LOOPS = False
c._load_kernels()  # its forced handover is not counted
steps = []
original = c._python_step
c._python_step = lambda *a: steps.append(a[3]) or original(*a)
game = CompiledGame(BEGINNER, FirstClick.SAFE, 9, 0, record=True)
figures = np.zeros((64, c.BOARD_COLUMNS), np.int64)
logs, ends = np.zeros(64 * game.log.shape[0], np.int32), np.zeros(64, np.int64)
c.play_boards(game, 9, np.arange(64), name_key("enumeration"), 1000, ThreadingOptions(), figures, logs, ends)
figures[:, [c.CPU_NS, c.WALL_NS]] = 0
digest = hashlib.sha256(figures.tobytes() + logs[: ends[-1]].tobytes()).hexdigest()
print(int(figures[:, c.DONE].sum()), steps.count(c.GUESS), digest)
"""


@pytest.mark.slow
def test_without_numpys_loops_the_kernels_link_and_python_finishes_the_guesses() -> None:
    """In fresh processes: with the stand-in linked in place of numpy's loops (what happens when they are not
    found) the kernels still load, Python finishes the guesses, and the 64 games are the ones played with
    numpy's loops."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    outputs = [
        subprocess.run(
            [sys.executable, "-c", _FALLBACK, mode], capture_output=True, text=True, env=env, check=True
        ).stdout.split()
        for mode in ("stand-ins", "numpy")
    ]
    (done, handed, digest), (done_loops, handed_loops, digest_loops) = outputs
    assert done == done_loops == "64"
    assert int(handed) > 3 and handed_loops == "0"
    assert digest == digest_loops
