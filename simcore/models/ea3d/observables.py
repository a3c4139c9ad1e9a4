"""EA3D observables from the coded words: energy per spin and replica overlaps.

Per-sample numbers need, for each bit position b of a word, the number of set bits at
b over many words ("vertical" counts).  They are accumulated in bit-sliced counters
(ripple-carry addition of whole words into bit planes), about two word operations per
word instead of 64.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.ea3d.rule import satisfied_count

#: Replica pairs (a, b) of the overlaps q_ab, in this order.
PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
N_PLANES = 40


@numba.njit(inline="always", cache=True)
def _add(planes, word, level):
    """planes += word << level, bitwise per bit position (ripple carry)."""
    carry = word
    i = level
    while carry != 0:
        t = planes[i] & carry
        planes[i] ^= carry
        carry = t
        i += 1


@numba.njit(inline="always", cache=True)
def _flush(planes, out):
    """out[b] = the count at bit position b held in ``planes``."""
    for b in range(64):
        tot = 0
        for i in range(N_PLANES):
            tot += int((planes[i] >> np.uint64(b)) & np.uint64(1)) << i
        out[b] = tot


@numba.njit(parallel=True, cache=True)
def satisfied_bonds(S, J, nbr):
    """``n[a, w, b]``: satisfied bonds of sample bit b of word w, replica a.

    Every bond joins a red and a blue site, so the six bonds of the red sites are all
    bonds, once each.
    """
    n_rep, _, k, half = S.shape
    out = np.zeros((n_rep, k, 64), dtype=np.int64)
    for aw in numba.prange(n_rep * k):
        a, w = aw // k, aw % k
        planes = np.zeros(N_PLANES, dtype=np.uint64)
        for j in range(half):
            b2, b1, b0 = satisfied_count(
                S[a, 0, w, j],
                S[a, 1, w, nbr[0, 0, j]], S[a, 1, w, nbr[0, 1, j]], S[a, 1, w, nbr[0, 2, j]],
                S[a, 1, w, nbr[0, 3, j]], S[a, 1, w, nbr[0, 4, j]], S[a, 1, w, nbr[0, 5, j]],
                J[0, 0, w, j], J[0, 1, w, j], J[0, 2, w, j],
                J[0, 3, w, j], J[0, 4, w, j], J[0, 5, w, j],
            )  # fmt: skip
            _add(planes, b0, 0)
            _add(planes, b1, 1)
            _add(planes, b2, 2)
        _flush(planes, out[a, w])
    return out


_PAIR_A = np.array([p[0] for p in PAIRS], dtype=np.int64)
_PAIR_B = np.array([p[1] for p in PAIRS], dtype=np.int64)


@numba.njit(parallel=True, cache=True)
def agreeing_spins(S, pa=_PAIR_A, pb=_PAIR_B):
    """``m[pair, w, b]``: sites where the replicas ``pa[pair]`` and ``pb[pair]`` (default
    the pairs of ``PAIRS``) agree."""
    _, _, k, half = S.shape
    n_pairs = pa.size
    out = np.zeros((n_pairs, k, 64), dtype=np.int64)
    for iw in numba.prange(n_pairs * k):
        i, w = iw // k, iw % k
        a, b = pa[i], pb[i]
        planes = np.zeros(N_PLANES, dtype=np.uint64)
        for c in range(2):
            for j in range(half):
                _add(planes, ~(S[a, c, w, j] ^ S[b, c, w, j]), 0)
        _flush(planes, out[i, w])
    return out


def energy_per_spin(S: np.ndarray, J: np.ndarray, nbr: np.ndarray) -> np.ndarray:
    """``e[a, s]`` = -(1/V) sum over bonds J sigma sigma = (3V - 2 n_satisfied) / V."""
    n = satisfied_bonds(S, J, nbr)
    V = 2 * S.shape[3]
    n_rep, k = S.shape[0], S.shape[2]
    return (3.0 * V - 2.0 * n.reshape(n_rep, k * 64)) / V


def overlaps(S: np.ndarray, pa: np.ndarray = _PAIR_A, pb: np.ndarray = _PAIR_B) -> np.ndarray:
    """``q[pair, s]`` = (1/V) sum_i sigma_i^a sigma_i^b for the replica pairs (``pa``,
    ``pb``), by default those of PAIRS."""
    m = agreeing_spins(S, pa, pb)
    V = 2 * S.shape[3]
    k = S.shape[2]
    return (2.0 * m.reshape(pa.size, k * 64) - V) / V
