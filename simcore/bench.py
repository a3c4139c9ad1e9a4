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
    cmd = "simcore " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    lines = [
        f"### {kernel} KPZ kernel, CPU, p={p:g}, q={q:g} ({now_iso()[:10]})",
        "",
        f"- machine: {cpu_name()}, 1 core (single-threaded kernel)",
        f"- simcore {simcore_version()}, commit `{git_commit() or 'n/a'}`",
        f"- command: `{cmd}`",
        "",
        "| d | L | MCS per repeat | repeats | median attempts/ns | min | max |",
        "|---|---|---|---|---|---|---|",
    ]
    for dim, L, m, r, med, lo, hi in rows:
        lines.append(
            f"| {dim} | 2^{L.bit_length() - 1} | {m} | {r} | {med:.4f} | {lo:.4f} | {hi:.4f} |"
        )
    report = "\n".join(lines) + "\n"
    if append:
        with open(append, "a") as fh:
            fh.write("\n" + report)
    return report
