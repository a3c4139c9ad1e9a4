"""A campaign run in time-limited allocations: the campaign key ``max_wall`` stops every
simulate job with a checkpoint, the next identical ``snakemake`` command resumes it, and
the final datasets equal those of the same campaign run without interruption.

The campaign is config/kelling2017_scale.yaml made GPU-free and small: the same schemes,
thread cells and sampling density on the CPU twins of the GPU kernels (bit-identical to
them), at L = 64 to t = 4 with waiting times 2 and 4 (five sampling times).
``max_wall=0`` is the shortest allocation there is: each job makes one sampling step per
command and stops, so the campaign needs one command per sampling time, every one of
them interrupted but the last.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed"),
    pytest.mark.skipif(shutil.which("simcore") is None, reason="simcore not on PATH"),
]

#: What the small version changes: the size and the sample count, the CPU backend, and
#: domains of 16 x 16 sites (2 x 2 thread cells of TC = 1,1) that fit L = 64.
SMALL = {"backend": "cpu", "samples": 4, "samples_per_job": 4, "t_max": 4,
         "waiting_times": [2, 4]}  # fmt: skip
SMALL_POINT = {"L": 64, "domain": [16, 16]}


def _small_campaign(workdir: Path) -> Path:
    """config/kelling2017_scale.yaml with :data:`SMALL` and :data:`SMALL_POINT`, written
    to ``workdir``."""
    raw = yaml.safe_load((ROOT / "config" / "kelling2017_scale.yaml").read_text())
    raw.update(SMALL)
    # a point's own keys (e.g. more samples for one scheme) give way to the small ones
    raw["points"] = [
        {**{k: v for k, v in entry.items() if k not in SMALL}, **SMALL_POINT}
        for entry in raw["points"]
    ]
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "campaign.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def _snakemake(workdir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """One allocation: the same command every time (keep-going, so every job of the
    campaign makes its step, not only the first to stop)."""
    cmd = [
        sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
        "--directory", str(workdir), "--cores", "2", "--keep-going", "datasets",
        "--configfile", str(workdir / "campaign.yaml"), *extra,
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def _datasets(workdir: Path) -> dict[str, xr.Dataset]:
    out = {}
    for path in sorted((workdir / "results").glob("*/datasets/*.nc")):
        out[path.stem] = xr.load_dataset(path)
    return out


def test_interrupted_allocations_give_the_uninterrupted_datasets(tmp_path: Path) -> None:
    """Every command but the last is cut short by max_wall (exit status 3, no dataset
    yet, and its last lines say it stopped as planned, with the command that resumes);
    no job starts twice from scratch (each run file's history has one
    'started from scratch' segment and as many segments as commands it ran in); the
    datasets equal, data variable by data variable and bit for bit, those of one
    uninterrupted command."""
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    _small_campaign(whole)
    _small_campaign(parts)
    done = _snakemake(whole)
    assert done.returncode == 0, done.stderr[-3000:]

    commands = 0
    while True:
        commands += 1
        res = _snakemake(parts, "--config", "max_wall=0")
        if res.returncode == 0:
            break
        # a planned stop: exit status 3, and the last lines say so and how to resume
        assert res.returncode == 3, res.stderr[-3000:]
        last = res.stderr.rstrip().splitlines()[-5:]
        assert last[0].endswith("stopped at its wall limit (max_wall), as planned; no job failed.")
        assert last[1].endswith(" with a checkpoint, 0 not started."), last
        assert last[-1] == "    " + shlex.join(["snakemake", *res.args[3:]])
        assert not list((parts / "results").glob("*/datasets/*.nc"))
        assert commands < 30, "the campaign did not finish in 30 allocations"
    assert commands >= 3

    runs = sorted((parts / "results").glob("*/runs/*/b*.nc"))
    assert len(runs) == 2 and not list((parts / "results").glob("*/runs/*/*.ckpt"))
    for run in runs:
        with xr.open_dataset(run) as ds:
            history = ds.attrs["history"].splitlines()
            segments = int(ds.attrs["run_segments"])
        assert sum("started from scratch" in line for line in history) == 1, history
        assert segments == len(re.findall(r"run segment \d+:", "\n".join(history)))
        assert 3 <= segments <= commands

    got, want = _datasets(parts), _datasets(whole)
    assert sorted(got) == sorted(want) and len(want) == 2
    for point, ref in want.items():
        for name in ref.data_vars:
            np.testing.assert_array_equal(got[point][name].values, ref[name].values, name)
