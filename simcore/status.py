"""`simcore status RESULTS_DIR`: how far a campaign is, per parameter point.

The plan is the campaign file (``--config``) or, without it, the job configs the
simulate jobs wrote (``jobs/<point>/b<block>.yaml``: started jobs only).  A run file
counts as done for the plan only when its job is in the plan and it was run with the
plan's job config: its ``config_hash`` attribute equals the hash of the planned job's
validated run config (:func:`simcore.config.config_hash`, what ``simcore run`` writes).
Runs of points or blocks the plan does not have, and runs of another job config (other
samples, seed, t_max, ... after the campaign file was edited), are not counted but
reported, one warning line per kind, so the table never shows "6/4".

Only the run files' headers are read (samples, wall time, config hash), and a planned
job's config is built only where a run file exists.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from simcore.checks import ConfigError, ConfigFileError
from simcore.config import config_hash, load_yaml, validate_run_config

_RUN_NAME = re.compile(r"b(0|[1-9][0-9]*)\.nc")
#: Points named in a warning before "..."
_NAMED = 3


@dataclass
class CampaignStatus:
    """The rows of ``simcore status`` (one per planned point) and its warnings (one line
    per kind of mismatch between the results and the plan)."""

    rows: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class _Plan:
    """The planned jobs: per point, block -> a function giving the job's validated run
    config; the samples planned per point; what the plan is, for messages."""

    jobs: dict[str, dict[int, Callable[[], dict]]]
    samples: dict[str, int]
    source: str
    campaign: str | None = None


def _run_header(path: Path) -> tuple[int, float, str | None, str | None]:
    """(samples, wall seconds, config hash, config YAML) of a run file, from its header."""
    import netCDF4

    with netCDF4.Dataset(path) as nc:
        return (
            int(nc.dimensions["sample"].size),
            float(getattr(nc, "wall_seconds", 0.0)),
            getattr(nc, "config_hash", None),
            getattr(nc, "config", None),
        )


def _from_yaml(text: str, where: str) -> dict:
    """A job's run config from the text of its job file, validated as ``simcore run``
    validates it (so its hash is the one the run file carries)."""
    try:
        return validate_run_config(load_yaml(text))
    except (ConfigError, yaml.YAMLError) as exc:
        raise ConfigFileError(where, str(exc).splitlines()[0]) from None


def _campaign_plan(config: str) -> _Plan:
    """The plan of the campaign file ``config``."""
    from simcore.campaign import job_config_yaml, load_campaign

    camp = load_campaign(config)

    def job(point: str, block: int) -> Callable[[], dict]:
        return lambda: _from_yaml(job_config_yaml(camp.job_config(point, block)), config)

    return _Plan(
        jobs={pt.name: {b: job(pt.name, b) for b in pt.blocks} for pt in camp.points},
        samples={pt.name: pt.samples for pt in camp.points},
        source="the campaign",
        campaign=camp.name,
    )


def _job_file_plan(results: Path) -> _Plan:
    """The plan of the job configs written so far under ``results/jobs``."""
    jobs: dict[str, dict[int, Callable[[], dict]]] = defaultdict(dict)
    samples: dict[str, int] = defaultdict(int)
    for path in sorted(results.glob("jobs/*/b*.yaml")):
        m = re.fullmatch(r"b(0|[1-9][0-9]*)\.yaml", path.name)
        if not m:
            continue
        text = path.read_text()
        cfg = _from_yaml(text, str(path))
        jobs[path.parent.name][int(m.group(1))] = lambda cfg=cfg: cfg
        samples[path.parent.name] += int(cfg["samples"])
    return _Plan(jobs=dict(jobs), samples=dict(samples), source="the job files in jobs/")


def _names(points: dict[str, Any]) -> str:
    """Up to three point names, then the count of the others."""
    names = sorted(points)
    more = f" and {len(names) - _NAMED} more" if len(names) > _NAMED else ""
    return ", ".join(names[:_NAMED]) + more


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _differences(planned: dict, text: str | None) -> dict[str, tuple[Any, Any]]:
    """Keys whose value in a run file's config (YAML ``text``) differs from the plan's:
    key -> (run's value, plan's value)."""
    try:
        ran = load_yaml(text) if text else None
    except yaml.YAMLError:
        ran = None
    if not isinstance(ran, dict):
        return {"config": ("unreadable", "")}
    keys = (set(ran) | set(planned)) - {"checkpoint_interval"}
    return {k: (ran.get(k), planned.get(k)) for k in sorted(keys) if ran.get(k) != planned.get(k)}


def campaign_status(results: Path, config: str | None = None) -> CampaignStatus:
    """Runs and samples done and planned per point of the plan, the wall time of the runs
    counted, and one warning line per kind of run file that does not fit the plan."""
    results = Path(results)
    plan = _campaign_plan(config) if config else _job_file_plan(results)
    done: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])  # runs, samples, wall
    outside: dict[str, int] = defaultdict(int)  # point -> run files
    beyond: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # point -> runs, samples
    differ: list[tuple[Path, dict[str, tuple[Any, Any]]]] = []
    unreadable: list[Path] = []
    for run in sorted(results.glob("runs/*/b*.nc")):
        m = _RUN_NAME.fullmatch(run.name)
        if not m:
            continue
        point, block = run.parent.name, int(m.group(1))
        if point not in plan.jobs:
            outside[point] += 1
            continue
        try:
            samples, wall, chash, text = _run_header(run)
        except (OSError, KeyError):  # not netCDF, or no sample dimension
            unreadable.append(run)
            continue
        if block not in plan.jobs[point]:
            beyond[point][0] += 1
            beyond[point][1] += samples
            continue
        planned = plan.jobs[point][block]()
        if chash != config_hash(planned):
            differ.append((run, _differences(planned, text)))
            continue
        row = done[point]
        row[0] += 1
        row[1] += samples
        row[2] += wall
    status = CampaignStatus()
    for point in plan.jobs:
        d = done.get(point, [0, 0, 0.0])
        status.rows.append(
            {
                "point": point,
                "runs_done": int(d[0]),
                "runs_planned": len(plan.jobs[point]),
                "samples_done": int(d[1]),
                "samples_planned": int(plan.samples[point]),
                "wall_seconds": float(d[2]),
            }
        )
    status.rows.sort(key=lambda r: r["point"])
    status.warnings = _warnings(results, plan, outside, beyond, differ, unreadable)
    return status


def _warnings(
    results: Path,
    plan: _Plan,
    outside: dict[str, int],
    beyond: dict[str, list[int]],
    differ: list[tuple[Path, dict[str, tuple[Any, Any]]]],
    unreadable: list[Path],
) -> list[str]:
    """One line per kind of run file that does not fit the plan."""
    lines = []
    folder = results.resolve().name
    if plan.campaign is not None and plan.campaign != folder:
        lines.append(
            f"the campaign file is campaign {plan.campaign!r}, the results folder is "
            f"{folder!r} (results/<campaign>): its runs have other seeds"
        )
    if outside:
        lines.append(
            f"{_plural(sum(outside.values()), 'run file')} of {_plural(len(outside), 'point')} "
            f"not in {plan.source}, not counted: {_names(outside)}"
        )
    if beyond:
        runs = sum(r for r, _ in beyond.values())
        samples = sum(s for _, s in beyond.values())
        lines.append(
            f"{_plural(runs, 'run file')} ({_plural(samples, 'sample')}) beyond the blocks "
            f"{plan.source} plans for {_plural(len(beyond), 'point')} (more samples done "
            f"than planned), not counted: {_names(beyond)}"
        )
    if differ:
        keys = sorted({k for _, diff in differ for k in diff})
        run, diff = differ[0]
        example = ", ".join(f"{k} {ran!r} (planned {want!r})" for k, (ran, want) in diff.items())
        lines.append(
            f"{_plural(len(differ), 'run file')} ran other job configs than {plan.source} "
            f"plans (different {', '.join(keys) or 'config_hash'}), not counted; e.g. "
            f"{run.relative_to(results)}: {example or 'another config_hash'}"
        )
    if unreadable:
        lines.append(
            f"{_plural(len(unreadable), 'run file')} cannot be read as netCDF, not counted: "
            f"{', '.join(str(p.relative_to(results)) for p in unreadable[:_NAMED])}"
            + (" ..." if len(unreadable) > _NAMED else "")
        )
    return lines


#: The columns of ``simcore status`` (the texts of :func:`_cells`): header, and whether
#: the column is right-aligned (numbers) or left-aligned (names).
_COLUMNS = (("point", False), ("runs", True), ("samples", True), ("wall time", True))
#: Blanks between two columns.
_GAP = "  "


def _cells(row: dict) -> list[str]:
    """The texts of one row, column by column (done/planned for runs and samples)."""
    return [
        str(row["point"]),
        f"{row['runs_done']}/{row['runs_planned']}",
        f"{row['samples_done']}/{row['samples_planned']}",
        _hms(row["wall_seconds"]),
    ]


def format_status(rows: list[dict]) -> str:
    """The status rows as a fixed-width table with a total line.

    Each column is as wide as its widest text, header included, and the header is
    aligned as its values are (point names to the left, numbers to the right), so every
    header sits over its column however long the point names are.
    """
    total = {"point": "total", "wall_seconds": 0.0}
    for key in ("runs_done", "runs_planned", "samples_done", "samples_planned"):
        total[key] = sum(int(r[key]) for r in rows)
    total["wall_seconds"] = sum(float(r["wall_seconds"]) for r in rows)
    body = [_cells(r) for r in rows]
    foot = _cells(total)
    heads = [head for head, _ in _COLUMNS]
    widths = [max(len(line[i]) for line in [heads, *body, foot]) for i in range(len(heads))]

    def line(cells: list[str]) -> str:
        parts = [
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, (_, right) in zip(cells, widths, _COLUMNS, strict=True)
        ]
        return _GAP.join(parts).rstrip()

    rule = _GAP.join("-" * w for w in widths)
    return "\n".join([line(heads), rule, *map(line, body), rule, line(foot)]) + "\n"


def _hms(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
