"""Random-sequential (RS) site selection: the correlation-free gold standard.

N = L^d attempts make one MCS.  Attempt a of step t draws Philox counter
(a >> 1, t, sample, STREAM_SEQUENTIAL << 24): even attempts use words (0, 1),
odd attempts words (2, 3), the first of each pair picking the site (N is a
power of two <= 2^32, so ``w & (N - 1)`` is exactly uniform) and the second the
acceptance uniform.  Attempts are drawn in batches of ``2 * BATCH`` so that a
model kernel can prefetch their lattice words before applying them in order:
the result is the same as one at a time, but cache misses overlap.

The schedule knows nothing of the model; a model's kernel numbers the batches
of a run g = 0, 1, ... (:func:`batches_per_step` per MCS), draws batch g + 1
with :func:`draw_batch` and prefetches it while it applies batch g.
(The model's update function is not passed in as an argument because numba
cannot cache kernels that take functions as arguments.)
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_SEQUENTIAL

_TAG = np.uint32(STREAM_SEQUENTIAL << 24)
BATCH = 32  # Philox calls per batch (two attempts each)


@numba.njit(inline="always", cache=True)
def batches_per_step(n_sites):
    """Number of batches in one MCS of ``n_sites`` attempts."""
    return ((n_sites >> 1) + BATCH - 1) // BATCH


@numba.njit(inline="always", cache=True)
def draw_batch(sites, us, g, t0, n_sites, sample, k0, k1):
    """Fill ``sites``/``us`` with batch ``g`` of a run starting at MCS ``t0``; returns its size."""
    per = batches_per_step(n_sites)
    t = t0 + g // per
    j0 = (g % per) * BATCH
    nb = min(BATCH, (n_sites >> 1) - j0)
    mask = np.uint32(n_sites - 1)
    for i in range(nb):
        r0, r1, r2, r3 = philox4x32(j0 + i, t, sample, _TAG, k0, k1)
        sites[2 * i] = r0 & mask
        us[2 * i] = r1
        sites[2 * i + 1] = r2 & mask
        us[2 * i + 1] = r3
    return 2 * nb
