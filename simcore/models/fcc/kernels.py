"""Schedules of the fcc Kawasaki rule on the CPU: random-sequential sweeps (the reference),
as cached numba kernels (conventions: :mod:`simcore.models.fcc`)."""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.fcc.lattice import site_xyz
from simcore.models.fcc.rule import attempt
from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_FCC


@numba.njit(cache=True)
def sequential_sweeps(lat, L, t0, mcs, sample, k0, k1, thr, both):
    """MCS t0 .. t0 + mcs - 1 of random-sequential attempts (N per MCS); returns the
    change of the number of B-B bonds and the number of exchanges."""
    n = L * L * L // 2
    nn = np.uint64(n)
    dbb = 0
    moves = 0
    for t in range(t0, t0 + mcs):
        for a in range(n):
            r0, r1, r2, _ = philox4x32(a, t, sample, STREAM_FCC << 24, k0, k1)
            s = (np.uint64(r0) * nn) >> np.uint64(32)
            d = (np.uint64(r1) * np.uint64(12)) >> np.uint64(32)
            x, y, z = site_xyz(s, L)
            delta, moved = attempt(lat, L, x, y, z, d, r2, thr, both)
            dbb += delta
            moves += moved
    return dbb, moves
