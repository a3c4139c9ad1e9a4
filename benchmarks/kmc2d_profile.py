"""Profile one advance launch of the kmc2d tile kernel (run under ncu -k kmc2d_advance):
n x n SOS surface relaxed for a few events per cell, then one timed step of ``measure``
events per cell, and one step of no events (every patch is skipped: the skip test and
the copies of the tiles that ran in the step before; it no longer times the patch load
and store, which only patches that may fire pay)."""

import sys
import time

import cupy as cp
import numpy as np

from simcore.models.kmc2d.gpu import TileKernel
from simcore.models.kmc2d.rates import SOS, rate_tables
from simcore.models.kmc2d.serial import initial_times
from simcore.models.kmc2d.tiles import first_dt

n, phi, dpb, measure = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
inv, ratio = rate_tables(SOS, (1.0, phi))
x = np.zeros((n, n), dtype=np.int32)
tau, cnt = initial_times(x, SOS, inv, 0, 1, 0)
k = TileKernel(n, 8, SOS, inv, ratio, 1, 1, 0, dpb=dpb, nt=64 if dpb < 4 else 128)
z = [0]
k.upload(x[None], tau[None], cnt[None], z, [first_dt(tau, 0.0)], z, z, z, z)
k.run_to(2.0)
t0 = float(k.t[0])
for label, dt in (("events", measure), ("no events", 0.0)):
    k.active[:] = 1
    k.t_end[:] = t0 + dt
    cp.cuda.runtime.deviceSynchronize()
    start = time.perf_counter()
    if label == "events":
        cp.cuda.profiler.start()
    k._step()
    cp.cuda.runtime.deviceSynchronize()
    if label == "events":
        cp.cuda.profiler.stop()
    sec = time.perf_counter() - start
    print(
        f"{label}: {sec * 1e3:.2f} ms, central events {int(k.step_events[0])}, "
        f"{int(k.step_events[0]) / max(sec, 1e-9):.3e} real ev/s",
        flush=True,
    )
    k.step_events[:] = 0
    k.mismatch[:] = 0
