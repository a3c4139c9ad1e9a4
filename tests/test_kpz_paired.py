"""Tests of two kpz runs on the same random numbers compared pair by pair
(analysis.kpz_paired): a known relative change is recovered with the paired error far
below the unpaired one, runs that are not paired are refused, and the table's rows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from analysis import kpz_paired
from simcore.io.dataset import write_dataset

REPO = Path(__file__).resolve().parents[1]
TIMES = np.array([0, 1, 3, 10, 30, 100])


def run_file(w2: np.ndarray, seed: int = 7, scheme: str = "DTrDB") -> xr.Dataset:
    """A run file's layout: W2 and C_h(s = 10) per sample and time."""
    n = w2.shape[0]
    c_h = np.where(TIMES > 10, 0.5 * w2, np.nan)[:, None, :]
    return xr.Dataset(
        {"W2": (("sample", "t"), w2), "C_h": (("sample", "s", "t"), c_h)},
        coords={"sample": np.arange(n), "t": TIMES, "s": [10]},
        attrs={"seed": seed, "L": 64, "p": 1.0, "q": 0.0, "t_max": 100, "scheme": scheme},
    )


def pair(delta: float, n: int = 64, jitter: float = 1e-4) -> tuple[xr.Dataset, xr.Dataset]:
    """Samples with a 10 % spread of W2, and their twins changed by ``delta`` relative to
    them plus an independent ``jitter``: what shared random numbers give."""
    rng = np.random.default_rng(1)
    w2 = (TIMES + 1.0) ** 0.48 * rng.lognormal(0.0, 0.1, size=(n, TIMES.size))
    other = w2 * (1.0 + delta + jitter * rng.standard_normal(w2.shape))
    return run_file(w2), run_file(other, scheme="DTrDBs")


def test_a_known_change_is_recovered_with_the_paired_error() -> None:
    """A 0.05 % change under 10 % sample-to-sample spread: the pairs give it to about
    1.3e-5 (jitter / sqrt(64)), some 100 times below the error of W2's mean (1.3 %)."""
    ref, other = pair(5e-4)
    d = kpz_paired.paired_differences(ref, other, "W2")
    assert np.allclose(d["rel"][1:], 5e-4, atol=4 * 1.25e-5)
    assert np.all(d["rel_err"][1:] < 2e-5)
    assert np.all(d["mean_err"][1:] / d["mean"][1:] > 100 * d["rel_err"][1:])


def test_runs_that_are_not_paired_are_refused() -> None:
    ref, other = pair(0.0)
    for changed in (other.assign_attrs(seed=8), other.isel(sample=slice(0, 32))):
        with pytest.raises(ValueError, match="not paired"):
            kpz_paired.paired_differences(ref, changed, "W2")


def test_table_rows_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One W2 row per time t > 0 and one C_h row per time t > s; the CLI refuses a file
    that is not paired on one line naming it, exit status 2."""
    ref, other = pair(1e-3)
    a = write_dataset(ref, tmp_path / "a.nc")
    b = write_dataset(other, tmp_path / "b.nc")
    assert kpz_paired.main([str(a), str(b)]) == 0
    rows = capsys.readouterr().out.strip().splitlines()[2:]
    kinds = [r.strip("| ").split(" | ")[0] for r in rows]
    assert kinds == ["W2"] * 5 + ["C_h"] * 2
    for r in rows:  # 0.1 %, to within 4 of its paired errors (about 0.0013 %)
        assert abs(float(r.strip("| ").split(" | ")[4].split("(")[0]) - 0.1) < 0.006
    c = write_dataset(other.assign_attrs(seed=9), tmp_path / "c.nc")
    run = subprocess.run(
        [sys.executable, "-m", "analysis.kpz_paired", str(a), str(c)],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    err = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(err) == 1 and "c.nc" in err[0] and "seed" in err[0]
