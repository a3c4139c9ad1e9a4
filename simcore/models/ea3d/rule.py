"""The EA3D Metropolis rule on 64 coded samples at once (lulli2015 eqs. 11-17).

Written once: the CPU kernels call :func:`flip_mask`; the CUDA kernel is checked
against them bit for bit.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from simcore.rng.philox import uniform_threshold

ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
ZERO = np.uint64(0)


def thresholds(T: float) -> tuple[int, int, int]:
    """Integer thresholds (T4, T8, T12): a flip with dE = 4, 8, 12 is accepted when the
    uint32 random number R < T_dE, i.e. with probability exp(-dE / T) (units J = k_B = 1)."""
    if not T > 0:
        raise ValueError(f"temperature {T} must be > 0")
    return tuple(uniform_threshold(math.exp(-de / T)) for de in (4.0, 8.0, 12.0))  # type: ignore[return-value]


@numba.njit(inline="always", cache=True)
def satisfied_count(s, n0, n1, n2, n3, n4, n5, j0, j1, j2, j3, j4, j5):
    """Bit-sliced count (b2, b1, b0) of satisfied bonds of the spin word ``s``.

    Bond d is satisfied (energy -1) when J_d sigma sigma_d = +1; with J bit 1 for J = -1
    and spin bit 1 for +1 that is ``~(s ^ n_d ^ j_d)``.  Two full adders, then a full
    adder of the carries: counts 0..6 in three bit planes.
    """
    a = ~(s ^ n0 ^ j0)
    b = ~(s ^ n1 ^ j1)
    c = ~(s ^ n2 ^ j2)
    d = ~(s ^ n3 ^ j3)
    e = ~(s ^ n4 ^ j4)
    f = ~(s ^ n5 ^ j5)
    s1 = a ^ b ^ c
    c1 = (a & b) | (c & (a ^ b))
    s2 = d ^ e ^ f
    c2 = (d & e) | (f & (d ^ e))
    b0 = s1 ^ s2
    k = s1 & s2
    b1 = c1 ^ c2 ^ k
    b2 = (c1 & c2) | (k & (c1 ^ c2))
    return b2, b1, b0


@numba.njit(inline="always", cache=True)
def flip_mask(b2, b1, b0, r, t4, t8, t12):
    """Bits to flip given the satisfied-bond count planes and the word's random number.

    With n satisfied bonds dE = 4 n - 12: n <= 3 always flips (b2 = 0); n = 4 flips if
    R < T4, n = 5 if R < T8, n = 6 if R < T12 (T12 <= T8 <= T4, eq. 17).
    """
    ru = np.uint64(r)
    cond4 = ALL if ru < t4 else ZERO
    cond8 = ALL if ru < t8 else ZERO
    cond12 = ALL if ru < t12 else ZERO
    return ~b2 | (b2 & ~b1 & (cond8 | (cond4 & ~b0))) | cond12
