"""The serial waiting-time integrator (darkins2024 eq. 1; Dall & Sibani 2001): the
reference that the tile algorithm reproduces bit for bit.

The whole periodic lattice is one patch of :mod:`.events` (the next cell from a min-tree,
O(log N) per event).  Conventions: :mod:`simcore.models.kmc2d`.

:func:`serial_run_samples` runs the samples of a job at once, one per core (numba's
threads); each sample's numbers depend on its index alone, so the lattices are the same
for any number of threads.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.kmc2d.events import init_patch, patch_class_all, run_events


def initial_times(x: np.ndarray, model: int, inv: np.ndarray, sample: int, k0: int, k1: int):
    """``(tau, cnt)`` at t = 0: one draw per cell (none where the rate is 0)."""
    L = x.shape[0]
    tau = np.full(x.shape, np.inf)
    cnt = np.zeros(x.shape, dtype=np.uint32)
    cls = np.zeros(x.shape, dtype=np.int64)
    init_patch(x, tau, cnt, cls, 0.0, model, inv, 0, 0, 0, L, sample, k0, k1)
    return tau, cnt


def serial_run(
    x, tau, cnt, t: float, t_end: float, model: int, inv, ratio, sample: int, k0: int, k1: int
) -> tuple[float, int]:
    """Fire events in time order until the next one would be at or after ``t_end``;
    returns (time of the last event or t, number of events).  x, tau, cnt are updated."""
    L = x.shape[0]
    if x.shape != (L, L):
        raise ValueError(f"the lattice must be square, got {x.shape}")
    return run_events(
        x,
        tau,
        cnt,
        patch_class_all(x, model),
        float(t),
        float(t_end),
        model,
        inv,
        ratio,
        0,
        0,
        0,
        L,
        sample,
        k0,
        k1,
        0,
        np.zeros(17, np.uint64),
        0,
    )


@numba.njit(parallel=True, cache=True)
def serial_run_samples(x, tau, cnt, t, t_end, events, model, inv, ratio, k0, k1):
    """Every sample s (x[s], tau[s], cnt[s]) from t[s] to t_end as :func:`serial_run`
    with sample index s, the samples in parallel over numba's threads; t[s] becomes
    t_end and events[s] grows by the sample's events."""
    L = x.shape[1]
    for s in numba.prange(x.shape[0]):
        xs = x[s]
        _, ev = run_events(
            xs,
            tau[s],
            cnt[s],
            patch_class_all(xs, model),
            t[s],
            t_end,
            model,
            inv,
            ratio,
            0,
            0,
            0,
            L,
            s,
            k0,
            k1,
            0,
            np.zeros(17, np.uint64),
            0,
        )
        t[s] = t_end
        events[s] += ev
