"""Benchmarks of exact 2D KMC (darkins2024 sec. 4) and the data of its figures, one
module per ``simcore bench`` kernel:

* ``simcore bench kmc2d`` (Fig. 3, this module): real events per second of the GPU tile
  algorithm and of the serial BKL code on the SOS crystal-growth model, and their ratio;
* ``simcore bench kmc2d-timestep`` (Fig. 2, :mod:`.bench_timestep`): the adaptive time
  step of one CPU run and the edge of its error zone;
* ``simcore bench kmc2d-surfaces`` (Fig. 3's pictures, :mod:`.bench_surfaces`): relaxed
  SOS surfaces per phi;
* ``simcore bench kmc2d-cpu`` (:mod:`.bench_cpu`, its timed jobs in
  :mod:`.bench_cpu_jobs`): a campaign's CPU jobs on all cores vs serial BKL on one core.

Protocol (sec. 4.2, shortened): from a flat surface the GPU relaxes the n x n lattice
for ``relax`` events per cell, then the events of a production run of ``measure``
events per cell are timed (CUDA synchronised, wall clock); the GPU also reports the
fraction of patches it skipped in them (``skipped``: patches of no waiting time before
the step's end, over all patches of the steps, rejected ones included).  BKL starts from
the GPU's relaxed surface and is timed over ``bkl_events`` events (compilation and tree
building excluded: a run of no events is timed and subtracted).  Only real events count:
those of central tiles.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from simcore.benchreport import (
    add_backend_option,
    add_output_options,
    append_csv_row,
    report,
)
from simcore.checks import ConfigError
from simcore.io.provenance import cpu_name, git_commit
from simcore.models.kmc2d.gpu import GPU_TILES, gpu_halo
from simcore.models.kmc2d.rates import SOS, rate_table, rate_tables
from simcore.models.kmc2d.simulation import step_density
from simcore.models.kmc2d.tiles import tile_halo
from simcore.models.spec import BenchKernel

BENCH_KMC2D_FIELDS = (
    "n", "phi", "tile", "backend", "device", "events_per_s", "events_per_s_min",
    "events_per_s_max", "accepted", "rejected", "events_per_tile_step", "step_density",
    "cpu", "bkl_events_per_s", "speedup", "commit", "skipped", "halo",
)  # fmt: skip


class CpuTiles:
    """The CPU tile twin behind the same three calls as the GPU kernel (run_to, events,
    accepted/rejected, front lattice), for the benchmark."""

    def __init__(self, x, tau, cnt, tile, inv, ratio, seed, halo=None):
        from simcore.models.kmc2d.tiles import StepControl, TileIntegrator, first_dt

        ctl = StepControl(t=0.0, dt=first_dt(tau, 0.0))
        self.integ = TileIntegrator(x, tau, cnt, tile, SOS, inv, ratio, 0, seed, 0, ctl, halo)
        self.ntiles = self.integ.nt**2

    def run_to(self, t: float) -> None:
        self.integ.run_to(t)

    def counts(self) -> tuple[int, int, int]:
        c = self.integ.control
        return self.integ.events, c.accepted, c.rejected

    def lattice(self) -> np.ndarray:
        return self.integ.x

    def patches_run(self) -> int | None:
        """The CPU twin runs every patch: no count."""
        return None


class GpuTiles:
    """The GPU tile kernel (one sample from x, tau, cnt at t = 0) behind the same calls as
    :class:`CpuTiles`; ``kern`` is its :class:`~simcore.models.kmc2d.gpu.TileKernel`."""

    def __init__(self, x, tau, cnt, tile, inv, ratio, seed, dpb, nt, halo=None):
        from simcore.models.kmc2d.gpu import DEFAULT_DPB, DEFAULT_NT, TileKernel
        from simcore.models.kmc2d.tiles import first_dt

        n = x.shape[0]
        dpb, nt = dpb or DEFAULT_DPB, nt or DEFAULT_NT
        self.kern = TileKernel(n, tile, SOS, inv, ratio, 1, seed, 0, dpb=dpb, nt=nt, halo=halo)
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

    def patches_run(self) -> int | None:
        """Patches the kernel ran (not skipped) since the start, rejected steps included."""
        return int(self.kern.live_patches[0])


def relax_run(run, cells: int, relax: float, k2: float = 1.0) -> float:
    """Run ``run`` (``run_to`` and ``counts``, as the tile runners here or a
    ``TileKernel``'s events) from t = 0 until ``relax`` events per cell happened, doubling
    the time from 1 / k2; the time reached."""
    t = 1.0 / k2
    while True:
        run.run_to(t)
        if run.counts()[0] >= relax * cells:
            return t
        t *= 2


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
    halo: int | None = None,
) -> dict:
    """Real events per second of the tile algorithm on one n x n SOS surface: relaxed for
    ``relax`` events per cell from flat, then ``repeats`` production runs of ``measure``
    events per cell each, timed one by one (``rates``); also the final surface ``x``.
    ``halo``: cells of halo around each tile in its patch (None: tile - 1)."""
    from simcore.models.kmc2d.serial import initial_times

    inv, ratio = rate_tables(SOS, (k2, phi))
    x = np.zeros((n, n), dtype=np.int32)
    tau, cnt = initial_times(x, SOS, inv, 0, seed, 0)
    if backend == "gpu":
        run = GpuTiles(x, tau, cnt, tile, inv, ratio, seed, dpb, nt, halo)
    else:
        run = CpuTiles(x, tau, cnt, tile, inv, ratio, seed, halo)
    cells = n * n
    t = relax_run(run, cells, relax, k2)
    e0, a0, r0 = run.counts()
    p0 = run.patches_run()
    rates = []
    for _ in range(repeats):
        speed = run.counts()[0] / (cells * t)  # events per cell and time unit, so far
        e1 = run.counts()[0]
        start = time.perf_counter()
        t = t + measure / speed
        run.run_to(t)
        rates.append((run.counts()[0] - e1) / (time.perf_counter() - start))
    events, acc, rej = (c - c0 for c, c0 in zip(run.counts(), (e0, a0, r0), strict=True))
    p1 = run.patches_run()
    skipped = float("nan")
    if p0 is not None and p1 is not None and acc + rej > 0:
        skipped = 1.0 - (p1 - p0) / ((acc + rej) * run.ntiles)
    xf = run.lattice()
    return {
        "n": n,
        "phi": phi,
        "tile": tile,
        "halo": tile_halo(tile, halo),
        "backend": backend,
        "rates": rates,
        "events_per_s": statistics.median(rates),
        "accepted": acc,
        "rejected": rej,
        "events_per_tile_step": events / max(acc, 1) / run.ntiles,
        "step_density": step_density(xf),
        "skipped": skipped,
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


def _tiles_row(r: dict, b: dict | None, device: str, cpu: str, commit: str) -> dict:
    """The CSV row (:data:`BENCH_KMC2D_FIELDS`) of one (n, phi): the tile algorithm's
    :func:`bench_tiles` ``r`` and BKL's :func:`bench_bkl` ``b`` (None: no BKL)."""
    bkl = b["events_per_s"] if b else float("nan")
    return {
        "n": r["n"],
        "phi": r["phi"],
        "tile": r["tile"],
        "backend": r["backend"],
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
        "skipped": r["skipped"],
        "halo": r["halo"],
    }


def _tiles_table(rows: list[dict]) -> list[str]:
    """The markdown table of the rows of :func:`run_bench_kmc2d`."""
    lines = [
        "| n | phi | real events/s (median) | min | max | BKL events/s | speedup "
        "| accepted / rejected steps | events per tile and step | step density "
        "| skipped patches |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']} | {r['phi']:g} | {r['events_per_s']:.3g} | {r['events_per_s_min']:.3g} "
            f"| {r['events_per_s_max']:.3g} | {r['bkl_events_per_s']:.3g} | {r['speedup']:.3g} "
            f"| {r['accepted']} / {r['rejected']} | {r['events_per_tile_step']:.2f} "
            f"| {r['step_density']:.2f} | {r['skipped']:.3f} |"
        )
    return lines


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
    dpb: int | None = None,
    halo: int | None = None,
) -> str:
    """darkins2024 Fig. 3: events per second of the tile algorithm and of serial BKL, and
    their ratio, for every (n, phi); markdown report, optional CSV rows.  ``dpb``: the
    GPU's patches per thread block (None: the kernel's default); ``halo``: cells of halo
    around each tile (None: tile - 1)."""
    if backend == "gpu":
        from simcore.backends.cuda import gpu_device_name, require_gpu

        require_gpu()
        device = gpu_device_name()
    else:
        device = cpu_name()
    commit = git_commit() or "n/a"
    cpu = cpu_name()
    rows = []
    for n in sizes:
        for phi in phis:
            r = bench_tiles(n, phi, tile, relax, measure, repeats, backend, dpb=dpb, halo=halo)
            b = bench_bkl(r["x"], phi, bkl_events) if bkl_events > 0 else None
            row = _tiles_row(r, b, device, cpu, commit)
            rows.append(row)
            print(
                f"n={n} phi={phi:g}: {row['events_per_s']:.3e} events/s ({backend}), BKL "
                f"{row['bkl_events_per_s']:.3e}, speedup {row['speedup']:.3g}, skipped "
                f"patches {row['skipped']:.3f}",
                file=sys.stderr,
                flush=True,
            )
            if csv_path:
                append_csv_row(csv_path, BENCH_KMC2D_FIELDS, row)
    blocks = f", {dpb} patches per block" if dpb and backend == "gpu" else ""
    blocks += f", halo {halo}" if halo is not None else ""
    return report(
        f"Exact 2D KMC, SOS crystal growth, tile algorithm ({backend}, tile {tile}{blocks}) vs "
        "serial BKL",
        f"device: {device}; BKL on {cpu}; relax {relax:g} and measure {measure:g} events per "
        f"cell, {repeats} repeat(s); BKL timed over {bkl_events} events from the relaxed surface",
        commit,
        _tiles_table(rows),
        append,
    )


def phi_option(ap: argparse.ArgumentParser) -> None:
    """``--phi``: the SOS bond parameters of a kernel (default 0 1 2 3, darkins2024's)."""
    ap.add_argument("--phi", type=float, nargs="+", default=[0.0, 1.0, 2.0, 3.0],
                    help="SOS bond parameters (default 0 1 2 3)")  # fmt: skip


def _tiles_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--L",
        type=int,
        nargs="+",
        default=[64, 128, 256, 512, 1024, 2048, 4096],
        help="lattice sides n, multiples of the tile (default 64 .. 4096)",
    )
    phi_option(ap)
    ap.add_argument("--tile", type=int, default=8,
                    help="tile side B (GPU: 4, 8 or 16; default 8)")  # fmt: skip
    ap.add_argument("--halo", type=int, default=None,
                    help="cells of halo around each tile in its patch, 1 .. tile - 1 "
                         "(default tile - 1; GPU: (tile + 2 halo)^2 < 1024)")  # fmt: skip
    add_backend_option(ap)
    ap.add_argument(
        "--relax",
        type=float,
        default=2.0,
        help="events per cell from the flat start, untimed (default 2)",
    )
    ap.add_argument(
        "--measure",
        type=float,
        default=5.0,
        help="events per cell of each timed repeat (default 5)",
    )
    ap.add_argument("--repeats", type=int, default=5, help="timed repeats (default 5)")
    ap.add_argument(
        "--bkl-events",
        type=int,
        default=1_000_000,
        help="events of serial BKL timed from the relaxed surface (0: no BKL)",
    )
    ap.add_argument("--dpb", type=int, default=None,
                    help="GPU: patches per thread block (default the kernel's, 4)")  # fmt: skip
    add_output_options(ap)  # fmt: skip


def _run_tiles(args: argparse.Namespace) -> str:
    B = args.tile
    if B < 2 or B & (B - 1) or (args.backend == "gpu" and B not in GPU_TILES):
        raise ConfigError("--tile", B, "must be a power of two >= 2 (4, 8 or 16 on the GPU)")
    if args.halo is not None:
        try:
            (gpu_halo if args.backend == "gpu" else tile_halo)(B, args.halo)
        except ValueError as err:
            raise ConfigError("--halo", args.halo, str(err)) from None
    for n in args.L:
        if n % B or n < 3 * B:
            raise ConfigError("--L", n, f"must be a multiple of the tile {B} and >= {3 * B}")
    for key in ("relax", "measure"):
        if not getattr(args, key) > 0:
            raise ConfigError(f"--{key}", getattr(args, key), "must be > 0")
    if args.repeats < 1:
        raise ConfigError("--repeats", args.repeats, "must be >= 1")
    if args.dpb is not None and args.dpb not in (1, 2, 4, 8, 16, 32):
        raise ConfigError("--dpb", args.dpb, "must be 1, 2, 4, 8, 16 or 32 patches per block")
    return run_bench_kmc2d(args.L, args.phi, B, args.backend, args.relax, args.measure,
                           args.repeats, args.bkl_events, args.append, args.csv,
                           args.dpb, args.halo)  # fmt: skip


TILES = BenchKernel(
    "kmc2d",
    "kmc2d: real events per second of the tile algorithm vs serial BKL (darkins2024 Fig. 3)",
    _tiles_arguments,
    _run_tiles,
)
