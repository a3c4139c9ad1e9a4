"""Benchmarks of the fcc alloy KMC (kelling2012 sec. 4, Figs. 6 and 7): update attempts per
second of every implementation along a quench.

Protocol: a homogeneous mixture (c, epsilon; the paper: 512^3 / 2 sites, c = 0.325,
epsilon = 1.5) is quenched by the fastest implementation at hand (the GPU with both species
active, else dt on all cores) and stopped at the times ``quench``.  At each stop the open
bonds per B particle are counted and each implementation runs ``mcs`` MCS (GPU) or
``cpu_mcs`` MCS (CPU; only at the first and last stop) from a copy of that state, timed
``repeats`` times (median, min, max; GPU synchronised, compilation excluded by a warm-up
run).  Fig. 6 is the speed of each implementation relative to the fastest single-core one;
Fig. 7 the run time at each stop relative to the initial state, against the open bonds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import numba
import numpy as np

from simcore.benchreport import add_backend_option, add_output_options, append_csv_row, report
from simcore.checks import ConfigError
from simcore.io.provenance import cpu_name, git_commit
from simcore.models.fcc.lattice import random_mixture
from simcore.models.fcc.observables import open_bonds_per_b
from simcore.models.fcc.rule import thresholds
from simcore.models.spec import BenchKernel

BENCH_FCC_FIELDS = (
    "implementation", "backend", "device", "threads", "L", "c", "epsilon", "active",
    "block_side", "t_quench", "open_bonds", "mcs", "seconds", "attempts_per_s",
    "attempts_per_s_min", "attempts_per_s_max", "moves_per_attempt", "commit", "samples",
)  # fmt: skip
SEED = 0x5EED


def _timed(run: Callable[[np.ndarray], int], state: np.ndarray, repeats: int) -> tuple:
    """Seconds of ``run`` on fresh copies of ``state`` (after an untimed warm-up), and the
    exchanges of the last repeat."""
    run(state.copy())
    secs, moves = [], 0
    for _ in range(repeats):
        lat = state.copy()
        t0 = time.perf_counter()
        moves = run(lat)
        secs.append(time.perf_counter() - t0)
    return secs, moves


def _cpu_runs(L: int, b: int, slabs: int, thr: np.ndarray, t0: int, mcs: int) -> dict:
    """The CPU implementations: name -> (threads, active, block side, run(lat) -> moves)."""
    from simcore.models.fcc.decomposed import dt_sweeps
    from simcore.models.fcc.kernels import sequential_sweeps
    from simcore.models.fcc.slabs import slab_sweeps

    cores = numba.config.NUMBA_NUM_THREADS

    def with_threads(n: int, fn: Callable) -> Callable:
        def run(lat: np.ndarray) -> int:
            numba.set_num_threads(n)
            try:
                return int(fn(lat)[1])
            finally:
                numba.set_num_threads(cores)

        return run

    def seq(lat, both):
        return sequential_sweeps(lat, L, t0, mcs, 0, SEED, 0, thr, both)

    def dt(lat):
        return dt_sweeps(lat, L, b, t0, mcs, 0, SEED, 0, thr, True)

    def sl(lat):
        return slab_sweeps(lat, L, slabs, t0, mcs, 0, SEED, 0, thr, True)

    return {
        "CPU sequential": (1, "B", 0, with_threads(1, lambda lat: seq(lat, False))),
        "CPU sequential, both active": (1, "both", 0, with_threads(1, lambda lat: seq(lat, True))),
        "CPU DD": (1, "both", b, with_threads(1, dt)),
        f"CPU DD ({cores})": (cores, "both", b, with_threads(cores, dt)),
        f"CPU slabs ({cores})": (cores, "both", 0, with_threads(cores, sl)),
    }


def _gpu_runs(L: int, b: int, thr: np.ndarray, t0: int, mcs: int, samples: int = 1) -> dict:
    """The GPU implementations (dt, both species active: the decomposed schedules need
    it, see :mod:`simcore.models.fcc`): one launch per block set (the default) and blocks
    ahead of time, compared in the same run; ``samples`` copies of the lattice in one
    launch (each sample its own random numbers), as a campaign's job runs them."""
    import cupy as cp

    from simcore.models.fcc.gpu import DTKernel

    out = {}
    for ahead, name in ((False, "GPU dt"), (True, "GPU dt, blocks ahead of time")):
        k = DTKernel(L, b, samples, SEED, 0, thr, True, ahead=ahead)

        def run(lat: np.ndarray, k=k) -> int:
            k.upload(np.repeat(lat[None], samples, axis=0))
            cp.cuda.runtime.deviceSynchronize()
            k.sweeps(t0, mcs)
            cp.cuda.runtime.deviceSynchronize()
            return int(np.sum(k.moves))

        out[name] = (1, "both", b, run)
    return out


def _quench(lat: np.ndarray, L: int, b: int, thr: np.ndarray, stops: list[int], gpu: bool):
    """Yield (t, state) at each stop of a quench from ``lat`` (dt, both species active, on
    the GPU or on all CPU cores)."""
    t = 0
    if gpu:
        from simcore.models.fcc.gpu import DTKernel

        k = DTKernel(L, b, 1, SEED + 1, 0, thr, True)
        k.upload(lat[None])
        for stop in stops:
            if stop > t:
                k.sweeps(t, stop - t)
                t = stop
            yield t, k.download()[0]
        return
    from simcore.models.fcc.decomposed import dt_sweeps

    lat = lat.copy()
    for stop in stops:
        if stop > t:
            dt_sweeps(lat, L, b, t, stop - t, 0, SEED + 1, 0, thr, True)
            t = stop
        yield t, lat.copy()


def _stop_runs(
    L: int,
    thr: np.ndarray,
    t: int,
    first_or_last: bool,
    block_side: int,
    cpu_block_side: int,
    slabs: int,
    mcs: int,
    cpu_mcs: int,
    gpu_samples: Sequence[int],
    device: str | None,
) -> dict:
    """The implementations to time at the stop at ``t``: name -> ((threads, active, block
    side, run), MCS, device, samples per launch); the GPU's (``device`` not None) with
    each of ``gpu_samples``, the CPU's at the first and last stop only."""
    runs = {}
    for S in gpu_samples if device is not None else ():
        for k, v in _gpu_runs(L, block_side, thr, t, mcs, S).items():
            runs[k if S == 1 else f"{k}, {S} samples per launch"] = (v, mcs, device, S)
    if first_or_last:
        cpu = _cpu_runs(L, cpu_block_side, slabs, thr, t, cpu_mcs)
        runs.update({k: (v, cpu_mcs, cpu_name(), 1) for k, v in cpu.items()})
    return runs


def _fcc_row(name: str, run: tuple, state: np.ndarray, repeats: int, fixed: dict) -> dict:
    """The CSV row (:data:`BENCH_FCC_FIELDS`) of implementation ``name`` timed on
    ``state`` (``run`` as :func:`_stop_runs` gives it); ``fixed``: L, c, epsilon, the
    quench time, the open bonds, the commit."""
    (threads, active, b, fn), n_mcs, dev, n_samples = run
    N = fixed["L"] ** 3 // 2
    secs, moves = _timed(fn, state, repeats)
    rates = [n_samples * n_mcs * N / s for s in secs]
    return {
        "implementation": name,
        "backend": "gpu" if name.startswith("GPU") else "cpu",
        "device": dev,
        "threads": threads,
        "L": fixed["L"],
        "c": fixed["c"],
        "epsilon": fixed["epsilon"],
        "active": active,
        "block_side": b,
        "t_quench": fixed["t_quench"],
        "open_bonds": fixed["open_bonds"],
        "mcs": n_mcs,
        "seconds": statistics.median(secs),
        "attempts_per_s": statistics.median(rates),
        "attempts_per_s_min": min(rates),
        "attempts_per_s_max": max(rates),
        "moves_per_attempt": moves / (n_samples * n_mcs * N),
        "commit": fixed["commit"],
        "samples": n_samples,
    }


def _fcc_table(rows: list[dict]) -> list[str]:
    """The markdown table of the rows, each against the fastest single core at its stop."""
    single = [r for r in rows if r["backend"] == "cpu" and r["threads"] == 1]
    lines = [
        "| implementation | threads | active | t (MCS) | open bonds per B | attempts/s (median) "
        "| min | max | relative to the fastest single core |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ref = max(
            (s["attempts_per_s"] for s in single if s["t_quench"] == r["t_quench"]),
            default=float("nan"),
        )
        lines.append(
            f"| {r['implementation']} | {r['threads']} | {r['active']} | {r['t_quench']} "
            f"| {r['open_bonds']:.3f} | {r['attempts_per_s']:.3g} | {r['attempts_per_s_min']:.3g} "
            f"| {r['attempts_per_s_max']:.3g} | {r['attempts_per_s'] / ref:.3g} |"
        )
    return lines


def run_bench_fcc(
    L: int,
    c: float,
    epsilon: float,
    block_side: int,
    cpu_block_side: int,
    slabs: int,
    quench: list[int],
    mcs: int,
    cpu_mcs: int,
    repeats: int,
    backend: str,
    append: str | None,
    csv_path: str | None,
    gpu_samples: Sequence[int] = (1,),
) -> str:
    """kelling2012 Figs. 6 and 7: attempts per second of every implementation along a
    quench (the GPU's with each of ``gpu_samples`` samples per launch, as a campaign's
    GPU job runs its samples: more samples, more independent blocks per launch);
    markdown report, optional CSV rows (one per implementation and stop)."""
    gpu = backend == "gpu"
    device = cpu_name()
    if gpu:
        from simcore.backends.cuda import gpu_device_name, require_gpu

        require_gpu()
        device = gpu_device_name()
    commit = git_commit() or "n/a"
    thr = thresholds(epsilon)
    N = L**3 // 2
    stops = sorted(set(quench))
    lat0 = random_mixture(L, c, SEED, 0, 0)
    rows = []
    for i, (t, state) in enumerate(_quench(lat0, L, block_side, thr, stops, gpu)):
        ob = open_bonds_per_b(state, L)
        runs = _stop_runs(L, thr, t, i in (0, len(stops) - 1), block_side, cpu_block_side,
                          slabs, mcs, cpu_mcs, gpu_samples, device if gpu else None)  # fmt: skip
        fixed = {"L": L, "c": c, "epsilon": epsilon, "t_quench": t, "open_bonds": ob,
                 "commit": commit}  # fmt: skip
        for name, run in runs.items():
            row = _fcc_row(name, run, state, repeats, fixed)
            rows.append(row)
            print(
                f"t={t} open bonds {ob:.3f}: {name}: {row['attempts_per_s']:.3e} attempts/s",
                file=sys.stderr,
                flush=True,
            )
            if csv_path:
                append_csv_row(csv_path, BENCH_FCC_FIELDS, row)
    return report(
        f"fcc binary alloy KMC, L = {L} ({N} sites), c = {c:g}, epsilon = {epsilon:g}",
        f"device: {device}; CPU: {cpu_name()}; GPU blocks of {block_side}, CPU DD blocks of "
        f"{cpu_block_side}, {slabs} slabs; {mcs} MCS per GPU run "
        f"({', '.join(map(str, gpu_samples))} sample(s) per launch), {cpu_mcs} per CPU run, "
        f"{repeats} repeat(s)",
        commit,
        _fcc_table(rows),
        append,
    )


def _fcc_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--L", type=int, default=512, help="one even side L (default 512)")
    ap.add_argument("--c", type=float, default=0.325, help="B concentration (default 0.325)")
    ap.add_argument("--epsilon", type=float, default=1.5, help="bond energy / k_B T (default 1.5)")
    ap.add_argument("--block-side", type=int, default=32, help="GPU dt block side b (default 32)")
    ap.add_argument(
        "--cpu-block-side", type=int, default=32, help="CPU DD block side b (default 32)"
    )
    ap.add_argument("--slabs", type=int, default=0, help="slabs P (0: the numba threads)")
    ap.add_argument(
        "--quench",
        type=int,
        nargs="+",
        default=[0, 10, 100, 1000, 10000],
        help="MCS of the quench at which the implementations are timed",
    )
    ap.add_argument("--mcs", type=int, default=100, help="MCS per GPU run (default 100)")
    ap.add_argument("--cpu-mcs", type=int, default=1, help="MCS per CPU run (default 1)")
    ap.add_argument("--repeats", type=int, default=5, help="timed repeats (default 5)")
    ap.add_argument("--gpu-samples", type=int, nargs="+", default=[1],
                    help="samples per GPU launch, each with its own random numbers; "
                         "attempts/s counts all of them; several values time each "
                         "(default 1)")  # fmt: skip
    add_backend_option(ap)
    add_output_options(ap)  # fmt: skip


def _run_fcc(args: argparse.Namespace) -> str:
    from simcore.models.fcc.decomposed import check_block

    L = args.L
    if L < 8 or L % 2:
        raise ConfigError("--L", L, "must be an even size >= 8")
    for key in ("block_side", "cpu_block_side"):
        try:
            check_block(L, getattr(args, key))
        except ValueError as exc:
            raise ConfigError(f"--{key.replace('_', '-')}", getattr(args, key), str(exc)) from None
    if not 0 < args.c < 1:
        raise ConfigError("--c", args.c, "must be in (0, 1)")
    if not args.epsilon >= 0:
        raise ConfigError("--epsilon", args.epsilon, "must be >= 0")
    if min(args.gpu_samples) < 1:
        raise ConfigError("--gpu-samples", args.gpu_samples, "must be >= 1")
    if min(args.quench) < 0 or args.repeats < 1 or args.cpu_mcs < 1:
        raise ConfigError("--quench/--repeats/--cpu-mcs", "", "must be >= 0, >= 1, >= 1")
    slabs = args.slabs or numba.config.NUMBA_NUM_THREADS
    return run_bench_fcc(
        L, args.c, args.epsilon, args.block_side, args.cpu_block_side, slabs, args.quench,
        args.mcs, args.cpu_mcs, args.repeats, args.backend, args.append, args.csv,
        args.gpu_samples,
    )  # fmt: skip


FCC = BenchKernel(
    "fcc",
    "fcc: every implementation of the alloy KMC along a quench, attempts per second "
    "(kelling2012 Figs. 6, 7)",
    _fcc_arguments,
    _run_fcc,
)
