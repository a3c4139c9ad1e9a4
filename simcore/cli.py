"""The ``simcore`` command: run one job, benchmark kernels."""

from __future__ import annotations

import argparse
import sys

from simcore.config import KMC2D_GPU_TILES, ConfigError, load_run_config

EXAMPLE_CONFIG = """example run config (YAML):
  model: kpz          # octahedron model (dim 2) / single-step model (dim 1)
  dim: 2
  L: 256              # power of two
  p: 1.0              # deposition probability
  q: 0.0              # removal probability
  scheme: sequential
  backend: cpu
  samples: 8
  seed: 12345         # the campaign derives one per job
  t_max: 1000         # MCS
  waiting_times: [10, 30, 100]
"""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="simcore",
        description="Lattice Monte Carlo engine: run one job of a campaign, or benchmark.",
    )
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser(
        "run",
        help="run one job (a block of samples) and write a netCDF file",
        description="Run the job described by CONFIG and write its dataset to --out. "
        "A checkpoint OUT.ckpt is written during long runs; rerunning the same "
        "command resumes from it bit-identically. Exit status: 0 done, 2 bad "
        "input, 3 stopped by --max-wall with a checkpoint.",
        epilog=EXAMPLE_CONFIG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("config", help="run config (YAML)")
    run.add_argument("--out", required=True, help="output netCDF file (written atomically)")
    run.add_argument(
        "--max-wall",
        type=float,
        default=None,
        metavar="SECONDS",
        help="checkpoint and stop (exit 3) after this much wall time",
    )
    run.add_argument("--quiet", action="store_true", help="no progress output")

    bench = sub.add_parser(
        "bench",
        help="measure kernel speed (update attempts per ns)",
        description="Benchmark a kernel and print a markdown table with machine, commit and "
        "command, for BENCHMARKS.md.",
    )
    bench.add_argument(
        "kernel",
        choices=["sequential", "dd", "ea3d", "mgpu", "kmc2d", "fcc"],
        help="sequential: the random-sequential CPU kernel; dd: domain-decomposition schemes; "
        "ea3d: the spin-glass multispin sweep (psFlip); mgpu: its strong scaling over the "
        "GPUs of this host (mpirun); kmc2d: exact 2D KMC, the tile algorithm vs serial BKL "
        "(real events per second, darkins2024 Fig. 3); fcc: the fcc alloy KMC, every "
        "implementation along a quench (attempts per second, kelling2012 Figs. 6 and 7)",
    )
    bench.add_argument("--dim", type=int, nargs="+", default=[2], choices=[1, 2])
    bench.add_argument(
        "--L",
        type=int,
        nargs="+",
        default=None,
        help="lateral sizes: powers of two for kpz (default 4096 16384), even for ea3d "
        "(default 16 32 64 128), multiples of the tile for kmc2d (default 64 .. 4096)",
    )
    bench.add_argument(
        "--mcs", type=int, default=None, help="MCS (ea3d: sweeps) per repeat (default 2; fcc: 100)"
    )
    bench.add_argument("--repeats", type=int, default=5)
    bench.add_argument("--warmup", type=int, default=2, help="MCS before timing")
    bench.add_argument("-p", type=float, default=1.0)
    bench.add_argument("-q", type=float, default=0.0)
    bench.add_argument("--append", metavar="FILE", help="append the report to FILE")
    status = sub.add_parser(
        "status",
        help="progress of a campaign per parameter point",
        description="Samples and runs done and planned, and wall time spent, per point of "
        "a campaign's results directory (results/<campaign>).",
    )
    status.add_argument("results", help="results directory of one campaign, results/<campaign>")
    status.add_argument(
        "--config",
        metavar="CAMPAIGN.yaml",
        help="the campaign file, for the planned runs (default: the jobs started so far)",
    )
    dd = bench.add_argument_group("dd kernel")
    dd.add_argument("--scheme", nargs="+", default=["DTrDT"], help="DD schemes, e.g. DTrDB")
    dd.add_argument(
        "--tc", nargs="+", default=["1,1"], help="thread cells a,b (log2 words), e.g. 1,1 3,2"
    )
    dd.add_argument("--domain", default="128,128", help="device-layer domain Dx,Dy in sites")
    dd.add_argument("--backend", default="gpu", choices=["cpu", "gpu"])
    dd.add_argument("--samples", type=int, default=1, help="samples per launch")
    dd.add_argument("--csv", metavar="FILE", help="append one row per repeat to this CSV")
    dd.add_argument(
        "--cells-per-thread",
        type=int,
        default=0,
        help="gpu: thread cells per GPU thread (0: the default; results do not depend on it)",
    )
    ea = bench.add_argument_group("ea3d kernel (--L: even sizes, --backend, --csv as above)")
    ea.add_argument(
        "--layout", nargs="+", default=["sliced"], help="standard, sliced, bitwise (L = 2^l)"
    )
    ea.add_argument("--k", type=int, nargs="+", default=[1], help="coded words (64 samples each)")
    ea.add_argument(
        "--prng",
        nargs="+",
        default=["philox"],
        choices=["philox", "minstd", "pr64", "mt19937"],
        help="random number generators",
    )
    ea.add_argument("--T", type=float, default=1.1, help="temperature (speed barely depends on it)")
    ea.add_argument(
        "--gpus", type=int, nargs="+", default=[1, 2], help="mgpu: GPU counts N (one mpirun each)"
    )
    km = bench.add_argument_group(
        "kmc2d kernel (--L: lattice sides n, --backend, --repeats, --csv as above)"
    )
    km.add_argument(
        "--phi", type=float, nargs="+", default=[0.0, 1.0, 2.0, 3.0], help="SOS bond parameters"
    )
    km.add_argument("--tile", type=int, default=8, help="tile side B (GPU: 4 or 8)")
    km.add_argument(
        "--relax", type=float, default=2.0, help="events per cell from the flat start, untimed"
    )
    km.add_argument(
        "--measure", type=float, default=5.0, help="events per cell of each timed repeat"
    )
    km.add_argument(
        "--bkl-events",
        type=int,
        default=1_000_000,
        help="events of serial BKL timed from the relaxed surface (0: no BKL)",
    )
    fc = bench.add_argument_group(
        "fcc kernel (--L: one even side, default 512; --mcs: MCS per GPU run, default 100; "
        "--backend, --repeats, --csv as above)"
    )
    fc.add_argument("--c", type=float, default=0.325, help="B concentration")
    fc.add_argument("--epsilon", type=float, default=1.5, help="bond energy / k_B T")
    fc.add_argument("--block-side", type=int, default=32, help="GPU dt block side b")
    fc.add_argument("--cpu-block-side", type=int, default=32, help="CPU DD block side b")
    fc.add_argument("--slabs", type=int, default=0, help="slabs P (0: the numba threads)")
    fc.add_argument(
        "--quench",
        type=int,
        nargs="+",
        default=[0, 10, 100, 1000, 10000],
        help="MCS of the quench at which the implementations are timed",
    )
    fc.add_argument("--cpu-mcs", type=int, default=1, help="MCS per CPU run")
    return ap


def _check_fcc_bench(args: argparse.Namespace) -> None:
    """One-line errors for the fcc benchmark's options."""
    from simcore.models.fcc.decomposed import check_block

    if len(args.L) != 1 or args.L[0] < 8 or args.L[0] % 2:
        raise ConfigError("--L", " ".join(map(str, args.L)), "must be one even size >= 8")
    L = args.L[0]
    for key in ("block_side", "cpu_block_side"):
        try:
            check_block(L, getattr(args, key))
        except ValueError as exc:
            raise ConfigError(f"--{key.replace('_', '-')}", getattr(args, key), str(exc)) from None
    if not 0 < args.c < 1:
        raise ConfigError("--c", args.c, "must be in (0, 1)")
    if not args.epsilon >= 0:
        raise ConfigError("--epsilon", args.epsilon, "must be >= 0")
    if min(args.quench) < 0 or args.repeats < 1 or args.cpu_mcs < 1:
        raise ConfigError("--quench/--repeats/--cpu-mcs", "", "must be >= 0, >= 1, >= 1")


def _check_kmc2d_bench(args: argparse.Namespace) -> None:
    """One-line errors for the kmc2d benchmark's options."""
    B = args.tile
    if B < 2 or B & (B - 1) or (args.backend == "gpu" and B not in KMC2D_GPU_TILES):
        raise ConfigError("--tile", B, "must be a power of two >= 2 (4 or 8 on the GPU)")
    for n in args.L:
        if n % B or n < 3 * B:
            raise ConfigError("--L", n, f"must be a multiple of the tile {B} and >= {3 * B}")
    for key in ("relax", "measure"):
        if not getattr(args, key) > 0:
            raise ConfigError(f"--{key}", getattr(args, key), "must be > 0")
    if args.repeats < 1:
        raise ConfigError("--repeats", args.repeats, "must be >= 1")


def _int_pair(key: str, text: str) -> list[int]:
    try:
        a, b = (int(x) for x in text.split(","))
    except ValueError:
        raise ConfigError(key, text, "must be two integers like 1,1") from None
    return [a, b]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``simcore`` command."""
    args = _parser().parse_args(argv)
    if args.command == "bench" and args.mcs is None:
        args.mcs = 100 if args.kernel == "fcc" else 2
    if args.command == "bench" and args.L is None:
        args.L = {
            "ea3d": [16, 32, 64, 128],
            "mgpu": [128, 256, 512],
            "kmc2d": [64, 128, 256, 512, 1024, 2048, 4096],
            "fcc": [512],
        }.get(args.kernel, [4096, 16384])
    try:
        if args.command == "run":
            from simcore.runner import run_job

            cfg = load_run_config(args.config)
            return run_job(cfg, args.out, max_wall=args.max_wall, progress=not args.quiet)
        if args.command == "status":
            from pathlib import Path

            from simcore.status import campaign_status, format_status

            results = Path(args.results)
            if not (results / "runs").is_dir() and not (results / "jobs").is_dir():
                raise ConfigError(
                    "results", args.results, "no runs/ or jobs/ inside: give results/<campaign>"
                )
            print(format_status(campaign_status(results, args.config)), end="")
            return 0
        if args.command == "bench" and args.kernel == "dd":
            from simcore.bench import run_bench_dd

            print(
                run_bench_dd(
                    args.scheme,
                    [_int_pair("--tc", t) for t in args.tc],
                    _int_pair("--domain", args.domain),
                    args.backend,
                    args.L,
                    args.p,
                    args.q,
                    args.samples,
                    args.mcs,
                    args.repeats,
                    args.warmup,
                    args.append,
                    args.csv,
                    args.cells_per_thread,
                ),
                end="",
            )
            return 0
        if args.command == "bench" and args.kernel == "mgpu":
            from simcore.models.ea3d.bench import run_bench_mgpu

            k = args.k[0]
            out = run_bench_mgpu(args.gpus, args.L, k, args.mcs, args.repeats, args.append,
                                 args.csv)  # fmt: skip
            print(out, end="")
            return 0
        if args.command == "bench" and args.kernel == "fcc":
            import numba

            from simcore.models.fcc.bench import run_bench_fcc

            _check_fcc_bench(args)
            slabs = args.slabs or numba.config.NUMBA_NUM_THREADS
            report = run_bench_fcc(
                args.L[0], args.c, args.epsilon, args.block_side, args.cpu_block_side, slabs,
                args.quench, args.mcs, args.cpu_mcs, args.repeats, args.backend, args.append,
                args.csv,
            )  # fmt: skip
            print(report, end="")
            return 0
        if args.command == "bench" and args.kernel == "kmc2d":
            from simcore.models.kmc2d.bench import run_bench_kmc2d

            _check_kmc2d_bench(args)
            report = run_bench_kmc2d(
                args.L, args.phi, args.tile, args.backend, args.relax, args.measure,
                args.repeats, args.bkl_events, args.append, args.csv,
            )  # fmt: skip
            print(report, end="")
            return 0
        if args.command == "bench" and args.kernel == "ea3d":
            from simcore.models.ea3d.bench import run_bench_ea3d

            print(
                run_bench_ea3d(
                    args.layout, args.L, args.k, args.prng, args.backend, args.mcs,
                    args.repeats, args.warmup, args.T, args.append, args.csv,
                ),
                end="",
            )  # fmt: skip
            return 0
        if args.command == "bench":
            from simcore.bench import run_bench

            for L in args.L:
                if L < 32 or L & (L - 1):
                    raise ConfigError("--L", L, "must be a power of two >= 32")
            print(
                run_bench(
                    args.kernel,
                    args.dim,
                    args.L,
                    args.mcs,
                    args.repeats,
                    args.warmup,
                    args.p,
                    args.q,
                    args.append,
                ),
                end="",
            )
            return 0
    except ConfigError as exc:
        print(f"simcore: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
