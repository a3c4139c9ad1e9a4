"""Benchmarks of the kernels: update attempts per ns, median over repeats.

Benchmarks are not tests: they print a table with the machine, the commit and
the exact command, to be copied into BENCHMARKS.md (or appended with
``--append``).
"""

from __future__ import annotations

import shlex
import statistics
import sys
import time

import numpy as np

from simcore.io.provenance import cpu_name, git_commit, now_iso, simcore_version


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


def report(title: str, machine: str, commit: str, table: list[str], append: str | None) -> str:
    """The markdown report of a benchmark (title, machine, version, the exact command,
    the table); also appended to ``append`` if given."""
    cmd = "simcore " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    lines = [
        f"### {title} ({now_iso()[:10]})",
        "",
        f"- {machine}",
        f"- simcore {simcore_version()}, commit `{commit}`",
        f"- command: `{cmd}`",
        "",
        *table,
    ]
    report = "\n".join(lines) + "\n"
    if append:
        with open(append, "a") as fh:
            fh.write("\n" + report)
    return report


def append_csv_row(path: str, fields: tuple[str, ...], row: dict) -> None:
    """Append one benchmark row to a CSV table (header first if the file is new); floats
    with 6 significant digits."""
    import csv
    import os

    new = not os.path.exists(path)
    with open(path, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        if new:
            w.writeheader()
        w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})


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
    from simcore.config import validate_run_config

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
    from simcore.models.kpz.lattice import flat_lattice
    from simcore.rng import uniform_threshold
    from simcore.schedules.decomposed import geometry_from_config

    geo = geometry_from_config(cfg)
    params = (np.uint64(uniform_threshold(cfg["p"])), np.uint64(uniform_threshold(cfg["q"])))
    S, L = int(cfg["samples"]), int(cfg["L"])
    attempts = S * L * L
    rates = []
    if cfg["backend"] == "gpu":
        import cupy as cp

        from simcore.models import gpu_device_name
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
    import csv
    import os

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
                    new = not os.path.exists(csv_path)
                    with open(csv_path, "a", newline="") as fh:
                        w = csv.writer(fh)
                        if new:
                            w.writerow(BENCH_CSV_FIELDS)
                        for r in rates:
                            w.writerow(
                                [scheme, f"{tc[0]},{tc[1]}", f"{domain[0]}x{domain[1]}", p, q,
                                 L, samples, backend, device, threads, f"{r:.6g}",
                                 f"{samples * L * L / (r * 1e9):.6g}", commit]
                            )  # fmt: skip
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
) -> str:
    """Run the benchmark grid and return (and optionally append) a markdown report."""
    if kernel != "sequential":
        raise ValueError(f"unknown kernel {kernel!r}")
    rows = []
    for dim in dims:
        for L in sizes:
            rates = bench_sequential(dim, L, mcs, repeats, warmup, p, q)
            rows.append((dim, L, mcs, repeats, statistics.median(rates), min(rates), max(rates)))
            print(f"d={dim} L={L}: median {rows[-1][4]:.4f} attempts/ns", file=sys.stderr)
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
        f"machine: {cpu_name()}, 1 core (single-threaded kernel)",
        git_commit() or "n/a",
        lines,
        append,
    )
