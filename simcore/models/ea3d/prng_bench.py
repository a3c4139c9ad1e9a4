"""Random-number generator benchmark of lulli2015 sec. 3: Tables 1 and 2 (``simcore bench
prng``).

Table 1, the host API (the PRAND test the paper uses): fill a GPU array of ``--n``
single-precision floats (2^29 by default), timing t_INIT (creating and seeding the
generator, its state on the GPU), t_GEN (the fill, synchronized) and t_TOT = t_INIT +
t_GEN, each the median of ``--repeats`` fresh generators (wall clock around synchronized
calls, the first generator of each kind untimed: it loads the library or compiles the
kernel).

* cuRAND through CuPy's host API (``cupy.cuda.curand``): XORWOW, MTGP32, MT19937 and
  Philox4x32-10, seed set, ``curandGenerateUniform``.  cuRAND builds a generator's state
  lazily at its first generation, so its state set-up falls into t_GEN, as it did for the
  paper (its cuRAND t_INIT are 0.01 s).
* simcore's generators (``cuda/prng_bench.cu``): MINSTD, Parisi-Rapuano + 64-bit LCG
  (pr64), MT19937 and Philox, with the device functions and the state layout of the
  spin-glass kernels (``simcore/rng/cuda``), one generator per thread: ``--instances``
  threads (default 2^16, the generators of an ea3d battery,
  :data:`simcore.models.ea3d.kernels.MAX_GENERATORS`).  t_INIT is the seeding of
  :func:`simcore.rng.classic.init_state` on the host plus the upload of the state (the
  paper read its MT19937 seeds from the system's random pool); Philox has no state.

Table 2, the device API: generator instances (32-bit numbers) per second drawn inside a
kernel with the paper's launch, ``--blocks`` 64 x ``--threads`` 256, every thread drawing
``--draws`` 2^15 numbers and counting the odd ones, ``--launches`` 10 times; the rate is
the draws of one launch over the median launch time (CUDA events), the set-up (seeding)
reported as t_INIT.

* cuRAND's device API (``cuda/curand_bench.cu``, NVRTC with ``<curand_kernel.h>``): XORWOW
  (``curandState``), Philox (``curandStatePhilox4_32_10_t``) and MTGP32
  (``curandStateMtgp32``, one state and parameter set per block, at most 200 blocks of at
  most 256 threads).  cuRAND's MT19937 has no device API: its row says so.
* simcore's four generators, one per thread, the same kernels' device functions.

cuRAND's side is :mod:`simcore.models.ea3d.prng_curand`, simcore's
:mod:`simcore.models.ea3d.prng_ours`, their shared GPU helpers
:mod:`simcore.models.ea3d.prng_gpu`; this module runs them and writes the tables.

Each generator gets one CSV row per table (``api`` host or device) with the medians and
the spread of the repeats; a generator that cannot run here (CuPy without a cuRAND
binding, no curand headers, cuRAND's MT19937 device API) gets a row whose ``status`` says
why, never a crash.  ``check`` is a sanity value: the mean of the filled floats (host, ~0.5)
or the fraction of odd draws (device, ~0.5); a row whose check is off by more than 0.01
says so in its status.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Sequence
from typing import Any

from simcore.benchreport import add_output_options, append_csv_rows, report
from simcore.checks import ConfigError
from simcore.io.provenance import git_commit
from simcore.models.ea3d.kernels import MAX_GENERATORS
from simcore.models.ea3d.prng_curand import CURAND_GENERATORS, device_curand, host_curand
from simcore.models.ea3d.prng_gpu import NotAvailable, error_summary
from simcore.models.ea3d.prng_ours import OUR_GENERATORS, device_ours, host_ours
from simcore.models.spec import BenchKernel

#: The generators, in table order: cuRAND's, then simcore's.
GENERATORS = CURAND_GENERATORS + OUR_GENERATORS
APIS = ("host", "device")

PRNG_FIELDS = (
    "api", "generator", "status", "numbers", "instances", "repeats", "t_init", "t_gen",
    "t_tot", "t_tot_min", "t_tot_max", "per_second", "per_second_min", "per_second_max",
    "check", "backend", "device", "commit",
)  # fmt: skip

#: How far the check (mean of the floats, or odd fraction) may stray from 1/2.
CHECK_TOLERANCE = 0.01


# ------------------------------------------------------------------ the benchmark
def _row(api: str, gen: str, status: str, **values: Any) -> dict[str, Any]:
    nan = float("nan")
    row = {"api": api, "generator": gen, "status": status, "numbers": "", "instances": "",
           "repeats": "", "t_init": nan, "t_gen": nan, "t_tot": nan, "t_tot_min": nan,
           "t_tot_max": nan, "per_second": nan, "per_second_min": nan, "per_second_max": nan,
           "check": nan}  # fmt: skip
    row.update(values)
    return row


def _checked(check: float) -> str:
    return "ok" if abs(check - 0.5) <= CHECK_TOLERANCE else f"suspect: check {check:.4f} != 0.5"


def host_row(gen: str, n: int, G: int, repeats: int, seed: int) -> dict[str, Any]:
    """Table 1's row of generator ``gen`` (medians over ``repeats``; min and max of t_TOT
    and of the numbers per second of t_GEN)."""
    try:
        if gen in CURAND_GENERATORS:
            times, check = host_curand(gen, n, repeats, seed)
            instances = ""
        else:
            times, check = host_ours(gen, n, G, repeats, seed)
            instances = G
    except NotAvailable as exc:
        return _row("host", gen, str(exc))
    except Exception as exc:  # noqa: BLE001 - a generator that fails is a row, not a crash
        return _row("host", gen, f"failed: {error_summary(exc)}")
    tot = [a + b for a, b in times]
    rate = [n / b for _, b in times]
    return _row("host", gen, _checked(check), numbers=n, instances=instances, repeats=repeats,
                t_init=statistics.median(a for a, _ in times),
                t_gen=statistics.median(b for _, b in times), t_tot=statistics.median(tot),
                t_tot_min=min(tot), t_tot_max=max(tot), per_second=statistics.median(rate),
                per_second_min=min(rate), per_second_max=max(rate), check=check)  # fmt: skip


def device_row(gen: str, blocks: int, threads: int, draws: int, launches: int, seed: int
               ) -> dict[str, Any]:  # fmt: skip
    """Table 2's row of generator ``gen``: instances per second of the median launch (min
    and max over the launches), t_GEN the median launch, t_TOT the set-up plus all
    launches."""
    try:
        if gen in CURAND_GENERATORS:
            t_init, secs, check = device_curand(gen, blocks, threads, draws, launches, seed)
        else:
            t_init, secs, check = device_ours(gen, blocks, threads, draws, launches, seed)
    except NotAvailable as exc:
        return _row("device", gen, str(exc))
    except Exception as exc:  # noqa: BLE001 - a generator that fails is a row, not a crash
        return _row("device", gen, f"failed: {error_summary(exc)}")
    per_launch = blocks * threads * draws
    rate = [per_launch / s for s in secs]
    return _row("device", gen, _checked(check), numbers=per_launch * launches,
                instances=blocks * threads, repeats=launches, t_init=t_init,
                t_gen=statistics.median(secs), t_tot=t_init + sum(secs),
                t_tot_min=t_init + sum(secs), t_tot_max=t_init + sum(secs),
                per_second=per_launch / statistics.median(secs), per_second_min=min(rate),
                per_second_max=max(rate), check=check)  # fmt: skip


def _check_options(n: int, repeats: int, instances: int, blocks: int, threads: int,
                   draws: int, launches: int, seed: int) -> None:  # fmt: skip
    """One-line ConfigErrors for options out of range (before the GPU is touched)."""
    for opt, value, lo in (("--n", n, 1), ("--repeats", repeats, 1), ("--instances", instances, 1),
                           ("--blocks", blocks, 1), ("--threads", threads, 1),
                           ("--draws", draws, 4), ("--launches", launches, 1)):  # fmt: skip
        if value < lo:
            raise ConfigError(opt, value, f"must be >= {lo}")
    if n >= 1 << 40:
        raise ConfigError("--n", n, "must be < 2^40")
    if threads > 1024:
        raise ConfigError("--threads", threads, "must be <= 1024 (threads per block)")
    if draws % 4:
        raise ConfigError("--draws", draws, "must be a multiple of 4 (one Philox call = 4)")
    if draws >= 1 << 31:
        raise ConfigError("--draws", draws, "must be < 2^31")
    if instances >= 1 << 31 or blocks * threads >= 1 << 31:
        raise ConfigError("--instances", instances, "must be < 2^31")
    if not 0 <= seed < 1 << 63:
        raise ConfigError("--seed", seed, "must be in [0, 2^63)")


def run_bench_prng(
    generators: Sequence[str],
    apis: Sequence[str],
    n: int,
    repeats: int,
    instances: int,
    blocks: int,
    threads: int,
    draws: int,
    launches: int,
    seed: int,
    append: str | None,
    csv_path: str | None,
) -> str:
    """Tables 1 and 2 for ``generators`` (``apis`` host and/or device): markdown report,
    and one CSV row per (api, generator) appended to ``csv_path``."""
    _check_options(n, repeats, instances, blocks, threads, draws, launches, seed)
    from simcore.backends.cuda import gpu_device_name, gpu_free_bytes, require_gpu

    require_gpu()
    if "host" in apis:
        free = gpu_free_bytes()
        need = 4 * n + 2516 * instances
        if need > 0.9 * free:
            raise ConfigError("--n", n, f"needs {need / 2**30:.1f} GiB of GPU memory, "
                              f"{free / 2**30:.1f} GiB are free")  # fmt: skip
    device, commit = gpu_device_name(), git_commit() or "n/a"
    rows = []
    for api in APIS:
        if api not in apis:
            continue
        for gen in (g for g in GENERATORS if g in generators):
            if api == "host":
                row = host_row(gen, n, instances, repeats, seed)
            else:
                row = device_row(gen, blocks, threads, draws, launches, seed)
            row.update(backend="gpu", device=device, commit=commit)
            rows.append(row)
            what = (f"t_TOT {row['t_tot']:.4g} s" if api == "host"
                    else f"{row['per_second']:.4g} instances/s")  # fmt: skip
            print(f"prng {api} {gen}: {what} ({row['status']})", file=sys.stderr, flush=True)
            if csv_path:
                append_csv_rows(csv_path, PRNG_FIELDS, [row])
    lines = ["| API | generator | t_INIT [s] | t_GEN [s] | t_TOT [s] (min-max) | numbers/s | "
             "check | status |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        lines.append(f"| {r['api']} | {r['generator']} | {r['t_init']:.4g} | {r['t_gen']:.4g} | "
                     f"{r['t_tot']:.4g} ({r['t_tot_min']:.4g}-{r['t_tot_max']:.4g}) | "
                     f"{r['per_second']:.4g} | {r['check']:.4f} | {r['status']} |")  # fmt: skip
    return report(
        "Random number generators (lulli2015 Tables 1 and 2)",
        f"device: {device}; host API: {n} floats, our generators on {instances} threads, "
        f"median of {repeats}; device API: {blocks} x {threads} threads x {draws} draws, "
        f"median of {launches} launches",
        commit,
        lines,
        append,
    )


def _prng_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--generators",
        nargs="+",
        default=list(GENERATORS),
        choices=GENERATORS,
        help="generators (default all: cuRAND's XORWOW, MTGP32, MT19937, Philox, "
        "then simcore's MINSTD, pr64, MT19937, Philox)",
    )
    ap.add_argument(
        "--api",
        nargs="+",
        default=list(APIS),
        choices=APIS,
        help="host (Table 1: fill an array) and/or device (Table 2: draws inside "
        "a kernel) (default both)",
    )
    ap.add_argument(
        "--n",
        type=int,
        default=1 << 29,
        help="floats of the host-API fill (default 2^29, the paper's)",
    )
    ap.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="fresh generators timed per host-API row, median (default 5)",
    )
    ap.add_argument(
        "--instances",
        type=int,
        default=MAX_GENERATORS,
        help="threads (one generator each) of simcore's host-API fill "
        f"(default {MAX_GENERATORS}, an ea3d battery)",
    )
    ap.add_argument("--blocks", type=int, default=64, help="device API: blocks (default 64)")
    ap.add_argument(
        "--threads", type=int, default=256, help="device API: threads per block (default 256)"
    )
    ap.add_argument(
        "--draws",
        type=int,
        default=1 << 15,
        help="device API: numbers per thread and launch, a multiple of 4 (default 2^15)",
    )
    ap.add_argument(
        "--launches",
        type=int,
        default=10,
        help="device API: timed launches, median (default 10, the paper's)",
    )
    ap.add_argument("--seed", type=int, default=2015, help="seed of every generator")
    add_output_options(ap)  # fmt: skip


def _run_prng(args: argparse.Namespace) -> str:
    return run_bench_prng(args.generators, args.api, args.n, args.repeats, args.instances,
                          args.blocks, args.threads, args.draws, args.launches, args.seed,
                          args.append, args.csv)  # fmt: skip


PRNG = BenchKernel(
    "prng",
    "EA3D: random number generators, fill time (host API) and instances per second "
    "(device API) of cuRAND's and simcore's (lulli2015 Tables 1, 2)",
    _prng_arguments,
    _run_prng,
)
