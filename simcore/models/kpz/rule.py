"""The octahedron update rule, written once for every dimension and schedule.

kelling2017 eq. 1: at a local minimum (own slopes all down, the slopes leaving
the site all up) an octahedron is deposited with probability p; at a local
maximum it is removed with probability q.  Both flip the 2d slope bits around
the site.  :func:`octahedron_rule` decides; the ``attempt_*`` functions apply it
to a site of the packed lattice (:mod:`.lattice`, which also fixes the site
numbering) and are what the schedules call:
``attempt(lat, L, site, u, params, state) -> int`` with ``u`` a uniform uint32,
``params = (p_threshold, q_threshold)`` as uint64 (see
:func:`simcore.rng.uniform_threshold`) and ``state[0]`` the height of site 0.
``touch(lat, L, site)`` prefetches the words an attempt at ``site`` will use.
The code is branch-free where the outcome is random: mispredicted branches
cost more than the few extra instructions.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.backends.cpu import prefetch

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
    s = np.int64(site)
    w = s >> 5
    i = s & 31
    if i == 31:
        return w, i, (w + 1) & ((L >> 5) - 1), np.int64(0)
    return w, i, w, i + 1


@numba.njit(inline="always", cache=True)
def neighbours_2d(L, site):
    """(word, bit offset) of the site's slopes and of the x- and y-slopes it couples to."""
    s = np.int64(site)
    WL = L >> 2
    w = s >> 4
    i = s & 15
    if (i & 3) == 3:
        wx = (w & ~(WL - 1)) | ((w + 1) & (WL - 1))
        bx = 2 * (i - 3)
    else:
        wx = w
        bx = 2 * (i + 1)
    if (i >> 2) == 3:
        wy = (w + WL) & (WL * WL - 1)
        by = 2 * (i - 12) + 1
    else:
        wy = w
        by = 2 * (i + 4) + 1
    return w, 2 * i, wx, bx, wy, by


@numba.njit(inline="always", cache=True)
def attempt_1d(lat, L, site, u, params, state):
    """One update attempt of the single-step model at ``site``; returns the height change / 2."""
    w, b, wx, bx = neighbours_1d(L, site)
    own = (lat[w] >> np.uint32(b)) & ONE
    nbr = (lat[wx] >> np.uint32(bx)) & ONE
    d = octahedron_rule(own, nbr, ONE, u, params[0], params[1])
    f = np.uint32(d != 0)
    lat[w] ^= f << np.uint32(b)
    lat[wx] ^= f << np.uint32(bx)
    state[0] += 2 * d * np.int64(np.int64(site) == 0)
    return d


@numba.njit(inline="always", cache=True)
def attempt_2d(lat, L, site, u, params, state):
    """One update attempt of the octahedron model at ``site``; returns the height change / 2."""
    w, b, wx, bx, wy, by = neighbours_2d(L, site)
    own = (lat[w] >> np.uint32(b)) & THREE
    nbr = ((lat[wx] >> np.uint32(bx)) & ONE) | (((lat[wy] >> np.uint32(by)) & ONE) << ONE)
    d = octahedron_rule(own, nbr, THREE, u, params[0], params[1])
    f = np.uint32(d != 0)
    lat[w] ^= (f * THREE) << np.uint32(b)
    lat[wx] ^= f << np.uint32(bx)
    lat[wy] ^= f << np.uint32(by)
    state[0] += 2 * d * np.int64(np.int64(site) == 0)
    return d


@numba.njit(inline="always", cache=True)
def touch_1d(lat, L, site):
    """Prefetch the word of ``site`` (its right neighbour shares it but for 1 in 32)."""
    prefetch(lat, np.int64(site) >> 5)


@numba.njit(inline="always", cache=True)
def touch_2d(lat, L, site):
    """Prefetch the words of ``site`` and of its y-neighbour."""
    s = np.int64(site)
    WL = L >> 2
    w = s >> 4
    prefetch(lat, w)
    prefetch(lat, (w + WL) & (WL * WL - 1))

