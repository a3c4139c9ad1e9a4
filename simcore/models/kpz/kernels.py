"""The KPZ rule driven by the schedules, as cached numba kernels."""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.kpz.rule import attempt_1d, attempt_2d, touch_1d, touch_2d
from simcore.schedules.sequential import BATCH, draw_batch


@numba.njit(cache=True)
def sequential_sweeps(lat, dim, L, t0, n_steps, k0, k1, sample, params):
    """Random-sequential MCS ``t0 .. t0 + n_steps`` of one sample; returns net height change / 2.

    ``params`` = (p, q thresholds) (see :mod:`.rule`).
    """
    n_sites = L if dim == 1 else L * L
    sites = np.empty(2 * BATCH, dtype=np.uint32)
    us = np.empty(2 * BATCH, dtype=np.uint32)
    net = 0
    for t in range(t0, t0 + n_steps):
        for j0 in range(0, n_sites >> 1, BATCH):
            n = draw_batch(sites, us, j0, n_sites, t, sample, k0, k1)
            if dim == 1:
                for i in range(n):
                    touch_1d(lat, L, sites[i])
                for i in range(n):
                    net += attempt_1d(lat, L, sites[i], us[i], params)
            else:
                for i in range(n):
                    touch_2d(lat, L, sites[i])
                for i in range(n):
                    net += attempt_2d(lat, L, sites[i], us[i], params)
    return net
