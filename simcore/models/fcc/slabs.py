"""The ``slabs`` schedule of the fcc Kawasaki rule: one-dimensional dead border decomposition
along z (kelling2012 sec. 3.2, the paper's CPU MPI code), as cached numba kernels
(conventions: :mod:`simcore.models.fcc`).

Round t (= MCS t) has one random origin o in [0, Lz); slab r holds the planes
(o + r Lz + i) mod L, i = 0 .. Lz - 1, and its attempts pick sites only in i = 2 .. Lz - 3.
An attempt writes its site and one neighbour (within 1 plane) and reads their neighbours
(within 2 planes), so slab r reads and writes only its own planes: the slabs of a round are
independent, and the lattice after a round does not depend on the order in which they run.
:func:`slab_sweeps` runs them on all cores (``numba.prange``); :mod:`simcore.models.fcc.mpi`
runs one per MPI rank, and both give the same lattice bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.fcc.rule import attempt
from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_FCC_SLAB, STREAM_FCC_SLAB_ORIGIN

#: The dead border: planes on each side of a slab that its attempts never pick.
DEAD = 2
#: The least slab thickness Lz (planes) allowed by the convention.
MIN_LZ = 8


def check_slabs(L: int, P: int) -> None:
    """Raise ValueError unless P >= 1 slabs of Lz = L / P >= 8 planes tile the L planes."""
    if P < 1:
        raise ValueError(f"P = {P} slabs: need P >= 1")
    if L % P:
        raise ValueError(f"L = {L} is not a multiple of P = {P} slabs")
    if L // P < MIN_LZ:
        raise ValueError(f"slab thickness L / P = {L // P} < {MIN_LZ} (L = {L}, P = {P})")


@numba.njit(cache=True)
def slab_origin(L, P, t, sample, k0, k1):
    """The origin o = (r0 Lz) >> 32 in [0, Lz) of round t (word 0 of Philox
    (0, t, sample, STREAM_FCC_SLAB_ORIGIN << 24)); every slab and every rank draws the same."""
    lz = L // P
    r0, _, _, _ = philox4x32(0, t, sample, STREAM_FCC_SLAB_ORIGIN << 24, k0, k1)
    return np.int64((np.uint64(r0) * np.uint64(lz)) >> np.uint64(32))


@numba.njit(cache=True)
def slab_round(lat, L, P, r, o, t, sample, k0, k1, thr, both):
    """The Lz L^2 / 2 attempts of slab r in round t with origin o, in order a = 0, 1, ...;
    each picks a site in the active planes i = 2 .. Lz - 3 (Philox (a, t, sample,
    STREAM_FCC_SLAB << 24 | r)).  Returns the change of the number of B-B bonds and the
    number of exchanges."""
    lz = L // P
    h = L // 2
    plane = h * L  # fcc sites per z plane
    n_active = np.uint64((lz - 2 * DEAD) * plane)
    base = o + r * lz
    c3 = (STREAM_FCC_SLAB << 24) | r
    dbb = 0
    moves = 0
    for a in range(lz * plane):
        r0, r1, r2, _ = philox4x32(a, t, sample, c3, k0, k1)
        s = np.int64((np.uint64(r0) * n_active) >> np.uint64(32))
        k = s % h
        y = (s // h) % L
        z = (base + DEAD + s // plane) % L
        x = 2 * k + ((y + z) & 1)
        d = (np.uint64(r1) * np.uint64(12)) >> np.uint64(32)
        delta, moved = attempt(lat, L, x, y, z, d, r2, thr, both)
        dbb += delta
        moves += moved
    return dbb, moves


@numba.njit(cache=True, parallel=True)
def slab_sweeps(lat, L, P, t0, mcs, sample, k0, k1, thr, both):
    """MCS t0 .. t0 + mcs - 1, one round each, the P slabs of a round in parallel
    (``numba.prange``: slabs touch disjoint z planes, hence disjoint uint64 words, so the
    result does not depend on the thread count).  The single-process twin of
    :func:`simcore.models.fcc.mpi.run_slabs_mpi`.  Returns the change of the number of B-B
    bonds and the number of exchanges, summed over slabs and rounds."""
    dbb_r = np.zeros(P, dtype=np.int64)
    moves_r = np.zeros(P, dtype=np.int64)
    for t in range(t0, t0 + mcs):
        o = slab_origin(L, P, t, sample, k0, k1)
        for r in numba.prange(P):
            dd, mm = slab_round(lat, L, P, np.int64(r), o, t, sample, k0, k1, thr, both)
            dbb_r[r] += dd
            moves_r[r] += mm
    return dbb_r.sum(), moves_r.sum()
