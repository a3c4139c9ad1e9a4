"""Replica exchange between neighbouring temperatures, per sample, on the host.

Both backends call this same numba code with the same energies, so their decisions agree
bit for bit.  Per exchange step m, replica r and pair i (T_i, T_{i+1}), in the order
r = 0, 1 and i = 0, 1, ..., n_T - 2 (each decision sees the configurations the earlier
ones left), sample s accepts with probability min(1, exp((beta_i - beta_{i+1})
(E_i - E_{i+1}))): always when the exponent is >= 0, else when the uint32 output 0 of
Philox counter (global sample, m, r << 16 | i, STREAM_EA_PT_EXCHANGE << 24) is below
round(2^32 exp(x)).  An accepted exchange sets the sample's bit in ``masks[r, i, w]``
(:func:`simcore.models.ea3d.pt_kernels.swap_slots` moves the spins) and swaps the
energies and walker labels.

Walkers: each configuration keeps the label of the temperature it started at.  A walker
completes a round trip when it reaches T_max after T_min and then T_min again.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_EA_PT_EXCHANGE

#: trip_state values: the last end of the ladder a walker touched.
NONE, BOTTOM, TOP = 0, 1, 2


@numba.njit(inline="always", cache=True)
def _exchange_sample(E, betas, masks, walker, trip_state, round_trips, accepted, m, offset, k0,
                     k1, n_T, tag, w, b):  # fmt: skip
    """The exchange decisions of sample 64 w + b (every replica and pair, in order)."""
    s = 64 * w + b
    bit = np.uint64(1) << np.uint64(b)
    for r in range(2):
        for i in range(n_T - 1):
            lo, hi = 2 * i + r, 2 * (i + 1) + r
            x = (betas[i] - betas[i + 1]) * float(E[lo, s] - E[hi, s])
            ok = x >= 0.0
            if not ok:
                u = philox4x32(offset + s, m, (r << 16) | i, tag, k0, k1)[0]
                ok = np.uint64(u) < np.uint64(math.floor(math.exp(x) * 4294967296.0))
            if ok:
                masks[r, i, w] |= bit
                E[lo, s], E[hi, s] = E[hi, s], E[lo, s]
                walker[lo, s], walker[hi, s] = walker[hi, s], walker[lo, s]
                accepted[s, i] += 1
        bottom = walker[r, s]
        if trip_state[r, bottom, s] == TOP:
            round_trips[s, r, bottom] += 1
        trip_state[r, bottom, s] = BOTTOM
        top = walker[2 * (n_T - 1) + r, s]
        if trip_state[r, top, s] == BOTTOM:
            trip_state[r, top, s] = TOP


@numba.njit(parallel=True, cache=True)
def exchange_step(E, betas, masks, walker, trip_state, round_trips, accepted, m, offset, k0, k1):
    """One exchange step (module doc).  ``E[slot, s]``: energies (integers, J = 1);
    ``walker[slot, s]``: label at each slot; ``trip_state[r, label, s]``; counts
    ``round_trips[s, r, label]`` and ``accepted[s, i]`` are incremented in place.  The
    samples decide independently (coded words run in parallel)."""
    n_slots, n = E.shape
    n_T = n_slots // 2
    tag = STREAM_EA_PT_EXCHANGE << 24
    masks[:] = 0
    for w in numba.prange(n // 64):
        for b in range(64):
            _exchange_sample(E, betas, masks, walker, trip_state, round_trips, accepted, m,
                             offset, k0, k1, n_T, tag, w, b)  # fmt: skip


@numba.njit(cache=True)
def energies(n_satisfied, V):
    """``E[slot, s]`` = H = 3 V - 2 (satisfied bonds): the energies the exchange needs."""
    n_slots, n = n_satisfied.shape
    E = np.empty((n_slots, n), dtype=np.int64)
    for a in range(n_slots):
        for s in range(n):
            E[a, s] = 3 * V - 2 * n_satisfied[a, s]
    return E


@numba.njit(cache=True)
def accumulate(E, agreeing, V, j, e_sum, q2_sum, q4_sum):
    """Add one measurement to bin ``j``: e = (E_2i + E_2i+1) / 2V (both replicas at T_i)
    and q^2, q^4 of q = (2 agreeing - V) / V; sums indexed [bin, T, sample]."""
    n_T, n = agreeing.shape
    for i in range(n_T):
        for s in range(n):
            e_sum[j, i, s] += (E[2 * i, s] + E[2 * i + 1, s]) / (2.0 * V)
            q = (2.0 * agreeing[i, s] - V) / V
            q2 = q * q
            q2_sum[j, i, s] += q2
            q4_sum[j, i, s] += q2 * q2
