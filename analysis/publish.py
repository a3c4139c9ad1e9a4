"""Publish a campaign's results: the data behind its figures, small enough for the repository.

``python -m analysis.publish CONFIG [--results DIR] [--out DIR] [--datasets-limit-mb MB]
[--command TEXT]``

copies, from ``<results>/<campaign>/`` into ``<out>/<campaign>/`` (default
``docs/data/<campaign>/``):

* ``analysis/<point>.nc``: every point's analysis (means, jackknife errors, the model's
  derived quantities and, where the model keeps them, the jackknife replicas of its
  estimates), as the pipeline wrote it;
* ``datasets/<point>.nc``: the point's samples, where the file is at most
  ``--datasets-limit-mb`` (default 4) MB, so that the analysis itself can be recomputed
  from them; larger ones are left out, and the manifest says which;
* ``bench/<kernel>.csv``: the campaign's benchmark tables;
* ``figures.yaml``: the manifest. It names the campaign, its config file and the command
  that regenerates the results, the commits, backends and devices of the runs (read from
  the analyses' provenance), the points that had no analysis yet, and every figure of the
  campaign (its paper figures, with their points and options, and the model's campaign
  figures) as inputs relative to the folder, which is what :mod:`analysis.redraw` draws.

Every file is copied as written (the pipeline already compresses the float variables), so
a published file's provenance attributes are the run's own.  The folder is written beside
its final name and renamed into place, replacing an earlier publication of the campaign
whole: nothing half-published is left.  A campaign whose runs have not all finished can be
published: figures whose points all have analyses are listed, the others are named under
``figures_left_out``.

Exit status: 0 published; 2 bad input (an unreadable campaign, no results folder, nothing
to publish), one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr
import yaml

from analysis.dispatch import fail
from simcore.campaign.plan import Campaign, load_campaign
from simcore.interrupt import run_main
from simcore.io.provenance import git_commit, now_iso

__all__ = ["DATA_DIR", "MANIFEST", "main", "publish"]

#: The manifest file of a published campaign folder.
MANIFEST = "figures.yaml"

#: Where campaigns are published by default.
DATA_DIR = os.path.join("docs", "data")

#: Provenance attributes of the runs that the manifest lists (their distinct values).
RUN_ATTRIBUTES = ("git_commit", "simcore_version", "backend", "device")


def _distinct(paths: Iterable[Path], key: str) -> list[str]:
    """The distinct values of attribute ``key`` over the netCDF files ``paths``, with those
    of its per-run list ``source_<key>s`` where an aggregate has one (the commits of a
    point whose runs were made at several commits)."""
    values: set[str] = set()
    for path in paths:
        with xr.open_dataset(path) as ds:
            found = [ds.attrs.get(key), *np.atleast_1d(ds.attrs.get(f"source_{key}s", []))]
        values.update(str(v) for v in found if v not in (None, ""))
    return sorted(values)


def _figures(
    campaign: Campaign, have: set[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The manifest entries of the campaign's figures whose inputs are all published, and
    those left out (with the points they miss)."""
    listed: list[dict[str, Any]] = []
    left_out: list[dict[str, Any]] = []
    for fig in campaign.paper_figures:
        entry: dict[str, Any] = {"name": f"paper_{fig.name}", "paper_figure": fig.figure.name}
        options = dict(getattr(fig, "options", None) or {})
        if options:
            entry["options"] = options
        if fig.figure.bench:
            inputs = [f"bench/{kernel}.csv" for kernel in fig.figure.bench]
            missing = [k for k in fig.figure.bench if f"bench/{k}.csv" not in have]
        else:
            points = campaign.figure_points(fig.name)
            inputs = [f"analysis/{p}.nc" for p in points]
            missing = [p for p in points if f"analysis/{p}.nc" not in have]
        entry["inputs"] = inputs
        if missing:
            left_out.append({"name": entry["name"], "missing": missing})
        else:
            listed.append(entry)
    analyses = sorted(p for p in have if p.startswith("analysis/"))
    if analyses:
        for name in campaign.figure_names:
            listed.append({"name": name, "campaign_figure": name, "inputs": analyses})
    return listed, left_out


def _copy_tree(campaign: Campaign, source: Path, dest: Path, limit_mb: float) -> dict[str, Any]:
    """Copy the analyses, the datasets up to ``limit_mb`` and the benchmark tables of
    ``campaign`` from ``source`` into ``dest``; returns what was and was not copied."""
    copied: set[str] = set()
    too_large: list[str] = []
    no_analysis: list[str] = []
    for point in campaign.point_names:
        analysis = source / "analysis" / f"{point}.nc"
        if not analysis.is_file():
            no_analysis.append(point)
            continue
        (dest / "analysis").mkdir(exist_ok=True)
        shutil.copy2(analysis, dest / "analysis" / analysis.name)
        copied.add(f"analysis/{analysis.name}")
        dataset = source / "datasets" / f"{point}.nc"
        if dataset.is_file():
            if dataset.stat().st_size <= limit_mb * 1e6:
                (dest / "datasets").mkdir(exist_ok=True)
                shutil.copy2(dataset, dest / "datasets" / dataset.name)
                copied.add(f"datasets/{dataset.name}")
            else:
                too_large.append(point)
    for table in sorted((source / "bench").glob("*.csv")):
        (dest / "bench").mkdir(exist_ok=True)
        shutil.copy2(table, dest / "bench" / table.name)
        copied.add(f"bench/{table.name}")
    return {"copied": copied, "too_large": too_large, "no_analysis": no_analysis}


def publish(
    config: str | os.PathLike[str],
    results: str | os.PathLike[str] = "results",
    out: str | os.PathLike[str] = DATA_DIR,
    datasets_limit_mb: float = 4.0,
    command: str | None = None,
) -> Path:
    """Publish the campaign of ``config`` from ``results`` into ``out/<campaign>`` (see the
    module doc); returns that folder.  ``ValueError`` for an unreadable campaign, a
    missing results folder or nothing to publish."""
    campaign = load_campaign(config)
    source = Path(results) / campaign.name
    if not source.is_dir():
        raise ValueError(f"no results of campaign {campaign.name!r} in {source}")
    final = Path(out) / campaign.name
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{campaign.name}.", dir=final.parent))
    try:
        what = _copy_tree(campaign, source, work, datasets_limit_mb)
        if not what["copied"]:
            raise ValueError(f"nothing to publish in {source} (no analysis and no bench table)")
        figures, left_out = _figures(campaign, what["copied"])
        analyses = sorted(work.glob("analysis/*.nc"))
        manifest: dict[str, Any] = {
            "campaign": campaign.name,
            "config": os.fspath(config),
            "command": command
            or f"snakemake --workflow-profile workflow/profiles/default --configfile {config}",
            "published": {"date": now_iso(), "simcore_commit": git_commit() or "n/a"},
            "runs": {key: _distinct(analyses, key) for key in RUN_ATTRIBUTES},
            "points_without_analysis": what["no_analysis"],
            "datasets_left_out": {
                "points": what["too_large"],
                "why": f"larger than {datasets_limit_mb:g} MB; their analyses are published",
            },
            "figures": figures,
            "figures_left_out": left_out,
        }
        (work / MANIFEST).write_text(
            f"# Published by python -m analysis.publish {config}\n"
            + yaml.safe_dump(manifest, sort_keys=False, width=100)
        )
        os.chmod(work, 0o755)
        old = None
        if final.exists():
            old = final.with_name(f".{final.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(final, old)
        os.replace(work, final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return final


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 published, 2 bad input)."""
    parser = argparse.ArgumentParser(
        prog="python -m analysis.publish",
        description=(
            "Copy a campaign's analyses, its small datasets and its benchmark tables into a "
            "folder for the repository, with a manifest of its figures that "
            "'python -m analysis.redraw' draws from them."
        ),
    )
    parser.add_argument("config", metavar="CONFIG", help="the campaign file")
    parser.add_argument("--results", default="results", help="results folder (default: results)")
    parser.add_argument("--out", default=DATA_DIR, help="where to publish (docs/data)")
    parser.add_argument(
        "--datasets-limit-mb",
        type=float,
        default=4.0,
        metavar="MB",
        help="publish a point's dataset only up to this size (default 4)",
    )
    parser.add_argument(
        "--command", default=None, help="the command that made the results (for the manifest)"
    )
    args = parser.parse_args(argv)
    if args.datasets_limit_mb < 0:
        return fail(parser.prog, f"--datasets-limit-mb must be >= 0, got {args.datasets_limit_mb}")
    try:
        path = publish(args.config, args.results, args.out, args.datasets_limit_mb, args.command)
    except (OSError, ValueError) as exc:
        return fail(parser.prog, exc)
    print(f"published {path}")
    return 0


if __name__ == "__main__":
    run_main(main, "python -m analysis.publish")
