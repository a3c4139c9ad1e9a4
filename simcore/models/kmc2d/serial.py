"""The serial waiting-time integrator (darkins2024 eq. 1; Dall & Sibani 2001): the
reference the tile algorithm must reproduce bit for bit.

The cell with the smallest waiting time is found in a binary min-tree over the cells
(O(log N) per event).  Conventions: :mod:`simcore.models.kmc2d`.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from simcore.models.kmc2d.rates import new_state, propensity
from simcore.rng.philox import philox4x32

#: Stream tag of the per-cell waiting-time draws.
STREAM_KMC = 0x30
_TWO53 = 9007199254740992.0


@numba.njit(inline="always", cache=True)
def uniform01(cell, k, k0, k1):
    """The k-th uniform in (0, 1] of the cell's stream (53 bits)."""
    r0, r1, _, _ = philox4x32(cell, k, 0, STREAM_KMC << 24, k0, k1)
    top = (np.uint64(r0) << np.uint64(21)) | (np.uint64(r1) >> np.uint64(11))
    return (float(top) + 1.0) / _TWO53


@numba.njit(inline="always", cache=True)
def redraw(x, tau, cnt, i, j, t, model, params, k0, k1):
    """New waiting time of cell (i, j) from time t (one draw of its stream)."""
    m = x.shape[1]
    c = i * m + j
    a = propensity(model, x, i, j, params)
    u = uniform01(c, cnt[i, j], k0, k1)
    cnt[i, j] += 1
    tau[i, j] = t - math.log(u) / a if a > 0.0 else np.inf


@numba.njit(cache=True)
def initial_times(x, model, params, k0, k1):
    """``(tau, cnt)`` at t = 0: one draw per cell."""
    n, m = x.shape
    tau = np.empty((n, m))
    cnt = np.zeros((n, m), dtype=np.uint32)
    for i in range(n):
        for j in range(m):
            redraw(x, tau, cnt, i, j, 0.0, model, params, k0, k1)
    return tau, cnt


@numba.njit(cache=True)
def _tree_build(tau):
    """Min-tree over the flat cells: node k holds the index of its subtree's minimum."""
    flat = tau.ravel()
    size = 1
    while size < flat.size:
        size *= 2
    tree = np.empty(2 * size, dtype=np.int64)
    for k in range(size):
        tree[size + k] = k if k < flat.size else -1
    for k in range(size - 1, 0, -1):
        tree[k] = _better(flat, tree[2 * k], tree[2 * k + 1])
    return tree, size


@numba.njit(inline="always", cache=True)
def _better(flat, a, b):
    """The index with the smaller time (ties: the smaller index); -1 is no cell."""
    if a < 0:
        return b
    if b < 0:
        return a
    if flat[b] < flat[a] or (flat[b] == flat[a] and b < a):
        return b
    return a


@numba.njit(inline="always", cache=True)
def _tree_update(tree, size, flat, c):
    k = (size + c) // 2
    while k >= 1:
        tree[k] = _better(flat, tree[2 * k], tree[2 * k + 1])
        k //= 2


@numba.njit(cache=True)
def serial_run(x, tau, cnt, t, t_end, model, params, k0, k1):
    """Fire events in time order until the next one would be at or after ``t_end``;
    returns (time of the last event or t, number of events).  x, tau, cnt are updated."""
    n, m = x.shape
    flat = tau.ravel()
    tree, size = _tree_build(tau)
    events = 0
    while True:
        c = tree[1]
        if not flat[c] < t_end:
            break
        i, j = c // m, c % m
        t = flat[c]
        x[i, j] = new_state(model, x, i, j)
        events += 1
        for di in range(-1, 2):
            for dj in range(-1, 2):
                ii, jj = (i + di) % n, (j + dj) % m
                redraw(x, tau, cnt, ii, jj, t, model, params, k0, k1)
                _tree_update(tree, size, flat, ii * m + jj)
    return t, events
