"""KPZ benchmarks: update attempts per ns of the random-sequential CPU kernel
(``simcore bench sequential``) and of the domain-decomposition schemes on the GPU or all
CPU cores (``simcore bench dd``; kelling2017 Fig. 7, kelling2012 Figs. 4/5), median over
repeats.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from simcore.benchreport import add_backend_option, add_output_options, append_csv_rows, report
from simcore.checks import ConfigError
from simcore.io.provenance import cpu_name, git_commit
from simcore.models.spec import BenchKernel


def bench_sequential(
    dim: int, L: int, mcs: int, repeats: int, warmup: int, p: float = 1.0, q: float = 0.0
) -> list[float]:
    """Attempts per ns of the random-sequential KPZ kernel, one value per repeat.

    The lattice is first roughened for ``warmup`` MCS (the flat checkerboard is
    all minima and maxima, not a typical surface), and the kernel compiled.
    """
    from simcore.models.kpz.kernels import sequential_sweeps
    from simcore.models.kpz.lattice import flat_lattice
    from simcore.rng import uniform_threshold

    n = L**dim
    lat = flat_lattice(dim, L)
    params = (np.uint64(uniform_threshold(p)), np.uint64(uniform_threshold(q)))
    t = 0
    sequential_sweeps(lat, dim, L, t, warmup, 1, 2, 0, params)
    t += warmup
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        sequential_sweeps(lat, dim, L, t, mcs, 1, 2, 0, params)
        rates.append(mcs * n / (time.perf_counter() - start) / 1e9)
        t += mcs
    return rates


#: Columns of ``simcore bench sequential --csv``: one row per timed repeat.
SEQUENTIAL_CSV_FIELDS = (
    "dim", "L", "p", "q", "device", "threads", "attempts_per_ns", "seconds_per_mcs", "commit",
)  # fmt: skip

BENCH_CSV_FIELDS = (
    "scheme", "tc", "domain", "p", "q", "L", "samples", "backend", "device", "threads",
    "attempts_per_ns", "seconds_per_mcs", "commit",
)  # fmt: skip


def dd_config(
    scheme: str,
    tc: list[int],
    domain: list[int],
    backend: str,
    L: int,
    p: float,
    q: float,
    samples: int,
) -> dict:
    """A validated run config for benchmarking a DD scheme (bad values: ConfigError)."""
    from simcore.models.runconfig import validate_run_config

    return validate_run_config(
        {
            "model": "kpz", "dim": 2, "L": L, "p": p, "q": q, "scheme": scheme,
            "backend": backend, "tc": list(tc), "domain": list(domain), "samples": samples,
            "seed": 1, "t_max": 2**20,
        }
    )  # fmt: skip


def bench_dd(
    cfg: dict, mcs: int, repeats: int, warmup: int, cells_per_thread: int = 0
) -> tuple[list[float], str, int]:
    """Attempts per ns of a DD scheme, one value per repeat; also the device and threads.

    All ``samples`` of the config advance together (on the GPU in the same
    launches), and count as samples x L^2 attempts per MCS.  The lattices are
    roughened for ``warmup`` MCS first (this also compiles the kernels).
    """
    from simcore.models.kpz.geometry import geometry_from_config
    from simcore.models.kpz.lattice import flat_lattice
    from simcore.rng import uniform_threshold

    geo = geometry_from_config(cfg)
    params = (np.uint64(uniform_threshold(cfg["p"])), np.uint64(uniform_threshold(cfg["q"])))
    S, L = int(cfg["samples"]), int(cfg["L"])
    attempts = S * L * L
    rates = []
    if cfg["backend"] == "gpu":
        from simcore.backends.cuda import gpu_device_name, require_gpu

        require_gpu()
        import cupy as cp

        from simcore.models.kpz.gpu import DDKernel

        kern = DDKernel(geo, params, cells_per_thread)
        lat = cp.tile(cp.asarray(flat_lattice(2, L)), (S, 1))
        net = cp.zeros(S, dtype=cp.int64)
        kern.sweeps(lat, net, 0, warmup, 0, 1, 2)
        t = warmup
        for _ in range(repeats):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            kern.sweeps(lat, net, t, mcs, 0, 1, 2)
            stop.record()
            stop.synchronize()
            seconds = cp.cuda.get_elapsed_time(start, stop) / 1e3
            rates.append(mcs * attempts / seconds / 1e9)
            t += mcs
        return rates, gpu_device_name(), geo.threads // kern.cpt
    import numba

    from simcore.models.kpz.decomposed import dd_sweeps

    lats = [flat_lattice(2, L) for _ in range(S)]
    g = geo.as_array()
    for i, lat in enumerate(lats):
        dd_sweeps(lat, g, 0, warmup, i, 1, 2, params)
    t = warmup
    for _ in range(repeats):
        start = time.perf_counter()
        for i, lat in enumerate(lats):
            dd_sweeps(lat, g, t, mcs, i, 1, 2, params)
        rates.append(mcs * attempts / (time.perf_counter() - start) / 1e9)
        t += mcs
    return rates, cpu_name(), numba.get_num_threads()


def run_bench_dd(
    schemes: list[str],
    tcs: list[list[int]],
    domain: list[int],
    backend: str,
    sizes: list[int],
    p: float,
    q: float,
    samples: int,
    mcs: int,
    repeats: int,
    warmup: int,
    append: str | None,
    csv_path: str | None,
    cells_per_thread: int = 0,
) -> str:
    """Benchmark DD schemes over TCs and sizes; markdown report, optional CSV rows."""
    rows = []
    device = ""
    commit = git_commit() or "n/a"
    for scheme in schemes:
        for tc in tcs:
            for L in sizes:
                cfg = dd_config(scheme, tc, domain, backend, L, p, q, samples)
                rates, device, threads = bench_dd(cfg, mcs, repeats, warmup, cells_per_thread)
                med = statistics.median(rates)
                rows.append((scheme, tc, L, med, min(rates), max(rates), threads))
                print(f"{scheme} TC={tc} L={L}: median {med:.3f} attempts/ns", file=sys.stderr)
                if csv_path:
                    append_csv_rows(csv_path, BENCH_CSV_FIELDS, (
                        {"scheme": scheme, "tc": f"{tc[0]},{tc[1]}",
                         "domain": f"{domain[0]}x{domain[1]}", "p": p, "q": q, "L": L,
                         "samples": samples, "backend": backend, "device": device,
                         "threads": threads, "attempts_per_ns": r,
                         "seconds_per_mcs": samples * L * L / (r * 1e9), "commit": commit}
                        for r in rates))  # fmt: skip
    lines = [
        f"| scheme | TC | L | {'GPU threads per block' if backend == 'gpu' else 'CPU threads'} "
        "| median attempts/ns | min | max |",
        "|---|---|---|---|---|---|---|",
    ]
    for scheme, tc, L, med, lo, hi, threads in rows:
        lines.append(
            f"| {scheme} | {tc[0]},{tc[1]} | 2^{L.bit_length() - 1} | {threads} | {med:.3f} "
            f"| {lo:.3f} | {hi:.3f} |"
        )
    return report(
        f"DD KPZ kernels, {backend}, p={p:g}, q={q:g}",
        f"device: {device}; domain {domain[0]}x{domain[1]} sites, {samples} sample(s) per launch",
        commit,
        lines,
        append,
    )


def run_bench(
    kernel: str,
    dims: list[int],
    sizes: list[int],
    mcs: int,
    repeats: int,
    warmup: int,
    p: float,
    q: float,
    append: str | None,
    csv_path: str | None = None,
) -> str:
    """Run the benchmark grid and return (and optionally append) a markdown report; with
    ``csv_path``, one CSV row per repeat (:data:`SEQUENTIAL_CSV_FIELDS`)."""
    if kernel != "sequential":
        raise ValueError(f"unknown kernel {kernel!r}")
    rows = []
    device, commit = cpu_name(), git_commit() or "n/a"
    for dim in dims:
        for L in sizes:
            rates = bench_sequential(dim, L, mcs, repeats, warmup, p, q)
            rows.append((dim, L, mcs, repeats, statistics.median(rates), min(rates), max(rates)))
            print(f"d={dim} L={L}: median {rows[-1][4]:.4f} attempts/ns", file=sys.stderr)
            if csv_path:
                append_csv_rows(csv_path, SEQUENTIAL_CSV_FIELDS, (
                    {"dim": dim, "L": L, "p": p, "q": q, "device": device, "threads": 1,
                     "attempts_per_ns": r, "seconds_per_mcs": L**dim / (r * 1e9),
                     "commit": commit}
                    for r in rates))  # fmt: skip
    lines = [
        "| d | L | MCS per repeat | repeats | median attempts/ns | min | max |",
        "|---|---|---|---|---|---|---|",
    ]
    for dim, L, m, r, med, lo, hi in rows:
        lines.append(
            f"| {dim} | 2^{L.bit_length() - 1} | {m} | {r} | {med:.4f} | {lo:.4f} | {hi:.4f} |"
        )
    return report(
        f"{kernel} KPZ kernel, CPU, p={p:g}, q={q:g}",
        f"machine: {device}, 1 core (single-threaded kernel)",
        git_commit() or "n/a",
        lines,
        append,
    )


def _int_pair(key: str, text: str) -> list[int]:
    try:
        a, b = (int(x) for x in text.split(","))
    except ValueError:
        raise ConfigError(key, text, "must be two integers like 1,1") from None
    return [a, b]


def _common(ap: argparse.ArgumentParser, L: list[int]) -> None:
    ap.add_argument(
        "--L",
        type=int,
        nargs="+",
        default=L,
        help=f"lateral sizes, powers of two (default {' '.join(map(str, L))})",
    )
    ap.add_argument("--mcs", type=int, default=2, help="MCS per repeat (default 2)")
    ap.add_argument("--repeats", type=int, default=5, help="timed repeats (default 5)")
    ap.add_argument("--warmup", type=int, default=2, help="MCS before timing (default 2)")
    ap.add_argument("-p", type=float, default=1.0, help="deposition probability (default 1)")
    ap.add_argument("-q", type=float, default=0.0, help="removal probability (default 0)")
    add_output_options(ap)  # fmt: skip


def _sequential_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--dim", type=int, nargs="+", default=[2], choices=[1, 2],
                    help="substrate dimensions (default 2)")  # fmt: skip
    _common(ap, [4096, 16384])


def _run_sequential(args: argparse.Namespace) -> str:
    for L in args.L:
        if L < 32 or L & (L - 1):
            raise ConfigError("--L", L, "must be a power of two >= 32")
    return run_bench("sequential", args.dim, args.L, args.mcs, args.repeats, args.warmup,
                     args.p, args.q, args.append, args.csv)  # fmt: skip


def _dd_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--scheme", nargs="+", default=["DTrDT"], help="DD schemes, e.g. DTrDB")
    ap.add_argument(
        "--tc", nargs="+", default=["1,1"], help="thread cells a,b (log2 words), e.g. 1,1 3,2"
    )
    ap.add_argument("--domain", default="128,128", help="device-layer domain Dx,Dy in sites")
    add_backend_option(ap)
    ap.add_argument("--samples", type=int, default=1, help="samples per launch")
    ap.add_argument("--cells-per-thread", type=int, default=0,
                    help="gpu: thread cells per GPU thread (0: the default; results do not "
                    "depend on it)")  # fmt: skip
    _common(ap, [4096, 16384])


def _run_dd(args: argparse.Namespace) -> str:
    return run_bench_dd(
        args.scheme, [_int_pair("--tc", t) for t in args.tc], _int_pair("--domain", args.domain),
        args.backend, args.L, args.p, args.q, args.samples, args.mcs, args.repeats,
        args.warmup, args.append, args.csv, args.cells_per_thread,
    )  # fmt: skip


SEQUENTIAL = BenchKernel(
    "sequential",
    "KPZ: the random-sequential CPU kernel (attempts per ns, one core)",
    _sequential_arguments,
    _run_sequential,
)
DD = BenchKernel(
    "dd",
    "KPZ: domain-decomposition schemes on the GPU or all CPU cores (attempts per ns; "
    "kelling2017 Fig. 7)",
    _dd_arguments,
    _run_dd,
)
