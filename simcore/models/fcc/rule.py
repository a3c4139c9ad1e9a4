"""The Kawasaki exchange of eq. 8, written once for every schedule and layout (conventions:
:mod:`simcore.models.fcc`).  A schedule picks the site, the direction and the uniform; a
layout reads the species and counts neighbours; :func:`proposed` and :func:`accepted` decide.
The CUDA kernel (``cuda/fcc_dt.cu``) spells the same two decisions in C."""

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
def proposed(si, sf, both):
    """1 if the pair (i, f) with species si, sf (0 or 1) proposes an exchange, else 0: one
    A and one B, and with only B active (``both`` false) the B particle on i.  An integer,
    so that a schedule can use it as a mask instead of a branch."""
    return np.int64((si ^ sf) & (si | np.uint64(both)))


@numba.njit(inline="always", cache=True)
def accepted(si, nb_i, nb_f, u, thr):
    """Metropolis decision of eq. 8 for a proposed pair, given the B-neighbour counts of i
    and f (each counting the other site): the B site keeps n_b = its count, the A site's
    count less the B site itself is n_a.  Returns (1 if accepted else 0, change of B-B
    bonds if accepted else 0).  Written without branches: the decision is a coin flip the
    CPU cannot predict, and a mispredicted branch costs more than the arithmetic."""
    s = np.int64(si)
    n_b = nb_f + s * (nb_i - nb_f)
    n_a = nb_i + s * (nb_f - nb_i) - 1
    broken = n_b - n_a
    ok = np.int64(np.uint64(u) < thr[max(broken, 0)])
    return ok, -ok * broken


@numba.njit(inline="always", cache=True)
def attempt(lat, L, x, y, z, d, u, thr, both):
    """One attempt on the periodic lattice at the site (x, y, z) towards direction d with
    uniform u (uint32).  Returns the change of the number of B-B bonds (0 when nothing
    moved) and 1 if the exchange happened, else 0."""
    fx, fy, fz = (x + DX[d]) % L, (y + DY[d]) % L, (z + DZ[d]) % L
    si = get(lat, x, y, z)
    sf = get(lat, fx, fy, fz)
    if not proposed(si, sf, both):
        return 0, 0
    nb_i, nb_f = b_neighbours(lat, x, y, z, L), b_neighbours(lat, fx, fy, fz, L)
    ok, delta = accepted(si, nb_i, nb_f, u, thr)
    if ok:
        flip(lat, x, y, z)
        flip(lat, fx, fy, fz)
    return delta, ok
