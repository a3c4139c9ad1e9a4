"""``simcore bench rd1d``: depositions per ns of the RD kernel."""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from simcore.benchreport import add_output_options, append_csv_rows, report
from simcore.checks import ConfigError
from simcore.io.provenance import cpu_name, git_commit
from simcore.models.spec import BenchKernel

FIELDS = ("L", "deposits_per_ns", "commit")


def _arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--L", type=int, default=1024, help="columns (default 1024)")
    ap.add_argument("--mcs", type=int, default=20, help="MCS per repeat (default 20)")
    ap.add_argument("--repeats", type=int, default=3, help="timed repeats (default 3)")
    add_output_options(ap)


def _run(args: argparse.Namespace) -> str:
    from rd1d.simulation import deposit

    if args.L < 2 or args.mcs < 1 or args.repeats < 1:
        raise ConfigError("--L/--mcs/--repeats", f"{args.L}/{args.mcs}/{args.repeats}",
                          "must be >= 2, >= 1, >= 1")  # fmt: skip
    h = np.zeros(args.L, dtype=np.int64)
    deposit(h, 0, 1, 0, 1, 2)  # compile
    rates = []
    for r in range(args.repeats):
        start = time.perf_counter()
        deposit(h, 1 + r * args.mcs, args.mcs, 0, 1, 2)
        rates.append(args.L * args.mcs / (time.perf_counter() - start) / 1e9)
    commit = git_commit() or "n/a"
    if args.csv:
        rows = ({"L": args.L, "deposits_per_ns": v, "commit": commit} for v in rates)
        append_csv_rows(args.csv, FIELDS, rows)
    med = statistics.median(rates)
    return report("rd1d random deposition", f"machine: {cpu_name()}", commit,
                  ["| L | median deposits/ns |", "|---|---|", f"| {args.L} | {med:.4f} |"],
                  args.append)  # fmt: skip


DEPOSITS = BenchKernel("rd1d", "rd1d: depositions per ns of the random-deposition kernel",
                       _arguments, _run)  # fmt: skip
