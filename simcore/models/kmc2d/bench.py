"""Benchmarks of exact 2D KMC (darkins2024 sec. 4): real events per second of the GPU tile
algorithm and of the serial BKL code on the SOS crystal-growth model, and their ratio.

Protocol (sec. 4.2, shortened): from a flat surface the GPU relaxes the n x n lattice
for ``relax`` events per cell, then the events of a production run of ``measure``
events per cell are timed (CUDA synchronised, wall clock).  BKL starts from the GPU's
relaxed surface and is timed over ``bkl_events`` events (compilation and tree building
excluded: a run of no events is timed and subtracted).  Only real events count: those
of central tiles.
"""

from __future__ import annotations

import time

import numpy as np

from simcore.models.kmc2d.rates import SOS, rate_table, rate_tables

BENCH_KMC2D_FIELDS = (
    "n",
    "phi",
    "tile",
    "backend",
    "device",
    "events",
    "seconds",
    "events_per_s",
    "accepted",
    "rejected",
    "events_per_tile_step",
    "step_density",
    "commit",
)


def step_density(x: np.ndarray) -> float:
    """Fraction of cells with a higher nearest neighbour (darkins2024 sec. 5)."""
    higher = np.zeros(x.shape, dtype=bool)
    for axis in (0, 1):
        for shift in (1, -1):
            higher |= np.roll(x, shift, axis=axis) > x
    return float(higher.mean())


def bench_gpu(
    n: int,
    phi: float,
    tile: int,
    relax: float,
    measure: float,
    seed: int = 1,
    k2: float = 1.0,
    dpb: int | None = None,
    nt: int | None = None,
) -> dict:
    """Real events per second of the GPU tile algorithm on one relaxed n x n SOS surface;
    also the final surface (``x``, host) for the BKL benchmark."""
    import cupy as cp

    from simcore.models.kmc2d.gpu import DEFAULT_DPB, DEFAULT_NT, TileKernel
    from simcore.models.kmc2d.serial import initial_times
    from simcore.models.kmc2d.tiles import first_dt

    inv, ratio = rate_tables(SOS, (k2, phi))
    x = np.zeros((n, n), dtype=np.int32)
    tau, cnt = initial_times(x, SOS, inv, 0, seed, 0)
    kern = TileKernel(
        n, tile, SOS, inv, ratio, 1, seed, 0, dpb=dpb or DEFAULT_DPB, nt=nt or DEFAULT_NT
    )
    z = [0]
    kern.upload(x[None], tau[None], cnt[None], z, [first_dt(tau, 0.0)], z, z, z, z)
    cells = n * n
    # relax: double the time until `relax` events per cell happened
    t = 1.0 / k2
    while True:
        kern.run_to(t)
        if int(kern.events[0]) >= relax * cells:
            break
        t *= 2
    rate = int(kern.events[0]) / (cells * t)  # events per cell and time unit, roughly
    e0, a0, r0 = int(kern.events[0]), int(kern.accepted[0]), int(kern.rejected[0])
    cp.cuda.runtime.deviceSynchronize()
    start = time.perf_counter()
    kern.run_to(t + measure / rate)
    cp.cuda.runtime.deviceSynchronize()
    seconds = time.perf_counter() - start
    events = int(kern.events[0]) - e0
    acc, rej = int(kern.accepted[0]) - a0, int(kern.rejected[0]) - r0
    xf = kern.front("x")[0].get()
    return {
        "n": n,
        "phi": phi,
        "tile": tile,
        "events": events,
        "seconds": seconds,
        "events_per_s": events / seconds,
        "accepted": acc,
        "rejected": rej,
        "events_per_tile_step": events / max(acc, 1) / kern.ntiles,
        "step_density": step_density(xf),
        "x": xf,
    }


def bench_bkl(x: np.ndarray, phi: float, events: int, seed: int = 2, k2: float = 1.0) -> dict:
    """Events per second of serial BKL from surface x (a copy), ``events`` events timed."""
    from simcore.models.kmc2d.bkl import bkl_run

    rates = rate_table(SOS, (k2, phi))
    warm = x[:16, :16].copy()
    bkl_run(warm, 0.0, np.inf, 0, SOS, rates, 0, seed, 0, 10)  # compile
    start = time.perf_counter()
    bkl_run(x.copy(), 0.0, np.inf, 0, SOS, rates, 0, seed, 0, 0)  # the tree alone
    build = time.perf_counter() - start
    x = x.copy()
    start = time.perf_counter()
    _, _, done = bkl_run(x, 0.0, np.inf, 0, SOS, rates, 0, seed, 0, events)
    seconds = time.perf_counter() - start - build
    return {
        "n": x.shape[0],
        "phi": phi,
        "events": done,
        "seconds": seconds,
        "events_per_s": done / seconds,
    }
