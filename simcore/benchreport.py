"""What every benchmark kernel shares: the markdown report (machine, commit, the exact
command, the table), the CSV rows, the options every ``simcore bench`` kernel has, and
the way a kernel asks for the job configs of a campaign file (:class:`CampaignJobsRequest`:
a model may not read campaigns, the command line does it for the kernel).

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
from dataclasses import dataclass
from typing import Any

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


#: The attribute of a ``simcore bench`` kernel's parsed arguments through which it asks
#: for a campaign's job configs (:func:`add_campaign_jobs_option`) and gets them.
CAMPAIGN_JOBS = "campaign_jobs"


@dataclass(frozen=True)
class CampaignJobsRequest:
    """A kernel's request for the job configs of the campaign file named by its option
    ``option`` (argument ``dest``): job ``block`` of each point of backend ``backend`` (None:
    every point), in the campaign's order, of a campaign of model ``model`` (another model's
    is refused: ``OPTION = FILE: is not a campaign of model MODEL``).

    The kernel sets it as the default of :data:`CAMPAIGN_JOBS`; the command line (the
    layer above the models, which reads campaigns) puts in its place a function of no
    arguments that returns ``[(point name, validated run config), ...]`` ([] where the
    option is empty), called by the kernel through :func:`campaign_jobs` when it wants
    them: after its own options are checked, so the errors come in the same order."""

    option: str
    dest: str
    model: str
    backend: str | None = None
    block: int = 0


def add_campaign_jobs_option(
    parser: argparse.ArgumentParser,
    option: str,
    model: str,
    backend: str | None = None,
    block: int = 0,
    **kwargs: Any,
) -> None:
    """Add ``option`` (a campaign file; ``kwargs`` as of ``add_argument``: default, help)
    and declare that the kernel takes that campaign's job configs
    (:class:`CampaignJobsRequest`, read with :func:`campaign_jobs`)."""
    action = parser.add_argument(option, **kwargs)
    request = CampaignJobsRequest(option, action.dest, model, backend, block)
    parser.set_defaults(**{CAMPAIGN_JOBS: request})


def campaign_jobs(args: argparse.Namespace) -> list[tuple[str, dict[str, Any]]]:
    """(point name, validated run config) of the jobs a kernel's campaign option selects,
    as the command line supplies them (:class:`CampaignJobsRequest`; a caller from Python
    may put the list itself there); a ConfigError or CampaignError for a file that is no
    such campaign."""
    supplied = getattr(args, CAMPAIGN_JOBS)
    if isinstance(supplied, CampaignJobsRequest):
        raise TypeError(f"{supplied.option}: the job configs of a campaign are supplied by "
                        "the command line (simcore.cli), which reads campaigns")  # fmt: skip
    return supplied() if callable(supplied) else list(supplied)
