"""The two-layer double tiling (``dt``) of the fcc Kawasaki rule on the CPU: the GPU
kernel's bit-identical twin, and the cache-blocked CPU DD of kelling2012 sec. 3.2 (on one
core or on all the cores numba is given).  Conventions: :mod:`simcore.models.fcc`."""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.fcc.window import (
    MARGIN,
    load_window,
    store_window,
    window_decide,
    window_propose,
)
from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_FCC_DT, STREAM_FCC_ORDER, STREAM_FCC_SET

#: Single-hit rounds per block update (b^3 / 2 sites over b^3 / 512 threads, any b).
HITS = 256
#: Smallest block side: two cell groups of 8 per axis (one of each parity of set).
MIN_BLOCK = 8
#: Largest block side: a window row of (b + 4) / 2 sites in one uint64.
MAX_BLOCK = 64


def check_block(L: int, b: int) -> None:
    """Raise a one-line ValueError unless b is a power of two in [8, 64] (a window row of
    (b + 4) / 2 sites fits one word) and L a multiple of 2 b (each axis must hold an even
    number of blocks for the eight sets)."""
    if b < MIN_BLOCK or b > MAX_BLOCK or b & (b - 1):
        raise ValueError(f"block side {b} must be a power of two from {MIN_BLOCK} to {MAX_BLOCK}")
    if L % (2 * b):
        raise ValueError(f"L = {L} must be a multiple of 2 x block side = {2 * b}")


@numba.njit(cache=True)
def set_order(t, sample, k0, k1):
    """The order p_t of the eight block sets in MCS t (a Fisher-Yates shuffle)."""
    w = np.empty(8, dtype=np.uint64)
    for c in range(2):
        r0, r1, r2, r3 = philox4x32(c, t, sample, STREAM_FCC_ORDER << 24, k0, k1)
        w[4 * c], w[4 * c + 1], w[4 * c + 2], w[4 * c + 3] = r0, r1, r2, r3
    p = np.arange(8)
    for i in range(7, 0, -1):
        j = (w[i] * np.uint64(i + 1)) >> np.uint64(32)
        p[i], p[j] = p[j], p[i]
    return p


@numba.njit(inline="always", cache=True)
def cell_sets(block_id, h, t, sample, k0, k1):
    """The cell sets (0 .. 7) of hits h .. h + 3 (h a multiple of 4) of a block update:
    one Philox call."""
    r0, r1, r2, r3 = philox4x32(block_id, t, sample, (STREAM_FCC_SET << 24) | (h >> 2), k0, k1)
    s = np.uint32(29)
    return np.uint32(r0) >> s, np.uint32(r1) >> s, np.uint32(r2) >> s, np.uint32(r3) >> s


@numba.njit(inline="always", cache=True)
def _group_draws(group, t, sample, c3, k0, k1, draws):
    """The Philox words of every cell group for one pair of hits, in one loop the compiler
    vectorises (the words do not depend on the lattice)."""
    for j in range(group.shape[0]):
        r0, r1, r2, r3 = philox4x32(group[j], t, sample, c3, k0, k1)
        draws[0, j], draws[1, j], draws[2, j], draws[3, j] = r0, r1, r2, r3


@numba.njit(cache=True)
def block_update(lat, L, b, bx, by, bz, t, sample, k0, k1, thr, both, win, old):
    """Full update of one block in its window (``win``, ``old``: (b + 4, b + 4) uint64
    scratch): HITS single-hit rounds, each one attempt in the cell of the hit's set of
    every cell group (the GPU's threads, here in turn).  Returns the change of the B-B
    bond count and the number of exchanges."""
    nb, ng, gl = L // b, b // 8, L // 8
    w = b + 2 * MARGIN
    block_id = (bz * nb + by) * nb + bx
    x0, y0, z0 = bx * b - MARGIN, by * b - MARGIN, bz * b - MARGIN
    load_window(lat, L, x0, y0, z0, w, win)
    old[:, :] = win
    dbb = 0
    moves = 0
    n = ng * ng * ng
    group = np.empty(n, dtype=np.int64)  # the lattice-wide number of each cell group
    j = 0
    for gz in range(ng):
        for gy in range(ng):
            for gx in range(ng):
                group[j] = ((bz * ng + gz) * gl + by * ng + gy) * gl + bx * ng + gx
                j += 1
    draws = np.empty((4, n), dtype=np.uint32)  # words 0, 1 (even hit), 2, 3 (odd hit)
    pairs = np.empty((n, 8), dtype=np.int64)  # x, y, z, fx, fy, fz, si, u of the proposals
    sets = np.empty(4, dtype=np.int64)
    for h in range(HITS):
        if h & 3 == 0:
            sets[0], sets[1], sets[2], sets[3] = cell_sets(block_id, h, t, sample, k0, k1)
        if h & 1 == 0:
            _group_draws(group, t, sample, (STREAM_FCC_DT << 24) | (h >> 1), k0, k1, draws)
        s = sets[h & 3]
        ox = 4 * (s & 1) + MARGIN
        oy = 4 * ((s >> 1) & 1) + MARGIN
        oz = 4 * ((s >> 2) & 1) + MARGIN
        wa = 2 * (h & 1)
        # The attempts of one hit touch disjoint sites, so they can be taken in two passes:
        # all proposals first (cheap, listed without a branch), then the decisions.
        m = 0
        j = 0
        for gz in range(ng):
            for gy in range(ng):
                for gx in range(ng):
                    a = np.int64(draws[wa, j])
                    y = 8 * gy + oy + ((a >> 29) & 3)
                    z = 8 * gz + oz + ((a >> 27) & 3)
                    x = 8 * gx + ox + 2 * (a >> 31) + ((y + z) & 1)
                    d = (np.uint64(a & 0x07FFFFFF) * np.uint64(12)) >> np.uint64(27)
                    fx, fy, fz, si, prop = window_propose(win, x, y, z, d, both)
                    pairs[m, 0], pairs[m, 1], pairs[m, 2] = x, y, z
                    pairs[m, 3], pairs[m, 4], pairs[m, 5] = fx, fy, fz
                    pairs[m, 6], pairs[m, 7] = si, draws[wa + 1, j]
                    m += prop
                    j += 1
        for i in range(m):
            x, y, z, fx, fy, fz, si, u = pairs[i]
            delta, moved = window_decide(win, x, y, z, fx, fy, fz, si, u, thr)
            dbb += delta
            moves += moved
    store_window(lat, L, x0, y0, z0, w, win, old)
    return dbb, moves


@numba.njit(parallel=True, cache=True)
def dt_phase(lat, L, b, sigma, t, sample, k0, k1, thr, both):
    """Every block of set sigma in MCS t.  Blocks of one (by, bz) share words along x, so a
    core takes a whole row of blocks; rows of blocks touch disjoint words and run in
    parallel.  Returns (change of B-B bonds, exchanges)."""
    nb = L // b
    half = nb // 2
    w = b + 2 * MARGIN
    sx, sy, sz = sigma & 1, (sigma >> 1) & 1, (sigma >> 2) & 1
    dbb = np.zeros(half * half, dtype=np.int64)
    moves = np.zeros(half * half, dtype=np.int64)
    for q in numba.prange(half * half):
        by, bz = 2 * (q % half) + sy, 2 * (q // half) + sz
        win = np.empty((w, w), dtype=np.uint64)
        old = np.empty((w, w), dtype=np.uint64)
        for i in range(half):
            d, m = block_update(
                lat, L, b, 2 * i + sx, by, bz, t, sample, k0, k1, thr, both, win, old
            )
            dbb[q] += d
            moves[q] += m
    return dbb.sum(), moves.sum()


@numba.njit(cache=True)
def dt_sweeps(lat, L, b, t0, mcs, sample, k0, k1, thr, both):
    """MCS t0 .. t0 + mcs - 1 under two-layer double tiling with blocks of side b (the eight
    sets in the order of :func:`set_order`).  Returns (change of B-B bonds, exchanges)."""
    dbb = 0
    moves = 0
    for t in range(t0, t0 + mcs):
        p = set_order(t, sample, k0, k1)
        for i in range(8):
            d, m = dt_phase(lat, L, b, p[i], t, sample, k0, k1, thr, both)
            dbb += d
            moves += m
    return dbb, moves
