"""The table of a campaign's allocations, from benchmarks/allocation.sh's log and the
histories of the run files: per allocation its wall time, Snakemake's exit status, the
jobs it started from scratch, resumed from a checkpoint and finished, and the
checkpoints it left; then the checks that no job started twice from scratch, none was
lost and every resume continued where the previous segment stopped.

Usage: python benchmarks/allocation_report.py CONFIG LOGDIR
"""

from __future__ import annotations

import csv
import datetime as dt
import re
import sys
from pathlib import Path

import xarray as xr

from simcore.campaign import load_campaign

SEGMENT = re.compile(
    r"^(?P<start>\S+) to (?P<end>\S+) simcore \S+ run segment (?P<n>\d+): "
    r"(?P<began>started from scratch|resumed from the checkpoint at (?P<at>[^;]+)); "
    r"(?P<ended>.*)$"
)


def _epoch(iso: str) -> float:
    return dt.datetime.fromisoformat(iso).timestamp()


def report(config: str, logdir: str) -> str:
    """The Markdown table and the checks, as text."""
    campaign = load_campaign(config)
    planned = {(p, b) for p in campaign.point_names for b in range(campaign.point(p).n_blocks)}
    with open(Path(logdir) / "allocations.tsv") as fh:
        allocations = list(csv.DictReader(fh, delimiter="\t"))
    runs_dir = Path("results") / campaign.name / "runs"
    per = {a["allocation"]: {"scratch": 0, "resumed": 0, "finished": 0} for a in allocations}
    problems: list[str] = []
    found = set()
    for run in sorted(runs_dir.glob("*/b*.nc")):
        found.add((run.parent.name, int(run.stem[1:])))
        with xr.open_dataset(run) as ds:
            lines = [m for line in ds.attrs["history"].splitlines() if (m := SEGMENT.match(line))]
        if [int(m["n"]) for m in lines] != list(range(1, len(lines) + 1)):
            problems.append(f"{run}: segments not numbered 1..{len(lines)}")
        if sum(m["began"] == "started from scratch" for m in lines) != 1:
            problems.append(f"{run}: not exactly one start from scratch")
        for prev, cur in zip(lines, lines[1:], strict=False):
            if not prev["ended"].endswith(f"at {cur['at']}"):
                problems.append(f"{run}: segment {cur['n']} resumed elsewhere than the last ended")
        for m in lines:
            t = _epoch(m["start"])
            inside = (a for a in allocations if float(a["start"]) <= t <= float(a["end"]))
            alloc = next(inside, None)
            if alloc is None:
                problems.append(f"{run}: segment {m['n']} outside every logged allocation")
                continue
            key = "scratch" if m["began"] == "started from scratch" else "resumed"
            per[alloc["allocation"]][key] += 1
            per[alloc["allocation"]]["finished"] += m["ended"].startswith("finished")
    if missing := planned - found:
        problems.append(f"{len(missing)} planned job(s) without a run file")
    rows = [
        "| allocation | wall time (s) | snakemake exit status | jobs started from scratch "
        "| jobs resumed from a checkpoint | jobs finished | checkpoints left |",
        "|---|---|---|---|---|---|---|",
    ]
    for a in allocations:
        c = per[a["allocation"]]
        wall = int(float(a["end"]) - float(a["start"]))
        rows.append(
            f"| {a['allocation']} | {wall} | {a['status']} | {c['scratch']} | {c['resumed']} "
            f"| {c['finished']} | {a['checkpoints_after']} |"
        )
    rows.append("")
    rows.append(
        f"{len(found)} run files for {len(planned)} planned jobs; "
        + (
            "every check passed: one start from scratch per job, every resume where the "
            "previous segment stopped, no job lost"
            if not problems
            else "PROBLEMS:"
        )
    )
    rows += [f"- {p}" for p in problems]
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    print(report(sys.argv[1], sys.argv[2]), end="")
