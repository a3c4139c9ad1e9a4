"""BKL (Bortz, Kalos, Lebowitz 1975) with a binary sum tree: the serial rejection-free
reference of darkins2024 sec. 3.2, for speed comparisons and as a second, independent
integrator of the same master equation.

Step k draws Philox counter (k, 0, sample, STREAM_BKL << 24): outputs 0, 1 give the
uniform that picks the cell (by descending the tree of rates), outputs 2, 3 the Exp(1)
variate of the time increment (divided by the total rate).  An event that would land
at or after t_end is not applied (waiting times are memoryless, so the state at t_end
is exact in law).  Rates come from the same class tables as the waiting-time code.

:func:`bkl_run_samples` runs the samples of a job at once, one per core (numba's
threads), each through several sampling times without waiting for the others: each
sample's numbers depend on its index alone, so the lattices are the same for any number
of threads.  This is the CPU production path of the engine (the fastest
exact integrator on one core, BENCHMARKS.md).
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.kmc2d.events import patch_class
from simcore.models.kmc2d.rates import new_state
from simcore.rng.exponential import exp_variate
from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_BKL

_TWO53 = 9007199254740992.0


@numba.njit(inline="always", cache=True)
def _u53(a, b):
    top = (np.uint64(a) << np.uint64(21)) | (np.uint64(b) >> np.uint64(11))
    return (float(top) + 1.0) / _TWO53


@numba.njit(cache=True)
def _build(x, model, rates):
    n, m = x.shape
    size = 1
    while size < n * m:
        size *= 2
    tree = np.zeros(2 * size)
    for c in range(n * m):
        tree[size + c] = rates[patch_class(model, x, c // m, c % m, 0)]
    for k in range(size - 1, 0, -1):
        tree[k] = tree[2 * k] + tree[2 * k + 1]
    return tree, size


@numba.njit(inline="always", cache=True)
def _set(tree, size, c, rate):
    k = size + c
    if tree[k] == rate:
        return
    tree[k] = rate
    k //= 2
    while k >= 1:
        tree[k] = tree[2 * k] + tree[2 * k + 1]
        k //= 2


@numba.njit(inline="always", cache=True)
def _pick(tree, size, target):
    k = 1
    while k < size:
        if target < tree[2 * k] or tree[2 * k + 1] <= 0.0:
            k = 2 * k
        else:
            target -= tree[2 * k]
            k = 2 * k + 1
    return k - size


@numba.njit(cache=True)
def bkl_run(x, t, t_end, step, model, rates, sample, k0, k1, max_events=-1):
    """Fire BKL events from time t until the next would be at or after t_end; returns
    (t_end or the time when no event is possible, the next step counter, events).
    With ``max_events`` >= 0 it stops after that many events instead, returning the
    time of the last one."""
    tree, size = _build(x, model, rates)
    return _run(x, tree, size, t, t_end, step, model, rates, sample, k0, k1, max_events)


@numba.njit(cache=True)
def _run(x, tree, size, t, t_end, step, model, rates, sample, k0, k1, max_events):
    """:func:`bkl_run` on a sum tree that holds x's rates (kept up to date)."""
    n, m = x.shape
    events = 0
    while events != max_events:
        total = tree[1]
        if total <= 0.0:
            return t, step, events
        r0, r1, r2, r3 = philox4x32(step, 0, sample, STREAM_BKL << 24, k0, k1)
        step += 1
        t_next = t + exp_variate(r2, r3) / total
        if not t_next < t_end:
            return t_end, step, events
        c = _pick(tree, size, (1.0 - _u53(r0, r1)) * total)
        i, j = c // m, c % m
        x[i, j] = new_state(model, x[i, j])
        t = t_next
        events += 1
        for di in range(-1, 2):
            for dj in range(-1, 2):
                ii, jj = (i + di) % n, (j + dj) % m
                _set(tree, size, ii * m + jj, rates[patch_class(model, x, ii, jj, 0)])
    return t, step, events


@numba.njit(parallel=True, cache=True)
def bkl_run_samples(x, t, targets, step, events, model, rates, k0, k1, lattices, events_at):
    """Every sample s (x[s], an L x L lattice) from t[s] through the times ``targets``
    (increasing) by :func:`bkl_run` with sample index s, the samples in parallel over
    numba's threads, each through all targets in one go (no wait for the other samples
    at each target, one sum tree per sample).  At target k, x[s] is copied to
    lattices[k, s] and the sample's events so far to events_at[k, s]; at the end t[s] is
    the last target, step[s] the next step counter and events[s] has grown by the
    sample's events.  A sample's numbers depend on its index alone, so the lattices are
    the same for any number of threads and any split of the targets between calls."""
    for s in numba.prange(x.shape[0]):
        tree, size = _build(x[s], model, rates)
        t_s, step_s, ev_s = t[s], step[s], events[s]
        for k in range(targets.size):
            t_s, step_s, ev = _run(
                x[s], tree, size, t_s, targets[k], step_s, model, rates, s, k0, k1, -1
            )
            t_s = targets[k]
            ev_s += ev
            lattices[k, s] = x[s]
            events_at[k, s] = ev_s
        t[s], step[s], events[s] = t_s, step_s, ev_s
