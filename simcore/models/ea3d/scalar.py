"""One spin per byte: the plain EA3D Metropolis reference for the multispin code.

Spins and couplings are int8 +-1 in physical order, one sample at a time; the energy
change is summed from the couplings, not bit-sliced.  Only the random numbers are
shared with the multispin kernels (the same Philox counters, see
:mod:`simcore.models.ea3d`), so equal lattices check the bit-level rule.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.ea3d.lattice import N_REPLICAS, bond_word, philox_word
from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_EA_METROPOLIS, STREAM_EA_SPINS


@numba.njit(cache=True)
def scalar_couplings(L: int, samples: int, k0: int, k1: int) -> np.ndarray:
    """``Jb[s, e, p]`` = J (+-1) of the bond from p to its + neighbour along axis e."""
    V = L * L * L
    Jb = np.empty((samples, 3, V), dtype=np.int8)
    for z in range(L):
        for y in range(L):
            for x in range(L):
                p = x + L * (y + L * z)
                for e in range(3):
                    for s in range(samples):
                        word = bond_word(L, x, y, z, e, s // 64, k0, k1)
                        bit = (word >> np.uint64(s % 64)) & np.uint64(1)
                        Jb[s, e, p] = -1 if bit else 1
    return Jb


@numba.njit(cache=True)
def scalar_spins(L: int, samples: int, k0: int, k1: int) -> np.ndarray:
    """``sigma[a, s, p]``: the random start, the same bits as the multispin start."""
    V = L * L * L
    sig = np.empty((N_REPLICAS, samples, V), dtype=np.int8)
    for p in range(V):
        for s in range(samples):
            for a in range(N_REPLICAS):
                word = philox_word(p, s // 64, a, STREAM_EA_SPINS << 24, k0, k1)
                sig[a, s, p] = 1 if (word >> np.uint64(s % 64)) & np.uint64(1) else -1
    return sig


@numba.njit(cache=True)
def _local_field(sig, Jb, a, s, L, x, y, z):
    h = 0
    xp, xm = (x + 1) % L, (x - 1) % L
    yp, ym = (y + 1) % L, (y - 1) % L
    zp, zm = (z + 1) % L, (z - 1) % L
    p = x + L * (y + L * z)
    h += Jb[s, 0, p] * sig[a, s, xp + L * (y + L * z)]
    h += Jb[s, 0, xm + L * (y + L * z)] * sig[a, s, xm + L * (y + L * z)]
    h += Jb[s, 1, p] * sig[a, s, x + L * (yp + L * z)]
    h += Jb[s, 1, x + L * (ym + L * z)] * sig[a, s, x + L * (ym + L * z)]
    h += Jb[s, 2, p] * sig[a, s, x + L * (y + L * zp)]
    h += Jb[s, 2, x + L * (y + L * zm)] * sig[a, s, x + L * (y + L * zm)]
    return h


@numba.njit(cache=True)
def scalar_colour(sig, Jb, L, c, R, thr):
    """Metropolis update of every site of colour ``c``, sample and replica, one spin at a
    time, with the random numbers ``R[a, w, p]`` (replica, coded word, site) and the
    thresholds ``thr[dE]``."""
    samples = sig.shape[1]
    for z in range(L):
        for y in range(L):
            for x in range(L):
                if (x + y + z) & 1 != c:
                    continue
                p = x + L * (y + L * z)
                for s in range(samples):
                    for a in range(N_REPLICAS):
                        de = 2 * sig[a, s, p] * _local_field(sig, Jb, a, s, L, x, y, z)
                        if de <= 0 or np.uint64(R[a, s // 64, p]) < thr[de]:
                            sig[a, s, p] = -sig[a, s, p]


def _thresholds_by_de(t4: int, t8: int, t12: int) -> np.ndarray:
    thr = np.zeros(13, dtype=np.uint64)  # threshold by dE (only 4, 8, 12 used)
    thr[4], thr[8], thr[12] = t4, t8, t12
    return thr


@numba.njit(cache=True)
def _philox_table(L, k, t, c, k0, k1):
    """The Metropolis random numbers of sweep t, colour c: ``R[a, w, p]`` (Philox)."""
    V = L * L * L
    R = np.zeros((N_REPLICAS, k, V), dtype=np.uint32)
    tag = (STREAM_EA_METROPOLIS << 24) | c
    for p in range(V):
        for w in range(k):
            r0, r1, r2, r3 = philox4x32(p, w, t, tag, k0, k1)
            R[0, w, p], R[1, w, p], R[2, w, p], R[3, w, p] = r0, r1, r2, r3
    return R


def scalar_sweeps(sig, Jb, L, t_from, n, k0, k1, t4, t8, t12) -> None:
    """``n`` checkerboard Metropolis sweeps of every sample and replica, one spin at a
    time, with the Philox random numbers of the multispin code."""
    thr = _thresholds_by_de(t4, t8, t12)
    k = -(-sig.shape[1] // 64)
    for t in range(t_from, t_from + n):
        for c in range(2):
            scalar_colour(sig, Jb, L, c, _philox_table(L, k, t, c, k0, k1), thr)


def scalar_sweeps_table(sig, Jb, L, tables, t4, t8, t12) -> None:
    """Sweeps with given random numbers: ``tables[t][c]`` is ``R[a, w, p]`` of sweep t,
    colour c (for generators whose numbers follow the kernels' schedule)."""
    thr = _thresholds_by_de(t4, t8, t12)
    for per_colour in tables:
        for c in range(2):
            scalar_colour(sig, Jb, L, c, per_colour[c], thr)


@numba.njit(cache=True)
def scalar_energy(sig, Jb, L):
    """Energy per spin ``e[a, s]`` = -(1/V) sum over bonds J sigma sigma."""
    n_rep, samples, V = sig.shape
    e = np.zeros((n_rep, samples))
    for a in range(n_rep):
        for s in range(samples):
            tot = 0
            for z in range(L):
                for y in range(L):
                    for x in range(L):
                        p = x + L * (y + L * z)
                        px = (x + 1) % L + L * (y + L * z)
                        py = x + L * ((y + 1) % L + L * z)
                        pz = x + L * (y + L * ((z + 1) % L))
                        tot += Jb[s, 0, p] * sig[a, s, p] * sig[a, s, px]
                        tot += Jb[s, 1, p] * sig[a, s, p] * sig[a, s, py]
                        tot += Jb[s, 2, p] * sig[a, s, p] * sig[a, s, pz]
            e[a, s] = -tot / V
    return e
