"""The octahedron update rule, written once for every dimension and schedule.

kelling2017 eq. 1: at a local minimum (own slopes all down, the slopes leaving
the site all up) an octahedron is deposited with probability p; at a local
maximum it is removed with probability q.  Both flip the 2d slope bits around
the site.  :func:`octahedron_rule` decides; the functions below apply it to a
site of the packed lattice (:mod:`.lattice`, which also fixes the site
numbering), and a model kernel calls them for the sites a schedule draws:
``neighbours_*(L, site)`` locates the words and bits an attempt at ``site``
reads and flips, and ``apply_*(lat, <located>, u, params) -> int`` (+1 deposit,
-1 removal, 0) performs it, with ``u`` a uniform uint32 and
``params = (p_threshold, q_threshold)`` as uint64 (see
:func:`simcore.rng.uniform_threshold`).  Locating is pure arithmetic that a
kernel can do for a whole batch of sites at once (vectorized, and in time to
prefetch); applying must follow the order of the attempts.  The heights are not
stored: the sum of the returned values fixes the mean height (:mod:`.observables`).
The code is branch-free where the outcome is random (mispredicted branches
cost more than the few extra instructions) and indexes with uint64.
"""

from __future__ import annotations

import numba
import numpy as np

U64 = np.uint64  # unsigned indices: numba skips the negative-index wraparound
ONE = np.uint32(1)
THREE = np.uint32(3)


@numba.njit(inline="always", cache=True)
def octahedron_rule(own, nbr, full, u, p_thr, q_thr):
    """+1 (deposit), -1 (remove) or 0 for own/neighbour slope masks and uniform u.

    ``own`` has bit k set if the slope of the site in direction k is up;
    ``nbr`` has bit k set if the slope of the next site in direction k is up;
    ``full`` = 2^d - 1.
    """
    uu = np.uint64(u)
    up = (own == 0) & (nbr == full) & (uu < p_thr)
    down = (own == full) & (nbr == 0) & (uu < q_thr)
    return np.int64(up) - np.int64(down)


@numba.njit(inline="always", cache=True)
def neighbours_1d(L, site):
    """(word, bit) of the site and of its right neighbour in d = 1."""
    s = U64(site)
    w = s >> U64(5)
    i = s & U64(31)
    ex = U64(i == U64(31))  # the neighbour lies in the next word
    return w, i, (w + ex) & ((U64(L) >> U64(5)) - U64(1)), (i + U64(1)) & U64(31)


@numba.njit(inline="always", cache=True)
def neighbours_2d(L, site):
    """(word, bit offset) of the site's slopes and of the x- and y-slopes it couples to."""
    s = U64(site)
    WL = U64(L) >> U64(2)
    w = s >> U64(4)
    i = s & U64(15)
    ex = U64((i & U64(3)) == U64(3))  # the x-neighbour lies in the next word of the row
    ey = U64(i >= U64(12))  # the y-neighbour lies in the next row of words
    wx = (w & ~(WL - U64(1))) | ((w + ex) & (WL - U64(1)))
    wy = (w + WL * ey) & (WL * WL - U64(1))
    bx = U64(2) * (i + U64(1)) - U64(8) * ex
    by = U64(2) * (i + U64(4)) + U64(1) - U64(32) * ey
    return w, U64(2) * i, wx, bx, wy, by


@numba.njit(inline="always", cache=True)
def apply_1d(lat, w, b, wx, bx, u, params):
    """One update attempt of the single-step model at the located site; returns +1, -1 or 0."""
    own = (lat[w] >> np.uint32(b)) & ONE
    nbr = (lat[wx] >> np.uint32(bx)) & ONE
    d = octahedron_rule(own, nbr, ONE, u, params[0], params[1])
    f = np.uint32(d != 0)
    lat[w] ^= f << np.uint32(b)
    lat[wx] ^= f << np.uint32(bx)
    return d


@numba.njit(inline="always", cache=True)
def decide_2d(lat, w, b, wx, bx, wy, by, u, params):
    """The octahedron rule's outcome at the located site (+1, -1 or 0), without applying it."""
    own = (lat[w] >> np.uint32(b)) & THREE
    nbr = ((lat[wx] >> np.uint32(bx)) & ONE) | (((lat[wy] >> np.uint32(by)) & ONE) << ONE)
    return octahedron_rule(own, nbr, THREE, u, params[0], params[1])


@numba.njit(inline="always", cache=True)
def flip_2d(lat, w, b, wx, bx, wy, by, f):
    """Flip (``f`` = 1) or keep (0) the four slopes around the located site."""
    lat[w] ^= (f * THREE) << np.uint32(b)
    lat[wx] ^= f << np.uint32(bx)
    lat[wy] ^= f << np.uint32(by)


@numba.njit(inline="always", cache=True)
def apply_2d(lat, w, b, wx, bx, wy, by, u, params):
    """One update attempt of the octahedron model at the located site; returns +1, -1 or 0."""
    d = decide_2d(lat, w, b, wx, bx, wy, by, u, params)
    flip_2d(lat, w, b, wx, bx, wy, by, np.uint32(d != 0))
    return d
