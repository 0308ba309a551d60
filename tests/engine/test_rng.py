"""engine.rng against numpy itself: the board and player streams must be numpy's to the bit."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import rng
from engine.layout import MAX_SEED, board_permutation, player_generator, player_seed

seeds = st.integers(0, MAX_SEED)
small = st.integers(0, 2**33)


def numpy_permutation(seed: int, index: int, cells: int) -> np.ndarray:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index]))).permutation(cells)


def state_dict(state: np.ndarray) -> dict:
    """A compiled state as ``PCG64().state``."""
    hi, lo, inc_hi, inc_lo, has, buf = (int(x) for x in state)
    return {
        "bit_generator": "PCG64",
        "state": {"state": (hi << 64) | lo, "inc": (inc_hi << 64) | inc_lo},
        "has_uint32": has,
        "uinteger": buf,
    }


def numpy_player_seed(seed: int, index: int, name: str) -> int:
    sequence = np.random.SeedSequence([seed, index], spawn_key=(1, zlib.crc32(name.encode())))
    return sum(int(w) << (32 * i) for i, w in enumerate(sequence.generate_state(4, np.uint32)))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.one_of(seeds, small), st.one_of(seeds, small), st.sampled_from([1, 2, 81, 256, 480, 1000]))
def test_board_permutation_is_numpys(seed: int, index: int, cells: int) -> None:
    assert np.array_equal(rng.board_permutation_words(seed, index, cells), numpy_permutation(seed, index, cells))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.one_of(seeds, small), st.one_of(seeds, small), st.text(min_size=1, max_size=12))
def test_player_seed_and_generator_are_numpys(seed: int, index: int, name: str) -> None:
    words = rng.player_seed_words(seed, index, zlib.crc32(name.encode()))
    value = sum(int(w) << (32 * i) for i, w in enumerate(words.tolist()))
    assert value == numpy_player_seed(seed, index, name) == player_seed(seed, index, name)
    state = rng.player_state(words)
    generator = np.random.Generator(np.random.PCG64(value))
    assert state_dict(state) == generator.bit_generator.state


@pytest.mark.parametrize("value", [0, 1, 2**32 - 1, 2**32, 2**64 - 1, 2**96, 2**127 + 5, 2**128 - 1])
def test_seeds_with_zero_high_words(value: int) -> None:
    """numpy drops an int's zero high words before hashing it: so must we."""
    words = np.array([(value >> (32 * i)) & 0xFFFFFFFF for i in range(4)], np.uint64)
    state = rng.player_state(words)
    assert state_dict(state) == np.random.PCG64(value).state


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**128 - 1), st.lists(st.integers(1, 2**32), min_size=1, max_size=40))
def test_bounded_draws_follow_integers(value: int, bounds: list[int]) -> None:
    """``draw_below`` is ``Generator.integers(n)`` (Lemire on buffered 32-bit draws), interleaved
    with raw 32-bit and 64-bit outputs, and leaves the same state behind."""
    words = np.array([(value >> (32 * i)) & 0xFFFFFFFF for i in range(4)], np.uint64)
    state = rng.player_state(words)
    generator = np.random.Generator(np.random.PCG64(value))
    for n in bounds:
        assert rng.draw_below(state, n) == generator.integers(n)
        if n % 3 == 0:
            assert rng.next_uint64(state) == generator.bit_generator.random_raw()
    assert state_dict(state) == generator.bit_generator.state


def test_large_intervals_draw_64_bits() -> None:
    """Past 2**32 a permutation index takes whole 64-bit draws: ``random_interval`` on both sides."""
    state = rng.player_state(np.array([7, 0, 0, 0], np.uint64))
    generator = np.random.Generator(np.random.PCG64(7))
    for top in (5, 2**32 - 1, 2**32, 2**40 + 3, 2**62):
        ours = rng.random_interval(state, top)
        # numpy's random_interval is what permutation/shuffle use; integers(0, top, endpoint=True)
        # would use Lemire instead, so compare through the raw stream it consumes.
        mask = top
        for shift in (1, 2, 4, 8, 16, 32):
            mask |= mask >> shift
        while True:
            raw = generator.bit_generator.random_raw() if top > 0xFFFFFFFF else _next32(generator)
            if raw & mask <= top:
                break
        assert ours == raw & mask


def _next32(generator: np.random.Generator) -> int:
    """numpy's buffered 32-bit output (a full-range uint32 draw is exactly that)."""
    return int(generator.integers(0, 2**32, dtype=np.uint32))


def test_layout_uses_the_same_numbers() -> None:
    from engine import EXPERT

    assert np.array_equal(board_permutation(EXPERT, 3, 4), numpy_permutation(3, 4, EXPERT.cells))
    generator = player_generator(3, 4, "apex")
    assert generator.bit_generator.state == np.random.PCG64(numpy_player_seed(3, 4, "apex")).state
