"""The KPZ rule driven by the schedules, as cached numba kernels."""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.kpz.rule import attempt_1d, attempt_2d, touch_1d, touch_2d
from simcore.schedules.sequential import BATCH, batches_per_step, draw_batch


@numba.njit(inline="always", cache=True)
def _touch(lat, dim, L, sites, n):
    if dim == 1:
        for i in range(n):
            touch_1d(lat, L, sites[i])
    else:
        for i in range(n):
            touch_2d(lat, L, sites[i])


@numba.njit(inline="always", cache=True)
def _apply(lat, dim, L, sites, us, n, params):
    net = 0
    if dim == 1:
        for i in range(n):
            net += attempt_1d(lat, L, sites[i], us[i], params)
    else:
        for i in range(n):
            net += attempt_2d(lat, L, sites[i], us[i], params)
    return net


@numba.njit(cache=True)
def sequential_sweeps(lat, dim, L, t0, n_steps, k0, k1, sample, params):
    """Random-sequential MCS ``t0 .. t0 + n_steps`` of one sample; returns net height change / 2.

    ``params`` = (p, q thresholds) (see :mod:`.rule`).  Batch g + 1 is drawn
    and its words prefetched before batch g is applied, so that cache misses
    overlap with work (the order of the attempts is unchanged).
    """
    n_sites = L if dim == 1 else L * L
    total = n_steps * batches_per_step(n_sites)
    sites = np.empty((2, 2 * BATCH), dtype=np.uint32)
    us = np.empty((2, 2 * BATCH), dtype=np.uint32)
    counts = np.zeros(2, dtype=np.int64)
    net = 0
    for g in range(-1, total):
        nxt = (g + 1) & 1
        if g + 1 < total:
            counts[nxt] = draw_batch(sites[nxt], us[nxt], g + 1, t0, n_sites, sample, k0, k1)
            _touch(lat, dim, L, sites[nxt], counts[nxt])
        if g >= 0:
            cur = g & 1
            net += _apply(lat, dim, L, sites[cur], us[cur], counts[cur], params)
    return net
