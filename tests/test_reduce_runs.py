"""benchmarks/reduce_runs.py: transport copies keep the last bins of a run file exactly,
say so in an attribute, and go back where the campaign's Snakemake finds them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import xarray as xr

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "reduce_runs.py"


def _run_file(path: Path) -> Path:
    rng = np.random.default_rng(4)
    ds = xr.Dataset(
        {
            "q2": (("sample", "T", "t"), rng.random((64, 3, 6))),
            "round_trips": (("sample", "walker"), rng.integers(0, 9, (64, 3))),
        },
        coords={"t": ("t", 10 * 2 ** np.arange(6)), "t_first": ("t", 5 * 2 ** np.arange(6))},
        attrs={"point": "p", "history": "run"},
    )
    path.parent.mkdir(parents=True)
    ds.to_netcdf(path)
    return path


def _script(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)],
                          capture_output=True, text=True)  # fmt: skip


def test_copies_keep_the_last_bins_and_restore_to_the_runs_folder(tmp_path) -> None:
    """The copy holds t[-4:] of every variable with t, the others whole, equal value for
    value; ``reduced`` says 4 of 6; --restore writes results/runs/<point>/b3.nc."""
    src = _run_file(tmp_path / "results" / "runs" / "pointA" / "b3.nc")
    done = _script("--last-bins", 4, "--out", tmp_path / "out", src)
    assert done.returncode == 0, done.stderr
    (copy,) = (tmp_path / "out").glob("*.nc")
    assert copy.name == "pointA__b3.nc"
    back = _script("--restore", tmp_path / "again", copy)
    assert back.returncode == 0, back.stderr
    with xr.open_dataset(src) as full, xr.open_dataset(tmp_path / "again/runs/pointA/b3.nc") as c:
        assert "last 4 of 6" in c.attrs["reduced"] and c.attrs["history"] == "run"
        xr.testing.assert_identical(full.isel(t=slice(-4, None)).drop_attrs(), c.drop_attrs())


def test_bad_input_is_one_line_and_status_2(tmp_path) -> None:
    """A file that is not there, or no --out: one line on stderr, exit status 2."""
    for args in (("--out", tmp_path, tmp_path / "missing.nc"), (tmp_path / "x.nc",)):
        done = _script(*args)
        assert done.returncode == 2
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
