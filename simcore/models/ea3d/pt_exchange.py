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


#: Widest acceptance table (entries per pair): beyond it, the threshold is computed as
#: the table would hold it.
MAX_TABLE = 1 << 16
#: |x| from which every threshold is 0: 2^32 exp(x) < 1 needs |x| > ln 2^32 = 22.18.
X_NO_DRAW = 23.0


@numba.njit(cache=True)
def _threshold(dbeta, d):
    """round-down of 2^32 exp(x), x = dbeta * d < 0: the acceptance threshold of a draw."""
    return np.uint64(math.floor(math.exp(dbeta * float(d)) * 4294967296.0))


@numba.njit(cache=True)
def _fill_tables(dbeta, table):
    for i in range(dbeta.size):
        sign = -1 if dbeta[i] > 0.0 else 1  # the sign of d that makes x negative
        for a in range(table.shape[1]):
            table[i, a] = _threshold(dbeta[i], sign * a) if dbeta[i] != 0.0 else 0


def exchange_tables(betas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(dbeta, table)`` for :func:`exchange_step`: ``dbeta[i] = betas[i] - betas[i+1]``
    and ``table[i, |d|]``, the threshold of pair i at the energy difference d of sign
    opposite to dbeta, for |d| up to where 2^32 exp(x) falls below 1 (from there every
    entry is 0: refused without a draw), at most :data:`MAX_TABLE` wide.  Computed once
    per job with the expression of the decision itself, so a table entry and the value it
    replaces are the same number."""
    dbeta = np.asarray(betas[:-1] - betas[1:], dtype=np.float64)
    steep = np.abs(dbeta[dbeta != 0.0])
    width = int(min(MAX_TABLE, np.ceil(X_NO_DRAW / steep.min()) + 2)) if steep.size else 1
    table = np.zeros((dbeta.size, width), dtype=np.uint64)
    _fill_tables(dbeta, table)
    return dbeta, table


@numba.njit(inline="always", cache=True)
def _accepts(E, dbeta, table, lo, hi, i, s, ctr_a, ctr_b, ctr_c, tag, k0, k1):
    """The decision of one pair for sample s: x >= 0, or a Philox draw below the pair's
    threshold (none is drawn where the threshold is 0: the draw could not be below it)."""
    d = E[lo, s] - E[hi, s]
    if dbeta[i] * float(d) >= 0.0:
        return True
    a = abs(d)
    t = table[i, a] if a < table.shape[1] else _threshold(dbeta[i], d)
    if t == 0:
        return False
    return np.uint64(philox4x32(ctr_a, ctr_b, ctr_c, tag, k0, k1)[0]) < t


@numba.njit(parallel=True, cache=True)
def exchange_step(E, dbeta, table, masks, walker, trip_state, round_trips, accepted, m, offset,
                  k0, k1):  # fmt: skip
    """One exchange step (module doc).  ``E[slot, s]``: energies (integers, J = 1);
    ``dbeta``, ``table``: :func:`exchange_tables` of the job's betas; ``walker[slot, s]``:
    label at each slot; ``trip_state[r, label, s]``; counts ``round_trips[s, r, label]``
    and ``accepted[s, i]`` are incremented in place.  The samples decide independently
    (coded words run in parallel); within a word, pair by pair over its 64 samples, so
    that the rows of E and walker are read in order (a sample's decisions keep their
    order: replica 0's pairs, then replica 1's)."""
    n_slots, n = E.shape
    n_T = n_slots // 2
    tag = STREAM_EA_PT_EXCHANGE << 24
    masks[:] = 0
    for w in numba.prange(n // 64):
        for r in range(2):
            for i in range(n_T - 1):
                lo, hi = 2 * i + r, 2 * (i + 1) + r
                for b in range(64):
                    s = 64 * w + b
                    if _accepts(E, dbeta, table, lo, hi, i, s, offset + s, m, (r << 16) | i,
                                tag, k0, k1):  # fmt: skip
                        masks[r, i, w] |= np.uint64(1) << np.uint64(b)
                        E[lo, s], E[hi, s] = E[hi, s], E[lo, s]
                        walker[lo, s], walker[hi, s] = walker[hi, s], walker[lo, s]
                        accepted[s, i] += 1
            for b in range(64):
                s = 64 * w + b
                bottom = walker[r, s]
                if trip_state[r, bottom, s] == TOP:
                    round_trips[s, r, bottom] += 1
                trip_state[r, bottom, s] = BOTTOM
                top = walker[2 * (n_T - 1) + r, s]
                if trip_state[r, top, s] == BOTTOM:
                    trip_state[r, top, s] = TOP


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
