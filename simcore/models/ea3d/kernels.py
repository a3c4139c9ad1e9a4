"""EA3D checkerboard sweeps on the CPU (numba), the bit-identical twins of the GPU kernels.

A colour's sites are independent (all their neighbours have the other colour), so the
sites of a colour run in parallel (``prange``) and in any order with the same result.
The layout enters only through the neighbour and physical-index tables.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.ea3d.lattice import N_REPLICAS
from simcore.models.ea3d.rule import flip_mask, satisfied_count
from simcore.rng.classic import minstd_next, mt19937_next, pr64_next
from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_EA_METROPOLIS

#: Code of each stateful generator in the kernels (0 is Philox, which has no state).
PRNG_CODE = {"philox": 0, "minstd": 1, "pr64": 2, "mt19937": 3}
#: Generators of a stateful run: one per site-word item, at most this many (a generator
#: then serves items g, g + G, g + 2 G, ... in that order, on the CPU and on the GPU).
MAX_GENERATORS = 1 << 16


def n_generators(L: int, k: int) -> int:
    """G, the number of generators of a stateful EA3D run of size L with k words."""
    return min(L**3 // 2 * k, MAX_GENERATORS)


@numba.njit(cache=True)
def site_bonds(J, nbr, c, w, j):
    """The six neighbours (sites of the other colour) of site (c, j) and the couplings to
    them in word w: read once per site and word, shared by every replica or slot."""
    n = (nbr[c, 0, j], nbr[c, 1, j], nbr[c, 2, j], nbr[c, 3, j], nbr[c, 4, j], nbr[c, 5, j])
    jw = (J[c, 0, w, j], J[c, 1, w, j], J[c, 2, w, j], J[c, 3, w, j], J[c, 4, w, j],
          J[c, 5, w, j])  # fmt: skip
    return n, jw


@numba.njit(cache=True)
def metropolis_word(S, a, c, w, j, n, jw, r, t4, t8, t12):
    """Metropolis update of word w of replica (or slot) a at site (c, j), with the site's
    neighbours and couplings ``n, jw`` (:func:`site_bonds`), the 32 random bits ``r`` and
    the thresholds of its temperature."""
    o = 1 - c
    s = S[a, c, w, j]
    b2, b1, b0 = satisfied_count(
        s,
        S[a, o, w, n[0]], S[a, o, w, n[1]], S[a, o, w, n[2]],
        S[a, o, w, n[3]], S[a, o, w, n[4]], S[a, o, w, n[5]],
        jw[0], jw[1], jw[2], jw[3], jw[4], jw[5],
    )  # fmt: skip
    S[a, c, w, j] = s ^ flip_mask(b2, b1, b0, r, t4, t8, t12)


@numba.njit(inline="always", cache=True)
def _update_word(S, J, nbr, c, w, j, r0, r1, r2, r3, t4, t8, t12):
    """Metropolis update of the four replicas' words at site (c, j), word w."""
    n, jw = site_bonds(J, nbr, c, w, j)
    for a in range(N_REPLICAS):
        r = r0 if a == 0 else (r1 if a == 1 else (r2 if a == 2 else r3))
        metropolis_word(S, a, c, w, j, n, jw, r, t4, t8, t12)


@numba.njit(parallel=True, cache=True)
def sweeps_philox(S, J, nbr, phys, t_from, n, k0, k1, t4, t8, t12):
    """``n`` sweeps (red then blue) from sweep ``t_from``, Philox random numbers."""
    k, half = S.shape[2], S.shape[3]
    t4, t8, t12 = np.uint64(t4), np.uint64(t8), np.uint64(t12)
    for t in range(t_from, t_from + n):
        for c in range(2):
            tag = (STREAM_EA_METROPOLIS << 24) | c
            for j in numba.prange(half):
                p = phys[c, j]
                for w in range(k):
                    r0, r1, r2, r3 = philox4x32(p, w, t, tag, k0, k1)
                    _update_word(S, J, nbr, c, w, j, r0, r1, r2, r3, t4, t8, t12)


@numba.njit(inline="always", cache=True)
def _next(code, state, aux, g):
    if code == 1:
        return minstd_next(state, aux, g)
    if code == 2:
        return pr64_next(state, aux, g)
    return mt19937_next(state, aux, g)


@numba.njit(parallel=True, cache=True)
def sweeps_stateful(S, J, nbr, code, state, aux, n, t4, t8, t12):
    """``n`` sweeps with a stateful generator battery (``code`` from PRNG_CODE, G =
    state.shape[1]): generator g updates the site-word items u = g, g + G, ... (u = w
    V/2 + j) of each colour in that order, drawing one number per replica (lulli2015's
    thread-strided generators; the GPU kernel runs the same items in the same order)."""
    k, half = S.shape[2], S.shape[3]
    G = state.shape[1]
    items = k * half
    t4, t8, t12 = np.uint64(t4), np.uint64(t8), np.uint64(t12)
    for _ in range(n):
        for c in range(2):
            for g in numba.prange(G):
                for u in range(g, items, G):
                    w, j = u // half, u % half
                    r0 = _next(code, state, aux, g)
                    r1 = _next(code, state, aux, g)
                    r2 = _next(code, state, aux, g)
                    r3 = _next(code, state, aux, g)
                    _update_word(S, J, nbr, c, w, j, r0, r1, r2, r3, t4, t8, t12)
