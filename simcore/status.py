"""`simcore status RESULTS_DIR`: how far a campaign is, per parameter point.

Reads the run files' global attributes (samples, wall_seconds) without loading data, and
the planned jobs from the campaign file (``--config``) or, without it, from the job
configs the simulate jobs wrote (started jobs only).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import yaml


def _run_info(path: Path) -> tuple[int, float]:
    """(samples, wall seconds) of a finished run file, from its header only."""
    import netCDF4

    with netCDF4.Dataset(path) as nc:
        return int(nc.dimensions["sample"].size), float(getattr(nc, "wall_seconds", 0.0))


def campaign_status(results: Path, config: str | None = None) -> list[dict]:
    """One row per point: runs/samples done and planned, wall time of the finished runs."""
    planned: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # runs, samples
    if config:
        from simcore.campaign import load_campaign

        camp = load_campaign(config)
        for pt in camp.points:
            planned[pt.name] = [pt.n_blocks, pt.samples]
    else:
        for job in sorted(results.glob("jobs/*/b*.yaml")):
            cfg = yaml.safe_load(job.read_text())
            planned[job.parent.name][0] += 1
            planned[job.parent.name][1] += int(cfg["samples"])
    done: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for run in sorted(results.glob("runs/*/b*.nc")):
        samples, wall = _run_info(run)
        row = done[run.parent.name]
        row[0] += 1
        row[1] += samples
        row[2] += wall
    rows = []
    for point in sorted(set(planned) | set(done)):
        p, d = planned.get(point, [0, 0]), done.get(point, [0, 0, 0.0])
        rows.append(
            {
                "point": point,
                "runs_done": int(d[0]),
                "runs_planned": int(p[0]),
                "samples_done": int(d[1]),
                "samples_planned": int(p[1]),
                "wall_seconds": float(d[2]),
            }
        )
    return rows


def format_status(rows: list[dict]) -> str:
    """The status rows as a fixed-width table with a total line."""
    head = f"{'point':<60} {'runs':>11} {'samples':>15} {'wall time':>10}"
    lines = [head, "-" * len(head)]
    tot = [0, 0, 0, 0, 0.0]
    for r in rows:
        lines.append(
            f"{r['point']:<60} {r['runs_done']:>5}/{r['runs_planned']:<5} "
            f"{r['samples_done']:>7}/{r['samples_planned']:<7} {_hms(r['wall_seconds']):>10}"
        )
        for i, k in enumerate(
            ("runs_done", "runs_planned", "samples_done", "samples_planned", "wall_seconds")
        ):
            tot[i] += r[k]
    lines.append("-" * len(head))
    lines.append(
        f"{'total':<60} {tot[0]:>5}/{tot[1]:<5} {tot[2]:>7}/{tot[3]:<7} {_hms(tot[4]):>10}"
    )
    return "\n".join(lines) + "\n"


def _hms(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
