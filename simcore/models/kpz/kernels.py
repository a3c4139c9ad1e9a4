"""The KPZ rule driven by the schedules, as cached numba kernels."""

from __future__ import annotations

import numba
import numpy as np

from simcore.backends.cpu import prefetch
from simcore.models.kpz.rule import apply_1d, apply_2d, neighbours_1d, neighbours_2d
from simcore.models.kpz.sequential import BATCH, batches_per_step, draw_batch


@numba.njit(inline="always", cache=True)
def _locate(lat, dim, L, sites, n, loc):
    """Words and bits of a batch of sites into ``loc`` (6 rows), and prefetch the words."""
    if dim == 1:
        for i in range(n):
            loc[0, i], loc[1, i], loc[2, i], loc[3, i] = neighbours_1d(L, sites[i])
        for i in range(n):
            prefetch(lat, loc[0, i])
    else:
        for i in range(n):
            w, b, wx, bx, wy, by = neighbours_2d(L, sites[i])
            loc[0, i], loc[1, i], loc[2, i], loc[3, i], loc[4, i], loc[5, i] = w, b, wx, bx, wy, by
        for i in range(n):
            prefetch(lat, loc[0, i])
            prefetch(lat, loc[4, i])  # the y-neighbour's word: the same line 3 times in 4


@numba.njit(inline="always", cache=True)
def _apply(lat, dim, loc, us, n, params):
    """Apply a located batch in order; returns the net height change / 2."""
    net = 0
    if dim == 1:
        for i in range(n):
            net += apply_1d(lat, loc[0, i], loc[1, i], loc[2, i], loc[3, i], us[i], params)
    else:
        for i in range(n):
            net += apply_2d(
                lat, loc[0, i], loc[1, i], loc[2, i], loc[3, i], loc[4, i], loc[5, i], us[i], params
            )
    return net


@numba.njit(cache=True)
def sequential_sweeps(lat, dim, L, t0, n_steps, k0, k1, sample, params):
    """Random-sequential MCS ``t0 .. t0 + n_steps`` of one sample; returns net height change / 2.

    ``params`` = (p, q thresholds) (see :mod:`.rule`).  Batch g + 1 is drawn,
    located and its words prefetched before batch g is applied, so that cache
    misses overlap with work (the order of the attempts is unchanged).
    """
    n_sites = L if dim == 1 else L * L
    total = n_steps * batches_per_step(n_sites)
    sites = np.empty(2 * BATCH, dtype=np.uint32)
    us = np.empty((2, 2 * BATCH), dtype=np.uint32)
    loc = np.zeros((2, 6, 2 * BATCH), dtype=np.uint64)
    counts = np.zeros(2, dtype=np.int64)
    net = 0
    for g in range(-1, total):
        nxt = (g + 1) & 1
        if g + 1 < total:
            counts[nxt] = draw_batch(sites, us[nxt], g + 1, t0, n_sites, sample, k0, k1)
            _locate(lat, dim, L, sites, counts[nxt], loc[nxt])
        if g >= 0:
            cur = g & 1
            net += _apply(lat, dim, loc[cur], us[cur], counts[cur], params)
    return net
