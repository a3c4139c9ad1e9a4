"""Workflow at scale: DAG time of a 10,000-job campaign, and aggregation of 1,000 runs.

    python benchmarks/workflow_scale.py [--repeats 5] [--jobs-per-point 1000] [--files 1000]

1. Writes a campaign of 10 points x ``--jobs-per-point`` simulate jobs (1 sample each)
   and times ``snakemake -n --quiet`` on it (the whole command, Python start included),
   ``--repeats`` times; prints every time and the median.
2. Makes ``--files`` run files of one point from one real ``simcore run`` (1 sample, L =
   64, t_max = 1000; the copies get their own sample index, block and seed), then times
   the aggregation as the workflow runs it: one ``python -m analysis.aggregate`` on all
   files, and in stages (stages of 100 files, two at a time on a 2-core machine, as
   Snakemake schedules the ``aggregate_stage`` jobs, then one call on the stages).
   Checks that both give the same dataset.

Run it from the repository root with simcore installed; results go to a temporary
directory.  Copy the printed lines into BENCHMARKS.md with the machine and commit.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import xarray as xr
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def dag_time(work: Path, repeats: int, jobs_per_point: int) -> list[float]:
    """Wall seconds of `snakemake -n` on a campaign of 10 x ``jobs_per_point`` jobs."""
    campaign = {
        "campaign": "big",
        "seed": 1,
        "model": "kpz",
        "samples": jobs_per_point,
        "samples_per_job": 1,
        "t_max": 100,
        "waiting_times": [10],
        "points": [{"dim": 2, "L": [16, 32, 64, 128, 256], "p": [1.0, 0.5]}],
    }
    work.mkdir(parents=True, exist_ok=True)
    conf = work / "big.yaml"
    conf.write_text(yaml.safe_dump(campaign))
    cmd = [
        sys.executable, "-m", "snakemake", "-n", "--quiet", "--snakefile",
        str(ROOT / "Snakefile"), "--workflow-profile", str(ROOT / "workflow/profiles/default"),
        "--directory", str(work), "--configfile", str(conf),
    ]  # fmt: skip
    return [_timed(cmd, work) for _ in range(repeats)]


def make_runs(work: Path, n_files: int) -> list[Path]:
    """``n_files`` run files of one point, copies of one real run with distinct samples."""
    job = {
        "model": "kpz", "dim": 2, "L": 64, "p": 1.0, "q": 0.0, "samples": 1, "seed": 5,
        "t_max": 1000, "waiting_times": [10, 100], "campaign": "agg", "point": "p", "block": 0,
    }  # fmt: skip
    work.mkdir(parents=True, exist_ok=True)
    (work / "job.yaml").write_text(yaml.safe_dump(job))
    subprocess.run(
        ["simcore", "run", "job.yaml", "--out", "run.nc", "--quiet"], cwd=work, check=True
    )
    runs = work / "runs"
    runs.mkdir()
    with xr.open_dataset(work / "run.nc") as ds:
        ds = ds.load()
    paths = []
    for i in range(n_files):
        copy = ds.assign_coords(sample=np.array([i]))
        copy.attrs.update(block=i, sample_offset=i, seed=5 + i)
        path = runs / f"b{i}.nc"
        copy.to_netcdf(path)
        paths.append(path)
    return paths


def _aggregate(out: Path, inputs: list[Path]) -> None:
    subprocess.run(
        [sys.executable, "-m", "analysis.aggregate", "--out", str(out), *map(str, inputs)],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
    )


def aggregation_times(work: Path, paths: list[Path], stage: int, parallel: int) -> tuple:
    """(one call, staged) wall seconds; asserts both datasets are equal."""
    start = time.perf_counter()
    _aggregate(work / "one.nc", paths)
    single = time.perf_counter() - start
    stages = [work / f"s{k}.nc" for k in range(-(-len(paths) // stage))]
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
        list(
            pool.map(
                lambda k: _aggregate(stages[k], paths[k * stage : (k + 1) * stage]),
                range(len(stages)),
            )
        )
    _aggregate(work / "staged.nc", stages)
    staged = time.perf_counter() - start
    with xr.open_dataset(work / "one.nc") as a, xr.open_dataset(work / "staged.nc") as b:
        xr.testing.assert_identical(a.drop_attrs(), b.drop_attrs())
        assert list(a.attrs["source_files"]) == list(b.attrs["source_files"])
    return single, staged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--jobs-per-point", type=int, default=1000)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--stage", type=int, default=100, help="aggregate_stage_size")
    parser.add_argument("--parallel", type=int, default=2, help="stage jobs at a time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        times = dag_time(work / "dag", args.repeats, args.jobs_per_point)
        print(
            f"DAG of {10 * args.jobs_per_point} simulate jobs (snakemake -n): "
            + ", ".join(f"{t:.1f}" for t in times)
            + f" s; median {statistics.median(times):.1f} s"
        )
        paths = make_runs(work / "agg", args.files)
        single, staged = aggregation_times(work / "agg", paths, args.stage, args.parallel)
        print(
            f"aggregating {args.files} run files: one call {single:.1f} s; "
            f"in stages of {args.stage} ({args.parallel} at a time) {staged:.1f} s; "
            "same dataset"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
