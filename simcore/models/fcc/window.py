"""The block window: a block of the ``dt`` schedule with a margin of 2 sites, one uint64 per
row (kelling2012 sec. 3.2's work-group copy; the GPU keeps it in shared memory, the CPU
in L1).  Row (zl, yl) holds bit kl for the site at local x = 2 kl + ((yl + zl) & 1); the
origin (x0, y0, z0) = block origin - 2 is even in every coordinate, so local and global
parities agree.  Rows hold (b + 4) / 2 <= 64 sites: b <= 124."""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.fcc.lattice import DX, DY, DZ
from simcore.models.fcc.rule import accepted, proposed

#: Sites of margin on each side of a block in its window (reads reach 2 sites out).
MARGIN = 2


@numba.njit(inline="always", cache=True)
def _wbit(win, x, y, z):
    return (win[z, y] >> np.uint64(x >> 1)) & np.uint64(1)


@numba.njit(inline="always", cache=True)
def _pair(w, s):
    v = (w >> np.uint64(s)) & np.uint64(3)
    return (v & np.uint64(1)) + (v >> np.uint64(1))


@numba.njit(inline="always", cache=True)
def window_neighbours(win, x, y, z):
    """B neighbours of the local site (x, y, z), 1 <= x, y, z <= w - 2 (no wrap): sites
    k - 1 + p and k + p of rows (y +- 1, z), (y, z +- 1); site k of the diagonal rows."""
    k = x >> 1
    s = k - 1 + ((y + z) & 1)
    n = _pair(win[z, y - 1], s) + _pair(win[z, y + 1], s)
    n += _pair(win[z - 1, y], s) + _pair(win[z + 1, y], s)
    n += _wbit(win, x, y - 1, z - 1) + _wbit(win, x, y + 1, z - 1)
    n += _wbit(win, x, y - 1, z + 1) + _wbit(win, x, y + 1, z + 1)
    return np.int64(n)


@numba.njit(inline="always", cache=True)
def window_propose(win, x, y, z, d, both):
    """The first half of an attempt at the local site (x, y, z) (2 <= x, y, z <= w - 3)
    towards direction d: the final site, the species on i and 1 if the pair proposes an
    exchange (:func:`simcore.models.fcc.rule.proposed`), else 0."""
    fx, fy, fz = x + DX[d], y + DY[d], z + DZ[d]
    si = _wbit(win, x, y, z)
    return fx, fy, fz, si, proposed(si, _wbit(win, fx, fy, fz), both)


@numba.njit(inline="always", cache=True)
def window_decide(win, x, y, z, fx, fy, fz, si, u, thr):
    """The second half of an attempt whose pair (i, f) proposes an exchange: the Metropolis
    decision with uniform u, applied to the window without a branch.  Returns (change of
    B-B bonds, 1 if exchanged else 0)."""
    ok, delta = accepted(
        si, window_neighbours(win, x, y, z), window_neighbours(win, fx, fy, fz), u, thr
    )
    m = np.uint64(ok)
    win[z, y] ^= m << np.uint64(x >> 1)
    win[fz, fy] ^= m << np.uint64(fx >> 1)
    return delta, ok


@numba.njit(inline="always", cache=True)
def _span(h, kstart, j, n):
    """Where bits j .. of a window row start in the lattice row: (word, bit offset, how
    many bits up to the word's end, the row's end (mod L/2) or the window row's end)."""
    k = (kstart + j) % h
    off = k & 63
    return k >> 6, np.uint64(off), min(64 - off, h - k, n - j)


@numba.njit(inline="always", cache=True)
def _low(bits, m):
    """The m lowest bits."""
    return bits & ((np.uint64(1) << np.uint64(m)) - np.uint64(1)) if m < 64 else bits


@numba.njit(cache=True)
def load_window(lat, L, x0, y0, z0, w, win):
    """Copy the w x w x w sites from origin (x0, y0, z0) (even, periodic) into ``win``."""
    h, n = L // 2, w // 2
    for zl in range(w):
        z = (z0 + zl) % L
        for yl in range(w):
            y = (y0 + yl) % L
            row = np.uint64(0)
            j = 0
            while j < n:
                word, off, m = _span(h, x0 // 2, j, n)
                row |= _low(lat[z, y, word] >> off, m) << np.uint64(j)
                j += m
            win[zl, yl] = row


@numba.njit(cache=True)
def store_window(lat, L, x0, y0, z0, w, win, old):
    """Apply the changes of ``win`` since ``old`` (its state at load) to the lattice, as
    XOR of the changed bits: windows of one set that share a word change disjoint bits."""
    h, n = L // 2, w // 2
    for zl in range(w):
        z = (z0 + zl) % L
        for yl in range(w):
            diff = win[zl, yl] ^ old[zl, yl]
            if diff == 0:
                continue
            y = (y0 + yl) % L
            j = 0
            while j < n:
                word, off, m = _span(h, x0 // 2, j, n)
                lat[z, y, word] ^= _low(diff >> np.uint64(j), m) << off
                j += m
