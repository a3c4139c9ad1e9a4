"""The Kawasaki exchange of eq. 8, written once for every schedule (conventions:
:mod:`simcore.models.fcc`).  A schedule picks the site, the direction and the uniform; the
rule decides and moves."""

from __future__ import annotations

import math

import numba
import numpy as np

from simcore.models.fcc.lattice import DX, DY, DZ, b_neighbours, flip, get


def thresholds(epsilon: float) -> np.ndarray:
    """T[d] = round(2^32 exp(-d epsilon)), d = 0 .. 12: accept a move that breaks d more
    B-B bonds than it makes when a uniform uint32 is below T[d] (T[0] = 2^32: always)."""
    if not epsilon >= 0:
        raise ValueError(f"epsilon = {epsilon} must be >= 0")
    return np.array(
        [min(int(round(math.exp(-d * epsilon) * 2.0**32)), 1 << 32) for d in range(13)],
        dtype=np.uint64,
    )


@numba.njit(inline="always", cache=True)
def attempt(lat, L, x, y, z, d, u, thr, both):
    """One attempt at the site (x, y, z) towards direction d with uniform u (uint32).
    Returns the change of the number of B-B bonds (0 when nothing moved) and whether
    the exchange happened."""
    fx, fy, fz = (x + DX[d]) % L, (y + DY[d]) % L, (z + DZ[d]) % L
    si = get(lat, x, y, z)
    sf = get(lat, fx, fy, fz)
    if si == sf or (not both and si == 0):
        return 0, False
    if si:  # the B particle moves from i to f
        n_b = b_neighbours(lat, x, y, z, L)
        n_a = b_neighbours(lat, fx, fy, fz, L) - 1
    else:  # both active and i holds A: the B particle moves from f to i
        n_b = b_neighbours(lat, fx, fy, fz, L)
        n_a = b_neighbours(lat, x, y, z, L) - 1
    if n_a < n_b and not np.uint64(u) < thr[n_b - n_a]:
        return 0, False
    flip(lat, x, y, z)
    flip(lat, fx, fy, fz)
    return n_a - n_b, True
