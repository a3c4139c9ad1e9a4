"""EA3D benchmark: picoseconds per spin-flip attempt (psFlip, lulli2015 eq. 18).

psFlip = t_sweep / (64 k x 4 x L^3) in ps: one sweep attempts one flip of every spin of
the 64 k coded samples in each of the 4 replicas.  The paper's words hold 32 samples,
ours 64, so its ``32 k`` is our ``64 k``.  The lattice content does not change the
speed (the update is branch-free), so the GPU benchmark fills spins and couplings with
random words on the device instead of the campaign's Philox start.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import math
import os
import statistics
import sys
import time

import numpy as np

from simcore.benchreport import add_backend_option, add_output_options, append_csv_rows, report
from simcore.checks import ConfigError
from simcore.io.provenance import cpu_name, git_commit
from simcore.models.ea3d.lattice import LAYOUT_ID, N_REPLICAS, check_layout
from simcore.models.ea3d.rule import thresholds
from simcore.models.ea3d.spec import IPC_EXCHANGES, PRNGS
from simcore.models.spec import BenchKernel

BENCH_EA3D_FIELDS = (
    "layout", "L", "k", "prng", "backend", "device", "ps_per_flip", "seconds_per_sweep", "commit",
    "copy_bytes_per_second",
)  # fmt: skip
#: Default buffer of the peak-bandwidth copy (``--copy-mib``): 2 GiB on a GPU, as large as
#: the lattices it compares with; 256 MiB on the host.
COPY_MIB = {"gpu": 2048, "cpu": 256}


def _random_words_gpu(shape: tuple[int, ...], seed: int):
    """Random uint64 words on the GPU, filled in place (SplitMix64 of the index): no
    temporaries, so the largest lattices that fit the GPU can be benchmarked."""
    import cupy as cp

    out = cp.empty(shape, dtype=cp.uint64)
    fill = cp.ElementwiseKernel(
        "uint64 seed",
        "uint64 x",
        "unsigned long long z = seed + (unsigned long long)i * 0x9E3779B97F4A7C15ull;"
        "z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;"
        "z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;"
        "x = z ^ (z >> 31);",
        "simcore_splitmix_fill",
    )
    fill(np.uint64(seed), out)
    return out


def bench_ea3d(
    layout: str,
    L: int,
    k: int,
    backend: str,
    sweeps: int,
    repeats: int,
    warmup: int,
    T: float,
    prng: str = "philox",
) -> tuple[list[float], str]:
    """psFlip of each repeat (``sweeps`` sweeps timed), and the device name."""
    from simcore.models.ea3d.kernels import PRNG_CODE, n_generators, sweeps_stateful
    from simcore.rng.classic import init_state

    half = L**3 // 2
    thr = thresholds(T)
    k0, k1 = 12345, 678
    state = aux = None
    if prng != "philox":
        state, aux = init_state(prng, 99, n_generators(L, k))
    if backend == "gpu":
        from simcore.backends.cuda import gpu_device_name, require_gpu

        require_gpu()
        import cupy as cp

        from simcore.models.ea3d.gpu import EA3DKernel

        S = _random_words_gpu((N_REPLICAS, 2, k, half), 1)
        J = _random_words_gpu((2, 6, k, half), 2)
        kern = EA3DKernel(layout, L, k, prng=prng)
        if prng != "philox":
            state, aux = cp.asarray(state), cp.asarray(aux)

        def run(t_from: int, n: int) -> None:
            if prng == "philox":
                kern.sweeps(S, J, t_from, n, k0, k1, thr)
            else:
                kern.sweeps_stateful(S, J, n, state, aux, thr)

        run(0, warmup)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        out, t = [], warmup
        for _ in range(repeats):
            start.record()
            run(t, sweeps)
            stop.record()
            stop.synchronize()
            sec = cp.cuda.get_elapsed_time(start, stop) / 1e3 / sweeps
            out.append(sec / (64 * k * N_REPLICAS * L**3) * 1e12)
            t += sweeps
        return out, gpu_device_name()
    from simcore.models.ea3d.kernels import sweeps_philox
    from simcore.models.ea3d.lattice import neighbour_table, physical_table

    lid = LAYOUT_ID[layout]
    rng = np.random.default_rng(1)
    S = rng.integers(0, 2**64 - 1, size=(N_REPLICAS, 2, k, half), dtype=np.uint64)
    J = rng.integers(0, 2**64 - 1, size=(2, 6, k, half), dtype=np.uint64)
    nbr, phys = neighbour_table(lid, L), physical_table(lid, L)

    def run_cpu(t_from: int, n: int) -> None:
        if prng == "philox":
            sweeps_philox(S, J, nbr, phys, t_from, n, k0, k1, *thr)
        else:
            sweeps_stateful(S, J, nbr, PRNG_CODE[prng], state, aux, n, *thr)

    run_cpu(0, warmup)
    out, t = [], warmup
    for _ in range(repeats):
        t0 = time.perf_counter()
        run_cpu(t, sweeps)
        sec = (time.perf_counter() - t0) / sweeps
        out.append(sec / (64 * k * N_REPLICAS * L**3) * 1e12)
        t += sweeps
    import numba

    return out, f"{cpu_name()}, {numba.get_num_threads()} threads"


def copy_bandwidth(backend: str, nbytes: int, repeats: int = 10) -> float:
    """The peak memory bandwidth of the benchmark's device, in bytes per second: a copy of
    a ``nbytes`` buffer into another, bytes read plus bytes written over the median time of
    ``repeats`` copies (after one untimed copy), the measure of the CUDA SDK's
    bandwidthTest (device to device) that lulli2015 Fig. 8 draws as the peak.  GPU: one
    cudaMemcpyAsync timed by CUDA events; CPU: ``numpy.copyto``."""
    if backend == "gpu":
        import cupy as cp

        src = cp.empty(nbytes, dtype=cp.uint8)
        dst = cp.empty(nbytes, dtype=cp.uint8)
        stream = cp.cuda.get_current_stream()
        kind = cp.cuda.runtime.memcpyDeviceToDevice

        def copy() -> None:
            cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes, kind, stream.ptr)

        copy()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        secs = []
        for _ in range(repeats):
            start.record(stream)
            copy()
            stop.record(stream)
            stop.synchronize()
            secs.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        del src, dst
        cp.get_default_memory_pool().free_all_blocks()
    else:
        src_h = np.ones(nbytes, dtype=np.uint8)
        dst_h = np.empty_like(src_h)
        np.copyto(dst_h, src_h)
        secs = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            np.copyto(dst_h, src_h)
            secs.append(time.perf_counter() - t0)
    return 2 * nbytes / statistics.median(secs)


def _peak_bandwidth(backend: str, copy_mib: int) -> float:
    """:func:`copy_bandwidth` of a ``copy_mib`` MiB buffer (halved until both buffers fit
    in half the free memory), or NaN when ``copy_mib`` is 0 or the copy fails (one line
    on stderr: the psFlip rows are still measured)."""
    if copy_mib <= 0:
        return float("nan")
    nbytes = copy_mib << 20
    free = _free_bytes(backend)
    while nbytes > 1 << 20 and 2 * nbytes > free // 2:
        nbytes //= 2
    try:
        bw = copy_bandwidth(backend, nbytes)
    except Exception as exc:  # noqa: BLE001 - the peak is a side measurement: say, go on
        print(f"copy bandwidth: not measured ({type(exc).__name__}: {exc})".splitlines()[0],
              file=sys.stderr)  # fmt: skip
        return float("nan")
    print(f"copy bandwidth: {bw / 1e9:.1f} GB/s (read + written, {nbytes >> 20} MiB buffers)",
          file=sys.stderr)  # fmt: skip
    return bw


def _check_csv_header(path: str | None, fields: tuple[str, ...]) -> None:
    """Refuse (one line) to append rows to a CSV table whose header is not ``fields``: a
    table written by an older ``simcore bench ea3d`` (without the copy column) would get
    rows whose values sit under the wrong names."""
    if not path or not os.path.exists(path) or os.path.getsize(path) == 0:
        return
    with open(path, newline="") as fh:
        header = next(csv.reader(fh), [])
    if tuple(h.strip() for h in header) != fields:
        raise ConfigError("--csv", path, "has other columns (an older table?): write the "
                          "rows to a new file")  # fmt: skip


def _free_bytes(backend: str) -> int:
    """Free memory of the benchmark's device (GPU) or of the host (CPU)."""
    if backend == "gpu":
        import cupy as cp

        cp.get_default_memory_pool().free_all_blocks()
        return int(cp.cuda.runtime.memGetInfo()[0])
    return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))


def _skip_bitwise(layout: str, L: int, layouts: list[str]) -> bool:
    """Whether (layout, L) is left out rather than refused: the bitwise layout at an even
    L that is not a power of two, asked for together with a layout that runs it (the
    paper's Fig. 5 draws bitwise at L = 2^l only, the others at every even L)."""
    return (layout == "bitwise" and L >= 2 and L % 2 == 0 and bool(L & (L - 1))
            and any(other != "bitwise" for other in layouts))  # fmt: skip


def run_bench_ea3d(
    layouts: list[str],
    sizes: list[int],
    ks: list[int],
    prngs: list[str],
    backend: str,
    sweeps: int,
    repeats: int,
    warmup: int,
    T: float,
    append: str | None,
    csv_path: str | None,
    copy_mib: int | None = None,
) -> str:
    """psFlip over layouts, sizes and k; markdown report, optional CSV rows (one per repeat).

    Every row also carries the device's peak bandwidth (:func:`copy_bandwidth` of a
    ``copy_mib`` MiB buffer, default :data:`COPY_MIB`; 0 skips it: NaN), measured once
    before the sweeps, for lulli2015 Fig. 8.  Any even L runs with the standard and sliced
    layouts; the bitwise layout needs L = 2^l: asked for with other layouts, it skips the
    other sizes (one line on stderr), asked for alone, such a size is an error."""
    for layout in layouts:
        for L in sizes:
            problem = check_layout(layout, L)
            if problem and not _skip_bitwise(layout, L, layouts):
                raise ConfigError("--L", L, f"{layout}: {problem}")
    copy_mib = COPY_MIB[backend] if copy_mib is None else int(copy_mib)
    if copy_mib < 0:
        raise ConfigError("--copy-mib", copy_mib, "must be >= 0 (0: no copy measurement)")
    _check_csv_header(csv_path, BENCH_EA3D_FIELDS)
    if backend == "gpu":
        from simcore.backends.cuda import require_gpu

        require_gpu()
    commit = git_commit() or "n/a"
    peak = _peak_bandwidth(backend, copy_mib)
    rows, device = [], ""
    for prng, layout, L, k in itertools.product(prngs, layouts, sizes, ks):
        if _skip_bitwise(layout, L, layouts):
            if prng == prngs[0] and k == ks[0]:
                print(f"{layout} L={L}: skipped, the bitwise layout needs L = 2^l",
                      file=sys.stderr)  # fmt: skip
            continue
        need = 20 * k * (L**3 // 2) * 8  # spins (4 x 2) + couplings (2 x 6) words
        if need > 0.9 * _free_bytes(backend):
            print(f"{layout} L={L} k={k}: skipped, needs {need / 2**30:.1f} GiB",
                  file=sys.stderr)  # fmt: skip
            continue
        ps, device = bench_ea3d(layout, L, k, backend, sweeps, repeats, warmup, T, prng)
        med = statistics.median(ps)
        rows.append((prng, layout, L, k, med, min(ps), max(ps)))
        print(f"{prng} {layout} L={L} k={k}: median {med:.3f} ps/flip", file=sys.stderr)
        if csv_path:
            append_csv_rows(csv_path, BENCH_EA3D_FIELDS, (
                {"layout": layout, "L": L, "k": k, "prng": prng, "backend": backend,
                 "device": device, "ps_per_flip": v,
                 "seconds_per_sweep": v * 1e-12 * 64 * k * N_REPLICAS * L**3, "commit": commit,
                 "copy_bytes_per_second": peak}
                for v in ps))  # fmt: skip
    lines = ["| PRNG | layout | L | k | median psFlip | min | max |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for prng, layout, L, k, med, lo, hi in rows:
        lines.append(f"| {prng} | {layout} | {L} | {k} | {med:.3f} | {lo:.3f} | {hi:.3f} |")
    copied = f"{peak / 1e9:.1f} GB/s" if math.isfinite(peak) else "not measured"
    return report(
        f"EA3D multispin Metropolis, {backend}, T = {T:g}",
        f"device: {device}; 64 k samples x 4 replicas; psFlip in ps per spin-flip attempt; "
        f"copy bandwidth (read + written) {copied}",
        commit,
        lines,
        append,
    )


def run_bench_mgpu(
    gpus: list[int],
    sizes: list[int],
    k: int,
    sweeps: int,
    repeats: int,
    append: str | None,
    csv_path: str | None,
    exchange: str = "auto",
) -> str:
    """Strong scaling on 1..N GPUs of this host (lulli2015 eqs. 18-21): one ``mpirun`` of
    :mod:`simcore.models.ea3d.multigpu` per GPU count (``exchange``: its ``--exchange``);
    markdown report with eta.

    The largest N it can run is claimed for the whole benchmark, all cards or none
    (:mod:`simcore.backends.placement`), and the ranks see exactly those cards."""
    import shutil
    import subprocess
    import tempfile

    from simcore.backends import placement
    from simcore.backends.cuda import gpu_device_name, require_gpu, visible_gpus

    require_gpu()
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise ConfigError("--gpus", gpus, "needs mpirun (Open MPI) and mpi4py on this machine")
    visible = visible_gpus()
    available = len(visible)
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    wait = {"on_wait": lambda line: print(f"simcore: {line}", file=sys.stderr, flush=True)}
    with (
        placement.claimed(visible, min(max(gpus), available), **wait) as held,
        tempfile.TemporaryDirectory() as tmp,
    ):
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": placement.visible_devices_value(held)}
        table = os.path.join(tmp, "scaling.csv")
        for n in sorted(set(gpus)):
            if n > available:
                print(f"N={n}: skipped, this machine has {available} GPU(s)", file=sys.stderr)
                continue
            cmd = [mpirun, *root, "-np", str(n), sys.executable, "-m",
                   "simcore.models.ea3d.multigpu", "--L", *map(str, sizes), "--k", str(k),
                   "--sweeps", str(sweeps), "--repeats", str(repeats), "--csv", table,
                   "--exchange", exchange]  # fmt: skip
            subprocess.run(cmd, check=True, stdout=sys.stderr, env=env)
        with open(table, newline="") as fh:
            rows = list(csv.DictReader(fh))
        if csv_path:
            append_csv_rows(csv_path, tuple(rows[0]), rows)
    med: dict[tuple[int, int], float] = {}
    for L in sizes:
        for n in sorted(set(gpus)):
            vals = [float(r["ps_per_flip_n"]) for r in rows
                    if int(r["L"]) == L and int(r["n_gpus"]) == n]  # fmt: skip
            if vals:
                med[(L, n)] = statistics.median(vals)
    lines = ["| L | N | psFlip_N [ps] | psFlip_multi [ps] | eta = psFlip_1 / psFlip_N |",
             "|---|---|---|---|---|"]  # fmt: skip
    for (L, n), ps in sorted(med.items()):
        eta = med[(L, 1)] / ps if (L, 1) in med else float("nan")
        lines.append(f"| {L} | {n} | {ps:.3f} | {ps / n:.4f} | {eta:.2f} |")
    return report(
        f"EA3D strong scaling, k = {k}, sliced layout split along z'",
        f"device: {available} x {gpu_device_name()}; N = 1 is the single-GPU kernel; "
        f"exchange {exchange}",
        git_commit() or "n/a",
        lines,
        append,
    )


def _ea3d_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--layout",
        nargs="+",
        default=["sliced"],
        help="standard, sliced, bitwise (L = 2^l) (default sliced)",
    )
    ap.add_argument(
        "--L",
        type=int,
        nargs="+",
        default=[16, 32, 64, 128],
        help="even lattice sizes, L = 4m and L = 2(2m+1) alike; bitwise only L = 2^l, its "
        "other sizes skipped when other layouts are asked for (default 16 32 64 128)",
    )
    ap.add_argument(
        "--k", type=int, nargs="+", default=[1], help="coded words of 64 samples each (default 1)"
    )
    ap.add_argument(
        "--prng",
        nargs="+",
        default=["philox"],
        choices=list(PRNGS),
        help="random number generators (default philox)",
    )
    ap.add_argument(
        "--T", type=float, default=1.1, help="temperature (speed barely depends on it; default 1.1)"
    )
    add_backend_option(ap)
    ap.add_argument("--mcs", type=int, default=2, help="sweeps per repeat (default 2)")
    ap.add_argument("--repeats", type=int, default=5, help="timed repeats (default 5)")
    ap.add_argument("--warmup", type=int, default=2, help="sweeps before timing (default 2)")
    ap.add_argument(
        "--copy-mib",
        type=int,
        default=None,
        help="buffer of the peak-bandwidth copy in MiB, written to every row "
        "(lulli2015 Fig. 8; default 2048 on a GPU, 256 on the CPU; 0: none)",
    )
    add_output_options(ap)  # fmt: skip


def _run_ea3d(args: argparse.Namespace) -> str:
    return run_bench_ea3d(args.layout, args.L, args.k, args.prng, args.backend, args.mcs,
                          args.repeats, args.warmup, args.T, args.append, args.csv,
                          args.copy_mib)  # fmt: skip


def _mgpu_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--gpus",
        type=int,
        nargs="+",
        default=[1, 2],
        help="GPU counts N, one mpirun each (default 1 2)",
    )
    ap.add_argument(
        "--L",
        type=int,
        nargs="+",
        default=[128, 256, 512],
        help="lattice sizes (default 128 256 512)",
    )
    ap.add_argument("--k", type=int, default=1, help="coded words per GPU (default 1)")
    ap.add_argument("--mcs", type=int, default=2, help="sweeps per repeat (default 2)")
    ap.add_argument("--repeats", type=int, default=5, help="timed repeats (default 5)")
    ap.add_argument("--exchange", choices=list(IPC_EXCHANGES), default="auto",
                    help="how the GPUs signal a plane's arrival (multigpu --exchange; "
                         "default auto)")  # fmt: skip
    add_output_options(ap)  # fmt: skip


def _run_mgpu(args: argparse.Namespace) -> str:
    return run_bench_mgpu(args.gpus, args.L, args.k, args.mcs, args.repeats, args.append,
                          args.csv, args.exchange)  # fmt: skip


EA3D = BenchKernel(
    "ea3d",
    "EA3D: the multispin Metropolis sweep, ps per spin flip, and the copy bandwidth "
    "(lulli2015 Figs. 4, 5, 7, 8, 9)",
    _ea3d_arguments,
    _run_ea3d,
)
MGPU = BenchKernel(
    "mgpu",
    "EA3D: strong scaling over the GPUs of this host via mpirun (lulli2015 Figs. 12, 13)",
    _mgpu_arguments,
    _run_mgpu,
)
