"""numpy's own inner loops, called from compiled code: the float64 ``exp`` and ``matmul`` loops that
``np.exp(x)`` and ``x @ a`` run, so that a compiled guess gets numpy's probabilities to the last bit
without returning to Python (docs/solver.md, "The compiled ``enumeration`` game").

Compiled code cannot reproduce these two steps itself: numpy's ``exp`` is a SIMD loop chosen for the
CPU at import, and its products go to OpenBLAS (``gemv`` / ``ddot``), which sums in its own order. So
this module reads the loops' addresses at run time from the ufuncs' own loop tables (the first
matching entry, as numpy's ``PyUFunc_DefaultLegacyInnerLoopSelector`` picks it) and links them into
the kernels by name (``llvmlite.binding.add_symbol``): the kernels stay in numba's cache, and the
addresses are this process's. The calls pass what numpy's ufunc machinery passes (checked by
recording numpy's calls, ``tests/players/test_numpy_loops.py``): a fresh output that does not overlap
the input (numpy's ``exp`` takes another path in place), the gufunc's core dimensions, and its strides
with 0 for a dimension of size 1 or a missing one (a 1-d operand).

``AVAILABLE`` is False when anything is not as expected (another layout of numpy's ufunc object, a
user loop, loop data the call would not pass); the callers then hand the guess to Python as before.
"""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import binding
from numba import njit, types

__all__ = ["AVAILABLE", "exp", "guess_probabilities", "link", "loop_index", "ufunc_loop", "vecmat_into"]

#: The names the kernels link to; ``add_symbol`` maps them to this process's addresses.
_EXP_SYMBOL = "minesweeper_arena_numpy_exp_float64_loop"
_MATMUL_SYMBOL = "minesweeper_arena_numpy_matmul_float64_loop"
_ITEM = 8  # bytes of a float64


class _UFuncHead(ctypes.Structure):
    """The start of numpy's ``PyUFuncObject`` (``numpy/ufuncobject.h``), as far as the loop tables."""

    _fields_ = [
        ("ob_refcnt", ctypes.c_ssize_t),
        ("ob_type", ctypes.c_void_p),
        ("nin", ctypes.c_int),
        ("nout", ctypes.c_int),
        ("nargs", ctypes.c_int),
        ("identity", ctypes.c_int),
        ("functions", ctypes.POINTER(ctypes.c_void_p)),
        ("data", ctypes.POINTER(ctypes.c_void_p)),
        ("ntypes", ctypes.c_int),
        ("reserved1", ctypes.c_int),
        ("name", ctypes.c_char_p),
        ("types", ctypes.POINTER(ctypes.c_byte)),
        ("doc", ctypes.c_char_p),
        ("ptr", ctypes.c_void_p),
        ("obj", ctypes.c_void_p),
        ("userloops", ctypes.c_void_p),
    ]


def loop_index(ufunc: np.ufunc, signature: str) -> int | None:
    """The index in ``ufunc``'s loop table of the loop it runs for ``signature`` (as ``ufunc.types`` spells
    it, e.g. ``"d->d"``): the first match, as numpy's ``PyUFunc_DefaultLegacyInnerLoopSelector`` takes it.
    None when the table is not laid out as expected (each field is checked against what numpy reports
    through Python), the ufunc has user loops (searched first), or the loop takes data (none is passed)."""
    head = _UFuncHead.from_address(id(ufunc))
    if head.ob_type != id(type(ufunc)) or (head.nin, head.nout, head.nargs) != (ufunc.nin, ufunc.nout, ufunc.nargs):
        return None
    if head.ntypes != ufunc.ntypes or head.name != ufunc.__name__.encode() or head.userloops:
        return None
    if not head.functions or not head.types:
        return None
    nargs = head.nargs
    numbers = [head.types[i] for i in range(head.ntypes * nargs)]
    expected = [np.dtype(code).num for entry in ufunc.types for code in entry.replace("->", "")]
    if numbers != expected:
        return None
    want = [np.dtype(code).num for code in signature.replace("->", "")]
    for i in range(head.ntypes):
        if numbers[i * nargs : (i + 1) * nargs] == want:
            if (head.data and head.data[i]) or not head.functions[i]:
                return None
            return i
    return None


def ufunc_loop(ufunc: np.ufunc, signature: str) -> int | None:
    """The address of the inner loop ``ufunc`` runs for ``signature`` (``loop_index``), or None."""
    i = loop_index(ufunc, signature)
    return None if i is None else _UFuncHead.from_address(id(ufunc)).functions[i]


def link(exp_loop: int, matmul_loop: int) -> None:
    """Link the kernels to these loops (the addresses of ``exp``'s and ``matmul``'s float64 loops, or
    stand-ins with their signature): in effect for kernels loaded after the call."""
    binding.add_symbol(_EXP_SYMBOL, exp_loop)
    binding.add_symbol(_MATMUL_SYMBOL, matmul_loop)


def _loops() -> tuple[int, int] | None:
    exp_loop, matmul_loop = ufunc_loop(np.exp, "d->d"), ufunc_loop(np.matmul, "dd->d")
    if exp_loop is None or matmul_loop is None:
        return None
    return exp_loop, matmul_loop


#: A loop that does nothing, linked in place of numpy's when they are not found: never called then, but the
#: kernels must link.
_PLACEHOLDER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(
    lambda *_: None
)
_found = _loops()
#: Whether numpy's loops were found: the kernels take the compiled path only then.
AVAILABLE = _found is not None
_placeholder = ctypes.cast(_PLACEHOLDER, ctypes.c_void_p).value
link(*(_found or (_placeholder, _placeholder)))

#: ``void loop(char **args, npy_intp const *dimensions, npy_intp const *steps, void *data)``; ``data`` is
#: NULL, as numpy passes it for these loops (an integer in the same register).
_LOOP = types.void(types.voidptr, types.voidptr, types.voidptr, types.intp)
_exp_loop = types.ExternalFunction(_EXP_SYMBOL, _LOOP)
_matmul_loop = types.ExternalFunction(_MATMUL_SYMBOL, _LOOP)


@njit(cache=True)
def exp(x: np.ndarray) -> np.ndarray:
    """``np.exp(x)`` for a 1-d float64 ``x``: numpy's loop on ``x`` and a fresh output, with the strides
    numpy passes (the arrays' own, for one element too)."""
    n = x.shape[0]
    out = np.empty(n, np.float64)
    if n:
        args = np.empty(2, np.int64)
        args[0] = x.ctypes.data
        args[1] = out.ctypes.data
        dims = np.empty(1, np.int64)
        dims[0] = n
        steps = np.empty(2, np.int64)
        steps[0] = x.strides[0]
        steps[1] = _ITEM
        _exp_loop(args.ctypes, dims.ctypes, steps.ctypes, 0)
    return out


@njit(cache=True)
def vecmat_into(x: np.ndarray, a: np.ndarray, rows: int, cols: int, out: np.ndarray) -> None:
    """``out[:] = x @ a.reshape(rows, cols)`` as numpy's ``matmul`` loop computes it (``x``: 1-d float64 of
    ``rows``; ``a``: 1-d C-contiguous float64 of ``rows * cols``; ``out``: 1-d C-contiguous float64 of
    ``cols``). One outer iteration; core dimensions ``(m, n, p) = (1, rows, cols)``; the strides the gufunc
    passes: 0 for the missing ``m`` of the 1-d operands and for every dimension of size 1."""
    args = np.empty(3, np.int64)
    args[0] = x.ctypes.data
    args[1] = a.ctypes.data
    args[2] = out.ctypes.data
    dims = np.empty(4, np.int64)
    dims[0], dims[1], dims[2], dims[3] = 1, 1, rows, cols
    steps = np.zeros(9, np.int64)  # outer (3): one iteration; then is1_m, is1_n, is2_n, is2_p, os_m, os_p
    if rows != 1:
        steps[4] = x.strides[0]
        steps[5] = cols * _ITEM
    if cols != 1:
        steps[6] = _ITEM
        steps[8] = _ITEM
    _matmul_loop(args.ctypes, dims.ctypes, steps.ctypes, 0)


@njit(cache=True)
def guess_probabilities(
    exponents: np.ndarray,
    ratios: np.ndarray,
    spans: np.ndarray,
    feasible_at: np.ndarray,
    rest: np.ndarray,
    u_state: int,
    n_unconstrained: int,
) -> tuple:
    """``analysis.piece_probabilities(np.exp(exponents), ratios, spans)`` and ``unconstrained_probability``
    (``fast.guess_parts``' pieces), with numpy's loops: ``(piece_p, u)``, the same floats."""
    shares = exp(exponents)
    count = spans.shape[0] // 6
    total = 0
    for k in range(count):
        total += spans[6 * k + 5]
    piece_p = np.empty(total, np.float64)
    at = 0
    for k in range(count):
        a, b, c, d = spans[6 * k], spans[6 * k + 1], spans[6 * k + 2], spans[6 * k + 3]
        rows, cols = spans[6 * k + 4], spans[6 * k + 5]
        vecmat_into(shares[a:b], ratios[c:d], rows, cols, piece_p[at : at + cols])
        at += cols
    u = np.nan
    if n_unconstrained:
        if u_state >= 0:
            u = float(u_state)
        else:
            # ``shares[feasible_at] @ rest``: numpy casts the int64 counts to a float64 copy, then a 1-d @ 1-d
            n = feasible_at.shape[0]
            x = np.empty(n, np.float64)
            y = np.empty(n, np.float64)
            for i in range(n):
                x[i] = shares[feasible_at[i]]
                y[i] = float(rest[i])
            dot = np.empty(1, np.float64)
            vecmat_into(x, y, n, np.int64(1), dot)  # not a literal: one compilation
            u = dot[0] / n_unconstrained
    return piece_p, u
