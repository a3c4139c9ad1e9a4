"""Benchmarks of exact 2D KMC (darkins2024 sec. 4) and the data of its figures.

* ``simcore bench kmc2d`` (Fig. 3): real events per second of the GPU tile algorithm and
  of the serial BKL code on the SOS crystal-growth model, and their ratio;
* ``simcore bench kmc2d-timestep`` (Fig. 2): the adaptive time step of one CPU run and
  the edge of its error zone;
* ``simcore bench kmc2d-surfaces`` (Fig. 3's pictures): relaxed SOS surfaces per phi.

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
    append_csv_rows,
    report,
)
from simcore.checks import ConfigError
from simcore.io.provenance import cpu_name, git_commit
from simcore.models.kmc2d.gpu import GPU_TILES
from simcore.models.kmc2d.rates import SOS, rate_table, rate_tables
from simcore.models.kmc2d.simulation import step_density
from simcore.models.spec import BenchKernel

BENCH_KMC2D_FIELDS = (
    "n", "phi", "tile", "backend", "device", "events_per_s", "events_per_s_min",
    "events_per_s_max", "accepted", "rejected", "events_per_tile_step", "step_density",
    "cpu", "bkl_events_per_s", "speedup", "commit", "skipped",
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

    def patches_run(self) -> int | None:
        """The CPU twin runs every patch: no count."""
        return None


class GpuTiles:
    """The GPU tile kernel (one sample from x, tau, cnt at t = 0) behind the same calls as
    :class:`_CpuTiles`; ``kern`` is its :class:`~simcore.models.kmc2d.gpu.TileKernel`."""

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
) -> dict:
    """Real events per second of the tile algorithm on one n x n SOS surface: relaxed for
    ``relax`` events per cell from flat, then ``repeats`` production runs of ``measure``
    events per cell each, timed one by one (``rates``); also the final surface ``x``."""
    from simcore.models.kmc2d.serial import initial_times

    inv, ratio = rate_tables(SOS, (k2, phi))
    x = np.zeros((n, n), dtype=np.int32)
    tau, cnt = initial_times(x, SOS, inv, 0, seed, 0)
    if backend == "gpu":
        run = GpuTiles(x, tau, cnt, tile, inv, ratio, seed, dpb, nt)
    else:
        run = _CpuTiles(x, tau, cnt, tile, inv, ratio, seed)
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
) -> str:
    """darkins2024 Fig. 3: events per second of the tile algorithm and of serial BKL, and
    their ratio, for every (n, phi); markdown report, optional CSV rows.  ``dpb``: the
    GPU's patches per thread block (None: the kernel's default)."""
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
            r = bench_tiles(n, phi, tile, relax, measure, repeats, backend, dpb=dpb)
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
                "skipped": r["skipped"],
            }
            rows.append(row)
            print(
                f"n={n} phi={phi:g}: {row['events_per_s']:.3e} events/s ({backend}), BKL "
                f"{bkl:.3e}, speedup {row['speedup']:.3g}, skipped patches {row['skipped']:.3f}",
                file=sys.stderr,
                flush=True,
            )
            if csv_path:
                append_csv_row(csv_path, BENCH_KMC2D_FIELDS, row)
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
    blocks = f", {dpb} patches per block" if dpb and backend == "gpu" else ""
    return report(
        f"Exact 2D KMC, SOS crystal growth, tile algorithm ({backend}, tile {tile}{blocks}) vs "
        "serial BKL",
        f"device: {device}; BKL on {cpu}; relax {relax:g} and measure {measure:g} events per "
        f"cell, {repeats} repeat(s); BKL timed over {bkl_events} events from the relaxed surface",
        commit,
        lines,
        append,
    )


def _phi_option(ap: argparse.ArgumentParser) -> None:
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
    _phi_option(ap)
    ap.add_argument("--tile", type=int, default=8, help="tile side B (GPU: 4 or 8; default 8)")
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
        raise ConfigError("--tile", B, "must be a power of two >= 2 (4 or 8 on the GPU)")
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
                           args.dpb)  # fmt: skip


TILES = BenchKernel(
    "kmc2d",
    "kmc2d: real events per second of the tile algorithm vs serial BKL (darkins2024 Fig. 3)",
    _tiles_arguments,
    _run_tiles,
)


# -- darkins2024 Fig. 2: the adaptive time step -------------------------------------------

TIMESTEP_FIELDS = ("step", "dt", "accepted", "edge", "n", "phi", "tile", "seed", "commit")


def timestep_history(
    n: int = 64,
    phi: float = 1.0,
    tile: int = 8,
    steps: int = 160,
    seed: int = 1,
    bisections: int = 9,
) -> dict[str, np.ndarray]:
    """dt of each step of a tile-algorithm run from a flat start (``dt``, ``accepted``) and
    the edge of the error zone before each step (``edge``: the largest accepted dt, to
    a relative precision of 64^(2^-bisections), searched in [dt / 8, 8 dt])."""
    from simcore.models.kmc2d.rates import SOS, rate_tables
    from simcore.models.kmc2d.serial import initial_times
    from simcore.models.kmc2d.tiles import (
        StepControl,
        TileIntegrator,
        advance,
        checksums_agree,
        first_dt,
    )

    inv, ratio = rate_tables(SOS, (1.0, phi))
    x = np.zeros((n, n), dtype=np.int32)
    tau, cnt = initial_times(x, SOS, inv, 0, seed, 0)
    ctl = StepControl(t=0.0, dt=first_dt(tau, 0.0))
    run = TileIntegrator(x, tau, cnt, tile, SOS, inv, ratio, 0, seed, 0, ctl)
    scratch = (np.empty_like(x), np.empty_like(tau), np.empty_like(cnt))

    def accepted(dt: float) -> bool:
        advance(
            run.x,
            run.tau,
            run.cnt,
            *scratch,
            ctl.t,
            ctl.t + dt,
            tile,
            SOS,
            inv,
            ratio,
            0,
            seed,
            0,
            run.sums,
        )
        return bool(checksums_agree(run.sums, run.nt))

    dts, oks, edges = [], [], []
    for _ in range(steps):
        lo, hi = ctl.dt / 8, ctl.dt * 8
        if not accepted(lo):
            lo = 0.0
        elif accepted(hi):
            lo = hi
        else:
            for _ in range(bisections):  # geometric bisection: lo accepted, hi rejected
                mid = (lo * hi) ** 0.5
                lo, hi = (mid, hi) if accepted(mid) else (lo, mid)
        edges.append(lo)
        t_end, cut = ctl.end_of_step(np.inf)
        ok, events = run.try_step(t_end)
        ctl.settle(t_end, cut, ok)
        dts.append(ctl.history[-1][0])
        oks.append(ok)
    return {"dt": np.array(dts), "accepted": np.array(oks), "edge": np.array(edges)}


def _timestep_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--L", type=int, default=64, help="lattice side n (default 64)")
    ap.add_argument("--phi", type=float, default=1.0, help="SOS bond parameter (default 1)")
    ap.add_argument("--tile", type=int, default=8, help="tile side B (default 8)")
    ap.add_argument("--steps", type=int, default=160, help="time steps (default 160)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the run (default 1)")
    ap.add_argument(
        "--bisections",
        type=int,
        default=9,
        help="bisections of the error zone's edge per step (default 9)",
    )
    add_output_options(ap, "append one row per time step to this CSV")  # fmt: skip


def _run_timestep(args: argparse.Namespace) -> str:
    B, n = args.tile, args.L
    if B < 2 or B & (B - 1) or n % B or n < 3 * B:
        raise ConfigError("--L/--tile", f"{n}/{B}", "n must be a multiple of the tile B "
                          "(a power of two >= 2) and >= 3 B")  # fmt: skip
    if args.steps < 1 or args.bisections < 1:
        raise ConfigError("--steps/--bisections", f"{args.steps}/{args.bisections}", "must be >= 1")
    data = timestep_history(n, args.phi, B, args.steps, args.seed, args.bisections)
    commit = git_commit() or "n/a"
    if args.csv:
        steps = zip(data["dt"], data["accepted"], data["edge"], strict=True)
        append_csv_rows(args.csv, TIMESTEP_FIELDS, (
            {"step": i, "dt": float(dt), "accepted": int(ok), "edge": float(edge), "n": n,
             "phi": args.phi, "tile": B, "seed": args.seed, "commit": commit}
            for i, (dt, ok, edge) in enumerate(steps)))  # fmt: skip
    rej = int((~data["accepted"]).sum())
    lines = ["| steps | accepted | rejected | median dt | largest dt |", "|---|---|---|---|---|",
             f"| {args.steps} | {args.steps - rej} | {rej} | {np.median(data['dt']):.3g} "
             f"| {np.max(data['dt']):.3g} |"]  # fmt: skip
    return report(f"Exact 2D KMC, adaptive time step of the tile algorithm (n = {n}, "
                  f"phi = {args.phi:g}, tile {B})", f"machine: {cpu_name()}, the CPU twin",
                  commit, lines, args.append)  # fmt: skip


TIMESTEP = BenchKernel(
    "kmc2d-timestep",
    "kmc2d: the adaptive time step of one tile-algorithm run and its error zone "
    "(darkins2024 Fig. 2; CPU)",
    _timestep_arguments,
    _run_timestep,
)


# -- darkins2024 Fig. 3's pictures: relaxed surfaces ---------------------------------------

SURFACE_FIELDS = ("phi", "n", "events_per_cell", "row", "col", "height", "commit")


def relaxed_surface(phi: float, n: int = 64, events_per_cell: float = 300.0, seed: int = 3):
    """An n x n SOS surface grown from flat by the serial integrator until it holds
    ``events_per_cell`` atoms per column on average."""
    from simcore.models.kmc2d.rates import SOS, rate_tables
    from simcore.models.kmc2d.serial import initial_times, serial_run

    inv, ratio = rate_tables(SOS, (1.0, phi))
    x = np.zeros((n, n), dtype=np.int32)
    tau, cnt = initial_times(x, SOS, inv, 0, seed, 0)
    t = 0.0
    while x.mean() < events_per_cell:
        t_to = max(2 * t, 1.0)
        serial_run(x, tau, cnt, t, t_to, SOS, inv, ratio, 0, seed, 0)
        t = t_to
    return x


def _surfaces_arguments(ap: argparse.ArgumentParser) -> None:
    _phi_option(ap)
    ap.add_argument("--L", type=int, default=64, help="lattice side n (default 64)")
    ap.add_argument(
        "--events-per-cell",
        type=float,
        default=300.0,
        help="atoms per column to grow (default 300)",
    )
    ap.add_argument("--seed", type=int, default=3, help="seed of the runs (default 3)")
    add_output_options(ap, "append one row per cell to this CSV")  # fmt: skip


def _run_surfaces(args: argparse.Namespace) -> str:
    if args.L < 2 or not args.events_per_cell > 0:
        raise ConfigError("--L/--events-per-cell", f"{args.L}/{args.events_per_cell}",
                          "must be >= 2 and > 0")  # fmt: skip
    commit = git_commit() or "n/a"
    lines = ["| phi | mean height | W^2 | step density |", "|---|---|---|---|"]
    for phi in args.phi:
        x = relaxed_surface(phi, args.L, args.events_per_cell, args.seed)
        lines.append(f"| {phi:g} | {x.mean():.1f} | {x.var():.3g} | {step_density(x):.2f} |")
        if args.csv:
            append_csv_rows(args.csv, SURFACE_FIELDS, (
                {"phi": phi, "n": args.L, "events_per_cell": args.events_per_cell, "row": r,
                 "col": c, "height": int(h), "commit": commit}
                for (r, c), h in np.ndenumerate(x)))  # fmt: skip
    return report(
        f"Exact 2D KMC, SOS surfaces grown to {args.events_per_cell:g} atoms per column",
        f"machine: {cpu_name()}, the serial integrator",
        commit,
        lines,
        args.append,
    )


SURFACES = BenchKernel(
    "kmc2d-surfaces",
    "kmc2d: SOS surfaces grown by the serial integrator, one per phi (darkins2024 Fig. 3's "
    "pictures; CPU)",
    _surfaces_arguments,
    _run_surfaces,
)


# -- the CPU path of a campaign: its jobs on all cores vs serial BKL on one core -----------

CPU_FIELDS = (
    "point", "scheme", "how", "threads", "samples", "t_max", "events", "events_per_s",
    "events_per_s_min", "events_per_s_max", "events_per_s_per_thread", "cores_used",
    "events_per_cpu_s", "per_cpu_s_vs_bkl_1", "per_thread_vs_bkl_1", "cpu", "commit",
)  # fmt: skip


def job_speed(cfg: dict, threads: int) -> tuple[int, float, float]:
    """(real events, wall seconds, CPU seconds of all threads) of one CPU job run from
    t = 0 to t_max on ``threads`` of numba's threads: the job's own integrator
    (``KMC2DSimulation``, as ``simcore run`` runs it), timed over its advances only (no
    start, no measurements; the wall seconds are the ``wall`` of its state)."""
    import numba

    from simcore.models.kmc2d.simulation import KMC2DSimulation

    numba.set_num_threads(threads)
    try:
        sim = KMC2DSimulation(cfg)
        advance, used = sim._advance, [0.0]

        def timed(st: dict, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            start = time.process_time()
            out = advance(st, targets)
            used[0] += time.process_time() - start
            return out

        sim._advance = timed
        st = sim.initial_state()
        while not sim.done(st):
            sim.step(st)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return int(st["events"].sum()), float(st["wall"][-1]), used[0]


#: A job that compiles (or loads from the cache) every CPU integrator of a scheme.
_WARM = {"model": "kmc2d", "rates": "sos", "L": 24, "phi": 1.0, "samples": 2, "t_max": 2,
         "seed": 1}  # fmt: skip
_BARRIER = None


def _pool_start(barrier) -> None:
    """A worker process of the one-core runs: compile BKL, keep the start barrier."""
    global _BARRIER
    _BARRIER = barrier
    job_speed(with_scheme(_WARM, "bkl"), 1)


def _pool_run(cfg: dict) -> tuple[int, float, float]:
    """One one-core job in a worker process, started with the other workers' jobs."""
    _BARRIER.wait()
    return job_speed(cfg, 1)


def split_job(cfg: dict, n: int) -> list[dict]:
    """``cfg``'s samples as n jobs of one core each (other seeds: other samples)."""
    S = int(cfg["samples"])
    shares = [S // n + (i < S % n) for i in range(n)]
    return [{**cfg, "samples": k, "seed": int(cfg["seed"]) + i}
            for i, k in enumerate(shares) if k > 0]  # fmt: skip


def with_scheme(cfg: dict, scheme: str) -> dict | None:
    """The run config ``cfg`` under another scheme (tiles of 8), or None where that
    scheme cannot run it (tiles: L not a multiple of 8 >= 24)."""
    from simcore.models.runconfig import validate_run_config

    raw = {k: v for k, v in cfg.items() if k not in ("scheme", "tile")}
    try:
        return validate_run_config({**raw, "scheme": scheme})
    except ConfigError:
        return None


def cpu_points(
    campaign: str | None, sizes: list[int], phis: list[float], samples: int, t_max: int
) -> list[tuple[str, dict]]:
    """(name, run config) of what to time: the first job of every CPU point of a kmc2d
    campaign file, then one sos job of ``samples`` samples to ``t_max`` per (L, phi)
    under the default CPU scheme."""
    from simcore.campaign import load_campaign
    from simcore.models.kmc2d.spec import SPEC
    from simcore.models.runconfig import validate_run_config

    out = []
    if campaign:
        camp = load_campaign(campaign)
        if camp.model != "kmc2d":
            raise ConfigError("--campaign", campaign, "is not a campaign of model kmc2d")
        for pt in camp.points:
            if pt.backend == "cpu":
                out.append((pt.name, validate_run_config(camp.job_config(pt.name, 0))))
    for L in sizes:
        for phi in phis:
            raw = {"model": "kmc2d", "rates": "sos", "L": L, "phi": phi, "samples": samples,
                   "t_max": t_max, "seed": 2024}  # fmt: skip
            cfg = validate_run_config(raw)
            out.append((SPEC.point_name(cfg), cfg))
    return out


def run_bench_cpu(
    points: list[tuple[str, dict]],
    threads: int,
    also: list[str],
    repeats: int,
    append: str | None,
    csv_path: str | None,
) -> str:
    """Real events/s of each point's job under its own scheme on ``threads`` threads (the
    campaign's CPU path: serial and bkl run the samples in parallel) against BKL on one
    core (the same job, samples one after another) and against BKL in ``threads``
    processes of one core at once (the job's samples split among them: what jobs of one
    core each, side by side, would get), and of the ``also`` schemes on 1 and
    ``threads`` threads; medians of ``repeats`` interleaved runs.  Per core two ways: the
    events/s divided by the threads (what a job gets from cores of its own) and the
    events per CPU-second that its threads used (the same on an idle machine; on a
    shared one, where the threads wait for cores, the integrator's own speed)."""
    import multiprocessing
    import os

    # (point, scheme, threads or processes, "threads" or "processes", config)
    variants: list[tuple[str, str, int, str, dict]] = []
    for name, cfg in points:
        runs = [(cfg["scheme"], threads, "threads"), ("bkl", 1, "threads")]
        if threads > 1:
            runs.append(("bkl", threads, "processes"))
        for scheme in also:
            runs += [(scheme, 1, "threads"), (scheme, threads, "threads")]
        for scheme, n, how in dict.fromkeys(runs):
            run_cfg = cfg if scheme == cfg["scheme"] else with_scheme(cfg, scheme)
            if run_cfg is None:
                print(f"{name}: scheme {scheme} cannot run L = {cfg['L']}, left out",
                      file=sys.stderr)  # fmt: skip
                continue
            variants.append((name, scheme, n, how, run_cfg))
    for scheme in dict.fromkeys(v[1] for v in variants):  # compile outside the timings
        job_speed(with_scheme(_WARM, scheme), threads)
    pool = None
    if any(v[3] == "processes" for v in variants):
        ctx = multiprocessing.get_context("spawn")
        pool = ctx.Pool(threads, _pool_start, (ctx.Barrier(threads),))
    load = [os.getloadavg()[0]]
    speeds: dict[tuple, list[float]] = {}
    per_cpu: dict[tuple, list[float]] = {}
    used: dict[tuple, list[float]] = {}
    events: dict[tuple, int] = {}
    try:
        for rep in range(repeats):
            for name, scheme, n, how, cfg in variants:
                if how == "threads":
                    ev, wall, cpu_s = job_speed(cfg, n)
                else:  # all start together; the rate is that of the last to finish
                    parts = split_job(cfg, n)
                    if len(parts) < n:
                        continue
                    done = pool.map(_pool_run, parts, chunksize=1)
                    ev, wall, cpu_s = (sum(d[0] for d in done), max(d[1] for d in done),
                                       sum(d[2] for d in done))  # fmt: skip
                key = (name, scheme, n, how)
                speeds.setdefault(key, []).append(ev / wall)
                per_cpu.setdefault(key, []).append(ev / cpu_s)
                used.setdefault(key, []).append(cpu_s / wall)
                events[key] = ev
                print(f"repeat {rep}: {name} {scheme} on {n} {how}: {ev / wall:.3e} "
                      f"events/s, {ev / cpu_s:.3e} per CPU-second", file=sys.stderr,
                      flush=True)  # fmt: skip
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    load.append(os.getloadavg()[0])
    commit, cpu = git_commit() or "n/a", cpu_name()
    rows = []
    med = statistics.median
    for name, scheme, n, how, cfg in variants:
        key, ref = (name, scheme, n, how), (name, "bkl", 1, "threads")
        if key not in speeds:
            continue
        rates = speeds[key]
        rows.append({
            "point": name, "scheme": scheme, "how": how, "threads": n,
            "samples": int(cfg["samples"]),
            "t_max": int(cfg["t_max"]), "events": events[key], "events_per_s": med(rates),
            "events_per_s_min": min(rates), "events_per_s_max": max(rates),
            "events_per_s_per_thread": med(rates) / n, "cores_used": med(used[key]),
            "events_per_cpu_s": med(per_cpu[key]),
            "per_cpu_s_vs_bkl_1": med(per_cpu[key]) / med(per_cpu[ref]),
            "per_thread_vs_bkl_1": med(rates) / n / med(speeds[ref]), "cpu": cpu,
            "commit": commit,
        })  # fmt: skip
    if csv_path:
        append_csv_rows(csv_path, CPU_FIELDS, rows)
    lines = [
        "| point | scheme | threads | samples | real events/s (median) | min | max "
        "| per thread | / bkl on 1 core | cores used | per CPU-second | / bkl on 1 core |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        n = r["threads"] if r["how"] == "threads" else f"{r['threads']} processes"
        lines.append(
            f"| {r['point']} | {r['scheme']} | {n} | {r['samples']} "
            f"| {r['events_per_s']:.3g} | {r['events_per_s_min']:.3g} "
            f"| {r['events_per_s_max']:.3g} | {r['events_per_s_per_thread']:.3g} "
            f"| {r['per_thread_vs_bkl_1']:.3g} | {r['cores_used']:.2f} "
            f"| {r['events_per_cpu_s']:.3g} | {r['per_cpu_s_vs_bkl_1']:.3g} |"
        )
    return report(
        "Exact 2D KMC on the CPU: each point's job on all threads vs BKL on one core",
        f"machine: {cpu}, {threads} thread(s); {repeats} interleaved repeat(s), medians; "
        f"each job from t = 0 to t_max, its advances timed; load average {load[0]:.1f} at "
        f"the start, {load[1]:.1f} at the end",
        commit,
        lines,
        append,
    )


def _cpu_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--campaign", default="config/kmc2d.yaml",
                    help="a kmc2d campaign file: time the first job of each of its CPU points "
                    "(default config/kmc2d.yaml; '' for none)")  # fmt: skip
    ap.add_argument("--L", type=int, nargs="*", default=[],
                    help="sides of further sos points under the default CPU scheme")  # fmt: skip
    ap.add_argument("--phi", type=float, nargs="+", default=[0.0, 1.0],
                    help="phi of those points (default 0 1)")  # fmt: skip
    ap.add_argument("--samples", type=int, default=8,
                    help="samples of each of those jobs (default 8)")  # fmt: skip
    ap.add_argument("--t-max", type=int, default=10, help="t_max of those jobs (default 10)")
    ap.add_argument("--threads", type=int, default=0,
                    help="threads of the parallel runs (default: all numba has)")  # fmt: skip
    ap.add_argument("--also", nargs="*", default=[], choices=["serial", "bkl", "tiles"],
                    help="other schemes to time on 1 and on --threads threads")  # fmt: skip
    ap.add_argument("--repeats", type=int, default=3, help="interleaved repeats (default 3)")
    add_output_options(ap)


def _run_cpu(args: argparse.Namespace) -> str:
    import numba

    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    most = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= most:
        raise ConfigError("--threads", args.threads, f"must be 1 .. {most} (NUMBA_NUM_THREADS)")
    if args.repeats < 1 or args.samples < 1 or args.t_max < 1:
        given = f"{args.repeats}/{args.samples}/{args.t_max}"
        raise ConfigError("--repeats/--samples/--t-max", given, "must be >= 1")
    points = cpu_points(args.campaign, args.L, args.phi, args.samples, args.t_max)
    if not points:
        raise ConfigError("--campaign/--L", args.campaign, "no CPU point to time")
    return run_bench_cpu(points, threads, args.also, args.repeats, args.append, args.csv)


CPU = BenchKernel(
    "kmc2d-cpu",
    "kmc2d: real events per second of a campaign's CPU jobs on all cores vs serial BKL on "
    "one core (per core; other schemes with --also)",
    _cpu_arguments,
    _run_cpu,
)
