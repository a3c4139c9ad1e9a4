"""``simcore bench kmc2d-surfaces`` (darkins2024 Fig. 3's pictures): relaxed SOS surfaces,
one per phi, grown by the serial integrator."""

from __future__ import annotations

import argparse

import numpy as np

from simcore.benchreport import add_output_options, append_csv_rows, report
from simcore.checks import ConfigError
from simcore.io.provenance import cpu_name, git_commit
from simcore.models.kmc2d.bench import phi_option
from simcore.models.kmc2d.simulation import step_density
from simcore.models.spec import BenchKernel

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
    phi_option(ap)
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
