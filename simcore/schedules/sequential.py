"""Random-sequential (RS) site selection: the correlation-free gold standard.

N = L^d attempts make one MCS.  Attempt a of step t draws Philox counter
(a >> 1, t, sample, STREAM_SEQUENTIAL << 24): even attempts use words (0, 1),
odd attempts words (2, 3), the first of each pair picking the site (N is a
power of two <= 2^32, so ``w & (N - 1)`` is exactly uniform) and the second the
acceptance uniform.  The model's ``attempt`` and ``touch`` functions are passed
in, so every model shares this schedule.  Attempts are drawn in batches and
their words prefetched before they are applied in order: the result is the
same as one at a time, but cache misses overlap.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.rng.philox import STREAM_SEQUENTIAL, philox4x32

_TAG = np.uint32(STREAM_SEQUENTIAL << 24)
BATCH = 32  # Philox calls per batch (two attempts each)


@numba.njit(cache=True)
def random_sequential(
    attempt, touch, lat, L, n_sites, t0, n_steps, k0, k1, sample, params, state
):
    """Advance one sample from MCS ``t0`` by ``n_steps`` MCS; returns the net height change / 2."""
    mask = np.uint32(n_sites - 1)
    pairs = n_sites >> 1
    sites = np.empty(2 * BATCH, dtype=np.uint32)
    us = np.empty(2 * BATCH, dtype=np.uint32)
    net = 0
    for t in range(t0, t0 + n_steps):
        for j0 in range(0, pairs, BATCH):
            nb = min(BATCH, pairs - j0)
            for i in range(nb):
                r0, r1, r2, r3 = philox4x32(j0 + i, t, sample, _TAG, k0, k1)
                sites[2 * i] = r0 & mask
                us[2 * i] = r1
                sites[2 * i + 1] = r2 & mask
                us[2 * i + 1] = r3
            for i in range(2 * nb):
                touch(lat, L, sites[i])
            for i in range(2 * nb):
                net += attempt(lat, L, sites[i], us[i], params, state)
    return net
