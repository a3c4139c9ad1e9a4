"""``simcore bench kmc2d-cpu``: the CPU path of a campaign, its jobs on all cores against
serial BKL on one core (per core; other schemes with ``--also``).

The jobs are the first job of each CPU point of a kmc2d campaign file (``--campaign``,
which the command line reads for the kernel: :func:`simcore.benchreport.campaign_jobs`)
and one sos job per (``--L``, ``--phi``) under the default CPU scheme; they are timed by
:mod:`simcore.models.kmc2d.bench_cpu_jobs`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from dataclasses import dataclass, field

from simcore.benchreport import (
    add_campaign_jobs_option,
    add_output_options,
    append_csv_rows,
    campaign_jobs,
    report,
)
from simcore.checks import ConfigError
from simcore.io.provenance import cpu_name, git_commit
from simcore.models.kmc2d.bench_cpu_jobs import (
    WARM,
    job_speed,
    one_core_pool,
    run_side_by_side,
    with_scheme,
)
from simcore.models.spec import BenchKernel

CPU_FIELDS = (
    "point", "scheme", "how", "threads", "samples", "t_max", "events", "events_per_s",
    "events_per_s_min", "events_per_s_max", "events_per_s_per_thread", "cores_used",
    "events_per_cpu_s", "per_cpu_s_vs_bkl_1", "per_thread_vs_bkl_1", "cpu", "commit",
)  # fmt: skip

#: One timed run: (point, scheme, threads or processes, "threads" or "processes", config).
Variant = tuple[str, str, int, str, dict]


def cpu_points(
    jobs: list[tuple[str, dict]], sizes: list[int], phis: list[float], samples: int, t_max: int
) -> list[tuple[str, dict]]:
    """(name, run config) of what to time: ``jobs`` (the first job of every CPU point of
    a kmc2d campaign file, as :func:`simcore.benchreport.campaign_jobs` gives them), then
    one sos job of ``samples`` samples to ``t_max`` per (L, phi) under the default CPU
    scheme."""
    from simcore.models.kmc2d.spec import SPEC
    from simcore.models.runconfig import validate_run_config

    out = list(jobs)
    for L in sizes:
        for phi in phis:
            raw = {"model": "kmc2d", "rates": "sos", "L": L, "phi": phi, "samples": samples,
                   "t_max": t_max, "seed": 2024}  # fmt: skip
            cfg = validate_run_config(raw)
            out.append((SPEC.point_name(cfg), cfg))
    return out


def cpu_variants(points: list[tuple[str, dict]], threads: int, also: list[str]) -> list[Variant]:
    """The runs to time of each point: its job under its own scheme on ``threads``
    threads, BKL on one thread and (``threads`` > 1) in ``threads`` one-core processes,
    and the ``also`` schemes on 1 and ``threads`` threads; a scheme that cannot run the
    point is left out (one line on stderr)."""
    variants: list[Variant] = []
    for name, cfg in points:
        runs = [(cfg["scheme"], threads, "threads"), ("bkl", 1, "threads")]
        if threads > 1:
            runs.append(("bkl", threads, "processes"))
        for scheme in also:
            runs += [(scheme, 1, "threads"), (scheme, threads, "threads")]
        for scheme, n, how in dict.fromkeys(runs):
            run_cfg = cfg if scheme == cfg["scheme"] else with_scheme(cfg, scheme)
            if run_cfg is None:
                print(f"{name}: scheme {scheme} cannot run L = {cfg['L']}, left out",
                      file=sys.stderr)  # fmt: skip
                continue
            variants.append((name, scheme, n, how, run_cfg))
    return variants


@dataclass
class Timings:
    """Per (point, scheme, n, how): the events/s of each repeat (``speeds``), the events
    per CPU-second (``per_cpu``), the cores used (``used``), the events of the last
    repeat (``events``); the load average at the start and at the end (``load``)."""

    speeds: dict[tuple, list[float]] = field(default_factory=dict)
    per_cpu: dict[tuple, list[float]] = field(default_factory=dict)
    used: dict[tuple, list[float]] = field(default_factory=dict)
    events: dict[tuple, int] = field(default_factory=dict)
    load: list[float] = field(default_factory=list)

    def add(self, key: tuple, ev: int, wall: float, cpu_s: float) -> None:
        """One repeat of run ``key``: ``ev`` events in ``wall`` seconds, ``cpu_s`` CPU s."""
        self.speeds.setdefault(key, []).append(ev / wall)
        self.per_cpu.setdefault(key, []).append(ev / cpu_s)
        self.used.setdefault(key, []).append(cpu_s / wall)
        self.events[key] = ev


def time_variants(variants: list[Variant], threads: int, repeats: int) -> Timings:
    """``repeats`` interleaved rounds of every variant (compiled first, outside the
    timings; the process runs all start together, the rate that of the last to finish)."""
    for scheme in dict.fromkeys(v[1] for v in variants):  # compile outside the timings
        job_speed(with_scheme(WARM, scheme), threads)
    pool = None
    if any(v[3] == "processes" for v in variants):
        pool = one_core_pool(threads)
    timings = Timings(load=[os.getloadavg()[0]])
    try:
        for rep in range(repeats):
            for name, scheme, n, how, cfg in variants:
                if how == "threads":
                    ev, wall, cpu_s = job_speed(cfg, n)
                else:
                    done = run_side_by_side(pool, cfg, n)
                    if done is None:
                        continue
                    ev, wall, cpu_s = done
                timings.add((name, scheme, n, how), ev, wall, cpu_s)
                print(f"repeat {rep}: {name} {scheme} on {n} {how}: {ev / wall:.3e} "
                      f"events/s, {ev / cpu_s:.3e} per CPU-second", file=sys.stderr,
                      flush=True)  # fmt: skip
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    timings.load.append(os.getloadavg()[0])
    return timings


def cpu_rows(variants: list[Variant], timings: Timings, cpu: str, commit: str) -> list[dict]:
    """The CSV rows (:data:`CPU_FIELDS`) of the variants timed: medians, per thread and
    per CPU-second, each against BKL on one core of the same point."""
    rows = []
    med = statistics.median
    speeds, per_cpu = timings.speeds, timings.per_cpu
    for name, scheme, n, how, cfg in variants:
        key, ref = (name, scheme, n, how), (name, "bkl", 1, "threads")
        if key not in speeds:
            continue
        rates = speeds[key]
        rows.append({
            "point": name, "scheme": scheme, "how": how, "threads": n,
            "samples": int(cfg["samples"]),
            "t_max": int(cfg["t_max"]), "events": timings.events[key], "events_per_s": med(rates),
            "events_per_s_min": min(rates), "events_per_s_max": max(rates),
            "events_per_s_per_thread": med(rates) / n, "cores_used": med(timings.used[key]),
            "events_per_cpu_s": med(per_cpu[key]),
            "per_cpu_s_vs_bkl_1": med(per_cpu[key]) / med(per_cpu[ref]),
            "per_thread_vs_bkl_1": med(rates) / n / med(speeds[ref]), "cpu": cpu,
            "commit": commit,
        })  # fmt: skip
    return rows


def cpu_table(rows: list[dict]) -> list[str]:
    """The markdown table of :func:`cpu_rows`."""
    lines = [
        "| point | scheme | threads | samples | real events/s (median) | min | max "
        "| per thread | / bkl on 1 core | cores used | per CPU-second | / bkl on 1 core |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        n = r["threads"] if r["how"] == "threads" else f"{r['threads']} processes"
        lines.append(
            f"| {r['point']} | {r['scheme']} | {n} | {r['samples']} "
            f"| {r['events_per_s']:.3g} | {r['events_per_s_min']:.3g} "
            f"| {r['events_per_s_max']:.3g} | {r['events_per_s_per_thread']:.3g} "
            f"| {r['per_thread_vs_bkl_1']:.3g} | {r['cores_used']:.2f} "
            f"| {r['events_per_cpu_s']:.3g} | {r['per_cpu_s_vs_bkl_1']:.3g} |"
        )
    return lines


def run_bench_cpu(
    points: list[tuple[str, dict]],
    threads: int,
    also: list[str],
    repeats: int,
    append: str | None,
    csv_path: str | None,
) -> str:
    """Real events/s of each point's job under its own scheme on ``threads`` threads (the
    campaign's CPU path: serial and bkl run the samples in parallel) against BKL on one
    core (the same job, samples one after another) and against BKL in ``threads``
    processes of one core at once (the job's samples split among them: what jobs of one
    core each, side by side, would get), and of the ``also`` schemes on 1 and
    ``threads`` threads; medians of ``repeats`` interleaved runs.  Per core two ways: the
    events/s divided by the threads (what a job gets from cores of its own) and the
    events per CPU-second that its threads used (the same on an idle machine; on a
    shared one, where the threads wait for cores, the integrator's own speed)."""
    variants = cpu_variants(points, threads, also)
    timings = time_variants(variants, threads, repeats)
    load = timings.load
    commit, cpu = git_commit() or "n/a", cpu_name()
    rows = cpu_rows(variants, timings, cpu, commit)
    if csv_path:
        append_csv_rows(csv_path, CPU_FIELDS, rows)
    return report(
        "Exact 2D KMC on the CPU: each point's job on all threads vs BKL on one core",
        f"machine: {cpu}, {threads} thread(s); {repeats} interleaved repeat(s), medians; "
        f"each job from t = 0 to t_max, its advances timed; load average {load[0]:.1f} at "
        f"the start, {load[1]:.1f} at the end",
        commit,
        cpu_table(rows),
        append,
    )


def _cpu_arguments(ap: argparse.ArgumentParser) -> None:
    add_campaign_jobs_option(ap, "--campaign", model="kmc2d", backend="cpu", block=0,
                             default="config/kmc2d.yaml",
                             help="a kmc2d campaign file: time the first job of each of its "
                             "CPU points (default config/kmc2d.yaml; '' for none)")  # fmt: skip
    ap.add_argument("--L", type=int, nargs="*", default=[],
                    help="sides of further sos points under the default CPU scheme")  # fmt: skip
    ap.add_argument("--phi", type=float, nargs="+", default=[0.0, 1.0],
                    help="phi of those points (default 0 1)")  # fmt: skip
    ap.add_argument("--samples", type=int, default=8,
                    help="samples of each of those jobs (default 8)")  # fmt: skip
    ap.add_argument("--t-max", type=int, default=10, help="t_max of those jobs (default 10)")
    ap.add_argument("--threads", type=int, default=0,
                    help="threads of the parallel runs (default: all numba has)")  # fmt: skip
    ap.add_argument("--also", nargs="*", default=[], choices=["serial", "bkl", "tiles"],
                    help="other schemes to time on 1 and on --threads threads")  # fmt: skip
    ap.add_argument("--repeats", type=int, default=3, help="interleaved repeats (default 3)")
    add_output_options(ap)


def _run_cpu(args: argparse.Namespace) -> str:
    import numba

    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    most = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= most:
        raise ConfigError("--threads", args.threads, f"must be 1 .. {most} (NUMBA_NUM_THREADS)")
    if args.repeats < 1 or args.samples < 1 or args.t_max < 1:
        given = f"{args.repeats}/{args.samples}/{args.t_max}"
        raise ConfigError("--repeats/--samples/--t-max", given, "must be >= 1")
    points = cpu_points(campaign_jobs(args), args.L, args.phi, args.samples, args.t_max)
    if not points:
        raise ConfigError("--campaign/--L", args.campaign, "no CPU point to time")
    return run_bench_cpu(points, threads, args.also, args.repeats, args.append, args.csv)


CPU = BenchKernel(
    "kmc2d-cpu",
    "kmc2d: real events per second of a campaign's CPU jobs on all cores vs serial BKL on "
    "one core (per core; other schemes with --also)",
    _cpu_arguments,
    _run_cpu,
)
