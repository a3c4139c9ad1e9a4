"""Parallel-tempering benchmark: psFlip of the PT job against the plain quench sweep at the
same L on the same device, in the same run.

psFlip(PT) = t / (64 k x 2 n_T x L^3 x sweeps), with t the wall time of whole exchange
steps of a job (``exchange_every`` sweeps of every slot, the energies, the host's exchange
decisions, the swap, the overlaps and the bins); psFlip(sweep only) times the PT sweeps
alone; psFlip(quench) is :func:`simcore.models.ea3d.bench.bench_ea3d` (4 replicas at one
temperature).  Lattices start from the job's Philox start (PT) or random words (quench):
the update is branch-free, so the content does not change the speed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from simcore.benchreport import add_backend_option, add_output_options, append_csv_rows, report
from simcore.io.provenance import git_commit
from simcore.models.ea3d.bench import bench_ea3d
from simcore.models.runconfig import validate_run_config
from simcore.models.spec import BenchKernel

BENCH_PT_FIELDS = ("what", "L", "k", "n_T", "exchange_every", "backend", "device",
                   "ps_per_flip", "commit")  # fmt: skip


def _sync(backend: str) -> None:
    if backend == "gpu":
        import cupy as cp

        cp.cuda.Device().synchronize()


def bench_pt(L: int, k: int, n_T: int, every: int, backend: str, steps: int, repeats: int
             ) -> tuple[list[float], list[float], str]:  # fmt: skip
    """psFlip of each repeat of ``steps`` whole exchange steps, and of the sweeps alone."""
    from simcore.models import registry

    cfg = validate_run_config({"model": "ea3d_pt", "L": L, "T_min": 0.9, "T_max": 2.0,
                               "n_T": n_T, "samples": 64 * k, "exchange_every": every,
                               "t_max": every * 1024, "seed": 1, "backend": backend})  # fmt: skip
    sim = registry.get("ea3d_pt").simulation(cfg)
    st = sim.initial_state()
    flips = 64 * k * 2 * n_T * L**3 * every * steps
    sim.exchange_steps(st, 1)  # compile and warm up
    whole, sweeps = [], []
    for _ in range(repeats):
        _sync(backend)
        t0 = time.perf_counter()
        sim.exchange_steps(st, steps)
        _sync(backend)
        whole.append((time.perf_counter() - t0) / flips * 1e12)
        t0 = time.perf_counter()
        sim.sweeps(st, 0, every * steps)
        _sync(backend)
        sweeps.append((time.perf_counter() - t0) / flips * 1e12)
    device = sim.device_name() or "CPU"
    return whole, sweeps, device


def run_bench_pt(
    sizes: list[int],
    k: int,
    n_T: int,
    everys: list[int],
    backend: str,
    steps: int,
    repeats: int,
    append: str | None,
    csv_path: str | None,
) -> str:
    """The three psFlips per L (and exchange interval); markdown report, optional CSV."""
    commit = git_commit() or "n/a"
    lines = ["| L | k | n_T | exchange_every | psFlip quench | psFlip PT sweeps | "
             "psFlip PT job | PT job / quench |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    device = ""
    for L in sizes:
        quench, device = bench_ea3d("sliced", L, k, backend, 2 * steps, repeats, 2, 1.1)
        q = statistics.median(quench)
        rows = [("quench", L, k, 1, 0, v) for v in quench]
        for every in everys:
            whole, sweeps, device = bench_pt(L, k, n_T, every, backend, steps, repeats)
            w, s = statistics.median(whole), statistics.median(sweeps)
            rows += [("pt_job", L, k, n_T, every, v) for v in whole]
            rows += [("pt_sweeps", L, k, n_T, every, v) for v in sweeps]
            lines.append(f"| {L} | {k} | {n_T} | {every} | {q:.3f} | {s:.3f} | {w:.3f} | "
                         f"{w / q:.2f} |")  # fmt: skip
            print(lines[-1], file=sys.stderr)
        if csv_path:
            append_csv_rows(csv_path, BENCH_PT_FIELDS, (
                {"what": what, "L": L_, "k": k_, "n_T": nt, "exchange_every": ev,
                 "backend": backend, "device": device, "ps_per_flip": v, "commit": commit}
                for what, L_, k_, nt, ev, v in rows))  # fmt: skip
    return report(
        f"EA3D parallel tempering vs the quench sweep, {backend}",
        f"device: {device}; medians of {repeats} repeats; psFlip in ps per spin-flip attempt "
        "(quench: 4 replicas, sliced; PT: 2 n_T slots, sliced, T in [0.9, 2])",
        commit,
        lines,
        append,
    )


def _arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--L",
        type=int,
        nargs="+",
        default=[16, 32, 64, 128],
        help="even lattice sizes (default 16 32 64 128)",
    )
    ap.add_argument("--k", type=int, default=1, help="coded words of 64 samples (default 1)")
    ap.add_argument("--n-T", type=int, default=16, help="temperatures (default 16)")
    ap.add_argument(
        "--every", type=int, nargs="+", default=[10], help="sweeps per exchange step (default 10)"
    )
    add_backend_option(ap)
    ap.add_argument("--steps", type=int, default=10, help="exchange steps per repeat (default 10)")
    ap.add_argument("--repeats", type=int, default=5, help="timed repeats (default 5)")
    add_output_options(ap)  # fmt: skip


def _run(args: argparse.Namespace) -> str:
    return run_bench_pt(args.L, args.k, args.n_T, args.every, args.backend, args.steps,
                        args.repeats, args.append, args.csv)  # fmt: skip


PT = BenchKernel(
    "ea3d-pt",
    "EA3D parallel tempering: psFlip of the PT job and of its sweeps vs the quench sweep",
    _arguments,
    _run,
)
