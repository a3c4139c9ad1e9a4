"""What every benchmark kernel shares: the markdown report (machine, commit, the exact
command, the table), the CSV rows, and the options every ``simcore bench`` kernel has.

Benchmarks are not tests: they print a table to be copied into BENCHMARKS.md (or
appended with ``--append``) and write one row per measurement with ``--csv``.
"""

from __future__ import annotations

import argparse
import csv
import os
import shlex
import sys
from collections.abc import Iterable

from simcore.io.provenance import now_iso, simcore_version


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
    text = "\n".join(lines) + "\n"
    if append:
        with open(append, "a") as fh:
            fh.write("\n" + text)
    return text


def append_csv_rows(path: str, fields: tuple[str, ...], rows: Iterable[dict]) -> None:
    """Append benchmark rows to a CSV table (header first if the file is new); floats
    with 6 significant digits."""
    new = not os.path.exists(path)
    with open(path, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        if new:
            w.writeheader()
        for row in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})


def append_csv_row(path: str, fields: tuple[str, ...], row: dict) -> None:
    """Append one benchmark row to a CSV table (see :func:`append_csv_rows`)."""
    append_csv_rows(path, fields, [row])


def add_output_options(parser: argparse.ArgumentParser, csv_help: str = "") -> None:
    """``--append FILE`` (the report) and ``--csv FILE`` (the rows), of every kernel."""
    parser.add_argument("--append", metavar="FILE", help="append the markdown report to FILE")
    parser.add_argument(
        "--csv", metavar="FILE", help=csv_help or "append one row per measurement to this CSV"
    )


def add_backend_option(parser: argparse.ArgumentParser, default: str = "gpu") -> None:
    """``--backend cpu|gpu``."""
    parser.add_argument("--backend", default=default, choices=["cpu", "gpu"],
                        help=f"where the kernel runs (default {default})")  # fmt: skip
