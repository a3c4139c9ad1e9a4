"""Philox4x32 as numba scalar code (the conventions are in :mod:`simcore.rng`)."""

from __future__ import annotations

import numba
import numpy as np

PHILOX_M0 = np.uint64(0xD2511F53)
PHILOX_M1 = np.uint64(0xCD9E8D57)
PHILOX_W0 = np.uint32(0x9E3779B9)
PHILOX_W1 = np.uint32(0xBB67AE85)
MASK32 = np.uint64(0xFFFFFFFF)
SHIFT32 = np.uint64(32)


def stream_tag(stream: int, draw: int = 0) -> int:
    """Counter word c3 for a purpose ``stream`` (0..255) and a draw number (< 2**24)."""
    if not 0 <= stream < 256 or not 0 <= draw < (1 << 24):
        raise ValueError(f"stream {stream} or draw {draw} out of range")
    return (stream << 24) | draw


@numba.njit(inline="always", cache=True)
def _round(c0, c1, c2, c3, k0, k1):
    p0 = PHILOX_M0 * np.uint64(c0)
    p1 = PHILOX_M1 * np.uint64(c2)
    hi0 = np.uint32(p0 >> SHIFT32)
    lo0 = np.uint32(p0 & MASK32)
    hi1 = np.uint32(p1 >> SHIFT32)
    lo1 = np.uint32(p1 & MASK32)
    return hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0


@numba.njit(cache=True)
def philox4x32_rounds(c0, c1, c2, c3, k0, k1, rounds):
    """Philox4x32 with a given number of rounds (the known-answer tests use 7 and 10)."""
    c0 = np.uint32(c0)
    c1 = np.uint32(c1)
    c2 = np.uint32(c2)
    c3 = np.uint32(c3)
    k0 = np.uint32(k0)
    k1 = np.uint32(k1)
    for r in range(rounds):
        if r > 0:
            k0 = np.uint32(k0 + PHILOX_W0)
            k1 = np.uint32(k1 + PHILOX_W1)
        c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    return c0, c1, c2, c3


@numba.njit(inline="always", cache=True)
def philox4x32(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10: four uint32 words from counter (c0..c3) and key (k0, k1)."""
    c0 = np.uint32(c0)
    c1 = np.uint32(c1)
    c2 = np.uint32(c2)
    c3 = np.uint32(c3)
    k0 = np.uint32(k0)
    k1 = np.uint32(k1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    for _ in range(9):
        k0 = np.uint32(k0 + PHILOX_W0)
        k1 = np.uint32(k1 + PHILOX_W1)
        c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    return c0, c1, c2, c3


def uniform_threshold(prob: float) -> int:
    """Integer threshold T with P(u32 < T) = prob for a uniform uint32 u32 (T may be 2**32).

    Accepting an event with ``np.uint64(u32) < T`` keeps the comparison exact
    for prob = 0 and prob = 1 and needs no floating point in the kernels.
    """
    if not 0.0 <= prob <= 1.0:
        raise ValueError(f"probability {prob} not in [0, 1]")
    return min(int(round(prob * 2.0**32)), 1 << 32)
