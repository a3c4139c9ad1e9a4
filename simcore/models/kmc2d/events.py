"""The waiting-time event rule, written once for the serial integrator and every tile.

A *patch* is a 2D block of cells: the whole periodic lattice (serial integrator, lo = 0,
neighbours wrap) or one tile with a halo around it (lo = 1: the outermost ring is the
fixed boundary, it never fires and is never redrawn; the GPU kernel's patch is the tile's
3 x 3-tile neighbourhood, a halo of B - 1 cells inside the ring).  Local cell (a, b) of a patch
is global cell ((oi + a) mod L, (oj + b) mod L), whose index g = row L + column keys the
random stream and breaks ties between equal times.  Conventions: :mod:`simcore.models.kmc2d`.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.kmc2d.rates import new_state, rate_class
from simcore.rng.exponential import exp_variate
from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_KMC

#: Odd multiplier that mixes a cell's new state into the edge checksums.
STATE_MIX = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(inline="always", cache=True)
def draw(g, k, sample, k0, k1):
    """Exp(1) variate number ``k`` of global cell ``g``'s stream."""
    r0, r1, _, _ = philox4x32(g, k, sample, STREAM_KMC << 24, k0, k1)
    return exp_variate(r0, r1)


@numba.njit(inline="always", cache=True)
def patch_class(model, x, a, b, lo):
    """Rate class of patch cell (a, b) (neighbours wrap when lo == 0)."""
    n, m = x.shape
    if lo == 0:
        au, ad, bl, br = (a - 1) % n, (a + 1) % n, (b - 1) % m, (b + 1) % m
    else:
        au, ad, bl, br = a - 1, a + 1, b - 1, b + 1
    return rate_class(
        model,
        x[a, b],
        x[au, b],
        x[ad, b],
        x[a, bl],
        x[a, br],
        x[au, bl],
        x[au, br],
        x[ad, bl],
        x[ad, br],
    )


@numba.njit(cache=True)
def patch_class_all(x, model):
    """Rate class of every cell of a periodic lattice."""
    n, m = x.shape
    cls = np.empty((n, m), dtype=np.int64)
    for a in range(n):
        for b in range(m):
            cls[a, b] = patch_class(model, x, a, b, 0)
    return cls


@numba.njit(inline="always", cache=True)
def global_index(a, b, oi, oj, L):
    """Global index of patch cell (a, b)."""
    return ((oi + a) % L) * L + (oj + b) % L


@numba.njit(inline="always", cache=True)
def around(a, b, da, db, n, m, lo):
    """Patch coordinates of the neighbour (a + da, b + db) and whether it is live (it
    wraps on the periodic lattice, lo == 0; the fixed ring of a tile's patch is not)."""
    aa, bb = a + da, b + db
    if lo == 0:
        return aa % n, bb % m, True
    return aa, bb, 1 <= aa < n - 1 and 1 <= bb < m - 1


@numba.njit(inline="always", cache=True)
def new_time(t, cls, g, cnt, a, b, inv, sample, k0, k1):
    """Waiting time of a cell of class ``cls`` drawn at time t (one draw of its stream;
    infinity, and no draw, when the class has rate 0)."""
    if inv[cls] == np.inf:
        return np.inf
    e = draw(g, cnt[a, b], sample, k0, k1)
    cnt[a, b] += 1
    return t + e * inv[cls]


@numba.njit(cache=True)
def init_patch(x, tau, cnt, cls, t, model, inv, lo, oi, oj, L, sample, k0, k1):
    """Classes and first waiting times (from time t) of every live cell of a patch."""
    n, m = x.shape
    for a in range(lo, n - lo):
        for b in range(lo, m - lo):
            c = patch_class(model, x, a, b, lo)
            cls[a, b] = c
            tau[a, b] = new_time(
                t, c, global_index(a, b, oi, oj, L), cnt, a, b, inv, sample, k0, k1
            )


@numba.njit(inline="always", cache=True)
def fire(x, tau, cnt, cls, a, b, t, model, inv, ratio, lo, oi, oj, L, sample, k0, k1):
    """The event of cell (a, b) at time t: new state, a fresh waiting time for the cell,
    and for each neighbour whose rate changed its residual waiting time rescaled by
    A_old / A_new (exact in law, since residual waiting times are memoryless); a
    neighbour that leaves a rate-0 class draws, one that enters it gets infinity.  A
    neighbour whose class changed but not its rate keeps its time."""
    n, m = x.shape
    x[a, b] = new_state(model, x[a, b])
    for da in range(-1, 2):
        for db in range(-1, 2):
            aa, bb, live = around(a, b, da, db, n, m, lo)
            if not live:
                continue
            c_new = patch_class(model, x, aa, bb, lo)
            c_old = cls[aa, bb]
            if da == 0 and db == 0:
                cls[aa, bb] = c_new
                tau[aa, bb] = new_time(
                    t, c_new, global_index(aa, bb, oi, oj, L), cnt, aa, bb, inv, sample, k0, k1
                )
            elif c_new != c_old:
                cls[aa, bb] = c_new
                if inv[c_old] == inv[c_new]:
                    continue  # same rate: the residual time stays as it is
                if inv[c_old] == np.inf:
                    tau[aa, bb] = new_time(
                        t, c_new, global_index(aa, bb, oi, oj, L), cnt, aa, bb, inv, sample, k0, k1
                    )
                elif inv[c_new] == np.inf:
                    tau[aa, bb] = np.inf
                else:
                    tau[aa, bb] = t + (tau[aa, bb] - t) * ratio[c_old, c_new]


# -- the next event: a min-tree over the patch cells, ties to the smaller global index --


@numba.njit(inline="always", cache=True)
def _better(flat, m, oi, oj, L, p, q):
    """The earlier of patch cells p and q (flat indices; -1 is no cell)."""
    if p < 0:
        return q
    if q < 0:
        return p
    if flat[q] < flat[p]:
        return q
    if flat[q] == flat[p] and flat[p] < np.inf:
        gp = global_index(p // m, p % m, oi, oj, L)
        gq = global_index(q // m, q % m, oi, oj, L)
        if gq < gp:
            return q
    return p


@numba.njit(cache=True)
def tree_build(flat, m, oi, oj, L):
    """Min-tree over the flat patch: node k holds the flat index of its subtree's minimum."""
    size = 1
    while size < flat.size:
        size *= 2
    tree = np.empty(2 * size, dtype=np.int64)
    for k in range(size):
        tree[size + k] = k if k < flat.size else -1
    for k in range(size - 1, 0, -1):
        tree[k] = _better(flat, m, oi, oj, L, tree[2 * k], tree[2 * k + 1])
    return tree, size


@numba.njit(inline="always", cache=True)
def tree_update(tree, size, flat, m, oi, oj, L, p):
    """Restore the tree after the time of flat cell p changed."""
    k = (size + p) // 2
    while k >= 1:
        tree[k] = _better(flat, m, oi, oj, L, tree[2 * k], tree[2 * k + 1])
        k //= 2


@numba.njit(cache=True)
def run_events(
    x, tau, cnt, cls, t, t_end, model, inv, ratio, lo, oi, oj, L, sample, k0, k1, B, sums, c0
):
    """Fire the patch's events in time order while the next one is before ``t_end``;
    returns (time of the last event, or t, and the number of events).

    With B > 0 the patch is a tile and its halo, the central B x B tile at [c0, c0 + B)
    in both directions (c0 = B: the 3 x 3-tile neighbourhood), and ``sums`` (uint64[17])
    accumulates the edge checksums of :mod:`.tiles` (entries 0..7: events of the central
    tile's border facing direction d, 8..15: events of the halo cells in direction d; a
    term is the bits of the event time plus the mixed new state) and in entry 16 the
    number of central events.
    """
    n, m = x.shape
    flat = tau.ravel()
    tree, size = tree_build(flat, m, oi, oj, L)
    fbuf = np.zeros(1)  # a time and, through the view, its bits
    ubuf = fbuf.view(np.uint64)
    events = 0
    while True:
        p = tree[1]
        if not flat[p] < t_end:
            break
        a, b = p // m, p % m
        t = flat[p]
        fire(x, tau, cnt, cls, a, b, t, model, inv, ratio, lo, oi, oj, L, sample, k0, k1)
        events += 1
        if B > 0:
            fbuf[0] = t
            term = ubuf[0] + STATE_MIX * np.uint64(np.uint32(x[a, b]))
            _account(sums, a, b, c0, B, term)
        for da in range(-1, 2):
            for db in range(-1, 2):
                aa, bb, live = around(a, b, da, db, n, m, lo)
                if live:
                    tree_update(tree, size, flat, m, oi, oj, L, aa * m + bb)
    return t, events


#: Direction d of the 8 neighbouring tiles: row step DIR_A[d], column step DIR_B[d]
#: (U, D, L, R, UL, UR, DL, DR); OPPOSITE[d] faces back.
DIR_A = np.array([-1, 1, 0, 0, -1, -1, 1, 1])
DIR_B = np.array([0, 0, -1, 1, -1, 1, -1, 1])
OPPOSITE = np.array([1, 0, 3, 2, 7, 6, 5, 4])


@numba.njit(inline="always", cache=True)
def _side(a, c0, B):
    """-1, 0, +1: the patch coordinate a lies before, in, after the central tile."""
    return -1 if a < c0 else (1 if a >= c0 + B else 0)


@numba.njit(inline="always", cache=True)
def _account(sums, a, b, c0, B, term):
    """Add an event of patch cell (a, b) to the checksums of the bands that hold it."""
    sa, sb = _side(a, c0, B), _side(b, c0, B)
    c1 = c0 + B - 1  # the central tile's last row and column
    if sa == 0 and sb == 0:
        sums[16] += np.uint64(1)
        for d in range(8):
            da, db = DIR_A[d], DIR_B[d]
            if (da == 0 or a == (c0 if da < 0 else c1)) and (
                db == 0 or b == (c0 if db < 0 else c1)
            ):
                sums[d] += term
        return
    if (sa == 0 or a == (c0 - 1 if sa < 0 else c1 + 1)) and (
        sb == 0 or b == (c0 - 1 if sb < 0 else c1 + 1)
    ):
        for d in range(8):
            if DIR_A[d] == sa and DIR_B[d] == sb:
                sums[8 + d] += term
