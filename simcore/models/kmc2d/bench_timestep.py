"""``simcore bench kmc2d-timestep`` (darkins2024 Fig. 2): the adaptive time step of one
CPU run of the tile algorithm and the edge of its error zone."""

from __future__ import annotations

import argparse

import numpy as np

from simcore.benchreport import add_output_options, append_csv_rows, report
from simcore.checks import ConfigError
from simcore.io.provenance import cpu_name, git_commit
from simcore.models.spec import BenchKernel

TIMESTEP_FIELDS = ("step", "dt", "accepted", "edge", "n", "phi", "tile", "halo", "relax", "seed",
                   "commit")  # fmt: skip


def timestep_history(
    n: int = 64,
    phi: float = 1.0,
    tile: int = 8,
    steps: int = 160,
    seed: int = 1,
    bisections: int = 9,
    halo: int | None = None,
    relax: float = 0.0,
) -> dict[str, np.ndarray]:
    """dt of each step of a tile-algorithm run from a flat start (``dt``, ``accepted``) and
    the edge of the error zone before each step (``edge``: the largest accepted dt, to
    a relative precision of 64^(2^-bisections), searched in [dt / 8, 8 dt]).  ``halo``:
    the patch's cells around the tile (default tile - 1, the GPU kernel's); ``relax``:
    events per cell that the tile algorithm fires first (a relaxed surface)."""
    from simcore.models.kmc2d.bench import CpuTiles, relax_run
    from simcore.models.kmc2d.rates import SOS, rate_tables
    from simcore.models.kmc2d.serial import initial_times
    from simcore.models.kmc2d.tiles import advance, checksums_agree

    inv, ratio = rate_tables(SOS, (1.0, phi))
    x = np.zeros((n, n), dtype=np.int32)
    tau, cnt = initial_times(x, SOS, inv, 0, seed, 0)
    tiles = CpuTiles(x, tau, cnt, tile, inv, ratio, seed, halo)
    if relax > 0:  # as the kmc2d benchmark relaxes its surface
        relax_run(tiles, n * n, relax)
    run = tiles.integ
    ctl = run.control
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
            run.halo + 1,
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
        "--halo",
        type=int,
        default=None,
        help="cells of halo around each tile in its patch, 1 .. tile - 1 (default tile - 1, "
        "the 3 x 3-tile patch of the GPU kernel)",
    )
    ap.add_argument(
        "--relax", type=float, default=0.0,
        help="events per cell fired by the tile algorithm before the first step "
        "(default 0: a flat start)",
    )  # fmt: skip
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
    from simcore.models.kmc2d.tiles import tile_halo

    try:
        halo = tile_halo(B, args.halo)
    except ValueError as err:
        raise ConfigError("--halo", args.halo, str(err)) from None
    if args.relax < 0:
        raise ConfigError("--relax", args.relax, "must be >= 0")
    data = timestep_history(n, args.phi, B, args.steps, args.seed, args.bisections, halo,
                            args.relax)  # fmt: skip
    commit = git_commit() or "n/a"
    if args.csv:
        steps = zip(data["dt"], data["accepted"], data["edge"], strict=True)
        append_csv_rows(args.csv, TIMESTEP_FIELDS, (
            {"step": i, "dt": float(dt), "accepted": int(ok), "edge": float(edge), "n": n,
             "phi": args.phi, "tile": B, "halo": halo, "relax": args.relax, "seed": args.seed,
             "commit": commit}
            for i, (dt, ok, edge) in enumerate(steps)))  # fmt: skip
    rej = int((~data["accepted"]).sum())
    lines = ["| steps | accepted | rejected | median dt | largest dt |", "|---|---|---|---|---|",
             f"| {args.steps} | {args.steps - rej} | {rej} | {np.median(data['dt']):.3g} "
             f"| {np.max(data['dt']):.3g} |"]  # fmt: skip
    return report(f"Exact 2D KMC, adaptive time step of the tile algorithm (n = {n}, "
                  f"phi = {args.phi:g}, tile {B}, halo {halo})",
                  f"machine: {cpu_name()}, the CPU twin",
                  commit, lines, args.append)  # fmt: skip


TIMESTEP = BenchKernel(
    "kmc2d-timestep",
    "kmc2d: the adaptive time step of one tile-algorithm run and its error zone "
    "(darkins2024 Fig. 2; CPU)",
    _timestep_arguments,
    _run_timestep,
)
