"""Acceleration of numpy's seeding and PCG64 streams, bit for bit (docs/solver.md); held equal to
numpy by ``tests/engine/test_rng.py``. A generator's state is a uint64 array ``[state_hi, state_lo,
inc_hi, inc_lo, has_uint32, uinteger]``, the fields of ``PCG64().state``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "board_permutation_words",
    "draw_below",
    "int_words",
    "next_uint32",
    "next_uint64",
    "pcg64_from_words",
    "permutation",
    "player_seed_words",
    "player_state",
    "random_interval",
    "seed_sequence_words",
]

_MASK32 = np.uint64(0xFFFFFFFF)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_XSHIFT = np.uint64(16)
_POOL = 4
#: PCG's default 128-bit multiplier, high and low halves.
_MULT_HI = np.uint64(0x2360ED051FC65DA4)
_MULT_LO = np.uint64(0x4385DF649FCCF645)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U32 = np.uint64(32)


@njit(cache=True)
def _hashmix(value: np.uint64, hash_const: np.ndarray) -> np.uint64:
    value = (value ^ hash_const[0]) & _MASK32
    hash_const[0] = (hash_const[0] * _MULT_A) & _MASK32
    value = (value * hash_const[0]) & _MASK32
    return value ^ (value >> _XSHIFT)


@njit(cache=True)
def _mix(x: np.uint64, y: np.uint64) -> np.uint64:
    result = ((_MIX_MULT_L * x) - (_MIX_MULT_R * y)) & _MASK32
    return result ^ (result >> _XSHIFT)


@njit(cache=True)
def seed_sequence_words(entropy: np.ndarray, spawn_key: np.ndarray, n_words: int) -> np.ndarray:
    """``SeedSequence(entropy, spawn_key=spawn_key).generate_state(n_words, np.uint32)``, with
    ``entropy`` and ``spawn_key`` already as numpy coerces them (uint32 words, see ``int_words``)."""
    run = entropy
    if spawn_key.shape[0] > 0 and run.shape[0] < _POOL:
        run = np.zeros(_POOL, np.uint64)
        run[: entropy.shape[0]] = entropy
    words = np.concatenate((run, spawn_key))
    hash_const = np.array([_INIT_A], np.uint64)
    pool = np.empty(_POOL, np.uint64)
    for i in range(_POOL):
        pool[i] = _hashmix(words[i] if i < words.shape[0] else _U0, hash_const)
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = _mix(pool[dst], _hashmix(pool[src], hash_const))
    for src in range(_POOL, words.shape[0]):
        for dst in range(_POOL):
            pool[dst] = _mix(pool[dst], _hashmix(words[src], hash_const))
    out = np.empty(n_words, np.uint64)
    h = _INIT_B
    for i in range(n_words):
        value = (pool[i % _POOL] ^ h) & _MASK32
        h = (h * _MULT_B) & _MASK32
        value = (value * h) & _MASK32
        out[i] = value ^ (value >> _XSHIFT)
    return out


@njit(cache=True)
def int_words(value: int) -> np.ndarray:
    """How numpy turns a non-negative int64 into SeedSequence entropy: 32-bit words, least
    significant first, ``[0]`` for zero."""
    v = np.uint64(value)
    if v >> _U32:
        return np.array([v & _MASK32, v >> _U32], np.uint64)
    return np.array([v], np.uint64)


@njit(cache=True)
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:
    """The high 64 bits of the 128-bit product ``a * b``."""
    a_lo = a & _MASK32
    a_hi = a >> _U32
    b_lo = b & _MASK32
    b_hi = b >> _U32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    cross = (lo_lo >> _U32) + (hi_lo & _MASK32) + lo_hi
    return a_hi * b_hi + (hi_lo >> _U32) + (cross >> _U32)


@njit(cache=True)
def _step(state: np.ndarray) -> None:
    """``state = state * multiplier + increment`` modulo 2**128."""
    hi = state[0]
    lo = state[1]
    new_hi = _mulhi(lo, _MULT_LO) + hi * _MULT_LO + lo * _MULT_HI
    new_lo = lo * _MULT_LO
    low = new_lo + state[3]
    carry = _U1 if low < new_lo else _U0
    state[0] = new_hi + state[2] + carry
    state[1] = low


@njit(cache=True)
def pcg64_from_words(words: np.ndarray) -> np.ndarray:
    """A PCG64 state from ``SeedSequence.generate_state(8, np.uint32)`` (the four uint64 words
    ``PCG64`` draws from its seed sequence): ``pcg64_set_seed`` then ``pcg_setseq_128_srandom_r``."""
    v = np.empty(4, np.uint64)
    for i in range(4):
        v[i] = words[2 * i] | (words[2 * i + 1] << _U32)
    state = np.zeros(6, np.uint64)
    # inc = (initseq << 1) | 1
    state[2] = (v[2] << _U1) | (v[3] >> np.uint64(63))
    state[3] = (v[3] << _U1) | _U1
    _step(state)
    low = state[1] + v[1]
    carry = _U1 if low < state[1] else _U0
    state[0] = state[0] + v[0] + carry
    state[1] = low
    _step(state)
    return state


@njit(cache=True)
def next_uint64(state: np.ndarray) -> np.uint64:
    """PCG64's XSL-RR output of the next state."""
    _step(state)
    value = state[0] ^ state[1]
    rot = state[0] >> np.uint64(58)
    return (value >> rot) | (value << ((np.uint64(64) - rot) & np.uint64(63)))


@njit(cache=True)
def next_uint32(state: np.ndarray) -> np.uint64:
    """numpy's buffered 32-bit output: the low half of a 64-bit draw, then its high half."""
    if state[4]:
        state[4] = _U0
        return state[5]
    value = next_uint64(state)
    state[4] = _U1
    state[5] = value >> _U32
    return value & _MASK32


@njit(cache=True)
def random_interval(state: np.ndarray, top: int) -> int:
    """A uniform integer in ``[0, top]`` by masked rejection (numpy's ``random_interval``)."""
    if top == 0:
        return np.int64(0)
    limit = np.uint64(top)
    mask = limit
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(shift)
    while True:
        value = (next_uint32(state) if limit <= _MASK32 else next_uint64(state)) & mask
        if value <= limit:
            return np.int64(value)


@njit(cache=True)
def draw_below(state: np.ndarray, n: int) -> int:
    """``Generator.integers(n)`` for ``1 <= n <= 2**32``: Lemire's method on 32-bit draws."""
    top = np.uint64(n - 1)
    if top == _U0:
        return np.int64(0)
    if top == _MASK32:
        return np.int64(next_uint32(state))
    excl = top + _U1
    m = next_uint32(state) * excl
    leftover = m & _MASK32
    if leftover < excl:
        threshold = (_MASK32 - top) % excl
        while leftover < threshold:
            m = next_uint32(state) * excl
            leftover = m & _MASK32
    return np.int64(m >> _U32)


@njit(cache=True)
def permutation(state: np.ndarray, n: int) -> np.ndarray:
    """``Generator.permutation(n)``: ``arange(n)`` shuffled from the last position down."""
    out = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = random_interval(state, i)
        t = out[j]
        out[j] = out[i]
        out[i] = t
    return out


@njit(cache=True)
def _entropy(seed: int, index: int) -> np.ndarray:
    return np.concatenate((int_words(seed), int_words(index)))


@njit(cache=True)
def board_permutation_words(seed: int, index: int, cells: int) -> np.ndarray:
    """``engine.layout.board_permutation``: the permutation of board ``index`` of ``seed``."""
    state = pcg64_from_words(seed_sequence_words(_entropy(seed, index), np.zeros(0, np.uint64), np.int64(8)))
    return permutation(state, cells)


@njit(cache=True)
def player_seed_words(seed: int, index: int, key: int) -> np.ndarray:
    """The four 32-bit words of ``engine.layout.player_seed`` (least significant first); ``key``
    is the crc32 of the player's name."""
    spawn = np.array([np.uint64(1), np.uint64(key)], np.uint64)
    return seed_sequence_words(_entropy(seed, index), spawn, np.int64(4))


@njit(cache=True)
def player_state(words: np.ndarray) -> np.ndarray:
    """The state of ``PCG64(player_seed)`` from the seed's four words: numpy seeds with the int's
    words up to the last non-zero one (``[0]`` for zero)."""
    n = 4
    while n > 1 and words[n - 1] == _U0:
        n -= 1
    return pcg64_from_words(seed_sequence_words(words[:n].copy(), np.zeros(0, np.uint64), np.int64(8)))
