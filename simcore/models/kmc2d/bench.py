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

import statistics
import sys
import time

import numpy as np

from simcore.models.kmc2d.rates import SOS, rate_table, rate_tables
from simcore.models.kmc2d.simulation import step_density

BENCH_KMC2D_FIELDS = (
    "n", "phi", "tile", "backend", "device", "events_per_s", "events_per_s_min",
    "events_per_s_max", "accepted", "rejected", "events_per_tile_step", "step_density",
    "cpu", "bkl_events_per_s", "speedup", "commit",
)  # fmt: skip


class _CpuTiles:
    """The CPU tile twin behind the same three calls as the GPU kernel (run_to, events,
    accepted/rejected, front lattice), for the benchmark."""

    def __init__(self, x, tau, cnt, tile, inv, ratio, seed):
        from simcore.models.kmc2d.tiles import StepControl, TileIntegrator, first_dt

        ctl = StepControl(t=0.0, dt=first_dt(tau, 0.0))
        self.integ = TileIntegrator(x, tau, cnt, tile, SOS, inv, ratio, 0, seed, 0, ctl)
        self.ntiles = self.integ.nt**2

    def run_to(self, t: float) -> None:
        self.integ.run_to(t)

    def counts(self) -> tuple[int, int, int]:
        c = self.integ.control
        return self.integ.events, c.accepted, c.rejected

    def lattice(self) -> np.ndarray:
        return self.integ.x


class _GpuTiles:
    def __init__(self, x, tau, cnt, tile, inv, ratio, seed, dpb, nt):
        from simcore.models.kmc2d.gpu import DEFAULT_DPB, DEFAULT_NT, TileKernel
        from simcore.models.kmc2d.tiles import first_dt

        n = x.shape[0]
        self.kern = TileKernel(
            n, tile, SOS, inv, ratio, 1, seed, 0, dpb=dpb or DEFAULT_DPB, nt=nt or DEFAULT_NT
        )
        z = [0]
        self.kern.upload(x[None], tau[None], cnt[None], z, [first_dt(tau, 0.0)], z, z, z, z)
        self.ntiles = self.kern.ntiles

    def run_to(self, t: float) -> None:
        import cupy as cp

        self.kern.run_to(t)
        cp.cuda.runtime.deviceSynchronize()

    def counts(self) -> tuple[int, int, int]:
        k = self.kern
        return int(k.events[0]), int(k.accepted[0]), int(k.rejected[0])

    def lattice(self) -> np.ndarray:
        return self.kern.front("x")[0].get()


def bench_tiles(
    n: int,
    phi: float,
    tile: int,
    relax: float,
    measure: float,
    repeats: int = 1,
    backend: str = "gpu",
    seed: int = 1,
    k2: float = 1.0,
    dpb: int | None = None,
    nt: int | None = None,
) -> dict:
    """Real events per second of the tile algorithm on one n x n SOS surface: relaxed for
    ``relax`` events per cell from flat, then ``repeats`` production runs of ``measure``
    events per cell each, timed one by one (``rates``); also the final surface ``x``."""
    from simcore.models.kmc2d.serial import initial_times

    inv, ratio = rate_tables(SOS, (k2, phi))
    x = np.zeros((n, n), dtype=np.int32)
    tau, cnt = initial_times(x, SOS, inv, 0, seed, 0)
    if backend == "gpu":
        run = _GpuTiles(x, tau, cnt, tile, inv, ratio, seed, dpb, nt)
    else:
        run = _CpuTiles(x, tau, cnt, tile, inv, ratio, seed)
    cells = n * n
    t = 1.0 / k2  # relax: double the time until `relax` events per cell happened
    while True:
        run.run_to(t)
        if run.counts()[0] >= relax * cells:
            break
        t *= 2
    e0, a0, r0 = run.counts()
    rates = []
    for _ in range(repeats):
        speed = run.counts()[0] / (cells * t)  # events per cell and time unit, so far
        e1 = run.counts()[0]
        start = time.perf_counter()
        t = t + measure / speed
        run.run_to(t)
        rates.append((run.counts()[0] - e1) / (time.perf_counter() - start))
    events, acc, rej = (c - c0 for c, c0 in zip(run.counts(), (e0, a0, r0), strict=True))
    xf = run.lattice()
    return {
        "n": n,
        "phi": phi,
        "tile": tile,
        "backend": backend,
        "rates": rates,
        "events_per_s": statistics.median(rates),
        "accepted": acc,
        "rejected": rej,
        "events_per_tile_step": events / max(acc, 1) / run.ntiles,
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


def run_bench_kmc2d(
    sizes: list[int],
    phis: list[float],
    tile: int,
    backend: str,
    relax: float,
    measure: float,
    repeats: int,
    bkl_events: int,
    append: str | None,
    csv_path: str | None,
) -> str:
    """darkins2024 Fig. 3: events per second of the tile algorithm and of serial BKL, and
    their ratio, for every (n, phi); markdown report, optional CSV rows."""
    from simcore.bench import append_csv_row, report
    from simcore.io.provenance import cpu_name, git_commit

    if backend == "gpu":
        from simcore.models import gpu_device_name, require_gpu

        require_gpu()
        device = gpu_device_name()
    else:
        device = cpu_name()
    commit = git_commit() or "n/a"
    cpu = cpu_name()
    rows = []
    for n in sizes:
        for phi in phis:
            r = bench_tiles(n, phi, tile, relax, measure, repeats, backend)
            b = bench_bkl(r["x"], phi, bkl_events) if bkl_events > 0 else None
            bkl = b["events_per_s"] if b else float("nan")
            row = {
                "n": n,
                "phi": phi,
                "tile": tile,
                "backend": backend,
                "device": device,
                "events_per_s": r["events_per_s"],
                "events_per_s_min": min(r["rates"]),
                "events_per_s_max": max(r["rates"]),
                "accepted": r["accepted"],
                "rejected": r["rejected"],
                "events_per_tile_step": r["events_per_tile_step"],
                "step_density": r["step_density"],
                "cpu": cpu,
                "bkl_events_per_s": bkl,
                "speedup": r["events_per_s"] / bkl,
                "commit": commit,
            }
            rows.append(row)
            print(
                f"n={n} phi={phi:g}: {row['events_per_s']:.3e} events/s ({backend}), BKL "
                f"{bkl:.3e}, speedup {row['speedup']:.3g}",
                file=sys.stderr,
                flush=True,
            )
            if csv_path:
                append_csv_row(csv_path, BENCH_KMC2D_FIELDS, row)
    lines = [
        "| n | phi | real events/s (median) | min | max | BKL events/s | speedup "
        "| accepted / rejected steps | events per tile and step | step density |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']} | {r['phi']:g} | {r['events_per_s']:.3g} | {r['events_per_s_min']:.3g} "
            f"| {r['events_per_s_max']:.3g} | {r['bkl_events_per_s']:.3g} | {r['speedup']:.3g} "
            f"| {r['accepted']} / {r['rejected']} | {r['events_per_tile_step']:.2f} "
            f"| {r['step_density']:.2f} |"
        )
    return report(
        f"Exact 2D KMC, SOS crystal growth, tile algorithm ({backend}, tile {tile}) vs serial BKL",
        f"device: {device}; BKL on {cpu}; relax {relax:g} and measure {measure:g} events per "
        f"cell, {repeats} repeat(s); BKL timed over {bkl_events} events from the relaxed surface",
        commit,
        lines,
        append,
    )
